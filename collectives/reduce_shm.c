/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduce in the communicator's shared segment (base/coll_shm.h, base/coll_shm_reduce.c).
 *
 * Up to IBEX_COLL_SHM_INLINE bytes: every rank copies its contribution into its slot of
 * generation g and publishes arrive = g; the others return at once (their slot is rewritten
 * only at g + 2, once every rank arrived at g + 1), the root folds the p slots in rank order.
 * Cost: n beta at a non-root; (p - 1) n (beta + gamma) + one flag latency at the root, against
 * ceil(log2 p) (alpha + n beta + n gamma) for the binomial tree.
 *
 * Larger (single copy, shared chunks): every rank publishes its send buffer (the root also its
 * receive buffer) and arrive = g; once all have arrived, the vector's chunks of
 * IBEX_COLL_SHM_CHUNK bytes go to whichever ranks are running: each claims the next chunk with
 * a compare-and-swap on the segment's work word, folds it over every send buffer in the
 * order of ibex_coll_shm_reduce_range (process_vm_readv; its own input where it lies) and
 * stores it in the root's receive buffer (process_vm_writev; the root folds straight into
 * it), then counts it finished. Every rank returns when every chunk is finished: two
 * synchronisations (all arrived, all finished) against three for static slices gathered by
 * the root (arrived, each slice ready, the root done), no temporary slice per rank and no
 * second pass at the root. Cost: (p - 1) n (beta + gamma) in all, shared by the running ranks,
 * + (1 - the root's share) n beta of writes; a rank without a core takes no chunk, so nobody
 * waits for its slice, only for its arrival (its input is needed) and for a chunk it holds.
 * Non-contiguous datatypes run the binomial tree.
 */
#include <string.h>

#include "coll_shm.h"
#include "ibex_datatype.h"

/* Only the root reads the slots, so a root that is not in place folds its own input where it
 * lies and writes no slot. */
static ibex_status_t reduce_inline(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                   const char *in, char *out, size_t bytes)
{
    bool root = seg->rank == a->root, pipe = ibex_coll_shm_use_pipe(seg, bytes);
    if (!root || in == out) {
        char *slot = ibex_coll_shm_slot(seg, seg->rank, g, bytes);
        ibex_coll_shm_claim(seg, g);
        if (pipe)
            ibex_coll_shm_pipe_put(seg, g, slot, in, bytes);
        else
            memcpy(slot, in, bytes);
    }
    ibex_coll_shm_arrive(seg, g);
    if (!root)
        return IBEX_OK;
    return pipe ? ibex_coll_shm_combine_pipe(seg, g, a, in, out)
                : ibex_coll_shm_combine(seg, g, a, in, out);
}

static ibex_status_t reduce_single(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                   const char *in, char *out)
{
    ibex_coll_shm_ctl_t *me = &seg->ctl[seg->rank];
    me->saddr = (uint64_t)(uintptr_t)in;
    if (seg->rank == a->root)
        me->raddr = (uint64_t)(uintptr_t)out;
    ibex_coll_shm_arrive(seg, g);
    return ibex_coll_shm_reduce_shared(seg, g, a, in, out);
}

ibex_status_t ibex_coll_reduce_shm(const ibex_coll_args_t *args)
{
    const ibex_dt_t *d = ibex_dt_get(args->rdt);
    size_t bytes = (size_t)args->rcount * d->size;
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(args->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg || !ibex_dt_is_contig(d, args->rcount) || (bytes > seg->slot_size && !seg->cma))
        return ibex_coll_fallback(IBEX_COLL_REDUCE, args, bytes);
    uint64_t g = ibex_coll_shm_begin(seg);
    bool root = seg->rank == args->root;
    char *out = root ? (char *)args->rbuf + d->true_lb : NULL;
    const char *in = args->sbuf == MPI_IN_PLACE ? out : (const char *)args->sbuf + d->true_lb;
    if (bytes <= seg->slot_size)
        return reduce_inline(seg, g, args, in, out, bytes);
    return reduce_single(seg, g, args, in, out);
}
