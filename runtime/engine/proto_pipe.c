/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rendezvous PIPE (ibex_proto.h): RTS|PIPE, the receiver answers CTS with the bytes it wants
 * (fewer on truncation), then the sender streams FRAG messages through the transport's sends
 * and the receiver copies each into place (unpacking at its offset) as it arrives. On shared
 * memory that is two memcpy's overlapped, where process_vm_readv costs a page-pinning syscall
 * per message and a third of a microsecond per page here. No staging, no registration, any
 * datatype on either side (the sender packs each fragment once, straight into the transport's
 * slot where it offers send_fill, else into a buffer of its own; the receiver unpacks it out of
 * the slot); no FIN.
 * A full transport parks the request in the peer's backlog, which resumes it in order.
 */
#include <stdlib.h>
#include <string.h>

#include "ibex_engine.h"
#include "ibex_engine_cfg.h"
#include "ibex_log.h"

/* The payload of the fragment at req->frag_done: the user's bytes, or (non-contiguous) that
 * fragment packed into the request's own buffer (staging, one fragment long). rma_local marks a
 * fragment already packed: a full transport (IBEX_ERR_AGAIN) has the same fragment sent again
 * from the backlog, which must not pack it again (a 64 KiB halo in 8-byte blocks packed each
 * fragment four times here). */
static const void *pipe_payload(ibex_req_t *req, size_t len, size_t max)
{
    if (ibex_dt_is_contig(req->dt, req->count))
        return (const char *)req->buf + req->dt->true_lb + req->frag_done;
    if (req->rma_local)
        return req->rma_local;
    if (!req->staging && !(req->staging = malloc(max)))
        return NULL;
    ibex_dt_pack(req->buf, req->count, req->dt, req->frag_done, req->staging, len);
    return req->rma_local = req->staging;
}

/* Hands the fragment h (len bytes at req->frag_done) to the transport: a non-contiguous one
 * packed straight into its slot when ibex_proto_pack_in_slot says so (a full ring refuses before
 * anything is packed), else from pipe_payload's buffer. */
static ibex_status_t pipe_send_frag(ibex_req_t *req, const ibex_frag_hdr_t *h, size_t len,
                                    size_t max)
{
    ibex_ep_t *ep = req->ep;
    if (!ibex_dt_is_contig(req->dt, req->count) && ibex_proto_pack_in_slot(&ep->tl->caps)) {
        ibex_dt_fill_t f = {
            .buf = req->buf, .count = req->count, .dt = req->dt, .offset = req->frag_done};
        return ibex_ep_tl_send_fill(ep, h, sizeof(*h), len, ibex_dt_fill, &f);
    }
    const void *p = pipe_payload(req, len, max);
    return p ? ibex_ep_tl_send(ep, h, sizeof(*h), p, len) : IBEX_ERR_NO_MEMORY;
}

/* The sender is done (st): the fragment buffer goes. */
static void pipe_send_done(ibex_req_t *req, ibex_status_t st)
{
    free(req->staging);
    req->staging = NULL;
    req->rma_local = NULL;
    ibex_req_complete(req, st);
}

/* Sends fragments until done (the request completes: IBEX_OK) or the transport is full
 * (IBEX_ERR_AGAIN: call again from the backlog). */
ibex_status_t ibex_proto_pipe_stream(ibex_req_t *req)
{
    ibex_ep_t *ep = req->ep;
    size_t frag = (size_t)ibex_engine_cfg.rndv_pipe_frag;
    if (frag > ep->tl->caps.max_eager || frag <= sizeof(ibex_frag_hdr_t))
        frag = ep->tl->caps.max_eager;
    size_t max = frag - sizeof(ibex_frag_hdr_t);
    while (req->frag_done < req->rma_len) {
        size_t len = req->rma_len - req->frag_done < max ? req->rma_len - req->frag_done : max;
        ibex_frag_hdr_t h = {.type = IBEX_HDR_FRAG,
                             .len = (uint32_t)len,
                             .req = req->peer_req,
                             .offset = req->frag_done};
        ibex_status_t st = pipe_send_frag(req, &h, len, max);
        if (st == IBEX_ERR_AGAIN)
            return st;
        if (st != IBEX_OK) {
            ibex_error(PROTO, "fragment of %zu bytes to rank %d not sent: %s", len, ep->world_rank,
                       ibex_status_str(st));
            pipe_send_done(req, st);
            return IBEX_OK;
        }
        req->frag_done += len;
        req->rma_local = NULL; /* the next fragment is not packed yet */
    }
    pipe_send_done(req, IBEX_OK);
    return IBEX_OK;
}

/* Sender: the receiver matched and wants cts->len bytes. */
void ibex_proto_pipe_on_cts(ibex_req_t *req, const ibex_ctl_hdr_t *cts)
{
    req->peer_req = cts->peer_req;
    req->rma_len = cts->len < req->bytes ? cts->len : req->bytes;
    req->frag_done = 0;
    req->frag_go = true;
    req->rma_local = NULL;
    if (!ibex_ep_has_backlog(req->ep) && ibex_proto_pipe_stream(req) == IBEX_OK)
        return;
    ibex_status_t st = ibex_ep_queue_req(req->ep, req);
    if (st != IBEX_OK)
        pipe_send_done(req, st);
}

/* Receiver: matched an RTS|PIPE; n bytes fit (rma_status holds a truncation). */
void ibex_proto_pipe_recv_start(ibex_req_t *req, const ibex_umsg_t *msg, size_t n)
{
    req->rma_len = n;
    req->frag_done = 0;
    ibex_ctl_hdr_t cts = {
        .type = IBEX_HDR_CTS, .req = msg->sreq, .peer_req = ibex_req_id(req), .len = n};
    ibex_status_t st = ibex_ep_send_ctl(req->ep, &cts);
    if (st != IBEX_OK || n == 0) {
        ibex_req_complete(req, st != IBEX_OK ? st : req->rma_status);
        return;
    }
    ibex_ep_inflight_add(req->ep, req);
}

/* Receiver: one fragment; the request completes with the last one. */
void ibex_proto_pipe_on_frag(ibex_req_t *req, const ibex_frag_hdr_t *h)
{
    if (req->kind != IBEX_REQ_RECV || req->complete || !req->inflight_ep)
        return; /* not a receive waiting for fragments: a confused peer's, dropped */
    size_t off = h->offset < req->rma_len ? (size_t)h->offset : req->rma_len;
    size_t len = h->len < req->rma_len - off ? h->len : req->rma_len - off;
    ibex_dt_unpack(req->buf, req->count, req->dt, off, h + 1, len);
    req->frag_done += h->len;
    if (req->frag_done >= req->rma_len)
        ibex_req_complete(req, req->rma_status);
}
