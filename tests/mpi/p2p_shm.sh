#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The point-to-point suite over self + shared memory with the default protocols, plus the flood
# with a small unexpected-message budget (memory must stay bounded).
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
p2p_suite MT_MAX_MB=256
run_case 4 p2p_flood IBEX_UNEXPECTED_MAX=4m MT_MAX_RSS_GROWTH_MB=48
# a small MPI_Isend over shared memory is the shared completed request (issue 18)
run_case 2 p2p_sent MT_SENT_SHARED=1
mt_finish
