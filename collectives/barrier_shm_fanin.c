/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Barrier in the communicator's shared segment (base/coll_shm.h) as a fan-in to rank 0 and a
 * fan-out by one flag: every rank publishes arrive = g; rank 0 waits until every arrive >= g,
 * then sets its done = g; the others wait for that one flag.
 *
 * Cost: (p - 1) line reads at rank 0, one at the others, and one more flag latency on the
 * path than barrier_shm.c (where every rank reads every flag and the last to arrive leaves at
 * once). What it buys on an oversubscribed node: rank 0 is the rank that is running when the
 * barrier opens, so it leaves first, while the others still have to be scheduled to see the
 * flag; a rooted collective from rank 0 right after the barrier (the loop of every benchmark
 * suite, and of programs that broadcast work from rank 0) then finds its root ahead of the
 * leaves rather than behind them.
 */
#include "coll_shm.h"

ibex_status_t ibex_coll_barrier_shm_fanin(const ibex_coll_args_t *args)
{
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(args->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg)
        return ibex_coll_fallback(IBEX_COLL_BARRIER, args, 0);
    uint64_t g = ibex_coll_shm_begin(seg);
    ibex_coll_shm_arrive(seg, g);
    if (seg->rank == 0) {
        ibex_coll_shm_wait_all(seg, offsetof(ibex_coll_shm_ctl_t, arrive), g);
        seg->all_seen = g;
        ibex_coll_shm_set(&seg->ctl[0].done, g);
        return IBEX_OK;
    }
    ibex_coll_shm_wait(&seg->ctl[0].done, g);
    seg->all_seen = g; /* rank 0 saw every rank arrive: the next claim reads no flag */
    return IBEX_OK;
}
