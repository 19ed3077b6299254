#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One-sided communication over verbs alone (no shared memory, no self) on softib, 2 and 3 ranks:
# the network direct path (IBEX_WIN_DIRECT=0 turns the node-local paths off, so created and
# allocated windows take RDMA WRITE / READ and remote atomics as between nodes; win_rdma reads
# softib's counters), then every operation on the active-message path over verbs
# (IBEX_WIN_RDMA=0 too), and the default.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/win"
CASE_TIMEOUT=150
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
V="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"
# MT_WIN_FULL=1 (make check-win-full): every program at 2 and 3 ranks on both paths
full=${MT_WIN_FULL:+2}
for np in 2 3; do
    run_case "$np" win_rdma $V IBEX_WIN_DIRECT=0 MT_WIN_RDMA=1 MT_SOFTIB=1 MT_WIN_NOCPU=1
done
for np in $full 3; do
    for prog in win_ops win_sync win_errors; do
        run_case "$np" "$prog" $V IBEX_WIN_DIRECT=0
    done
done
for np in 2 3; do
    for prog in win_ops win_sync win_errors; do
        run_case "$np" "$prog" $V IBEX_WIN_DIRECT=0 IBEX_WIN_RDMA=0 MT_WIN_AM=1
    done
done
# the benchmark suites' call sequences on the network direct path, then on active messages
for np in 2 3; do
    run_case "$np" win_suites $V IBEX_WIN_DIRECT=0
done
run_case 2 win_suites $V IBEX_WIN_DIRECT=0 IBEX_WIN_RDMA=0
# manyget's walk by counts over verbs (active messages: the replies are rendezvous READs)
run_case 3 win_walk $V IBEX_WIN_DIRECT=0 IBEX_WIN_RDMA=0 IBEX_WIN_AM_POLL=0 IBEX_EAGER_LIMIT=1k
# Compare_and_swap by remote atomics (8-byte: the short path's one compare-and-swap,
# ibex_win_short_rcas, mixed with the general path's Accumulate on one word) and the
# accumulate lock (MPI_INT); softib's counters: one atomic per CAS of the spin lock
run_case 3 win_cas $V IBEX_WIN_DIRECT=0 MT_WIN_RDMA=1 MT_SOFTIB=1
# Fetch_and_op / Accumulate by remote atomics (8-byte SUM on integers and NO_OP: the short
# path's one fetch-and-add, ibex_win_short_rfop; the other ops the general path's loops) and
# the accumulate lock (MPI_INT); softib's counters: one atomic per ticket
run_case 3 win_fop $V IBEX_WIN_DIRECT=0 MT_WIN_RDMA=1 MT_SOFTIB=1
[ -n "$full" ] && run_case 2 win_rdma $V IBEX_WIN_DIRECT=0 IBEX_WIN_RDMA=0
# the default: windows on one node need no transport for their data
run_case 2 win_sync $V
softib_sweep "$SOFTIB"
mt_finish
