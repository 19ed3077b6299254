#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The strided halo (p2p_halo.c) over shared memory with the defaults, with every
# non-contiguous receive read straight into its pieces (IBEX_RNDV_IOV_MIN=1) and with none
# (staging + unpack), under forced READ / WRITE and an early SPLIT; then over verbs on softib
# (defaults, every strided receive as RDMA READ scatter lists, forced READ / WRITE).
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
for np in 2 3; do
    run_case "$np" p2p_halo
    run_case "$np" p2p_halo IBEX_RNDV_IOV_MIN=1
    run_case "$np" p2p_halo IBEX_RNDV_IOV_MIN=1g
done
run_case 2 p2p_halo IBEX_RNDV_IOV_MIN=1 IBEX_RNDV_SCHEME=read IBEX_EAGER_LIMIT=1k
run_case 2 p2p_halo IBEX_RNDV_IOV_MIN=1 IBEX_RNDV_SCHEME=write IBEX_EAGER_LIMIT=1k
run_case 2 p2p_halo IBEX_RNDV_IOV_MIN=1 IBEX_RNDV_SPLIT_MIN=1 IBEX_EAGER_LIMIT=0
run_case 1 p2p_halo IBEX_RNDV_IOV_MIN=1 IBEX_TRANSPORTS=shm IBEX_EAGER_LIMIT=0
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
V="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"
run_case 2 p2p_halo $V
run_case 2 p2p_halo $V IBEX_RNDV_IOV_MIN=1 IBEX_EAGER_LIMIT=1k
run_case 3 p2p_halo $V IBEX_RNDV_SCHEME=read IBEX_EAGER_LIMIT=1k
run_case 2 p2p_halo $V IBEX_RNDV_SCHEME=write IBEX_EAGER_LIMIT=1k
softib_sweep "$SOFTIB"
mt_finish
