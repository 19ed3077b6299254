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
 * Larger (single copy): reduce-scatter as in allreduce_shm.c (rank r reduces slice r of every
 * rank's send buffer, non-roots into a temporary), then the root reads every slice as it is
 * ready. A non-root returns when the root has read its slice (root's done = g) and every rank
 * has finished reading its send buffer (ready = g). Cost: (p - 1) / p n (beta + gamma) per rank
 * in parallel, then (p - 1) / p n beta at the root. Non-contiguous datatypes run the binomial
 * tree.
 */
#include <stdlib.h>
#include <string.h>

#include "coll_shm.h"
#include "ibex_datatype.h"

/* Only the root reads the slots, so a root that is not in place folds its own input where it
 * lies and writes no slot. */
static ibex_status_t reduce_inline(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                   const char *in, char *out, size_t bytes)
{
    bool root = seg->rank == a->root;
    if (!root || in == out) {
        ibex_coll_shm_claim(seg, g);
        memcpy(ibex_coll_shm_slot(seg, seg->rank, g, bytes), in, bytes);
    }
    ibex_coll_shm_arrive(seg, g);
    if (!root)
        return IBEX_OK;
    return ibex_coll_shm_combine(seg, g, a, in, out);
}

static ibex_status_t reduce_single(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                   const char *in, char *out)
{
    size_t esz = ibex_dt_get(a->rdt)->size;
    bool root = seg->rank == a->root;
    int lo, n;
    ibex_coll_shm_slice(a->rcount, seg->size, seg->rank, &lo, &n);
    char *tmp = root ? NULL : malloc(n > 0 ? (size_t)n * esz : 1);
    if (!root && !tmp)
        return IBEX_ERR_NO_MEMORY;
    /* a non-root's result is its slice only: addressed as if it were the whole vector */
    char *res = root ? out : tmp - (size_t)lo * esz;
    ibex_coll_shm_ctl_t *me = &seg->ctl[seg->rank];
    me->saddr = (uint64_t)(uintptr_t)in;
    me->raddr = (uint64_t)(uintptr_t)res;
    ibex_coll_shm_arrive(seg, g);
    ibex_status_t st = ibex_coll_shm_reduce_slice(seg, g, a, in, res);
    ibex_coll_shm_set(&me->ready, g);
    if (root) {
        if (st == IBEX_OK)
            st = ibex_coll_shm_collect_slices(seg, g, a, out);
        ibex_coll_shm_set(&me->done, g);
        return st;
    }
    ibex_coll_shm_wait(&seg->ctl[a->root].done, g);
    ibex_coll_shm_wait_all(seg, offsetof(ibex_coll_shm_ctl_t, ready), g);
    free(tmp);
    return st;
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
