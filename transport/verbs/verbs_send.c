/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Eager messages: SEND_WITH_IMM into the shared receive queue, inline when header + payload fit the
 * QP's inline limit, else copied into a registered bounce buffer. The immediate data carries the
 * credits this side returns to the peer, so replies return credits for free; a receiver that owes
 * many credits and has nothing to say sends an explicit zero-byte credit message.
 *
 * Credits: the peer gives us `grant` credits (published in its address); each SEND costs one; a
 * credit comes back only once the message was accepted by recv_cb AND its buffer was reposted to
 * the SRQ, so the SRQ (sized peers * (grant + 2)) never runs dry and RNR never happens.
 *
 * Accepted buffers are reposted VERBS_REPOST_BATCH at a time (one ibv_post_srq_recv with a chain
 * of WRs: the SRQ's lock and queue lines move between processes once per batch, not once per
 * message). A held buffer has not earned its credit yet, so holding it only delays the credit;
 * it counts towards the explicit-credit threshold (owed + held), and reaching the threshold
 * reposts the batch first, so a peer waiting for credits is never left waiting on a batch that
 * does not fill. Credit-only messages, which cost no credit, are reposted at once: their
 * buffers are outside every peer's credit budget.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_log.h"
#include "verbs.h"
#include "verbs_memhooks.h"

ibex_status_t ibex_verbs_bufs_create(ibex_tl_t *tl)
{
    size_t bsz = tl->buf_size;
    int access = IBV_ACCESS_LOCAL_WRITE;
    tl->rbuf_stride = bsz + 64;
    tl->nrepost = 0;
    if (posix_memalign((void **)&tl->rbufs, ibex_verbs_page_size(), tl->rbuf_stride * tl->nrbufs) ||
        posix_memalign((void **)&tl->sbufs, ibex_verbs_page_size(), bsz * VERBS_BOUNCE_COUNT))
        return IBEX_ERR_NO_MEMORY;
    tl->rlen = calloc(tl->nrbufs, sizeof(*tl->rlen));
    tl->bounce_all = calloc(VERBS_BOUNCE_COUNT, sizeof(*tl->bounce_all));
    if (!tl->rlen || !tl->bounce_all)
        return IBEX_ERR_NO_MEMORY;
    tl->rbuf_mr = ibv_reg_mr(tl->pd, tl->rbufs, tl->rbuf_stride * tl->nrbufs, access);
    tl->sbuf_mr = ibv_reg_mr(tl->pd, tl->sbufs, bsz * VERBS_BOUNCE_COUNT, access);
    if (!tl->rbuf_mr || !tl->sbuf_mr) {
        ibex_error(TL, "cannot register %zu bytes of eager buffers on %s: %m",
                   bsz * (tl->nrbufs + VERBS_BOUNCE_COUNT), tl->dev_name);
        return IBEX_ERR_NO_MEMORY;
    }
    for (int i = VERBS_BOUNCE_COUNT - 1; i >= 0; i--) {
        tl->bounce_all[i].buf = tl->sbufs + (size_t)i * bsz;
        tl->bounce_all[i].next = tl->bounce_free;
        tl->bounce_free = &tl->bounce_all[i];
    }
    return IBEX_OK;
}

void ibex_verbs_bufs_destroy(ibex_tl_t *tl)
{
    if (tl->rbuf_mr)
        ibv_dereg_mr(tl->rbuf_mr);
    if (tl->sbuf_mr)
        ibv_dereg_mr(tl->sbuf_mr);
    free(tl->rbufs);
    free(tl->sbufs);
    free(tl->rlen);
    free(tl->bounce_all);
}

static inline char *rbuf(const ibex_tl_t *tl, uint32_t idx)
{
    return tl->rbufs + (size_t)idx * tl->rbuf_stride;
}

static int srq_repost(ibex_tl_t *tl, uint32_t idx)
{
    struct ibv_sge sge = {
        .addr = (uintptr_t)rbuf(tl, idx),
        .length = (uint32_t)tl->buf_size,
        .lkey = tl->rbuf_mr->lkey,
    };
    struct ibv_recv_wr wr = {.wr_id = VERBS_WR_RECV_ID(idx), .sg_list = &sge, .num_sge = 1}, *bad;
    int rc = ibv_post_srq_recv(tl->srq, &wr, &bad);
    if (rc)
        ibex_error(TL, "cannot repost eager buffer %u to the srq of %s: %s", idx, tl->dev_name,
                   strerror(rc));
    return rc;
}

/* Reposts the batch in one call; each reposted buffer earns its peer a credit. */
static void repost_flush(ibex_tl_t *tl)
{
    uint32_t n = tl->nrepost;
    struct ibv_sge sge[VERBS_REPOST_BATCH];
    struct ibv_recv_wr wr[VERBS_REPOST_BATCH], *bad = NULL;
    if (n == 0)
        return;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t idx = tl->repost_idx[i];
        sge[i] =
            (struct ibv_sge){(uintptr_t)rbuf(tl, idx), (uint32_t)tl->buf_size, tl->rbuf_mr->lkey};
        wr[i] = (struct ibv_recv_wr){.wr_id = VERBS_WR_RECV_ID(idx),
                                     .next = i + 1 < n ? &wr[i + 1] : NULL,
                                     .sg_list = &sge[i],
                                     .num_sge = 1};
    }
    int rc = ibv_post_srq_recv(tl->srq, wr, &bad);
    uint32_t posted = rc == 0 ? n : bad ? (uint32_t)(bad - wr) : 0;
    if (rc)
        ibex_error(TL, "cannot repost %u eager buffers to the srq of %s: %s", n - posted,
                   tl->dev_name, strerror(rc));
    for (uint32_t i = 0; i < n; i++) {
        ibex_tl_ep_t *ep = tl->repost_ep[i];
        ep->held--;
        if (i < posted)
            ep->owed++;
    }
    tl->nrepost = 0;
}

/* An accepted buffer joins the repost batch. */
static void repost_hold(ibex_tl_ep_t *ep, uint32_t idx)
{
    ibex_tl_t *tl = ep->tl;
    tl->repost_idx[tl->nrepost] = idx;
    tl->repost_ep[tl->nrepost] = ep;
    ep->held++;
    if (++tl->nrepost == VERBS_REPOST_BATCH)
        repost_flush(tl);
}

ibex_status_t ibex_verbs_srq_fill(ibex_tl_t *tl)
{
    for (uint32_t i = 0; i < tl->nrbufs; i++)
        if (srq_repost(tl, i))
            return IBEX_ERR_NO_MEMORY;
    return IBEX_OK;
}

/* Posts one send-queue WR, signalling it when asked or when too many went unsignalled. */
int ibex_verbs_post(ibex_tl_ep_t *ep, struct ibv_send_wr *wr, bool must_signal)
{
    uint32_t saved_unsig = ep->unsig;
    bool signal = must_signal || ep->unsig + 1 >= VERBS_SIGNAL_EVERY;
    if (signal) {
        wr->send_flags |= IBV_SEND_SIGNALED;
        if (VERBS_WR_KIND(wr->wr_id) == 0)
            wr->wr_id = VERBS_WR_INLINE;
        ep->rel[ep->rel_tail++ & (VERBS_SQ_DEPTH - 1)] = (uint16_t)(ep->unsig + 1);
        ep->unsig = 0;
    } else {
        ep->unsig++;
    }
    struct ibv_send_wr *bad;
    int rc = ibv_post_send(ep->qp, wr, &bad);
    if (__builtin_expect(rc != 0, 0)) {
        if (signal)
            ep->rel_tail--;
        ep->unsig = saved_unsig;
        return rc;
    }
    ep->sq_avail--;
    ep->tl->cq_room--;
    return 0;
}

static ibex_status_t post_failed(ibex_tl_ep_t *ep, int rc, const char *what)
{
    ibex_error(TL, "cannot post %s to peer rank %d (qp 0x%x): %s", what, ep->peer, ep->qp->qp_num,
               strerror(rc));
    return ibex_verbs_ep_fail(ep, IBV_WC_LOC_QP_OP_ERR, what);
}

static inline uint32_t take_owed(ibex_tl_ep_t *ep)
{
    uint32_t n = ep->owed > VERBS_IMM_CREDITS_MASK ? VERBS_IMM_CREDITS_MASK : ep->owed;
    ep->owed -= n;
    return n;
}

static ibex_status_t send_bounce(ibex_tl_ep_t *ep, struct ibv_send_wr *wr, const void *hdr,
                                 size_t hdr_len, const void *payload, size_t len)
{
    ibex_tl_t *tl = ep->tl;
    verbs_bounce_t *b = tl->bounce_free;
    if (!b)
        return IBEX_ERR_AGAIN;
    memcpy(b->buf, hdr, hdr_len);
    if (len)
        memcpy(b->buf + hdr_len, payload, len);
    struct ibv_sge sge = {(uintptr_t)b->buf, (uint32_t)(hdr_len + len), tl->sbuf_mr->lkey};
    wr->wr_id = (uintptr_t)b | VERBS_WR_BOUNCE;
    wr->sg_list = &sge;
    wr->num_sge = 1;
    uint32_t owed = take_owed(ep);
    wr->imm_data = htonl(owed);
    int rc = ibex_verbs_post(ep, wr, true);
    if (rc) {
        ep->owed += owed;
        return post_failed(ep, rc, "send");
    }
    tl->bounce_free = b->next;
    ep->credits--;
    return IBEX_OK;
}

ibex_status_t ibex_verbs_send(ibex_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                              const void *payload, size_t len)
{
    ibex_tl_t *tl = ep->tl;
    if (__builtin_expect(ep->failed, 0))
        return ep->fail_status;
    size_t total = hdr_len + len;
    if (ep->credits == 0 || ep->sq_avail < 2 || tl->cq_room < 1)
        return IBEX_ERR_AGAIN;
    struct ibv_send_wr wr = {.opcode = IBV_WR_SEND_WITH_IMM};
    if (total > tl->max_inline) {
        if (total > tl->buf_size)
            return IBEX_ERR_INVALID;
        return send_bounce(ep, &wr, hdr, hdr_len, payload, len);
    }
    struct ibv_sge sge[2];
    int n = 0;
    if (hdr_len)
        sge[n++] = (struct ibv_sge){(uintptr_t)hdr, (uint32_t)hdr_len, 0};
    if (len)
        sge[n++] = (struct ibv_sge){(uintptr_t)payload, (uint32_t)len, 0};
    wr.sg_list = sge;
    wr.num_sge = n;
    wr.send_flags = IBV_SEND_INLINE;
    uint32_t owed = take_owed(ep);
    wr.imm_data = htonl(owed);
    int rc = ibex_verbs_post(ep, &wr, false);
    if (__builtin_expect(rc != 0, 0)) {
        ep->owed += owed;
        return post_failed(ep, rc, "send");
    }
    ep->credits--;
    return IBEX_OK;
}

bool ibex_verbs_ep_credits_pending(const ibex_tl_ep_t *ep)
{
    return ep->owed + ep->held >= ep->credit_thr;
}

/* An explicit credit message: zero bytes, immediate data only. It costs no credit (the peer
 * reposts its buffer at once), and at most two can be in flight per peer (see README). */
static void send_credits(ibex_tl_ep_t *ep)
{
    if (ep->failed || ep->sq_avail < 1 || ep->tl->cq_room < 1)
        return;
    struct ibv_send_wr wr = {.opcode = IBV_WR_SEND_WITH_IMM, .send_flags = IBV_SEND_INLINE};
    uint32_t owed = take_owed(ep);
    wr.imm_data = htonl(VERBS_IMM_CREDIT_ONLY | owed);
    int rc = ibex_verbs_post(ep, &wr, false);
    if (rc) {
        ep->owed += owed;
        post_failed(ep, rc, "credit message");
    }
}

/* A send-queue completion: release the slots of this WR and the unsignalled ones before it. */
void ibex_verbs_send_done(ibex_tl_ep_t *ep, const struct ibv_wc *wc)
{
    ibex_tl_t *tl = ep->tl;
    void *obj = VERBS_WR_PTR(wc->wr_id);
    unsigned kind = VERBS_WR_KIND(wc->wr_id);
    if (wc->status != IBV_WC_SUCCESS) {
        ibex_verbs_ep_fail(ep, wc->status,
                           kind == VERBS_WR_RMA ? ibex_verbs_rma_opname(obj) : "send");
    } else if (!ep->failed) {
        uint32_t n = ep->rel[ep->rel_head++ & (VERBS_SQ_DEPTH - 1)];
        ep->sq_avail += n;
        tl->cq_room += (int)n;
    }
    if (kind == VERBS_WR_BOUNCE) {
        verbs_bounce_t *b = obj;
        b->next = tl->bounce_free;
        tl->bounce_free = b;
    } else if (kind == VERBS_WR_RMA) {
        ibex_verbs_rma_done(ep, obj, wc->status);
    }
}

static void backlog_push(ibex_tl_ep_t *ep, uint32_t idx)
{
    ibex_assert(ep->bl_tail - ep->bl_head <= ep->bl_mask);
    ep->backlog[ep->bl_tail++ & ep->bl_mask] = idx;
    ibex_verbs_work_add(ep);
}

/* Hands one buffer to recv_cb; on acceptance reposts it and earns the peer a credit. */
static ibex_status_t deliver(ibex_tl_ep_t *ep, uint32_t idx, uint32_t len)
{
    ibex_tl_t *tl = ep->tl;
    ibex_status_t st = tl->params.recv_cb(tl->params.cb_arg, ep->peer, rbuf(tl, idx), len);
    if (st == IBEX_ERR_AGAIN)
        return st;
    if (st != IBEX_OK)
        ibex_debug(TL, "recv_cb refused a %u-byte message from rank %d: %s", len, ep->peer,
                   ibex_status_str(st));
    repost_hold(ep, idx);
    return IBEX_OK;
}

void ibex_verbs_recv_done(ibex_tl_t *tl, const struct ibv_wc *wc)
{
    uint32_t idx = VERBS_WR_RECV_IDX(wc->wr_id);
    ibex_tl_ep_t *ep = ibex_verbs_ep_by_qpn(tl, wc->qp_num);
    if (__builtin_expect(!ep, 0)) {
        ibex_error(TL, "receive on unknown qp 0x%x dropped", wc->qp_num);
        srq_repost(tl, idx);
        return;
    }
    if (__builtin_expect(ep->state != VERBS_EP_CONNECTED, 0))
        ibex_verbs_ep_established(ep); /* the peer sends: it had our REP, its RTU is late */
    uint32_t imm = (wc->wc_flags & IBV_WC_WITH_IMM) ? ntohl(wc->imm_data) : 0;
    ep->credits += imm & VERBS_IMM_CREDITS_MASK;
    if (imm & VERBS_IMM_CREDIT_ONLY) {
        srq_repost(tl, idx);
        return;
    }
    if (ep->bl_head != ep->bl_tail || deliver(ep, idx, wc->byte_len) == IBEX_ERR_AGAIN) {
        tl->rlen[idx] = wc->byte_len;
        backlog_push(ep, idx);
    } else if (ibex_verbs_ep_credits_pending(ep)) {
        ibex_verbs_work_add(ep);
    }
}

void ibex_verbs_recv_error(ibex_tl_t *tl, const struct ibv_wc *wc)
{
    uint32_t idx = VERBS_WR_RECV_IDX(wc->wr_id);
    ibex_tl_ep_t *ep = ibex_verbs_ep_by_qpn(tl, wc->qp_num);
    if (wc->status == IBV_WC_WR_FLUSH_ERR && !ep)
        return; /* the srq is being destroyed */
    if (ep)
        ibex_verbs_ep_fail(ep, wc->status, "receive");
    srq_repost(tl, idx);
}

int ibex_verbs_ep_work_recv(ibex_tl_ep_t *ep)
{
    int n = 0;
    while (ep->bl_head != ep->bl_tail) {
        uint32_t idx = ep->backlog[ep->bl_head & ep->bl_mask];
        if (deliver(ep, idx, ep->tl->rlen[idx]) == IBEX_ERR_AGAIN)
            break;
        ep->bl_head++;
        n++;
    }
    if (ibex_verbs_ep_credits_pending(ep)) {
        repost_flush(ep->tl); /* held buffers first: their credits go in the same message */
        send_credits(ep);
    }
    return n;
}
