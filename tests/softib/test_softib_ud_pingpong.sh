#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rdma-core's unmodified ibv_ud_pingpong over softib: UD datagrams up to the
# 4096-byte MTU, polling and CQ events (-e), with a GRH on InfiniBand (-g 0);
# RoCE mode with a RoCE v1 and a RoCE v2 GID (-g), and without -g, which must
# fail: Ethernet needs a GRH.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/softib/softib_test_lib.sh"
need_prog ibv_ud_pingpong

for args in "-s 2048 -n 500" "-s 8 -n 500" "-e -s 4096 -n 300" "-s 1024 -n 300 -r 8" \
    "-g 0 -s 512 -n 200"; do
    echo "== ibv_ud_pingpong $args"
    # shellcheck disable=SC2086
    pingpong ibv_ud_pingpong $args || exit 1
done
for gid in 0 1; do
    echo "== ibv_ud_pingpong -g $gid (RoCE mode, RoCE v$((gid + 1)) GID)"
    SOFTIB_ROCE=1 pingpong ibv_ud_pingpong -g "$gid" -s 1024 -n 200 || exit 1
done
echo "== ibv_ud_pingpong without -g in RoCE mode: the address handle is refused"
if SOFTIB_ROCE=1 pingpong ibv_ud_pingpong -s 64 -n 10; then
    echo "ibv_ud_pingpong ran without a GRH on Ethernet" >&2
    exit 1
fi
grep -q "Failed to create AH" "$WORK/server.out" || exit 1
check_leftovers
