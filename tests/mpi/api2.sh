#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The second part of issue 12: sessions next to the world model (session_basic), partitioned
# communication, the large-count output forms, the non-blocking Comm_idup and the MPI 4.1
# session / automatic Bsend buffers, at 1 to 4 ranks
# under ibexrun through lib.sh's run_case (time limit, no process or file left).
set -u
CASE_TIMEOUT=${CASE_TIMEOUT:-130}
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
for prog in session_basic part_basic idup_basic; do
    for n in 1 2 3 4; do
        run_case "$n" "$prog"
    done
done
# MPI_Session_init under a bad setting returns its error to the session's handler
MT_ARGS=startfail run_case 2 session_basic IBEX_EAGER_LIMIT=bogus
run_case 5 idup_basic # uneven groups of 3 and 2 in its intercommunicator idups
run_case 3 idup_count # 24 idups at once never retry (ibex_idup_retries)
run_case 3 comm_exhaust # out of context ids: every rank fails at the same dup / idup
for n in 1 2 3; do # mostly local calls; a ring of neighbours
    run_case "$n" large_out
done
for n in 1 2 3; do # session, communicator and automatic Bsend buffers (MPI 4.1)
    run_case "$n" buf_session
done
# partitioned transfers over verbs on softib (no shared memory)
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
if [ -f "$SOFTIB" ]; then
    run_case 2 part_basic IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB"
    run_case 2 buf_session IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB"
    run_case 3 idup_basic IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB"
    run_case 3 idup_count IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB"
    softib_sweep "$SOFTIB"
fi
mt_finish
