/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduce: binomial tree.
 *
 * A rank whose relative rank has bit `mask` clear receives the partial result of the
 * subtree [vrank + mask, vrank + 2 mask) and combines it as acc = acc op received; a rank with
 * the bit set sends its partial result to vrank - mask and stops. Because each partial result
 * covers a contiguous range of relative ranks and the lower range is always the left operand,
 * the order is rank order when the tree is rooted at rank 0: non-commutative ops are reduced
 * on a tree rooted at 0 whose result then moves to root (one extra message); commutative ones
 * on a tree rooted at root.
 *
 * Cost: ceil(log2 p) * (alpha + n * beta + n * gamma), plus alpha + n * beta for a
 * non-commutative op with root != 0. Large messages want reduce-scatter + gather
 * (Rabenseifner), to come as reduce_rabenseifner.c.
 */
#include <stdlib.h>

#include "coll.h"
#include "ibex_p2p.h"

typedef struct reduce_state {
    const ibex_coll_args_t *a;
    void *acc, *tmp; /* partial result so far; receive buffer */
    void *acc_base, *tmp_base;
} reduce_state_t;

/* Runs the tree rooted at tree_root; on return s->acc holds the result at tree_root. */
static ibex_status_t reduce_tree(reduce_state_t *s, int tree_root)
{
    const ibex_coll_args_t *a = s->a;
    ibex_comm_t *comm = a->comm;
    int size = comm->size, vrank = (comm->rank - tree_root + size) % size;
    int tag = IBEX_COLL_TAG(IBEX_COLL_REDUCE);
    for (int mask = 1; mask < size; mask <<= 1) {
        if (vrank & mask) {
            int dst = (vrank - mask + tree_root) % size;
            return ibex_coll_send(s->acc, a->rcount, a->rdt, dst, tag, comm);
        }
        if (vrank + mask >= size)
            continue;
        int src = (vrank + mask + tree_root) % size;
        ibex_status_t st = ibex_coll_recv(s->tmp, a->rcount, a->rdt, src, tag, comm);
        if (st == IBEX_OK)
            st = ibex_coll_apply(a->op, s->acc, s->tmp, a->rcount, a->rdt);
        if (st != IBEX_OK)
            return st;
        void *t = s->acc; /* tmp = acc op tmp is the new partial result */
        s->acc = s->tmp;
        s->tmp = t;
    }
    return IBEX_OK;
}

/* acc starts as a copy of this rank's contribution, in a temporary buffer so rbuf (which
 * non-roots need not supply) is written only at the root. */
static ibex_status_t reduce_setup(reduce_state_t *s)
{
    const ibex_coll_args_t *a = s->a;
    s->acc = ibex_coll_tmp_alloc(a->rdt, a->rcount, &s->acc_base);
    s->tmp = ibex_coll_tmp_alloc(a->rdt, a->rcount, &s->tmp_base);
    if (!s->acc || !s->tmp)
        return IBEX_ERR_NO_MEMORY;
    const void *mine = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    return ibex_coll_copy(mine, a->rcount, a->rdt, s->acc, a->rcount, a->rdt);
}

ibex_status_t ibex_coll_reduce_binomial(const ibex_coll_args_t *args)
{
    ibex_comm_t *comm = args->comm;
    if (args->rcount == 0)
        return IBEX_OK;
    reduce_state_t s = {.a = args};
    int tree_root = args->op->commutative ? args->root : 0;
    int tag = IBEX_COLL_TAG(IBEX_COLL_REDUCE);
    ibex_status_t st = reduce_setup(&s);
    if (st == IBEX_OK)
        st = reduce_tree(&s, tree_root);
    if (st != IBEX_OK || tree_root == args->root) {
        if (st == IBEX_OK && comm->rank == args->root)
            st =
                ibex_coll_copy(s.acc, args->rcount, args->rdt, args->rbuf, args->rcount, args->rdt);
    } else if (comm->rank == tree_root) {
        st = ibex_coll_send(s.acc, args->rcount, args->rdt, args->root, tag, comm);
    } else if (comm->rank == args->root) {
        st = ibex_coll_recv(args->rbuf, args->rcount, args->rdt, tree_root, tag, comm);
    }
    free(s.acc_base);
    free(s.tmp_base);
    return st;
}
