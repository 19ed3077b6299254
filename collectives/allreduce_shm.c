/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allreduce in the communicator's shared segment (base/coll_shm.h, base/coll_shm_reduce.c).
 *
 * Up to IBEX_COLL_SHM_INLINE bytes: every rank copies its contribution into its slot of
 * generation g and publishes arrive = g, then folds all p slots in rank order itself. One flag
 * latency and no second phase, at the price of p n gamma of reduction per rank (the right
 * trade while n is small). Cost: n beta + (p - 1) n beta (reads, cache to cache) + (p - 1) n gamma.
 *
 * Larger (single copy, needs process_vm_readv between the ranks): a reduce-scatter then an
 * allgather, both reading the peers' buffers directly. Rank r publishes its send and receive
 * buffers, reduces slice r (n / p bytes) from every rank's send buffer into its receive buffer
 * and says ready = g; then reads every other slice k from rank k's receive buffer once k is
 * ready; done = g when it has read all, and it returns when every rank is done (nobody reads its
 * buffers any more). Cost per rank: 2 (p - 1) / p n beta + (p - 1) / p n gamma + 3 flag
 * latencies + 2 (p - 1) system calls per chunk, with all ranks working at once; against
 * log2 p (alpha + n beta + n gamma) for recursive doubling. In place, slice r of rank r's buffer
 * is overwritten only by rank r, and slice k only once rank k has read it (ready).
 * Non-contiguous datatypes (the same on every rank, as MPI requires) run recursive doubling.
 */
#include <string.h>

#include "coll_shm.h"
#include "ibex_datatype.h"

static ibex_status_t allreduce_inline(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                      const char *in, char *out, size_t bytes)
{
    ibex_coll_shm_claim(seg, g);
    memcpy(ibex_coll_shm_slot(seg, seg->rank, g, bytes), in, bytes);
    ibex_coll_shm_arrive(seg, g);
    return ibex_coll_shm_combine(seg, g, a, in, out);
}

static ibex_status_t allreduce_single(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                      const char *in, char *out)
{
    ibex_coll_shm_ctl_t *me = &seg->ctl[seg->rank];
    me->saddr = (uint64_t)(uintptr_t)in;
    me->raddr = (uint64_t)(uintptr_t)out;
    ibex_coll_shm_arrive(seg, g);
    ibex_status_t st = ibex_coll_shm_reduce_slice(seg, g, a, in, out);
    ibex_coll_shm_set(&me->ready, g);
    if (st == IBEX_OK)
        st = ibex_coll_shm_collect_slices(seg, g, a, out);
    ibex_coll_shm_set(&me->done, g);
    ibex_coll_shm_wait_all(seg, offsetof(ibex_coll_shm_ctl_t, done), g);
    return st;
}

ibex_status_t ibex_coll_allreduce_shm(const ibex_coll_args_t *args)
{
    const ibex_dt_t *d = ibex_dt_get(args->rdt);
    size_t bytes = (size_t)args->rcount * d->size;
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(args->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg || !ibex_dt_is_contig(d, args->rcount) || (bytes > seg->slot_size && !seg->cma))
        return ibex_coll_fallback(IBEX_COLL_ALLREDUCE, args, bytes);
    uint64_t g = ibex_coll_shm_begin(seg);
    char *out = (char *)args->rbuf + d->true_lb;
    const char *in = args->sbuf == MPI_IN_PLACE ? out : (const char *)args->sbuf + d->true_lb;
    if (bytes <= seg->slot_size)
        return allreduce_inline(seg, g, args, in, out, bytes);
    return allreduce_single(seg, g, args, in, out);
}
