#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The verbs path under softib's checks and faults, through MPI:
# - freed and reused buffers under SOFTIB_STALE_CHECK=1 never move stale data;
# - dropped packets (retried by the emulated reliable transport, repeated by the connection
#   handshake over UD) are invisible to MPI;
# - a forced QP error ends the job quickly with a message naming the peer rank, nothing left.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
V="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"

run_case 2 p2p_realloc $V SOFTIB_STALE_CHECK=1
run_case 2 p2p_realloc $V SOFTIB_STALE_CHECK=1 IBEX_RNDV_SCHEME=write
run_case 2 p2p_order $V SOFTIB_DROP_RATE=0.01 SOFTIB_SEED=7
run_case 3 p2p_sizes $V SOFTIB_DROP_RATE=0.01 SOFTIB_SEED=11 MT_MAX_MB=4
# lost connection datagrams (UD: not retransmitted by softib) are repeated by the handshake
run_case 4 p2p_wildcard $V SOFTIB_DROP_RATE=0.3 SOFTIB_SEED=5

# forced QP error after 200 work requests
start=$(date +%s)
out=$(env MPITEST_RUN_MARK="$MT_MARK" $V SOFTIB_FAIL_AFTER=200 timeout -k 5 60 "$IBEXRUN" -n 2 --timeout 50 \
    "$MPI_T/p2p_sizes" 2>&1)
rc=$?
secs=$(( $(date +%s) - start ))
left=$(mt_left)
echo "$out" | grep -E "peer rank|ibexrun:" | head -4 | sed 's/^/    /'
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$secs" -lt 30 ] && [ -z "$left" ] &&
   echo "$out" | grep -qE "peer rank [0-9]+ on [^ ]+ .*(IBV_WC_[A-Z_]+)"; then
    mt_pass=$((mt_pass + 1))
    echo "ok   forced QP error: exit $rc after $secs s, message names the peer rank"
else
    mt_fail=$((mt_fail + 1))
    echo "FAIL forced QP error: exit $rc after $secs s${left:+, processes left: $left}"
    echo "$out" | tail -15 | sed 's/^/    /'
fi
softib_sweep "$SOFTIB"
mt_finish
