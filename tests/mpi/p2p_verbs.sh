#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The point-to-point suite over the verbs transport alone (no shared memory, no self), on
# softib: default protocols, forced READ and WRITE rendezvous, and no eager data at all.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
V="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"
for np in 2 3; do
    for prog in $P2P_PROGS; do
        run_case "$np" "$prog" $V MT_MAX_MB=64
    done
done
for prog in p2p_order p2p_sizes p2p_datatype p2p_errors p2p_progress p2p_probe; do
    run_case 2 "$prog" $V IBEX_RNDV_SCHEME=read IBEX_EAGER_LIMIT=1k MT_MAX_MB=16
    run_case 2 "$prog" $V IBEX_RNDV_SCHEME=write IBEX_EAGER_LIMIT=1k MT_MAX_MB=16
    run_case 3 "$prog" $V IBEX_EAGER_LIMIT=0 MT_MAX_MB=4
done
# a small MPI_Isend over verbs alone is the shared completed request too (issue 18)
run_case 2 p2p_sent $V MT_SENT_SHARED=1
# four ranks: every pair brings its connection up on first use, often from both ends at once
run_case 4 p2p_order $V MT_MAX_MB=4
run_case 4 p2p_wildcard $V
# RoCE addressing (GIDs, a GRH on every address handle and RC path)
run_case 3 p2p_order $V SOFTIB_ROCE=1 MT_MAX_MB=4
softib_sweep "$SOFTIB"
mt_finish
