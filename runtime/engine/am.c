/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Active messages on the point-to-point engine (ibex_am.h). Framing of a request:
 *
 *   small:  [am_wire_t rest_tag = 0][hdr][body] ................ one message on tag 0
 *   large:  [am_wire_t rest_tag = T][hdr] on tag 0, then [body] on tag T
 *
 * Both travel on the port's communicator, so the engine's per-source ordering, flow control,
 * eager and rendezvous protocols apply; a large body is a rendezvous over a transport that has
 * put / get. The receiver keeps requests of each source in a queue until their bodies are in,
 * so the handler sees them in the order they were sent.
 */
#include "ibex_am.h"

#include <stdlib.h>
#include <string.h>

#include "ibex_engine.h"
#include "ibex_log.h"

enum { AM_TAG_REQ = 0, AM_TAG_LAST = (1 << 30) - 1 };

typedef struct am_wire {
    uint64_t body_len; /* body bytes that follow in a second message (0: all in this one) */
    int32_t rest_tag;
    uint32_t hdr_len;
} am_wire_t;

/* A request of one source waiting for its turn (or its body). */
typedef struct am_msg {
    struct am_msg *next;
    bool ready;
    size_t len;
    _Alignas(16) char data[];
} am_msg_t;

/* A transfer the port owns; its request's on_complete queues it for ibex_am_progress. */
typedef struct am_xfer {
    struct am_xfer *next;
    ibex_req_t *req;
    ibex_am_done_cb_t cb;
    void *arg;
    void *owned; /* freed when done */
} am_xfer_t;

struct ibex_am_port {
    struct ibex_am_port *next;
    ibex_comm_t *comm;
    ibex_am_handler_cb_t cb;
    void *arg;
    ibex_req_t *hdr_req; /* the posted receive of requests */
    bool hdr_done;
    bool q_ready;                /* some queued request may now be deliverable */
    am_msg_t **q_head, **q_tail; /* per source */
    int next_tag;
    _Alignas(16) char rbuf[IBEX_AM_MAX];
};

int ibex_am_work;
static ibex_am_port_t *ports;
static am_xfer_t *done_head, *done_tail;
static int am_running;

static void xfer_on_complete(ibex_req_t *req)
{
    am_xfer_t *x = req->hook_arg;
    x->next = NULL;
    if (done_tail)
        done_tail->next = x;
    else
        done_head = x;
    done_tail = x;
    ibex_am_work = 1;
}

static void xfer_finish(am_xfer_t *x)
{
    ibex_status_t st = x->req->error;
    ibex_req_release(x->req);
    if (x->cb)
        x->cb(x->arg, st);
    free(x->owned);
    free(x);
}

/* Hands a started transfer to the port: finished at once, or when its request completes. */
static void xfer_track(ibex_req_t *req, ibex_am_done_cb_t cb, void *arg, void *owned, am_xfer_t *x)
{
    *x = (am_xfer_t){.req = req, .cb = cb, .arg = arg, .owned = owned};
    if (req->complete) {
        x->next = NULL;
        if (done_tail)
            done_tail->next = x;
        else
            done_head = x;
        done_tail = x;
        ibex_am_work = 1;
        return;
    }
    req->hook_arg = x;
    req->on_complete = xfer_on_complete;
}

static ibex_status_t xfer_send(ibex_am_port_t *port, int dest, int tag, void *data, size_t len,
                               ibex_am_done_cb_t cb, void *arg)
{
    am_xfer_t *x = malloc(sizeof(*x));
    ibex_req_t *req;
    if (!x || len > (size_t)INT32_MAX) {
        free(x);
        free(data);
        return x ? IBEX_ERR_INVALID : IBEX_ERR_NO_MEMORY;
    }
    ibex_status_t st =
        ibex_p2p_isend(data, (int)len, ibex_dt_get(MPI_BYTE), dest, tag, port->comm, false, &req);
    if (st != IBEX_OK) {
        free(x);
        free(data);
        return st;
    }
    xfer_track(req, cb, arg, data, x);
    return IBEX_OK;
}

ibex_status_t ibex_am_recv(ibex_am_port_t *port, void *buf, int count, ibex_dt_t *dt, int src,
                           int tag, ibex_am_done_cb_t cb, void *arg)
{
    am_xfer_t *x = malloc(sizeof(*x));
    ibex_req_t *req;
    if (!x)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st = ibex_p2p_irecv(buf, count, dt, src, tag, port->comm, false, &req);
    if (st != IBEX_OK) {
        free(x);
        return st;
    }
    xfer_track(req, cb, arg, NULL, x);
    return IBEX_OK;
}

int ibex_am_tag(ibex_am_port_t *port)
{
    if (port->next_tag >= AM_TAG_LAST)
        port->next_tag = 0;
    return ++port->next_tag;
}

ibex_status_t ibex_am_reply(ibex_am_port_t *port, int dest, int tag, void *data, size_t len)
{
    return xfer_send(port, dest, tag, data, len, NULL, NULL);
}

ibex_status_t ibex_am_send(ibex_am_port_t *port, int dest, const void *hdr, size_t hdr_len,
                           void *body, size_t body_len)
{
    bool one = sizeof(am_wire_t) + hdr_len + body_len <= IBEX_AM_MAX;
    size_t len = sizeof(am_wire_t) + hdr_len + (one ? body_len : 0);
    char *msg = malloc(len);
    if (!msg || hdr_len > IBEX_AM_MAX - sizeof(am_wire_t)) {
        free(msg);
        free(body);
        return msg ? IBEX_ERR_INVALID : IBEX_ERR_NO_MEMORY;
    }
    am_wire_t w = {.body_len = one ? 0 : body_len, .hdr_len = (uint32_t)hdr_len};
    if (!one)
        w.rest_tag = ibex_am_tag(port);
    memcpy(msg, &w, sizeof(w));
    memcpy(msg + sizeof(w), hdr, hdr_len);
    if (one && body_len)
        memcpy(msg + sizeof(w) + hdr_len, body, body_len);
    ibex_status_t st = xfer_send(port, dest, AM_TAG_REQ, msg, len, NULL, NULL);
    if (one || st != IBEX_OK) {
        free(body);
        return st;
    }
    return xfer_send(port, dest, w.rest_tag, body, body_len, NULL, NULL);
}

static void port_hdr_on_complete(ibex_req_t *req)
{
    ibex_am_port_t *port = req->hook_arg;
    port->hdr_done = true;
    ibex_am_work = 1;
}

static ibex_status_t port_post(ibex_am_port_t *port)
{
    ibex_req_t *req;
    ibex_status_t st = ibex_p2p_irecv(port->rbuf, IBEX_AM_MAX, ibex_dt_get(MPI_BYTE),
                                      MPI_ANY_SOURCE, AM_TAG_REQ, port->comm, false, &req);
    if (st != IBEX_OK)
        return st;
    port->hdr_req = req;
    req->hook_arg = port;
    if (req->complete) {
        port->hdr_done = true;
        ibex_am_work = 1;
    } else {
        req->on_complete = port_hdr_on_complete;
    }
    return IBEX_OK;
}

ibex_status_t ibex_am_port_open(ibex_comm_t *comm, ibex_am_handler_cb_t cb, void *arg,
                                ibex_am_port_t **port_p)
{
    ibex_am_port_t *port = calloc(1, sizeof(*port));
    if (!port)
        return IBEX_ERR_NO_MEMORY;
    port->q_head = calloc((size_t)comm->size, sizeof(am_msg_t *));
    port->q_tail = calloc((size_t)comm->size, sizeof(am_msg_t *));
    port->comm = comm;
    port->cb = cb;
    port->arg = arg;
    ibex_status_t st = port->q_head && port->q_tail ? port_post(port) : IBEX_ERR_NO_MEMORY;
    if (st != IBEX_OK) {
        free(port->q_head);
        free(port->q_tail);
        free(port);
        return st;
    }
    port->next = ports;
    ports = port;
    *port_p = port;
    return IBEX_OK;
}

void ibex_am_port_close(ibex_am_port_t *port)
{
    for (ibex_am_port_t **p = &ports; *p; p = &(*p)->next)
        if (*p == port) {
            *p = port->next;
            break;
        }
    ibex_req_t *req = port->hdr_req;
    if (req && !req->complete && req->in_posted) {
        ibex_match_queue_t *q = ibex_match_queue_get(req->comm->context_id + req->coll);
        ibex_match_list_remove(&q->posted, &req->match);
        req->in_posted = false;
        req->on_complete = NULL;
        ibex_req_complete(req, IBEX_OK);
    }
    if (req)
        ibex_req_release(req);
    for (int s = 0; s < port->comm->size; s++)
        while (port->q_head[s]) {
            am_msg_t *m = port->q_head[s];
            port->q_head[s] = m->next;
            free(m);
        }
    free(port->q_head);
    free(port->q_tail);
    free(port);
}

static void msg_body_done(void *arg, ibex_status_t st)
{
    am_msg_t *m = arg;
    if (st != IBEX_OK)
        ibex_warn(CORE, "active message body lost: %s", ibex_status_str(st));
    m->ready = true;
    ibex_am_work = 1;
    for (ibex_am_port_t *p = ports; p; p = p->next)
        p->q_ready = true;
}

static void queue_push(ibex_am_port_t *port, int src, am_msg_t *m)
{
    m->next = NULL;
    if (port->q_tail[src])
        port->q_tail[src]->next = m;
    else
        port->q_head[src] = m;
    port->q_tail[src] = m;
}

/* The request in rbuf from src: delivered now if nothing of src waits before it, else queued
 * (with its body on the way, when it has one). */
static void port_take(ibex_am_port_t *port, int src, size_t len)
{
    am_wire_t w;
    if (len < sizeof(w))
        return;
    memcpy(&w, port->rbuf, sizeof(w));
    size_t first = len - sizeof(w);
    if (w.body_len == 0 && !port->q_head[src]) {
        port->cb(port->arg, src, port->rbuf + sizeof(w), first);
        return;
    }
    am_msg_t *m = malloc(sizeof(*m) + first + w.body_len);
    if (!m) {
        ibex_error(CORE, "out of memory for an active message from rank %d", src);
        return;
    }
    m->len = first + w.body_len;
    m->ready = w.body_len == 0;
    memcpy(m->data, port->rbuf + sizeof(w), first);
    queue_push(port, src, m);
    if (w.body_len && ibex_am_recv(port, m->data + first, (int)w.body_len, ibex_dt_get(MPI_BYTE),
                                   src, w.rest_tag, msg_body_done, m) != IBEX_OK) {
        ibex_error(CORE, "cannot receive an active message body from rank %d", src);
        m->ready = true;
    }
}

static int port_deliver_queued(ibex_am_port_t *port)
{
    int n = 0;
    port->q_ready = false;
    for (int s = 0; s < port->comm->size; s++)
        while (port->q_head[s] && port->q_head[s]->ready) {
            am_msg_t *m = port->q_head[s];
            port->q_head[s] = m->next;
            if (!m->next)
                port->q_tail[s] = NULL;
            port->cb(port->arg, s, m->data, m->len);
            free(m);
            n++;
        }
    return n;
}

static int port_progress(ibex_am_port_t *port)
{
    int n = 0;
    if (port->q_ready)
        n += port_deliver_queued(port);
    while (port->hdr_done) {
        ibex_req_t *req = port->hdr_req;
        port->hdr_done = false;
        port->hdr_req = NULL;
        int src = req->status.MPI_SOURCE;
        size_t len = (size_t)req->status.ibex_count;
        ibex_status_t err = req->error;
        if (err == IBEX_OK)
            port_take(port, src, len);
        else
            ibex_warn(CORE, "active message dropped: %s", ibex_status_str(err));
        ibex_req_release(req);
        if (port_post(port) != IBEX_OK)
            ibex_error(CORE, "cannot post the active-message receive");
        n++;
    }
    return n;
}

int ibex_am_progress(void)
{
    int n = 0;
    if (am_running)
        return 0;
    am_running = 1;
    while (ibex_am_work) {
        ibex_am_work = 0;
        while (done_head) {
            am_xfer_t *x = done_head;
            done_head = x->next;
            if (!done_head)
                done_tail = NULL;
            xfer_finish(x);
            n++;
        }
        for (ibex_am_port_t *p = ports; p; p = p->next)
            n += port_progress(p);
    }
    am_running = 0;
    return n;
}
