#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The independent one-sided checks (rma_chk_*.c, written from the standard alone, in the
# manner of MPICH's rma suite) at 2 and 3 ranks: over shared memory (the node-local direct
# paths), over verbs alone on softib on the network direct path (IBEX_WIN_DIRECT=0: RDMA
# WRITE / READ and remote atomics, as between nodes), and over verbs with the default (windows
# on one node take the node-local paths). RMA_CHK_TIMED=1: the passive target computing
# outside MPI for 2 s must not delay the others (under 1 s); RMA_CHK_ERRORS=1: the error
# classes of erroneous calls.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/win"
CASE_TIMEOUT=150
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
V="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"
C="RMA_CHK_TIMED=1 RMA_CHK_ERRORS=1"
for np in 2 3; do
    for prog in rma_chk_atomic rma_chk_sync rma_chk_win; do
        run_case "$np" "$prog" $C
        run_case "$np" "$prog" $V IBEX_WIN_DIRECT=0 $C
    done
    run_case "$np" rma_chk_sync $V $C
done
softib_sweep "$SOFTIB"
mt_finish
