#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rdma-core's unmodified ibv_srq_pingpong over softib: 16 QPs sharing one SRQ,
# data validated (-c), polling and CQ events (-e).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/softib/softib_test_lib.sh"
need_prog ibv_srq_pingpong

for args in "-c -n 50" "-c -e -n 200" "-c -q 4 -s 64 -n 100" "-c -q 2 -s 262144 -n 10"; do
    echo "== ibv_srq_pingpong $args"
    # shellcheck disable=SC2086
    pingpong ibv_srq_pingpong $args || exit 1
done
check_leftovers
