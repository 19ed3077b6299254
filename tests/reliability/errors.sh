#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The clear-errors table of the top README (issue 16): each row that can be provoked on this
# machine, with what the user must see. Every job has a time limit and leaves nothing behind
# (tests/launcher/lib.sh). Rows that cannot be provoked here (memlock and port state under
# softib, ptrace scope in a container) are checked by ibex_info --check instead.
. "${top_srcdir:?}/tests/launcher/lib.sh"
R=$B/tests/reliability
INFO=$B/runtime/ibex_info

run 40 -n 3 "$R/err_prog" kill 0 "$MARK"
expect "rank killed" 137 "^ibexrun: rank 1 \(pid [0-9]+\) killed by signal 9 \(Killed\); stopping the job$"

# The launcher killed: its ranks must not survive it (PR_SET_PDEATHSIG), and the next ibexrun
# removes the directory the dead one left in TMPDIR.
mkdir -p "$WORK/tmp"
TMPDIR=$WORK/tmp "$IBEXRUN" -n 3 "$R/err_prog" sleep 30 "$MARK" >/dev/null 2>&1 </dev/null &
job=$!
for _ in $(seq 100); do
    [ "$(pgrep -f -- "$R/err_prog sleep 30 $MARK" | wc -l)" -ge 4 ] && break # ibexrun + 3
    sleep 0.1
done
kill -KILL "$job"
wait "$job" 2>/dev/null
for _ in $(seq 30); do
    pgrep -f -- "$MARK" >/dev/null || break
    sleep 0.1
done
if pgrep -f -- "$MARK" >/dev/null; then
    fail "launcher killed: ranks survived it: $(pgrep -af -- "$MARK")"
else
    pass "launcher killed: no rank survives it"
fi
run 40 -n 1 "$R/err_prog" sleep 0 "$MARK"
expect "the next ibexrun cleans up after a killed one" 0 "^$"

run 40 -n 2 "$R/err_prog" nomem 0 "$MARK"
expect "out of memory" 39 "rank [01] \([^)]*\): MPI_Alloc_mem: cannot allocate 4611686018427387904 bytes: out of memory \[MPI_ERR_NO_MEM\]"
printf '%s\n' "$OUT" | grep -q "MPI_ERR_NO_MEM returned" || fail "out of memory: MPI_ERRORS_RETURN: $OUT"

# Out of context ids (Comm_dup / Comm_idup in a loop): the reason, not "resource exhausted"
# (the idup's Wait names MPI_Comm_idup, not "collective failed")
for m in "ctxfull MPI_Comm_dup: communicator creation" "ctxfull_idup MPI_Wait: MPI_Comm_idup"; do
    run 60 -n 2 "$R/err_prog" "${m%% *}" "$MARK"
    expect "out of context ids (${m%% *})" 16 "rank [01] \([^)]*\): ${m#* } failed: no context id is free on every rank of the communicator: free some communicators \[MPI_ERR_OTHER\]"
done

run 40 -n 2 -x IBEX_TRANSPORTS=verbs "$R/err_prog" sleep 0 "$MARK"
expect "no RDMA device" 16 "transport verbs was requested \(IBEX_TRANSPORTS=verbs\) but cannot open: no usable device"

# No transport reaches the other rank: the collective fails at once with the reason (it waited
# until the time limit: the receive behind the failed send was never failed)
run 40 -n 2 --timeout 30 -x IBEX_TRANSPORTS=self "$R/err_prog" coll 1 "$MARK"
expect "no transport reaches a rank" 58 "no transport reaches rank [01] on [^ ]+ \(IBEX_TRANSPORTS=self\)"
[ "$MS" -lt 20000 ] || fail "no transport reaches a rank: took $MS ms (a wait until the time limit)"

run 40 -n 2 -x IBEX_EAGER_LIMIT=banana "$R/err_prog" sleep 0 "$MARK"
expect "bad tunable" 16 "IBEX_EAGER_LIMIT='banana' is not valid: expected auto or a size such as 4096, 64k or 1m"
printf '%s\n' "$ERR" | grep -q "MPI_Init: invalid IBEX_\* setting" || fail "bad tunable: no MPI_Init line: $ERR"

# A peer lost under MPI_ERRORS_RETURN (softib forces every connection into the error state after
# some work): rank 0's receives and probes from MPI_ANY_SOURCE must fail with a clear error, not
# hang (runtime/engine/peer_fail.c), after every message that did arrive was right.
for m in recv irecv probe iprobe; do
    run 60 -n 2 --softib --timeout 40 -x SOFTIB_FAULT_QP_ERR_AFTER=300 "$R/anysrc_fail" "$m" "$MARK"
    expect "MPI_ANY_SOURCE $m when the sender is lost" 0 "rank 1 on [^ ]+ is unreachable"
    printf '%s\n' "$OUT" | grep -q "^anysrc_fail: failed as it must after [0-9]* messages: MPI_ERR_PROC_ABORTED" ||
        fail "MPI_ANY_SOURCE $m when the sender is lost: $OUT $ERR"
done
run 60 -n 2 --softib --timeout 40 -x SOFTIB_FAULT_QP_ERR_AFTER=300 "$R/anysrc_fail" recv fatal "$MARK"
expect "MPI_ANY_SOURCE receive, sender lost, default handler" 58 "MPI_Recv: receive from MPI_ANY_SOURCE \(tag 1\) failed: rank 1 of the communicator \(world rank 1\) has failed: peer failed"

# /dev/shm full (a full tmpfs in a namespace of our own; needs CAP_SYS_ADMIN): Ibex keeps no
# file there (the shared-memory rings, windows and collective segments are memfds), so the
# shared-memory collectives run as always: no warning, results right, nothing left.
if unshare --mount --propagation private true 2>/dev/null; then
    TMPDIR=$WORK/tmp timeout -k 5 60 unshare --mount --propagation private sh -c '
        mount -t tmpfs -o size=8k,mode=1777 none /dev/shm || exit 99
        dd if=/dev/zero of=/dev/shm/fill bs=4k count=2 2>/dev/null
        "$1" -n 4 --timeout 50 "$2" coll 1000 "$3"; rc=$?
        ls /dev/shm >&2; exit $rc' sh "$IBEXRUN" "$R/err_prog" "$MARK" >"$WORK/out" 2>"$WORK/err"
    RC=$?
    OUT=$(cat "$WORK/out")
    ERR=$(cat "$WORK/err")
    MS=0
    expect "/dev/shm full" 0 "^fill$"
    printf '%s\n' "$ERR" | grep -q "collective segment" && fail "/dev/shm full: a segment warning: $ERR"
    printf '%s\n' "$OUT" | grep -q "^err_prog: ok" || fail "/dev/shm full: wrong results: $OUT"
    [ "$(printf '%s\n' "$ERR" | tail -1)" = fill ] || fail "/dev/shm full: files left: $ERR"
else
    echo "skip: /dev/shm full (no mount namespace here)"
fi

# A program that inherits IBEX_BLOCKED_FD without its ibexrun (started by a rank, or by hand)
# must never map and write whatever its descriptor N is: here a file of the user's.
head -c 65536 /dev/zero >"$WORK/data"
cp "$WORK/data" "$WORK/data.orig"
IBEX_BLOCKED_FD=7 timeout 30 "$R/err_prog" sleep 0 "$MARK" 7<>"$WORK/data" >/dev/null 2>&1
rc=$?
if [ "$rc" = 0 ] && cmp -s "$WORK/data" "$WORK/data.orig"; then
    pass "a stray IBEX_BLOCKED_FD is not written to"
else
    fail "a stray IBEX_BLOCKED_FD: exit $rc, file changed: $(cmp "$WORK/data" "$WORK/data.orig")"
fi
rm -f "$WORK/data" "$WORK/data.orig"

# ibex_info --check: says what to fix. A memlock limit of 64 KiB is a warning with the fix.
out=$(sh -c 'ulimit -l 64 && exec "$1" --check' sh "$INFO" 2>&1)
rc=$?
if printf '%s\n' "$out" | grep -q "^WARN  memlock limit: 64 KiB" &&
    printf '%s\n' "$out" | grep -q "ulimit -l unlimited" &&
    printf '%s\n' "$out" | grep -Eq "^(ok|WARN|FAIL) +ptrace" &&
    printf '%s\n' "$out" | grep -Eq "^(ok|WARN|FAIL) +/dev/shm" &&
    printf '%s\n' "$out" | grep -Eq "^(ok|WARN|FAIL) +rdma devices" && [ "$rc" -le 1 ]; then
    pass "ibex_info --check with memlock 64 KiB (exit $rc)"
else
    fail "ibex_info --check with memlock 64 KiB: exit $rc: $out"
fi
out=$(LD_PRELOAD=$B/softib/.libs/libsoftib.so "$INFO" --check 2>&1)
printf '%s\n' "$out" | grep -q "^ok    rdma devices: softib0 port 1: active" ||
    fail "ibex_info --check over softib: $out"
finish
