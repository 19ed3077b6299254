/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduce over several nodes (base/coll_hier.c): a shared-memory reduce to each node's leader,
 * the table's reduce between the leaders to the root's leader, which sends the result to the
 * root if it is not the root itself. Cost: shared-memory reduce + the leaders' reduce over
 * `nodes` ranks (+ alpha + n beta inside the root's node). Rank order as in allreduce_hier.c.
 */
#include <stdlib.h>

#include "coll_shm.h"
#include "ibex_datatype.h"
#include "ibex_p2p.h"

/* Leaders: the node result in `res`, reduced to the root's leader (in place there). */
static ibex_status_t reduce_leaders(ibex_coll_shm_t *seg, const ibex_coll_args_t *a, void *res,
                                    size_t bytes)
{
    ibex_coll_args_t l = *a;
    l.comm = seg->leaders;
    l.root = seg->leader_index[a->root];
    bool lroot = seg->leader_of[a->root] == a->comm->rank;
    l.sbuf = lroot ? MPI_IN_PLACE : res;
    l.rbuf = lroot ? res : NULL;
    return ibex_coll_fallback(IBEX_COLL_REDUCE, &l, bytes);
}

static ibex_status_t reduce_run(ibex_coll_shm_t *seg, const ibex_coll_args_t *a, size_t bytes)
{
    int me = a->comm->rank, rl = seg->leader_of[a->root], tag = IBEX_COLL_TAG(IBEX_COLL_REDUCE);
    bool leader = seg->leaders != NULL;
    void *base = NULL, *res = me == a->root ? a->rbuf : NULL;
    if (leader && !res && !(res = ibex_coll_tmp_alloc(a->rdt, a->rcount, &base)))
        return IBEX_ERR_NO_MEMORY;
    ibex_coll_args_t node = *a;
    node.comm = seg->node;
    node.root = 0;
    node.rbuf = res;
    if (a->sbuf == MPI_IN_PLACE && !leader)
        node.sbuf = a->rbuf; /* the root, not its node's leader: its data is in rbuf */
    ibex_status_t st = ibex_coll_reduce_shm(&node);
    if (st == IBEX_OK && leader)
        st = reduce_leaders(seg, a, res, bytes);
    if (st == IBEX_OK && rl != a->root && me == rl)
        st = ibex_coll_send(res, a->rcount, a->rdt, a->root, tag, a->comm);
    if (st == IBEX_OK && rl != a->root && me == a->root)
        st = ibex_coll_recv(a->rbuf, a->rcount, a->rdt, rl, tag, a->comm);
    free(base);
    return st;
}

ibex_status_t ibex_coll_reduce_hier(const ibex_coll_args_t *a)
{
    size_t bytes = (size_t)a->rcount * ibex_dt_get(a->rdt)->size;
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_hier_get(a->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg || (!a->op->commutative && !seg->hier_ordered))
        return ibex_coll_fallback(IBEX_COLL_REDUCE, a, bytes);
    return reduce_run(seg, a, bytes);
}
