#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The transport conformance suite over every backend: self and shm as they are, then verbs with
# softib preloaded (the suite skips a backend that cannot open, so the second run is the one
# that covers verbs, and it must say so).
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
prog="$top_builddir/tests/transport/test_conformance"
softib="$top_builddir/softib/.libs/libsoftib.so"
rc=0
out=$(timeout -k 5 300 "$prog" 2>&1) || rc=1
printf '%s\n' "$out"
if [ -f "$softib" ]; then
    out=$(LD_PRELOAD="$softib" timeout -k 5 300 "$prog" 2>&1) || rc=1
    printf '%s\n' "$out"
    printf '%s\n' "$out" | grep -q "^# put / get: verbs on 2" || {
        echo "FAIL: verbs did not run under softib"
        rc=1
    }
    # a failed child leaves softib's segments: the device removes dead contexts' segments when
    # it is opened again; then nothing of this user's may be left
    LD_PRELOAD="$softib" timeout 30 ibv_devinfo >/dev/null 2>&1
    left=$(ls /dev/shm 2>/dev/null | grep "^softib-$(id -u)-")
    [ -z "$left" ] || {
        echo "FAIL: left in /dev/shm: $left"
        rc=1
    }
else
    echo "FAIL: $softib not built"
    rc=1
fi
exit $rc
