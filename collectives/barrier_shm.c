/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Barrier in the communicator's shared segment (base/coll_shm.h): every rank publishes
 * arrive = g, then waits until every other rank's arrive >= g. No messages, no atomics: each
 * flag has one writer, and the generation only grows, so flags are never reset.
 *
 * Cost: one cache-line transfer per rank pair, all in parallel: about one cache-line latency
 * plus (p - 1) line reads per rank, against ceil(log2 p) message latencies for dissemination.
 * On an oversubscribed node the wait yields by the engine's rule, so the rank last to arrive
 * gets a core.
 */
#include "coll_shm.h"

ibex_status_t ibex_coll_barrier_shm(const ibex_coll_args_t *args)
{
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(args->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg)
        return ibex_coll_fallback(IBEX_COLL_BARRIER, args, 0);
    uint64_t g = ibex_coll_shm_begin(seg);
    ibex_coll_shm_arrive(seg, g);
    ibex_coll_shm_wait_all(seg, offsetof(ibex_coll_shm_ctl_t, arrive), g);
    seg->all_seen = g;
    return IBEX_OK;
}
