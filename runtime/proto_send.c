/*
 * Starting a send: choose the protocol, then hand the match message (EAGER or RTS) to the
 * transport or, when it has no room, to the peer's backlog.
 */
#include <stdlib.h>
#include <string.h>

#include "ibex_config.h"
#include "ibex_engine.h"
#include "ibex_log.h"

/* Packs non-contiguous eager payloads; grows to the largest eager limit seen. */
static char *eager_scratch;
static size_t eager_scratch_len;

static const void *eager_payload(ibex_req_t *req)
{
    if (ibex_dt_is_contig(req->dt, req->count))
        return (const char *)req->buf + req->dt->true_lb;
    if (req->bytes > eager_scratch_len) {
        char *p = realloc(eager_scratch, req->bytes);
        ibex_assert(p != NULL);
        eager_scratch = p;
        eager_scratch_len = req->bytes;
    }
    ibex_dt_pack(req->buf, req->count, req->dt, 0, eager_scratch, req->bytes);
    return eager_scratch;
}

static void match_hdr_fill(ibex_req_t *req, ibex_match_hdr_t *h, int type)
{
    h->type = (uint8_t)type;
    h->flags = 0;
    h->rkey_len = 0;
    h->ctx = req->comm->context_id + (req->coll ? 1 : 0);
    h->src = req->comm->rank;
    h->tag = req->tag;
    h->seq = req->seq;
    h->pad = 0;
    h->sreq = ibex_req_id(req);
}

static ibex_status_t send_eager(ibex_req_t *req)
{
    ibex_match_hdr_t h;
    match_hdr_fill(req, &h, IBEX_HDR_EAGER);
    if (req->mode == IBEX_SEND_SYNC)
        h.flags |= IBEX_HDR_FLAG_SYNC;
    const void *payload = req->bytes ? eager_payload(req) : NULL;
    ibex_status_t st =
        req->ep->tl->comp->ops.send(req->ep->tl_ep, &h, sizeof(h), payload, req->bytes);
    if (st == IBEX_ERR_AGAIN)
        return st;
    if (st != IBEX_OK || req->mode != IBEX_SEND_SYNC)
        ibex_req_complete(req, st);
    else /* a synchronous send completes on the receiver's ACK */
        ibex_ep_inflight_add(req->ep, req);
    return IBEX_OK;
}

ibex_status_t ibex_proto_send_match(ibex_req_t *req)
{
    if (req->proto == IBEX_PROTO_EAGER)
        return send_eager(req);
    return ibex_proto_rndv_send_rts(req);
}

/* Makes the bytes of a rendezvous send one registered contiguous region. */
static ibex_status_t rndv_prepare(ibex_req_t *req)
{
    if (ibex_dt_is_contig(req->dt, req->count)) {
        req->rma_local = (char *)req->buf + req->dt->true_lb;
    } else {
        req->staging = malloc(req->bytes);
        if (!req->staging)
            return IBEX_ERR_NO_MEMORY;
        ibex_dt_pack(req->buf, req->count, req->dt, 0, req->staging, req->bytes);
        req->rma_local = req->staging;
    }
    req->rma_len = req->bytes;
    ibex_tl_inst_t *tl = req->ep->tl;
    if (!(tl->caps.flags & IBEX_TL_CAP_NEED_REG))
        return IBEX_OK;
    return tl->comp->ops.mem_reg(tl->tl, req->rma_local, req->rma_len, &req->mem);
}

ibex_status_t ibex_proto_send_start(ibex_req_t *req)
{
    int world = ibex_comm_world_rank(req->comm, req->peer);
    ibex_ep_t *ep;
    ibex_status_t st = ibex_ep_get(world, &ep);
    if (st != IBEX_OK) {
        ibex_req_complete(req, st);
        return st;
    }
    req->ep = ep;
    req->seq = ep->send_seq++;
    req->proto = (uint8_t)ibex_proto_choose(&ep->tl->caps, req->bytes);
    if (req->proto != IBEX_PROTO_EAGER) {
        st = rndv_prepare(req);
        if (st != IBEX_OK) {
            ibex_error(PROTO, "cannot prepare %zu bytes for rendezvous to rank %d: %s", req->bytes,
                       world, ibex_status_str(st));
            ibex_req_complete(req, st);
            return st;
        }
    }
    ibex_trace(PROTO, "send %zu bytes to rank %d tag %d seq %u proto %d", req->bytes, world,
               req->tag, req->seq, req->proto);
    if (!ibex_ep_has_backlog(ep) && ibex_proto_send_match(req) != IBEX_ERR_AGAIN)
        return IBEX_OK;
    ibex_ep_queue_req(ep, req);
    return IBEX_OK;
}
