#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The shared-memory transport's two eager paths under MPI (transport/shm/README.md): every message
# through the receivers' shared queues (no fast boxes), then one box per receiver with a small
# queue and pool, so that senders mix boxes and the queue, wait for room and hold each other back;
# then the streamed (non-temporal) copy of eager payloads, which is off by default.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
QUEUE_PROGS="p2p_order p2p_wildcard p2p_probe p2p_many p2p_flood p2p_errors"
for prog in $QUEUE_PROGS; do
    run_case 4 "$prog" IBEX_SHM_FAST_BOXES=0 MT_MAX_MB=16
done
for prog in $QUEUE_PROGS; do
    run_case 4 "$prog" IBEX_SHM_FAST_BOXES=1 IBEX_SHM_FAST_BOX_AFTER=3 IBEX_SHM_FRAGS=4 \
        IBEX_SHM_QUEUE_CELLS=4 MT_MAX_MB=16
done
run_case 3 p2p_flood IBEX_SHM_FAST_BOXES=0 IBEX_UNEXPECTED_MAX=1m MT_MAX_RSS_GROWTH_MB=48
# eager payloads from 64 bytes with non-temporal stores (off by default), boxes and queue
for prog in p2p_order p2p_many p2p_flood; do
    run_case 3 "$prog" IBEX_SHM_STREAM_MIN=64 MT_MAX_MB=16
done
mt_finish
