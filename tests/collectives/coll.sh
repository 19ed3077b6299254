#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Collective MPI tests (tests/collectives/coll_*.c) under ibexrun, each with a time limit and
# a check that no process is left: coll_all at 1-4 ranks, coll_v and coll_red (the per-rank
# count, reduce-scatter and scan collectives) at 1-5 ranks.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/collectives"
CASE_TIMEOUT=150
for n in 1 2 3 4; do
    run_case "$n" coll_all
done
for n in 1 2 3 4 5; do
    run_case "$n" coll_v
    run_case "$n" coll_red
done
mt_finish
