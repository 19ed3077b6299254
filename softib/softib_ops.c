/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib operations: what the "wire" does for one send work request.
 *
 * The initiator does all the work itself, as a pair of HCAs would without the
 * target's CPU: it takes the receive descriptor from the target's queue in
 * shared memory, checks keys / bounds / access against the target's MR table,
 * moves the bytes with process_vm_writev / readv (or inside the CQE for small
 * SENDs) and writes the target's completion. RNR and transport retries are
 * reported as SIB_X_WAIT: the work request stays at the head of the queue.
 */
#include "softib_counters.h"
#include "softib_ops.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/* IB spec table 45: RNR NAK timer field to microseconds. */
static const uint32_t g_rnr_us[32] = {655360, 10,    20,    30,     40,     60,     80,     120,
                                      160,    240,   320,   480,    640,    960,    1280,   1920,
                                      2560,   3840,  5120,  7680,   10240,  15360,  20480,  30720,
                                      40960,  61440, 81920, 122880, 163840, 245760, 327680, 491520};

/* Maps [p, p + len) of a peer's segment into our page tables now. */
static void prefault(void *p, size_t len)
{
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095, e = (uintptr_t)p + len;

    if (len && madvise((void *)a, e - a, MADV_POPULATE_WRITE) != 0) {
        for (; a < e; a += 4096) /* older kernels: a read maps a shared tmpfs page writable */
            (void)*(volatile const char *)a;
    }
}

/* An HCA's queues sit in pinned memory and its writes never fault. Ours are written through our
 * mapping of the target's segment: map the target's receive ring and receive CQ ring into our
 * page tables once, at connection, so the data path takes no page faults (a fault costs
 * microseconds on a VM, and a large CQ would be faulted in one page at a time for thousands of
 * messages). */
static void peer_prefault(struct sib_rctx *r, const struct sib_qp_shm *q)
{
    const struct sib_wq_shm *wq = q->srq_off ? sib_at(r->seg, q->srq_off) : &q->rq;
    const struct sib_cq_shm *cq = sib_at(r->seg, q->rcq_off);

    prefault(sib_at(r->seg, wq->ring_off), (size_t)wq->max_wr * wq->stride);
    prefault(sib_at(r->seg, cq->ring_off), (size_t)cq->cap * sizeof(struct sib_cqe));
}

/* The QP directory's answer, if it is an RC QP: packets of other transports are dropped. */
static struct sib_rctx *peer_lookup_rc(struct sib_qp *qp)
{
    struct sib_rctx *r = sib_qp_lookup(qp->lid, qp->attr.dest_qp_num, &qp->peer_off);
    struct sib_qp_shm *q = r ? sib_at(r->seg, qp->peer_off) : NULL;

    if (!q || q->type != IBV_QPT_RC)
        return NULL;
    peer_prefault(r, q);
    return r;
}

/* Resolves the connected QP; false when its packets would go nowhere. */
static bool peer_get(struct sib_qp *qp, struct sib_peer *p, bool retry)
{
    uint32_t s;

    if (!qp->peer)
        qp->peer = peer_lookup_rc(qp);
    if (!qp->peer)
        return false;
    if (!sib_rctx_alive(qp->peer, retry)) {
        qp->peer = NULL;
        return false;
    }
    p->r = qp->peer;
    p->q = sib_at(p->r->seg, qp->peer_off);
    s = atomic_load_explicit(&p->q->state, memory_order_acquire);
    if (p->q->qpn != qp->attr.dest_qp_num || s == SIB_QPS_FREED) {
        qp->peer = NULL;
        return false;
    }
    return s == IBV_QPS_RTR || s == IBV_QPS_RTS;
}

/* No answer from the peer: retry every min(timeout, 1 ms) until the budget is spent. */
static int transport_retry(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res)
{
    uint64_t now = sib_now_ns(), per, total;

    if (!w->first_try)
        w->first_try = now;
    if (qp->attr.timeout == 0) {
        w->not_before = now + 1000000;
        return SIB_X_WAIT;
    }
    per = (4096ull << qp->attr.timeout) / 1000; /* us */
    if (per > sib_cfg.timeout_cap_us)
        per = sib_cfg.timeout_cap_us;
    total = per * 1000 * (qp->attr.retry_cnt + 1ull);
    if (now - w->first_try >= total) {
        sib_log("qp 0x%x: transport retry exceeded to qpn 0x%x", qp->ibv.qp_num,
                qp->attr.dest_qp_num);
        res->status = IBV_WC_RETRY_EXC_ERR;
        return SIB_X_DONE;
    }
    w->not_before = now + (per < 1000 ? per : 1000) * 1000;
    return SIB_X_WAIT;
}

static int rnr_wait(struct sib_qp *qp, struct sib_swqe *w, const struct sib_peer *p,
                    struct sib_res *res)
{
    if (qp->attr.rnr_retry != 7 && w->rnr_count >= qp->attr.rnr_retry) {
        sib_log("qp 0x%x: RNR retry exceeded", qp->ibv.qp_num);
        res->status = IBV_WC_RNR_RETRY_EXC_ERR;
        return SIB_X_DONE;
    }
    w->rnr_count++;
    w->not_before = sib_now_ns() + g_rnr_us[p->q->min_rnr_timer & 31] * 1000ull;
    return SIB_X_WAIT;
}

/*
 * Translates scatter/gather entries of the MR table in seg into the owner's
 * addresses, up to limit bytes. Returns 0, or EACCES / EFAULT for a bad key,
 * PD, access flag, bound or stale page.
 */
int sib_sges_iov(const struct sib_sgl *l, struct iovec *iov, int *niov, uint64_t *total)
{
    uint64_t left = l->limit, ua;
    uint32_t i;
    int n = 0, rc;

    *total = 0;
    for (i = 0; i < l->n && left; i++) {
        const struct ibv_sge *s = &l->sge[i];
        uint64_t len = s->length < left ? s->length : left;
        struct sib_mr_shm *m;

        if (!len)
            continue;
        m = sib_mr_find(l->seg, s->lkey);
        if (!m || m->pd != l->pd)
            return EACCES;
        rc = sib_mr_check(l->seg, l->pid, m, s->addr, len, l->access, &ua);
        if (rc)
            return rc;
        iov[n++] = (struct iovec){(void *)(uintptr_t)ua, len};
        *total += len;
        left -= len;
    }
    *niov = n;
    return 0;
}

static uint64_t sge_sum(const struct ibv_sge *sge, uint32_t n)
{
    uint64_t t = 0;
    uint32_t i;

    for (i = 0; i < n; i++)
        t += sge[i].length;
    return t;
}

/* Checks the remote key as the responder would; len 0 needs no key. */
static int rkey_iov(const struct sib_peer *p, uint64_t raddr, uint32_t rkey, uint64_t len,
                    uint32_t access, struct iovec *riov)
{
    struct sib_mr_shm *m;
    uint64_t ua = 0;

    riov->iov_len = len;
    riov->iov_base = NULL;
    if (!len)
        return 0;
    if (!(p->q->access & access))
        return EACCES;
    m = sib_mr_find(p->r->seg, rkey);
    if (!m || m->pd != p->q->pd)
        return EACCES;
    if (sib_mr_check(p->r->seg, p->r->pid, m, raddr, len, access, &ua) != 0)
        return EACCES;
    riov->iov_base = (void *)(uintptr_t)ua;
    return 0;
}

static void peer_gone(struct sib_peer *p, int rc)
{
    if (rc == ESRCH)
        p->r->dead = true;
}

static int remote_access_err(struct sib_qp *qp, struct sib_peer *p, struct sib_res *res)
{
    sib_log("qp 0x%x: remote access error at qpn 0x%x", qp->ibv.qp_num, p->q->qpn);
    sib_qp_set_err(p->r, p->q);
    res->status = IBV_WC_REM_ACCESS_ERR;
    return SIB_X_DONE;
}

static int op_write(struct sib_qp *qp, struct sib_swqe *w, struct sib_peer *p, struct sib_res *res)
{
    struct iovec riov;
    int rc;

    if (rkey_iov(p, w->raddr, w->rkey, res->len, IBV_ACCESS_REMOTE_WRITE, &riov))
        return remote_access_err(qp, p, res);
    rc = sib_xfer(p->r->pid, res->liov, res->nl, &riov, 1, true);
    if (rc == ESRCH) {
        peer_gone(p, rc);
        return transport_retry(qp, w, res);
    }
    return rc ? remote_access_err(qp, p, res) : SIB_X_DONE;
}

static int op_read(struct sib_qp *qp, struct sib_swqe *w, struct sib_peer *p, struct sib_res *res)
{
    struct iovec riov;
    int rc;

    if (rkey_iov(p, w->raddr, w->rkey, res->len, IBV_ACCESS_REMOTE_READ, &riov))
        return remote_access_err(qp, p, res);
    rc = sib_xfer(p->r->pid, res->liov, res->nl, &riov, 1, false);
    if (rc == ESRCH) {
        peer_gone(p, rc);
        return transport_retry(qp, w, res);
    }
    res->byte_len = (uint32_t)res->len;
    return rc ? remote_access_err(qp, p, res) : SIB_X_DONE;
}

static void atomic_apply(const struct sib_swqe *w, uint64_t old, uint64_t *new_p)
{
    if (w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
        *new_p = old + w->cmp_add;
    else
        *new_p = old == w->cmp_add ? w->swap : old;
}

/* Atomic with respect to other softib atomics: one lock per target context. */
static int op_atomic(struct sib_qp *qp, struct sib_swqe *w, struct sib_peer *p, struct sib_res *res)
{
    struct iovec riov, tmp;
    uint64_t old = 0, nv;
    int rc;

    if (res->len != 8 || res->nl != 1) {
        res->status = IBV_WC_LOC_LEN_ERR;
        return SIB_X_DONE;
    }
    if (w->raddr & 7) {
        sib_qp_set_err(p->r, p->q);
        res->status = IBV_WC_REM_INV_REQ_ERR;
        return SIB_X_DONE;
    }
    if (rkey_iov(p, w->raddr, w->rkey, 8, IBV_ACCESS_REMOTE_ATOMIC, &riov))
        return remote_access_err(qp, p, res);
    tmp = (struct iovec){&old, 8};
    sib_lock(&p->r->seg->atomic_lock);
    rc = sib_xfer(p->r->pid, &tmp, 1, &riov, 1, false);
    atomic_apply(w, old, &nv);
    tmp.iov_base = &nv;
    if (!rc && nv != old)
        rc = sib_xfer(p->r->pid, &tmp, 1, &riov, 1, true);
    sib_unlock(&p->r->seg->atomic_lock);
    if (rc == ESRCH) {
        peer_gone(p, rc);
        return transport_retry(qp, w, res);
    }
    if (rc)
        return remote_access_err(qp, p, res);
    memcpy(res->liov[0].iov_base, &old, 8);
    res->byte_len = 8;
    return SIB_X_DONE;
}

static void gather(const struct iovec *v, int n, uint8_t *dst)
{
    int i;

    for (i = 0; i < n; i++) {
        memcpy(dst, v[i].iov_base, v[i].iov_len);
        dst += v[i].iov_len;
    }
}

/* Receive completion for the target; SEND payload travels inside when small. */
static void recv_cqe(struct sib_qp *qp, struct sib_swqe *w, const struct sib_rwqe *rw,
                     const struct sib_peer *p, struct sib_cqe *e)
{
    memset(e, 0, offsetof(struct sib_cqe, tiny));
    e->wc.wr_id = rw->wr_id;
    e->wc.qp_num = p->q->qpn;
    e->wc.src_qp = qp->ibv.qp_num;
    e->wc.slid = (uint16_t)sib_ctx_of(qp->ibv.context)->seg->lid;
    e->wc.opcode =
        w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
    if (w->opcode != IBV_WR_SEND) {
        e->wc.wc_flags = IBV_WC_WITH_IMM;
        e->wc.imm_data = w->imm;
    }
}

/* Completes the taken receive in error; the responder QP goes to ERR if qp_err. */
void sib_recv_fail(const struct sib_peer *p, struct sib_cqe *e, enum ibv_wc_status st, bool qp_err)
{
    e->wc.status = st;
    e->wc.vendor_err = 0x80u + st;
    e->wc.byte_len = 0;
    sib_cq_push(p->r, sib_at(p->r->seg, p->q->rcq_off), e, false);
    if (qp_err)
        sib_qp_set_err(p->r, p->q);
}

/* Small payloads into at most two buffers of another process ride in the CQE. */
static SIB_HOT bool place_tiny(const struct sib_peer *p, uint64_t len, int nr)
{
    return p->r->pid != sib_pid() && len <= SIB_TINY && nr <= SIB_TINY_SGE && !sib_cfg.stale_check;
}

static SIB_HOT void tiny_fill(struct sib_cqe *e, const struct iovec *liov, int nl, uint64_t len,
                              const struct iovec *riov, int nr)
{
    int i;

    e->flags = SIB_CQE_TINY;
    e->tiny_len = (uint32_t)len;
    e->tiny_nsge = (uint32_t)nr;
    for (i = 0; i < nr; i++) {
        e->tiny_sge[i].addr = (uintptr_t)riov[i].iov_base;
        e->tiny_sge[i].len = (uint32_t)riov[i].iov_len;
    }
    gather(liov, nl, e->tiny);
}

/* Writes liov (len bytes) into the receive buffer riov, or into the CQE when small. */
int sib_place(const struct sib_peer *p, const struct iovec *liov, int nl, uint64_t len,
              const struct iovec *riov, int nr, struct sib_cqe *e)
{
    if (!place_tiny(p, len, nr))
        return sib_xfer(p->r->pid, liov, nl, riov, nr, true);
    tiny_fill(e, liov, nl, len, riov, nr);
    return 0;
}

/* Places a SEND's payload into the posted buffer, or into the CQE when small. */
static int send_place(const struct sib_sgl *rl, const struct sib_peer *p, struct sib_res *res,
                      struct sib_cqe *e)
{
    struct iovec riov[SIB_MAX_SGE];
    uint64_t got;
    int nr, rc;

    rc = sib_sges_iov(rl, riov, &nr, &got);
    if (rc)
        return rc;
    if (!place_tiny(p, res->len, nr))
        return sib_xfer(p->r->pid, res->liov, res->nl, riov, nr, true);
    tiny_fill(e, res->liov, res->nl, res->len, riov, nr);
    return 0;
}

static SIB_HOT struct sib_wq_shm *peer_wq(const struct sib_peer *p)
{
    return p->q->srq_off ? sib_at(p->r->seg, p->q->srq_off) : &p->q->rq;
}

struct sib_wq_shm *sib_peer_wq(const struct sib_peer *p)
{
    return peer_wq(p);
}

/* Takes the head receive descriptor; false if none is posted (RNR). */
static SIB_HOT bool wq_take(const struct sib_peer *p, struct sib_rwqe *rw, struct ibv_sge *sge)
{
    struct sib_wq_shm *wq = peer_wq(p);
    bool limit = false;
    struct sib_rwqe *s;

    sib_spin_lock(&wq->lock);
    if (wq->head == wq->tail || atomic_load(&p->q->state) == SIB_QPS_FREED) {
        sib_spin_unlock(&wq->lock);
        return false;
    }
    s = sib_wq_slot(p->r->seg, wq, wq->head++);
    *rw = *s;
    memcpy(sge, s->sge, s->num_sge * sizeof(*sge));
    if (wq->is_srq && wq->limit && wq->tail - wq->head < wq->limit) {
        wq->limit = 0; /* the limit event is one-shot until re-armed */
        limit = true;
    }
    sib_spin_unlock(&wq->lock);
    if (limit)
        sib_async_push(p->r, IBV_EVENT_SRQ_LIMIT_REACHED,
                       (uint64_t)((uint8_t *)wq - (uint8_t *)p->r->seg));
    return true;
}

bool sib_wq_take(const struct sib_peer *p, struct sib_rwqe *rw, struct ibv_sge *sge)
{
    return wq_take(p, rw, sge);
}

static int two_sided_err(struct sib_qp *qp, struct sib_peer *p, struct sib_cqe *e,
                         struct sib_res *res, int rc)
{
    if (rc == ESRCH) {
        peer_gone(p, rc);
        res->status = IBV_WC_RETRY_EXC_ERR;
        return SIB_X_DONE;
    }
    sib_log("qp 0x%x: receive buffer at qpn 0x%x rejected", qp->ibv.qp_num, p->q->qpn);
    sib_recv_fail(p, e, IBV_WC_LOC_PROT_ERR, true);
    res->status = IBV_WC_REM_OP_ERR;
    return SIB_X_DONE;
}

static int op_two_sided(struct sib_qp *qp, struct sib_swqe *w, struct sib_peer *p,
                        struct sib_res *res)
{
    struct ibv_sge sge[SIB_MAX_SGE];
    struct sib_rwqe rw;
    struct sib_cqe e;
    int rc = 0;

    if (w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM &&
        rkey_iov(p, w->raddr, w->rkey, res->len, IBV_ACCESS_REMOTE_WRITE, &(struct iovec){0}))
        return remote_access_err(qp, p, res);
    if (!wq_take(p, &rw, sge))
        return rnr_wait(qp, w, p, res);
    recv_cqe(qp, w, &rw, p, &e);
    if (w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
        rc = op_write(qp, w, p, res);
    } else if (res->len > sge_sum(sge, rw.num_sge)) {
        sib_log("qp 0x%x: %llu bytes for a smaller receive", qp->ibv.qp_num,
                (unsigned long long)res->len);
        sib_recv_fail(p, &e, IBV_WC_LOC_LEN_ERR, true);
        res->status = IBV_WC_REM_INV_REQ_ERR;
        return SIB_X_DONE;
    } else {
        struct sib_sgl rl = {p->r->seg, p->r->pid,  peer_wq(p)->pd,
                             sge,       rw.num_sge, IBV_ACCESS_LOCAL_WRITE,
                             res->len};

        rc = send_place(&rl, p, res, &e);
        if (rc)
            return two_sided_err(qp, p, &e, res, rc);
    }
    if (rc != SIB_X_DONE || res->status != IBV_WC_SUCCESS)
        return rc;
    e.wc.byte_len = (uint32_t)res->len;
    sib_cq_push(p->r, sib_at(p->r->seg, p->q->rcq_off), &e, w->flags & IBV_SEND_SOLICITED);
    return SIB_X_DONE;
}

/* Operation counters (softib_counters.h): per process, counted when a request finishes
 * successfully (a request that waits is executed again and counted once). */
static _Atomic uint64_t sib_count[5];

static void count_done(uint32_t opcode, int rc, const struct sib_res *res)
{
    int k;

    if (rc != SIB_X_DONE || res->status != IBV_WC_SUCCESS)
        return;
    switch (opcode) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM:
        k = 0;
        break;
    case IBV_WR_RDMA_READ:
        k = 1;
        break;
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
        k = 2;
        break;
    default:
        k = 3;
    }
    atomic_fetch_add_explicit(&sib_count[k], 1, memory_order_relaxed);
}

void sib_count_ud_send(void)
{
    atomic_fetch_add_explicit(&sib_count[4], 1, memory_order_relaxed);
}

__attribute__((visibility("default"))) void softib_counters_get(struct softib_counters *c)
{
    c->rdma_write = atomic_load(&sib_count[0]);
    c->rdma_read = atomic_load(&sib_count[1]);
    c->atomic = atomic_load(&sib_count[2]);
    c->send = atomic_load(&sib_count[3]);
    c->ud_send = atomic_load(&sib_count[4]);
}

static int exec_op(struct sib_qp *qp, struct sib_swqe *w, struct sib_peer *p, struct sib_res *res)
{
    switch (w->opcode) {
    case IBV_WR_RDMA_WRITE:
        return op_write(qp, w, p, res);
    case IBV_WR_RDMA_READ:
        return op_read(qp, w, p, res);
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
        return op_atomic(qp, w, p, res);
    default:
        return op_two_sided(qp, w, p, res);
    }
}

int sib_exec(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res)
{
    struct sib_peer p;
    int rc;

    if (!peer_get(qp, &p, w->not_before != 0))
        return transport_retry(qp, w, res);
    rc = exec_op(qp, w, &p, res);
    count_done(w->opcode, rc, res);
    return rc;
}
