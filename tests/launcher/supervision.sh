# SPDX-License-Identifier: BSD-3-Clause
# Supervision with a raw PMIx client (tests/launcher/progs/pmix_client): every way a rank can
# fail ends the job with one message naming it, the documented exit code, and nothing left.
# supervision_mpi.sh runs the same cases with the MPI program (PROG=mpi_fail).
. "${top_srcdir:-.}/tests/launcher/lib.sh"
P=${PROG:-$PROGS/pmix_client}

run 30 -n 4 "$P" exit 3 2 "$MARK"
expect "non-zero exit" 3 "^ibexrun: rank 2 \(pid [0-9]+\) exited with code 3; stopping the job$"
[ "$(printf '%s\n' "$ERR" | grep -c '^ibexrun:')" -eq 1 ] || fail "more than one message: $ERR"

# A cascade: rank 2 exits while the others are in a PMIx fence, which then fails, so they exit
# with code 11 right after it. ibexrun judges exits in the order they happened, but a rank's
# PMIx connection can close before its process is gone, so a peer may truly exit first: the
# invariants are one message naming a rank that failed, its code, and nothing left behind.
# Only the raw PMIx client has this mode.
if [ -z "${PROG:-}" ]; then
    for _ in 1 2 3; do
        run 30 -n 4 "$P" cascade 3 2 "$MARK"
        case $RC in
        3) expect "cascade" 3 "^ibexrun: rank 2 \(pid [0-9]+\) exited with code 3(; stopping|$)" ;;
        *) expect "cascade (a peer exited first)" 11 "^ibexrun: rank [013] \(pid [0-9]+\) exited with code 11" ;;
        esac
        [ "$(printf '%s\n' "$ERR" | grep -c '^ibexrun:')" -eq 1 ] || fail "cascade: messages: $ERR"
    done
fi

# The same with a rank killed by a signal: ibexrun holds the peers' exits (consequences) for a
# moment, so the killed rank is named every time.
if [ -z "${PROG:-}" ]; then
    for _ in 1 2 3 4 5; do
        run 30 -n 4 "$P" killfence 2 "$MARK"
        expect "killed during a fence" 137 "^ibexrun: rank 2 \(pid [0-9]+\) killed by signal 9 \(Killed\)"
        [ "$(printf '%s\n' "$ERR" | grep -c '^ibexrun:')" -eq 1 ] || fail "killfence: messages: $ERR"
    done
fi

run 30 -n 3 "$P" abort 7 1 "$MARK"
expect "abort" 7 "^ibexrun: rank 1 \(pid [0-9]+\) aborted the job with code 7"

run 30 -n 3 "$P" nofinalize 1 "$MARK"
expect "missing finalize" 1 "^ibexrun: rank 1 \(pid [0-9]+\) exited without calling MPI_Finalize"

run 30 -n 3 "$P" segv 0 "$MARK"
expect "segfault" 139 "^ibexrun: rank 0 \(pid [0-9]+\) killed by signal 11 \(Segmentation fault\)"

run 30 -n 3 "$P" noinit 2 "$MARK"
expect "no init while others did" 1 "^ibexrun: rank 2 \(pid [0-9]+\) exited without calling MPI_Init"

run 30 -n 3 --timeout 2 "$P" sleep "$MARK"
expect "timeout" 124 "^ibexrun: timeout after 2 s; ranks 0-2 still running"

# A rank killed with SIGKILL ends the job within 2 s of the kill.
mkdir -p "$WORK/tmp"
TMPDIR=$WORK/tmp timeout -k 5 30 "$IBEXRUN" -n 3 "$P" sleep "$MARK" >"$WORK/out" 2>"$WORK/err" &
job=$!
for _ in $(seq 100); do [ "$(grep -c ready "$WORK/out")" -eq 3 ] && break; sleep 0.1; done
victim=$(for p in $(pgrep -f -- "$MARK"); do
    [ "$(ps -o comm= -p "$p")" != ibexrun ] && tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null |
        grep -qx 'PMIX_RANK=1' && echo "$p"; done | head -1)
t0=$(date +%s%N)
if [ -z "$victim" ]; then
    fail "SIGKILL: could not find rank 1"
else
    kill -KILL "$victim"
fi
wait "$job"; RC=$?
MS=$(( ($(date +%s%N) - t0) / 1000000 )); ERR=$(cat "$WORK/err")
expect "SIGKILL" 137 "^ibexrun: rank 1 \(pid $victim\) killed by signal 9 \(Killed\); stopping"
[ "$MS" -lt 2000 ] || fail "SIGKILL: the job took $MS ms to end (limit 2000)"

# SIGINT / SIGTERM to ibexrun are forwarded; exit 128 + signal.
TMPDIR=$WORK/tmp timeout -k 5 30 "$IBEXRUN" -n 2 "$P" sleep "$MARK" >"$WORK/out" 2>"$WORK/err" &
job=$!
for _ in $(seq 100); do [ "$(grep -c ready "$WORK/out")" -eq 2 ] && break; sleep 0.1; done
pkill -TERM -x ibexrun -P "$job"
wait "$job"; RC=$?; ERR=$(cat "$WORK/err"); MS=0
expect "SIGTERM forwarded" 143 "^ibexrun: received signal 15"

# ibexrun itself SIGKILLed: its ranks die with it (PR_SET_PDEATHSIG), and the next ibexrun
# removes the directory it could not.
TMPDIR=$WORK/tmp "$IBEXRUN" -n 2 "$P" sleep "$MARK" >"$WORK/out" 2>"$WORK/err" </dev/null &
job=$!
for _ in $(seq 100); do [ "$(grep -c ready "$WORK/out")" -eq 2 ] && break; sleep 0.1; done
kill -KILL "$job"
wait "$job" 2>/dev/null
sleep 0.5
if pgrep -f -- "$MARK" >/dev/null; then
    fail "ranks survived a SIGKILLed ibexrun: $(pgrep -af -- "$MARK")"
    pkill -KILL -f -- "$MARK"
fi
run 30 -n 1 /bin/true
expect "after a SIGKILLed ibexrun" 0 "^$"

# A rank that ignores SIGTERM gets SIGKILL after IBEX_ABORT_GRACE_MS.
IBEX_ABORT_GRACE_MS=300 run 30 -n 2 --timeout 1 /bin/sh -c \
    'trap "" TERM; while :; do sleep 1; done' "$MARK"
expect "SIGTERM ignored: SIGKILL after the grace" 124 "^ibexrun: timeout after 1 s"
[ "$MS" -lt 3000 ] || fail "SIGTERM ignored: the job took $MS ms (timeout 1 s + grace 0.3 s)"

# Ranks that exit 0 without ever calling MPI_Init are fine.
run 30 -n 3 /bin/true
expect "plain program" 0 "^$"
run 30 -n 2 /bin/false
expect "plain program failing" 1 "rank [01] \(pid [0-9]+\) exited with code 1"
finish
