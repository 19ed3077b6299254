/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib completion queues, completion channels and async events.
 *
 * A CQ is a ring in the owner's segment. Any process may produce into it
 * (a sender writes its peer's receive completion) under the CQ's robust lock;
 * only the owner consumes. A completion channel is a FIFO in /dev/shm that the
 * owner holds open read-write: its fd is what poll() waits on, and a producer
 * writes one byte per event after setting the CQ's pending count.
 */
#include "softib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct sib_cqe *cq_slot(struct sib_seg *seg, struct sib_cq_shm *cq, uint32_t i)
{
    return (struct sib_cqe *)sib_at(seg, cq->ring_off) + (i & (cq->cap - 1));
}

static int chan_slot(struct sib_seg *seg)
{
    int i;

    for (i = 1; i < SIB_MAX_CHAN; i++) {
        uint32_t g = atomic_load(&seg->chan[i].gen);

        if (!(g & 1) && atomic_compare_exchange_strong(&seg->chan[i].gen, &g, g + 1))
            return i;
    }
    return -1;
}

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
    struct sib_ctx *c = sib_ctx_of(context);
    char path[SIB_NAME_LEN + 32];
    struct sib_chan *ch = calloc(1, sizeof(*ch));
    int idx = ch ? chan_slot(c->seg) : -1;

    if (idx < 0) {
        free(ch);
        errno = ENOMEM;
        return NULL;
    }
    sib_chan_fifo_path(c->self, idx, path, sizeof(path));
    unlink(path);
    ch->ibv.fd = mkfifo(path, 0600) == 0 ? open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW) : -1;
    if (ch->ibv.fd < 0) {
        int e = errno;

        unlink(path);
        atomic_fetch_add(&c->seg->chan[idx].gen, 1);
        free(ch);
        errno = e;
        return NULL;
    }
    ch->ibv.context = context;
    ch->idx = idx;
    return &ch->ibv;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
    struct sib_chan *ch = (struct sib_chan *)channel;
    struct sib_ctx *c = sib_ctx_of(channel->context);
    char path[SIB_NAME_LEN + 32];

    if (channel->refcnt)
        return EBUSY;
    sib_chan_fifo_path(c->self, ch->idx, path, sizeof(path));
    unlink(path);
    close(channel->fd);
    atomic_fetch_add(&c->seg->chan[ch->idx].gen, 1);
    free(ch);
    return 0;
}

static uint32_t pow2_at_least(uint32_t n)
{
    uint32_t p = 1;

    while (p < n)
        p <<= 1;
    return p;
}

static int cq_shm_init(struct sib_seg *seg, struct sib_cq *cq, int cqe, struct sib_chan *ch)
{
    struct sib_cq_shm *sh;

    cq->off = sib_alloc(seg, sizeof(*sh));
    if (!cq->off)
        return ENOMEM;
    sh = cq->sh = sib_at(seg, cq->off);
    sh->cqe = (uint32_t)cqe;
    sh->cap = pow2_at_least((uint32_t)cqe + 1);
    sh->ring_off = sib_alloc(seg, (uint64_t)sh->cap * sizeof(struct sib_cqe));
    if (!sh->ring_off) {
        sib_free(seg, cq->off, sizeof(*sh));
        return ENOMEM;
    }
    sh->chan = ch ? ch->idx : -1;
    return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
                             struct ibv_comp_channel *channel, int comp_vector)
{
    struct sib_ctx *c = sib_ctx_of(context);
    struct sib_cq *cq;
    int rc = EINVAL;

    if (cqe < 1 || cqe > SIB_MAX_CQE || comp_vector != 0)
        goto err;
    rc = ENOMEM;
    cq = calloc(1, sizeof(*cq));
    if (!cq)
        goto err;
    rc = cq_shm_init(c->seg, cq, cqe, (struct sib_chan *)channel);
    if (rc) {
        free(cq);
        goto err;
    }
    cq->ibv = (struct ibv_cq){.context = context,
                              .channel = channel,
                              .cq_context = cq_context,
                              .cqe = cqe,
                              .handle = (uint32_t)cq->off};
    pthread_mutex_init(&cq->ibv.mutex, NULL);
    pthread_cond_init(&cq->ibv.cond, NULL);
    if (channel)
        channel->refcnt++;
    pthread_mutex_lock(&c->lock);
    cq->next = c->cqs;
    c->cqs = cq;
    pthread_mutex_unlock(&c->lock);
    return &cq->ibv;
err:
    errno = rc;
    return NULL;
}

static bool cq_in_use(struct sib_ctx *c, struct ibv_cq *cq)
{
    struct sib_qp *q;

    for (q = c->qps; q; q = q->next)
        if (q->ibv.send_cq == cq || q->ibv.recv_cq == cq)
            return true;
    return false;
}

int ibv_destroy_cq(struct ibv_cq *ibcq)
{
    struct sib_cq *cq = (struct sib_cq *)ibcq, **pp;
    struct sib_ctx *c = sib_ctx_of(ibcq->context);

    pthread_mutex_lock(&c->lock);
    if (cq_in_use(c, ibcq)) {
        pthread_mutex_unlock(&c->lock);
        return EBUSY;
    }
    for (pp = &c->cqs; *pp && *pp != cq; pp = &(*pp)->next)
        ;
    if (*pp)
        *pp = cq->next;
    pthread_mutex_unlock(&c->lock);
    if (ibcq->channel)
        ibcq->channel->refcnt--;
    sib_free(c->seg, cq->sh->ring_off, (uint64_t)cq->sh->cap * sizeof(struct sib_cqe));
    sib_free(c->seg, cq->off, sizeof(*cq->sh));
    free(cq);
    return 0;
}

int ibv_resize_cq(struct ibv_cq *ibcq, int cqe)
{
    struct sib_cq *cq = (struct sib_cq *)ibcq;
    struct sib_seg *seg = sib_ctx_of(ibcq->context)->seg;
    struct sib_cq_shm *sh = cq->sh;
    uint32_t cap = pow2_at_least((uint32_t)cqe + 1), oldcap = cap, n, i;
    uint64_t ring, old;
    int rc = 0;

    if (cqe < 1 || cqe > SIB_MAX_CQE)
        return EINVAL;
    ring = sib_alloc(seg, (uint64_t)cap * sizeof(struct sib_cqe));
    if (!ring)
        return ENOMEM;
    sib_spin_lock(&sh->lock);
    n = atomic_load(&sh->tail) - atomic_load(&sh->head);
    if (n > (uint32_t)cqe) {
        rc = EINVAL;
        old = ring;
    } else {
        for (i = 0; i < n; i++)
            ((struct sib_cqe *)sib_at(seg, ring))[i] = *cq_slot(seg, sh, sh->head + i);
        old = sh->ring_off;
        oldcap = sh->cap;
        sh->ring_off = ring;
        atomic_store(&sh->tail, n);
        atomic_store(&sh->head, 0);
        sh->cap = cap;
        sh->cqe = (uint32_t)cqe;
        ibcq->cqe = cqe;
    }
    sib_spin_unlock(&sh->lock);
    sib_free(seg, old, (uint64_t)oldcap * sizeof(struct sib_cqe));
    return rc;
}

/* Fires the channel if the CQ is armed and this completion qualifies. */
static void cq_fire(struct sib_rctx *r, struct sib_cq_shm *cq, bool solicited, bool err)
{
    uint32_t a = atomic_load(&cq->armed);

    if (!a || cq->chan < 0 || (a == 2 && !solicited && !err))
        return;
    if (!atomic_compare_exchange_strong(&cq->armed, &a, 0))
        return;
    atomic_fetch_add(&cq->pending, 1);
    sib_chan_signal(r, cq->chan);
}

int sib_cq_push(struct sib_rctx *r, struct sib_cq_shm *cq, const struct sib_cqe *e, bool solicited)
{
    uint32_t t;

    sib_spin_lock(&cq->lock);
    t = atomic_load_explicit(&cq->tail, memory_order_relaxed);
    if (t - atomic_load(&cq->head) >= cq->cqe) {
        sib_spin_unlock(&cq->lock);
        if (!atomic_exchange(&cq->overflow, 1)) {
            sib_log_write("CQ overrun: completion of qp 0x%x lost", e->wc.qp_num);
            sib_async_push(r, IBV_EVENT_CQ_ERR, (uint64_t)((uint8_t *)cq - (uint8_t *)r->seg));
        }
        return ENOSPC;
    }
    /* Copy only what is used: each cache line costs a transfer between cores. */
    memcpy(cq_slot(r->seg, cq, t), e,
           (e->flags & SIB_CQE_TINY) ? offsetof(struct sib_cqe, tiny) + e->tiny_len
                                     : offsetof(struct sib_cqe, tiny_len));
    atomic_store_explicit(&cq->tail, t + 1, memory_order_release);
    sib_spin_unlock(&cq->lock);
    cq_fire(r, cq, solicited, e->wc.status != IBV_WC_SUCCESS);
    return 0;
}

/* A small SEND's payload rides in the CQE; it lands here, before the app sees it. */
static void cqe_land_tiny(const struct sib_cqe *e)
{
    uint32_t done = 0, i;

    for (i = 0; i < e->tiny_nsge && done < e->tiny_len; i++) {
        uint32_t n = e->tiny_len - done;

        if (n > e->tiny_sge[i].len)
            n = e->tiny_sge[i].len;
        memcpy((void *)(uintptr_t)e->tiny_sge[i].addr, e->tiny + done, n);
        done += n;
    }
}

static void cqe_take(const struct sib_cqe *e, struct ibv_wc *wc)
{
    if (e->flags & SIB_CQE_TINY)
        cqe_land_tiny(e);
    if ((e->flags & SIB_CQE_SEND) && e->sq_qp) {
        struct sib_qp *qp = (struct sib_qp *)(uintptr_t)e->sq_qp;

        atomic_store_explicit(&qp->sq_retired, e->sq_idx + 1, memory_order_release);
    }
    *wc = e->wc;
}

int sib_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
    struct sib_cq *cq = (struct sib_cq *)ibcq;
    struct sib_ctx *c = sib_ctx_of(ibcq->context);
    struct sib_cq_shm *sh = cq->sh;
    uint32_t h;
    int i;

    sib_ctx_progress(c);
    h = atomic_load_explicit(&sh->head, memory_order_relaxed);
    if (h == atomic_load_explicit(&sh->tail, memory_order_acquire))
        return 0;
    sib_spin_lock(&sh->lock);
    for (i = 0; i < n && h != atomic_load_explicit(&sh->tail, memory_order_acquire); i++, h++)
        cqe_take(cq_slot(c->seg, sh, h), &wc[i]);
    atomic_store_explicit(&sh->head, h, memory_order_release);
    sib_spin_unlock(&sh->lock);
    return i;
}

int sib_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
    struct sib_cq *cq = (struct sib_cq *)ibcq;

    /* Without a channel the event has nowhere to go, but arming is legal. */
    atomic_store(&cq->sh->armed, solicited_only ? 2u : 1u);
    return 0;
}

void sib_cq_forget_qp(struct sib_cq *cq, struct sib_qp *qp)
{
    struct sib_seg *seg = sib_ctx_of(cq->ibv.context)->seg;
    uint32_t h;

    sib_spin_lock(&cq->sh->lock);
    for (h = atomic_load(&cq->sh->head); h != atomic_load(&cq->sh->tail); h++) {
        struct sib_cqe *e = cq_slot(seg, cq->sh, h);

        if (e->sq_qp == (uintptr_t)qp)
            e->sq_qp = 0;
    }
    sib_spin_unlock(&cq->sh->lock);
}

static struct sib_cq *chan_take(struct sib_ctx *c, struct ibv_comp_channel *ch)
{
    struct sib_cq *cq;

    pthread_mutex_lock(&c->lock);
    for (cq = c->cqs; cq; cq = cq->next) {
        uint32_t p = atomic_load(&cq->sh->pending);

        while (cq->ibv.channel == ch && p &&
               !atomic_compare_exchange_weak(&cq->sh->pending, &p, p - 1))
            ;
        if (cq->ibv.channel == ch && p)
            break;
    }
    pthread_mutex_unlock(&c->lock);
    return cq;
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
    struct sib_ctx *c = sib_ctx_of(channel->context);
    struct sib_cq *found = NULL;
    char b;

    while (!found) {
        if (read(channel->fd, &b, 1) != 1)
            return -1;
        found = chan_take(c, channel);
    }
    *cq = &found->ibv;
    *cq_context = found->ibv.cq_context;
    return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
    pthread_mutex_lock(&cq->mutex);
    cq->comp_events_completed += nevents;
    pthread_cond_broadcast(&cq->cond);
    pthread_mutex_unlock(&cq->mutex);
}

void sib_async_push(struct sib_rctx *r, uint32_t type, uint64_t obj_off)
{
    struct sib_seg *s = r->seg;
    bool ok = false;

    sib_lock(&s->async_lock);
    if (s->async_tail - s->async_head < SIB_ASYNC_RING) {
        s->async[s->async_tail % SIB_ASYNC_RING] = (struct sib_async_shm){type, 0, obj_off};
        s->async_tail++;
        ok = true;
    }
    sib_unlock(&s->async_lock);
    if (ok)
        sib_chan_signal(r, 0);
}

static void async_element(struct sib_ctx *c, const struct sib_async_shm *a,
                          struct ibv_async_event *ev)
{
    struct sib_srq *s;
    struct sib_cq *cq;
    struct sib_qp *q;

    pthread_mutex_lock(&c->lock);
    for (s = c->srqs; s && s->off != a->obj_off; s = s->next)
        ;
    for (cq = c->cqs; cq && cq->off != a->obj_off; cq = cq->next)
        ;
    for (q = c->qps; q && q->off != a->obj_off; q = q->next)
        ;
    pthread_mutex_unlock(&c->lock);
    if (a->type == IBV_EVENT_SRQ_LIMIT_REACHED || a->type == IBV_EVENT_SRQ_ERR)
        ev->element.srq = s ? &s->ibv : NULL;
    else if (a->type == IBV_EVENT_CQ_ERR)
        ev->element.cq = cq ? &cq->ibv : NULL;
    else if (a->type == IBV_EVENT_PORT_ACTIVE || a->type == IBV_EVENT_PORT_ERR)
        ev->element.port_num = 1;
    else
        ev->element.qp = q ? &q->ibv : NULL;
}

int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
    struct sib_ctx *c = sib_ctx_of(context);
    struct sib_async_shm a;
    char b;

    if (read(context->async_fd, &b, 1) != 1)
        return -1;
    sib_lock(&c->seg->async_lock);
    a = c->seg->async[c->seg->async_head % SIB_ASYNC_RING];
    c->seg->async_head++;
    sib_unlock(&c->seg->async_lock);
    memset(event, 0, sizeof(*event));
    event->event_type = (enum ibv_event_type)a.type;
    async_element(c, &a, event);
    return 0;
}

void ibv_ack_async_event(struct ibv_async_event *event)
{
    (void)event;
}
