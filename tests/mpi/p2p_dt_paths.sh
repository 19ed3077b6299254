#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Derived-type round trips (p2p_dt_paths.c) through every protocol, each forced: the defaults
# over shared memory (eager, PIPE, SPLIT), everything through the rendezvous (eager limit 0),
# READ / WRITE without PIPE, contiguous PIPE to 256 KiB, piece-list receives for every block size (IBEX_RNDV_IOV_MIN=1),
# and the block walk instead of the vector pack loops (IBEX_DT_VECTOR=0); then over verbs on
# softib (scatter-list receives, forced WRITE).
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
for vec in 1 0; do
    run_case 2 p2p_dt_paths IBEX_DT_VECTOR=$vec
    run_case 2 p2p_dt_paths IBEX_DT_VECTOR=$vec IBEX_EAGER_LIMIT=0
    run_case 2 p2p_dt_paths IBEX_DT_VECTOR=$vec IBEX_RNDV_PIPE_MAX=0 IBEX_RNDV_SCHEME=read
    run_case 2 p2p_dt_paths IBEX_DT_VECTOR=$vec IBEX_RNDV_PIPE_MAX=0 IBEX_RNDV_PIPE_CONTIG_MAX=0 IBEX_RNDV_IOV_MIN=1
done
run_case 2 p2p_dt_paths IBEX_RNDV_SCHEME=write IBEX_EAGER_LIMIT=1k
run_case 2 p2p_dt_paths IBEX_RNDV_SPLIT_MIN=1 IBEX_RNDV_PIPE_MAX=0 IBEX_RNDV_PIPE_CONTIG_MAX=0 IBEX_RNDV_IOV_MIN=1
# contiguous buffers through PIPE up to 256 KiB too (the default stops at 16 KiB)
run_case 2 p2p_dt_paths IBEX_RNDV_PIPE_CONTIG_MAX=256k IBEX_RNDV_SPLIT_MIN=128k
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
V="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"
run_case 2 p2p_dt_paths $V IBEX_RNDV_IOV_MIN=1
run_case 2 p2p_dt_paths $V IBEX_RNDV_SCHEME=write IBEX_DT_VECTOR=0
softib_sweep "$SOFTIB"
mt_finish
