/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Algorithm selection: one table of rules (collective, communicator size, message bytes) ->
 * algorithm, read top to bottom, first fit wins. Each collective has one algorithm today; a
 * new algorithm is a new file, one line in `algorithms` and the rules that choose it.
 * Any algorithm can be forced by name (ibex_coll_force), which the tests use to run every
 * algorithm; the IBEX_COLL_<KIND> variables (one per collective, from IBEX_COLL_KIND_LIST) call
 * the same.
 */
#include <ctype.h>
#include <stdio.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "coll.h"
#include "coll_shm.h"
#include "ibex_blocked_rec.h"
#include "coll_tuned.h"
#include "ibex_config.h"
#include "ibex_engine_stats.h"
#include "ibex_log.h"

static const ibex_coll_algo_t algorithms[] = {
    {"dissemination", IBEX_COLL_BARRIER, ibex_coll_barrier_dissemination},
    {"binomial", IBEX_COLL_BCAST, ibex_coll_bcast_binomial},
    {"binomial", IBEX_COLL_REDUCE, ibex_coll_reduce_binomial},
    {"recursive_doubling", IBEX_COLL_ALLREDUCE, ibex_coll_allreduce_recursive_doubling},
    {"reduce_bcast", IBEX_COLL_ALLREDUCE, ibex_coll_allreduce_reduce_bcast},
    {"linear", IBEX_COLL_GATHER, ibex_coll_gather_linear},
    {"linear", IBEX_COLL_SCATTER, ibex_coll_scatter_linear},
    {"ring", IBEX_COLL_ALLGATHER, ibex_coll_allgather_ring},
    {"pairwise", IBEX_COLL_ALLTOALL, ibex_coll_alltoall_pairwise},
    /* more algorithms for the first kinds */
    {"scatter_allgather", IBEX_COLL_BCAST, ibex_coll_bcast_scatter_allgather},
    {"rabenseifner", IBEX_COLL_ALLREDUCE, ibex_coll_allreduce_rabenseifner},
    {"rabenseifner", IBEX_COLL_REDUCE, ibex_coll_reduce_rabenseifner},
    {"binomial", IBEX_COLL_GATHER, ibex_coll_gather_binomial},
    {"binomial", IBEX_COLL_SCATTER, ibex_coll_scatter_binomial},
    {"bruck", IBEX_COLL_ALLGATHER, ibex_coll_allgather_bruck},
    {"bruck", IBEX_COLL_ALLTOALL, ibex_coll_alltoall_bruck},
    /* the vector, reduce-scatter and scan kinds */
    {"linear", IBEX_COLL_GATHERV, ibex_coll_gatherv_linear},
    {"linear", IBEX_COLL_SCATTERV, ibex_coll_scatterv_linear},
    {"ring", IBEX_COLL_ALLGATHERV, ibex_coll_allgatherv_ring},
    {"bruck", IBEX_COLL_ALLGATHERV, ibex_coll_allgatherv_bruck},
    {"pairwise", IBEX_COLL_ALLTOALLV, ibex_coll_alltoallv_pairwise},
    {"scattered", IBEX_COLL_ALLTOALLV, ibex_coll_alltoallv_scattered},
    {"pairwise", IBEX_COLL_ALLTOALLW, ibex_coll_alltoallw_pairwise},
    {"scattered", IBEX_COLL_ALLTOALLW, ibex_coll_alltoallw_scattered},
    {"reduce_scatterv", IBEX_COLL_REDUCE_SCATTER, ibex_coll_reduce_scatter_reduce_scatterv},
    {"ring", IBEX_COLL_REDUCE_SCATTER, ibex_coll_reduce_scatter_ring},
    {"reduce_scatterv", IBEX_COLL_REDUCE_SCATTER_BLOCK,
     ibex_coll_reduce_scatter_block_reduce_scatterv},
    {"ring", IBEX_COLL_REDUCE_SCATTER_BLOCK, ibex_coll_reduce_scatter_block_ring},
    {"recursive_doubling", IBEX_COLL_SCAN, ibex_coll_scan_recursive_doubling},
    {"linear", IBEX_COLL_SCAN, ibex_coll_scan_linear},
    {"recursive_doubling", IBEX_COLL_EXSCAN, ibex_coll_exscan_recursive_doubling},
    {"linear", IBEX_COLL_EXSCAN, ibex_coll_exscan_linear},
    /* shared-memory native and hierarchical (collshm): chosen by span, see the rules */
    {"shmem", IBEX_COLL_BARRIER, ibex_coll_barrier_shm, IBEX_COLL_SPAN_NODE},
    {"shmem", IBEX_COLL_BCAST, ibex_coll_bcast_shm, IBEX_COLL_SPAN_NODE, 1 + IBEX_COLL_SHORT_BCAST},
    {"shmem", IBEX_COLL_REDUCE, ibex_coll_reduce_shm, IBEX_COLL_SPAN_NODE},
    {"shmem", IBEX_COLL_ALLREDUCE, ibex_coll_allreduce_shm, IBEX_COLL_SPAN_NODE,
     1 + IBEX_COLL_SHORT_ALLREDUCE},
    {"shmem", IBEX_COLL_GATHER, ibex_coll_gather_shm, IBEX_COLL_SPAN_NODE},
    {"shmem", IBEX_COLL_ALLGATHER, ibex_coll_allgather_shm, IBEX_COLL_SPAN_NODE},
    {"shmem", IBEX_COLL_SCATTER, ibex_coll_scatter_shm, IBEX_COLL_SPAN_NODE},
    {"shmem", IBEX_COLL_ALLTOALL, ibex_coll_alltoall_shm, IBEX_COLL_SPAN_NODE,
     1 + IBEX_COLL_SHORT_ALLTOALL},
    {"hier", IBEX_COLL_BARRIER, ibex_coll_barrier_hier, IBEX_COLL_SPAN_NODES},
    {"hier", IBEX_COLL_BCAST, ibex_coll_bcast_hier, IBEX_COLL_SPAN_NODES},
    {"hier", IBEX_COLL_REDUCE, ibex_coll_reduce_hier, IBEX_COLL_SPAN_NODES},
    {"hier", IBEX_COLL_ALLREDUCE, ibex_coll_allreduce_hier, IBEX_COLL_SPAN_NODES},
    /* shared memory on oversubscribed nodes (coll10): fewer flag rounds */
    {"shmem_root", IBEX_COLL_REDUCE, ibex_coll_reduce_shm_root, IBEX_COLL_SPAN_NODE},
    {"shmem_fanin", IBEX_COLL_BARRIER, ibex_coll_barrier_shm_fanin, IBEX_COLL_SPAN_NODE},
    {"shmem", IBEX_COLL_REDUCE_SCATTER, ibex_coll_reduce_scatter_shm, IBEX_COLL_SPAN_NODE},
    {"shmem", IBEX_COLL_REDUCE_SCATTER_BLOCK, ibex_coll_reduce_scatter_block_shm,
     IBEX_COLL_SPAN_NODE},
    /* the v forms in shared memory: each block's way fixed by its own size (coll, issue 10) */
    {"shmem", IBEX_COLL_GATHERV, ibex_coll_gatherv_shm, IBEX_COLL_SPAN_NODE},
    {"shmem", IBEX_COLL_SCATTERV, ibex_coll_scatterv_shm, IBEX_COLL_SPAN_NODE},
    {"shmem", IBEX_COLL_SCAN, ibex_coll_scan_shm, IBEX_COLL_SPAN_NODE},
    {"shmem", IBEX_COLL_EXSCAN, ibex_coll_exscan_shm, IBEX_COLL_SPAN_NODE},
    /* through the staging slots (coll12): no process_vm_readv, no wait for readers */
    {"shmem_staged", IBEX_COLL_ALLGATHER, ibex_coll_allgather_shm_staged, IBEX_COLL_SPAN_NODE},
    /* Allgatherv as the Allgathers, each block's way by its own size (collv12) */
    {"shmem", IBEX_COLL_ALLGATHERV, ibex_coll_allgatherv_shm, IBEX_COLL_SPAN_NODE},
    {"shmem_staged", IBEX_COLL_ALLGATHERV, ibex_coll_allgatherv_shm_staged, IBEX_COLL_SPAN_NODE},
    /* Alltoallv / Alltoallw as the Alltoall, through a table in each sender's slot (collv12) */
    {"shmem", IBEX_COLL_ALLTOALLV, ibex_coll_alltoallv_shm, IBEX_COLL_SPAN_NODE},
    {"shmem", IBEX_COLL_ALLTOALLW, ibex_coll_alltoallw_shm, IBEX_COLL_SPAN_NODE},
};
#define ALGO_COUNT ((int)(sizeof(algorithms) / sizeof(algorithms[0])))

/* IBEX_COLL_<KIND>: an algorithm name per collective, or "auto". */
static char *coll_algo[IBEX_COLL_KIND_COUNT];

#define COLL_CFG_ROW(name, text)                                                                   \
    {"COLL_" #name,                                                                                \
     IBEX_CFG_STRING,                                                                              \
     "auto",                                                                                       \
     NULL,                                                                                         \
     &coll_algo[IBEX_COLL_##name],                                                                 \
     text " algorithm: auto (chosen by communicator size and bytes) or a name from ibex_info"},
static const ibex_cfg_entry_t coll_table[] = {IBEX_COLL_KIND_LIST(COLL_CFG_ROW)};
#undef COLL_CFG_ROW
IBEX_CFG_MODULE(coll, "coll", IBEX_CFG_LAYER_COLL, coll_table);

typedef struct coll_rule {
    ibex_coll_kind_t kind;
    int max_comm_size; /* rule applies when comm size <= this */
    size_t max_bytes;  /* ... and the per-rank message bytes <= this */
    const char *algo;
} coll_rule_t;

/* The size crossovers are the published ones (MPICH's defaults: Thakur, Rabenseifner and Gropp,
 * "Optimization of collective communication operations in MPICH", 2005), not yet measured on
 * this machine; bytes is the selection key described in coll.h. */
/* A rule naming an algorithm of a span (ibex_coll_span_t) applies only to a communicator of
 * that span. */
static const coll_rule_t rules[] = {
    /* shared-memory native, node-local communicators (collshm): up to 64 ranks, every size
     * (measured against the point-to-point algorithms in collectives/README.md) */
    {IBEX_COLL_BARRIER, 64, SIZE_MAX, "shmem"},
    {IBEX_COLL_BCAST, 64, SIZE_MAX, "shmem"},
    {IBEX_COLL_REDUCE, 64, SIZE_MAX, "shmem"},
    {IBEX_COLL_ALLREDUCE, 64, SIZE_MAX, "shmem"},
    {IBEX_COLL_GATHER, 64, SIZE_MAX, "shmem"},
    {IBEX_COLL_ALLGATHER, 64, SIZE_MAX, "shmem"},
    {IBEX_COLL_SCATTER, 64, SIZE_MAX, "shmem"},
    {IBEX_COLL_ALLTOALL, 64, SIZE_MAX, "shmem"},
    {IBEX_COLL_REDUCE_SCATTER, 64, SIZE_MAX, "shmem"}, /* (coll10) */
    {IBEX_COLL_REDUCE_SCATTER_BLOCK, 64, SIZE_MAX, "shmem"},
    {IBEX_COLL_GATHERV, 64, SIZE_MAX, "shmem"},    /* (coll, issue 10: the root of a small */
    {IBEX_COLL_SCATTERV, 64, SIZE_MAX, "shmem"},   /* Scatterv / leaves of a Gatherv never wait) */
    {IBEX_COLL_SCAN, 64, SIZE_MAX, "shmem"},       /* (coll: rank r waits only for ranks < r; */
    {IBEX_COLL_EXSCAN, 64, SIZE_MAX, "shmem"},     /* past the inline limit recursive doubling) */
    {IBEX_COLL_ALLGATHERV, 64, SIZE_MAX, "shmem"}, /* (collv12: as Allgather, block by block) */
    /* several nodes, more than one rank on some: shared memory inside, leaders between */
    {IBEX_COLL_BARRIER, INT_MAX, SIZE_MAX, "hier"},
    {IBEX_COLL_BCAST, INT_MAX, SIZE_MAX, "hier"},
    {IBEX_COLL_REDUCE, INT_MAX, SIZE_MAX, "hier"},
    {IBEX_COLL_ALLREDUCE, INT_MAX, SIZE_MAX, "hier"},
    {IBEX_COLL_BARRIER, INT_MAX, SIZE_MAX, "dissemination"},
    {IBEX_COLL_BCAST, 7, SIZE_MAX, "binomial"},    /* few ranks: the tree is short */
    {IBEX_COLL_BCAST, INT_MAX, 12288, "binomial"}, /* small: latency */
    {IBEX_COLL_BCAST, INT_MAX, SIZE_MAX, "scatter_allgather"},
    {IBEX_COLL_REDUCE, INT_MAX, 2048, "binomial"},         /* small, or non-commutative: */
    {IBEX_COLL_REDUCE, INT_MAX, SIZE_MAX, "rabenseifner"}, /* (it falls back to binomial) */
    {IBEX_COLL_ALLREDUCE, INT_MAX, 2048, "recursive_doubling"},
    {IBEX_COLL_ALLREDUCE, INT_MAX, SIZE_MAX, "rabenseifner"}, /* (non-commutative: r. d.) */
    {IBEX_COLL_GATHER, 3, SIZE_MAX, "linear"},                /* a tree of 3 is no shorter */
    {IBEX_COLL_GATHER, INT_MAX, 32768, "binomial"},
    {IBEX_COLL_GATHER, INT_MAX, SIZE_MAX, "linear"}, /* large: no forwarding copies */
    {IBEX_COLL_SCATTER, 3, SIZE_MAX, "linear"},
    {IBEX_COLL_SCATTER, INT_MAX, 32768, "binomial"},
    {IBEX_COLL_SCATTER, INT_MAX, SIZE_MAX, "linear"},
    {IBEX_COLL_ALLGATHER, 2, SIZE_MAX, "ring"}, /* one exchange either way */
    {IBEX_COLL_ALLGATHER, INT_MAX, 8192, "bruck"},
    {IBEX_COLL_ALLGATHER, INT_MAX, SIZE_MAX, "ring"},
    {IBEX_COLL_ALLTOALL, 7, SIZE_MAX, "pairwise"},
    {IBEX_COLL_ALLTOALL, INT_MAX, 256, "bruck"}, /* small blocks, many ranks */
    {IBEX_COLL_ALLTOALL, INT_MAX, SIZE_MAX, "pairwise"},
    /* the vector, reduce-scatter and scan kinds */
    {IBEX_COLL_GATHERV, INT_MAX, SIZE_MAX, "linear"},
    {IBEX_COLL_SCATTERV, INT_MAX, SIZE_MAX, "linear"},
    {IBEX_COLL_ALLGATHERV, 2, SIZE_MAX, "ring"}, /* as Allgather, on the mean block */
    {IBEX_COLL_ALLGATHERV, INT_MAX, 8192, "bruck"},
    {IBEX_COLL_ALLGATHERV, INT_MAX, SIZE_MAX, "ring"},
    {IBEX_COLL_ALLTOALLV, INT_MAX, SIZE_MAX, "scattered"}, /* (in place: pairwise) */
    {IBEX_COLL_ALLTOALLW, INT_MAX, SIZE_MAX, "scattered"},
    {IBEX_COLL_REDUCE_SCATTER, 2, SIZE_MAX, "ring"}, /* one exchange, no tree to climb */
    {IBEX_COLL_REDUCE_SCATTER, INT_MAX, 16384, "reduce_scatterv"},
    {IBEX_COLL_REDUCE_SCATTER, INT_MAX, SIZE_MAX, "ring"},
    {IBEX_COLL_REDUCE_SCATTER_BLOCK, 2, SIZE_MAX, "ring"},
    {IBEX_COLL_REDUCE_SCATTER_BLOCK, INT_MAX, 16384, "reduce_scatterv"},
    {IBEX_COLL_REDUCE_SCATTER_BLOCK, INT_MAX, SIZE_MAX, "ring"},
    {IBEX_COLL_SCAN, INT_MAX, SIZE_MAX, "recursive_doubling"},
    {IBEX_COLL_EXSCAN, INT_MAX, SIZE_MAX, "recursive_doubling"},
};
#define RULE_COUNT ((int)(sizeof(rules) / sizeof(rules[0])))

static const ibex_coll_algo_t *forced[IBEX_COLL_KIND_COUNT];
static void compile_rules(void);

const char *ibex_coll_kind_name(ibex_coll_kind_t kind)
{
#define IBEX_COLL_KIND_STR(name, text) [IBEX_COLL_##name] = text,
    static const char *names[] = {IBEX_COLL_KIND_LIST(IBEX_COLL_KIND_STR)};
#undef IBEX_COLL_KIND_STR
    return (unsigned)kind < IBEX_COLL_KIND_COUNT ? names[kind] : "?";
}

static const ibex_coll_algo_t *algo_find(ibex_coll_kind_t kind, const char *name)
{
    for (int i = 0; i < ALGO_COUNT; i++)
        if (algorithms[i].kind == kind && strcasecmp(algorithms[i].name, name) == 0)
            return &algorithms[i];
    return NULL;
}

int ibex_coll_algo_count(ibex_coll_kind_t kind)
{
    int n = 0;
    for (int i = 0; i < ALGO_COUNT; i++)
        n += algorithms[i].kind == kind;
    return n;
}

const ibex_coll_algo_t *ibex_coll_algo_at(ibex_coll_kind_t kind, int i)
{
    for (int j = 0; j < ALGO_COUNT; j++)
        if (algorithms[j].kind == kind && i-- == 0)
            return &algorithms[j];
    return NULL;
}

void ibex_coll_algo_names(ibex_coll_kind_t kind, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < ibex_coll_algo_count(kind) && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                         ibex_coll_algo_at(kind, i)->name);
        used += n > 0 ? (size_t)n : 0;
    }
}

unsigned ibex_coll_select_epoch = 1;

ibex_status_t ibex_coll_force(ibex_coll_kind_t kind, const char *name)
{
    if ((unsigned)kind >= IBEX_COLL_KIND_COUNT)
        return IBEX_ERR_INVALID;
    ibex_coll_select_epoch++;
    if (!name || strcasecmp(name, "auto") == 0) {
        forced[kind] = NULL;
        return IBEX_OK;
    }
    const ibex_coll_algo_t *algo = algo_find(kind, name);
    if (!algo)
        return IBEX_ERR_INVALID; /* the caller names the variable in its message */
    forced[kind] = algo;
    return IBEX_OK;
}

/* Applies IBEX_COLL_<KIND> (coll_algo[], loaded by ibex_config_load). */
ibex_status_t ibex_coll_init(void)
{
    compile_rules();
    ibex_status_t result = IBEX_OK;
    for (int k = 0; k < IBEX_COLL_KIND_COUNT; k++) {
        const char *name = coll_algo[k];
        if (ibex_coll_force((ibex_coll_kind_t)k, name) == IBEX_OK)
            continue;
        char var[32];
        const char *kname = ibex_coll_kind_name((ibex_coll_kind_t)k);
        size_t i = 0;
        for (; kname[i] && i < sizeof(var) - 1; i++)
            var[i] = (char)toupper((unsigned char)kname[i]);
        var[i] = '\0';
        char names[256];
        ibex_coll_algo_names((ibex_coll_kind_t)k, names, sizeof(names));
        ibex_error(COLL, "IBEX_COLL_%s='%s' is not a %s algorithm: valid are auto, %s", var, name,
                   kname, names);
        result = IBEX_ERR_INVALID;
    }
    return result;
}

/* The selection compiled once (names resolved, per collective): its measured rows
 * (coll_tuned.h) then its default rules, in table order. Looking an algorithm up by name on
 * every call cost more than the small collectives it chose (339 instructions of an 8-byte
 * Allreduce in strcasecmp and table walks). */
typedef struct compiled_rule {
    int max_comm_size;
    int oversub; /* -1: any; else 1 for oversubscribed communicators only, 0 for the others */
    size_t max_bytes;
    const ibex_coll_algo_t *algo;
} compiled_rule_t;

#define TUNED_COUNT ((int)(sizeof(ibex_coll_tuned) / sizeof(ibex_coll_tuned[0])))
static compiled_rule_t compiled[TUNED_COUNT + RULE_COUNT];
static int compiled_first[IBEX_COLL_KIND_COUNT], compiled_count[IBEX_COLL_KIND_COUNT];
static int compiled_done; /* read and written with atomics: a lazy first call may race */

static int compile_kind(ibex_coll_kind_t kind, int n)
{
    for (int i = 0; i < TUNED_COUNT; i++) {
        const ibex_coll_tuned_t *t = &ibex_coll_tuned[i];
        const ibex_coll_algo_t *algo = t->kind == kind ? algo_find(kind, t->algo) : NULL;
        if (algo)
            compiled[n++] = (compiled_rule_t){t->max_comm_size, t->oversub == IBEX_COLL_OVERSUB_YES,
                                              t->max_bytes, algo};
    }
    for (int i = 0; i < RULE_COUNT; i++) {
        const coll_rule_t *r = &rules[i];
        if (r->kind != kind)
            continue;
        const ibex_coll_algo_t *algo = algo_find(kind, r->algo);
        ibex_assert(algo && "every rule names an algorithm of its collective");
        compiled[n++] = (compiled_rule_t){r->max_comm_size, -1, r->max_bytes, algo};
    }
    return n;
}

/* Idempotent: two threads compiling at once write the same values. */
static void compile_rules(void)
{
    if (__atomic_load_n(&compiled_done, __ATOMIC_ACQUIRE))
        return;
    int n = 0;
    for (int k = 0; k < IBEX_COLL_KIND_COUNT; k++) {
        compiled_first[k] = n;
        n = compile_kind((ibex_coll_kind_t)k, n);
        compiled_count[k] = n - compiled_first[k];
    }
    __atomic_store_n(&compiled_done, 1, __ATOMIC_RELEASE);
}

/* The first row that fits: the measured rows, then the defaults; a row naming an algorithm of
 * a span (ibex_coll_span_t) applies only to a communicator of that span. */
static const ibex_coll_algo_t *select_rule(ibex_coll_kind_t kind, int comm_size, size_t bytes,
                                           ibex_coll_span_t span, bool oversub)
{
    compile_rules();
    const compiled_rule_t *r = &compiled[compiled_first[kind]];
    for (int i = 0; i < compiled_count[kind]; i++, r++) {
        if (comm_size > r->max_comm_size || bytes > r->max_bytes ||
            (r->oversub >= 0 && r->oversub != (int)oversub))
            continue;
        if (r->algo->span == IBEX_COLL_SPAN_ANY || r->algo->span == span)
            return r->algo;
    }
    ibex_assert(!"every collective has a catch-all rule");
    return NULL;
}

/* The last choice of each kind on this thread. The rules are a pure function of (kind, size,
 * bytes, span, oversubscribed), and a program calls the same collective on the same kind of
 * communicator with the same bytes again and again, and a hit costs a handful of loads where
 * even the compiled rows cost about 50 instructions (walking them with names compared by
 * strcasecmp, before they were compiled, cost about 500). Per thread, so concurrent collectives of
 * MPI_THREAD_MULTIPLE never read a half-written entry. */
typedef struct select_memo {
    const ibex_coll_algo_t *algo;
    size_t bytes;
    int comm_size;
    ibex_coll_span_t span;
    bool oversub;
} select_memo_t;
static __thread select_memo_t memo[IBEX_COLL_KIND_COUNT] __attribute__((tls_model("initial-exec")));

static const ibex_coll_algo_t *select_memo(ibex_coll_kind_t kind, int comm_size, size_t bytes,
                                           ibex_coll_span_t span, bool oversub)
{
    select_memo_t *m = &memo[kind];
    if (m->algo && m->comm_size == comm_size && m->bytes == bytes && m->span == span &&
        m->oversub == oversub)
        return m->algo;
    const ibex_coll_algo_t *algo = select_rule(kind, comm_size, bytes, span, oversub);
    *m = (select_memo_t){algo, bytes, comm_size, span, oversub};
    return algo;
}

/* Without a communicator: the rules for any span. */
const ibex_coll_algo_t *ibex_coll_select(ibex_coll_kind_t kind, int comm_size, size_t bytes)
{
    if (forced[kind])
        return forced[kind];
    return select_rule(kind, comm_size, bytes, IBEX_COLL_SPAN_ANY, false);
}

ibex_status_t ibex_coll_fallback(ibex_coll_kind_t kind, const ibex_coll_args_t *args, size_t bytes)
{
    bool oversub = ibex_coll_comm_oversub(args->comm);
    return select_rule(kind, args->comm->size, bytes, IBEX_COLL_SPAN_ANY, oversub)->fn(args);
}

ibex_status_t ibex_coll_run(ibex_coll_kind_t kind, const ibex_coll_args_t *args, size_t bytes)
{
    const ibex_coll_algo_t *algo =
        forced[kind] ? forced[kind]
                     : select_memo(kind, args->comm->size, bytes, ibex_coll_comm_span(args->comm),
                                   ibex_coll_comm_oversub(args->comm));
    ibex_trace(COLL, "%s %s: %d ranks, %zu bytes", ibex_coll_kind_name(kind), algo->name,
               args->comm->size, bytes);
    ibex_engine_stats.coll_algo[kind] = algo; /* MPI_T: ibex_coll_<kind>_algorithm */
    ibex_blk_coll_enter(algo->name, args->comm);
    bool noting = __builtin_expect(algo->short_kind != 0, 0) && bytes <= IBEX_COLL_SHM_TINY;
    const ibex_coll_shm_t *seg = noting ? (ibex_coll_shm_t *)args->comm->coll_shm : NULL;
    uint64_t g0 = seg ? seg->gen : 0;
    ibex_status_t st = algo->fn(args);
    ibex_blk_coll_leave();
    if (noting && st == IBEX_OK)
        ibex_coll_shm_short_note(args, algo, bytes, g0);
    return st;
}
