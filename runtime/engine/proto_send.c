/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Starting a send: choose the protocol, then hand the match message (EAGER or RTS) to the
 * transport or, when it has no room, to the peer's backlog.
 */
#include <stdlib.h>
#include <string.h>

#include "ibex_config.h"
#include "ibex_engine.h"
#include "ibex_log.h"
#include "ibex_send_now.h"

/* A non-contiguous eager payload is packed into the caller's frame when it fits, else into a
 * buffer of its own freed after the send (owned): no static scratch, so nothing is shared
 * between threads or held across a wait. The transport copies an eager payload, and a
 * backlogged send packs again when it is retried. The contiguous test is inline
 * (ibex_proto_eager_payload, ibex_send_now.h). */
__attribute__((noinline)) const void *ibex_proto_eager_pack(const void *buf, MPI_Count count,
                                                            ibex_dt_t *dt, size_t bytes,
                                                            ibex_eager_pack_t *pk)
{
    char *p = bytes <= IBEX_EAGER_STACK_PACK ? pk->stack : (pk->owned = malloc(bytes));
    if (!p) {
        ibex_error(PROTO, "out of memory packing a %zu-byte eager message", bytes);
        return NULL;
    }
    ibex_dt_pack(buf, count, dt, 0, p, bytes);
    return p;
}

__attribute__((noinline)) ibex_status_t ibex_proto_send_now_packed(ibex_ep_t *ep,
                                                                   const ibex_match_hdr_t *h,
                                                                   const void *buf, MPI_Count count,
                                                                   ibex_dt_t *dt, size_t bytes)
{
    if (!ibex_dt_is_contig(dt, count) && ibex_proto_pack_in_slot(&ep->tl->caps)) {
        ibex_dt_fill_t f = {.buf = buf, .count = count, .dt = dt, .offset = 0};
        return ibex_ep_tl_send_fill(ep, h, sizeof(*h), bytes, ibex_dt_fill, &f);
    }
    ibex_eager_pack_t pk;
    pk.owned = NULL;
    const void *payload = ibex_proto_eager_payload(buf, count, dt, bytes, &pk);
    ibex_status_t st =
        payload ? ibex_ep_tl_send(ep, h, sizeof(*h), payload, bytes) : IBEX_ERR_NO_MEMORY;
    free(pk.owned);
    return st;
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

/* The eager message h with req's payload: packed straight into the transport's slot
 * (ibex_proto_pack_in_slot, non-contiguous), else from the user's buffer or a pack of it. */
static ibex_status_t send_eager_payload(ibex_req_t *req, const ibex_match_hdr_t *h)
{
    ibex_ep_t *ep = req->ep;
    if (req->bytes && !ibex_dt_is_contig(req->dt, req->count) &&
        ibex_proto_pack_in_slot(&ep->tl->caps)) {
        ibex_dt_fill_t f = {.buf = req->buf, .count = req->count, .dt = req->dt, .offset = 0};
        return ibex_ep_tl_send_fill(ep, h, sizeof(*h), req->bytes, ibex_dt_fill, &f);
    }
    ibex_eager_pack_t pk;
    pk.owned = NULL;
    const void *payload =
        req->bytes ? ibex_proto_eager_payload(req->buf, req->count, req->dt, req->bytes, &pk)
                   : NULL;
    if (req->bytes && !payload)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st = ibex_ep_tl_send(ep, h, sizeof(*h), payload, req->bytes);
    free(pk.owned); /* only a large non-contiguous payload */
    return st;
}

static ibex_status_t send_eager(ibex_req_t *req)
{
    ibex_match_hdr_t h;
    match_hdr_fill(req, &h, IBEX_HDR_EAGER);
    if (req->mode == IBEX_SEND_SYNC)
        h.flags |= IBEX_HDR_FLAG_SYNC;
    ibex_status_t st = send_eager_payload(req, &h);
    if (st == IBEX_ERR_AGAIN)
        return st;
    if (st != IBEX_OK || req->mode != IBEX_SEND_SYNC)
        ibex_req_complete(req, st);
    else {                        /* a synchronous send completes on the receiver's ACK */
        ibex_req_rndv_clear(req); /* a failing peer ends it through ibex_proto_req_fail */
        ibex_ep_inflight_add(req->ep, req);
    }
    return IBEX_OK;
}

ibex_status_t ibex_proto_send_match(ibex_req_t *req)
{
    if (req->proto == IBEX_PROTO_EAGER)
        return send_eager(req);
    if (req->frag_go) /* PIPE, after the CTS: fragments resumed from the backlog */
        return ibex_proto_pipe_stream(req);
    return ibex_proto_rndv_send_rts(req);
}

/* Makes the bytes of a rendezvous send one registered contiguous region. */
static ibex_status_t rndv_prepare(ibex_req_t *req)
{
    ibex_req_rndv_clear(req);                 /* frag_go, staging, mem: none yet */
    if (req->proto == IBEX_PROTO_RNDV_PIPE) { /* fragments are packed as they go */
        req->rma_local = NULL;
        req->rma_len = req->bytes;
        return IBEX_OK;
    }
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
    /* eager_limit is ibex_proto_eager_limit(caps), computed once when the transport opened */
    req->proto = req->bytes <= ep->tl->eager_limit
                     ? IBEX_PROTO_EAGER
                     : (uint8_t)ibex_proto_choose(&ep->tl->caps, req->bytes,
                                                  ibex_dt_is_contig(req->dt, req->count));
    ibex_engine_stats.eager += req->proto == IBEX_PROTO_EAGER; /* MPI_T: ibex_eager_sends */
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
    st = ibex_ep_queue_req(ep, req);
    if (st != IBEX_OK)
        ibex_req_complete(req, st);
    return st;
}

/*
 * A blocking standard send whose whole message is one eager send the transport takes at once
 * needs no request: nothing waits for an answer (no ACK, CTS or FIN), and on IBEX_OK the
 * transport no longer needs the buffer. Open MPI's ob1 does the same ("sendi"). Anything else
 * (MPI_PROC_NULL, a peer not yet connected or failed, a backlog, rendezvous size, a full
 * transport, an error) returns IBEX_ERR_AGAIN having done nothing: the caller then takes the
 * request path, which handles and reports every case. The MPI send calls use the inline form
 * (ibex_send_now.h).
 */
ibex_status_t ibex_proto_send_now(const void *buf, MPI_Count count, ibex_dt_t *dt, int dest,
                                  int tag, ibex_comm_t *comm)
{
    return ibex_proto_send_now_inline(buf, count, dt, dest, tag, comm);
}
