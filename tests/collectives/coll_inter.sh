#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Intercommunicator collectives (tests/collectives/coll_inter.c): at 2 to 5 ranks over shared
# memory (uneven groups: 1+1, 1+2, 2+2, 2+3), at 4 with no eager data, then at 3 over the verbs
# transport alone on softib.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/collectives"
for np in 2 3 4 5; do
    run_case "$np" coll_inter
done
run_case 4 coll_inter IBEX_EAGER_LIMIT=0
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
run_case 3 coll_inter IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB"
softib_sweep "$SOFTIB"
mt_finish
