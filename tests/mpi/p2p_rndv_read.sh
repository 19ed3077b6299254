#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The point-to-point suite with rendezvous forced to READ and a small eager limit.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
p2p_suite IBEX_RNDV_SCHEME=read IBEX_EAGER_LIMIT=1k MT_MAX_MB=64
mt_finish
