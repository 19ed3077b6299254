/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduce in the communicator's shared segment (base/coll_shm.h, base/coll_shm_reduce.c).
 *
 * Up to IBEX_COLL_SHM_INLINE bytes: every rank copies its contribution into its slot of
 * generation g and publishes arrive = g; the others return at once (their slot is rewritten
 * only at g + 2, once every rank arrived at g + 1), the root folds the p slots in rank order.
 * Cost: n beta at a non-root; (p - 1) n (beta + gamma) + one flag latency at the root, against
 * ceil(log2 p) (alpha + n beta + n gamma) for the binomial tree. From 16 KiB, while every rank
 * has a core, the slots are written in 8 KiB chunks and the root folds each as it lands
 * (coll_shm.h, pipelined slots), so the root's pass overlaps the contributors'.
 *
 * Two ranks with a core each past the inline limit (push, below): the other rank
 * writes its input into the root's receive buffer and the root folds its own into it.
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

/* Two ranks, one per core, the root not in place, and an op for which root's input op the
 * other's is the rank-order result (commutative, or the root is rank 0): the other rank writes
 * its input chunk by chunk straight into the root's receive buffer (process_vm_writev) and says
 * after each how far it is (the pipelined slot's flags, coll_shm.h), while the root folds its
 * own input into each chunk that has landed. n bytes cross once (the floor), the root makes no
 * system call, the copy and the fold run on both cores at once, and the other rank returns as
 * soon as its writes are done. The shared chunks would cross 3 n / 2 (the root's half read by
 * the other rank, folded there and written back). The root alone knows whether it is in place,
 * so it says `push` by ready = g before it arrives, and the other rank reads that once it has
 * seen the root arrive. */
static bool push_fits(const ibex_coll_shm_t *seg, const ibex_coll_args_t *a)
{
    return seg->size == 2 && !seg->oversub && (a->op->commutative || a->root == 0);
}

static size_t push_step(const ibex_coll_args_t *a)
{
    size_t size = ibex_dt_get(a->rdt)->size;
    size_t n = ibex_coll_shm_pair_chunk() / size;
    return (n ? n : 1) * size;
}

static ibex_status_t push_root(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                               const char *in, char *out, size_t bytes)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    const ibex_coll_shm_ctl_t *leaf = &seg->ctl[1 - seg->rank];
    size_t step = push_step(a);
    ibex_coll_shm_wait(&leaf->pgen, g); /* the long wait (hang records) */
    for (size_t off = 0; off < bytes; off += step) {
        size_t len = bytes - off < step ? bytes - off : step;
        ibex_coll_shm_pipe_wait(leaf, g, off + len);
        ibex_status_t st = ibex_coll_apply(a->op, in + off - d->true_lb, out + off - d->true_lb,
                                           (int)(len / d->size), a->rdt);
        if (st != IBEX_OK)
            return st;
    }
    return IBEX_OK;
}

static ibex_status_t push_leaf(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                               const char *in, size_t bytes)
{
    ibex_coll_shm_ctl_t *me = &seg->ctl[seg->rank];
    uint64_t dst = seg->ctl[a->root].raddr;
    size_t step = push_step(a);
    ibex_status_t st = IBEX_OK;
    ibex_coll_shm_pipe_begin(seg, g);
    for (size_t off = 0; off < bytes; off += step) {
        size_t len = bytes - off < step ? bytes - off : step;
        ibex_status_t wst = ibex_coll_shm_write(seg, a->root, dst + off, in + off, len);
        st = st != IBEX_OK ? st : wst;
        ibex_coll_shm_set(&me->pbytes, off + len); /* even after a failure: the root waits */
    }
    return st;
}

/* One chunk of the other rank's input, read into the receive buffer (tmp NULL) or into `tmp`,
 * folded while it is still in the root's cache. */
static ibex_status_t pull_chunk(const ibex_coll_args_t *a, const char *in, char *out, char *tmp,
                                size_t len)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    int n = (int)(len / d->size);
    if (!tmp) /* not in place, root op other */
        return ibex_coll_apply(a->op, in - d->true_lb, out - d->true_lb, n, a->rdt);
    if (a->root != 0 || a->op->commutative) { /* other op root: the other is lower, or in place */
        if (in != out)
            memcpy(out, in, len);
        return ibex_coll_apply(a->op, tmp - d->true_lb, out - d->true_lb, n, a->rdt);
    }
    /* in place at root 0, non-commutative: root op other, then back into out */
    ibex_status_t st = ibex_coll_apply(a->op, out - d->true_lb, tmp - d->true_lb, n, a->rdt);
    if (st == IBEX_OK)
        memcpy(out, tmp, len);
    return st;
}

/* The root reads the other rank's input in pieces of IBEX_COLL_SHM_PAIR_CHUNK bytes (one
 * process_vm_readv each), each folded as soon as it is read: straight into the receive buffer
 * when it is not in place and root op other is the rank-order result (commutative op, or root
 * 0), otherwise into a piece of the segment's scratch, folded into the receive buffer from
 * there. n bytes cross once, into the cache of the rank that folds them; the other rank returns
 * once the last piece is read. */
static ibex_status_t pull_fold(ibex_coll_shm_t *seg, const ibex_coll_args_t *a, const char *in,
                               char *out, size_t bytes)
{
    int other = 1 - seg->rank;
    uint64_t src = seg->ctl[other].saddr;
    size_t step = push_step(a);
    bool direct = in != out && (a->op->commutative || a->root == 0), said = false;
    char *tmp = direct ? NULL : ibex_coll_shm_scratch(seg, step < bytes ? step : bytes);
    ibex_status_t st = direct || tmp ? IBEX_OK : IBEX_ERR_NO_MEMORY;
    for (size_t off = 0; off < bytes && st == IBEX_OK; off += step) {
        size_t len = bytes - off < step ? bytes - off : step;
        st = ibex_coll_shm_read(seg, other, src + off, direct ? out + off : tmp, len);
        if (off + len >= bytes || st != IBEX_OK) { /* the last read: the other rank may go */
            ibex_coll_shm_set(&seg->ctl[seg->rank].done, seg->gen);
            said = true;
        }
        if (st == IBEX_OK)
            st = pull_chunk(a, in + off, out + off, tmp, len);
    }
    if (!said) /* after a failure too: the other rank waits for it */
        ibex_coll_shm_set(&seg->ctl[seg->rank].done, seg->gen);
    return st;
}

/* Two ranks with a core each, pulled (IBEX_COLL_SHM_PAIR_REDUCE=pull; Open MPI 4.1's choice,
 * strace -c: one process_vm_readv per call at the root, no copy at the other rank): the other
 * rank publishes its input and waits for the root's done; the root reads it and folds
 * (pull_fold).
 * The default: the machine's two VM modes favour different paths (collectives/README.md,
 * "Two-rank defaults"), and pull is the one never far behind Open MPI in either. */
ibex_status_t ibex_coll_shm_reduce_pull(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                        const char *in, char *out, size_t bytes)
{
    seg->ctl[seg->rank].saddr = (uint64_t)(uintptr_t)in;
    ibex_coll_shm_arrive(seg, g);
    if (seg->rank != a->root) {
        ibex_coll_shm_wait(&seg->ctl[a->root].done, g);
        return IBEX_OK;
    }
    ibex_coll_shm_wait(&seg->ctl[1 - seg->rank].arrive, g);
    return pull_fold(seg, a, in, out, bytes);
}

/* Two ranks with a core each, pulled, from IBEX_COLL_SHM_PAIR_REDUCE_SPLIT bytes: both fold. The
 * root pulls and folds the first 5/8 of the elements (pull_fold: a read and a fold per byte);
 * the other rank reads the root's input for the rest into its scratch, folds its own into it
 * and writes the result into the root's receive buffer (a read, a fold and a write per byte:
 * hence the larger part for the root). The order is rank order when the op commutes or the
 * other rank is rank 0 (split_fits; else the whole pull). In place the other rank reads the root's
 * input from the receive buffer and writes the result back there: the root never touches that
 * part. The other rank says ready = g when its part is in (a failure: its published address
 * set to 0 first, so the root fails too) and returns once the root has read the other's first
 * part (done, set by pull_fold). */
static bool split_fits(const ibex_coll_args_t *a, size_t bytes)
{
    size_t from = ibex_coll_shm_pair_reduce_split();
    return from > 0 && bytes >= from && (a->op->commutative || a->root == 1);
}

static ibex_status_t split_other(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                 const char *in, size_t from, size_t bytes)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    ibex_coll_shm_ctl_t *me = &seg->ctl[seg->rank];
    const ibex_coll_shm_ctl_t *root = &seg->ctl[a->root];
    uint64_t src = root->saddr, dst = root->raddr;
    size_t step = push_step(a);
    char *tmp = ibex_coll_shm_scratch(seg, step < bytes - from ? step : bytes - from);
    ibex_status_t st = tmp ? IBEX_OK : IBEX_ERR_NO_MEMORY;
    for (size_t off = from; off < bytes && st == IBEX_OK; off += step) {
        size_t len = bytes - off < step ? bytes - off : step;
        st = ibex_coll_shm_read(seg, a->root, src + off, tmp, len);
        if (st == IBEX_OK) /* tmp = mine op the root's: rank order (split_fits) */
            st = ibex_coll_apply(a->op, in + off - d->true_lb, tmp - d->true_lb,
                                 (int)(len / d->size), a->rdt);
        if (st == IBEX_OK)
            st = ibex_coll_shm_write(seg, a->root, dst + off, tmp, len);
    }
    if (st != IBEX_OK)
        __atomic_store_n(&me->saddr, 0, __ATOMIC_RELAXED);
    ibex_coll_shm_set(&me->ready, g);
    ibex_coll_shm_wait(&root->done, g); /* the root has read my first part */
    return st;
}

static ibex_status_t reduce_split(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                  const char *in, char *out, size_t bytes)
{
    size_t size = ibex_dt_get(a->rdt)->size;
    size_t from = (size_t)a->rcount * 5 / 8 * size; /* the root's part */
    ibex_coll_shm_ctl_t *me = &seg->ctl[seg->rank], *other = &seg->ctl[1 - seg->rank];
    me->saddr = (uint64_t)(uintptr_t)in;
    me->raddr = (uint64_t)(uintptr_t)out;
    ibex_coll_shm_arrive(seg, g);
    ibex_coll_shm_wait(&other->arrive, g); /* its addresses for g are published */
    if (seg->rank != a->root)
        return split_other(seg, g, a, in, from, bytes);
    ibex_status_t st = pull_fold(seg, a, in, out, from);
    ibex_coll_shm_wait(&other->ready, g);
    if (st == IBEX_OK && __atomic_load_n(&other->saddr, __ATOMIC_RELAXED) == 0)
        st = IBEX_ERR_IO; /* the other rank could not do its part (it said why) */
    return st;
}

static ibex_status_t reduce_single(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                   const char *in, char *out)
{
    ibex_coll_shm_ctl_t *me = &seg->ctl[seg->rank];
    size_t bytes = (size_t)a->rcount * ibex_dt_get(a->rdt)->size;
    bool root = seg->rank == a->root, fits = push_fits(seg, a);
    me->saddr = (uint64_t)(uintptr_t)in;
    if (root)
        me->raddr = (uint64_t)(uintptr_t)out;
    if (root && fits && in != out)
        ibex_coll_shm_set(&me->ready, g);
    ibex_coll_shm_arrive(seg, g);
    if (fits && root && in != out)
        return push_root(seg, g, a, in, out, bytes);
    if (fits && !root) {
        ibex_coll_shm_wait(&seg->ctl[a->root].arrive, g);
        /* == g: a root that reduced g in shared chunks may already have pushed g + 1 */
        if (ibex_coll_shm_load(&seg->ctl[a->root].ready) == g)
            return push_leaf(seg, g, a, in, bytes);
    }
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
    if (!seg || !ibex_dt_is_contig(d, args->rcount))
        return ibex_coll_fallback(IBEX_COLL_REDUCE, args, bytes);
    bool acc;
    if ((st = ibex_coll_shm_acc_use(seg, args, bytes, true, &acc)) != IBEX_OK)
        return st;
    if (!acc && bytes > seg->slot_size && !seg->cma)
        return ibex_coll_fallback(IBEX_COLL_REDUCE, args, bytes);
    bool root = seg->rank == args->root;
    char *out = root ? (char *)args->rbuf + d->true_lb : NULL;
    const char *in = args->sbuf == MPI_IN_PLACE ? out : (const char *)args->sbuf + d->true_lb;
    if (acc) /* 3 to 16 ranks, a commutative op (base/coll_shm_acc.c) */
        return ibex_coll_shm_acc_reduce(seg, args, in, out, 0, args->rcount);
    uint64_t g = ibex_coll_shm_begin(seg);
    /* Two ranks with a core each past IBEX_COLL_SHM_PAIR_INLINE: IBEX_COLL_SHM_PAIR_REDUCE
     * picks the path (the same on every rank). Default pull (Open MPI's algorithm, at any
     * size): at 64 KiB slots / pull / Open MPI 2.32 / 6.83 / 7.8-8.7 us in the faster VM mode,
     * 8.4 / 4.1 / 3.9 in the slower one; at 1 MiB push / pull / Open MPI 90.6 / 110 / 105 and
     * 122 / 94 / 103 (collectives/README.md, "Two-rank defaults"). */
    ibex_coll_pair_reduce_t mode =
        ibex_coll_shm_pair_single(seg, bytes) ? ibex_coll_shm_pair_reduce() : IBEX_COLL_PAIR_SLOTS;
    if (mode == IBEX_COLL_PAIR_PULL && split_fits(args, bytes))
        return reduce_split(seg, g, args, in, out, bytes);
    if (mode == IBEX_COLL_PAIR_PULL)
        return ibex_coll_shm_reduce_pull(seg, g, args, in, out, bytes);
    if (bytes <= seg->slot_size && mode == IBEX_COLL_PAIR_SLOTS)
        return reduce_inline(seg, g, args, in, out, bytes);
    return reduce_single(seg, g, args, in, out);
}
