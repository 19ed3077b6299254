#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The public collective benchmarks' call sequences (tests/collectives/coll_suites.c: OSU's
# osu_<coll> and osu_i<coll> loops with -f statistics, IMB-MPI1's groups from Comm_split, -multi
# and the moving root), results checked. make check: 2 and 3 ranks over shared memory up to
# 64 KiB (past the eager limit and the inline slots), 4 and 5 up to 16 KiB, 3 with no eager data
# and 3 over verbs on softib with shared memory off (16 KiB). SUITES_FULL=1 (make
# check-coll-suites): 2 and 3 ranks up to 1 MiB (past the single-copy chunks), 4 and 5 up to
# 256 KiB, each over shm and over verbs, 8 ranks and 4 with no eager data up to 64 KiB. At a
# load of 35, 4 ranks to 1 MiB took more than 5 minutes (the OSU loops run every size twice
# and compute for as long again), hence the smaller sizes there.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/collectives"
CASE_TIMEOUT=${SUITES_TIMEOUT:-300}
[ "${SUITES_FULL:-0}" = 1 ] && CASE_TIMEOUT=${SUITES_TIMEOUT:-600}
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
V="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"
if [ "${SUITES_FULL:-0}" = 1 ]; then
    for np in 2 3 4 5; do
        max=1048576
        [ "$np" -gt 3 ] && max=262144
        MT_ARGS=$max run_case "$np" coll_suites
        MT_ARGS=$max run_case "$np" coll_suites $V
    done
    MT_ARGS=65536 run_case 8 coll_suites
    MT_ARGS=65536 run_case 4 coll_suites IBEX_EAGER_LIMIT=0
else
    MT_ARGS=65536 run_case 2 coll_suites
    MT_ARGS=65536 run_case 3 coll_suites
    MT_ARGS=16384 run_case 4 coll_suites
    MT_ARGS=16384 run_case 5 coll_suites
    MT_ARGS=16384 run_case 3 coll_suites IBEX_EAGER_LIMIT=0
    MT_ARGS=16384 run_case 3 coll_suites $V
fi
softib_sweep "$SOFTIB"
mt_finish
