#!/bin/sh
# The registration-cache unit tests need a verbs device: run them over softib.
: "${top_builddir:=$(cd "$(dirname "$0")/../../.." && pwd)}"
softib="$top_builddir/tests/softib/.libs/libsoftib.so"
[ -f "$softib" ] || { echo "FAIL: $softib not built"; exit 1; }
LD_PRELOAD="$softib" exec timeout -k 5 60 "$top_builddir/tests/transport/verbs/test_verbs_mr"
