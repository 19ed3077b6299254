/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Alltoall in the communicator's shared segment (base/coll_shm.h, base/coll_shm_data.c).
 *
 * All p blocks of a rank together up to IBEX_COLL_SHM_INLINE bytes: every rank packs its p
 * blocks, in rank order, into its slot of generation g and publishes arrive = g, then copies
 * block `rank` out of every other rank's slot as its flag appears, starting after itself so
 * the ranks read different peers at once. No message, no matching, no rendezvous: one flag per
 * peer. Cost: p n beta + (p - 1) n beta (cache to cache) + one flag latency per peer, against
 * (p - 1) (alpha + n beta) for pairwise exchange, whose p - 1 rounds each wait for a peer that
 * may not have a core when ranks outnumber cores.
 *
 * Larger: every rank publishes its send buffer's address (a packed copy when the type is not
 * dense or under MPI_IN_PLACE, since the receive buffer is overwritten while others read it)
 * and reads its block of every other rank with process_vm_readv straight into its receive
 * buffer, in shift order (rank + 1, rank + 2, ...) but any source that has arrived before one
 * that has not, so it yields only when no source it still needs has arrived (a fixed order
 * waits for a rank without a core while others are ready: Open MPI's linear alltoall posts
 * everything for the same reason). After each block it adds one to that source's read count
 * (the segment's work block), and it returns once its own count says all p - 1 others have read
 * its block, not once each of them has read everything (one wait on a counter instead of p - 1
 * flags, none of them on a reader still busy with a late third rank). Cost: (p - 1) n beta per
 * rank, all ranks at once, + p - 1 system calls + the copy of its own block; the floor of single
 * copy.
 *
 * Oversubscribed (more ranks than cores), from IBEX_COLL_SHM_A2A_PAIRS ranks (8): each block s -> d
 * is moved by whichever of s and d gets to it first once both have arrived, claimed with one
 * compare-and-swap on its pair word (the segment's pair[], the generation): d reads it
 * (process_vm_readv from s's published data) or s writes it (process_vm_writev into d's receive
 * buffer, published when dense). A running rank thus moves both blocks it shares with every arrived
 * peer, and a peer that arrived and then lost its core finds its blocks delivered when it runs
 * again instead of holding the running ranks in their final waits; ranks on one core no longer take
 * turns on each other's reads. Each rank returns once p - 1 blocks have reached it (its nrecv
 * count) and p - 1 of its own have been delivered (nread). The same bytes and system calls as
 * above, spread over the ranks that run.
 */
#include <stdlib.h>
#include <string.h>

#include "coll_shm.h"
#include "ibex_datatype.h"

static ibex_status_t collect_inline(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                    size_t bytes)
{
    size_t off = (size_t)seg->rank * bytes;
    for (int i = 1; i < seg->size; i++) {
        int src = (seg->rank + i) % seg->size;
        void *block = ibex_coll_block(a->rbuf, a->rdt, (size_t)src * (size_t)a->rcount);
        ibex_coll_shm_wait(&seg->ctl[src].arrive, g);
        ibex_coll_shm_get_inline_at(seg, g, src, bytes * (size_t)seg->size, off, block, a->rcount,
                                    a->rdt);
    }
    return IBEX_OK;
}

typedef struct take_ctx {
    const ibex_coll_args_t *a;
    size_t bytes;
    uint64_t g;
} take_ctx_t;

/* Reads this rank's block of source src into its place in the receive buffer. */
static ibex_status_t fetch_block(ibex_coll_shm_t *seg, const take_ctx_t *t, int src)
{
    void *block = ibex_coll_block(t->a->rbuf, t->a->rdt, (size_t)src * (size_t)t->a->rcount);
    return ibex_coll_shm_fetch_at(seg, src, (size_t)seg->rank * t->bytes, block, t->a->rcount,
                                  t->a->rdt);
}

/* Reads this rank's block of source src and tells src (its read count) that it is taken. */
static ibex_status_t take(ibex_coll_shm_t *seg, int src, void *ctx)
{
    ibex_status_t st = fetch_block(seg, ctx, src);
    /* counted even after a failure, so src does not wait for ever; this rank reports it */
    __atomic_fetch_add(&seg->count[src].nread, 1, __ATOMIC_RELEASE);
    return st;
}

/* Claims block s -> d for generation g: true for the one rank that moves it. */
static bool pair_claim(ibex_coll_shm_t *seg, uint64_t g, int s, int d)
{
    uint64_t *w = &seg->pair[(size_t)s * (size_t)seg->size + (size_t)d];
    uint64_t old = __atomic_load_n(w, __ATOMIC_ACQUIRE);
    while (old < g)
        if (__atomic_compare_exchange_n(w, &old, g, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return true;
    return false;
}

/* Counts block s -> d as delivered, at both ends (even after a failure: nobody waits for ever). */
static void pair_done(ibex_coll_shm_t *seg, int s, int d)
{
    __atomic_fetch_add(&seg->count[s].nread, 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&seg->count[d].nrecv, 1, __ATOMIC_RELEASE);
    seg->a2a_moved++;
}

/* Block q -> rank unless q (writing) claimed it first. */
static ibex_status_t pair_in(ibex_coll_shm_t *seg, const take_ctx_t *t, int q)
{
    if (!pair_claim(seg, t->g, q, seg->rank))
        return IBEX_OK;
    ibex_status_t st = fetch_block(seg, t, q);
    pair_done(seg, q, seg->rank);
    return st;
}

/* Block rank -> q into q's receive buffer unless q reads it (q claimed it first, or its receive
 * buffer is not dense: raddr 0). q's raddr is for generation g: q cannot leave g before this
 * block is delivered, and a claim succeeds only while it is not. */
static ibex_status_t pair_out(ibex_coll_shm_t *seg, const take_ctx_t *t, int q)
{
    uint64_t raddr = ibex_coll_shm_load(&seg->ctl[q].raddr);
    if (raddr == 0 || !pair_claim(seg, t->g, seg->rank, q))
        return IBEX_OK;
    const char *mine = (const char *)(uintptr_t)seg->ctl[seg->rank].saddr;
    ibex_status_t st = ibex_coll_shm_write(seg, q, raddr + (uint64_t)seg->rank * t->bytes,
                                           mine + (size_t)q * t->bytes, t->bytes);
    pair_done(seg, seg->rank, q);
    return st;
}

/* Both blocks shared with peer q, once q has arrived (ibex_coll_shm_each_arrived). */
static ibex_status_t pair_both(ibex_coll_shm_t *seg, int q, void *ctx)
{
    ibex_status_t ist = pair_in(seg, ctx, q), ost = pair_out(seg, ctx, q);
    return ist != IBEX_OK ? ist : ost;
}

/* Both blocks shared with every peer, peers that have arrived first (the caller then waits for
 * the two counts). */
static ibex_status_t collect_pairs(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                   size_t bytes)
{
    take_ctx_t t = {.a = a, .bytes = bytes, .g = g};
    return ibex_coll_shm_each_arrived(seg, g, pair_both, &t);
}

/* Where senders may write this rank's blocks: its receive buffer when dense, else 0 (it reads
 * them itself and unpacks). */
static uint64_t recv_addr(const ibex_coll_shm_t *seg, const ibex_coll_args_t *a)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    if (!ibex_dt_is_contig(d, (MPI_Count)a->rcount * seg->size))
        return 0;
    return (uint64_t)(uintptr_t)((char *)a->rbuf + d->true_lb);
}

/* Single copy: every source's block once it has arrived, any arrived source first
 * (ibex_coll_shm_each_arrived). */
static ibex_status_t collect_single(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                    size_t bytes)
{
    take_ctx_t t = {.a = a, .bytes = bytes};
    return ibex_coll_shm_each_arrived(seg, g, take, &t);
}

/* The bytes others read from this rank: the send buffer, or under MPI_IN_PLACE a packed copy
 * of the receive buffer (*tmp_p, to free). */
static ibex_status_t publish(ibex_coll_shm_t *seg, const ibex_coll_args_t *a, void **tmp_p)
{
    int all = a->rcount * seg->size;
    if (a->sbuf != MPI_IN_PLACE)
        return ibex_coll_shm_publish(seg, a->sbuf, a->scount * seg->size, a->sdt, tmp_p);
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    size_t total = (size_t)all * d->size;
    char *tmp = malloc(total ? total : 1);
    if (!tmp)
        return IBEX_ERR_NO_MEMORY;
    ibex_dt_pack(a->rbuf, all, d, 0, tmp, total);
    seg->ctl[seg->rank].saddr = (uint64_t)(uintptr_t)tmp;
    *tmp_p = tmp;
    return IBEX_OK;
}

/* This rank's own block, from where the data was at the start to the receive buffer. */
static ibex_status_t copy_own(ibex_coll_shm_t *seg, const ibex_coll_args_t *a, const void *tmp)
{
    void *mine = ibex_coll_block(a->rbuf, a->rdt, (size_t)seg->rank * (size_t)a->rcount);
    if (a->sbuf != MPI_IN_PLACE) {
        const void *own = ibex_coll_block(a->sbuf, a->sdt, (size_t)seg->rank * (size_t)a->scount);
        return ibex_coll_copy(own, a->scount, a->sdt, mine, a->rcount, a->rdt);
    }
    (void)tmp; /* in place, the own block is already where it belongs */
    return IBEX_OK;
}

ibex_status_t ibex_coll_alltoall_shm(const ibex_coll_args_t *a)
{
    size_t bytes = (size_t)a->rcount * ibex_dt_get(a->rdt)->size;
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(a->comm, &seg);
    if (st != IBEX_OK)
        return st;
    size_t total = bytes * (size_t)a->comm->size;
    if (!seg || (total > seg->slot_size && !seg->cma))
        return ibex_coll_fallback(IBEX_COLL_ALLTOALL, a, bytes);
    uint64_t g = ibex_coll_shm_begin(seg);
    bool inline_ = ibex_coll_shm_goes_inline(seg, total);
    void *tmp = NULL;
    if (inline_) {
        ibex_coll_shm_claim(seg, g);
        if (a->sbuf == MPI_IN_PLACE)
            ibex_coll_shm_put_inline(seg, g, a->rbuf, a->rcount * seg->size, a->rdt);
        else
            ibex_coll_shm_put_inline(seg, g, a->sbuf, a->scount * seg->size, a->sdt);
    } else if ((st = publish(seg, a, &tmp)) != IBEX_OK) {
        return st; /* fatal for the job: the others wait for these blocks */
    }
    bool pairs = !inline_ && seg->oversub && seg->size >= ibex_coll_shm_a2a_pairs();
    if (pairs)
        seg->ctl[seg->rank].raddr = recv_addr(seg, a);
    ibex_coll_shm_arrive(seg, g);
    st = copy_own(seg, a, tmp);
    if (inline_) {
        seg->tiny_gen = g; /* the short path's note (coll_shm.h): it does what this does */
        ibex_status_t cst = collect_inline(seg, g, a, bytes);
        seg->all_seen = g;
        return st != IBEX_OK ? st : cst;
    }
    ibex_status_t cst = pairs ? collect_pairs(seg, g, a, bytes) : collect_single(seg, g, a, bytes);
    /* return once every other rank has read its block from this one (not once each has read
     * everything): p - 1 more counts since the last single-copy Alltoall */
    seg->nread_want += (uint64_t)(seg->size - 1);
    if (pairs) { /* every block into this rank delivered, by whichever rank moved it */
        seg->nrecv_want += (uint64_t)(seg->size - 1);
        ibex_coll_shm_wait(&seg->count[seg->rank].nrecv, seg->nrecv_want);
    }
    ibex_coll_shm_wait(&seg->count[seg->rank].nread, seg->nread_want);
    free(tmp);
    return st != IBEX_OK ? st : cst;
}

/* ---- the short path of MPI_Alltoall (coll_shm.h: ibex_coll_short_t) ----
 * Blocks of at most IBEX_COLL_SHM_TINY bytes of one predefined contiguous type on both sides,
 * on a communicator where the table gave that block size to this algorithm and it went
 * inline: the same steps (claim, the p blocks into this rank's slot, arrive, the own block
 * copied, block `rank` of every other slot in shift order as its flag appears), so ranks on
 * either path meet (a rank may pass other types of the same signature). MPI_IN_PLACE, other
 * counts or types, NULL or aliased buffers and bad handles go the general way. */
static void tiny_run(ibex_coll_shm_t *seg, const ibex_coll_short_t *sp, ibex_comm_t *c,
                     const char *sbuf, char *rbuf, size_t bytes)
{
    uint64_t g = ibex_coll_short_begin(seg, sp, IBEX_COLL_SHORT_ALLTOALL, IBEX_COLL_ALLTOALL, c,
                                       bytes, true);
    int p = seg->size, me = seg->rank;
    size_t total = bytes * (size_t)p;
    memcpy(ibex_coll_shm_slot(seg, me, g, total), sbuf, total);
    ibex_coll_shm_arrive(seg, g);
    ibex_coll_tiny_copy(rbuf + (size_t)me * bytes, sbuf + (size_t)me * bytes, bytes);
    for (int i = 1; i < p; i++) {
        int src = me + i < p ? me + i : me + i - p;
        ibex_coll_shm_wait(&seg->ctl[src].arrive, g);
        const char *slot = ibex_coll_shm_slot(seg, src, g, total);
        ibex_coll_tiny_copy(rbuf + (size_t)src * bytes, slot + (size_t)me * bytes, bytes);
    }
    seg->all_seen = g;
    ibex_blk_coll_leave();
}

bool ibex_coll_alltoall_tiny(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                             MPI_Datatype rdt, MPI_Comm comm)
{
    ibex_comm_t *c = NULL;
    ibex_coll_short_t *sp = ibex_coll_short_enter(comm, IBEX_COLL_SHORT_ALLTOALL, &c);
    if (!sp || sdt != rdt || scount != rcount || (rdt != sp->dt && !ibex_coll_short_type(sp, rdt)))
        return false;
    size_t bytes = (size_t)rcount * sp->dsize;
    if (rcount <= 0 || bytes > IBEX_COLL_SHM_TINY || !((sp->sizes >> bytes) & 1u) || !rbuf ||
        rbuf == MPI_IN_PLACE || !sbuf || sbuf == MPI_IN_PLACE || sbuf == rbuf)
        return false;
    tiny_run(c->coll_shm, sp, c, sbuf, rbuf, bytes);
    return true;
}
