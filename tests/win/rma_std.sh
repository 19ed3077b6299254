#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One-sided programs written from the MPI standard alone (rma_std.c: contended
# Compare_and_swap lock, a passive target asleep outside MPI, derived and pair types in
# Get_accumulate / Fetch_and_op, dynamic windows, noncontiguous shared windows, request-based
# operations, fence assertions, PSCW with groups, error classes, many Gets in one epoch) at 2
# and 3 ranks: over shared memory (node-local direct paths), over shared memory on the
# active-message path (IBEX_WIN_DIRECT=0), over verbs alone on softib on the network direct
# path, and over verbs on the active-message path (IBEX_WIN_RDMA=0). RMA_STD_TIMED=1 where no
# target CPU is needed: the sleeping target must not delay the others.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/win"
CASE_TIMEOUT=150
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
V="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"
for np in 2 3; do
    run_case "$np" rma_std RMA_STD_TIMED=1
    run_case "$np" rma_std IBEX_WIN_DIRECT=0
    run_case "$np" rma_std $V IBEX_WIN_DIRECT=0 RMA_STD_TIMED=1
    run_case "$np" rma_std $V IBEX_WIN_DIRECT=0 IBEX_WIN_RDMA=0
done
softib_sweep "$SOFTIB"
mt_finish
