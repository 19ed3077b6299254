#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Conformance programs of issue 12, written against the MPI 4.1 standard alone (not against
# Ibex's tests, in the way MPICH's test suite is), each also checked with Open MPI and MPICH
# where they provide the calls: intercommunicators (conf_inter), attributes (conf_attr), info
# (conf_info), sessions (conf_session), datatype decoders and external32 (conf_dt), user
# errors (conf_err) and their corners (conf_more); then session_threads (Session_init from
# several threads at once without MPI_THREAD_MULTIPLE), under ibexrun through lib.sh's run_case
# (time limit, no process or file left).
set -u
CASE_TIMEOUT=${CASE_TIMEOUT:-60}
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
for n in 1 2 3 4 5; do # the communicator programs: both sides' sizes, odd and even
    for prog in conf_inter conf_session conf_more; do
        run_case "$n" "$prog"
    done
done
for n in 1 3; do # mostly local calls
    for prog in conf_attr conf_info conf_dt conf_err; do
        run_case "$n" "$prog"
    done
done
for n in 1 2 3; do # MPI_Session_init from 4 threads at once, no thread level asked for
    run_case "$n" session_threads
done
mt_finish
