/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside the point-to-point engine: endpoints and the transport dispatch (runtime/engine/ep.c),
 * unexpected messages, and the protocol steps (runtime/proto*.c). Not used outside the engine.
 */
#ifndef IBEX_ENGINE_H
#define IBEX_ENGINE_H

#include "ibex_hidden.h"
#include "ibex_engine_stats.h"
#include "ibex_request.h"

/* One open transport. */
typedef struct ibex_tl_inst {
    ibex_tl_component_t *comp;
    ibex_tl_t *tl;
    ibex_tl_caps_t caps;
    size_t eager_limit; /* payload bytes, from ibex_proto_eager_limit */
    /* self delivers only what this process sent through it: progress polls it only while
     * `queued` (sends accepted minus messages delivered) is above 0 */
    bool loopback;
    long queued;
    ibex_tl_count_t *count; /* its MPI_T counts (ibex_engine_stats.h) */
} ibex_tl_inst_t;

/* A pending outgoing message: a request to (re)start, or a copied control message. */
typedef struct ibex_pending {
    struct ibex_pending *next;
    ibex_req_t *req; /* a match message of this request (EAGER or RTS) */
    size_t len;      /* control message bytes in ctl */
    ibex_ctl_hdr_t ctl;
} ibex_pending_t;

/* The runtime's view of one peer (world rank), connected on first use. */
typedef struct ibex_ep {
    int world_rank;
    bool connected;
    bool failed;
    ibex_status_t fail_status;
    ibex_tl_inst_t *tl;
    ibex_tl_ep_t *tl_ep;
    uint32_t send_seq; /* next sequence number for a match message to this peer */
    uint32_t recv_seq; /* next sequence number expected from this peer */
    ibex_pending_t *pending_head, *pending_tail; /* waits for transport room, in order */
    struct ibex_umsg *early;                     /* match messages that arrived before their turn */
    ibex_req_t *inflight; /* requests waiting for an ACK / CTS / FIN / get from this peer */
    bool fail_due;        /* failed, what waits for it not yet (ibex_ep_fail) */
} ibex_ep_t;

/* An unexpected match message (or one held back by Mprobe). */
typedef struct ibex_umsg {
    ibex_match_entry_t match; /* first */
    int world_src;
    uint8_t type; /* IBEX_HDR_EAGER or IBEX_HDR_RTS */
    uint8_t flags;
    uint32_t seq;
    uint32_t ctx;
    uint64_t sreq;
    uint64_t len;  /* message bytes (eager: payload held in data) */
    uint64_t addr; /* RTS */
    uint16_t rkey_len;
    uint8_t rkey[IBEX_RKEY_MAX];
    char data[];
} ibex_umsg_t;

/* ep.c: the dispatch. */
ibex_status_t ibex_ep_open_transports(void);
void ibex_ep_close_transports(void);
/* Endpoints by world rank (ep.c); read inline on the send path. */
extern ibex_ep_t *ibex_ep_table IBEX_ENGINE_HIDDEN;
extern int ibex_ep_table_size IBEX_ENGINE_HIDDEN;
/* ibex_ep_get's first use of a peer: connect (or report why it cannot be reached). */
ibex_status_t ibex_ep_connect_first(int world_rank, ibex_ep_t **ep_p);
/* The endpoint of a world rank, connecting on first use. */
static inline ibex_status_t ibex_ep_get(int world_rank, ibex_ep_t **ep_p)
{
    ibex_ep_t *ep = &ibex_ep_table[world_rank];
    if (__builtin_expect(!ep->connected, 0))
        return ibex_ep_connect_first(world_rank, ep_p);
    *ep_p = ep;
    return IBEX_OK;
}
static inline ibex_ep_t *ibex_ep_peek(int world_rank)
{
    return (world_rank >= 0 && world_rank < ibex_ep_table_size) ? &ibex_ep_table[world_rank] : NULL;
}
/* Hands one message to the peer's transport (send() of transport.h: IBEX_ERR_AGAIN = nothing
 * done). Every send of the engine goes through here, so the loopback count stays exact. */
static inline ibex_status_t ibex_ep_tl_send(ibex_ep_t *ep, const void *hdr, size_t hdr_len,
                                            const void *payload, size_t len)
{
    ibex_tl_inst_t *tl = ep->tl;
    ibex_status_t st = tl->comp->ops.send(ep->tl_ep, hdr, hdr_len, payload, len);
    if (__builtin_expect(st != IBEX_OK, 0))
        return st;
    if (tl->loopback)
        tl->queued++;
    tl->count->msgs++, tl->count->bytes += hdr_len + len; /* plain: the engine takes no locks */
    return st;
}
/* ibex_ep_tl_send with the payload written by fill into the transport's buffer (send_fill of
 * transport.h: only where ibex_proto_pack_in_slot says so). Counted the same. */
static inline ibex_status_t ibex_ep_tl_send_fill(ibex_ep_t *ep, const void *hdr, size_t hdr_len,
                                                 size_t len, ibex_tl_fill_cb_t fill, void *ctx)
{
    ibex_tl_inst_t *tl = ep->tl;
    ibex_status_t st = tl->comp->ops.send_fill(ep->tl_ep, hdr, hdr_len, len, fill, ctx);
    if (__builtin_expect(st != IBEX_OK, 0))
        return st;
    if (tl->loopback)
        tl->queued++;
    tl->count->msgs++, tl->count->bytes += hdr_len + len;
    return st;
}
/* Sends a control message (queued behind pending ones when the transport is full). */
ibex_status_t ibex_ep_send_ctl(ibex_ep_t *ep, const ibex_ctl_hdr_t *ctl);
/* Queues a request's match message behind the transport's backlog. */
ibex_status_t ibex_ep_queue_req(ibex_ep_t *ep, ibex_req_t *req);
/* True when messages to this peer already wait: a new one must queue behind them. */
static inline bool ibex_ep_has_backlog(const ibex_ep_t *ep)
{
    return ep->pending_head != NULL;
}
int ibex_ep_progress_pending(void);
/* A request now waits for this peer (until it completes): failed if the peer dies. */
void ibex_ep_inflight_add(ibex_ep_t *ep, ibex_req_t *req);
void ibex_ep_inflight_remove(ibex_req_t *req);
/* The peer is gone: marks it failed at once; its backlog, everything in flight with it and the
 * receives posted for it fail at the next ibex_progress call, outside any send (ep.c). */
void ibex_ep_fail(ibex_ep_t *ep, ibex_status_t why);
/* proto.c: fails posted receives naming this world rank as their source, or from
 * MPI_ANY_SOURCE on a communicator it is a member of (peer_fail.c). */
void ibex_proto_fail_posted(int world_rank, ibex_status_t why);
/* peer_fail.c: endpoints failed so far (0: the checks below cost one branch). */
extern int ibex_ep_failed_count IBEX_ENGINE_HIDDEN;
/* The rank of comm whose failure dooms a receive or probe from src (a rank or MPI_ANY_SOURCE)
 * that finds no message, with the failure in *why_p; -1 if none. */
int ibex_proto_src_failed(const ibex_comm_t *comm, int src, ibex_status_t *why_p);
/* True when posted receive req waits in vain once world_rank failed (sets its MPI_SOURCE). */
bool ibex_proto_recv_fails_with(ibex_req_t *req, int world_rank);
int ibex_ep_count(void);
/* True while any peer has a backlog or a request in flight. */
bool ibex_ep_busy(void);
ibex_tl_inst_t *ibex_ep_transport(int i); /* open transports, NULL past the end */
int ibex_ep_num_transports(void);

/* proto_send.c: starts (or restarts from the backlog) the match message of a send.
 * Returns IBEX_OK when handed to the transport, IBEX_ERR_AGAIN when it must wait. */
ibex_status_t ibex_proto_send_start(ibex_req_t *req);
ibex_status_t ibex_proto_send_match(ibex_req_t *req);
/* A blocking standard send done without a request when its eager message goes at once;
 * IBEX_ERR_AGAIN (nothing done) sends the caller down the request path. */
ibex_status_t ibex_proto_send_now(const void *buf, MPI_Count count, ibex_dt_t *dt, int dest,
                                  int tag, ibex_comm_t *comm);
/* proto_recv.c: the transport's receive callback. */
ibex_status_t ibex_proto_recv_cb(void *arg, int src_world, const void *data, size_t len);
/* A receive took an unexpected message: move its data / start the rendezvous. Frees umsg. */
void ibex_proto_recv_matched(ibex_req_t *req, ibex_umsg_t *umsg);
/* proto_rndv.c */
void ibex_proto_rndv_recv_start(ibex_req_t *req, ibex_umsg_t *msg);
void ibex_proto_rndv_on_cts(ibex_req_t *req, const ibex_ctl_hdr_t *cts);
void ibex_proto_rndv_on_fin(ibex_req_t *req, const ibex_ctl_hdr_t *fin);
ibex_status_t ibex_proto_rndv_send_rts(ibex_req_t *req);
void ibex_proto_peer_failed(void *arg, int peer, ibex_status_t why);
/* proto_pipe.c: rendezvous PIPE */
ibex_status_t ibex_proto_pipe_stream(ibex_req_t *req);
void ibex_proto_pipe_on_cts(ibex_req_t *req, const ibex_ctl_hdr_t *cts);
void ibex_proto_pipe_recv_start(ibex_req_t *req, const ibex_umsg_t *msg, size_t n);
void ibex_proto_pipe_on_frag(ibex_req_t *req, const ibex_frag_hdr_t *h);
/* Fails an in-flight request (its peer is gone); transfers still running finish it. */
void ibex_proto_req_fail(ibex_req_t *req, ibex_status_t why);

/* Unexpected eager bytes currently buffered (bounded by IBEX_UNEXPECTED_MAX). */
extern size_t ibex_unexpected_bytes;

static inline uint64_t ibex_req_id(const ibex_req_t *req)
{
    return (uint64_t)(uintptr_t)req;
}
static inline ibex_req_t *ibex_req_by_id(uint64_t id)
{
    return (ibex_req_t *)(uintptr_t)id;
}

#endif
