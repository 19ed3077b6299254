#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# p2p_match_mix (the posted queue's inline head take and search removal, cancels between them,
# wildcards, every protocol size) at 2 and 3 ranks over shared memory, with no eager data (each
# message a rendezvous header), and over verbs alone on softib.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
CASE_TIMEOUT=60
for np in 2 3; do
    run_case "$np" p2p_match_mix
    run_case "$np" p2p_match_mix IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB"
done
run_case 2 p2p_match_mix IBEX_EAGER_LIMIT=0
run_case 3 p2p_match_mix IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB" IBEX_EAGER_LIMIT=0
softib_sweep "$SOFTIB"
mt_finish
