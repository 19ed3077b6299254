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
    seg->tiny_gen = bytes <= IBEX_COLL_SHM_TINY ? g : seg->tiny_gen; /* the short path's note */
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
    if (!seg || !ibex_dt_is_contig(d, args->rcount))
        return ibex_coll_fallback(IBEX_COLL_ALLREDUCE, args, bytes);
    bool acc;
    if ((st = ibex_coll_shm_acc_use(seg, args, bytes, false, &acc)) != IBEX_OK)
        return st;
    if (!acc && bytes > seg->slot_size && !seg->cma)
        return ibex_coll_fallback(IBEX_COLL_ALLREDUCE, args, bytes);
    char *out = (char *)args->rbuf + d->true_lb;
    const char *in = args->sbuf == MPI_IN_PLACE ? out : (const char *)args->sbuf + d->true_lb;
    if (acc) /* 3 to 16 ranks, a commutative op (base/coll_shm_acc.c) */
        return ibex_coll_shm_acc_reduce(seg, args, in, out, 0, args->rcount);
    uint64_t g = ibex_coll_shm_begin(seg);
    if (bytes <= seg->slot_size)
        return allreduce_inline(seg, g, args, in, out, bytes);
    return allreduce_single(seg, g, args, in, out);
}

/* ---- the short path of MPI_Allreduce (coll_shm.h: ibex_coll_short_t) ----
 * A predefined op on at most IBEX_COLL_SHM_TINY bytes of a predefined contiguous type, on a
 * communicator where the table gave that size to the inline path above: the same steps (claim,
 * copy into the tiny slot, arrive, fold every rank's slot from the top in rank order), so ranks
 * on the short path and ranks on the general one (another type of the same signature) meet,
 * without the general entry's layers (the argument record, the second check, the table lookup,
 * the type and op lookups, the fold's dispatch): 604 -> 233 instructions a 2-rank 8-byte call
 * (collectives/README.md). Anything it does not know (another size, a derived type, a user op,
 * MPI_IN_PLACE as the result, a NULL or aliased buffer, a bad handle) goes the general way,
 * which raises the errors. */

/* The (op, type) pair: both predefined, the op defined on the type (what the general check
 * accepts without a message). */
static bool tiny_learn(ibex_coll_short_t *sp, MPI_Op op, MPI_Datatype dt)
{
    const ibex_op_t *o = ibex_op_get(op);
    if (!o || !o->predefined || !ibex_coll_short_type(sp, dt))
        return false;
    sp->fn = ibex_op_fn_of(o, ibex_dt_get(dt));
    sp->op = sp->fn ? op : MPI_OP_NULL;
    return sp->fn != NULL;
}

/* allreduce_inline and ibex_coll_shm_combine for this case. */
static void tiny_run(ibex_coll_shm_t *seg, const ibex_coll_short_t *sp, ibex_comm_t *c,
                     const char *in, char *out, int count, size_t bytes)
{
    uint64_t g = ibex_coll_short_begin(seg, sp, IBEX_COLL_SHORT_ALLREDUCE, IBEX_COLL_ALLREDUCE, c,
                                       bytes, true);
    ibex_coll_tiny_copy(ibex_coll_shm_slot(seg, seg->rank, g, bytes), in, bytes);
    ibex_coll_shm_arrive(seg, g);
    const char *own = in == out ? NULL : in; /* in place: out is written first, use the slot */
    for (int i = seg->size - 1; i >= 0; i--) {
        const char *src = ibex_coll_shm_slot(seg, i, g, bytes);
        if (i != seg->rank)
            ibex_coll_shm_wait(&seg->ctl[i].arrive, g);
        else if (own)
            src = own;
        if (i == seg->size - 1)
            ibex_coll_tiny_copy(out, src, bytes);
        else
            sp->fn(src, out, (size_t)count);
    }
    seg->all_seen = g;
    ibex_blk_coll_leave();
}

bool ibex_coll_allreduce_tiny(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                              MPI_Comm comm)
{
    ibex_comm_t *c = NULL;
    ibex_coll_short_t *sp = ibex_coll_short_enter(comm, IBEX_COLL_SHORT_ALLREDUCE, &c);
    if (!sp || ((op != sp->op || dt != sp->dt) && !tiny_learn(sp, op, dt)))
        return false;
    size_t bytes = (size_t)count * sp->dsize;
    if (count <= 0 || bytes > IBEX_COLL_SHM_TINY || !((sp->sizes >> bytes) & 1u) || !rbuf ||
        rbuf == MPI_IN_PLACE || !sbuf || sbuf == rbuf)
        return false;
    tiny_run(c->coll_shm, sp, c, sbuf == MPI_IN_PLACE ? rbuf : sbuf, rbuf, count, bytes);
    return true;
}
