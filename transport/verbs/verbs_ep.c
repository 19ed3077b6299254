/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints and their RC queue pairs: creation on first use (INIT), RTR / RTS against the peer's
 * QP, the QP-number -> peer map, the published address. The handshake that tells each side the
 * other's QP number is in verbs_cm.c; our own rank is connected to itself here, at once, through
 * the loopback QP created at open (which also tells the device's inline limit).
 */
#include <stdlib.h>
#include <string.h>

#include "ibex_boot.h"
#include "ibex_log.h"
#include "verbs.h"
#include "verbs_wire.h"

static void qpn_map_add(ibex_tl_t *tl, uint32_t qpn, int peer)
{
    uint32_t i = ibex_verbs_qpn_hash(qpn) & tl->qpn_mask;
    while (tl->qpn_map[i])
        i = (i + 1) & tl->qpn_mask;
    tl->qpn_keys[i] = qpn;
    tl->qpn_map[i] = (uint32_t)peer + 1;
}

static struct ibv_qp *qp_create(ibex_tl_t *tl, uint32_t *inline_p)
{
    struct ibv_qp_init_attr attr = {
        .send_cq = tl->cq,
        .recv_cq = tl->cq,
        .srq = tl->srq,
        .cap = {.max_send_wr = VERBS_SQ_DEPTH,
                .max_send_sge = tl->rma_sge, /* header + payload; piece lists */
                .max_recv_sge = 1,
                .max_inline_data = *inline_p},
        .qp_type = IBV_QPT_RC,
    };
    struct ibv_qp *qp = ibv_create_qp(tl->pd, &attr);
    /* devices differ in how much inline data they take: ask less until one accepts */
    while (!qp && attr.cap.max_inline_data > 0) {
        attr.cap.max_inline_data /= 2;
        qp = ibv_create_qp(tl->pd, &attr);
    }
    if (qp)
        *inline_p = attr.cap.max_inline_data;
    return qp;
}

static int qp_to_init(ibex_tl_t *tl, struct ibv_qp *qp)
{
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_INIT,
        .pkey_index = 0,
        .port_num = tl->port,
        .qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                           IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
    };
    return ibv_modify_qp(qp, &a,
                         IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static void ep_init(ibex_tl_t *tl, ibex_tl_ep_t *ep, int peer)
{
    ep->tl = tl;
    ep->peer = peer;
    ep->credit_thr = tl->grant / 2 ? tl->grant / 2 : 1;
}

ibex_status_t ibex_verbs_ep_qp(ibex_tl_ep_t *ep)
{
    ibex_tl_t *tl = ep->tl;
    uint32_t bl = 4;
    while (bl < tl->grant + 4)
        bl <<= 1;
    ep->rel = calloc(VERBS_SQ_DEPTH, sizeof(*ep->rel));
    ep->backlog = calloc(bl, sizeof(*ep->backlog));
    ep->bl_mask = bl - 1;
    if (!ep->rel || !ep->backlog)
        return IBEX_ERR_NO_MEMORY;
    ep->qp = qp_create(tl, &tl->max_inline);
    if (!ep->qp) {
        ibex_error(TL, "cannot create an rc queue pair on %s for peer rank %d: %m", tl->dev_name,
                   ep->peer);
        return IBEX_ERR_NO_MEMORY;
    }
    int rc = qp_to_init(tl, ep->qp);
    if (rc) {
        ibex_error(TL, "cannot move qp 0x%x to INIT on %s: %s", ep->qp->qp_num, tl->dev_name,
                   strerror(rc));
        return IBEX_ERR_IO;
    }
    qpn_map_add(tl, ep->qp->qp_num, ep->peer);
    return IBEX_OK;
}

ibex_status_t ibex_verbs_eps_create(ibex_tl_t *tl)
{
    int size = tl->params.size;
    uint32_t m = 16;
    while (m < 2u * (uint32_t)size)
        m <<= 1;
    tl->qpn_mask = m - 1;
    tl->qpn_map = calloc(m, sizeof(*tl->qpn_map));
    tl->qpn_keys = calloc(m, sizeof(*tl->qpn_keys));
    tl->eps = calloc((size_t)size, sizeof(*tl->eps));
    if (!tl->qpn_map || !tl->qpn_keys || !tl->eps)
        return IBEX_ERR_NO_MEMORY;
    for (int i = 0; i < size; i++)
        ep_init(tl, &tl->eps[i], i);
    /* the loopback QP now: creating it settles the inline limit the caps report */
    tl->max_inline = VERBS_INLINE_WANT;
    return ibex_verbs_ep_qp(&tl->eps[tl->params.rank]);
}

void ibex_verbs_eps_destroy(ibex_tl_t *tl)
{
    if (!tl->eps)
        return;
    for (int i = 0; i < tl->params.size; i++) {
        ibex_tl_ep_t *ep = &tl->eps[i];
        if (ep->qp && ibv_destroy_qp(ep->qp))
            ibex_warn(TL, "cannot destroy qp 0x%x of peer rank %d: %m", ep->qp->qp_num, i);
        if (ep->ah)
            ibv_destroy_ah(ep->ah);
        free(ep->rel);
        free(ep->backlog);
    }
    free(tl->eps);
    free(tl->qpn_map);
    free(tl->qpn_keys);
    tl->eps = NULL;
}

static int qp_to_rtr(ibex_tl_t *tl, ibex_tl_ep_t *ep, const verbs_addr_t *pa, uint32_t dqpn)
{
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_RTR,
        .path_mtu = pa->mtu < tl->addr.mtu ? pa->mtu : tl->addr.mtu,
        .dest_qp_num = dqpn,
        .rq_psn = 0,
        .max_dest_rd_atomic = tl->addr.max_dest_rd,
        .min_rnr_timer = 12,
        .ah_attr = {.dlid = pa->lid, .sl = 0, .src_path_bits = 0, .port_num = tl->port},
    };
    if (pa->is_roce) {
        a.ah_attr.is_global = 1;
        memcpy(a.ah_attr.grh.dgid.raw, pa->gid, 16);
        a.ah_attr.grh.sgid_index = tl->addr.gid_index;
        a.ah_attr.grh.hop_limit = 64;
    }
    return ibv_modify_qp(ep->qp, &a,
                         IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                             IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}

static int qp_to_rts(ibex_tl_ep_t *ep)
{
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_RTS,
        .timeout = (uint8_t)ibex_verbs_cfg.rc_timeout,
        .retry_cnt = (uint8_t)ibex_verbs_cfg.retry_count,
        .rnr_retry = 7, /* credits make RNR impossible; 7 = retry forever if it happens */
        .sq_psn = 0,
        .max_rd_atomic = (uint8_t)ep->rd_max,
    };
    return ibv_modify_qp(ep->qp, &a,
                         IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                             IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

ibex_status_t ibex_verbs_addr_check(ibex_tl_t *tl, int peer, const void *addr, size_t len)
{
    const verbs_addr_t *pa = addr;
    char why[80];
    if (!ibex_verbs_addr_valid(addr, len, why, sizeof(why))) {
        ibex_error(TL, "rank %d on %s published no valid verbs address (%s)", peer,
                   ibex_boot_peer_host(peer), why);
        return IBEX_ERR_UNREACHABLE;
    }
    if (pa->is_roce != tl->addr.is_roce) {
        ibex_error(TL, "rank %d on %s uses %s but this rank uses %s: no common link layer", peer,
                   ibex_boot_peer_host(peer), pa->is_roce ? "roce" : "infiniband",
                   tl->addr.is_roce ? "roce" : "infiniband");
        return IBEX_ERR_UNREACHABLE;
    }
    return IBEX_OK;
}

ibex_status_t ibex_verbs_ep_rts(ibex_tl_ep_t *ep, uint32_t dqpn)
{
    ibex_tl_t *tl = ep->tl;
    const verbs_addr_t *pa = &ep->paddr;
    ep->rd_max = pa->max_dest_rd < tl->dev_attr.max_qp_init_rd_atom
                     ? pa->max_dest_rd
                     : tl->dev_attr.max_qp_init_rd_atom;
    if (ep->rd_max == 0)
        ep->rd_max = 1;
    int rc = qp_to_rtr(tl, ep, pa, dqpn);
    if (!rc)
        rc = qp_to_rts(ep);
    if (rc) {
        ibex_error(TL, "cannot connect qp 0x%x to rank %d on %s (lid %u qp 0x%x): %s",
                   ep->qp->qp_num, ep->peer, ibex_boot_peer_host(ep->peer), pa->lid, dqpn,
                   strerror(rc));
        return IBEX_ERR_IO;
    }
    ep->dqpn = dqpn;
    ibex_debug(TL, "qp 0x%x of rank %d ready against qp 0x%x (lid %u, mtu %s)", ep->qp->qp_num,
               ep->peer, dqpn, pa->lid, ibex_verbs_mtu_str(pa->mtu));
    return IBEX_OK;
}

void ibex_verbs_ep_established(ibex_tl_ep_t *ep)
{
    ep->state = VERBS_EP_CONNECTED;
    ep->credits = ep->paddr.grant;
    ep->sq_avail = VERBS_SQ_DEPTH;
    ibex_debug(TL, "connected to rank %d (%u credits)", ep->peer, ep->credits);
    if (ep->rma_head || ep->owed)
        ibex_verbs_work_add(ep);
}

/* The loopback connection: our QP for ourselves. */
static ibex_status_t connect_self(ibex_tl_ep_t *ep)
{
    ep->paddr = ep->tl->addr;
    ep->have_addr = true;
    ibex_status_t st = ibex_verbs_ep_rts(ep, ep->qp->qp_num);
    if (st == IBEX_OK)
        ibex_verbs_ep_established(ep);
    return st;
}

ibex_status_t ibex_verbs_addr_pack(ibex_tl_t *tl, void *buf, size_t *len_p)
{
    if (*len_p < sizeof(verbs_addr_t)) {
        ibex_error(TL, "verbs address needs %zu bytes, the runtime offers %zu",
                   sizeof(verbs_addr_t), *len_p);
        return IBEX_ERR_INVALID;
    }
    memcpy(buf, &tl->addr, sizeof(tl->addr));
    *len_p = sizeof(tl->addr);
    return IBEX_OK;
}

ibex_status_t ibex_verbs_ep_create(ibex_tl_t *tl, int peer, const void *addr, size_t addr_len,
                                   ibex_tl_ep_t **ep_p)
{
    if (peer < 0 || peer >= tl->params.size)
        return IBEX_ERR_INVALID;
    ibex_tl_ep_t *ep = &tl->eps[peer];
    ibex_status_t st = IBEX_OK;
    if (ep->failed) {
        st = ep->fail_status;
    } else if (peer == tl->params.rank) {
        if (ep->state != VERBS_EP_CONNECTED)
            st = connect_self(ep);
    } else if (ep->state == VERBS_EP_IDLE) {
        /* (if the peer asked first, the handshake is under way and its address came with it) */
        st = ibex_verbs_addr_check(tl, peer, addr, addr_len);
        if (st == IBEX_OK) {
            memcpy(&ep->paddr, addr, sizeof(ep->paddr));
            ep->have_addr = true;
            st = ibex_verbs_cm_connect(ep);
        }
    }
    if (st != IBEX_OK)
        return st;
    *ep_p = ep;
    return IBEX_OK;
}

void ibex_verbs_ep_destroy(ibex_tl_ep_t *ep)
{
    /* The QP lives until close: the peer may still send to it. */
    (void)ep;
}
