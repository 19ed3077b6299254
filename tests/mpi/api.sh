#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The MPI 4.1 API beyond point-to-point and communicators (tests/mpi/info_*.c, attr_*.c,
# inter_*.c, ...) at 1 to 5 ranks under ibexrun, through lib.sh's run_case (time limit, no
# process left). Each program is given the arguments "first second" (info_basic checks them in
# MPI_INFO_ENV's argv).
set -u
CASE_TIMEOUT=${CASE_TIMEOUT:-130}
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MT_ARGS="first second"
for prog in info_basic attr_basic p2p_isendrecv misc_small; do
    for n in 1 2 3 4; do
        run_case "$n" "$prog"
    done
done
for prog in inter_basic comm_more err_req dyn_proc; do
    for n in 1 2 3 4 5; do
        run_case "$n" "$prog"
    done
done
for n in 1 2 3 4; do # the tools interface; it reads IBEX_SPIN_COUNT back as a cvar
    run_case "$n" mpit_basic IBEX_SPIN_COUNT=777
done
for prog in dt_decode; do # local calls: 1 and 2 ranks
    for n in 1 2; do
        run_case "$n" "$prog"
    done
done
mt_finish
