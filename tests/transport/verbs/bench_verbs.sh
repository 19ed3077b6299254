#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark (not a test): raw RC ping-pong vs the transport's, and put / get bandwidth, on softib.
: "${top_builddir:=$(cd "$(dirname "$0")/../../.." && pwd)}"
softib="$top_builddir/softib/.libs/libsoftib.so"
d="$top_builddir/tests/transport/verbs"
for i in 1 2 3; do
    LD_PRELOAD="$softib" timeout 60 "$d/raw_pingpong"
    LD_PRELOAD="$softib" timeout 60 "$d/verbs_tl_test" latency | grep latency
done
LD_PRELOAD="$softib" timeout 120 "$d/verbs_tl_test" bw | grep MB/s
