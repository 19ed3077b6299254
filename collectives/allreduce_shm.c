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
#include "ibex_blocked_rec.h"
#include "ibex_datatype.h"
#include "ibex_engine_stats.h"
#include "ibex_log.h"
#include "ibex_runtime.h"

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

/* ---- the short path of MPI_Allreduce ----
 * A payload of at most IBEX_COLL_SHM_TINY bytes of a predefined contiguous type and op, on a
 * communicator where the table gave that size to the inline Allreduce above: the same steps
 * (claim, copy into the tiny slot, arrive, fold every rank's slot from the top in rank order),
 * without the general entry's layers (the argument record, the second check, the table lookup,
 * the type and op lookups, the fold's dispatch): about 590 instructions a call at 2 ranks
 * before, see collectives/README.md. The table stays the one place that chooses: ibex_coll_run
 * notes each size it gave to the inline Allreduce (ibex_coll_allreduce_shm_note), and a forced
 * algorithm moves the selection epoch, which forgets the notes. Anything the short path does
 * not know (another size, a derived type, a user op, MPI_IN_PLACE as the result, a NULL or
 * aliased buffer, a bad handle) goes the general way, which raises the errors. */

void ibex_coll_allreduce_shm_note(const ibex_coll_args_t *a, const ibex_coll_algo_t *algo,
                                  size_t bytes)
{
    ibex_coll_shm_t *seg = (ibex_coll_shm_t *)a->comm->coll_shm;
    if (!seg || !seg->tried || !seg->ctl || bytes == 0 || bytes > seg->slot_size)
        return; /* it ran some other way (no segment: the fallback) */
    if (seg->tiny_epoch != ibex_coll_select_epoch) {
        seg->tiny_sizes = 0;
        seg->tiny_epoch = ibex_coll_select_epoch;
    }
    seg->tiny_sizes |= 1u << bytes;
    seg->tiny_algo = algo;
}

/* The (op, type) pair of the short path: both predefined, the type contiguous from 0, the op
 * defined on it (what the general check accepts without a message). */
static bool tiny_learn(ibex_coll_shm_t *seg, MPI_Op op, MPI_Datatype dt)
{
    const ibex_dt_t *d = ibex_dt_get(dt);
    const ibex_op_t *o = ibex_op_get(op);
    if (!d || !o || !d->predefined || !o->predefined || !d->contiguous || d->true_lb != 0)
        return false;
    ibex_op_fn_t *fn = ibex_op_fn_of(o, d);
    if (!fn)
        return false;
    seg->tiny_op = op;
    seg->tiny_dt = dt;
    seg->tiny_dsize = d->size;
    seg->tiny_fn = fn;
    return true;
}

static inline void tiny_copy(void *dst, const void *src, size_t n)
{
    if (n == 8)
        __builtin_memcpy(dst, src, 8);
    else if (n == 4)
        __builtin_memcpy(dst, src, 4);
    else
        memcpy(dst, src, n);
}

/* allreduce_inline and ibex_coll_shm_combine for this case. */
static void tiny_run(ibex_coll_shm_t *seg, ibex_comm_t *c, const char *in, char *out, int count,
                     size_t bytes)
{
    const ibex_coll_algo_t *algo = seg->tiny_algo;
    ibex_trace(COLL, "allreduce %s: %d ranks, %zu bytes (short path)", algo->name, c->size, bytes);
    ibex_engine_stats.coll_algo[IBEX_COLL_ALLREDUCE] = algo; /* as ibex_coll_run does */
    ibex_engine_stats.allreduce_short++;
    ibex_blk_coll_enter(algo->name, c);
    uint64_t g = ibex_coll_shm_begin(seg);
    if (g >= 3 && seg->all_seen < g - 1)
        ibex_coll_shm_claim(seg, g);
    tiny_copy(ibex_coll_shm_slot(seg, seg->rank, g, bytes), in, bytes);
    ibex_coll_shm_arrive(seg, g);
    const char *own = in == out ? NULL : in; /* in place: out is written first, use the slot */
    for (int i = seg->size - 1; i >= 0; i--) {
        const char *src = ibex_coll_shm_slot(seg, i, g, bytes);
        if (i != seg->rank)
            ibex_coll_shm_wait(&seg->ctl[i].arrive, g);
        else if (own)
            src = own;
        if (i == seg->size - 1)
            tiny_copy(out, src, bytes);
        else
            seg->tiny_fn(src, out, (size_t)count);
    }
    seg->all_seen = g;
    ibex_blk_coll_leave();
}

bool ibex_coll_allreduce_tiny(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                              MPI_Comm comm)
{
    ibex_comm_t *c;
    if (!(__builtin_expect(ibex_rt.running, 1) &&
          (c = ibex_handle_get(&ibex_comm_handles, comm)) != NULL))
        return false;
    ibex_coll_shm_t *seg = (ibex_coll_shm_t *)c->coll_shm;
    if (!seg || seg->tiny_epoch != ibex_coll_select_epoch ||
        ((op != seg->tiny_op || dt != seg->tiny_dt) && !tiny_learn(seg, op, dt)))
        return false;
    size_t bytes = (size_t)count * seg->tiny_dsize;
    if (count <= 0 || bytes > IBEX_COLL_SHM_TINY || !((seg->tiny_sizes >> bytes) & 1u) || !rbuf ||
        rbuf == MPI_IN_PLACE || !sbuf || sbuf == rbuf)
        return false;
    tiny_run(seg, c, sbuf == MPI_IN_PLACE ? rbuf : sbuf, rbuf, count, bytes);
    return true;
}
