#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Non-blocking and persistent collectives (tests/collectives/coll_nbc.c): at 1 to 5 ranks over
# shared memory, then over the verbs transport alone on softib (no shared memory, no self) at
# 2 and 3 ranks, and once with no eager data at all (every message a rendezvous).
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/collectives"
for np in 1 2 3 4 5; do
    run_case "$np" coll_nbc
done
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
V="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB NBC_QUICK=1"
run_case 2 coll_nbc $V
run_case 3 coll_nbc $V
run_case 3 coll_nbc $V IBEX_EAGER_LIMIT=0
softib_sweep "$SOFTIB"
mt_finish
