/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib send queue: ibv_post_send, in-order execution, completions, flush,
 * fault injection and the progress that retries waiting work requests.
 *
 * Work requests execute at post time in the poster's thread. One that must
 * wait (RNR, unreachable peer, injected drop) stays at the head and blocks
 * those behind it, like a real send queue; the context's progress thread, or
 * the owner's next poll_cq / post_send, retries it when its time comes.
 */
#include "softib_ops.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct sib_swqe *sq_slot(struct sib_qp *qp, uint32_t i)
{
    return (struct sib_swqe *)(qp->sq + (size_t)(i % qp->max_send_wr) * qp->sq_stride);
}

static uint8_t *swqe_inline(struct sib_qp *qp, struct sib_swqe *w)
{
    return (uint8_t *)&w->sge[qp->max_send_sge];
}

static bool opcode_ok(enum ibv_wr_opcode op)
{
    switch (op) {
    case IBV_WR_SEND:
    case IBV_WR_SEND_WITH_IMM:
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM:
    case IBV_WR_RDMA_READ:
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
        return true;
    default:
        return false;
    }
}

static uint64_t sge_total(const struct ibv_sge *sge, int n)
{
    uint64_t t = 0;
    int i;

    for (i = 0; i < n; i++)
        t += sge[i].length;
    return t;
}

static bool inline_ok(enum ibv_wr_opcode op)
{
    return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE ||
           op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

/* Inline data is copied now: the caller may reuse its buffer on return. */
static SIB_HOT int swqe_inline_copy(struct sib_qp *qp, struct sib_swqe *w,
                                    const struct ibv_send_wr *wr)
{
    uint8_t *d = swqe_inline(qp, w);
    uint64_t t = sge_total(wr->sg_list, wr->num_sge);
    int i;

    if (!inline_ok(wr->opcode) || t > qp->max_inline)
        return EINVAL;
    for (i = 0; i < wr->num_sge; i++) {
        memcpy(d, (void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
        d += wr->sg_list[i].length;
    }
    w->inline_len = (uint32_t)t;
    w->num_sge = 0;
    return 0;
}

/* The next free send slot, cleared, with the fields every transport uses; NULL and *rc. */
static SIB_HOT struct sib_swqe *swqe_start(struct sib_qp *qp, const struct ibv_send_wr *wr, int *rc)
{
    struct sib_swqe *w;

    *rc = EINVAL;
    if (!opcode_ok(wr->opcode) || wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->max_send_sge)
        return NULL;
    *rc = ENOMEM;
    if (qp->sq_tail - atomic_load(&qp->sq_retired) >= qp->max_send_wr)
        return NULL;
    w = sq_slot(qp, qp->sq_tail);
    memset(w, 0, sizeof(*w));
    w->wr_id = wr->wr_id;
    w->opcode = wr->opcode;
    w->flags = wr->send_flags;
    w->imm = wr->imm_data;
    w->num_sge = (uint32_t)wr->num_sge;
    *rc = 0;
    return w;
}

/* Copies the data (inline) or the SGEs and makes the request visible. */
static SIB_HOT int swqe_finish(struct sib_qp *qp, struct sib_swqe *w, const struct ibv_send_wr *wr)
{
    if ((wr->send_flags & IBV_SEND_INLINE) && swqe_inline_copy(qp, w, wr))
        return EINVAL;
    if (!(wr->send_flags & IBV_SEND_INLINE))
        memcpy(w->sge, wr->sg_list, (size_t)wr->num_sge * sizeof(struct ibv_sge));
    qp->sq_tail++;
    return 0;
}

static int swqe_push(struct sib_qp *qp, const struct ibv_send_wr *wr)
{
    struct sib_swqe *w;
    int rc;

    w = swqe_start(qp, wr, &rc);
    if (!w)
        return rc;
    if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
        w->raddr = wr->wr.atomic.remote_addr;
        w->rkey = wr->wr.atomic.rkey;
        w->cmp_add = wr->wr.atomic.compare_add;
        w->swap = wr->wr.atomic.swap;
    } else {
        w->raddr = wr->wr.rdma.remote_addr;
        w->rkey = wr->wr.rdma.rkey;
    }
    return swqe_finish(qp, w, wr);
}

/* UD: other opcodes than SEND are accepted, as by mlx5, and fail at execution. */
static int ud_swqe_push(struct sib_qp *qp, const struct ibv_send_wr *wr)
{
    struct sib_swqe *w;
    int rc;

    w = swqe_start(qp, wr, &rc);
    if (!w)
        return rc;
    if (!wr->wr.ud.ah)
        return EINVAL;
    w->ud.ah = (const struct sib_ah *)wr->wr.ud.ah;
    w->ud.rqpn = wr->wr.ud.remote_qpn;
    w->ud.rqkey = wr->wr.ud.remote_qkey;
    return swqe_finish(qp, w, wr);
}

static enum ibv_wc_opcode wc_opcode(uint32_t op)
{
    switch (op) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM:
        return IBV_WC_RDMA_WRITE;
    case IBV_WR_RDMA_READ:
        return IBV_WC_RDMA_READ;
    case IBV_WR_ATOMIC_CMP_AND_SWP:
        return IBV_WC_COMP_SWAP;
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
        return IBV_WC_FETCH_ADD;
    default:
        return IBV_WC_SEND;
    }
}

/* Writes the send completion: always for errors, else when signalled. */
static SIB_HOT void sq_complete(struct sib_qp *qp, struct sib_swqe *w, enum ibv_wc_status st,
                                uint32_t byte_len)
{
    struct sib_ctx *c = sib_ctx_of(qp->ibv.context);
    struct sib_cqe e;

    if (st == IBV_WC_SUCCESS && !qp->sq_sig_all && !(w->flags & IBV_SEND_SIGNALED))
        return;
    memset(&e, 0, offsetof(struct sib_cqe, tiny_len));
    e.wc.wr_id = w->wr_id;
    e.wc.status = st;
    e.wc.opcode = wc_opcode(w->opcode);
    e.wc.byte_len = byte_len;
    e.wc.qp_num = qp->ibv.qp_num;
    e.wc.vendor_err = st == IBV_WC_SUCCESS || st == IBV_WC_WR_FLUSH_ERR ? 0 : 0x80u + st;
    e.flags = SIB_CQE_SEND;
    e.sq_idx = qp->sq_exec; /* callers complete the request at sq_exec */
    e.sq_qp = (uintptr_t)qp;
    sib_cq_push(c->self, ((struct sib_cq *)qp->ibv.send_cq)->sh, &e, false);
}

/* Completes everything not yet executed with WR_FLUSH_ERR. Caller holds sq_lock. */
void sib_sq_flush(struct sib_qp *qp)
{
    for (; qp->sq_exec != qp->sq_tail; qp->sq_exec++)
        sq_complete(qp, sq_slot(qp, qp->sq_exec), IBV_WC_WR_FLUSH_ERR, 0);
}

/* The local buffers of w, checked against our MR table. */
static SIB_HOT int local_iov(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res)
{
    struct sib_ctx *c = sib_ctx_of(qp->ibv.context);
    bool wr = w->opcode == IBV_WR_RDMA_READ || w->opcode >= IBV_WR_ATOMIC_CMP_AND_SWP;
    struct sib_sgl l = {c->seg,    sib_pid(),  qp->sh->pd,
                        w->sge,    w->num_sge, wr ? IBV_ACCESS_LOCAL_WRITE : 0,
                        UINT64_MAX};

    if (w->inline_len || (w->flags & IBV_SEND_INLINE)) {
        res->liov[0] = (struct iovec){swqe_inline(qp, w), w->inline_len};
        res->nl = 1;
        res->len = w->inline_len;
        return 0;
    }
    return sib_sges_iov(&l, res->liov, &res->nl, &res->len);
}

/*
 * Fault injection: true when this attempt is lost. RC retransmits it later;
 * a UD datagram is gone and its send completes successfully.
 */
static SIB_HOT bool fault_drop(struct sib_qp *qp, struct sib_swqe *w)
{
    bool ud;

    if (sib_cfg.drop_rate <= 0)
        return false;
    if ((double)(sib_rand(&qp->rng) >> 11) / 9007199254740992.0 >= sib_cfg.drop_rate)
        return false;
    ud = sib_qp_is_ud(qp);
    sib_log("qp 0x%x: dropped packet of wr_id 0x%llx%s", qp->ibv.qp_num,
            (unsigned long long)w->wr_id, ud ? " (UD: lost)" : ", retransmitting");
    if (!ud)
        w->not_before = sib_now_ns() + 20000;
    return true;
}

int sib_local_iov(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res)
{
    return local_iov(qp, w, res);
}

bool sib_fault_drop(struct sib_qp *qp, struct sib_swqe *w)
{
    return fault_drop(qp, w);
}

static int local_prot_err(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res)
{
    sib_log("qp 0x%x: local protection error on wr_id 0x%llx", qp->ibv.qp_num,
            (unsigned long long)w->wr_id);
    res->status = IBV_WC_LOC_PROT_ERR;
    return SIB_X_DONE;
}

/* One attempt under the SOFTIB_FAULT_* / drop / delay / fail-after variables. */
static __attribute__((noinline)) int sq_exec_faulty(struct sib_qp *qp, struct sib_swqe *w,
                                                    struct sib_res *res)
{
    int rc;

    if (sib_cfg.fail_after && qp->ops >= sib_cfg.fail_after) {
        sib_log_write("qp 0x%x: injected failure after %llu operations", qp->ibv.qp_num,
                      (unsigned long long)qp->ops);
        res->status = IBV_WC_RETRY_EXC_ERR;
        return SIB_X_DONE;
    }
    if (fault_drop(qp, w))
        return SIB_X_WAIT;
    rc = sib_fault_inject(qp, w, res);
    if (rc >= 0)
        return rc;
    sib_fault_delay();
    if (local_iov(qp, w, res) != 0)
        return local_prot_err(qp, w, res);
    return sib_fault_exec(qp, w, res);
}

/* One attempt; without fault variables (every run but the chaos tests) straight to the
 * operation: the fault paths would all decline. */
static SIB_HOT int sq_exec_one(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res)
{
    memset(res, 0, offsetof(struct sib_res, liov));
    if (__builtin_expect(sib_cfg.faults, 0))
        return sq_exec_faulty(qp, w, res);
    if (local_iov(qp, w, res) != 0)
        return local_prot_err(qp, w, res);
    return sib_exec(qp, w, res);
}

static void waiting_set(struct sib_qp *qp, bool waiting)
{
    struct sib_ctx *c = sib_ctx_of(qp->ibv.context);

    if (waiting == qp->waiting)
        return;
    qp->waiting = waiting;
    if (waiting) {
        atomic_fetch_add(&c->npending, 1);
        sib_thread_kick(c);
    } else {
        atomic_fetch_sub(&c->npending, 1);
    }
}

/* Executes queued work requests in order. Caller holds sq_lock. */
void sib_sq_progress(struct sib_qp *qp)
{
    struct sib_res res;

    while (qp->sq_exec != qp->sq_tail) {
        struct sib_swqe *w = sq_slot(qp, qp->sq_exec);

        if (atomic_load(&qp->sh->state) == IBV_QPS_ERR) {
            sib_sq_flush(qp);
            break;
        }
        if (w->not_before && sib_now_ns() < w->not_before)
            break;
        if (sq_exec_one(qp, w, &res) == SIB_X_WAIT)
            break;
        qp->ops++;
        sq_complete(qp, w, res.status, res.byte_len);
        qp->sq_exec++;
        if (res.status != IBV_WC_SUCCESS)
            sib_qp_set_err(sib_ctx_of(qp->ibv.context)->self, qp->sh);
    }
    waiting_set(qp, qp->sq_exec != qp->sq_tail);
}

/*
 * UD requests never wait: each is delivered, dropped or fails locally now, so
 * a UD send queue is always empty after ibv_post_send. A local error puts the
 * QP in SQE, which flushes what follows. Caller holds sq_lock.
 */
static void ud_sq_progress(struct sib_qp *qp)
{
    struct sib_res res;

    for (; qp->sq_exec != qp->sq_tail; qp->sq_exec++) {
        uint32_t s = atomic_load(&qp->sh->state);

        if (s == IBV_QPS_ERR || s == IBV_QPS_SQE) {
            sib_sq_flush(qp);
            break;
        }
        memset(&res, 0, offsetof(struct sib_res, liov));
        sib_ud_exec(qp, sq_slot(qp, qp->sq_exec), &res);
        qp->ops++;
        sq_complete(qp, sq_slot(qp, qp->sq_exec), res.status, 0);
        if (res.status != IBV_WC_SUCCESS)
            sib_qp_set_sqe(qp);
    }
}

static int ud_post_send(struct sib_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    uint32_t s;
    int rc = 0;

    sib_qlock(&qp->sq_lock);
    s = atomic_load(&qp->sh->state);
    if (s != IBV_QPS_RTS && s != IBV_QPS_ERR && s != IBV_QPS_SQE)
        rc = EINVAL;
    for (; wr && !rc; wr = rc ? wr : wr->next)
        rc = ud_swqe_push(qp, wr);
    if (rc)
        *bad = wr;
    ud_sq_progress(qp);
    sib_qunlock(&qp->sq_lock);
    return rc;
}

int sib_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
    struct sib_qp *qp = (struct sib_qp *)ibqp;
    uint32_t s;
    int rc = 0;

    if (sib_qp_is_ud(qp))
        return ud_post_send(qp, wr, bad);
    sib_qlock(&qp->sq_lock);
    s = atomic_load(&qp->sh->state);
    if (s != IBV_QPS_RTS && s != IBV_QPS_ERR)
        rc = EINVAL;
    for (; wr && !rc; wr = rc ? wr : wr->next)
        rc = swqe_push(qp, wr);
    if (rc)
        *bad = wr;
    sib_sq_progress(qp);
    sib_qunlock(&qp->sq_lock);
    return rc;
}

/* Retries waiting work requests and flushes queues of QPs a peer put in ERR. */
static void progress_all(struct sib_ctx *c)
{
    struct sib_qp *q;

    pthread_mutex_lock(&c->lock);
    for (q = c->qps; q; q = q->next) {
        if (q->sq_exec == q->sq_tail || !sib_qtrylock(&q->sq_lock))
            continue;
        sib_sq_progress(q);
        sib_qunlock(&q->sq_lock);
    }
    pthread_mutex_unlock(&c->lock);
}

void sib_ctx_progress_run(struct sib_ctx *c, uint32_t err_epoch)
{
    c->err_seen = err_epoch;
    progress_all(c);
}

/* Plays the part of the HCA's retry timers while something waits. */
static void *thread_main(void *arg)
{
    struct sib_ctx *c = arg;
    struct timespec ts = {0, 50000};

    pthread_mutex_lock(&c->tlock);
    while (!c->stop) {
        if (!atomic_load(&c->npending)) {
            pthread_cond_wait(&c->cond, &c->tlock);
            continue;
        }
        pthread_mutex_unlock(&c->tlock);
        progress_all(c);
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&c->tlock);
    }
    pthread_mutex_unlock(&c->tlock);
    return NULL;
}

void sib_thread_kick(struct sib_ctx *c)
{
    pthread_mutex_lock(&c->tlock);
    if (!c->thread_on && !c->stop)
        c->thread_on = pthread_create(&c->thread, NULL, thread_main, c) == 0;
    pthread_cond_signal(&c->cond);
    pthread_mutex_unlock(&c->tlock);
}

void sib_thread_stop(struct sib_ctx *c)
{
    bool on;

    pthread_mutex_lock(&c->tlock);
    c->stop = true;
    on = c->thread_on;
    pthread_cond_signal(&c->cond);
    pthread_mutex_unlock(&c->tlock);
    if (on)
        pthread_join(c->thread, NULL);
}
