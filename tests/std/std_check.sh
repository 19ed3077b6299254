#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The standard-only programs of tests/std (collectives, one-sided, intercommunicators, the rest
# of the API, corners) over shared memory and over verbs on softib with shared memory off,
# under ibexrun through tests/mpi/lib.sh's run_case (time limit, no process or file left).
set -u
CASE_TIMEOUT=${CASE_TIMEOUT:-60}
. "$top_srcdir/tests/mpi/lib.sh"
MPI_T="$top_builddir/tests/std"
mt_require_ibexrun
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
VERBS=
[ -f "$SOFTIB" ] && VERBS="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"
# name: ranks over shm, ranks over verbs
for spec in std_coll:3:5 std_inter:3:4 std_extra:4:3 std_rma:3:2 std_api:2:3 std_ops:5:3 std_dtype:3:2 \
    std_nbc:5:3 std_coll2:4:3 std_rma2:3:2; do
    prog=${spec%%:*} rest=${spec#*:}
    run_case "${rest%%:*}" "$prog"
    [ -n "$VERBS" ] && run_case "${rest#*:}" "$prog" $VERBS
done
[ -n "$VERBS" ] && softib_sweep "$SOFTIB"
mt_finish
