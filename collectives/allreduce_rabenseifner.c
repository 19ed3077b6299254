/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allreduce: Rabenseifner (reduce-scatter by recursive halving, then allgather by recursive
 * doubling; MPICH's allreduce_intra_reduce_scatter_allgather), for commutative ops.
 *
 * With pof2 the largest power of two <= p and rem = p - pof2, the first 2 rem ranks fold in
 * pairs (even sends its vector to odd, which combines), leaving pof2 participants. The vector
 * is cut into pof2 blocks; in step k each participant sends the half of its current range
 * that its partner (new rank differing in bit k) keeps and combines the half it keeps, so
 * after log2 pof2 steps each holds one block fully reduced. The allgather retraces the steps
 * in reverse, doubling the range each time; the even ranks that sat out get the result from
 * their odd partner. The halves are combined in an order that depends on the step, so a
 * non-commutative op runs recursive_doubling instead (which keeps rank order).
 *
 * Cost: 2 log2 pof2 alpha + 2 n (pof2 - 1) / pof2 beta + n (pof2 - 1) / pof2 gamma, plus
 * 2 (alpha + n beta) + n gamma when p is not a power of two: about 2 n beta against
 * recursive doubling's n log2 p beta, the large-message choice; small ones pay twice the
 * latency.
 *
 * The reduce-scatter half is shared with reduce_rabenseifner.c (ibex_coll_rsag_* in coll.h).
 */
#include <stdlib.h>

#include "coll.h"
#include "ibex_p2p.h"

int ibex_coll_rsag_peer(const ibex_coll_rsag_t *s, int newrank)
{
    return newrank < s->rem ? newrank * 2 + 1 : newrank + s->rem;
}

int ibex_coll_rsag_count(const ibex_coll_rsag_t *s, int from, int to)
{
    int n = 0;
    for (int i = from; i < to; i++)
        n += s->cnts[i];
    return n;
}

ibex_status_t ibex_coll_rsag_init(ibex_coll_rsag_t *s, const ibex_coll_args_t *a, void *buf,
                                  int tag)
{
    int size = a->comm->size, pof2 = 1;
    while (pof2 * 2 <= size)
        pof2 *= 2;
    *s = (ibex_coll_rsag_t){.a = a, .buf = buf, .tag = tag, .pof2 = pof2, .rem = size - pof2};
    s->tmp = ibex_coll_tmp_alloc(a->rdt, a->rcount, &s->tmp_base);
    s->cnts = malloc(2 * (size_t)pof2 * sizeof(int));
    if (!s->tmp || !s->cnts)
        return IBEX_ERR_NO_MEMORY;
    s->disps = s->cnts + pof2;
    for (int i = 0, off = 0; i < pof2; i++) {
        s->cnts[i] = a->rcount / pof2 + (i < a->rcount % pof2);
        s->disps[i] = off;
        off += s->cnts[i];
    }
    return IBEX_OK;
}

void ibex_coll_rsag_fini(ibex_coll_rsag_t *s)
{
    free(s->tmp_base);
    free(s->cnts);
}

/* The first 2 rem ranks fold in pairs; sets s->newrank (-1: sat out). */
static ibex_status_t rsag_fold(ibex_coll_rsag_t *s)
{
    const ibex_coll_args_t *a = s->a;
    int rank = a->comm->rank;
    s->newrank = rank < 2 * s->rem ? (rank % 2 ? rank / 2 : -1) : rank - s->rem;
    if (rank >= 2 * s->rem)
        return IBEX_OK;
    if (rank % 2 == 0)
        return ibex_coll_send(s->buf, a->rcount, a->rdt, rank + 1, s->tag, a->comm);
    ibex_status_t st = ibex_coll_recv(s->tmp, a->rcount, a->rdt, rank - 1, s->tag, a->comm);
    return st != IBEX_OK ? st : ibex_coll_apply(a->op, s->tmp, s->buf, a->rcount, a->rdt);
}

/* One halving step: exchange halves with the partner at mask, combine the kept half. */
static ibex_status_t rsag_halve(ibex_coll_rsag_t *s, int mask)
{
    const ibex_coll_args_t *a = s->a;
    int newdst = s->newrank ^ mask, half = s->pof2 / (mask * 2), send_idx, recv_idx;
    if (s->newrank < newdst) {
        recv_idx = s->send_idx;
        send_idx = recv_idx + half;
    } else {
        send_idx = s->send_idx;
        recv_idx = send_idx + half;
    }
    int scnt = s->newrank < newdst ? ibex_coll_rsag_count(s, send_idx, s->last_idx)
                                   : ibex_coll_rsag_count(s, send_idx, recv_idx);
    int rcnt = s->newrank < newdst ? ibex_coll_rsag_count(s, recv_idx, send_idx)
                                   : ibex_coll_rsag_count(s, recv_idx, s->last_idx);
    void *kept = ibex_coll_disp(s->buf, a->rdt, s->disps[recv_idx]);
    void *in = ibex_coll_disp(s->tmp, a->rdt, s->disps[recv_idx]);
    ibex_status_t st = ibex_coll_sendrecv(ibex_coll_disp(s->buf, a->rdt, s->disps[send_idx]), scnt,
                                          a->rdt, ibex_coll_rsag_peer(s, newdst), in, rcnt, a->rdt,
                                          ibex_coll_rsag_peer(s, newdst), s->tag, a->comm);
    if (st == IBEX_OK)
        st = ibex_coll_apply(a->op, in, kept, rcnt, a->rdt);
    s->send_idx = recv_idx;
    s->last_idx = recv_idx + half;
    return st;
}

ibex_status_t ibex_coll_rsag_reduce_scatter(ibex_coll_rsag_t *s)
{
    ibex_status_t st = rsag_fold(s);
    s->send_idx = 0;
    s->last_idx = s->pof2;
    for (int mask = 1; st == IBEX_OK && s->newrank >= 0 && mask < s->pof2; mask <<= 1)
        st = rsag_halve(s, mask);
    return st;
}

/* One doubling step of the allgather (the reverse of rsag_halve at the same mask). */
static ibex_status_t rsag_double(ibex_coll_rsag_t *s, int mask)
{
    const ibex_coll_args_t *a = s->a;
    int newdst = s->newrank ^ mask, half = s->pof2 / (mask * 2);
    /* this rank holds [send_idx, send_idx + half); the partner the other half of the pair */
    int recv_idx = s->newrank < newdst ? s->send_idx + half : s->send_idx - half;
    int scnt = ibex_coll_rsag_count(s, s->send_idx, s->send_idx + half);
    int rcnt = ibex_coll_rsag_count(s, recv_idx, recv_idx + half);
    ibex_status_t st = ibex_coll_sendrecv(ibex_coll_disp(s->buf, a->rdt, s->disps[s->send_idx]),
                                          scnt, a->rdt, ibex_coll_rsag_peer(s, newdst),
                                          ibex_coll_disp(s->buf, a->rdt, s->disps[recv_idx]), rcnt,
                                          a->rdt, ibex_coll_rsag_peer(s, newdst), s->tag, a->comm);
    if (s->newrank > newdst)
        s->send_idx = recv_idx;
    return st;
}

static ibex_status_t rsag_allgather(ibex_coll_rsag_t *s)
{
    const ibex_coll_args_t *a = s->a;
    int rank = a->comm->rank;
    ibex_status_t st = IBEX_OK;
    for (int mask = s->pof2 / 2; st == IBEX_OK && s->newrank >= 0 && mask > 0; mask >>= 1)
        st = rsag_double(s, mask);
    if (st != IBEX_OK || rank >= 2 * s->rem)
        return st;
    if (rank % 2)
        return ibex_coll_send(s->buf, a->rcount, a->rdt, rank - 1, s->tag, a->comm);
    return ibex_coll_recv(s->buf, a->rcount, a->rdt, rank + 1, s->tag, a->comm);
}

ibex_status_t ibex_coll_allreduce_rabenseifner(const ibex_coll_args_t *args)
{
    if (!args->op->commutative || args->rcount < args->comm->size)
        return ibex_coll_allreduce_recursive_doubling(args);
    ibex_status_t st = IBEX_OK;
    if (args->sbuf != MPI_IN_PLACE)
        st = ibex_coll_copy(args->sbuf, args->rcount, args->rdt, args->rbuf, args->rcount,
                            args->rdt);
    ibex_coll_rsag_t s = {0};
    if (st == IBEX_OK)
        st = ibex_coll_rsag_init(&s, args, args->rbuf, IBEX_COLL_TAG(IBEX_COLL_ALLREDUCE));
    if (st == IBEX_OK)
        st = ibex_coll_rsag_reduce_scatter(&s);
    if (st == IBEX_OK)
        st = rsag_allgather(&s);
    ibex_coll_rsag_fini(&s);
    return st;
}
