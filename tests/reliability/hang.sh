#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Hang reports (issue 16): deliberate hangs of tests/reliability/hang_prog, each must end with the
# right report within its time limit, and leave nothing behind (tests/launcher/lib.sh):
#   a head-to-head MPI_Ssend and an Ssend ring (deadlock: the cycle), a missing receive (rank
#   waits for a rank in MPI_Finalize), mismatched collectives, an MPI_ANY_SOURCE OR-wait in a
#   knot (deadlock) and out of one (not a deadlock: a rank computes), a rank in compute with
#   --hang-report (the job goes on and ends well), the same with a rank polling MPI_Test,
#   polling loops as OR-waits (Testsome, Iprobe(MPI_ANY_SOURCE)) in and out of a knot,
#   one-sided waits (Win_wait, Win_fence in a knot; Win_lock shown, not claimed), a wait on a
#   non-blocking collective (the peer of its step's receive in flight), an MPI_Waitall past its
#   first request (the record names only the requests left), a Bcast of an empty
#   type on an intercommunicator (no bytes named),
#   ibex_stack and SIGUSR1 on a running job.
. "${top_srcdir:?}/tests/launcher/lib.sh"
R=$B/tests/reliability
STACK=$B/launcher/ibex_stack
N='[0-9]+\.[0-9] s'

# not WHAT REGEX: stderr must not match (e.g. no deadlock claimed where there is none)
not() {
    if printf '%s\n' "$ERR" | grep -Eq -- "$2"; then fail "$1: stderr matches /$2/: $ERR"; fi
}

run 40 -n 4 --timeout 5 "$R/hang_prog" ssend 0 "$MARK"
expect "head-to-head Ssend" 124 "cause: deadlock \(a cycle of waits\): rank 0 waits in MPI_Ssend\(dest 1, tag 7, 4 B, MPI_COMM_WORLD\) for rank 1; rank 1 waits in MPI_Ssend\(dest 0, tag 7, 4 B, MPI_COMM_WORLD\) for rank 0"
printf '%s\n' "$ERR" | grep -Eq "rank 2 \(pid [0-9]+\) waits in MPI_Barrier\(MPI_COMM_WORLD" ||
    fail "head-to-head Ssend: rank 2's line: $ERR"

# The first collective of a communicator sets up its shared segment (rank 0's address broadcast,
# agreements): the report says so, not "shmem, wait 1: src 0, 64 B" (a message of the program's).
run 40 -n 3 --timeout 5 "$R/hang_prog" firstcoll 0 "$MARK"
expect "first collective of a communicator, in its set-up" 124 "cause: deadlock \(a cycle of waits\): rank 0 waits in MPI_Recv\(src 1, tag 9, 4 B, MPI_COMM_WORLD\) for rank 1; rank 1 waits in MPI_Allreduce\(comm 0x[0-9a-f]+; setting up the communicator's shared segment: src 0\) for rank 0"
printf '%s\n' "$ERR" | grep -Eq "rank 2 \(pid [0-9]+\) waits in MPI_Allreduce\(comm 0x[0-9a-f]+; setting up the communicator's shared segment: src 0\)" ||
    fail "first collective: rank 2's line: $ERR"
not "first collective of a communicator, in its set-up" "MPI_Allreduce\([^)]*( [0-9]+ B|shmem)"

run 40 -n 4 --timeout 5 "$R/hang_prog" ring 0 "$MARK"
expect "Ssend ring" 124 "deadlock.*rank 1 waits in MPI_Ssend\(dest 2, tag 3, 4 B, MPI_COMM_WORLD\) for rank 2; rank 2 .*rank 3 waits in MPI_Ssend\(dest 0, tag 3, 4 B, MPI_COMM_WORLD\) for rank 0"

run 40 -n 4 --timeout 5 "$R/hang_prog" missing 0 "$MARK"
expect "missing receive" 124 "cause: rank 0 waits in MPI_Recv\(src 1, tag 7, 4 B, MPI_COMM_WORLD\) for $N; rank 1 waits in MPI_Finalize\(MPI_COMM_WORLD\) for $N: the matching send was never posted"

# The shared-memory collectives let a Bcast meet an Allreduce (see README): force the
# point-to-point algorithms, where the mismatch hangs.
run 40 -n 4 --timeout 5 -x IBEX_COLL_ALLREDUCE=recursive_doubling -x IBEX_COLL_BCAST=binomial \
    "$R/hang_prog" mismatch 1 "$MARK"
expect "mismatched collectives" 124 "cause: ranks 0-2 are in MPI_Allreduce on MPI_COMM_WORLD, rank 3 is in MPI_Bcast on the same communicator: mismatched collectives"

run 40 -n 3 --timeout 5 "$R/hang_prog" anyknot 0 "$MARK"
expect "ANY_SOURCE knot" 124 "cause: deadlock \(a cycle of waits\): rank 0 waits in MPI_Recv\(src MPI_ANY_SOURCE, tag 5, 4 B, MPI_COMM_WORLD\) for rank 1; rank 1 waits in MPI_Recv\(src 0, tag 5, 4 B, MPI_COMM_WORLD\) for rank 0"

run 40 -n 4 --timeout 5 "$R/hang_prog" anysrc 30 "$MARK"
expect "ANY_SOURCE OR-wait, no knot" 124 "cause: rank 0 waits in MPI_Recv\(src MPI_ANY_SOURCE, tag 7, 4 B, MPI_COMM_WORLD\) for $N; rank 1 is in compute, last MPI call $N ago"
not "ANY_SOURCE OR-wait, no knot" "deadlock"

run 60 -n 4 --hang-report 2 --timeout 40 "$R/hang_prog" compute 6 "$MARK"
expect "rank in compute, --hang-report" 0 "hang report \(no rank entered an MPI call for 2 s.*"
printf '%s\n' "$ERR" | grep -Eq "cause: rank 0 waits in MPI_Recv\(src 1, tag 7, 4 B, MPI_COMM_WORLD\) for $N; rank 1 is in compute, last MPI call $N ago" ||
    fail "rank in compute: no cause line: $ERR"
not "rank in compute, --hang-report" "deadlock"
[ "$(printf '%s\n' "$ERR" | grep -c 'hang report')" = 1 ] || fail "--hang-report: not exactly one report: $ERR"
printf '%s\n' "$OUT" | grep -q "^hang_prog: ok" || fail "rank in compute: the job did not end well: $OUT"

# A rank polling with MPI_Test makes MPI calls but no progress: --hang-report still fires, and
# the record says what it polls for.
run 60 -n 2 --hang-report 2 --timeout 40 "$R/hang_prog" poll 5 "$MARK"
expect "polling without progress, --hang-report" 0 "rank 0 \(pid [0-9]+\) polls in MPI_Test\(src 1, tag 7, 4 B, MPI_COMM_WORLD\) without progress for $N"
printf '%s\n' "$ERR" | grep -Eq "cause: rank 0 polls in MPI_Test\(src 1, tag 7, 4 B, MPI_COMM_WORLD\) for $N; rank 1 is in compute" || fail "polling: no cause line: $ERR"
not "polling without progress, --hang-report" "cause: deadlock"

# Polling loops are OR-waits (Testsome, Iprobe(MPI_ANY_SOURCE)): a knot is a deadlock with its
# cycle; with one alternative computing, none.
run 40 -n 3 --timeout 5 "$R/hang_prog" testsome 0 "$MARK"
expect "Testsome loop in a knot" 124 "cause: deadlock \(a cycle of waits\): rank 0 polls in MPI_Testsome\(src 1, tag 5, 4 B or src 2, tag 5, 4 B, MPI_COMM_WORLD\) for rank 1; rank 1 waits in MPI_Recv\(src 0, tag 6, 4 B, MPI_COMM_WORLD\) for rank 0"
run 60 -n 3 --hang-report 2 --timeout 40 "$R/hang_prog" testsome 5 "$MARK"
expect "Testsome loop, one sender computes" 0 "cause: rank 0 polls in MPI_Testsome\(src 1, tag 5, 4 B or src 2, tag 5, 4 B, MPI_COMM_WORLD\) for $N; rank 2 is in compute"
not "Testsome loop, one sender computes" "cause: deadlock"
printf '%s\n' "$OUT" | grep -q "^hang_prog: ok" || fail "Testsome loop: the job did not end well: $OUT"
run 40 -n 4 --timeout 5 "$R/hang_prog" iprobe 0 "$MARK"
expect "Iprobe(MPI_ANY_SOURCE) loop in a knot" 124 "cause: deadlock \(a cycle of waits\): rank 0 polls in MPI_Iprobe\(src MPI_ANY_SOURCE, tag 5, MPI_COMM_WORLD\) for rank 1; rank 1 waits in MPI_Recv\(src 0, tag 6, 4 B, MPI_COMM_WORLD\) for rank 0"

# A loop of two polling calls (MPI_Test on a receive from rank 1, MPI_Iprobe from rank 2) is an
# OR over both: a knot when both are stuck, none when rank 2 computes (a record of one call
# alone would claim a deadlock there).
run 40 -n 3 --timeout 5 "$R/hang_prog" mixpoll 0 "$MARK"
expect "Test + Iprobe loop in a knot" 124 "cause: deadlock \(a cycle of waits\): rank 0 polls in MPI_(Test/MPI_Iprobe|Iprobe/MPI_Test)\((src 1, tag 5, 4 B or src 2, tag 5|src 2, tag 5 or src 1, tag 5, 4 B), MPI_COMM_WORLD\) for rank [12]"
run 60 -n 3 --hang-report 2 --timeout 40 "$R/hang_prog" mixpoll 5 "$MARK"
expect "Test + Iprobe loop, rank 2 computes" 0 "cause: rank 0 polls in MPI_(Test/MPI_Iprobe|Iprobe/MPI_Test)\(.*\) for $N; rank 2 is in compute"
not "Test + Iprobe loop, rank 2 computes" "cause: deadlock"
printf '%s\n' "$OUT" | grep -q "^hang_prog: ok" || fail "Test + Iprobe loop: the job did not end well: $OUT"

# A wait on a non-blocking collective names the peer of the receive its schedule waits for.
# MPI_Waitall waits for its requests in turn: once the first is in, the record names the rest
# only (a record written once would still name rank 1, which has sent and finished).
run 40 -n 3 --timeout 6 "$R/hang_prog" waitall 1 "$MARK"
expect "Waitall, first request done" 124 "cause: deadlock \(a cycle of waits\): rank 0 waits in MPI_Waitall\(src 2, tag 8, 4 B, MPI_COMM_WORLD\) for rank 2; rank 2 waits in MPI_Recv\(src 0, tag 6, 4 B, MPI_COMM_WORLD\) for rank 0"

run 40 -n 2 --timeout 5 "$R/hang_prog" nbc 0 "$MARK"
expect "MPI_Wait on an Ibarrier in a knot" 124 "cause: deadlock \(a cycle of waits\): rank 0 waits in MPI_Wait\(src 1, MPI_COMM_WORLD\) for rank 1; rank 1 waits in MPI_Recv\(src 0, tag 4, 4 B, MPI_COMM_WORLD\) for rank 0"

# A Bcast of elements of an empty type moves 0 bytes: the record says no size (not a slot's).
run 40 -n 2 --timeout 5 "$R/hang_prog" bcast0 0 "$MARK"
expect "MPI_Bcast of an empty type in a knot" 124 "cause: deadlock \(a cycle of waits\): rank 0 waits in MPI_Recv\(src 1, tag 9, 4 B, MPI_COMM_WORLD\) for rank 1; rank 1 waits in MPI_Bcast\(src 0, comm 0x[0-9a-f]+\) for rank 0"
not "MPI_Bcast of an empty type in a knot" "MPI_Bcast\([^)]* [1-9][0-9]* B"

# One-sided synchronisation: MPI_Win_wait for an origin that never completes, and a fence
# waiting for a rank that receives instead, are deadlocks with their cycle; a lock wait is shown
# with its target (a lock's holder is not recorded: no deadlock claimed).
W='win 0x[0-9a-f]+ \(comm 0x[0-9a-f]+\)'
run 40 -n 2 --timeout 5 "$R/hang_prog" winwait 0 "$MARK"
expect "MPI_Win_wait without MPI_Win_complete" 124 "cause: deadlock \(a cycle of waits\): rank 0 waits in MPI_Win_wait\(rank 1, $W\) for rank 1; rank 1 waits in MPI_Recv\(src 0, tag 8, 4 B, MPI_COMM_WORLD\) for rank 0"
run 40 -n 3 --timeout 5 "$R/hang_prog" winfence 0 "$MARK"
expect "MPI_Win_fence against a receive" 124 "cause: deadlock \(a cycle of waits\): rank 0 waits in MPI_Win_fence\(comm 0x[0-9a-f]+; [a-z_]+, wait [0-9]+\) for rank 2; rank 2 waits in MPI_Recv\(src 0, tag 8, 4 B, MPI_COMM_WORLD\) for rank 0"
run 40 -n 2 --timeout 5 "$R/hang_prog" winlock 0 "$MARK"
expect "MPI_Win_lock held elsewhere" 124 "rank 1 \(pid [0-9]+\) waits in MPI_Win_lock\(target 1, $W\) for $N"
not "MPI_Win_lock held elsewhere" "cause: deadlock"

# ibex_stack and SIGUSR1 on a running job, which then ends well.
mkdir -p "$WORK/tmp"
TMPDIR=$WORK/tmp "$IBEXRUN" -n 4 --timeout 50 "$R/hang_prog" compute 8 "$MARK" \
    >"$WORK/out" 2>"$WORK/err" </dev/null &
job=$! # ibexrun itself: ibex_stack reads its descriptors
(sleep 60 && kill -KILL "$job") 2>/dev/null &
dog=$!
for _ in $(seq 50); do # until rank 0 waits (start-up is slow under load)
    sleep 0.2
    "$STACK" "$job" >"$WORK/stack" 2>&1
    grep -q "rank 0 (pid [0-9]*) waits in MPI_Recv" "$WORK/stack" && break
done
sleep 1
"$STACK" "$job" >"$WORK/stack" 2>&1
src=$?
kill -USR1 "$job"
wait "$job"
RC=$?
pkill -P "$dog" 2>/dev/null # the watchdog's sleep
kill "$dog" 2>/dev/null
ERR=$(cat "$WORK/err")
OUT=$(cat "$WORK/out")
STK=$(cat "$WORK/stack")
if [ "$src" != 0 ] || ! printf '%s\n' "$STK" | grep -Eq "^ibex_stack: cause: rank 0 waits in MPI_Recv\(src 1, tag 7, 4 B, MPI_COMM_WORLD\) for $N; rank 1 is in compute"; then
    fail "ibex_stack: exit $src: $STK"
else
    pass "ibex_stack on a running job"
fi
MS=0
expect "SIGUSR1: a report, the job goes on" 0 "^ibexrun: hang report \(SIGUSR1; .*"
printf '%s\n' "$OUT" | grep -q "^hang_prog: ok" || fail "SIGUSR1: the job did not end well: $OUT"

out=$("$STACK" $$ 2>&1)
rc=$?
if [ "$rc" = 1 ] && printf '%s\n' "$out" | grep -q "has no blocked-call record"; then
    pass "ibex_stack on a process that is not ibexrun"
else
    fail "ibex_stack on a process that is not ibexrun: exit $rc: $out"
fi
"$STACK" 2>/dev/null
[ $? = 2 ] || fail "ibex_stack without a PID: not a usage error"
finish
