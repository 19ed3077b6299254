/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib queue pairs (RC and UD) and shared receive queues: creation, the
 * state machine with the attribute masks the IB spec requires per transition
 * and transport, receive posting, error flushing.
 */
#include "softib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define M(x) IBV_QP_##x

struct sib_trans {
    enum ibv_qp_type type;
    enum ibv_qp_state from, to;
    int req, opt;
};

/*
 * RC and UD transitions (IB spec 10.3 / the kernel's qp_state_table); to RESET
 * or ERR is always allowed. Only the HCA enters SQE (a UD send completed in
 * error); modify_qp leaves it for RTS.
 */
static const struct sib_trans g_trans[] = {
    {IBV_QPT_RC, IBV_QPS_RESET, IBV_QPS_INIT, M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS), 0},
    {IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_INIT, 0, M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS)},
    {IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_RTR,
     M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN) | M(MAX_DEST_RD_ATOMIC) | M(MIN_RNR_TIMER),
     M(ALT_PATH) | M(ACCESS_FLAGS) | M(PKEY_INDEX)},
    {IBV_QPT_RC, IBV_QPS_RTR, IBV_QPS_RTS,
     M(SQ_PSN) | M(TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) | M(MAX_QP_RD_ATOMIC),
     M(CUR_STATE) | M(ALT_PATH) | M(ACCESS_FLAGS) | M(MIN_RNR_TIMER) | M(PATH_MIG_STATE)},
    {IBV_QPT_RC, IBV_QPS_RTS, IBV_QPS_RTS, 0,
     M(CUR_STATE) | M(ACCESS_FLAGS) | M(ALT_PATH) | M(PATH_MIG_STATE) | M(MIN_RNR_TIMER)},
    {IBV_QPT_UD, IBV_QPS_RESET, IBV_QPS_INIT, M(PKEY_INDEX) | M(PORT) | M(QKEY), 0},
    {IBV_QPT_UD, IBV_QPS_INIT, IBV_QPS_INIT, 0, M(PKEY_INDEX) | M(PORT) | M(QKEY)},
    {IBV_QPT_UD, IBV_QPS_INIT, IBV_QPS_RTR, 0, M(PKEY_INDEX) | M(QKEY)},
    {IBV_QPT_UD, IBV_QPS_RTR, IBV_QPS_RTS, M(SQ_PSN), M(CUR_STATE) | M(QKEY)},
    {IBV_QPT_UD, IBV_QPS_RTS, IBV_QPS_RTS, 0, M(CUR_STATE) | M(QKEY)},
    {IBV_QPT_UD, IBV_QPS_SQE, IBV_QPS_RTS, 0, M(CUR_STATE) | M(QKEY)},
};

static uint64_t g_qp_serial;

struct sib_rwqe *sib_wq_slot(struct sib_seg *seg, struct sib_wq_shm *wq, uint32_t i)
{
    return (struct sib_rwqe *)((uint8_t *)sib_at(seg, wq->ring_off) +
                               (uint64_t)(i % wq->max_wr) * wq->stride);
}

static int wq_init(struct sib_seg *seg, struct sib_wq_shm *wq, uint32_t max_wr, uint32_t max_sge)
{
    wq->max_wr = max_wr ? max_wr : 1;
    wq->max_sge = max_sge ? max_sge : 1;
    wq->stride = (uint32_t)(sizeof(struct sib_rwqe) + wq->max_sge * sizeof(struct ibv_sge));
    wq->ring_off = sib_alloc(seg, (uint64_t)wq->max_wr * wq->stride);
    if (!wq->ring_off)
        return ENOMEM;
    return 0;
}

static void wq_fini(struct sib_seg *seg, struct sib_wq_shm *wq)
{
    if (wq->ring_off)
        sib_free(seg, wq->ring_off, (uint64_t)wq->max_wr * wq->stride);
}

static int cap_check(struct ibv_qp_init_attr *a)
{
    struct ibv_qp_cap *c = &a->cap;

    if (a->qp_type != IBV_QPT_RC && a->qp_type != IBV_QPT_UD)
        return EOPNOTSUPP;
    if (!a->send_cq || !a->recv_cq)
        return EINVAL;
    if (c->max_send_wr > SIB_MAX_QP_WR || c->max_send_sge > SIB_MAX_SGE ||
        c->max_inline_data > SIB_MAX_INLINE)
        return EINVAL;
    if (!a->srq && (c->max_recv_wr > SIB_MAX_QP_WR || c->max_recv_sge > SIB_MAX_SGE))
        return EINVAL;
    return 0;
}

static void qp_caps(struct sib_qp *qp, struct ibv_qp_init_attr *a)
{
    qp->max_send_wr = a->cap.max_send_wr ? a->cap.max_send_wr : 1;
    qp->max_send_sge = a->cap.max_send_sge ? a->cap.max_send_sge : 1;
    qp->max_inline = a->cap.max_inline_data;
    qp->max_recv_wr = a->srq ? 0 : (a->cap.max_recv_wr ? a->cap.max_recv_wr : 1);
    qp->max_recv_sge = a->srq ? 0 : (a->cap.max_recv_sge ? a->cap.max_recv_sge : 1);
    qp->sq_stride = (uint32_t)(sizeof(struct sib_swqe) + qp->max_send_sge * sizeof(struct ibv_sge) +
                               ((qp->max_inline + 7) & ~7u));
    qp->sq_sig_all = a->sq_sig_all != 0;
    a->cap.max_send_wr = qp->max_send_wr;
    a->cap.max_send_sge = qp->max_send_sge;
    a->cap.max_recv_wr = qp->max_recv_wr;
    a->cap.max_recv_sge = qp->max_recv_sge;
}

static int qp_shm_init(struct sib_ctx *c, struct sib_qp *qp, struct ibv_qp_init_attr *a,
                       struct ibv_pd *pd)
{
    struct sib_qp_shm *sh;
    int rc = 0;

    qp->off = sib_alloc(c->seg, sizeof(*sh));
    if (!qp->off)
        return ENOMEM;
    sh = qp->sh = sib_at(c->seg, qp->off);
    sh->pd = ((struct sib_pd *)pd)->handle;
    sh->type = a->qp_type;
    sh->rcq_off = ((struct sib_cq *)a->recv_cq)->off;
    sh->srq_off = a->srq ? ((struct sib_srq *)a->srq)->off : 0;
    atomic_store(&sh->state, IBV_QPS_RESET);
    sh->rq.pd = sh->pd;
    if (!a->srq)
        rc = wq_init(c->seg, &sh->rq, qp->max_recv_wr, qp->max_recv_sge);
    if (rc)
        sib_free(c->seg, qp->off, sizeof(*sh));
    return rc;
}

static void qp_link(struct sib_ctx *c, struct sib_qp *qp)
{
    pthread_mutex_lock(&c->lock);
    qp->next = c->qps;
    c->qps = qp;
    qp->rng = sib_cfg.seed * 0x9e3779b97f4a7c15ull + ++g_qp_serial;
    pthread_mutex_unlock(&c->lock);
}

static struct sib_qp *qp_new(struct ibv_pd *pd, struct ibv_qp_init_attr *a, int *rc)
{
    struct sib_ctx *c = sib_ctx_of(pd->context);
    struct sib_qp *qp = calloc(1, sizeof(*qp));

    if (!qp) {
        *rc = ENOMEM;
        return NULL;
    }
    qp_caps(qp, a);
    qp->sq = calloc(qp->max_send_wr, qp->sq_stride);
    *rc = qp->sq ? qp_shm_init(c, qp, a, pd) : ENOMEM;
    if (!*rc)
        *rc = sib_qp_register(c, qp->off, &qp->sh->qpn);
    if (*rc) {
        free(qp->sq);
        free(qp);
        return NULL;
    }
    sib_qlock_init(&qp->sq_lock);
    return qp;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
    struct ibv_qp_init_attr a = *attr;
    struct sib_qp *qp;
    int rc = cap_check(&a);

    qp = rc ? NULL : qp_new(pd, &a, &rc);
    if (!qp) {
        errno = rc;
        return NULL;
    }
    attr->cap = a.cap;
    qp->ibv = (struct ibv_qp){.context = pd->context,
                              .qp_context = attr->qp_context,
                              .pd = pd,
                              .send_cq = attr->send_cq,
                              .recv_cq = attr->recv_cq,
                              .srq = attr->srq,
                              .handle = qp->sh->qpn,
                              .qp_num = qp->sh->qpn,
                              .state = IBV_QPS_RESET,
                              .qp_type = attr->qp_type};
    pthread_mutex_init(&qp->ibv.mutex, NULL);
    pthread_cond_init(&qp->ibv.cond, NULL);
    qp_link(sib_ctx_of(pd->context), qp);
    sib_log("create_qp 0x%x (%s)", qp->sh->qpn, attr->qp_type == IBV_QPT_UD ? "UD" : "RC");
    return &qp->ibv;
}

static int trans_check(enum ibv_qp_type type, enum ibv_qp_state cur, enum ibv_qp_state next,
                       int mask)
{
    int extra = mask & ~IBV_QP_STATE;
    size_t i;

    if (next == IBV_QPS_RESET || next == IBV_QPS_ERR)
        return (mask & IBV_QP_STATE) && !(extra & ~IBV_QP_CUR_STATE) ? 0 : EINVAL;
    for (i = 0; i < sizeof(g_trans) / sizeof(g_trans[0]); i++) {
        const struct sib_trans *t = &g_trans[i];

        if (t->type != type || t->from != cur || t->to != next)
            continue;
        if ((extra & t->req) != t->req || (extra & ~(t->req | t->opt)))
            return EINVAL;
        return 0;
    }
    return EINVAL;
}

/* An address vector (RC path or UD address handle) as hardware accepts it. */
int sib_av_check(const struct ibv_ah_attr *ah)
{
    if (ah->port_num != 1)
        return EINVAL;
    if (sib_cfg.roce && !ah->is_global)
        return EINVAL;
    if (!ah->is_global && ah->dlid == 0)
        return EINVAL;
    if (ah->is_global && ah->grh.sgid_index >= sib_gid_count())
        return EINVAL;
    /* RoCE resolves the destination GID to a neighbour: only the fabric's GIDs have one. */
    if (sib_cfg.roce && sib_gid_find(sib_av_lid(ah), &ah->grh.dgid) < 0)
        return EINVAL;
    return 0;
}

static int value_check(const struct ibv_qp_attr *a, int mask)
{
    if ((mask & M(PORT)) && a->port_num != 1)
        return EINVAL;
    if ((mask & M(PKEY_INDEX)) && a->pkey_index != 0)
        return EINVAL;
    if ((mask & M(PATH_MTU)) && (a->path_mtu < IBV_MTU_256 || a->path_mtu > IBV_MTU_4096))
        return EINVAL;
    if ((mask & M(MAX_DEST_RD_ATOMIC)) && a->max_dest_rd_atomic > SIB_MAX_RD_ATOM)
        return EINVAL;
    if ((mask & M(MAX_QP_RD_ATOMIC)) && a->max_rd_atomic > SIB_MAX_RD_ATOM)
        return EINVAL;
    if ((mask & M(TIMEOUT)) && a->timeout > 31)
        return EINVAL;
    if ((mask & M(RETRY_CNT)) && a->retry_cnt > 7)
        return EINVAL;
    if ((mask & M(RNR_RETRY)) && a->rnr_retry > 7)
        return EINVAL;
    if ((mask & M(MIN_RNR_TIMER)) && a->min_rnr_timer > 31)
        return EINVAL;
    if ((mask & M(DEST_QPN)) && a->dest_qp_num > 0xffffff)
        return EINVAL;
    if ((mask & M(ACCESS_FLAGS)) &&
        (a->qp_access_flags & ~(unsigned)(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                          IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)))
        return EINVAL;
    return (mask & M(AV)) ? sib_av_check(&a->ah_attr) : 0;
}

/* A GRH destination names a host through the LID in the GID's last two bytes. */
uint32_t sib_av_lid(const struct ibv_ah_attr *ah)
{
    if (ah->is_global)
        return (uint32_t)ah->grh.dgid.raw[14] << 8 | ah->grh.dgid.raw[15];
    return ah->dlid;
}

static void attr_apply(struct sib_qp *qp, const struct ibv_qp_attr *a, int mask)
{
    struct ibv_qp_attr *s = &qp->attr;

#define SET(bit, field)                                                                            \
    if (mask & M(bit))                                                                             \
    s->field = a->field
    SET(PKEY_INDEX, pkey_index);
    SET(PORT, port_num);
    SET(ACCESS_FLAGS, qp_access_flags);
    SET(AV, ah_attr);
    SET(PATH_MTU, path_mtu);
    SET(DEST_QPN, dest_qp_num);
    SET(RQ_PSN, rq_psn);
    SET(SQ_PSN, sq_psn);
    SET(MAX_DEST_RD_ATOMIC, max_dest_rd_atomic);
    SET(MAX_QP_RD_ATOMIC, max_rd_atomic);
    SET(MIN_RNR_TIMER, min_rnr_timer);
    SET(TIMEOUT, timeout);
    SET(RETRY_CNT, retry_cnt);
    SET(RNR_RETRY, rnr_retry);
    SET(ALT_PATH, alt_ah_attr);
    SET(PATH_MIG_STATE, path_mig_state);
    SET(QKEY, qkey);
#undef SET
    qp->sh->qkey = s->qkey;
    qp->sh->access = s->qp_access_flags;
    qp->sh->min_rnr_timer = s->min_rnr_timer;
    if (mask & (M(AV) | M(DEST_QPN))) {
        qp->lid = sib_av_lid(&s->ah_attr);
        qp->sh->dest_qpn = s->dest_qp_num;
        qp->peer = NULL; /* resolved on first use */
    }
}

static void qp_reset(struct sib_qp *qp)
{
    struct sib_wq_shm *rq = &qp->sh->rq;

    qp->sq_tail = qp->sq_exec = 0;
    atomic_store(&qp->sq_retired, 0);
    if (!qp->sh->srq_off) {
        sib_spin_lock(&rq->lock);
        rq->head = rq->tail = 0;
        sib_spin_unlock(&rq->lock);
    }
    memset(&qp->attr, 0, sizeof(qp->attr));
    qp->peer = NULL;
    qp->peer_qpn = 0;
    /* Completions still in the CQ must not retire slots of the new queue. */
    sib_cq_forget_qp((struct sib_cq *)qp->ibv.send_cq, qp);
}

static void state_enter(struct sib_qp *qp, enum ibv_qp_state next)
{
    struct sib_ctx *c = sib_ctx_of(qp->ibv.context);

    if (next == IBV_QPS_ERR) {
        sib_qp_set_err(c->self, qp->sh);
        sib_sq_flush(qp);
    } else {
        if (next == IBV_QPS_RESET)
            qp_reset(qp);
        atomic_store_explicit(&qp->sh->state, next, memory_order_release);
    }
    qp->ibv.state = next;
    qp->attr.qp_state = next;
}

/*
 * A controlled Q_Key (high bit set) needs privilege: the kernel refuses it with
 * EPERM unless the system allows it (rdma system set privileged-qkey on).
 */
static int qkey_check(const struct ibv_qp_attr *a, int mask)
{
    return (mask & M(QKEY)) && (a->qkey & 0x80000000u) ? EPERM : 0;
}

int ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask)
{
    struct sib_qp *qp = (struct sib_qp *)ibqp;
    enum ibv_qp_state cur, next;
    int rc;

    sib_qlock(&qp->sq_lock);
    cur = (enum ibv_qp_state)atomic_load(&qp->sh->state);
    next = (attr_mask & IBV_QP_STATE) ? attr->qp_state : cur;
    rc = qkey_check(attr, attr_mask);
    if (!rc)
        rc = trans_check(ibqp->qp_type, cur, next, attr_mask);
    if (!rc && (attr_mask & IBV_QP_CUR_STATE) && attr->cur_qp_state != cur)
        rc = EINVAL;
    if (!rc)
        rc = value_check(attr, attr_mask);
    if (!rc) {
        attr_apply(qp, attr, attr_mask);
        state_enter(qp, next);
    }
    sib_qunlock(&qp->sq_lock);
    sib_log("modify_qp 0x%x %d -> %d mask 0x%x: %s", ibqp->qp_num, cur, next, attr_mask,
            rc ? strerror(rc) : "ok");
    return rc;
}

int ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask,
                 struct ibv_qp_init_attr *init_attr)
{
    struct sib_qp *qp = (struct sib_qp *)ibqp;

    (void)attr_mask;
    *attr = qp->attr;
    attr->qp_state = attr->cur_qp_state = (enum ibv_qp_state)atomic_load(&qp->sh->state);
    ibqp->state = attr->qp_state;
    attr->cap = (struct ibv_qp_cap){qp->max_send_wr, qp->max_recv_wr, qp->max_send_sge,
                                    qp->max_recv_sge, qp->max_inline};
    memset(init_attr, 0, sizeof(*init_attr));
    init_attr->qp_context = ibqp->qp_context;
    init_attr->send_cq = ibqp->send_cq;
    init_attr->recv_cq = ibqp->recv_cq;
    init_attr->srq = ibqp->srq;
    init_attr->cap = attr->cap;
    init_attr->qp_type = ibqp->qp_type;
    init_attr->sq_sig_all = qp->sq_sig_all;
    return 0;
}

static void qp_unlink(struct sib_ctx *c, struct sib_qp *qp)
{
    struct sib_qp **pp;

    pthread_mutex_lock(&c->lock);
    for (pp = &c->qps; *pp && *pp != qp; pp = &(*pp)->next)
        ;
    if (*pp)
        *pp = qp->next;
    pthread_mutex_unlock(&c->lock);
}

int ibv_destroy_qp(struct ibv_qp *ibqp)
{
    struct sib_qp *qp = (struct sib_qp *)ibqp;
    struct sib_ctx *c = sib_ctx_of(ibqp->context);

    sib_qp_unregister(qp->sh->qpn, c->seg->lid);
    qp_unlink(c, qp);
    sib_qlock(&qp->sq_lock);
    if (qp->waiting)
        atomic_fetch_sub(&c->npending, 1);
    if (!qp->sh->srq_off)
        sib_spin_lock(&qp->sh->rq.lock);
    atomic_store(&qp->sh->state, SIB_QPS_FREED);
    if (!qp->sh->srq_off)
        sib_spin_unlock(&qp->sh->rq.lock);
    sib_qunlock(&qp->sq_lock);
    sib_cq_forget_qp((struct sib_cq *)ibqp->send_cq, qp);
    wq_fini(c->seg, &qp->sh->rq);
    sib_free(c->seg, qp->off, sizeof(*qp->sh));
    sib_log("destroy_qp 0x%x", ibqp->qp_num);
    free(qp->sq);
    free(qp);
    return 0;
}

/* Completes every posted receive of wq with WR_FLUSH_ERR into q's receive CQ. */
void sib_wq_flush(struct sib_rctx *r, struct sib_qp_shm *q, struct sib_wq_shm *wq)
{
    struct sib_cq_shm *cq = sib_at(r->seg, q->rcq_off);
    struct sib_cqe e;

    sib_spin_lock(&wq->lock);
    for (; wq->head != wq->tail; wq->head++) {
        memset(&e, 0, sizeof(e));
        e.wc.wr_id = sib_wq_slot(r->seg, wq, wq->head)->wr_id;
        e.wc.status = IBV_WC_WR_FLUSH_ERR;
        e.wc.opcode = IBV_WC_RECV;
        e.wc.qp_num = q->qpn;
        sib_cq_push(r, cq, &e, false);
    }
    sib_spin_unlock(&wq->lock);
}

/*
 * A UD send completed in error (IB spec 10.3.1): the QP enters SQE, the rest of
 * its send queue is flushed, receives go on; modify_qp to RTS resumes sending.
 * Caller holds sq_lock.
 */
void sib_qp_set_sqe(struct sib_qp *qp)
{
    uint32_t s = IBV_QPS_RTS;

    if (atomic_compare_exchange_strong(&qp->sh->state, &s, IBV_QPS_SQE))
        sib_log("qp 0x%x: send queue error, QP in SQE", qp->ibv.qp_num);
}

/* Moves a QP, ours or a peer's, to ERR and flushes its receive side. */
void sib_qp_set_err(struct sib_rctx *r, struct sib_qp_shm *q)
{
    uint32_t s = atomic_load(&q->state);

    if (s == IBV_QPS_ERR || s == SIB_QPS_FREED)
        return;
    if (!atomic_compare_exchange_strong(&q->state, &s, IBV_QPS_ERR))
        return;
    if (!q->srq_off)
        sib_wq_flush(r, q, &q->rq);
    else
        sib_async_push(r, IBV_EVENT_QP_LAST_WQE_REACHED,
                       (uint64_t)((uint8_t *)q - (uint8_t *)r->seg));
    atomic_fetch_add(&r->seg->err_epoch, 1);
}

static int wq_post(struct sib_seg *seg, struct sib_wq_shm *wq, struct ibv_recv_wr *wr,
                   struct ibv_recv_wr **bad)
{
    int rc = 0;

    sib_spin_lock(&wq->lock);
    for (; wr; wr = wr->next) {
        struct sib_rwqe *w;

        if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge)
            rc = EINVAL;
        else if (wq->tail - wq->head >= wq->max_wr)
            rc = ENOMEM;
        if (rc)
            break;
        w = sib_wq_slot(seg, wq, wq->tail);
        w->wr_id = wr->wr_id;
        w->num_sge = (uint32_t)wr->num_sge;
        memcpy(w->sge, wr->sg_list, (size_t)wr->num_sge * sizeof(struct ibv_sge));
        wq->tail++;
    }
    sib_spin_unlock(&wq->lock);
    if (rc)
        *bad = wr;
    return rc;
}

int sib_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    struct sib_qp *qp = (struct sib_qp *)ibqp;
    struct sib_ctx *c = sib_ctx_of(ibqp->context);
    uint32_t s = atomic_load(&qp->sh->state);
    int rc;

    if (qp->sh->srq_off || s == IBV_QPS_RESET) {
        *bad = wr;
        return EINVAL;
    }
    rc = wq_post(c->seg, &qp->sh->rq, wr, bad);
    if (atomic_load(&qp->sh->state) == IBV_QPS_ERR)
        sib_wq_flush(c->self, qp->sh, &qp->sh->rq);
    return rc;
}

int sib_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    struct sib_srq *srq = (struct sib_srq *)ibsrq;

    return wq_post(sib_ctx_of(ibsrq->context)->seg, srq->sh, wr, bad);
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
    struct sib_ctx *c = sib_ctx_of(pd->context);
    struct ibv_srq_attr *a = &attr->attr;
    struct sib_srq *srq;
    int rc = EINVAL;

    if (!a->max_wr || a->max_wr > SIB_MAX_QP_WR || a->max_sge > SIB_MAX_SGE ||
        a->srq_limit > a->max_wr)
        goto err;
    rc = ENOMEM;
    srq = calloc(1, sizeof(*srq));
    srq->off = srq ? sib_alloc(c->seg, sizeof(*srq->sh)) : 0;
    if (!srq || !srq->off || wq_init(c->seg, sib_at(c->seg, srq->off), a->max_wr, a->max_sge)) {
        free(srq);
        goto err;
    }
    srq->sh = sib_at(c->seg, srq->off);
    srq->sh->is_srq = 1;
    srq->sh->limit = a->srq_limit;
    srq->sh->pd = ((struct sib_pd *)pd)->handle;
    srq->ibv = (struct ibv_srq){.context = pd->context,
                                .srq_context = attr->srq_context,
                                .pd = pd,
                                .handle = (uint32_t)srq->off};
    pthread_mutex_lock(&c->lock);
    srq->next = c->srqs;
    c->srqs = srq;
    pthread_mutex_unlock(&c->lock);
    return &srq->ibv;
err:
    errno = rc;
    return NULL;
}

int ibv_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
    struct sib_srq *srq = (struct sib_srq *)ibsrq;

    /* Resizing is not advertised (no IBV_DEVICE_SRQ_RESIZE), so it is refused. */
    if (mask & ~IBV_SRQ_LIMIT || !mask)
        return EINVAL;
    if (attr->srq_limit > srq->sh->max_wr)
        return EINVAL;
    sib_spin_lock(&srq->sh->lock);
    srq->sh->limit = attr->srq_limit;
    sib_spin_unlock(&srq->sh->lock);
    return 0;
}

int ibv_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
    struct sib_srq *srq = (struct sib_srq *)ibsrq;

    attr->max_wr = srq->sh->max_wr;
    attr->max_sge = srq->sh->max_sge;
    attr->srq_limit = srq->sh->limit;
    return 0;
}

int ibv_destroy_srq(struct ibv_srq *ibsrq)
{
    struct sib_srq *srq = (struct sib_srq *)ibsrq, **pp;
    struct sib_ctx *c = sib_ctx_of(ibsrq->context);
    struct sib_qp *q;

    pthread_mutex_lock(&c->lock);
    for (q = c->qps; q && q->ibv.srq != ibsrq; q = q->next)
        ;
    if (q) {
        pthread_mutex_unlock(&c->lock);
        return EBUSY;
    }
    for (pp = &c->srqs; *pp && *pp != srq; pp = &(*pp)->next)
        ;
    if (*pp)
        *pp = srq->next;
    pthread_mutex_unlock(&c->lock);
    wq_fini(c->seg, srq->sh);
    sib_free(c->seg, srq->off, sizeof(*srq->sh));
    free(srq);
    return 0;
}
