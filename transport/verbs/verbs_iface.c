/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs transport instance: open (device, PD, CQ, SRQ, buffers, the connection manager's UD
 * QP, the loopback QP), progress and close. One CQ serves sends and receives of every QP, the UD
 * one included, so progress polls once.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ibex_config.h"
#include "ibex_log.h"
#include "verbs.h"

verbs_cfg_t ibex_verbs_cfg;

static const ibex_cfg_entry_t verbs_table[] = {
    {"VERBS_DEVICE", IBEX_CFG_STRING, "auto", NULL, &ibex_verbs_cfg.device,
     "RDMA device and port, as device[:port]; auto picks the active port nearest the rank"},
    {"VERBS_SRQ_SIZE", IBEX_CFG_INT, "512", NULL, &ibex_verbs_cfg.srq_size,
     "eager receive buffers posted to the shared receive queue"},
    {"VERBS_BUF_SIZE", IBEX_CFG_SIZE, "8k", NULL, &ibex_verbs_cfg.buf_size,
     "bytes per eager receive buffer, header included"},
    {"VERBS_CREDITS", IBEX_CFG_INT, "32", NULL, &ibex_verbs_cfg.credits,
     "eager messages in flight to one peer before the sender waits for credits"},
    {"VERBS_RC_TIMEOUT", IBEX_CFG_INT, "14", NULL, &ibex_verbs_cfg.rc_timeout,
     "RC local ack timeout exponent: 4.096 us * 2^n"},
    {"VERBS_RETRY_COUNT", IBEX_CFG_INT, "7", NULL, &ibex_verbs_cfg.retry_count,
     "RC transport retries before a peer is declared unreachable"},
    {"VERBS_RCACHE_MAX", IBEX_CFG_SIZE, "1g", NULL, &ibex_verbs_cfg.rcache_max,
     "bytes kept registered by the registration cache (least recently used evicted)"},
    {"VERBS_RCACHE_HOT", IBEX_CFG_INT, "4", NULL, &ibex_verbs_cfg.rcache_hot,
     "registrations last looked up that the next lookup finds without the cache's lock, each "
     "kept registered while it stays among them (0 to 8; 0: every lookup takes the lock)"},
    {"VERBS_CONNECT_TIMEOUT", IBEX_CFG_INT, "0", NULL, &ibex_verbs_cfg.connect_timeout,
     "seconds a peer may leave a connection request unanswered before it is declared unreachable "
     "(0: wait, warning from 10 s on)"},
    {"VERBS_FORK", IBEX_CFG_BOOL, "0", NULL, &ibex_verbs_cfg.fork,
     "call ibv_fork_init() at start-up so the program may fork() safely"},
};
IBEX_CFG_MODULE(verbs, "verbs", IBEX_CFG_LAYER_TRANSPORT, verbs_table);

/* SRQ buffers and the credits each peer gets: the SRQ holds peers * (grant + 2) buffers, the 2
 * for explicit credit messages, which cost the sender no credit. */
static ibex_status_t size_queues(ibex_tl_t *tl)
{
    uint32_t npeers = (uint32_t)tl->params.size; /* ourselves included: loopback QP */
    uint32_t want = ibex_verbs_cfg.srq_size > 0 ? (uint32_t)ibex_verbs_cfg.srq_size : 512;
    uint32_t credits = ibex_verbs_cfg.credits > 0 ? (uint32_t)ibex_verbs_cfg.credits : 1;
    uint32_t maxwr = (uint32_t)tl->dev_attr.max_srq_wr;
    if (want < npeers * 3)
        want = npeers * 3;
    if (maxwr && want > maxwr)
        want = maxwr;
    tl->grant = want / npeers >= 3 ? want / npeers - 2 : 0;
    if (tl->grant > credits)
        tl->grant = credits;
    if (tl->grant == 0) {
        ibex_error(TL, "%s takes %u receive buffers, too few for %u peers", tl->dev_name, maxwr,
                   npeers);
        return IBEX_ERR_NO_DEVICE;
    }
    tl->nrbufs = npeers * (tl->grant + 2);
    tl->rma_frag = VERBS_RMA_FRAG;
    if (tl->port_attr.max_msg_sz >= 4096 && tl->port_attr.max_msg_sz < tl->rma_frag)
        tl->rma_frag = tl->port_attr.max_msg_sz;
    /* a READ's gather list is bounded by max_sge_rd, a WRITE's by max_sge; both by our cap */
    tl->rma_sge = VERBS_RMA_SGE;
    if (tl->dev_attr.max_sge > 0 && (uint32_t)tl->dev_attr.max_sge < tl->rma_sge)
        tl->rma_sge = (uint32_t)tl->dev_attr.max_sge;
    if (tl->dev_attr.max_sge_rd > 0 && (uint32_t)tl->dev_attr.max_sge_rd < tl->rma_sge)
        tl->rma_sge = (uint32_t)tl->dev_attr.max_sge_rd;
    if (tl->rma_sge < 2)
        tl->rma_sge = 2; /* the eager path's header + payload already needs two */
    tl->buf_size = ibex_verbs_cfg.buf_size >= 256 ? (size_t)ibex_verbs_cfg.buf_size : 256;
    /* A small CQ: its entries are a ring the device writes and we read. Measured on softib,
     * 4096 entries of send room made the first ~7k 8-byte round trips 40% slower than 256 (the
     * ring's first laps run cold); more room buys nothing: fragments are 1 MiB, and eager sends
     * beyond it wait as AGAIN. */
    int extra = VERBS_CQ_SEND_ROOM + 64 + VERBS_CM_RECVS + VERBS_CM_SENDS;
    tl->cq_size = (int)tl->nrbufs + extra;
    if (tl->dev_attr.max_cqe > 0 && tl->cq_size > tl->dev_attr.max_cqe)
        tl->cq_size = tl->dev_attr.max_cqe;
    tl->cq_room = tl->cq_size - (int)tl->nrbufs - 64 - VERBS_CM_RECVS - VERBS_CM_SENDS;
    if (tl->cq_room < 16) {
        ibex_error(TL, "the cq of %s is too small (%d entries)", tl->dev_name, tl->cq_size);
        return IBEX_ERR_NO_DEVICE;
    }
    return IBEX_OK;
}

static ibex_status_t resources_create(ibex_tl_t *tl)
{
    tl->pd = ibv_alloc_pd(tl->ctx);
    if (!tl->pd) {
        ibex_error(TL, "cannot allocate a protection domain on %s: %m", tl->dev_name);
        return IBEX_ERR_NO_MEMORY;
    }
    ibex_status_t st = size_queues(tl);
    if (st != IBEX_OK)
        return st;
    tl->cq = ibv_create_cq(tl->ctx, tl->cq_size, NULL, NULL, 0);
    struct ibv_srq_init_attr sa = {.attr = {.max_wr = tl->nrbufs, .max_sge = 1}};
    tl->srq = tl->cq ? ibv_create_srq(tl->pd, &sa) : NULL;
    if (!tl->cq || !tl->srq) {
        ibex_error(TL, "cannot create the %s on %s (%d entries): %m", tl->cq ? "srq" : "cq",
                   tl->dev_name, tl->cq ? (int)tl->nrbufs : tl->cq_size);
        return IBEX_ERR_NO_MEMORY;
    }
    uint32_t rd = (uint32_t)tl->dev_attr.max_qp_rd_atom;
    tl->addr.max_dest_rd = (uint8_t)(rd > 0 ? (rd > 255 ? 255 : rd) : 1);
    tl->addr.grant = tl->grant;
    st = ibex_verbs_bufs_create(tl);
    if (st == IBEX_OK)
        st = ibex_verbs_srq_fill(tl);
    if (st == IBEX_OK)
        st = ibex_verbs_rcache_init(&tl->rcache, tl->pd, (size_t)ibex_verbs_cfg.rcache_max);
    if (st == IBEX_OK)
        st = ibex_verbs_eps_create(tl);
    if (st == IBEX_OK)
        st = ibex_verbs_cm_open(tl);
    return st;
}

static void resources_destroy(ibex_tl_t *tl)
{
    ibex_verbs_cm_close(tl);
    ibex_verbs_eps_destroy(tl);
    ibex_verbs_rma_free_all(tl);
    if (tl->rcache.pd)
        ibex_verbs_rcache_fini(&tl->rcache);
    if (tl->srq)
        ibv_destroy_srq(tl->srq);
    ibex_verbs_bufs_destroy(tl);
    if (tl->cq)
        ibv_destroy_cq(tl->cq);
    if (tl->pd)
        ibv_dealloc_pd(tl->pd);
    if (tl->ctx)
        ibv_close_device(tl->ctx);
    free(tl);
}

static void caps_fill(ibex_tl_t *tl, ibex_tl_caps_t *caps)
{
    /* IBV_ATOMIC_HCA: atomic among the device's own atomics, which is what windows need (every
     * atomic to a window goes through the device); IBV_ATOMIC_GLOB would do too */
    bool atomics = tl->dev_attr.atomic_cap != IBV_ATOMIC_NONE;
    *caps = (ibex_tl_caps_t){
        .flags = IBEX_TL_CAP_SEND | IBEX_TL_CAP_PUT | IBEX_TL_CAP_GET | IBEX_TL_CAP_NEED_REG |
                 (tl->max_inline ? IBEX_TL_CAP_INLINE : 0) | (atomics ? IBEX_TL_CAP_ATOMIC : 0) |
                 IBEX_TL_CAP_RMA_IOV, /* gather / scatter lists, verbs_rma.c */
        .max_inline = tl->max_inline,
        .max_eager = tl->buf_size,
        .max_rma = tl->rma_frag,
        .rkey_size = 4,
        .addr_size = sizeof(verbs_addr_t),
        .eager_limit_hint = tl->buf_size,
        .latency_ns = 1500,
        .bandwidth_mbs = 10000,
        .max_iov = 1 << 20, /* any number: verbs_rma.c posts them rma_sge per WR */
    };
}

static ibex_status_t verbs_open(const ibex_tl_params_t *params, ibex_tl_t **tl_p,
                                ibex_tl_caps_t *caps_p)
{
    if (ibex_verbs_cfg.fork) {
        int rc = ibv_fork_init();
        if (rc)
            ibex_warn(TL, "ibv_fork_init failed: %s; fork() after MPI_Init is unsafe",
                      strerror(rc));
    }
    ibex_tl_t *tl = calloc(1, sizeof(*tl));
    if (!tl)
        return IBEX_ERR_NO_MEMORY;
    tl->params = *params;
    ibex_status_t st = ibex_verbs_dev_open(tl, params->requested);
    if (st == IBEX_OK)
        st = resources_create(tl);
    if (st != IBEX_OK) {
        resources_destroy(tl);
        return st;
    }
    caps_fill(tl, caps_p);
    ibex_debug(TL, "verbs: %u srq buffers of %zu bytes, %u credits per peer, inline %u, cq %d",
               tl->nrbufs, tl->buf_size, tl->grant, tl->max_inline, tl->cq_size);
    *tl_p = tl;
    return IBEX_OK;
}

static bool verbs_reachable(ibex_tl_t *tl, int peer)
{
    return peer >= 0 && peer < tl->params.size;
}

void ibex_verbs_work_add(ibex_tl_ep_t *ep)
{
    if (ep->on_work)
        return;
    ep->on_work = true;
    ep->work_next = ep->tl->work;
    ep->tl->work = ep;
}

static bool ep_has_work(const ibex_tl_ep_t *ep)
{
    if (ep->failed)
        return false;
    return ep->bl_head != ep->bl_tail || ep->rma_head || ibex_verbs_ep_credits_pending(ep);
}

static int work_run(ibex_tl_t *tl)
{
    int n = 0;
    ibex_tl_ep_t **pp = &tl->work;
    while (*pp) {
        ibex_tl_ep_t *ep = *pp;
        if (!ep->failed) {
            n += ibex_verbs_ep_work_recv(ep);
            n += ibex_verbs_ep_work_rma(ep);
        }
        if (ep_has_work(ep)) {
            pp = &ep->work_next;
            continue;
        }
        *pp = ep->work_next;
        ep->on_work = false;
    }
    return n;
}

static void wc_handle(ibex_tl_t *tl, const struct ibv_wc *wc)
{
    unsigned kind = VERBS_WR_KIND(wc->wr_id);
    if (kind == VERBS_WR_RECV) {
        if (__builtin_expect(wc->status == IBV_WC_SUCCESS, 1))
            ibex_verbs_recv_done(tl, wc);
        else
            ibex_verbs_recv_error(tl, wc);
        return;
    }
    if (__builtin_expect(kind >= VERBS_WR_CM_RECV, 0)) {
        ibex_verbs_cm_wc(tl, wc);
        return;
    }
    ibex_tl_ep_t *ep = ibex_verbs_ep_by_qpn(tl, wc->qp_num);
    if (ep)
        ibex_verbs_send_done(ep, wc);
    else
        ibex_warn(TL, "completion for unknown qp 0x%x ignored", wc->qp_num);
}

static int verbs_progress(ibex_tl_t *tl)
{
    struct ibv_wc wc[VERBS_POLL_BATCH];
    if (__builtin_expect(tl->cm_wait != NULL, 0))
        ibex_verbs_cm_timers(tl);
    int n = ibv_poll_cq(tl->cq, VERBS_POLL_BATCH, wc);
    if (__builtin_expect(n < 0, 0)) {
        ibex_error(TL, "polling the cq of %s failed (%d)", tl->dev_name, n);
        n = 0;
    }
    for (int i = 0; i < n; i++)
        wc_handle(tl, &wc[i]);
    if (tl->work)
        n += work_run(tl);
    return n;
}

static bool sends_pending(ibex_tl_t *tl)
{
    if (tl->rma_out > 0)
        return true;
    for (int i = 0; i < tl->params.size; i++)
        if (!tl->eps[i].failed && tl->eps[i].rel_head != tl->eps[i].rel_tail)
            return true;
    return false;
}

static void verbs_close(ibex_tl_t *tl)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* drain: signalled sends and transfers still outstanding, for at most 2 s */
    while (sends_pending(tl)) {
        if (verbs_progress(tl) == 0) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if (t.tv_sec - t0.tv_sec > 2) {
                ibex_warn(TL, "verbs close: work still outstanding after 2 s, destroying anyway");
                break;
            }
        }
    }
    resources_destroy(tl);
}

/* Last: reaches every peer, but the others are faster where they reach. */
static ibex_tl_component_t verbs_component = {
    .name = "verbs",
    .priority = 30,
    .ops =
        {
            .open = verbs_open,
            .close = verbs_close,
            .addr_pack = ibex_verbs_addr_pack,
            .reachable = verbs_reachable,
            .ep_create = ibex_verbs_ep_create,
            .ep_destroy = ibex_verbs_ep_destroy,
            .send = ibex_verbs_send,
            .put = ibex_verbs_put,
            .get = ibex_verbs_get,
            .atomic = ibex_verbs_atomic,
            .mem_reg = ibex_verbs_mem_reg,
            .mem_dereg = ibex_verbs_mem_dereg,
            .mem_pack_rkey = ibex_verbs_mem_pack_rkey,
            .mem_alloc = ibex_verbs_mem_alloc,
            .mem_free = ibex_verbs_mem_free,
            .progress = verbs_progress,
            .info = ibex_verbs_dev_info,
            .stats = ibex_verbs_stats,
        },
};
IBEX_TL_REGISTER(verbs_component);
