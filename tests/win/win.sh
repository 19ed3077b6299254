#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One-sided communication over the default transports (self + shared memory) at 1 to 4 ranks
# (windows on the shared mapping / cross-memory attach, win_rdma's 8-byte atomics by CPU
# atomics there), then on the active-message path.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/win"
CASE_TIMEOUT=120
for np in 1 2 3 4; do
    for prog in win_ops win_sync win_errors; do
        run_case "$np" "$prog"
    done
done
# MT_WIN_FULL=1 (make check-win-full): win_rdma at every size
for np in ${MT_WIN_FULL:+1 3} 2 4; do
    run_case "$np" win_rdma MT_WIN_NOCPU=1
done
run_case 2 win_attr
run_case 2 win_info # hints: ignored keys and values are not given back
# the benchmark suites' call sequences (OSU, IMB-RMA), results checked
run_case 2 win_suites
run_case 3 win_suites
# every operation through the targets' active-message path, also with rendezvous bodies
for np in 2 3; do
    for prog in win_ops win_sync win_errors; do
        run_case "$np" "$prog" IBEX_WIN_DIRECT=0 MT_WIN_AM=1
    done
done
run_case 3 win_rdma IBEX_WIN_DIRECT=0
# MPICH's manyget by counts: the target's walks over its Get replies in flight stay about one
# step per reply (they were quadratic); origins that do not progress while they issue
run_case 3 win_walk IBEX_WIN_DIRECT=0 IBEX_WIN_AM_POLL=0 IBEX_EAGER_LIMIT=1k
# Compare_and_swap: spin lock, mixed with Fetch_and_op, old values, errors; the shared
# mapping's short path by ibex_win_short_cas (none on the active-message path)
run_case 2 win_cas
run_case 3 win_cas
run_case 3 win_cas IBEX_WIN_DIRECT=0 MT_WIN_AM=1
# Fetch_and_op and one-element Accumulate: ticket counter, every op against a reference, mixed
# with Compare_and_swap, errors; the short path by ibex_win_short_fop / _acc (none on AM)
run_case 2 win_fop
run_case 3 win_fop
run_case 3 win_fop IBEX_WIN_DIRECT=0 MT_WIN_AM=1
# faked nodes: Win_create's allgather on a communicator spanning them (it once hung there)
run_case 3 win_sync IBEX_WIN_DIRECT=0 MT_WIN_AM=1 IBEX_COLL_NODE_SIZE=2
run_case 3 win_ops IBEX_WIN_DIRECT=0 IBEX_EAGER_LIMIT=1k
# operations in pieces of whole target elements (derived types on both sides, replies into a
# strided result): IBEX_WIN_AM_PIECE small, as past 1 GiB (make check-large: win_large.sh)
run_case 2 win_ops IBEX_WIN_DIRECT=0 MT_WIN_AM=1 IBEX_WIN_AM_PIECE=64
mt_finish
