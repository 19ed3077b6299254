/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The schedule of each non-blocking / persistent collective call: one algorithm per kind, and
 * for Ibcast, and Ireduce / Iallreduce with a commutative op, a ring form once the vector is
 * large. The choice uses
 * only what every rank knows alike (kind, communicator size, the selection key bytes, the op), so
 * all members build matching schedules. SCHED_RING_MIN is not tuned on this machine yet (it
 * was loaded while written); it sits where the ring's 2 (p - 1)/p n beta starts to beat
 * recursive doubling's log2 p n beta by more than its extra rounds cost on shared memory.
 */
#include "coll.h"
#include "coll_sched.h"
#include "ibex_log.h"

#define SCHED_RING_MIN (64 * 1024)

_Static_assert(IBEX_SCHED_TAG_BASE > IBEX_COLL_TAG_MAX,
               "schedule tags must stay above every blocking collective's tag");

typedef struct sched_algo {
    const char *name;
    ibex_sched_build_fn_t fn;
} sched_algo_t;

static const sched_algo_t algos[IBEX_COLL_KIND_COUNT] = {
    [IBEX_COLL_BARRIER] = {"dissemination", ibex_sched_barrier_dissemination},
    [IBEX_COLL_BCAST] = {"binomial", ibex_sched_bcast_binomial},
    [IBEX_COLL_REDUCE] = {"binomial", ibex_sched_reduce_binomial},
    [IBEX_COLL_ALLREDUCE] = {"recursive_doubling", ibex_sched_allreduce_recursive_doubling},
    [IBEX_COLL_GATHER] = {"linear", ibex_sched_gather_linear},
    [IBEX_COLL_SCATTER] = {"linear", ibex_sched_scatter_linear},
    [IBEX_COLL_ALLGATHER] = {"ring", ibex_sched_allgather_ring},
    [IBEX_COLL_ALLTOALL] = {"pairwise", ibex_sched_alltoall_pairwise},
    [IBEX_COLL_GATHERV] = {"linear", ibex_sched_gatherv_linear},
    [IBEX_COLL_SCATTERV] = {"linear", ibex_sched_scatterv_linear},
    [IBEX_COLL_ALLGATHERV] = {"ring", ibex_sched_allgatherv_ring},
    [IBEX_COLL_ALLTOALLV] = {"pairwise", ibex_sched_alltoallv_pairwise},
    [IBEX_COLL_ALLTOALLW] = {"pairwise", ibex_sched_alltoallv_pairwise},
    [IBEX_COLL_REDUCE_SCATTER] = {"ring_or_tree", ibex_sched_reduce_scatter_any},
    [IBEX_COLL_REDUCE_SCATTER_BLOCK] = {"ring_or_tree", ibex_sched_reduce_scatter_block_any},
    [IBEX_COLL_SCAN] = {"recursive_doubling", ibex_sched_scan_recursive_doubling},
    [IBEX_COLL_EXSCAN] = {"recursive_doubling", ibex_sched_exscan_recursive_doubling},
};

static const sched_algo_t inter_algos[IBEX_COLL_KIND_COUNT] = {
    [IBEX_COLL_BARRIER] = {"inter", ibex_sched_inter_barrier},
    [IBEX_COLL_BCAST] = {"inter", ibex_sched_inter_bcast},
    [IBEX_COLL_REDUCE] = {"inter", ibex_sched_inter_reduce},
    [IBEX_COLL_ALLREDUCE] = {"inter", ibex_sched_inter_allreduce},
    [IBEX_COLL_GATHER] = {"inter", ibex_sched_inter_gather},
    [IBEX_COLL_SCATTER] = {"inter", ibex_sched_inter_scatter},
    [IBEX_COLL_ALLGATHER] = {"inter", ibex_sched_inter_allgather},
    [IBEX_COLL_ALLTOALL] = {"inter", ibex_sched_inter_alltoall},
    [IBEX_COLL_GATHERV] = {"inter", ibex_sched_inter_gatherv},
    [IBEX_COLL_SCATTERV] = {"inter", ibex_sched_inter_scatterv},
    [IBEX_COLL_ALLGATHERV] = {"inter", ibex_sched_inter_allgatherv},
    [IBEX_COLL_ALLTOALLV] = {"inter", ibex_sched_inter_alltoallv},
    [IBEX_COLL_ALLTOALLW] = {"inter", ibex_sched_inter_alltoallv},
    [IBEX_COLL_REDUCE_SCATTER] = {"inter", ibex_sched_inter_reduce_scatter},
    [IBEX_COLL_REDUCE_SCATTER_BLOCK] = {"inter", ibex_sched_inter_reduce_scatter_block},
};

static const sched_algo_t ring_allreduce = {"ring", ibex_sched_allreduce_ring};
static const sched_algo_t split_bcast = {"scatter_allgather", ibex_sched_bcast_scatter_allgather};
static const sched_algo_t ring_reduce = {"ring_gather", ibex_sched_reduce_ring_gather};

/* Large vectors at more than two ranks, split in one block per rank: the ring forms move
 * 2 (p - 1)/p n instead of the trees' ceil(log2 p) n. */
static bool split_fits(const ibex_coll_args_t *a, size_t bytes)
{
    return bytes >= SCHED_RING_MIN && a->rcount >= a->comm->size && a->comm->size > 2;
}

static const sched_algo_t *pick(int kind, const ibex_coll_args_t *a, size_t bytes)
{
    if (kind < 0 || kind >= IBEX_COLL_KIND_COUNT || !algos[kind].fn)
        return NULL;
    if (ibex_comm_is_inter(a->comm))
        return inter_algos[kind].fn ? &inter_algos[kind] : NULL;
    if (kind == IBEX_COLL_ALLREDUCE && a->op->commutative && split_fits(a, bytes))
        return &ring_allreduce;
    /* not split_fits: a Bcast's element count is the rank's own (only the signature matches),
     * bytes is the same everywhere */
    if (kind == IBEX_COLL_BCAST && bytes >= SCHED_RING_MIN && a->comm->size > 2)
        return &split_bcast;
    if (kind == IBEX_COLL_REDUCE && a->op->commutative && split_fits(a, bytes))
        return &ring_reduce;
    return &algos[kind];
}

ibex_sched_t *ibex_sched_build(int kind, const ibex_coll_args_t *a, size_t bytes)
{
    ibex_sched_t *s = ibex_sched_new(a->comm, a->op);
    if (!s)
        return NULL;
    /* both groups count the same sequence, so both skip the same schedule's tag */
    if (ibex_comm_is_inter(a->comm) && s->tag == IBEX_SCHED_INTER_RESERVED_TAG)
        s->tag = IBEX_SCHED_TAG_BASE + (int)((unsigned)a->comm->coll_tag++ % IBEX_SCHED_TAG_SPAN);
    const sched_algo_t *al = pick(kind, a, bytes);
    if (!al) {
        s->build_error = IBEX_ERR_UNSUPPORTED;
        return s;
    }
    al->fn(a, s);
    ibex_debug(COLL, "schedule %s %s on context %u: %d steps, tag %d",
               ibex_coll_kind_name((ibex_coll_kind_t)kind), al->name, a->comm->context_id,
               s->nsteps, s->tag);
    return s;
}
