/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib unreliable datagrams: address handles, and what the "wire" does for
 * one UD send.
 *
 * A UD request executes inside ibv_post_send and never waits. Its datagram
 * goes to the QP that the address handle and remote QPN name at that moment;
 * anything that would lose it on a real fabric (unknown LID, GID or QPN, a QP
 * of another transport or not ready to receive, a wrong Q_Key, no receive
 * posted, a dead peer, an injected drop) drops it silently, and the send still
 * completes successfully. Local errors complete the send in error and put the
 * QP in SQE. The first 40 bytes of every receive buffer belong to the GRH.
 */
#include "softib_ops.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SIB_CONTROLLED_QKEY 0x80000000u
#define SIB_IB_NEXT_HDR     0x1b /* GRH next header: IBA transport */
#define SIB_IPPROTO_UDP     17
#define SIB_ROCE_V2_GID     1            /* RoCE mode: GID index 1 is RoCE v2 (IPv4) */
#define SIB_UD_HDRS         (12 + 8 + 4) /* BTH, DETH and ICRC, counted in PayLen */
#define SIB_UDP_HDR         8

static int ah_attr_check(struct ibv_pd *pd, const struct ibv_ah_attr *attr)
{
    if (!pd || !attr)
        return EINVAL;
    return sib_av_check(attr);
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
    struct sib_ah *ah;
    int rc = ah_attr_check(pd, attr);

    ah = rc ? NULL : calloc(1, sizeof(*ah));
    if (!ah) {
        errno = rc ? rc : ENOMEM;
        return NULL;
    }
    ah->ibv = (struct ibv_ah){.context = pd->context, .pd = pd};
    ah->attr = *attr;
    ah->lid = sib_av_lid(attr);
    atomic_fetch_add(&((struct sib_pd *)pd)->nah, 1);
    return &ah->ibv;
}

int ibv_destroy_ah(struct ibv_ah *ibah)
{
    atomic_fetch_sub(&((struct sib_pd *)ibah->pd)->nah, 1);
    free(ibah);
    return 0;
}

/* RoCE v2 over IPv4 carries an IPv4 header in the last 20 bytes of the GRH area. */
static bool grh_is_ipv4(const struct ibv_grh *grh)
{
    const uint8_t *ip = (const uint8_t *)grh + 20;

    return (be32toh(grh->version_tclass_flow) >> 28) != 6 && (ip[0] >> 4) == 4;
}

/* The GID index of ours that a received datagram was sent to, or -1. */
static int ah_sgid_index(struct ibv_context *context, const union ibv_gid *dgid, bool v2)
{
    int i = sib_gid_find(sib_ctx_of(context)->seg->lid, dgid);

    return i >= 0 && v2 == (sib_cfg.roce && i == SIB_ROCE_V2_GID) ? i : -1;
}

static int ah_from_ipv4(struct ibv_context *context, const struct ibv_grh *grh,
                        struct ibv_ah_attr *a)
{
    const uint8_t *ip = (const uint8_t *)grh + 20;
    union ibv_gid ours = {.raw = {[10] = 0xff, [11] = 0xff}};
    int idx;

    memcpy(&ours.raw[12], ip + 16, 4);
    idx = ah_sgid_index(context, &ours, true);
    if (idx < 0)
        return -1;
    a->grh.dgid = (union ibv_gid){.raw = {[10] = 0xff, [11] = 0xff}};
    memcpy(&a->grh.dgid.raw[12], ip + 12, 4);
    a->grh.sgid_index = (uint8_t)idx;
    a->grh.hop_limit = ip[8];
    a->grh.traffic_class = ip[1];
    return 0;
}

static int ah_from_grh(struct ibv_context *context, const struct ibv_grh *grh,
                       struct ibv_ah_attr *a)
{
    uint32_t vtf = be32toh(grh->version_tclass_flow);
    int idx = grh->next_hdr == SIB_IB_NEXT_HDR ? ah_sgid_index(context, &grh->dgid, false) : -1;

    if (idx < 0)
        return -1;
    a->grh.dgid = grh->sgid;
    a->grh.sgid_index = (uint8_t)idx;
    a->grh.hop_limit = grh->hop_limit;
    a->grh.traffic_class = (uint8_t)(vtf >> 20);
    a->grh.flow_label = vtf & 0xfffff;
    return 0;
}

/* The address that answers a received datagram, as rdma-core derives it. */
int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num, struct ibv_wc *wc,
                        struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)
{
    memset(ah_attr, 0, sizeof(*ah_attr));
    ah_attr->dlid = wc->slid;
    ah_attr->sl = wc->sl;
    ah_attr->src_path_bits = wc->dlid_path_bits;
    ah_attr->port_num = port_num;
    if (!(wc->wc_flags & IBV_WC_GRH))
        return 0;
    ah_attr->is_global = 1;
    if ((grh_is_ipv4(grh) ? ah_from_ipv4 : ah_from_grh)(context, grh, ah_attr) == 0)
        return 0;
    errno = EINVAL;
    return -1;
}

struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
                                     uint8_t port_num)
{
    struct ibv_ah_attr a;

    if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &a))
        return NULL;
    return ibv_create_ah(pd, &a);
}

static void ud_drop(const struct sib_qp *qp, const struct sib_swqe *w, const char *why)
{
    sib_log("qp 0x%x: UD datagram of wr_id 0x%llx to lid %u qpn 0x%x dropped: %s", qp->ibv.qp_num,
            (unsigned long long)w->wr_id, w->ud.ah->lid, w->ud.rqpn, why);
}

/* Resolves the destination, cached per QP; false when nothing would receive it. */
static bool ud_peer(struct sib_qp *qp, uint32_t lid, uint32_t qpn, struct sib_peer *p)
{
    uint32_t s;

    if (!qp->peer || qp->lid != lid || qp->peer_qpn != qpn) {
        qp->lid = lid;
        qp->peer_qpn = qpn;
        qp->peer = sib_qp_lookup(lid, qpn, &qp->peer_off);
    }
    if (!qp->peer)
        return false;
    if (!sib_rctx_alive(qp->peer, false)) {
        qp->peer = NULL;
        return false;
    }
    p->r = qp->peer;
    p->q = sib_at(p->r->seg, qp->peer_off);
    s = atomic_load_explicit(&p->q->state, memory_order_acquire);
    if (p->q->qpn != qpn || s == SIB_QPS_FREED) {
        qp->peer = NULL;
        return false;
    }
    return p->q->type == IBV_QPT_UD && (s == IBV_QPS_RTR || s == IBV_QPS_RTS || s == IBV_QPS_SQE);
}

/* IPv4 header of a RoCE v2 datagram; tot is the IP packet's length. */
static void grh_ipv4(uint8_t *h, const struct ibv_ah_attr *a, const union ibv_gid *sgid,
                     uint32_t tot)
{
    uint32_t sum = 0;
    int i;

    h[0] = 0x45; /* version 4, 5 words */
    h[1] = a->grh.traffic_class;
    h[2] = (uint8_t)(tot >> 8);
    h[3] = (uint8_t)tot;
    h[6] = 0x40; /* don't fragment */
    h[8] = a->grh.hop_limit;
    h[9] = SIB_IPPROTO_UDP;
    memcpy(h + 12, sgid->raw + 12, 4);
    memcpy(h + 16, a->grh.dgid.raw + 12, 4);
    for (i = 0; i < 20; i += 2)
        sum += (uint32_t)h[i] << 8 | h[i + 1];
    sum = (sum & 0xffff) + (sum >> 16);
    sum = ~(sum + (sum >> 16));
    h[10] = (uint8_t)(sum >> 8);
    h[11] = (uint8_t)sum;
}

/* The 40 bytes that head the receive buffer: a GRH, or 20 zeros and an IPv4 header (RoCE v2). */
static void grh_build(const struct sib_qp *qp, const struct sib_swqe *w, uint64_t len, uint8_t *buf)
{
    const struct ibv_ah_attr *a = &w->ud.ah->attr;
    uint32_t pay = SIB_UD_HDRS + (w->opcode == IBV_WR_SEND_WITH_IMM ? 4 : 0) + ((len + 3) & ~3u);
    struct ibv_grh g = {0};
    union ibv_gid sgid;

    sib_gid_of(sib_ctx_of(qp->ibv.context)->seg->lid, a->grh.sgid_index, &sgid);
    if (sib_cfg.roce && a->grh.sgid_index == SIB_ROCE_V2_GID) {
        memset(buf, 0, SIB_GRH_LEN);
        grh_ipv4(buf + 20, a, &sgid, 20 + SIB_UDP_HDR + pay);
        return;
    }
    g.version_tclass_flow =
        htobe32(6u << 28 | (uint32_t)a->grh.traffic_class << 20 | (a->grh.flow_label & 0xfffff));
    g.paylen = htobe16((uint16_t)pay);
    g.next_hdr = SIB_IB_NEXT_HDR;
    g.hop_limit = a->grh.hop_limit;
    g.sgid = sgid;
    g.dgid = a->grh.dgid;
    memcpy(buf, &g, SIB_GRH_LEN);
}

static void ud_recv_cqe(const struct sib_qp *qp, const struct sib_swqe *w,
                        const struct sib_rwqe *rw, const struct sib_peer *p, bool grh,
                        struct sib_cqe *e)
{
    memset(e, 0, offsetof(struct sib_cqe, tiny));
    e->wc.wr_id = rw->wr_id;
    e->wc.opcode = IBV_WC_RECV;
    e->wc.qp_num = p->q->qpn;
    e->wc.src_qp = qp->ibv.qp_num;
    e->wc.slid = sib_cfg.roce ? 0 : (uint16_t)sib_ctx_of(qp->ibv.context)->seg->lid;
    e->wc.sl = sib_cfg.roce ? 0 : w->ud.ah->attr.sl;
    e->wc.wc_flags = grh ? IBV_WC_GRH : 0;
    if (w->opcode == IBV_WR_SEND_WITH_IMM) {
        e->wc.wc_flags |= IBV_WC_WITH_IMM;
        e->wc.imm_data = w->imm;
    }
}

/* Drops the first n bytes of an iovec list in place; returns the new count. */
static int iov_drop(struct iovec *v, int nv, size_t n)
{
    int i = 0;

    while (i < nv && n >= v[i].iov_len)
        n -= v[i++].iov_len;
    if (i < nv) {
        v[i].iov_base = (uint8_t *)v[i].iov_base + n;
        v[i].iov_len -= n;
    }
    memmove(v, v + i, (size_t)(nv - i) * sizeof(*v));
    return nv - i;
}

/* Writes GRH (if any) and payload behind it; 0, or an error of sib_sges_iov / sib_xfer. */
static int ud_place(const struct sib_qp *qp, const struct sib_swqe *w, const struct sib_peer *p,
                    const struct sib_sgl *rl, struct sib_res *res, bool grh, struct sib_cqe *e)
{
    struct iovec riov[SIB_MAX_SGE], liov[SIB_MAX_SGE + 1];
    uint8_t hdr[SIB_GRH_LEN];
    uint64_t got;
    int nr, rc;

    rc = sib_sges_iov(rl, riov, &nr, &got);
    if (rc)
        return rc;
    if (!grh) /* the 40 bytes stay as they were: undefined on hardware */
        return sib_place(p, res->liov, res->nl, res->len, riov, iov_drop(riov, nr, SIB_GRH_LEN), e);
    grh_build(qp, w, res->len, hdr);
    liov[0] = (struct iovec){hdr, SIB_GRH_LEN};
    memcpy(liov + 1, res->liov, (size_t)res->nl * sizeof(*liov));
    return sib_place(p, liov, res->nl + 1, SIB_GRH_LEN + res->len, riov, nr, e);
}

static uint64_t sge_sum(const struct ibv_sge *sge, uint32_t n)
{
    uint64_t t = 0;
    uint32_t i;

    for (i = 0; i < n; i++)
        t += sge[i].length;
    return t;
}

/*
 * Consumes a receive of the target. Too small a buffer completes it with
 * LOC_LEN_ERR and the QP carries on; a bad buffer (key, bounds) moves the
 * target QP to ERR. The sender never learns.
 */
static void ud_deliver(struct sib_qp *qp, struct sib_swqe *w, struct sib_peer *p,
                       struct sib_res *res)
{
    bool grh = sib_cfg.roce || w->ud.ah->attr.is_global;
    struct ibv_sge sge[SIB_MAX_SGE];
    struct sib_rwqe rw;
    struct sib_cqe e;
    int rc;

    if (!sib_wq_take(p, &rw, sge)) {
        ud_drop(qp, w, "no receive posted");
        return;
    }
    ud_recv_cqe(qp, w, &rw, p, grh, &e);
    if (SIB_GRH_LEN + res->len > sge_sum(sge, rw.num_sge)) {
        ud_drop(qp, w, "receive buffer too small (40 + length)");
        sib_recv_fail(p, &e, IBV_WC_LOC_LEN_ERR, false);
        return;
    }
    rc = ud_place(qp, w, p,
                  &(struct sib_sgl){p->r->seg, p->r->pid, sib_peer_wq(p)->pd, sge, rw.num_sge,
                                    IBV_ACCESS_LOCAL_WRITE, SIB_GRH_LEN + res->len},
                  res, grh, &e);
    if (rc == ESRCH) {
        p->r->dead = true;
        ud_drop(qp, w, "peer process gone");
    } else if (rc) {
        ud_drop(qp, w, "receive buffer rejected");
        sib_recv_fail(p, &e, IBV_WC_LOC_PROT_ERR, true);
    } else {
        e.wc.byte_len = (uint32_t)(SIB_GRH_LEN + res->len);
        sib_cq_push(p->r, sib_at(p->r->seg, p->q->rcq_off), &e, w->flags & IBV_SEND_SOLICITED);
    }
}

/* The datagram on the wire: reaches a receive of the target, or is dropped. */
static void ud_send(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res)
{
    const struct sib_ah *ah = w->ud.ah;
    uint32_t qkey = (w->ud.rqkey & SIB_CONTROLLED_QKEY) ? qp->attr.qkey : w->ud.rqkey;
    struct sib_peer p;

    if (!ud_peer(qp, ah->lid, w->ud.rqpn, &p))
        ud_drop(qp, w, "no UD QP ready to receive there");
    else if (ah->attr.is_global && sib_gid_find(ah->lid, &ah->attr.grh.dgid) < 0)
        ud_drop(qp, w, "destination GID unknown at that host");
    else if (p.q->qkey != qkey)
        ud_drop(qp, w, "Q_Key mismatch");
    else
        ud_deliver(qp, w, &p, res);
}

/* Executes a UD send request now: local checks, then the datagram. */
int sib_ud_exec(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res)
{
    sib_fault_delay();
    if (w->opcode != IBV_WR_SEND && w->opcode != IBV_WR_SEND_WITH_IMM)
        res->status = IBV_WC_LOC_QP_OP_ERR; /* UD sends only */
    else if (sib_local_iov(qp, w, res) != 0)
        res->status = IBV_WC_LOC_PROT_ERR;
    else if (res->len > SIB_MTU_BYTES)
        res->status = IBV_WC_LOC_LEN_ERR; /* a datagram is one packet */
    else if (!sib_fault_drop(qp, w))
        ud_send(qp, w, res);
    if (res->status == IBV_WC_SUCCESS)
        sib_count_ud_send();
    else
        sib_log("qp 0x%x: UD wr_id 0x%llx failed locally: %s", qp->ibv.qp_num,
                (unsigned long long)w->wr_id, ibv_wc_status_str(res->status));
    return SIB_X_DONE;
}
