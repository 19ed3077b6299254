#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ibv_devices and ibv_devinfo (also -v) see softib0 through LD_PRELOAD.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/softib/softib_test_lib.sh"
need_prog ibv_devices
need_prog ibv_devinfo

out=$(LD_PRELOAD=$SOFTIB_LIB timeout 20 ibv_devices) || exit 1
echo "$out"
echo "$out" | grep -q softib0 || exit 1
out=$(LD_PRELOAD=$SOFTIB_LIB timeout 20 ibv_devinfo) || exit 1
echo "$out"
echo "$out" | grep -q "hca_id:.*softib0" || exit 1
echo "$out" | grep -q "PORT_ACTIVE" || exit 1
out=$(LD_PRELOAD=$SOFTIB_LIB timeout 20 ibv_devinfo -v) || exit 1
echo "$out" | grep -q "atomic_cap:.*ATOMIC_HCA" || exit 1
echo "$out" | grep -q "GID\[  0\]" || exit 1
out=$(SOFTIB_ROCE=1 LD_PRELOAD=$SOFTIB_LIB timeout 20 ibv_devinfo -v) || exit 1
echo "$out" | grep -q "link_layer:.*Ethernet" || exit 1
check_leftovers
