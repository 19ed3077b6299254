#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One-sided communication over the default transports (self + shared memory) at 1 to 4 ranks.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/win"
CASE_TIMEOUT=120
for np in 1 2 3 4; do
    for prog in win_ops win_sync win_errors; do
        run_case "$np" "$prog"
    done
done
# the rendezvous path under the active messages: no eager data beyond 1 KiB
run_case 3 win_ops IBEX_EAGER_LIMIT=1k
mt_finish
