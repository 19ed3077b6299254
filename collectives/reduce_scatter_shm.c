/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduce_scatter(_block) in the communicator's shared segment (base/coll_shm.h,
 * base/coll_shm_reduce.c); N is the whole vector's bytes, n_r = rank r's block.
 *
 * Up to 16 KiB (RS_INLINE_MAX; IBEX_COLL_SHM_INLINE without process_vm_readv): the inline
 * Allreduce of allreduce_shm.c into a temporary, then each rank copies its own block out. One
 * flag round, no message. Cost: N beta +
 * (p - 1) N (beta + gamma) per rank, against ceil(log2 p) (alpha + N beta + N gamma) +
 * (p - 1) alpha + N beta for reduce + scatterv, whose 2 + log2 p rounds each wait for a peer
 * that may have no core when the ranks outnumber the cores.
 *
 * Larger (single copy, needs process_vm_readv between the ranks): every rank publishes its
 * send buffer and reduces its own block straight from every rank's send buffer into its
 * receive buffer (chunk by chunk, base/coll_shm_reduce.c), in rank order for a non-commutative
 * op; done = g when it has read all, and it returns once every rank is done (nobody reads its
 * send buffer any more). Cost: (p - 1) n_r (beta + gamma) per rank, all at once, + two flag
 * latencies, against the ring's p - 1 rounds. In place the result goes through a temporary of
 * n_r bytes, since the others read the whole receive buffer while it is computed.
 * A commutative op past the inline limit on 3 to 16 ranks, within the staging slots: the shared
 * accumulator (base/coll_shm_acc.c), every rank folding the whole vector in and copying its own
 * block out: p N gamma of folds in all and no reads across processes.
 * Non-contiguous datatypes (the same on every rank) run the point-to-point algorithms.
 */
#include <stdlib.h>
#include <string.h>

#include "coll_shm.h"
#include "ibex_datatype.h"

/* The inline path folds the whole vector on every rank, p times the work of a rank's own
 * block: worth it only while that is cheaper than a second flag round. 4 ranks on 2 cores,
 * 64 KiB (coll10, 5 interleaved rounds, load 25): inline 1989 us against 666 for the ring;
 * 8 B: 7.8 against 36; 1 MiB single copy at 8 ranks 16.4 ms against 45.3. Every rank
 * decides alike (bytes is the whole vector's). */
#define RS_INLINE_MAX 16384

/* Block `rank`'s first element and the whole vector's length. */
static int block_of(const ibex_coll_args_t *a, int rank, int *total_p)
{
    int lo = 0, total = 0;
    for (int i = 0; i < a->comm->size; i++) {
        lo = i == rank ? total : lo;
        total += a->rcounts[i];
    }
    *total_p = total;
    return lo;
}

static ibex_status_t rs_inline(const ibex_coll_args_t *a, const void *in, int lo, int total)
{
    void *base = NULL, *tmp = ibex_coll_tmp_alloc(a->rdt, total, &base);
    if (!tmp)
        return IBEX_ERR_NO_MEMORY; /* fatal for the job: the others wait for this rank's slot */
    ibex_coll_args_t ar = {
        .comm = a->comm, .sbuf = in, .rbuf = tmp, .rcount = total, .rdt = a->rdt, .op = a->op};
    ibex_status_t st = ibex_coll_allreduce_shm(&ar);
    int n = a->rcounts[a->comm->rank];
    if (st == IBEX_OK)
        st =
            ibex_coll_copy(ibex_coll_block(tmp, a->rdt, (size_t)lo), n, a->rdt, a->rbuf, n, a->rdt);
    free(base);
    return st;
}

static ibex_status_t rs_single(ibex_coll_shm_t *seg, const ibex_coll_args_t *a, const char *in,
                               int lo)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    int n = a->rcounts[seg->rank];
    bool inplace = a->sbuf == MPI_IN_PLACE;
    char *out = (char *)a->rbuf + d->true_lb, *tmp = NULL;
    if (inplace && !(out = tmp = malloc(n > 0 ? (size_t)n * d->size : 1)))
        return IBEX_ERR_NO_MEMORY; /* fatal for the job: the others wait for this rank */
    uint64_t g = ibex_coll_shm_begin(seg);
    seg->ctl[seg->rank].saddr = (uint64_t)(uintptr_t)in;
    ibex_coll_shm_arrive(seg, g);
    /* the result is addressed as if it were the whole vector */
    ibex_status_t st = ibex_coll_shm_reduce_range(seg, g, a, in, out - (size_t)lo * d->size, lo, n);
    ibex_coll_shm_set(&seg->ctl[seg->rank].done, g);
    ibex_coll_shm_wait_all(seg, offsetof(ibex_coll_shm_ctl_t, done), g);
    if (tmp && st == IBEX_OK)
        memcpy((char *)a->rbuf + d->true_lb, tmp, (size_t)n * d->size);
    free(tmp);
    return st;
}

ibex_status_t ibex_coll_reduce_scatter_shm(const ibex_coll_args_t *a)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    int total, lo = block_of(a, a->comm->rank, &total);
    size_t bytes = (size_t)total * d->size;
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(a->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg || !ibex_dt_is_contig(d, total))
        return ibex_coll_fallback(IBEX_COLL_REDUCE_SCATTER, a, bytes);
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    ibex_coll_args_t whole = *a;
    whole.rcount = total;
    bool acc;
    if ((st = ibex_coll_shm_acc_use(seg, &whole, bytes, false, &acc)) != IBEX_OK)
        return st;
    if (acc) /* every rank folds the whole vector in, then copies its block out */
        return ibex_coll_shm_acc_reduce(seg, &whole, (const char *)in + d->true_lb,
                                        (char *)a->rbuf + d->true_lb, lo, a->rcounts[seg->rank]);
    if (bytes > seg->slot_size && !seg->cma)
        return ibex_coll_fallback(IBEX_COLL_REDUCE_SCATTER, a, bytes);
    if (bytes <= RS_INLINE_MAX || !seg->cma)
        return rs_inline(a, in, lo, total);
    return rs_single(seg, a, (const char *)in + d->true_lb, lo);
}

ibex_status_t ibex_coll_reduce_scatter_block_shm(const ibex_coll_args_t *args)
{
    return ibex_coll_rsb_as_rs(args, ibex_coll_reduce_scatter_shm);
}
