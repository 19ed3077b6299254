/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allreduce over several nodes (base/coll_hier.c): a shared-memory reduce to each node's
 * leader, the table's allreduce between the leaders (in place), a shared-memory bcast from the
 * leader. Cost: shared-memory reduce + bcast inside the node + the leaders' allreduce over
 * `nodes` ranks, against log2 p network steps flat. Rank order holds when the nodes are
 * consecutive blocks of ranks (the node reduce folds in node order, the leaders in node
 * order); a non-commutative op on interleaved nodes runs the flat algorithm instead.
 */
#include "coll_shm.h"
#include "ibex_datatype.h"

ibex_status_t ibex_coll_allreduce_hier(const ibex_coll_args_t *a)
{
    size_t bytes = (size_t)a->rcount * ibex_dt_get(a->rdt)->size;
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_hier_get(a->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg || (!a->op->commutative && !seg->hier_ordered))
        return ibex_coll_fallback(IBEX_COLL_ALLREDUCE, a, bytes);
    bool leader = seg->leaders != NULL;
    ibex_coll_args_t node = *a, leaders = *a;
    node.comm = seg->node;
    node.root = 0;
    if (!leader && a->sbuf == MPI_IN_PLACE)
        node.sbuf = a->rbuf; /* only read: a non-root's send buffer */
    st = ibex_coll_reduce_shm(&node);
    leaders.comm = seg->leaders;
    leaders.sbuf = MPI_IN_PLACE;
    if (st == IBEX_OK && leader)
        st = ibex_coll_fallback(IBEX_COLL_ALLREDUCE, &leaders, bytes);
    if (st == IBEX_OK)
        st = ibex_coll_bcast_shm(&node);
    return st;
}
