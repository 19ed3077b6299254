/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scan and Exscan in the communicator's shared segment (base/coll_shm.h, base/coll_shm_reduce.c),
 * for a contiguous type up to IBEX_COLL_SHM_INLINE bytes: every rank copies its input into its
 * slot of generation g, publishes arrive = g, and folds the slots of ranks 0 .. r (Scan) or
 * 0 .. r - 1 (Exscan) in rank order, s_0 op (s_1 op (... op s_last)), so a non-commutative op is
 * right. Rank r waits only for the ranks before it: rank 0 of a Scan returns at once (its result
 * is its input), rank 0 of an Exscan too (its result is undefined and left untouched). The slot
 * is rewritten at g + 2 only after every rank arrived at g + 1 (ibex_coll_shm_claim).
 *
 * Cost: n beta + r n (beta + gamma) at rank r and one flag latency per rank before it, all ranks
 * at once; against ceil(log2 p) (alpha + n beta + 2 n gamma) for recursive doubling, every round
 * of which waits for a partner that may have no core. Larger or non-contiguous: recursive
 * doubling.
 *
 * Exscan at two ranks with a core each past IBEX_COLL_SHM_PAIR_INLINE (8 KiB), at any size
 * (also past the inline limit, where Scan runs recursive doubling): rank 1's result
 * is rank 0's input, read straight into its buffer with one process_vm_readv (exscan_pair);
 * rank 0 publishes its input and returns once it was read. Scan there: rank 1 pulls rank 0's
 * input in pieces and folds each (x0 op x1, reduce_shm.c's pull to root 1). One copy instead
 * of two (collectives/README.md, "Two-rank defaults").
 */
#include <string.h>

#include "coll_shm.h"
#include "ibex_datatype.h"

static ibex_status_t exscan_pair(ibex_coll_shm_t *seg, uint64_t g, const char *in, char *out,
                                 size_t bytes)
{
    ibex_coll_shm_ctl_t *me = &seg->ctl[seg->rank], *other = &seg->ctl[1 - seg->rank];
    if (seg->rank == 0) {
        me->saddr = (uint64_t)(uintptr_t)in;
        ibex_coll_shm_arrive(seg, g);
        ibex_coll_shm_wait(&other->done, g);
        return IBEX_OK;
    }
    ibex_coll_shm_arrive(seg, g);
    ibex_coll_shm_wait(&other->arrive, g);
    ibex_status_t st = ibex_coll_shm_read(seg, 0, other->saddr, out, bytes);
    ibex_coll_shm_set(&me->done, g); /* after a failure too: rank 0 waits for it */
    return st;
}

/* Scan at two ranks with a core each past IBEX_COLL_SHM_PAIR_INLINE: rank 1's result is the
 * Reduce to root 1 (x0 op x1), pulled as reduce_shm.c does; rank 0's is its own input. */
static ibex_status_t scan_pair(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                               const char *in, char *out, size_t bytes)
{
    if (seg->rank == 0 && in != out)
        memcpy(out, in, bytes);
    ibex_coll_args_t r = *a;
    r.root = 1;
    return ibex_coll_shm_reduce_pull(seg, g, &r, in, out, bytes);
}

static ibex_status_t scan_shm(const ibex_coll_args_t *a, bool exclusive, ibex_coll_kind_t kind)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    size_t bytes = (size_t)a->rcount * d->size;
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(a->comm, &seg);
    if (st != IBEX_OK)
        return st;
    /* any size: the pair's read needs no slot */
    bool pair = seg && ibex_coll_shm_pair_single(seg, bytes);
    if (!seg || !ibex_dt_is_contig(d, a->rcount) || (bytes > seg->slot_size && !pair))
        return ibex_coll_fallback(kind, a, bytes);
    if (a->rcount == 0)
        return IBEX_OK; /* the same on every rank */
    uint64_t g = ibex_coll_shm_begin(seg);
    char *out = (char *)a->rbuf + d->true_lb;
    const char *in = a->sbuf == MPI_IN_PLACE ? out : (const char *)a->sbuf + d->true_lb;
    if (pair)
        return exclusive ? exscan_pair(seg, g, in, out, bytes)
                         : scan_pair(seg, g, a, in, out, bytes);
    ibex_coll_shm_claim(seg, g);
    memcpy(ibex_coll_shm_slot(seg, seg->rank, g, bytes), in, bytes);
    ibex_coll_shm_arrive(seg, g);
    int last = exclusive ? seg->rank - 1 : seg->rank;
    if (last < 0)
        return IBEX_OK;
    return ibex_coll_shm_combine_prefix(seg, g, a, in, out, last);
}

ibex_status_t ibex_coll_scan_shm(const ibex_coll_args_t *args)
{
    return scan_shm(args, false, IBEX_COLL_SCAN);
}

ibex_status_t ibex_coll_exscan_shm(const ibex_coll_args_t *args)
{
    return scan_shm(args, true, IBEX_COLL_EXSCAN);
}
