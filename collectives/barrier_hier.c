/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Barrier over several nodes (base/coll_hier.c): a shared-memory barrier inside each node, a
 * dissemination barrier between the node leaders, a shared-memory barrier again to release
 * the node. Cost: 2 flag latencies + ceil(log2 nodes) network latencies, against
 * ceil(log2 p) network latencies for a flat dissemination.
 */
#include "coll_shm.h"

ibex_status_t ibex_coll_barrier_hier(const ibex_coll_args_t *args)
{
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_hier_get(args->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg)
        return ibex_coll_fallback(IBEX_COLL_BARRIER, args, 0);
    ibex_coll_args_t node = {.comm = seg->node}, leaders = {.comm = seg->leaders};
    st = ibex_coll_barrier_shm(&node);
    if (st == IBEX_OK && seg->leaders)
        st = ibex_coll_fallback(IBEX_COLL_BARRIER, &leaders, 0);
    if (st == IBEX_OK)
        st = ibex_coll_barrier_shm(&node);
    return st;
}
