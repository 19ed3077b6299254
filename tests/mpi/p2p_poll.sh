#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Polling loops with more ranks than cores (and one rank per core): a rank that polls MPI_Test*,
# Request_get_status, Iprobe or Improbe and finds nothing must give up its core (p2p_poll.c).
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
cores=$(nproc)
run_case 2 p2p_poll
run_case $((2 * cores)) p2p_poll
run_case $((4 * cores)) p2p_poll
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] && run_case $((2 * cores)) p2p_poll IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB"
mt_finish
