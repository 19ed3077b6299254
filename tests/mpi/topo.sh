#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Process topologies and neighbourhood collectives (tests/mpi/topo_basic.c) at 1 to 6 ranks
# over shared memory, and at 3 ranks over verbs on softib with shared memory off; reorder
# (tests/mpi/topo_reorder.c) with nodes faked by IBEX_COLL_NODE_SIZE (even and uneven splits)
# and cores sharing L2 caches from IBEX_TOPO_SYNTHETIC (TOPO_L2_CORES cores per L2 there).
set -u
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
for np in 1 2 3 4 5 6; do
    run_case "$np" topo_basic
done
# faked nodes: communicator creation's context-id agreement on a communicator that spans nodes
run_case 4 topo_basic IBEX_COLL_NODE_SIZE=2
for np in 1 2 3; do # 2: as many ranks as cores here, so this machine's caches are read
    run_case "$np" topo_reorder
done
for c in "4 2" "5 2" "6 3" "8 4" "8 3"; do
    set -- $c
    run_case "$1" topo_reorder IBEX_COLL_NODE_SIZE="$2"
done
run_case 4 topo_reorder IBEX_COLL_NODE_SIZE=4 TOPO_L2_CORES=2 \
    IBEX_TOPO_SYNTHETIC="pack:1 l2:2 core:2 pu:1"
run_case 8 topo_reorder IBEX_COLL_NODE_SIZE=4 TOPO_L2_CORES=2 \
    IBEX_TOPO_SYNTHETIC="pack:1 l2:4 core:2 pu:1"
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
if [ -f "$SOFTIB" ]; then
    run_case 3 topo_basic IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB"
    run_case 4 topo_reorder IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB" IBEX_COLL_NODE_SIZE=2
    softib_sweep "$SOFTIB"
fi
mt_finish
