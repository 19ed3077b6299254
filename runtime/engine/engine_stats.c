/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine's performance variables: their table and how each is read (ibex_engine_stats.h). */
#include "ibex_engine_stats.h"

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

static unsigned long long read_unexpected_msgs(void)
{
    return queues_sum(false);
}

static unsigned long long read_posted(void)
{
    return queues_sum(true);
}

static unsigned long long read_unexpected_bytes(void)
{
    return ibex_unexpected_bytes;
}

static unsigned long long read_unexpected_hwm(void)
{
    return ibex_engine_stats.unexpected_hwm;
}

static unsigned long long read_rndv_read(void)
{
    return ibex_engine_stats.rndv_read;
}

static unsigned long long read_rndv_write(void)
{
    return ibex_engine_stats.rndv_write;
}

static unsigned long long read_rndv_split(void)
{
    return ibex_engine_stats.rndv_split;
}

static unsigned long long read_eps_offnode(void)
{
    return ibex_engine_stats.eps_offnode;
}

static unsigned long long read_eps_offnode_cpu(void)
{
    return ibex_engine_stats.eps_offnode_cpu_copy;
}

static unsigned long long read_requests(void)
{
    return ibex_req_active_count > 0 ? (unsigned long long)ibex_req_active_count : 0;
}

static const ibex_pvar_desc_t pvars[] = {
    {"ibex_unexpected_msgs", IBEX_PVAR_LEVEL, read_unexpected_msgs,
     "messages in the unexpected queues (arrived, no matching receive posted yet)"},
    {"ibex_posted_recvs", IBEX_PVAR_LEVEL, read_posted, "receives posted and not yet matched"},
    {"ibex_unexpected_bytes", IBEX_PVAR_SIZE, read_unexpected_bytes,
     "bytes of unexpected eager data buffered (bounded by IBEX_UNEXPECTED_MAX)"},
    {"ibex_unexpected_bytes_hwm", IBEX_PVAR_HIGHWATER, read_unexpected_hwm,
     "most bytes of unexpected eager data buffered at once since start-up"},
    {"ibex_rndv_read", IBEX_PVAR_COUNTER, read_rndv_read,
     "rendezvous sends started with the READ scheme (the receiver pulls)"},
    {"ibex_rndv_write", IBEX_PVAR_COUNTER, read_rndv_write,
     "rendezvous sends started with the WRITE scheme (the sender puts after CTS)"},
    {"ibex_rndv_split", IBEX_PVAR_COUNTER, read_rndv_split,
     "rendezvous sends started with the SPLIT scheme (both sides copy half)"},
    {"ibex_requests_active", IBEX_PVAR_LEVEL, read_requests,
     "requests started and not yet completed (the program's and internal ones)"},
    /* hosts area */
    {"ibex_eps_offnode", IBEX_PVAR_COUNTER, read_eps_offnode,
     "endpoints connected to ranks on other nodes (node ids from the launcher, PMIx)"},
    {"ibex_eps_offnode_cpu_copy", IBEX_PVAR_COUNTER, read_eps_offnode_cpu,
     "of those, endpoints over a transport that moves data by CPU copies (shared memory): a "
     "correct job has none"},
};

const ibex_pvar_desc_t *ibex_engine_pvar(int i)
{
    return i >= 0 && i < (int)(sizeof(pvars) / sizeof(pvars[0])) ? &pvars[i] : NULL;
}
