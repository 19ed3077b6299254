/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection manager: RC connections brought up on first use, through one UD QP per process.
 *
 * Each rank publishes one fixed-size address (verbs_addr_t: LID / GID, MTU, credits, READ depth,
 * the UD QP number and a random nonce), whatever the job size. The first send to a peer creates
 * our RC QP for it (INIT) and starts a three-way handshake over UD:
 *
 *   REQ  initiator -> target   "my QP for you is q1"; the target creates its QP, moves it to RTR
 *                              and RTS against q1, and answers
 *   REP  target -> initiator   "mine is q2, and it is RTR"; the initiator moves to RTR / RTS and
 *                              may send at once (the target is ready for it)
 *   RTU  initiator -> target   "ready to use": the target may send too. The target also takes the
 *                              first RC message from the initiator as an RTU.
 *
 * UD loses packets: REQ (and REP, for a side waiting for its RTU) is repeated, starting after
 * VERBS_CM_RETRY_NS and doubling up to VERBS_CM_BACKOFF_NS; duplicates are answered again. Both
 * sides may start at once: each answers the other's REQ with a REP from its one QP for that peer,
 * and each becomes CONNECTED on the other's REP. Every message names the receiver's nonce, so a
 * stray message from another job on the same device is ignored.
 *
 * A peer answers only from its progress loop: one that makes no MPI call for a long time delays
 * the connection (a warning says so every doubling from 10 s); IBEX_VERBS_CONNECT_TIMEOUT (s)
 * turns the wait into a failure of that peer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "ibex_boot.h"
#include "ibex_log.h"
#include "verbs.h"
#include "verbs_memhooks.h"
#include "verbs_wire.h"

_Static_assert(VERBS_CM_GRH + sizeof(verbs_cm_msg_t) <= VERBS_CM_SLOT, "cm slot too small");

#define CM_WARN_FIRST_NS 10000000000ull

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static const char *cm_type_str(unsigned type)
{
    static const char *const names[] = {"?", "REQ", "REP", "RTU", "DISC"};
    return type <= CM_DISC ? names[type] : "?";
}

static char *cm_slot(ibex_tl_t *tl, uint32_t slot)
{
    return tl->cm_bufs + (size_t)slot * VERBS_CM_SLOT;
}

static int cm_post_recv(ibex_tl_t *tl, uint32_t slot)
{
    struct ibv_sge sge = {(uintptr_t)cm_slot(tl, slot), VERBS_CM_SLOT, tl->cm_mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = ((uint64_t)slot << 3) | VERBS_WR_CM_RECV,
                             .sg_list = &sge,
                             .num_sge = 1},
                       *bad;
    return ibv_post_recv(tl->cm_qp, &wr, &bad);
}

static int cm_qp_ready(ibex_tl_t *tl)
{
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = tl->port, .qkey = VERBS_CM_QKEY};
    int rc =
        ibv_modify_qp(tl->cm_qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
    if (!rc) {
        a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTR};
        rc = ibv_modify_qp(tl->cm_qp, &a, IBV_QP_STATE);
    }
    if (!rc) {
        a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTS, .sq_psn = 0};
        rc = ibv_modify_qp(tl->cm_qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
    }
    return rc;
}

static uint64_t make_nonce(void)
{
    uint64_t n = 0;
    if (getrandom(&n, sizeof(n), 0) != (ssize_t)sizeof(n))
        n = now_ns() ^ ((uint64_t)getpid() << 32);
    return n ? n : 1;
}

ibex_status_t ibex_verbs_cm_open(ibex_tl_t *tl)
{
    size_t bytes = (size_t)(VERBS_CM_RECVS + VERBS_CM_SENDS) * VERBS_CM_SLOT;
    if (posix_memalign((void **)&tl->cm_bufs, ibex_verbs_page_size(), bytes))
        return IBEX_ERR_NO_MEMORY;
    memset(tl->cm_bufs, 0, bytes);
    tl->cm_mr = ibv_reg_mr(tl->pd, tl->cm_bufs, bytes, IBV_ACCESS_LOCAL_WRITE);
    struct ibv_qp_init_attr qa = {
        .send_cq = tl->cq,
        .recv_cq = tl->cq,
        .cap = {.max_send_wr = VERBS_CM_SENDS,
                .max_recv_wr = VERBS_CM_RECVS,
                .max_send_sge = 1,
                .max_recv_sge = 1},
        .qp_type = IBV_QPT_UD,
    };
    tl->cm_qp = tl->cm_mr ? ibv_create_qp(tl->pd, &qa) : NULL;
    if (!tl->cm_qp) {
        ibex_error(TL, "cannot create the connection manager's %s on %s: %m",
                   tl->cm_mr ? "ud queue pair" : "buffers", tl->dev_name);
        return IBEX_ERR_NO_DEVICE;
    }
    int rc = cm_qp_ready(tl);
    for (uint32_t i = 0; !rc && i < VERBS_CM_RECVS; i++)
        rc = cm_post_recv(tl, i);
    if (rc) {
        ibex_error(TL, "cannot make ud qp 0x%x of %s ready: %s", tl->cm_qp->qp_num, tl->dev_name,
                   strerror(rc));
        return IBEX_ERR_NO_DEVICE;
    }
    tl->addr.ud_qpn = tl->cm_qp->qp_num;
    tl->addr.nonce = make_nonce();
    return IBEX_OK;
}

void ibex_verbs_cm_close(ibex_tl_t *tl)
{
    if (tl->cm_qp && ibv_destroy_qp(tl->cm_qp))
        ibex_warn(TL, "cannot destroy ud qp 0x%x: %m", tl->cm_qp->qp_num);
    tl->cm_qp = NULL;
    if (tl->cm_mr)
        ibv_dereg_mr(tl->cm_mr);
    tl->cm_mr = NULL;
    free(tl->cm_bufs);
    tl->cm_bufs = NULL;
}

static struct ibv_ah *cm_ah(ibex_tl_ep_t *ep)
{
    if (ep->ah)
        return ep->ah;
    ibex_tl_t *tl = ep->tl;
    struct ibv_ah_attr a = {.dlid = ep->paddr.lid, .port_num = tl->port};
    if (ep->paddr.is_roce) {
        a.is_global = 1;
        memcpy(a.grh.dgid.raw, ep->paddr.gid, 16);
        a.grh.sgid_index = tl->addr.gid_index;
        a.grh.hop_limit = 64;
    }
    ep->ah = ibv_create_ah(tl->pd, &a);
    if (!ep->ah)
        ibex_warn(TL, "cannot create an address handle for rank %d on %s (lid %u): %m", ep->peer,
                  ibex_boot_peer_host(ep->peer), ep->paddr.lid);
    return ep->ah;
}

/* Sends one handshake message; a failure is left to the retransmission timer. */
static void cm_send(ibex_tl_ep_t *ep, unsigned type)
{
    ibex_tl_t *tl = ep->tl;
    struct ibv_ah *ah = cm_ah(ep);
    if (!ah || tl->cm_send_out >= VERBS_CM_SENDS)
        return;
    uint32_t slot = VERBS_CM_RECVS + tl->cm_send_head % VERBS_CM_SENDS;
    verbs_cm_msg_t *m = (verbs_cm_msg_t *)cm_slot(tl, slot);
    *m = (verbs_cm_msg_t){.magic = VERBS_CM_MAGIC,
                          .type = (uint8_t)type,
                          .src = tl->params.rank,
                          .dst = ep->peer,
                          .qpn = ep->qp->qp_num,
                          .dst_nonce = ep->paddr.nonce,
                          .addr = tl->addr};
    struct ibv_sge sge = {(uintptr_t)m, sizeof(*m), tl->cm_mr->lkey};
    struct ibv_send_wr wr = {.wr_id = ((uint64_t)slot << 3) | VERBS_WR_CM_SEND,
                             .sg_list = &sge,
                             .num_sge = 1,
                             .opcode = IBV_WR_SEND,
                             .send_flags = IBV_SEND_SIGNALED},
                       *bad;
    wr.wr.ud.ah = ah;
    wr.wr.ud.remote_qpn = ep->paddr.ud_qpn;
    wr.wr.ud.remote_qkey = VERBS_CM_QKEY;
    int rc = ibv_post_send(tl->cm_qp, &wr, &bad);
    if (rc) {
        ibex_warn(TL, "cannot send a connection %s to rank %d: %s", cm_type_str(type), ep->peer,
                  strerror(rc));
        return;
    }
    tl->cm_send_head++;
    tl->cm_send_out++;
    ibex_debug(TL, "connection %s sent to rank %d (our qp 0x%x)", cm_type_str(type), ep->peer,
               ep->qp->qp_num);
}

static void cm_wait_add(ibex_tl_ep_t *ep)
{
    uint64_t now = now_ns();
    ep->cm_start = now;
    ep->cm_gap = VERBS_CM_RETRY_NS;
    ep->cm_next = now + ep->cm_gap;
    ep->cm_warned = 0;
    ep->cm_next_ep = ep->tl->cm_wait;
    ep->tl->cm_wait = ep;
}

ibex_status_t ibex_verbs_cm_connect(ibex_tl_ep_t *ep)
{
    ibex_status_t st = ibex_verbs_ep_qp(ep);
    if (st != IBEX_OK)
        return st;
    ep->state = VERBS_EP_REQ_SENT;
    cm_wait_add(ep);
    cm_send(ep, CM_REQ);
    return IBEX_OK;
}

/* Takes the sender's address from its message, or checks it against the one we hold. */
static bool cm_addr_take(ibex_tl_ep_t *ep, const verbs_cm_msg_t *m)
{
    if (ep->have_addr)
        return ep->paddr.nonce == m->addr.nonce;
    if (ibex_verbs_addr_check(ep->tl, ep->peer, &m->addr, sizeof(m->addr)) != IBEX_OK)
        return false;
    ep->paddr = m->addr;
    ep->have_addr = true;
    return true;
}

/* Our QP goes to RTS against the peer's; then the peer's REP or RTU makes it usable. */
static bool cm_accept(ibex_tl_ep_t *ep, uint32_t qpn)
{
    ibex_status_t st = ibex_verbs_ep_rts(ep, qpn);
    if (st != IBEX_OK) {
        ibex_verbs_ep_unreachable(ep, "could not be connected: its queue pair was refused");
        return false;
    }
    return true;
}

static void cm_on_req(ibex_tl_ep_t *ep, const verbs_cm_msg_t *m)
{
    switch (ep->state) {
    case VERBS_EP_IDLE:
        if (ibex_verbs_ep_qp(ep) != IBEX_OK) {
            ibex_verbs_ep_unreachable(ep, "could not be connected: no queue pair for it");
            return;
        }
        if (!cm_accept(ep, m->qpn))
            return;
        ep->state = VERBS_EP_WAIT_RTU;
        cm_wait_add(ep);
        break;
    case VERBS_EP_REQ_SENT: /* both sides started: answer from the QP we already have */
        if (!cm_accept(ep, m->qpn))
            return;
        ep->state = VERBS_EP_WAIT_RTU;
        break;
    default: /* a repeated REQ: our REP was lost */
        if (m->qpn != ep->dqpn)
            return;
        break;
    }
    cm_send(ep, CM_REP);
}

static void cm_on_rep(ibex_tl_ep_t *ep, const verbs_cm_msg_t *m)
{
    switch (ep->state) {
    case VERBS_EP_REQ_SENT:
        if (!cm_accept(ep, m->qpn))
            return;
        ibex_verbs_ep_established(ep);
        break;
    case VERBS_EP_WAIT_RTU:
        if (m->qpn != ep->dqpn)
            return;
        ibex_verbs_ep_established(ep);
        break;
    case VERBS_EP_CONNECTED: /* a repeated REP: our RTU was lost */
        if (m->qpn != ep->dqpn)
            return;
        break;
    default:
        return;
    }
    cm_send(ep, CM_RTU);
}

static void cm_on_rtu(ibex_tl_ep_t *ep, const verbs_cm_msg_t *m)
{
    if (ep->state == VERBS_EP_WAIT_RTU && m->qpn == ep->dqpn)
        ibex_verbs_ep_established(ep);
}

/* The peer failed its side: what we wait for from it will never come. */
static void cm_on_disc(ibex_tl_ep_t *ep)
{
    ibex_verbs_ep_unreachable(ep, "closed its connection to this rank after an error on its side");
}

void ibex_verbs_cm_disconnect(ibex_tl_ep_t *ep)
{
    /* UD may lose one: send two (a repeated DISC is ignored, the endpoint is failed by then) */
    if (ep->have_addr && ep->qp) {
        cm_send(ep, CM_DISC);
        cm_send(ep, CM_DISC);
    }
}

static void cm_handle(ibex_tl_t *tl, const void *buf, uint32_t len, uint32_t src_qp)
{
    verbs_cm_msg_t msg, *m = &msg;
    if (!ibex_verbs_cm_parse(buf, len, tl->params.rank, tl->params.size, tl->addr.nonce, src_qp,
                             &msg)) {
        ibex_debug(TL, "stray %u-byte datagram from ud qp 0x%x ignored", len, src_qp);
        return;
    }
    ibex_tl_ep_t *ep = &tl->eps[m->src];
    if (ep->failed || !cm_addr_take(ep, m))
        return;
    ibex_debug(TL, "connection %s from rank %d (its qp 0x%x)", cm_type_str(m->type), m->src,
               m->qpn);
    if (m->type == CM_REQ)
        cm_on_req(ep, m);
    else if (m->type == CM_REP)
        cm_on_rep(ep, m);
    else if (m->type == CM_RTU)
        cm_on_rtu(ep, m);
    else if (m->type == CM_DISC)
        cm_on_disc(ep);
}

void ibex_verbs_cm_wc(ibex_tl_t *tl, const struct ibv_wc *wc)
{
    uint32_t slot = (uint32_t)(wc->wr_id >> 3);
    if (VERBS_WR_KIND(wc->wr_id) == VERBS_WR_CM_SEND) {
        tl->cm_send_out--;
        if (wc->status != IBV_WC_SUCCESS && wc->status != IBV_WC_WR_FLUSH_ERR)
            ibex_debug(TL, "connection message not sent: %s", ibv_wc_status_str(wc->status));
        return;
    }
    if (wc->status == IBV_WC_WR_FLUSH_ERR)
        return; /* the QP is being destroyed */
    if (wc->status == IBV_WC_SUCCESS && wc->byte_len >= VERBS_CM_GRH)
        cm_handle(tl, cm_slot(tl, slot) + VERBS_CM_GRH, wc->byte_len - VERBS_CM_GRH, wc->src_qp);
    int rc = cm_post_recv(tl, slot);
    if (rc)
        ibex_warn(TL, "cannot repost a ud receive on %s: %s", tl->dev_name, strerror(rc));
}

/* One pending handshake: repeat our last step when due, warn while the peer stays silent, and
 * give up after IBEX_VERBS_CONNECT_TIMEOUT seconds if set. */
static void cm_tick(ibex_tl_ep_t *ep, uint64_t now)
{
    if (now < ep->cm_next)
        return;
    uint64_t waited = now - ep->cm_start;
    long limit = ibex_verbs_cfg.connect_timeout;
    if (limit > 0 && waited >= (uint64_t)limit * 1000000000ull) {
        char why[128];
        snprintf(why, sizeof(why), "did not answer connection requests for %ld s", limit);
        ibex_verbs_ep_unreachable(ep, why);
        return;
    }
    if (waited >= CM_WARN_FIRST_NS && waited >= 2 * ep->cm_warned) {
        ibex_warn(TL,
                  "rank %d on %s has not answered a connection request for %llu s: it makes "
                  "no MPI call, or is gone",
                  ep->peer, ibex_boot_peer_host(ep->peer),
                  (unsigned long long)(waited / 1000000000ull));
        ep->cm_warned = waited;
    }
    cm_send(ep, ep->state == VERBS_EP_REQ_SENT ? CM_REQ : CM_REP);
    ep->cm_gap = ep->cm_gap * 2 < VERBS_CM_BACKOFF_NS ? ep->cm_gap * 2 : VERBS_CM_BACKOFF_NS;
    ep->cm_next = now + ep->cm_gap;
}

void ibex_verbs_cm_timers(ibex_tl_t *tl)
{
    uint64_t now = now_ns();
    ibex_tl_ep_t **pp = &tl->cm_wait;
    while (*pp) {
        ibex_tl_ep_t *ep = *pp;
        if (!ep->failed && ep->state != VERBS_EP_CONNECTED)
            cm_tick(ep, now);
        if (ep->failed || ep->state == VERBS_EP_CONNECTED) {
            *pp = ep->cm_next_ep; /* done: leave the list */
            continue;
        }
        pp = &ep->cm_next_ep;
    }
}
