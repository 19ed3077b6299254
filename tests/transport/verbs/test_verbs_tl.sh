#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Transport-level tests of the verbs backend over softib: eager sizes, ordering, flood with a
# refusing receiver, put / get 1 B .. 64 MiB, stale registrations, forced QP error, killed peer,
# connections on first use (a late peer, lost handshake datagrams, a peer that never answers).
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/../../.." && pwd)}"
softib="$top_builddir/softib/.libs/libsoftib.so"
prog="$top_builddir/tests/transport/verbs/verbs_tl_test"
if [ ! -f "$softib" ]; then
    echo "FAIL: $softib not built"
    exit 1
fi
log=$(mktemp "${TMPDIR:-/tmp}/verbs_tl.XXXXXX")
trap 'rm -f "$log"' EXIT
rc=0

# run NAME [VAR=VALUE...]: runs one case with softib preloaded, output in $log
run() {
    name=$1
    shift
    env "$@" LD_PRELOAD="$softib" timeout -k 5 120 "$prog" "$name" >"$log" 2>&1
    status=$?
    cat "$log"
    return $status
}

fail() {
    echo "FAIL: $*"
    rc=1
}

for t in eager order flood rma late; do
    run $t || fail "$t (exit $status)"
done

run stale SOFTIB_STALE_CHECK=1 || fail "stale (exit $status)"
grep -q "STALE REGISTRATION" "$log" && fail "softib saw a stale registration"

run fail SOFTIB_FAIL_AFTER=200 IBEX_VERBS_RC_TIMEOUT=10 || fail "forced qp error (exit $status)"
grep -q "peer rank 1 on host-one stopped answering: retry count exceeded (IBV_WC_RETRY_EXC_ERR) during rdma read" "$log" ||
    fail "forced qp error: no message naming the peer"

run kill IBEX_VERBS_RC_TIMEOUT=10 IBEX_VERBS_RETRY_COUNT=3 || fail "killed peer (exit $status)"
grep -q "peer rank 1 on host-one stopped answering" "$log" ||
    fail "killed peer: no message naming the peer"

# connections on first use: lost handshake datagrams are repeated
run eager SOFTIB_DROP_RATE=0.5 SOFTIB_SEED=3 || fail "eager with half the packets dropped (exit $status)"
run eager SOFTIB_ROCE=1 || fail "eager over RoCE addressing (exit $status)"
run cm_timeout IBEX_VERBS_CONNECT_TIMEOUT=1 || fail "connection timeout (exit $status)"
grep -q "peer rank 1 on host-one did not answer connection requests for 1 s" "$log" ||
    fail "connection timeout: no message naming the peer"

exit $rc
