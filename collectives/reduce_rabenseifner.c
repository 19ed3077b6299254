/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduce: Rabenseifner (reduce-scatter by recursive halving, then a binomial gather of the
 * blocks; MPICH's reduce_intra_reduce_scatter_gather), for commutative ops. The reduce-scatter
 * is allreduce_rabenseifner.c's; the gather retraces its steps, largest mask first, each rank
 * whose new rank has the mask bit set sending everything it holds to its partner and
 * stopping, so new rank 0 ends with the whole vector and passes it to the root if it is not
 * the root itself. A non-commutative op (or fewer elements than ranks) runs the binomial
 * reduce instead.
 *
 * Cost: 2 log2 pof2 alpha + 2 n (pof2 - 1) / pof2 beta + n (pof2 - 1) / pof2 gamma (+ alpha +
 * n beta to reach the root, + alpha + n beta + n gamma when p is not a power of two), against
 * the binomial tree's log2 p (alpha + n beta + n gamma): the large-message choice.
 */
#include <stdlib.h>

#include "coll.h"
#include "ibex_p2p.h"

static ibex_status_t rab_gather(ibex_coll_rsag_t *s)
{
    const ibex_coll_args_t *a = s->a;
    for (int mask = s->pof2 / 2; mask > 0; mask >>= 1) {
        int newdst = s->newrank ^ mask, half = s->pof2 / (mask * 2);
        int peer = ibex_coll_rsag_peer(s, newdst);
        if (s->newrank & mask) /* holds [send_idx, send_idx + half): give it and stop */
            return ibex_coll_send(ibex_coll_disp(s->buf, a->rdt, s->disps[s->send_idx]),
                                  ibex_coll_rsag_count(s, s->send_idx, s->send_idx + half), a->rdt,
                                  peer, s->tag, a->comm);
        int recv_idx = s->send_idx + half;
        ibex_status_t st = ibex_coll_recv(ibex_coll_disp(s->buf, a->rdt, s->disps[recv_idx]),
                                          ibex_coll_rsag_count(s, recv_idx, recv_idx + half),
                                          a->rdt, peer, s->tag, a->comm);
        if (st != IBEX_OK)
            return st;
    }
    return IBEX_OK;
}

/* New rank 0 holds the result in s->buf: to the root's rbuf. */
static ibex_status_t rab_to_root(ibex_coll_rsag_t *s)
{
    const ibex_coll_args_t *a = s->a;
    int holder = ibex_coll_rsag_peer(s, 0), rank = a->comm->rank;
    if (holder == a->root)
        return rank == holder
                   ? ibex_coll_copy(s->buf, a->rcount, a->rdt, a->rbuf, a->rcount, a->rdt)
                   : IBEX_OK;
    if (rank == holder)
        return ibex_coll_send(s->buf, a->rcount, a->rdt, a->root, s->tag, a->comm);
    if (rank == a->root)
        return ibex_coll_recv(a->rbuf, a->rcount, a->rdt, holder, s->tag, a->comm);
    return IBEX_OK;
}

ibex_status_t ibex_coll_reduce_rabenseifner(const ibex_coll_args_t *args)
{
    if (!args->op->commutative || args->rcount < args->comm->size)
        return ibex_coll_reduce_binomial(args);
    void *base = NULL, *acc = ibex_coll_tmp_alloc(args->rdt, args->rcount, &base);
    ibex_coll_rsag_t s = {0};
    const void *mine = args->sbuf == MPI_IN_PLACE ? args->rbuf : args->sbuf;
    ibex_status_t st =
        acc ? ibex_coll_copy(mine, args->rcount, args->rdt, acc, args->rcount, args->rdt)
            : IBEX_ERR_NO_MEMORY;
    if (st == IBEX_OK)
        st = ibex_coll_rsag_init(&s, args, acc, IBEX_COLL_TAG(IBEX_COLL_REDUCE));
    if (st == IBEX_OK)
        st = ibex_coll_rsag_reduce_scatter(&s);
    if (st == IBEX_OK && s.newrank >= 0)
        st = rab_gather(&s);
    if (st == IBEX_OK)
        st = rab_to_root(&s);
    ibex_coll_rsag_fini(&s);
    free(base);
    return st;
}
