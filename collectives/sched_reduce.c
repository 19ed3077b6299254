/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Schedules of the reductions (coll_sched.h). Every one combines in rank order (the left
 * operand always covers lower ranks), so non-commutative ops are correct.
 *
 * Ireduce, binomial tree (as reduce_binomial.c): a rank with bit `mask` of its relative rank
 * clear receives the subtree [v + mask, v + 2 mask) and combines acc op received; one with the
 * bit set sends its partial result to v - mask. A non-commutative op runs the tree from rank 0
 * and the result moves to the root. Cost: ceil(log2 p) (alpha + n beta + n gamma) (+ alpha +
 * n beta for a non-commutative op with root != 0).
 *
 * Iallreduce, recursive doubling (as allreduce_recursive_doubling.c): with pof2 the largest
 * power of two <= p and rem = p - pof2, the first 2 rem ranks pair up (even sends to odd), then
 * the pof2 participants exchange whole partial results in log2 pof2 rounds, lower op higher;
 * the even ranks that sat out get the result from their partner. Cost: log2 pof2 (alpha +
 * n beta + n gamma) (+ 2 (alpha + n beta) if p is not a power of two).
 */
#include "coll.h"
#include "coll_sched.h"

typedef struct red {
    const ibex_coll_args_t *a;
    ibex_sched_t *s;
    void *acc, *tmp; /* partial result; receive buffer (swapped as the result moves) */
} red_t;

/* Receives from peer into tmp and combines: peer lower ? tmp op acc : acc op tmp. */
static void combine_from(red_t *x, bool peer_lower)
{
    const ibex_coll_args_t *a = x->a;
    if (peer_lower) {
        ibex_sched_reduce(x->s, x->tmp, x->acc, a->rcount, a->rdt);
        return;
    }
    ibex_sched_reduce(x->s, x->acc, x->tmp, a->rcount, a->rdt);
    void *t = x->acc;
    x->acc = x->tmp;
    x->tmp = t;
}

/* The tree rooted at tree_root; afterwards x->acc holds the result at tree_root. */
static void reduce_tree(red_t *x, int tree_root)
{
    const ibex_coll_args_t *a = x->a;
    int p = a->comm->size, v = (a->comm->rank - tree_root + p) % p;
    for (int mask = 1; mask < p; mask <<= 1) {
        if (v & mask) {
            ibex_sched_send(x->s, x->acc, a->rcount, a->rdt, (v - mask + tree_root) % p);
            return;
        }
        if (v + mask >= p)
            continue;
        ibex_sched_recv(x->s, x->tmp, a->rcount, a->rdt, (v + mask + tree_root) % p);
        ibex_sched_fence(x->s);
        combine_from(x, false);
    }
}

void ibex_sched_reduce_binomial(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    if (a->rcount == 0)
        return;
    red_t x = {.a = a, .s = s};
    x.acc = ibex_sched_tmp(s, a->rdt, a->rcount);
    x.tmp = ibex_sched_tmp(s, a->rdt, a->rcount);
    const void *mine = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    ibex_sched_copy(s, mine, a->rcount, a->rdt, x.acc, a->rcount, a->rdt);
    int tree_root = a->op->commutative ? a->root : 0, rank = a->comm->rank;
    reduce_tree(&x, tree_root);
    if (tree_root == a->root && rank == a->root)
        ibex_sched_copy(s, x.acc, a->rcount, a->rdt, a->rbuf, a->rcount, a->rdt);
    else if (tree_root != a->root && rank == tree_root)
        ibex_sched_send(s, x.acc, a->rcount, a->rdt, a->root);
    else if (tree_root != a->root && rank == a->root)
        ibex_sched_recv(s, a->rbuf, a->rcount, a->rdt, tree_root);
}

static void rd_exchange(red_t *x, int newrank, int pof2, int rem)
{
    const ibex_coll_args_t *a = x->a;
    for (int mask = 1; mask < pof2; mask <<= 1) {
        int newpeer = newrank ^ mask;
        int peer = newpeer < rem ? newpeer * 2 + 1 : newpeer + rem;
        ibex_sched_send(x->s, x->acc, a->rcount, a->rdt, peer);
        ibex_sched_recv(x->s, x->tmp, a->rcount, a->rdt, peer);
        ibex_sched_fence(x->s);
        combine_from(x, peer < a->comm->rank);
    }
}

void ibex_sched_allreduce_recursive_doubling(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    if (a->rcount == 0)
        return;
    red_t x = {.a = a, .s = s, .acc = a->rbuf};
    x.tmp = ibex_sched_tmp(s, a->rdt, a->rcount);
    if (a->sbuf != MPI_IN_PLACE)
        ibex_sched_copy(s, a->sbuf, a->rcount, a->rdt, a->rbuf, a->rcount, a->rdt);
    int rank = a->comm->rank, pof2 = 1;
    while (pof2 * 2 <= a->comm->size)
        pof2 *= 2;
    int rem = a->comm->size - pof2, newrank = rank - rem;
    if (rank < 2 * rem && rank % 2 == 0) {
        ibex_sched_send(s, a->rbuf, a->rcount, a->rdt, rank + 1);
        ibex_sched_recv(s, a->rbuf, a->rcount, a->rdt, rank + 1);
        return; /* the receive cannot match before the send: the partner answers after it */
    }
    if (rank < 2 * rem) {
        newrank = rank / 2;
        ibex_sched_recv(s, x.tmp, a->rcount, a->rdt, rank - 1);
        ibex_sched_fence(s);
        combine_from(&x, true);
    }
    rd_exchange(&x, newrank, pof2, rem);
    if (x.acc != a->rbuf)
        ibex_sched_copy(s, x.acc, a->rcount, a->rdt, a->rbuf, a->rcount, a->rdt);
    if (rank < 2 * rem)
        ibex_sched_send(s, a->rbuf, a->rcount, a->rdt, rank - 1);
}

/* Ireduce_scatter and Ireduce_scatter_block, non-commutative ops: the whole vector reduced to
 * rank 0 on the rank-ordered binomial tree, then scattered (linear Iscatterv) by the counts.
 * Cost: ceil(log2 p) (alpha + N beta + N gamma) + (p - 1) alpha + N beta, N the whole vector;
 * a rank-ordered recursive halving would move less for large vectors. */
static void reduce_scatter_counts(const ibex_coll_args_t *a, ibex_sched_t *s, const int *counts)
{
    int p = a->comm->size, total = 0;
    int *displs = ibex_sched_tmp(s, MPI_INT, p); /* read only while building, like counts */
    if (!displs)
        return;
    for (int i = 0; i < p; i++) {
        displs[i] = total;
        total += counts[i];
    }
    void *whole = ibex_sched_tmp(s, a->rdt, total);
    ibex_coll_args_t red = {.comm = a->comm,
                            .sbuf = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf,
                            .rbuf = whole,
                            .rcount = total,
                            .rdt = a->rdt,
                            .op = a->op,
                            .root = 0};
    ibex_sched_reduce_binomial(&red, s);
    ibex_sched_fence(s);
    ibex_coll_args_t sc = {.comm = a->comm,
                           .sbuf = whole,
                           .scounts = counts,
                           .sdispls = displs,
                           .sdt = a->rdt,
                           .rbuf = a->rbuf,
                           .rcount = counts[a->comm->rank],
                           .rdt = a->rdt,
                           .root = 0};
    ibex_sched_scatterv_linear(&sc, s);
}

/* Ireduce_scatter(_block), ring (commutative ops): the whole vector is copied into a
 * temporary; in round k (p - 1 of them) a rank passes its partial of block (rank - k - 1) right
 * and folds the partial of block (rank - k - 2) from its left into its own, so that after the
 * last round it holds block rank reduced over everyone. Cost: (p - 1) alpha + (p - 1)/p N beta
 * + (p - 1)/p N gamma (N the whole vector), against the tree's log2 p N. */
/* The ring rounds over the whole vector `mine` (counts[i] elements in block i, displs[i] its
 * offset): afterwards block rank of the returned temporary holds the full reduction. */
static void *ring_reduce_scatter(const ibex_coll_args_t *a, ibex_sched_t *s, const void *mine,
                                 const int *counts, const int *displs)
{
    int p = a->comm->size, r = a->comm->rank, total = displs[p - 1] + counts[p - 1], big = 0;
    for (int i = 0; i < p; i++)
        big = counts[i] > big ? counts[i] : big;
    void *acc = ibex_sched_tmp(s, a->rdt, total), *tmp = ibex_sched_tmp(s, a->rdt, big);
    ibex_sched_copy(s, mine, total, a->rdt, acc, total, a->rdt);
    for (int k = 0; k < p - 1; k++) {
        int out = (r - k - 1 + 2 * p) % p, in = (r - k - 2 + 2 * p) % p;
        void *inblk = ibex_coll_block(acc, a->rdt, (size_t)displs[in]);
        ibex_sched_send(s, ibex_coll_block(acc, a->rdt, (size_t)displs[out]), counts[out], a->rdt,
                        (r + 1) % p);
        ibex_sched_recv(s, tmp, counts[in], a->rdt, (r - 1 + p) % p);
        ibex_sched_fence(s);
        ibex_sched_reduce(s, tmp, inblk, counts[in], a->rdt);
    }
    return acc;
}

/* Offsets of the blocks, owned by the schedule (read only while building). */
static int *block_displs(ibex_sched_t *s, const int *counts, int p)
{
    int *displs = ibex_sched_tmp(s, MPI_INT, p);
    for (int i = 0, total = 0; displs && i < p; i++) {
        displs[i] = total;
        total += counts[i];
    }
    return displs;
}

static void reduce_scatter_ring(const ibex_coll_args_t *a, ibex_sched_t *s, const int *counts)
{
    int p = a->comm->size, r = a->comm->rank, *displs = block_displs(s, counts, p);
    if (!displs)
        return;
    const void *mine = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    void *acc = ring_reduce_scatter(a, s, mine, counts, displs);
    ibex_sched_copy(s, ibex_coll_block(acc, a->rdt, (size_t)displs[r]), counts[r], a->rdt, a->rbuf,
                    counts[r], a->rdt);
}

/* Ireduce, ring reduce-scatter + gather (commutative ops, large vectors): the ring rounds of
 * Ireduce_scatter over p near-equal blocks, then every rank sends its finished block to the
 * root. Cost: 2 (p - 1) alpha + 2 (p - 1)/p n beta + (p - 1)/p n gamma, against the binomial
 * tree's ceil(log2 p) (n beta + n gamma). */
void ibex_sched_reduce_ring_gather(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    int p = a->comm->size, r = a->comm->rank, q = a->rcount / p, rem = a->rcount % p;
    int *counts = ibex_sched_tmp(s, MPI_INT, p);
    for (int i = 0; counts && i < p; i++)
        counts[i] = q + (i < rem);
    int *displs = counts ? block_displs(s, counts, p) : NULL;
    if (!displs)
        return;
    const void *mine = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    void *acc = ring_reduce_scatter(a, s, mine, counts, displs);
    ibex_sched_fence(s);
    void *myblk = ibex_coll_block(acc, a->rdt, (size_t)displs[r]);
    if (r != a->root) {
        ibex_sched_send(s, myblk, counts[r], a->rdt, a->root);
        return;
    }
    for (int i = 0; i < p; i++) {
        void *dst = ibex_coll_block(a->rbuf, a->rdt, (size_t)displs[i]);
        if (i == r)
            ibex_sched_copy(s, myblk, counts[r], a->rdt, dst, counts[r], a->rdt);
        else
            ibex_sched_recv(s, dst, counts[i], a->rdt, i);
    }
}

static void reduce_scatter_pick(const ibex_coll_args_t *a, ibex_sched_t *s, const int *counts)
{
    if (a->op->commutative)
        reduce_scatter_ring(a, s, counts);
    else
        reduce_scatter_counts(a, s, counts);
}

void ibex_sched_reduce_scatter_any(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    reduce_scatter_pick(a, s, a->rcounts); /* read only while building */
}

void ibex_sched_reduce_scatter_block_any(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    int p = a->comm->size, *counts = ibex_sched_tmp(s, MPI_INT, p);
    if (!counts)
        return;
    for (int i = 0; i < p; i++)
        counts[i] = a->rcount;
    reduce_scatter_pick(a, s, counts);
}

/* Iscan and Iexscan, recursive doubling (MPICH's scan / exscan): in round k a rank swaps its
 * partial (the reduction of its 2^k-aligned group so far) with rank ^ 2^k; a lower partner's
 * partial is folded into both the partial and the result (on the left), a higher one's into
 * the partial only (on the right), so every combine keeps rank order. Exscan's result starts
 * as the first lower partial (rank 0's stays untouched). Cost: ceil(log2 p) (alpha + n beta +
 * 2 n gamma). */
static void scan_rounds(red_t *x, void *result, bool exclusive)
{
    const ibex_coll_args_t *a = x->a;
    int p = a->comm->size, rank = a->comm->rank;
    bool have_result = !exclusive;
    for (int mask = 1; mask < p; mask <<= 1) {
        int peer = rank ^ mask;
        if (peer >= p)
            continue;
        ibex_sched_send(x->s, x->acc, a->rcount, a->rdt, peer);
        ibex_sched_recv(x->s, x->tmp, a->rcount, a->rdt, peer);
        ibex_sched_fence(x->s);
        if (peer > rank) {
            combine_from(x, false);
            continue;
        }
        if (have_result)
            ibex_sched_reduce(x->s, x->tmp, result, a->rcount, a->rdt);
        else
            ibex_sched_copy(x->s, x->tmp, a->rcount, a->rdt, result, a->rcount, a->rdt);
        have_result = true;
        ibex_sched_reduce(x->s, x->tmp, x->acc, a->rcount, a->rdt);
    }
}

static void scan_build(const ibex_coll_args_t *a, ibex_sched_t *s, bool exclusive)
{
    if (a->rcount == 0)
        return;
    red_t x = {.a = a, .s = s};
    x.acc = ibex_sched_tmp(s, a->rdt, a->rcount);
    x.tmp = ibex_sched_tmp(s, a->rdt, a->rcount);
    const void *mine = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    ibex_sched_copy(s, mine, a->rcount, a->rdt, x.acc, a->rcount, a->rdt);
    if (!exclusive && a->sbuf != MPI_IN_PLACE)
        ibex_sched_copy(s, a->sbuf, a->rcount, a->rdt, a->rbuf, a->rcount, a->rdt);
    scan_rounds(&x, a->rbuf, exclusive);
}

void ibex_sched_scan_recursive_doubling(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    scan_build(a, s, false);
}

void ibex_sched_exscan_recursive_doubling(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    scan_build(a, s, true);
}

/* Iallreduce, ring (commutative ops, large vectors): the vector in p blocks; p - 1 rounds of
 * reduce-scatter pass block (rank - k) right and fold the one from the left into its block,
 * then p - 1 rounds of allgather pass the finished blocks around. Each block is reduced once
 * (in ring order, hence commutative only) and copied everywhere, so every rank gets the same
 * bits. Cost: 2 (p - 1) alpha + 2 (p - 1)/p n beta + (p - 1)/p n gamma: against recursive
 * doubling's log2 p n beta, the choice for large n. */
typedef struct ring {
    const ibex_coll_args_t *a;
    int p, q, rem; /* block b holds q (+ 1 if b < rem) elements */
} ring_t;

static int ring_count(const ring_t *g, int b)
{
    return g->q + (b < g->rem);
}

static void *ring_block(const ring_t *g, int b)
{
    size_t off = (size_t)b * (size_t)g->q + (size_t)(b < g->rem ? b : g->rem);
    return ibex_coll_block(g->a->rbuf, g->a->rdt, off);
}

void ibex_sched_allreduce_ring(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    int p = a->comm->size, r = a->comm->rank, right = (r + 1) % p, left = (r - 1 + p) % p;
    ring_t g = {.a = a, .p = p, .q = a->rcount / p, .rem = a->rcount % p};
    void *tmp = ibex_sched_tmp(s, a->rdt, ring_count(&g, 0));
    if (a->sbuf != MPI_IN_PLACE)
        ibex_sched_copy(s, a->sbuf, a->rcount, a->rdt, a->rbuf, a->rcount, a->rdt);
    for (int k = 0; k < p - 1; k++) {
        int out = (r - k + p) % p, in = (r - k - 1 + p) % p;
        ibex_sched_send(s, ring_block(&g, out), ring_count(&g, out), a->rdt, right);
        ibex_sched_recv(s, tmp, ring_count(&g, in), a->rdt, left);
        ibex_sched_fence(s);
        ibex_sched_reduce(s, tmp, ring_block(&g, in), ring_count(&g, in), a->rdt);
    }
    for (int k = 0; k < p - 1; k++) {
        int out = (r + 1 - k + p) % p, in = (r - k + p) % p;
        ibex_sched_send(s, ring_block(&g, out), ring_count(&g, out), a->rdt, right);
        ibex_sched_recv(s, ring_block(&g, in), ring_count(&g, in), a->rdt, left);
        ibex_sched_fence(s);
    }
}
