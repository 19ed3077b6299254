#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Process topologies and neighbourhood collectives (tests/mpi/topo_basic.c) at 1 to 6 ranks
# over shared memory, and at 3 ranks over verbs on softib with shared memory off.
set -u
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
for np in 1 2 3 4 5 6; do
    run_case "$np" topo_basic
done
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
if [ -f "$SOFTIB" ]; then
    run_case 3 topo_basic IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB"
    softib_sweep "$SOFTIB"
fi
mt_finish
