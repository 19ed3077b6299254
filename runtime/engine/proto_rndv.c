/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rendezvous. READ: the receiver pulls the sender's buffer (named in the RTS) with get, then
 * sends FIN. WRITE: the receiver answers CTS naming its buffer, the sender puts, then sends FIN.
 * A receive buffer smaller than the message takes what fits (MPI_ERR_TRUNCATE) and the FIN is
 * still sent, so the sender always completes. SPLIT does both at once on halves of the message
 * (CPU-copy transports: two cores copy). Transfers go in IBEX_RNDV_FRAG_SIZE fragments. A
 * non-contiguous receive buffer with large enough blocks (ibex_proto_rndv_iov) is read straight
 * into its pieces on transports that take piece lists; otherwise through staging + unpack.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibex_engine_stats.h"
#include "ibex_boot.h"
#include "ibex_engine_cfg.h"
#include "ibex_engine.h"
#include "ibex_log.h"

#define req_of_comp(c) ((ibex_req_t *)((char *)(c)-offsetof(ibex_req_t, comp)))

static void rndv_release_mem(ibex_req_t *req)
{
    if (req->mem) {
        ibex_tl_inst_t *tl = req->ep->tl;
        tl->comp->ops.mem_dereg(tl->tl, req->mem);
        req->mem = NULL;
    }
}

/* Sender's side of both schemes ends here. */
static void rndv_send_done(ibex_req_t *req, ibex_status_t st)
{
    rndv_release_mem(req);
    free(req->staging);
    req->staging = NULL;
    ibex_req_complete(req, st);
}

ibex_status_t ibex_proto_rndv_send_rts(ibex_req_t *req)
{
    ibex_rts_hdr_t rts;
    memset(&rts, 0, offsetof(ibex_rts_hdr_t, rkey));
    rts.m.type = IBEX_HDR_RTS;
    rts.m.flags = req->proto == IBEX_PROTO_RNDV_WRITE   ? IBEX_HDR_FLAG_WRITE
                  : req->proto == IBEX_PROTO_RNDV_SPLIT ? IBEX_HDR_FLAG_SPLIT
                  : req->proto == IBEX_PROTO_RNDV_PIPE  ? IBEX_HDR_FLAG_PIPE
                                                        : 0;
    req->split = req->proto == IBEX_PROTO_RNDV_SPLIT;
    if (req->split)
        ibex_engine_stats.rndv_split++;
    else if (req->proto == IBEX_PROTO_RNDV_WRITE)
        ibex_engine_stats.rndv_write++;
    else if (req->proto == IBEX_PROTO_RNDV_PIPE)
        ibex_engine_stats.rndv_pipe++;
    else
        ibex_engine_stats.rndv_read++;
    req->pending = req->split ? 2 : 0; /* SPLIT: our put, and the receiver's FIN */
    req->rma_status = IBEX_OK;
    rts.m.ctx = req->comm->context_id + (req->coll ? 1 : 0);
    rts.m.src = req->comm->rank;
    rts.m.tag = req->tag;
    rts.m.seq = req->seq;
    rts.m.sreq = ibex_req_id(req);
    rts.len = req->rma_len;
    rts.addr = (uint64_t)(uintptr_t)req->rma_local;
    ibex_tl_inst_t *tl = req->ep->tl;
    if (req->mem) {
        rts.m.rkey_len = (uint16_t)tl->caps.rkey_size;
        tl->comp->ops.mem_pack_rkey(tl->tl, req->mem, rts.rkey);
    }
    size_t len = offsetof(ibex_rts_hdr_t, rkey) + rts.m.rkey_len;
    ibex_status_t st = ibex_ep_tl_send(req->ep, &rts, len, NULL, 0);
    if (st == IBEX_ERR_AGAIN)
        return st;
    if (st != IBEX_OK)
        rndv_send_done(req, st);
    else /* completes on FIN (READ) or after CTS, put and FIN (WRITE) */
        ibex_ep_inflight_add(req->ep, req);
    return IBEX_OK;
}

/* Receiver, non-contiguous buffer: the pieces of its first n bytes, when the transport takes
 * them and ibex_proto_rndv_iov says they are large enough; else false (staging). A transport
 * that needs registration registers the pieces itself (their span, or a bounce buffer),
 * so no registration is made here. */
static bool rndv_recv_iov(ibex_req_t *req, size_t n, unsigned flags)
{
    const ibex_tl_caps_t *caps = &req->ep->tl->caps;
    size_t most = (size_t)req->count * (size_t)req->dt->nblocks;
    if (n == 0 || (flags & IBEX_HDR_FLAG_WRITE) || !ibex_proto_rndv_iov(caps, n, most))
        return false;
    req->rma_iov = malloc(most * sizeof(*req->rma_iov));
    if (!req->rma_iov)
        return false;
    req->rma_iovcnt = ibex_dt_iov(req->buf, req->count, req->dt, 0, n, req->rma_iov, (int)most);
    if (req->rma_iovcnt > 0)
        return true;
    free(req->rma_iov); /* cannot happen (a block gives at most one piece): stage instead */
    req->rma_iov = NULL;
    return false;
}

/* Receiver: where the rendezvous lands (the user buffer, its pieces, or staging to unpack). */
static ibex_status_t rndv_recv_prepare(ibex_req_t *req, size_t n, unsigned flags)
{
    req->rma_len = n;
    if (ibex_dt_is_contig(req->dt, req->count)) {
        req->rma_local = (char *)req->buf + req->dt->true_lb;
    } else if (rndv_recv_iov(req, n, flags)) {
        req->rma_local = NULL;
        return IBEX_OK;
    } else {
        req->staging = malloc(n ? n : 1);
        if (!req->staging)
            return IBEX_ERR_NO_MEMORY;
        req->rma_local = req->staging;
    }
    ibex_tl_inst_t *tl = req->ep->tl;
    if (n == 0 || !(tl->caps.flags & IBEX_TL_CAP_NEED_REG))
        return IBEX_OK;
    return tl->comp->ops.mem_reg(tl->tl, req->rma_local, n, &req->mem);
}

static void send_fin(ibex_req_t *req, uint64_t to, ibex_status_t st)
{
    ibex_ctl_hdr_t fin = {.type = IBEX_HDR_FIN, .req = to, .status = st};
    ibex_status_t sst = ibex_ep_send_ctl(req->ep, &fin);
    if (sst != IBEX_OK)
        ibex_debug(PROTO, "fin to rank %d not sent: %s", req->ep->world_rank, ibex_status_str(sst));
}

/* Receiver's side of both schemes ends here. rma_status holds truncation or a failure. */
static void rndv_recv_done(ibex_req_t *req)
{
    if (req->staging && req->rma_status != IBEX_ERR_PEER_FAILED)
        ibex_dt_unpack(req->buf, req->count, req->dt, 0, req->staging,
                       (size_t)req->status.ibex_count);
    rndv_release_mem(req);
    free(req->staging);
    req->staging = NULL;
    free(req->rma_iov);
    req->rma_iov = NULL;
    ibex_req_complete(req, req->rma_status);
}

static void rma_frag_done(ibex_tl_comp_t *comp, ibex_status_t st)
{
    ibex_req_t *req = req_of_comp(comp);
    if (st != IBEX_OK)
        req->rma_status = st;
    if (--req->rma_outstanding > 0)
        return;
    if (req->kind == IBEX_REQ_RECV) {
        /* READ finished: tell the sender (truncation is only the receiver's error). */
        send_fin(req, req->peer_req,
                 req->rma_status == IBEX_ERR_TRUNCATE ? IBEX_OK : req->rma_status);
        if (!req->split || --req->pending == 0)
            rndv_recv_done(req);
    } else {
        /* WRITE finished: tell the receiver, then complete. */
        send_fin(req, req->peer_req, req->rma_status);
        if (!req->split || --req->pending == 0)
            rndv_send_done(req, req->rma_status);
    }
}

/* The receive buffer's pieces in one get (the transport batches them itself). */
static void rma_issue_iov(ibex_req_t *req, uint64_t remote, const uint8_t *rkey)
{
    ibex_tl_inst_t *tl = req->ep->tl;
    ibex_tl_rma_t desc = {.len = req->rma_len,
                          .remote = remote,
                          .rkey = rkey,
                          .comp = &req->comp,
                          .local_iov = req->rma_iov,
                          .local_iovcnt = req->rma_iovcnt};
    req->comp.cb = rma_frag_done;
    req->rma_outstanding = 1;
    tl->count->rma_bytes += req->rma_len;
    ibex_status_t st = tl->comp->ops.get(req->ep->tl_ep, &desc);
    if (st != IBEX_INPROGRESS)
        rma_frag_done(&req->comp, st);
}

/* Issues put (write) or get (read) of total bytes at local in fragments. */
static void rma_issue(ibex_req_t *req, char *local, size_t total, uint64_t remote,
                      const uint8_t *rkey, bool write)
{
    ibex_tl_inst_t *tl = req->ep->tl;
    size_t frag = (size_t)ibex_engine_cfg.rndv_frag_size;
    size_t nfrags = (total + frag - 1) / frag;
    req->comp.cb = rma_frag_done;
    req->rma_outstanding = (int)nfrags + 1; /* +1 held until every fragment is issued */
    for (size_t off = 0; off < total; off += frag) {
        size_t len = total - off < frag ? total - off : frag;
        ibex_tl_rma_t desc = {.local = local + off,
                              .len = len,
                              .local_mem = req->mem,
                              .remote = remote + off,
                              .rkey = rkey,
                              .comp = &req->comp};
        tl->count->rma_bytes += len;
        ibex_status_t st = write ? tl->comp->ops.put(req->ep->tl_ep, &desc)
                                 : tl->comp->ops.get(req->ep->tl_ep, &desc);
        if (st != IBEX_INPROGRESS)
            rma_frag_done(&req->comp, st);
    }
    rma_frag_done(&req->comp, IBEX_OK);
}

static size_t page_size(void)
{
    static size_t page;
    if (!page) {
        long v = sysconf(_SC_PAGESIZE);
        page = v > 0 ? (size_t)v : 4096;
    }
    return page;
}

/* CTS for [half, n): the sender writes it (WRITE: half is 0). True when it failed and the
 * request is finished. */
static bool rndv_send_cts(ibex_req_t *req, const ibex_umsg_t *msg, size_t half)
{
    ibex_ctl_hdr_t cts = {.type = IBEX_HDR_CTS,
                          .req = msg->sreq,
                          .peer_req = ibex_req_id(req),
                          .addr = (uintptr_t)req->rma_local + half,
                          .len = req->rma_len - half,
                          .offset = half};
    if (req->mem) {
        cts.rkey_len = (uint16_t)req->ep->tl->caps.rkey_size;
        req->ep->tl->comp->ops.mem_pack_rkey(req->ep->tl->tl, req->mem, cts.rkey);
    }
    if (ibex_ep_send_ctl(req->ep, &cts) != IBEX_ERR_NO_MEMORY)
        return false;
    req->rma_status = IBEX_ERR_NO_MEMORY;
    rndv_recv_done(req);
    return true;
}

void ibex_proto_rndv_recv_start(ibex_req_t *req, ibex_umsg_t *msg)
{
    /* a local (blocking) receive: the sender will name it by id, so it moves into the pool */
    ibex_req_t *pool = ibex_req_is_local(req) ? ibex_req_adopt(req) : req;
    bool no_mem = pool == NULL;
    if (pool)
        req = pool;
    ibex_req_rndv_clear(req);
    req->status.MPI_SOURCE = msg->match.src;
    req->status.MPI_TAG = msg->match.tag;
    size_t n = msg->len < req->bytes ? msg->len : req->bytes;
    req->status.ibex_count = (MPI_Count)n;
    req->rma_status = msg->len > req->bytes ? IBEX_ERR_TRUNCATE : IBEX_OK;
    req->peer_req = msg->sreq;
    ibex_status_t st = no_mem ? IBEX_ERR_NO_MEMORY : ibex_ep_get(msg->world_src, &req->ep);
    if (st == IBEX_OK && (msg->flags & IBEX_HDR_FLAG_PIPE)) {
        ibex_proto_pipe_recv_start(req, msg, n);
        return;
    }
    if (st == IBEX_OK)
        st = rndv_recv_prepare(req, n, msg->flags);
    if (st != IBEX_OK) {
        ibex_error(PROTO, "cannot receive %zu bytes from rank %d: %s", n, msg->world_src,
                   ibex_status_str(st));
        req->rma_status = st;
        rndv_recv_done(req);
        return;
    }
    ibex_ep_inflight_add(req->ep, req);
    /* WRITE: the sender writes everything; SPLIT: it writes from `half` on while we read the
     * first half (page-aligned, so the two copies touch different pages). A receive into
     * pieces reads it all (the sender can only write one range): its CTS asks for nothing. */
    size_t half = (msg->flags & IBEX_HDR_FLAG_SPLIT) ? (n / 2) & ~(page_size() - 1) : 0;
    if (req->rma_iov && (msg->flags & IBEX_HDR_FLAG_SPLIT))
        half = n;
    if (msg->flags & (IBEX_HDR_FLAG_WRITE | IBEX_HDR_FLAG_SPLIT) && rndv_send_cts(req, msg, half))
        return;
    if (msg->flags & IBEX_HDR_FLAG_WRITE)
        return; /* completes on FIN */
    if (msg->flags & IBEX_HDR_FLAG_SPLIT) {
        req->split = true;
        req->pending = 2; /* our get, and the sender's FIN */
    }
    if (req->rma_iov)
        rma_issue_iov(req, msg->addr, msg->rkey);
    else
        rma_issue(req, req->rma_local, req->split ? half : req->rma_len, msg->addr, msg->rkey,
                  false);
}

void ibex_proto_rndv_on_cts(ibex_req_t *req, const ibex_ctl_hdr_t *cts)
{
    if (req->proto == IBEX_PROTO_RNDV_PIPE) {
        ibex_proto_pipe_on_cts(req, cts);
        return;
    }
    req->peer_req = cts->peer_req;
    /* the receiver asks for [offset, offset + len) of the message, within what we have */
    size_t off = cts->offset < req->rma_len ? cts->offset : req->rma_len;
    size_t len = cts->len < req->rma_len - off ? cts->len : req->rma_len - off;
    rma_issue(req, (char *)req->rma_local + off, len, cts->addr, cts->rkey, true);
}

void ibex_proto_rndv_on_fin(ibex_req_t *req, const ibex_ctl_hdr_t *fin)
{
    if (fin->status != IBEX_OK && fin->status != IBEX_ERR_TRUNCATE)
        req->rma_status = (ibex_status_t)fin->status;
    if (req->kind == IBEX_REQ_SEND) {
        /* READ: the receiver has pulled everything it wanted (SPLIT: its part) */
        if (!req->split || --req->pending == 0)
            rndv_send_done(req, req->rma_status);
        return;
    }
    /* WRITE: the data is in place (SPLIT: the sender's part) */
    if (!req->split || --req->pending == 0)
        rndv_recv_done(req);
}

void ibex_proto_req_fail(ibex_req_t *req, ibex_status_t why)
{
    ibex_ep_inflight_remove(req);
    req->rma_status = why;
    if (req->rma_outstanding > 0)
        return; /* the transport flushes the transfers in error; the last one finishes it */
    if (req->kind == IBEX_REQ_RECV)
        rndv_recv_done(req);
    else
        rndv_send_done(req, why);
}

/* A peer is gone: fail what waits for it, so nothing hangs (at the next progress call:
 * ibex_ep_fail says why). */
void ibex_proto_peer_failed(void *arg, int peer, ibex_status_t why)
{
    (void)arg;
    ibex_ep_t *ep = ibex_ep_peek(peer);
    if (!ep || ep->failed)
        return;
    ibex_error(PROTO, "rank %d on %s is unreachable (%s): failing the communication with it", peer,
               ibex_boot_peer_host(peer), ibex_status_str(why));
    ibex_ep_fail(ep, why);
}
