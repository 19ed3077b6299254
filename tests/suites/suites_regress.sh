#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The regressions the public benchmark suites found (tests/suites/README.md): each program at
# 2-4 ranks over shared memory and at 2 over verbs on softib with shared memory off.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/suites"
CASE_TIMEOUT=${CASE_TIMEOUT:-120}
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
for np in 2 3 4; do
    MT_ARGS=65536 run_case "$np" suites_char_ops
done
MT_ARGS=16384 run_case 2 suites_char_ops IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB"
run_case 2 suites_session_mt
run_case 3 suites_session_mt
run_case 2 suites_session_mt IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB"
softib_sweep "$SOFTIB"
mt_finish
