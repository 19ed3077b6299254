#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The tools interface as a client sees it (tests/mpi/mpit_traffic.c): every variable listed, a
# cvar written, performance variables moving with traffic either side of a 4 KiB eager limit:
# over self (1 rank), shared memory (2 and 3 ranks, one with MPI_Bcast forced to binomial) and
# verbs on softib with shared memory off (2 ranks; 3 with a registration cache smaller than a
# message, so that it evicts), through lib.sh's run_case.
set -u
CASE_TIMEOUT=${CASE_TIMEOUT:-120}
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
run_case 1 mpit_traffic IBEX_EAGER_LIMIT=4096
# PIPE off over shm: the test counts every rendezvous byte as moved by a put or a get, which
# PIPE's fragments are not (they are messages; PIPE sends count in ibex_rndv_pipe)
run_case 2 mpit_traffic IBEX_EAGER_LIMIT=4096 IBEX_RNDV_PIPE_MAX=0 IBEX_RNDV_PIPE_CONTIG_MAX=0
run_case 3 mpit_traffic IBEX_EAGER_LIMIT=4096 IBEX_COLL_BCAST=binomial IBEX_RNDV_PIPE_MAX=0 IBEX_RNDV_PIPE_CONTIG_MAX=0
run_case 2 mpit_traffic IBEX_EAGER_LIMIT=4096 IBEX_RNDV_SCHEME=write
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
if [ -f "$SOFTIB" ]; then
    run_case 2 mpit_traffic IBEX_EAGER_LIMIT=4096 IBEX_TRANSPORTS=verbs MPIT_TL=verbs \
        LD_PRELOAD="$SOFTIB"
    run_case 3 mpit_traffic IBEX_EAGER_LIMIT=4096 IBEX_TRANSPORTS=verbs MPIT_TL=verbs \
        IBEX_RNDV_SCHEME=write IBEX_VERBS_RCACHE_MAX=64k MPIT_EVICT=1 LD_PRELOAD="$SOFTIB"
    softib_sweep "$SOFTIB"
fi
mt_finish
