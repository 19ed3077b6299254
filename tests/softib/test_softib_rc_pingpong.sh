#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rdma-core's unmodified ibv_rc_pingpong over softib, data validated (-c):
# polling and sleeping on CQ events (-e), small (inline-sized) to large sizes.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/softib/softib_test_lib.sh"
need_prog ibv_rc_pingpong

# Polling runs stay short: two busy-polling processes crawl on a loaded 2-core VM.
for args in "-c -s 8 -n 500" "-c -s 4096 -n 100" "-c -e -s 8 -n 1000" \
    "-c -e -s 1048576 -n 20" "-c -s 65536 -n 50 -r 16"; do
    echo "== ibv_rc_pingpong $args"
    # shellcheck disable=SC2086
    pingpong ibv_rc_pingpong $args || exit 1
done
echo "== ibv_rc_pingpong -c -g 0 (RoCE mode, GID addressing)"
SOFTIB_ROCE=1 pingpong ibv_rc_pingpong -c -g 0 -s 64 -n 100 || exit 1
check_leftovers
