/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduce_scatter(_block): ring, for commutative ops. Each rank starts from its whole vector;
 * in step s (0 .. p - 2) it sends its partial block (rank - s - 1) to the right and combines the
 * partial block (rank - s - 2) received from the left into its own copy. Block b travels
 * b + 1, b + 2, ..., b, collecting one contribution per hop, so after p - 1 steps each rank
 * holds its own block complete. The hops do not visit the ranks in rank order, so a
 * non-commutative op runs reduce_scatterv instead (which keeps rank order).
 *
 * Cost, N the whole vector: (p - 1) alpha + N (p - 1) / p (beta + gamma): bandwidth-optimal,
 * the large-vector choice; latency-bound for small ones.
 */
#include <stdlib.h>

#include "coll.h"
#include "ibex_p2p.h"

typedef struct ring_state {
    const ibex_coll_args_t *a;
    int *displs;
    void *acc, *tmp; /* the partial vector; one received block */
} ring_state_t;

static ibex_status_t ring_steps(ring_state_t *s)
{
    const ibex_coll_args_t *a = s->a;
    ibex_comm_t *comm = a->comm;
    int size = comm->size, rank = comm->rank, tag = IBEX_COLL_TAG(IBEX_COLL_REDUCE_SCATTER);
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    ibex_status_t st = IBEX_OK;
    for (int step = 0; st == IBEX_OK && step < size - 1; step++) {
        int sb = (rank - step - 1 + 2 * size) % size, rb = (rank - step - 2 + 2 * size) % size;
        void *rblock = ibex_coll_disp(s->acc, a->rdt, s->displs[rb]);
        st = ibex_coll_sendrecv(ibex_coll_disp(s->acc, a->rdt, s->displs[sb]), a->rcounts[sb],
                                a->rdt, right, s->tmp, a->rcounts[rb], a->rdt, left, tag, comm);
        if (st == IBEX_OK)
            st = ibex_coll_apply(a->op, s->tmp, rblock, a->rcounts[rb], a->rdt);
    }
    if (st == IBEX_OK)
        st = ibex_coll_copy(ibex_coll_disp(s->acc, a->rdt, s->displs[rank]), a->rcounts[rank],
                            a->rdt, a->rbuf, a->rcounts[rank], a->rdt);
    return st;
}

ibex_status_t ibex_coll_reduce_scatter_ring(const ibex_coll_args_t *a)
{
    if (!a->op->commutative)
        return ibex_coll_reduce_scatter_reduce_scatterv(a);
    int size = a->comm->size, total = 0, maxc = 0;
    ring_state_t s = {.a = a, .displs = malloc((size_t)size * sizeof(int))};
    if (!s.displs)
        return IBEX_ERR_NO_MEMORY;
    for (int i = 0; i < size; i++) {
        s.displs[i] = total;
        total += a->rcounts[i];
        maxc = a->rcounts[i] > maxc ? a->rcounts[i] : maxc;
    }
    void *acc_base = NULL, *tmp_base = NULL;
    s.acc = ibex_coll_tmp_alloc(a->rdt, total, &acc_base);
    s.tmp = ibex_coll_tmp_alloc(a->rdt, maxc, &tmp_base);
    const void *mine = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    ibex_status_t st = s.acc && s.tmp ? IBEX_OK : IBEX_ERR_NO_MEMORY;
    if (st == IBEX_OK)
        st = ibex_coll_copy(mine, total, a->rdt, s.acc, total, a->rdt);
    if (st == IBEX_OK)
        st = ring_steps(&s);
    free(acc_base);
    free(tmp_base);
    free(s.displs);
    return st;
}

ibex_status_t ibex_coll_reduce_scatter_block_ring(const ibex_coll_args_t *args)
{
    return ibex_coll_rsb_as_rs(args, ibex_coll_reduce_scatter_ring);
}
