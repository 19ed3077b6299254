#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One-sided communication over verbs alone (no shared memory, no self) on softib, 2 and 3 ranks.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/win"
CASE_TIMEOUT=150
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
V="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"
for np in 2 3; do
    for prog in win_ops win_sync win_errors; do
        run_case "$np" "$prog" $V
    done
done
softib_sweep "$SOFTIB"
mt_finish
