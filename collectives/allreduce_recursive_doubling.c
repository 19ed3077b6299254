/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allreduce: recursive doubling (MPICH's allreduce_intra_recursive_doubling).
 *
 * With pof2 the largest power of two <= p and rem = p - pof2, the first 2 rem ranks pair up
 * (even sends to odd, which combines), leaving pof2 participants with new ranks in rank
 * order. In step k each exchanges its whole partial result with the participant whose new
 * rank differs in bit k and combines lower-ranked op higher-ranked, so after log2 pof2 steps
 * every participant holds the result, combined in rank order on the same tree everywhere:
 * correct for non-commutative ops and bitwise identical on all ranks. The even ranks that sat
 * out get the result from their odd partner.
 *
 * Cost: log2 pof2 * (alpha + n beta + n gamma), plus 2 (alpha + n beta) + n gamma when p is
 * not a power of two. Half the latency of reduce + bcast; for large n, Rabenseifner's
 * reduce-scatter + allgather moves less (2 n beta instead of n log2 p beta).
 */
#include <stdlib.h>

#include "coll.h"
#include "ibex_p2p.h"

typedef struct rd_state {
    const ibex_coll_args_t *a;
    void *acc, *tmp; /* partial result; receive buffer (swapped as results move) */
    int tag;
} rd_state_t;

/* acc = (peer < me) ? recv op acc : acc op recv; the result may land in either buffer. */
static ibex_status_t rd_combine(rd_state_t *s, bool peer_lower)
{
    const ibex_coll_args_t *a = s->a;
    if (peer_lower)
        return ibex_coll_apply(a->op, s->tmp, s->acc, a->rcount, a->rdt);
    ibex_status_t st = ibex_coll_apply(a->op, s->acc, s->tmp, a->rcount, a->rdt);
    void *t = s->acc;
    s->acc = s->tmp;
    s->tmp = t;
    return st;
}

static ibex_status_t rd_exchange(rd_state_t *s, int newrank, int pof2, int rem)
{
    const ibex_coll_args_t *a = s->a;
    ibex_comm_t *comm = a->comm;
    ibex_status_t st = IBEX_OK;
    for (int mask = 1; st == IBEX_OK && mask < pof2; mask <<= 1) {
        int newpeer = newrank ^ mask;
        int peer = newpeer < rem ? newpeer * 2 + 1 : newpeer + rem;
        st = ibex_coll_sendrecv(s->acc, a->rcount, a->rdt, peer, s->tmp, a->rcount, a->rdt, peer,
                                s->tag, comm);
        if (st == IBEX_OK)
            st = rd_combine(s, peer < comm->rank);
    }
    return st;
}

static ibex_status_t rd_run(rd_state_t *s)
{
    const ibex_coll_args_t *a = s->a;
    ibex_comm_t *comm = a->comm;
    int rank = comm->rank, pof2 = 1;
    while (pof2 * 2 <= comm->size)
        pof2 *= 2;
    int rem = comm->size - pof2, newrank = rank - rem;
    ibex_status_t st = IBEX_OK;
    if (rank < 2 * rem && rank % 2 == 0) {
        st = ibex_coll_send(s->acc, a->rcount, a->rdt, rank + 1, s->tag, comm);
        return st != IBEX_OK ? st
                             : ibex_coll_recv(a->rbuf, a->rcount, a->rdt, rank + 1, s->tag, comm);
    }
    if (rank < 2 * rem) {
        newrank = rank / 2;
        st = ibex_coll_recv(s->tmp, a->rcount, a->rdt, rank - 1, s->tag, comm);
        if (st == IBEX_OK)
            st = rd_combine(s, true);
    }
    if (st == IBEX_OK)
        st = rd_exchange(s, newrank, pof2, rem);
    if (st == IBEX_OK && s->acc != a->rbuf)
        st = ibex_coll_copy(s->acc, a->rcount, a->rdt, a->rbuf, a->rcount, a->rdt);
    if (st == IBEX_OK && rank < 2 * rem)
        st = ibex_coll_send(a->rbuf, a->rcount, a->rdt, rank - 1, s->tag, comm);
    return st;
}

ibex_status_t ibex_coll_allreduce_recursive_doubling(const ibex_coll_args_t *args)
{
    if (args->rcount == 0)
        return IBEX_OK;
    void *base;
    rd_state_t s = {.a = args, .acc = args->rbuf, .tag = IBEX_COLL_TAG(IBEX_COLL_ALLREDUCE)};
    s.tmp = ibex_coll_tmp_alloc(args->rdt, args->rcount, &base);
    if (!s.tmp)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st = IBEX_OK;
    if (args->sbuf != MPI_IN_PLACE)
        st = ibex_coll_copy(args->sbuf, args->rcount, args->rdt, args->rbuf, args->rcount,
                            args->rdt);
    if (st == IBEX_OK)
        st = rd_run(&s);
    free(base);
    return st;
}
