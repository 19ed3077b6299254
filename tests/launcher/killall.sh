# SPDX-License-Identifier: BSD-3-Clause
# Every rank of a job SIGKILLed at once (tests/launcher/progs/mpi_fail killall: no rank's
# cleanup runs) leaves nothing in /dev/shm or /tmp: over shared memory (Ibex's own segments are
# memfds with no name), and over softib (`ibexrun --softib`: ibexrun sweeps the dead ranks'
# softib files when the job ends), in /dev/shm and in a SOFTIB_FABRIC_DIR, while another live
# softib job in the same namespace keeps its files, and a name of another namespace is left be.
. "${top_srcdir:-.}/tests/launcher/lib.sh"
P=$PROGS/mpi_fail
U=$(id -u)
NS=k$(od -An -N6 -tx1 /dev/urandom | tr -dc '0-9a-f')
export SOFTIB_NAMESPACE=$NS
trap 'pkill -KILL -f -- "$MARK" 2>/dev/null; rm -rf "$WORK"; rm -f /dev/shm/softib-$U$NS-* /dev/shm/softib-$U$NS.reg' EXIT

# ours DIR: the softib files of this test's namespace in DIR.
ours() { ls -A "$1" 2>/dev/null | grep -E "^softib-$U$NS[-.]" || true; }

run 30 -n 3 "$P" killall "$MARK"
expect "shm, every rank SIGKILLed" 137 "killed by signal 9"
left=$(ls -A /dev/shm | grep -i 'ibex' || true)
[ -z "$left" ] || fail "shm: Ibex files left in /dev/shm: $left"

run 30 -n 3 --softib "$P" killall "$MARK"
expect "softib, every rank SIGKILLed" 137 "killed by signal 9"
[ -z "$(ours /dev/shm)" ] || fail "softib: files left in /dev/shm: $(ours /dev/shm)"

# A fabric directory, with an orphan segment of ours (a rank killed between creating its
# segment and registering it) and a name of another namespace, which must stay.
FAB=$WORK/fab
mkdir -m 700 "$FAB"
: >"$FAB/softib-$U$NS-0123456789abcdef"
: >"$FAB/softib-$U${NS}x-0123456789abcdef"
SOFTIB_FABRIC_DIR=$FAB run 30 -n 2 --softib "$P" killall "$MARK"
expect "softib fabric dir, every rank SIGKILLed" 137 "killed by signal 9"
[ -z "$(ours "$FAB")" ] || fail "softib fabric dir: files left: $(ours "$FAB")"
[ -e "$FAB/softib-$U${NS}x-0123456789abcdef" ] || fail "another namespace's file was removed"
rm -f "$FAB/softib-$U${NS}x-0123456789abcdef"

# A live job in the same namespace keeps its segments through another job's sweep.
mkdir -p "$WORK/tmp2"
TMPDIR=$WORK/tmp2 timeout -k 5 30 "$IBEXRUN" -n 2 --softib "$P" sleep "$MARK" >"$WORK/live" 2>&1 &
live=$!
for _ in $(seq 100); do [ "$(grep -c ready "$WORK/live")" -eq 2 ] && break; sleep 0.1; done
live_files=$(ours /dev/shm | grep -v '\.reg$')
[ "$(printf '%s\n' "$live_files" | grep -c .)" -ge 2 ] ||
    fail "the live job has no segments: $(cat "$WORK/live")"
TMPDIR=$WORK/tmp timeout -k 5 30 "$IBEXRUN" -n 2 --softib "$P" killall "$MARK" >/dev/null 2>&1
for f in $live_files; do
    [ -e "/dev/shm/$f" ] || fail "another job's sweep removed the live job's $f"
done
[ "$(ours /dev/shm | grep -v '\.reg$')" = "$live_files" ] ||
    fail "the killed job left files beside the live job's: $(ours /dev/shm)"
kill -TERM "$live"
wait "$live"
[ -z "$(ours /dev/shm)" ] || fail "the live job, stopped, left: $(ours /dev/shm)"
rm -rf "$WORK/tmp2"
RC=0 ERR= MS=0
expect "live job kept its files, then left nothing" 0 ""
finish
