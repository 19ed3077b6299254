/*
 * The protocol choice, the context table and the engine's life cycle.
 */
#include <stdlib.h>
#include <string.h>

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

size_t ibex_proto_eager_limit(const ibex_tl_caps_t *caps)
{
    size_t hdr = sizeof(ibex_match_hdr_t);
    size_t max = caps->max_eager > hdr ? caps->max_eager - hdr : 0;
    size_t want;
    if (ibex_config.eager_limit != IBEX_SIZE_AUTO)
        want = (size_t)ibex_config.eager_limit;
    else
        want = caps->eager_limit_hint ? caps->eager_limit_hint : max;
    return want < max ? want : max;
}

/*
 * Eager while the payload fits the eager limit. Above it, rendezvous: READ lets the receiver
 * pull as soon as it matches (one control message less than WRITE); WRITE when forced or when
 * the transport can only put.
 */
ibex_proto_t ibex_proto_choose(const ibex_tl_caps_t *caps, size_t bytes)
{
    if (bytes <= ibex_proto_eager_limit(caps))
        return IBEX_PROTO_EAGER;
    bool can_read = caps->flags & IBEX_TL_CAP_GET;
    bool can_write = caps->flags & IBEX_TL_CAP_PUT;
    if (ibex_config.rndv_scheme == IBEX_RNDV_WRITE && can_write)
        return IBEX_PROTO_RNDV_WRITE;
    return can_read ? IBEX_PROTO_RNDV_READ : IBEX_PROTO_RNDV_WRITE;
}

/* Matching state per context id, made on first use. */
static ibex_match_queue_t *ctx_queues[IBEX_MAX_CONTEXT_IDS];

ibex_match_queue_t *ibex_match_queue_get(uint32_t context_id)
{
    ibex_assert(context_id < IBEX_MAX_CONTEXT_IDS);
    if (!ctx_queues[context_id]) {
        ctx_queues[context_id] = calloc(1, sizeof(ibex_match_queue_t));
        ibex_assert(ctx_queues[context_id] != NULL);
    }
    return ctx_queues[context_id];
}

/* Queues live until finalize: a message for a freed communicator's context stays unexpected
 * (an erroneous program), and the context id can be reused safely once both queues drain. */
void ibex_match_queue_put(uint32_t context_id)
{
    ibex_match_queue_t *q = ctx_queues[context_id];
    if (q && q->unexpected.length > 0)
        ibex_warn(PROTO, "communicator with context %u freed with %zu unreceived messages",
                  context_id, q->unexpected.length);
}

static void ctx_queues_free(void)
{
    for (int i = 0; i < IBEX_MAX_CONTEXT_IDS; i++) {
        ibex_match_queue_t *q = ctx_queues[i];
        if (!q)
            continue;
        while (q->unexpected.head) {
            ibex_match_entry_t *e = q->unexpected.head;
            ibex_match_list_remove(&q->unexpected, e);
            free(e);
        }
        free(q);
        ctx_queues[i] = NULL;
    }
}

int ibex_progress(void)
{
    int n = 0;
    int count = ibex_ep_num_transports();
    for (int i = 0; i < count; i++) {
        ibex_tl_inst_t *inst = ibex_ep_transport(i);
        n += inst->comp->ops.progress(inst->tl);
    }
    return n + ibex_ep_progress_pending();
}

ibex_status_t ibex_p2p_init(void)
{
    return ibex_ep_open_transports();
}

/* Completes this rank's own outstanding transfers: internal requests (Bsend, collectives) and
 * the backlog. A user request the program never waited for is its own error; do not hang. */
ibex_status_t ibex_p2p_quiesce(void)
{
    int idle = 0;
    double spins = 0;
    while (ibex_req_active_count > 0 && spins < 2e7) {
        ibex_wait_step(&idle);
        spins++;
        if (ibex_ep_count() == 0)
            break;
    }
    if (ibex_req_active_count > 0)
        ibex_debug(PROTO, "finalize with %ld requests still active", ibex_req_active_count);
    return IBEX_OK;
}

void ibex_p2p_fini(void)
{
    ibex_ep_close_transports();
    ctx_queues_free();
    ibex_req_pool_fini();
}
