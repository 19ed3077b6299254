/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the engine counts for the tools interface's performance variables (engine_stats.c;
 * MPI_T_pvar_* in runtime/mpi/mpit_pvar.c). Every count is a plain increment in a
 * per-process struct (the engine takes no locks: MPI_THREAD_FUNNELED at most): messages and
 * bytes handed to each transport, eager and rendezvous sends, rendezvous bytes moved by put /
 * get, the last algorithm each blocking collective kind chose. Queue lengths and live
 * requests are read from the state the engine keeps anyway, when a tool asks; registration-
 * cache counts from the transport's stats op.
 */
#ifndef IBEX_ENGINE_STATS_H
#define IBEX_ENGINE_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "transport.h"

#define IBEX_STATS_MAX_TL   8  /* transport components counted (registry order) */
#define IBEX_STATS_MAX_COLL 32 /* collective kinds whose last algorithm is kept */

/* One transport component's traffic from this process, kept past its close. */
typedef struct ibex_tl_count {
    unsigned long long msgs;      /* sends handed to the transport (match and control) */
    unsigned long long bytes;     /* their header and payload bytes */
    unsigned long long rma_bytes; /* bytes moved by this process's rendezvous put / get */
} ibex_tl_count_t;

typedef struct ibex_engine_stats {
    size_t unexpected_hwm; /* most bytes of unexpected eager data buffered at once */
    unsigned long long rndv_read, rndv_write, rndv_split; /* rendezvous sends started */
    unsigned long long rndv_pipe;                         /* PIPE rendezvous sends started */
    unsigned long long eager;                             /* eager sends started */
    ibex_tl_count_t tl[IBEX_STATS_MAX_TL];
    ibex_tl_stats_t tl_closed[IBEX_STATS_MAX_TL]; /* transport counts of closed instances */
    /* per collective kind (collectives/base/coll.h): the algorithm (an ibex_coll_algo_t)
     * the last blocking call ran, NULL before the first; set in coll_select.c */
    const void *coll_algo[IBEX_STATS_MAX_COLL];
    /* of them, MPI_Allreduce, MPI_Bcast and MPI_Alltoall calls run by their short paths
     * (IBEX_COLL_SHORT_*, collectives/base/coll_shm.h) */
    unsigned long long coll_short[3];
    /* MPI_Reduce, Allreduce and Reduce_scatter(_block) calls run through the shared accumulator
     * (collectives/base/coll_shm_acc.c) */
    unsigned long long coll_acc;
    /* hosts area: endpoints connected to peers on another node (node ids from PMIx), and those
     * of them over a transport whose data moves by CPU copies (shared memory): must stay 0 */
    unsigned long long eps_offnode, eps_offnode_cpu_copy;
    /* MPI_Comm_idup agreements run again because their second round found nothing
     * (runtime/comm/comm_idup.c) */
    unsigned long long idup_retries;
} ibex_engine_stats_t;

extern ibex_engine_stats_t ibex_engine_stats;
extern size_t ibex_unexpected_bytes; /* proto_recv.c */

static inline void ibex_stats_note_unexpected(void)
{
    if (ibex_unexpected_bytes > ibex_engine_stats.unexpected_hwm)
        ibex_engine_stats.unexpected_hwm = ibex_unexpected_bytes;
}

/* The counts slot of a transport component (a spare one past IBEX_STATS_MAX_TL). */
ibex_tl_count_t *ibex_stats_tl_slot(const ibex_tl_component_t *comp);
/* Keeps an instance's transport counts before it closes (ep.c). */
void ibex_stats_tl_closing(const ibex_tl_component_t *comp, ibex_tl_t *tl);

/* A performance variable of the engine: an unsigned long long read on demand. */
typedef enum {
    IBEX_PVAR_LEVEL,     /* a current amount */
    IBEX_PVAR_SIZE,      /* a current amount of bytes */
    IBEX_PVAR_HIGHWATER, /* the largest value so far */
    IBEX_PVAR_COUNTER,   /* events since start-up; readers count from their own start */
    IBEX_PVAR_STATE,     /* one of an enum's values (the MPI layer's collective states) */
} ibex_pvar_kind_t;

typedef struct ibex_pvar_desc {
    char name[48];
    ibex_pvar_kind_t kind;
    unsigned long long (*read)(int arg);
    int arg; /* given to read: the transport component's index for per-transport ones */
    char desc[160];
} ibex_pvar_desc_t;

/* The i-th performance variable, or NULL past the end: the engine's own, then per
 * transport component (registry order) ibex_<tl>_msgs, _bytes, _rma_bytes, _reg_hits,
 * _reg_misses, _reg_evictions. The list is the same before MPI_Init and after it. */
const ibex_pvar_desc_t *ibex_engine_pvar(int i);

#endif
