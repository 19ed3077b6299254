#!/bin/sh
# The registration-cache unit tests need a verbs device: run them over softib.
: "${top_builddir:=$(cd "$(dirname "$0")/../../.." && pwd)}"
softib="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$softib" ] || { echo "FAIL: $softib not built"; exit 1; }
prog="$top_builddir/tests/transport/verbs/test_verbs_mr"
LD_PRELOAD="$softib" timeout -k 5 60 "$prog" || exit 1
# verbs excluded: the malloc policy is left alone (test_malloc_policy checks which applies)
IBEX_TRANSPORTS=self,shm MR_TEST_FILTER=test_malloc_policy exec timeout -k 5 60 "$prog"
