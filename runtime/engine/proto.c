/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The protocol choice, the context table and the engine's life cycle.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ibex_blocked_rec.h"
#include "ibex_boot.h"
#include "ibex_config.h"
#include "ibex_engine.h"
#include "ibex_log.h"
#include "ibex_runtime.h"

#define IBEX_HDR_NAME(name, text) text,
static const char *hdr_names[] = {IBEX_PROTO_HDR_LIST(IBEX_HDR_NAME)};
#undef IBEX_HDR_NAME

const char *ibex_proto_hdr_name(int type)
{
    return (type >= 0 && type < IBEX_HDR_COUNT) ? hdr_names[type] : "?";
}

/* Matching state per context id, made on first use. */
ibex_match_queue_t *ibex_match_queues[IBEX_MAX_CONTEXT_IDS];

ibex_match_queue_t *ibex_match_queue_make(uint32_t context_id)
{
    ibex_assert(context_id < IBEX_MAX_CONTEXT_IDS);
    if (!ibex_match_queues[context_id]) {
        ibex_match_queues[context_id] = calloc(1, sizeof(ibex_match_queue_t));
        if (!ibex_match_queues[context_id])
            ibex_error(PROTO, "out of memory for the matching state of context %u", context_id);
    }
    return ibex_match_queues[context_id];
}

/* Queues live until finalize: a message for a freed communicator's context stays unexpected
 * (an erroneous program), and the context id can be reused safely once both queues drain. */
void ibex_match_queue_put(uint32_t context_id)
{
    ibex_match_queue_t *q = ibex_match_queues[context_id];
    if (q && q->unexpected.length > 0)
        ibex_warn(PROTO, "communicator with context %u freed with %zu unreceived messages",
                  context_id, q->unexpected.length);
}

void ibex_proto_fail_posted(int world_rank, ibex_status_t why)
{
    for (int i = 0; i < IBEX_MAX_CONTEXT_IDS; i++) {
        ibex_match_queue_t *q = ibex_match_queues[i];
        ibex_match_entry_t *e = q ? q->posted.head : NULL;
        while (e) {
            ibex_req_t *req = (ibex_req_t *)e;
            e = e->next;
            if (!ibex_proto_recv_fails_with(req, world_rank))
                continue;
            ibex_match_list_remove(&q->posted, &req->match);
            req->in_posted = false;
            ibex_req_complete(req, why);
        }
    }
}

static void ctx_queues_free(void)
{
    for (int i = 0; i < IBEX_MAX_CONTEXT_IDS; i++) {
        ibex_match_queue_t *q = ibex_match_queues[i];
        if (!q)
            continue;
        while (q->unexpected.head) {
            ibex_match_entry_t *e = q->unexpected.head;
            ibex_match_list_remove(&q->unexpected, e);
            free(e);
        }
        free(q);
        ibex_match_queues[i] = NULL;
    }
}

ibex_status_t ibex_p2p_init(void)
{
    ibex_status_t st = ibex_req_pool_init(); /* the shared completed send's handle, too */
    return st != IBEX_OK ? st : ibex_ep_open_transports();
}

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Finishes what peers depend on: messages still in the backlog and transfers in flight (a
 * peer may be reading our memory). A send the program never completed and whose receiver never
 * came is the program's error: after a while, say so instead of hanging in MPI_Finalize. */
ibex_status_t ibex_p2p_quiesce(void)
{
    int idle = 0, spins = 0;
    bool rec = false;
    double deadline = now_sec() + 60;
    ibex_status_t st = IBEX_OK;
    while (ibex_ep_busy()) {
        ibex_wait_step(&idle);
        if (!rec && ibex_blk_due(&spins)) /* for whom it waits (ibex_blocked_rec.h) */
            rec = ibex_blk_wait_sends(false);
        if (now_sec() > deadline) {
            ibex_warn(PROTO, "MPI_Finalize: transfers to other ranks still unfinished after 60 s "
                             "(a send whose receive was never posted?)");
            st = IBEX_ERR_TIMEOUT;
            break;
        }
    }
    if (rec)
        ibex_blk_end();
    return st;
}

void ibex_p2p_fini(void)
{
    ibex_ep_close_transports();
    ctx_queues_free();
    ibex_req_pool_fini();
}
