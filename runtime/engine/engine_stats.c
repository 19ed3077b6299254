/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine's performance variables: their table and how each is read (ibex_engine_stats.h). */
#include "ibex_engine_stats.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ibex_engine.h"

#include "ibex_match.h"
#include "ibex_p2p.h"
#include "ibex_request.h"

ibex_engine_stats_t ibex_engine_stats;

/* Sum over every context's queue of one of its lists' lengths. */
static unsigned long long queues_sum(bool posted)
{
    unsigned long long n = 0;
    for (int i = 0; i < IBEX_MAX_CONTEXT_IDS; i++) {
        const ibex_match_queue_t *q = ibex_match_queues[i];
        if (q)
            n += posted ? q->posted.length : q->unexpected.length;
    }
    return n;
}

static unsigned long long read_unexpected_msgs(int arg)
{
    (void)arg;
    return queues_sum(false);
}

static unsigned long long read_posted(int arg)
{
    (void)arg;
    return queues_sum(true);
}

static unsigned long long read_unexpected_bytes(int arg)
{
    (void)arg;
    return ibex_unexpected_bytes;
}

static unsigned long long read_unexpected_hwm(int arg)
{
    (void)arg;
    return ibex_engine_stats.unexpected_hwm;
}

/* A plain counter of ibex_engine_stats: arg is its offset there (offsetof). */
static unsigned long long read_counter(int arg)
{
    unsigned long long v;
    memcpy(&v, (const char *)&ibex_engine_stats + arg, sizeof(v));
    return v;
}

#define COUNTER(field) read_counter, (int)offsetof(ibex_engine_stats_t, field)

static unsigned long long read_rndv(int arg)
{
    (void)arg;
    const ibex_engine_stats_t *s = &ibex_engine_stats;
    return s->rndv_read + s->rndv_write + s->rndv_split + s->rndv_pipe;
}

static unsigned long long read_requests(int arg)
{
    (void)arg;
    return ibex_req_active_count > 0 ? (unsigned long long)ibex_req_active_count : 0;
}

static const ibex_pvar_desc_t pvars[] = {
    {"ibex_unexpected_msgs", IBEX_PVAR_LEVEL, read_unexpected_msgs, 0,
     "messages in the unexpected queues (arrived, no matching receive posted yet)"},
    {"ibex_posted_recvs", IBEX_PVAR_LEVEL, read_posted, 0, "receives posted and not yet matched"},
    {"ibex_unexpected_bytes", IBEX_PVAR_SIZE, read_unexpected_bytes, 0,
     "bytes of unexpected eager data buffered (bounded by IBEX_UNEXPECTED_MAX)"},
    {"ibex_unexpected_bytes_hwm", IBEX_PVAR_HIGHWATER, read_unexpected_hwm, 0,
     "most bytes of unexpected eager data buffered at once since start-up"},
    {"ibex_rndv_read", IBEX_PVAR_COUNTER, COUNTER(rndv_read),
     "rendezvous sends started with the READ scheme (the receiver pulls)"},
    {"ibex_rndv_write", IBEX_PVAR_COUNTER, COUNTER(rndv_write),
     "rendezvous sends started with the WRITE scheme (the sender puts after CTS)"},
    {"ibex_rndv_split", IBEX_PVAR_COUNTER, COUNTER(rndv_split),
     "rendezvous sends started with the SPLIT scheme (both sides copy half)"},
    {"ibex_rndv_pipe", IBEX_PVAR_COUNTER, COUNTER(rndv_pipe),
     "rendezvous sends started with the PIPE scheme (fragments through the transport's sends "
     "after the receiver's CTS)"},
    {"ibex_eager_sends", IBEX_PVAR_COUNTER, COUNTER(eager),
     "point-to-point sends that went eager (payload with the match header)"},
    {"ibex_rndv_sends", IBEX_PVAR_COUNTER, read_rndv, 0,
     "point-to-point sends that went rendezvous (any scheme: ibex_rndv_read + _write + _split + "
     "_pipe)"},
    {"ibex_requests_active", IBEX_PVAR_LEVEL, read_requests, 0,
     "requests started and not yet completed (the program's and internal ones)"},
    {"ibex_allreduce_short", IBEX_PVAR_COUNTER, COUNTER(coll_short[0]),
     "MPI_Allreduce calls run by its short path (a predefined op on at most 24 bytes of a "
     "predefined type, on a communicator within one node)"},
    {"ibex_bcast_short", IBEX_PVAR_COUNTER, COUNTER(coll_short[1]),
     "MPI_Bcast calls run by its short path (at most 24 bytes of a predefined type, on a "
     "communicator within one node)"},
    {"ibex_alltoall_short", IBEX_PVAR_COUNTER, COUNTER(coll_short[2]),
     "MPI_Alltoall calls run by its short path (blocks of at most 24 bytes of one predefined "
     "type, on a communicator within one node)"},
    {"ibex_reduce_acc", IBEX_PVAR_COUNTER, COUNTER(coll_acc),
     "MPI_Reduce, Allreduce and Reduce_scatter(_block) calls run through the shared "
     "accumulator (commutative op, past the inline limit, 3 to 16 ranks of one node)"},
    /* hosts area */
    {"ibex_eps_offnode", IBEX_PVAR_COUNTER, COUNTER(eps_offnode),
     "endpoints connected to ranks on other nodes (node ids from the launcher, PMIx)"},
    {"ibex_eps_offnode_cpu_copy", IBEX_PVAR_COUNTER, COUNTER(eps_offnode_cpu_copy),
     "of those, endpoints over a transport that moves data by CPU copies (shared memory): a "
     "correct job has none"},
    {"ibex_idup_retries", IBEX_PVAR_COUNTER, COUNTER(idup_retries),
     "MPI_Comm_idup context agreements run again because another idup held the pairs offered "
     "(idups of one communicator in flight together never need to)"},
};

#define ENGINE_PVARS ((int)(sizeof(pvars) / sizeof(pvars[0])))

/* ---- per transport component ---- */

static ibex_tl_count_t spare_slot; /* for a component past IBEX_STATS_MAX_TL: not shown */

static int tl_index(const ibex_tl_component_t *comp)
{
    for (int i = 0; i < IBEX_STATS_MAX_TL && ibex_tl_component(i); i++)
        if (ibex_tl_component(i) == comp)
            return i;
    return -1;
}

ibex_tl_count_t *ibex_stats_tl_slot(const ibex_tl_component_t *comp)
{
    int i = tl_index(comp);
    return i >= 0 ? &ibex_engine_stats.tl[i] : &spare_slot;
}

static void stats_add(ibex_tl_stats_t *to, const ibex_tl_stats_t *from)
{
    to->reg_hits += from->reg_hits;
    to->reg_misses += from->reg_misses;
    to->reg_evictions += from->reg_evictions;
}

void ibex_stats_tl_closing(const ibex_tl_component_t *comp, ibex_tl_t *tl)
{
    int i = tl_index(comp);
    ibex_tl_stats_t st;
    comp->ops.stats(tl, &st);
    if (i >= 0)
        stats_add(&ibex_engine_stats.tl_closed[i], &st);
}

/* Component c's transport counts: those of closed instances plus the open one's. */
static ibex_tl_stats_t tl_stats(int c)
{
    ibex_tl_stats_t st = ibex_engine_stats.tl_closed[c], now;
    const ibex_tl_inst_t *inst;
    for (int i = 0; (inst = ibex_ep_transport(i)) != NULL; i++)
        if (inst->comp == ibex_tl_component(c)) {
            inst->comp->ops.stats(inst->tl, &now);
            stats_add(&st, &now);
        }
    return st;
}

static unsigned long long read_tl_msgs(int c)
{
    return ibex_engine_stats.tl[c].msgs;
}

static unsigned long long read_tl_bytes(int c)
{
    return ibex_engine_stats.tl[c].bytes;
}

static unsigned long long read_tl_rma(int c)
{
    return ibex_engine_stats.tl[c].rma_bytes;
}

static unsigned long long read_reg_hits(int c)
{
    return tl_stats(c).reg_hits;
}

static unsigned long long read_reg_misses(int c)
{
    return tl_stats(c).reg_misses;
}

static unsigned long long read_reg_evictions(int c)
{
    return tl_stats(c).reg_evictions;
}

static const struct {
    const char *suffix;
    unsigned long long (*read)(int c);
    const char *desc; /* %s: the transport's name */
} tl_vars[] = {
    {"msgs", read_tl_msgs, "messages this process handed to the %s transport (match and control)"},
    {"bytes", read_tl_bytes, "bytes (headers and eager payload) of the messages handed to %s"},
    {"rma_bytes", read_tl_rma, "bytes this process's rendezvous put / get moved over %s"},
    {"reg_hits", read_reg_hits, "memory registrations %s served from its registration cache"},
    {"reg_misses", read_reg_misses, "memory registrations %s made (not in its cache)"},
    {"reg_evictions", read_reg_evictions, "cached registrations %s dropped to make room"},
};
#define TL_VARS ((int)(sizeof(tl_vars) / sizeof(tl_vars[0])))

static ibex_pvar_desc_t tl_pvars[IBEX_STATS_MAX_TL * TL_VARS];
static int tl_pvar_n = -1; /* built on first use: the registry is fixed at link time */

static void tl_pvars_build(void)
{
    tl_pvar_n = 0;
    const ibex_tl_component_t *comp;
    for (int c = 0; c < IBEX_STATS_MAX_TL && (comp = ibex_tl_component(c)) != NULL; c++)
        for (int v = 0; v < TL_VARS; v++) {
            ibex_pvar_desc_t *d = &tl_pvars[tl_pvar_n++];
            snprintf(d->name, sizeof(d->name), "ibex_%s_%s", comp->name, tl_vars[v].suffix);
            snprintf(d->desc, sizeof(d->desc), tl_vars[v].desc, comp->name);
            d->kind = IBEX_PVAR_COUNTER;
            d->read = tl_vars[v].read;
            d->arg = c;
        }
}

const ibex_pvar_desc_t *ibex_engine_pvar(int i)
{
    if (i >= 0 && i < ENGINE_PVARS)
        return &pvars[i];
    if (tl_pvar_n < 0)
        tl_pvars_build();
    return i >= ENGINE_PVARS && i < ENGINE_PVARS + tl_pvar_n ? &tl_pvars[i - ENGINE_PVARS] : NULL;
}
