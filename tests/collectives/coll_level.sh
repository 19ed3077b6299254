#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Levels inside a node (tests/collectives/coll_level.c): the hierarchical collectives by package
# under hwloc synthetic topologies (the ranks read HWLOC_SYNTHETIC; ibexrun does not bind, the
# topology being fake): 2 packages of 2 cores at 2, 3 and 4 ranks, 2 packages x 2 NUMA x 2
# cores at 5 by NUMA domain, and coll_shm (every shared-memory case) on top of the package split.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/collectives"
P="IBEX_COLL_NODE_LEVEL=package IBEX_WAIT_POLICY=yield"
for np in 2 3 4; do
    MT_ARGS="2 4" run_case "$np" coll_level $P HWLOC_SYNTHETIC="pack:2 core:2 pu:1"
done
MT_ARGS="4 8" run_case 5 coll_level IBEX_COLL_NODE_LEVEL=numa IBEX_WAIT_POLICY=yield \
    HWLOC_SYNTHETIC="pack:2 numa:2 core:2 pu:1"
run_case 4 coll_shm $P HWLOC_SYNTHETIC="pack:2 core:2 pu:1"
mt_finish
