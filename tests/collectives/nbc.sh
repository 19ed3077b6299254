#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Non-blocking and persistent collectives (tests/collectives/coll_nbc.c): at 1 to 5 and 8 ranks
# over shared memory (and at 4 with no eager data at all: every message a rendezvous), then over
# the verbs transport alone on softib (no shared memory, no self) at 2 to 4 ranks, with no eager
# data, with forced WRITE rendezvous, and with RoCE addressing.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/collectives"
for np in 1 2 3 4 5 8; do
    run_case "$np" coll_nbc
done
run_case 4 coll_nbc IBEX_EAGER_LIMIT=0
# faked nodes of 2: the first hierarchical collective builds its node communicators, which once
# hung when that happened inside a context-id agreement
run_case 6 coll_nbc IBEX_COLL_NODE_SIZE=2
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
V="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"
run_case 2 coll_nbc $V
run_case 3 coll_nbc $V
run_case 4 coll_nbc $V
run_case 3 coll_nbc $V IBEX_EAGER_LIMIT=0
run_case 3 coll_nbc $V IBEX_RNDV_SCHEME=write IBEX_EAGER_LIMIT=1k
run_case 2 coll_nbc $V NBC_QUICK=1 SOFTIB_ROCE=1
softib_sweep "$SOFTIB"
mt_finish
