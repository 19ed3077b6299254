/*
 * Queue pairs and connections. open() creates one RC QP per peer and moves it to INIT; their
 * numbers go into the published address (qpn[peer]). A connection is brought up (RTR, RTS) from
 * the peer's published address: the peer's QP number for us is its qpn[our rank].
 *
 * Both sides of an RC connection must be at least RTR before the first packet, but the runtime
 * connects lazily and only from the sending side. So the first progress() or ep_create() call
 * connects every peer from its published address (ibex_boot_get of "ibex.tl.verbs", read after
 * the runtime's start-up fence): all-to-all, the known scaling limit (README.md).
 */
#include <stdlib.h>
#include <string.h>

#include "../../runtime/ibex_boot.h"
#include "../../runtime/ibex_config.h"
#include "../../runtime/ibex_log.h"
#include "verbs.h"

static uint32_t qpn_hash(uint32_t qpn)
{
    return qpn * 2654435761u;
}

static void qpn_map_add(ibex_tl_t *tl, uint32_t qpn, int peer)
{
    uint32_t i = qpn_hash(qpn) & tl->qpn_mask;
    while (tl->qpn_map[i])
        i = (i + 1) & tl->qpn_mask;
    tl->qpn_keys[i] = qpn;
    tl->qpn_map[i] = (uint32_t)peer + 1;
}

ibex_tl_ep_t *ibex_verbs_ep_by_qpn(ibex_tl_t *tl, uint32_t qpn)
{
    uint32_t i = qpn_hash(qpn) & tl->qpn_mask;
    while (tl->qpn_map[i]) {
        if (tl->qpn_keys[i] == qpn)
            return &tl->eps[tl->qpn_map[i] - 1];
        i = (i + 1) & tl->qpn_mask;
    }
    return NULL;
}

static struct ibv_qp *qp_create(ibex_tl_t *tl, uint32_t *inline_p)
{
    struct ibv_qp_init_attr attr = {
        .send_cq = tl->cq,
        .recv_cq = tl->cq,
        .srq = tl->srq,
        .cap = {.max_send_wr = VERBS_SQ_DEPTH,
                .max_send_sge = 2,
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
        .qp_access_flags =
            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
    };
    return ibv_modify_qp(qp, &a,
                         IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static ibex_status_t ep_init(ibex_tl_t *tl, ibex_tl_ep_t *ep, int peer)
{
    uint32_t bl = 4;
    while (bl < tl->grant + 4)
        bl <<= 1;
    ep->tl = tl;
    ep->peer = peer;
    ep->rel = calloc(VERBS_SQ_DEPTH, sizeof(*ep->rel));
    ep->backlog = calloc(bl, sizeof(*ep->backlog));
    ep->bl_mask = bl - 1;
    ep->credit_thr = tl->grant / 2 ? tl->grant / 2 : 1;
    if (!ep->rel || !ep->backlog)
        return IBEX_ERR_NO_MEMORY;
    ep->qp = qp_create(tl, &tl->max_inline);
    if (!ep->qp) {
        ibex_error(TL, "cannot create an rc queue pair on %s for peer rank %d: %m", tl->dev_name,
                   peer);
        return IBEX_ERR_NO_MEMORY;
    }
    int rc = qp_to_init(tl, ep->qp);
    if (rc) {
        ibex_error(TL, "cannot move qp 0x%x to INIT on %s: %s", ep->qp->qp_num, tl->dev_name,
                   strerror(rc));
        return IBEX_ERR_IO;
    }
    qpn_map_add(tl, ep->qp->qp_num, peer);
    return IBEX_OK;
}

ibex_status_t ibex_verbs_qps_create(ibex_tl_t *tl)
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
    tl->max_inline = VERBS_INLINE_WANT;
    for (int i = 0; i < size; i++) { /* our own rank too: a loopback QP */
        ibex_status_t st = ep_init(tl, &tl->eps[i], i);
        if (st != IBEX_OK)
            return st;
    }
    return IBEX_OK;
}

void ibex_verbs_qps_destroy(ibex_tl_t *tl)
{
    if (!tl->eps)
        return;
    for (int i = 0; i < tl->params.size; i++) {
        ibex_tl_ep_t *ep = &tl->eps[i];
        if (ep->qp && ibv_destroy_qp(ep->qp))
            ibex_warn(TL, "cannot destroy qp 0x%x of peer rank %d: %m", ep->qp->qp_num, i);
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

static int qp_to_rts(ibex_tl_t *tl, ibex_tl_ep_t *ep)
{
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_RTS,
        .timeout = (uint8_t)ibex_config.verbs_rc_timeout,
        .retry_cnt = (uint8_t)ibex_config.verbs_retry_count,
        .rnr_retry = 7, /* credits make RNR impossible; 7 = retry forever if it happens */
        .sq_psn = 0,
        .max_rd_atomic = (uint8_t)ep->rd_max,
    };
    return ibv_modify_qp(ep->qp, &a,
                         IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                             IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static ibex_status_t addr_check(ibex_tl_t *tl, int peer, const void *addr, size_t len)
{
    const verbs_addr_t *pa = addr;
    if (!addr || len < sizeof(*pa) || pa->magic != VERBS_ADDR_MAGIC ||
        pa->nqpn != (uint32_t)tl->params.size || len < sizeof(*pa) + 4u * pa->nqpn) {
        ibex_error(TL, "rank %d on %s published no valid verbs address (%zu bytes)", peer,
                   ibex_boot_peer_host(peer), len);
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

ibex_status_t ibex_verbs_ep_connect(ibex_tl_t *tl, int peer, const void *addr, size_t len)
{
    ibex_tl_ep_t *ep = &tl->eps[peer];
    if (ep->connected)
        return IBEX_OK;
    ibex_status_t st = addr_check(tl, peer, addr, len);
    if (st != IBEX_OK)
        return st;
    const verbs_addr_t *pa = addr;
    uint32_t dqpn;
    memcpy(&dqpn, (const char *)addr + sizeof(*pa) + 4u * (uint32_t)tl->params.rank, 4);
    ep->rd_max = pa->max_dest_rd < tl->dev_attr.max_qp_init_rd_atom
                     ? pa->max_dest_rd
                     : tl->dev_attr.max_qp_init_rd_atom;
    if (ep->rd_max == 0)
        ep->rd_max = 1;
    int rc = qp_to_rtr(tl, ep, pa, dqpn);
    if (!rc)
        rc = qp_to_rts(tl, ep);
    if (rc) {
        ibex_error(TL, "cannot connect qp 0x%x to rank %d on %s (lid %u qp 0x%x): %s",
                   ep->qp->qp_num, peer, ibex_boot_peer_host(peer), pa->lid, dqpn, strerror(rc));
        return IBEX_ERR_IO;
    }
    ep->credits = pa->grant;
    ep->sq_avail = VERBS_SQ_DEPTH;
    ep->connected = true;
    ibex_debug(TL, "qp 0x%x connected to rank %d (lid %u qp 0x%x mtu %s, %u credits)",
               ep->qp->qp_num, peer, pa->lid, dqpn, ibex_verbs_mtu_str(pa->mtu), ep->credits);
    return IBEX_OK;
}

/* The loopback connection: our QP for ourselves, from our own address. */
static ibex_status_t connect_self(ibex_tl_t *tl)
{
    size_t len = sizeof(verbs_addr_t) + 4u * (size_t)tl->params.size;
    void *addr = malloc(len);
    if (!addr)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st = ibex_verbs_addr_pack(tl, addr, &len);
    if (st == IBEX_OK)
        st = ibex_verbs_ep_connect(tl, tl->params.rank, addr, len);
    free(addr);
    return st;
}

void ibex_verbs_ep_connect_all(ibex_tl_t *tl)
{
    tl->wired = true;
    for (int i = 0; i < tl->params.size; i++) {
        if (tl->eps[i].connected || tl->eps[i].failed)
            continue;
        void *addr = NULL;
        size_t len = 0;
        ibex_status_t st;
        if (i == tl->params.rank) {
            st = connect_self(tl);
        } else {
            st = ibex_boot_get(i, "ibex.tl.verbs", &addr, &len);
            if (st == IBEX_OK)
                st = ibex_verbs_ep_connect(tl, i, addr, len);
            else
                ibex_debug(TL, "rank %d published no verbs address: %s", i, ibex_status_str(st));
        }
        free(addr);
        if (st != IBEX_OK) {
            tl->eps[i].failed = true;
            tl->eps[i].fail_status = IBEX_ERR_UNREACHABLE;
        }
    }
}

ibex_status_t ibex_verbs_addr_pack(ibex_tl_t *tl, void *buf, size_t *len_p)
{
    size_t need = sizeof(verbs_addr_t) + 4u * (size_t)tl->params.size;
    if (*len_p < need) {
        ibex_error(TL, "verbs address needs %zu bytes, the runtime offers %zu", need, *len_p);
        return IBEX_ERR_INVALID;
    }
    memcpy(buf, &tl->addr, sizeof(tl->addr));
    char *qpn = (char *)buf + sizeof(tl->addr);
    for (int i = 0; i < tl->params.size; i++) {
        uint32_t q = tl->eps[i].qp ? tl->eps[i].qp->qp_num : 0;
        memcpy(qpn + 4 * (size_t)i, &q, 4);
    }
    *len_p = need;
    return IBEX_OK;
}

ibex_status_t ibex_verbs_ep_create(ibex_tl_t *tl, int peer, const void *addr, size_t addr_len,
                                   ibex_tl_ep_t **ep_p)
{
    if (peer < 0 || peer >= tl->params.size)
        return IBEX_ERR_INVALID;
    ibex_status_t st = peer == tl->params.rank ? connect_self(tl)
                                               : ibex_verbs_ep_connect(tl, peer, addr, addr_len);
    if (st != IBEX_OK)
        return st;
    if (!tl->wired)
        ibex_verbs_ep_connect_all(tl);
    *ep_p = &tl->eps[peer];
    return IBEX_OK;
}

void ibex_verbs_ep_destroy(ibex_tl_ep_t *ep)
{
    /* The QP lives until close: the peer may still send to it. */
    (void)ep;
}
