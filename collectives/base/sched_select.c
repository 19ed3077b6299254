/* SPDX-License-Identifier: BSD-3-Clause */
/* The schedule of each non-blocking / persistent collective kind: one algorithm per kind. */
#include "coll.h"
#include "coll_sched.h"

static const ibex_sched_build_fn_t builders[IBEX_COLL_KIND_COUNT] = {
    [IBEX_COLL_BARRIER] = ibex_sched_barrier_dissemination,
    [IBEX_COLL_BCAST] = ibex_sched_bcast_binomial,
    [IBEX_COLL_REDUCE] = ibex_sched_reduce_binomial,
    [IBEX_COLL_ALLREDUCE] = ibex_sched_allreduce_recursive_doubling,
    [IBEX_COLL_GATHER] = ibex_sched_gather_linear,
    [IBEX_COLL_SCATTER] = ibex_sched_scatter_linear,
    [IBEX_COLL_ALLGATHER] = ibex_sched_allgather_ring,
    [IBEX_COLL_ALLTOALL] = ibex_sched_alltoall_pairwise,
    [IBEX_COLL_GATHERV] = ibex_sched_gatherv_linear,
    [IBEX_COLL_SCATTERV] = ibex_sched_scatterv_linear,
    [IBEX_COLL_ALLGATHERV] = ibex_sched_allgatherv_ring,
    [IBEX_COLL_ALLTOALLV] = ibex_sched_alltoallv_pairwise,
    [IBEX_COLL_ALLTOALLW] = ibex_sched_alltoallv_pairwise,
    [IBEX_COLL_REDUCE_SCATTER] = ibex_sched_reduce_scatter_tree,
    [IBEX_COLL_REDUCE_SCATTER_BLOCK] = ibex_sched_reduce_scatter_block_tree,
    [IBEX_COLL_SCAN] = ibex_sched_scan_recursive_doubling,
    [IBEX_COLL_EXSCAN] = ibex_sched_exscan_recursive_doubling,
};

ibex_sched_t *ibex_sched_build(int kind, const ibex_coll_args_t *a)
{
    ibex_sched_t *s = ibex_sched_new(a->comm, a->op);
    if (!s)
        return NULL;
    if (kind < 0 || kind >= IBEX_COLL_KIND_COUNT || !builders[kind])
        s->build_error = IBEX_ERR_UNSUPPORTED;
    else
        builders[kind](a, s);
    return s;
}
