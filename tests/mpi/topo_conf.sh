#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Independent conformance programs for process topologies, neighbourhood collectives and the
# tools interface, written against the MPI standard in the manner of the MPICH / Open MPI
# suites (tc_cart: Dims_create, Cartesian, topotest, topodup; tc_graph: graph and distributed
# graph; tc_neighb: every neighbourhood collective form on every topology kind; tc_mpit: an
# MPI_T client), at 1 to 6 ranks over shared memory, reordered on faked nodes, tc_neighb and
# tc_mpit also over verbs on softib.
set -u
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
for np in 1 2 3 4 5 6; do
    for prog in tc_cart tc_graph tc_neighb; do
        run_case "$np" "$prog"
    done
done
# nodes faked by IBEX_COLL_NODE_SIZE, so that reorder moves ranks under the reference
for np in 4 5; do
    run_case "$np" tc_neighb IBEX_COLL_NODE_SIZE=2
    run_case "$np" tc_cart IBEX_COLL_NODE_SIZE=2
done
for np in 1 2 4; do
    run_case "$np" tc_mpit
done
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
if [ -f "$SOFTIB" ]; then
    run_case 3 tc_neighb IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB"
    run_case 2 tc_mpit IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB"
    softib_sweep "$SOFTIB"
fi
mt_finish
