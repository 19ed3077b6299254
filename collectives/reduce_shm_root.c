/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduce in the communicator's shared segment with one reducing rank, the root
 * (base/coll_shm.h, base/coll_shm_reduce.c): for payloads past IBEX_COLL_SHM_INLINE on a node
 * that runs more ranks than cores.
 *
 * Every other rank publishes its send buffer's address and arrive = g, then waits for the
 * root's done = g; the root reads every send buffer with process_vm_readv, chunk by chunk
 * (IBEX_COLL_SHM_CHUNK, so the running result stays in cache), and folds it into its receive
 * buffer in rank order (s_0 op (s_1 op ... s_{p-1})), its own data with no copy. One flag
 * round. Cost: (p - 1) n (beta + gamma) at the root + one flag latency, against reduce_shm.c's
 * shared chunks, (p - 1) n (beta + gamma) shared by whichever ranks run + at most n beta of
 * writes to the root, and two flag rounds (every rank arrived; every chunk stored). Here the
 * p - 1 waiting ranks yield and the root keeps a core, but with two cores one of them folds
 * nothing (Open MPI's linear Reduce, its choice at 4-7 ranks from 1 MiB, is this algorithm).
 * Inline sizes, non-contiguous types (the same on every rank) and nodes without
 * process_vm_readv run reduce_shm.c, which decides the same on every rank.
 */
#include "coll_shm.h"
#include "ibex_datatype.h"

static ibex_status_t reduce_root(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                 const char *in, char *out)
{
    ibex_coll_shm_arrive(seg, g);
    ibex_status_t st = ibex_coll_shm_reduce_range(seg, g, a, in, out, 0, a->rcount);
    ibex_coll_shm_set(&seg->ctl[seg->rank].done, g);
    return st;
}

ibex_status_t ibex_coll_reduce_shm_root(const ibex_coll_args_t *args)
{
    const ibex_dt_t *d = ibex_dt_get(args->rdt);
    size_t bytes = (size_t)args->rcount * d->size;
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(args->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg || !ibex_dt_is_contig(d, args->rcount) || bytes <= seg->slot_size || !seg->cma)
        return ibex_coll_reduce_shm(args);
    uint64_t g = ibex_coll_shm_begin(seg);
    if (seg->rank == args->root) {
        char *out = (char *)args->rbuf + d->true_lb;
        const char *in = args->sbuf == MPI_IN_PLACE ? out : (const char *)args->sbuf + d->true_lb;
        return reduce_root(seg, g, args, in, out);
    }
    seg->ctl[seg->rank].saddr = (uint64_t)(uintptr_t)((const char *)args->sbuf + d->true_lb);
    ibex_coll_shm_arrive(seg, g);
    ibex_coll_shm_wait(&seg->ctl[args->root].done, g);
    return IBEX_OK;
}
