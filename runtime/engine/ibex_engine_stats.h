/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the engine counts for the tools interface's performance variables (engine_stats.c;
 * MPI_T_pvar_* in runtime/mpi/mpit_pvar.c). Only off the eager fast path: unexpected
 * messages, rendezvous starts; queue lengths and live requests are read from the state the
 * engine keeps anyway, when a tool asks.
 */
#ifndef IBEX_ENGINE_STATS_H
#define IBEX_ENGINE_STATS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ibex_engine_stats {
    size_t unexpected_hwm; /* most bytes of unexpected eager data buffered at once */
    unsigned long long rndv_read, rndv_write, rndv_split; /* rendezvous sends started */
    /* hosts area: endpoints connected to peers on another node (node ids from PMIx), and those
     * of them over a transport whose data moves by CPU copies (shared memory): must stay 0 */
    unsigned long long eps_offnode, eps_offnode_cpu_copy;
} ibex_engine_stats_t;

extern ibex_engine_stats_t ibex_engine_stats;
extern size_t ibex_unexpected_bytes; /* proto_recv.c */

static inline void ibex_stats_note_unexpected(void)
{
    if (ibex_unexpected_bytes > ibex_engine_stats.unexpected_hwm)
        ibex_engine_stats.unexpected_hwm = ibex_unexpected_bytes;
}

/* A performance variable of the engine: an unsigned long long read on demand. */
typedef enum {
    IBEX_PVAR_LEVEL,     /* a current amount */
    IBEX_PVAR_SIZE,      /* a current amount of bytes */
    IBEX_PVAR_HIGHWATER, /* the largest value so far */
    IBEX_PVAR_COUNTER,   /* events since start-up; readers count from their own start */
} ibex_pvar_kind_t;

typedef struct ibex_pvar_desc {
    const char *name;
    ibex_pvar_kind_t kind;
    unsigned long long (*read)(void);
    const char *desc;
} ibex_pvar_desc_t;

/* The i-th performance variable, or NULL past the end. */
const ibex_pvar_desc_t *ibex_engine_pvar(int i);

#endif
