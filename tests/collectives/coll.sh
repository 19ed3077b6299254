#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Collective MPI tests (tests/collectives/coll_*.c) under ibexrun, each with a time limit and
# a check that no process is left: coll_all at 1-5 ranks, coll_v and coll_red (the per-rank
# count, reduce-scatter and scan collectives) at 1-5 ranks, all three again over verbs on
# softib with shared memory off, and a bad IBEX_COLL_<KIND> failing MPI_Init.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/collectives"
CASE_TIMEOUT=150
for n in 1 2 3 4 5; do
    run_case "$n" coll_all
    run_case "$n" coll_v
    run_case "$n" coll_red
done
run_case 3 coll_zero
run_case 4 coll_zero IBEX_COLL_NODE_SIZE=2

# over the verbs transport alone (no shared memory, no self), on softib
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
V="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"
for prog in coll_all coll_v coll_red coll_zero; do
    run_case 3 "$prog" $V
done
run_case 4 coll_v $V
softib_sweep "$SOFTIB"

# a bad algorithm name fails MPI_Init, naming the valid ones
out=$(IBEX_COLL_SCAN=bogus timeout -k 5 60 "$IBEXRUN" -n 2 --timeout 50 "$MPI_T/coll_red" 2>&1)
if [ $? -ne 0 ] && printf '%s\n' "$out" |
    grep -q "IBEX_COLL_SCAN='bogus' is not a scan algorithm: valid are auto, recursive_doubling"; then
    mt_pass=$((mt_pass + 1))
    echo "ok   coll_red -n 2 IBEX_COLL_SCAN=bogus fails MPI_Init"
else
    mt_fail=$((mt_fail + 1))
    echo "FAIL coll_red -n 2 IBEX_COLL_SCAN=bogus did not fail MPI_Init as it should"
    printf '%s\n' "$out" | tail -10 | sed 's/^/    /'
fi
mt_finish
