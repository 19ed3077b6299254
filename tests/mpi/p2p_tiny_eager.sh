#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The point-to-point suite with no eager data at all (every non-empty message is a rendezvous:
# READ below 8 KiB, SPLIT from 8 KiB) and tiny rings, so the backlog and flow control paths
# run all the time.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
p2p_suite IBEX_EAGER_LIMIT=0 IBEX_RNDV_SPLIT_MIN=8k IBEX_SHM_RING_SLOTS=4 IBEX_RNDV_FRAG_SIZE=64k MT_MAX_MB=16
mt_finish
