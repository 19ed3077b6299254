/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive side: the transports' receive callback, matching of arriving messages against
 * posted receives, unexpected messages, and copying eager data out.
 */
#include <stdlib.h>
#include <string.h>

#include "ibex_boot.h"
#include "ibex_engine_cfg.h"
#include "ibex_engine_stats.h"
#include "ibex_engine.h"
#include "ibex_log.h"

size_t ibex_unexpected_bytes;

/* memcpy of up to 16 bytes inline (two fixed-size copies that overlap): the common small
 * message, where a call into libc's memcpy cost about 15 instructions (callgrind). */
static inline void copy_small(char *d, const char *s, size_t n)
{
    char a[8], b[8];
    if (n >= 8 && n <= 16) {
        memcpy(a, s, 8), memcpy(b, s + n - 8, 8);
        memcpy(d, a, 8), memcpy(d + n - 8, b, 8);
    } else if (n >= 4 && n < 8) {
        memcpy(a, s, 4), memcpy(b, s + n - 4, 4);
        memcpy(d, a, 4), memcpy(d + n - 4, b, 4);
    } else {
        memcpy(d, s, n);
    }
}

/* Copies len bytes of message data into a receive's buffer, reporting truncation. */
static inline __attribute__((always_inline)) ibex_status_t
recv_copy_out(ibex_req_t *req, const void *data, size_t len)
{
    size_t n = len < req->bytes ? len : req->bytes;
    if (n > 0) {
        if (ibex_dt_is_contig(req->dt, req->count))
            copy_small((char *)req->buf + req->dt->true_lb, data, n);
        else
            ibex_dt_unpack(req->buf, req->count, req->dt, 0, data, n);
    }
    req->status.ibex_count = (MPI_Count)n;
    return len > req->bytes ? IBEX_ERR_TRUNCATE : IBEX_OK;
}

static void send_ack(int world_src, uint64_t sreq)
{
    ibex_ep_t *ep;
    if (ibex_ep_get(world_src, &ep) != IBEX_OK)
        return;
    ibex_ctl_hdr_t ack = {.type = IBEX_HDR_ACK, .req = sreq};
    if (ibex_ep_send_ctl(ep, &ack) == IBEX_ERR_NO_MEMORY)
        ibex_error(PROTO, "rank %d's synchronous send will not complete: no memory for its ACK",
                   world_src);
}

/* A matched eager message: data in place (from the transport) or in an unexpected copy. */
static inline __attribute__((always_inline)) void
recv_eager(ibex_req_t *req, int world_src, const ibex_match_hdr_t *h, const void *data, size_t len)
{
    req->status.MPI_SOURCE = h->src;
    req->status.MPI_TAG = h->tag;
    ibex_status_t st = recv_copy_out(req, data, len);
    if (h->flags & IBEX_HDR_FLAG_SYNC)
        send_ack(world_src, h->sreq);
    ibex_req_complete_inline(req, st);
}

static ibex_umsg_t *umsg_new(int world_src, const void *data, size_t len)
{
    const ibex_match_hdr_t *h = data;
    size_t payload = h->type == IBEX_HDR_EAGER ? len - sizeof(*h) : 0;
    ibex_umsg_t *u = malloc(sizeof(*u) + payload);
    if (!u)
        return NULL;
    u->match.src = h->src;
    u->match.tag = h->tag;
    u->world_src = world_src;
    u->type = h->type;
    u->flags = h->flags;
    u->seq = h->seq;
    u->ctx = h->ctx;
    u->sreq = h->sreq;
    u->rkey_len = 0;
    if (h->type == IBEX_HDR_EAGER) {
        u->len = payload;
        memcpy(u->data, h + 1, payload);
        return u;
    }
    const ibex_rts_hdr_t *rts = data;
    u->len = rts->len;
    u->addr = rts->addr;
    u->rkey_len = h->rkey_len <= IBEX_RKEY_MAX ? h->rkey_len : IBEX_RKEY_MAX;
    memcpy(u->rkey, rts->rkey, u->rkey_len);
    return u;
}

void ibex_proto_recv_matched(ibex_req_t *req, ibex_umsg_t *u)
{
    if (u->type == IBEX_HDR_EAGER) {
        ibex_match_hdr_t h = {
            .src = u->match.src, .tag = u->match.tag, .flags = u->flags, .sreq = u->sreq};
        ibex_unexpected_bytes -= u->len;
        recv_eager(req, u->world_src, &h, u->data, u->len);
    } else {
        ibex_proto_rndv_recv_start(req, u);
    }
    free(u);
}

/* A match message whose turn has come: to a posted receive, or to the unexpected queue. */
static ibex_status_t recv_match_now(int world_src, const void *data, size_t len)
{
    const ibex_match_hdr_t *h = data;
    ibex_match_queue_t *q = ibex_match_queue_get(h->ctx);
    if (!q)
        return IBEX_ERR_AGAIN; /* out of memory: the transport keeps it, we retry later */
    /* a rendezvous header is kept whether it matches or not: allocate before taking a receive
     * out of the posted queue, so that running out of memory loses nothing */
    ibex_umsg_t *rts = h->type == IBEX_HDR_EAGER ? NULL : umsg_new(world_src, data, len);
    if (h->type != IBEX_HDR_EAGER && !rts)
        return IBEX_ERR_AGAIN;
    ibex_req_t *req = (ibex_req_t *)ibex_match_take_posted_inline(q, h->src, h->tag);
    if (req) {
        req->in_posted = false;
        if (rts)
            ibex_proto_recv_matched(req, rts);
        else
            recv_eager(req, world_src, h, h + 1, len - sizeof(*h));
        return IBEX_OK;
    }
    if (rts) {
        ibex_match_list_append(&q->unexpected, &rts->match);
        return IBEX_OK;
    }
    size_t payload = len - sizeof(*h);
    /* Over budget: leave it with the transport, which holds the sender back. */
    if (payload > 0 && ibex_unexpected_bytes > 0 &&
        ibex_unexpected_bytes + payload > (size_t)ibex_engine_cfg.unexpected_max)
        return IBEX_ERR_AGAIN;
    ibex_umsg_t *u = umsg_new(world_src, data, len);
    if (!u)
        return IBEX_ERR_AGAIN;
    ibex_unexpected_bytes += payload;
    ibex_stats_note_unexpected();
    ibex_match_list_append(&q->unexpected, &u->match);
    return IBEX_OK;
}

/* Early arrivals (a sequence number ahead of the expected one) wait in the endpoint, sorted. */
static ibex_status_t hold_early(ibex_ep_t *ep, int world_src, const void *data, size_t len)
{
    ibex_umsg_t *u = umsg_new(world_src, data, len);
    if (!u)
        return IBEX_ERR_AGAIN; /* the transport keeps it; it comes back later */
    ibex_umsg_t **pp = &ep->early;
    while (*pp && (int32_t)((*pp)->seq - u->seq) < 0)
        pp = (ibex_umsg_t **)&(*pp)->match.next;
    u->match.next = (ibex_match_entry_t *)*pp;
    *pp = u;
    return IBEX_OK;
}

/* Rebuilds the wire form of a held message and matches it. */
static void release_early(ibex_ep_t *ep)
{
    while (ep->early && ep->early->seq == ep->recv_seq) {
        ibex_umsg_t *u = ep->early;
        ibex_match_queue_t *q = ibex_match_queue_get(u->ctx);
        if (!q)
            return; /* out of memory: released by the next message from this peer */
        ep->early = (ibex_umsg_t *)u->match.next;
        ibex_req_t *req = (ibex_req_t *)ibex_match_take_posted(q, u->match.src, u->match.tag);
        if (req) {
            req->in_posted = false;
            if (u->type == IBEX_HDR_EAGER)
                ibex_unexpected_bytes += u->len; /* recv_matched subtracts it */
            ibex_proto_recv_matched(req, u);
        } else {
            if (u->type == IBEX_HDR_EAGER)
                ibex_unexpected_bytes += u->len;
            ibex_stats_note_unexpected();
            ibex_match_list_append(&q->unexpected, &u->match);
        }
        ep->recv_seq++;
    }
}

/* A match message in its turn: matched, then whatever arrived early behind it. */
static inline ibex_status_t recv_match_in_turn(ibex_ep_t *ep, int world_src, const void *data,
                                               size_t len)
{
    ibex_status_t st = recv_match_now(world_src, data, len);
    if (st != IBEX_OK)
        return st;
    ep->recv_seq++;
    if (ep->early)
        release_early(ep);
    return IBEX_OK;
}

static ibex_status_t recv_match(int world_src, const void *data, size_t len)
{
    const ibex_match_hdr_t *h = data;
    ibex_ep_t *ep = ibex_ep_peek(world_src);
    ibex_assert(ep != NULL);
    if (h->seq != ep->recv_seq) {
        ibex_debug(PROTO, "rank %d seq %u arrived early (expected %u)", world_src, h->seq,
                   ep->recv_seq);
        return hold_early(ep, world_src, data, len);
    }
    return recv_match_in_turn(ep, world_src, data, len);
}

/* A peer that sends garbage is failed like one that died: nothing waits for it forever. */
static ibex_status_t recv_reject(int src_world, const char *why)
{
    ibex_error(PROTO, "rank %d on %s sent a malformed message (%s): closing the connection to it",
               src_world, ibex_boot_peer_host(src_world), why);
    ibex_proto_peer_failed(NULL, src_world, IBEX_ERR_REMOTE);
    return IBEX_OK;
}

/* Every message but an eager one in its turn: the wire checks, then by type. */
static __attribute__((noinline)) ibex_status_t recv_cb_full(int src_world, const void *data,
                                                            size_t len)
{
    const ibex_ctl_hdr_t *ctl = data;
    char why[96];
    if (ibex_proto_wire_check(data, len, why, sizeof(why)) != IBEX_OK)
        return recv_reject(src_world, why);
    if (ctl->type != IBEX_HDR_EAGER && ctl->type != IBEX_HDR_RTS && !ibex_req_from_wire(ctl->req))
        return recv_reject(src_world, "it names no request of ours");
    switch (ctl->type) {
    case IBEX_HDR_EAGER:
    case IBEX_HDR_RTS:
        return recv_match(src_world, data, len);
    case IBEX_HDR_CTS:
        ibex_proto_rndv_on_cts(ibex_req_by_id(ctl->req), ctl);
        return IBEX_OK;
    case IBEX_HDR_FIN:
        ibex_proto_rndv_on_fin(ibex_req_by_id(ctl->req), ctl);
        return IBEX_OK;
    case IBEX_HDR_FRAG:
        ibex_proto_pipe_on_frag(ibex_req_by_id(ctl->req), data);
        return IBEX_OK;
    default:
        ibex_req_complete(ibex_req_by_id(ctl->req), IBEX_OK);
        return IBEX_OK;
    }
}

/* An eager message in its turn with a posted receive waiting for it, all inline; anything else
 * (unexpected, out of memory for the queue) the general way. */
static inline __attribute__((always_inline)) ibex_status_t
recv_eager_in_turn(ibex_ep_t *ep, int world_src, const void *data, size_t len)
{
    const ibex_match_hdr_t *h = data;
    ibex_match_queue_t *q = ibex_match_queue_get(h->ctx);
    ibex_req_t *req = q ? (ibex_req_t *)ibex_match_take_posted_inline(q, h->src, h->tag) : NULL;
    if (!req)
        return recv_match_in_turn(ep, world_src, data, len);
    req->in_posted = false;
    recv_eager(req, world_src, h, h + 1, len - sizeof(*h));
    ep->recv_seq++;
    if (ep->early) /* as in recv_match_in_turn */
        release_early(ep);
    return IBEX_OK;
}

/* Every message but the one of recv_small_expected: what ibex_proto_recv_cb did for all. */
static __attribute__((noinline)) ibex_status_t recv_cb_general(int src_world, const void *data,
                                                               size_t len)
{
    const ibex_match_hdr_t *h = data;
    ibex_ep_t *ep = ibex_ep_peek(src_world);
    if (ep && ep->failed)
        return IBEX_OK; /* what a failed peer still had in flight is dropped */
    /* The common message, inline: an eager one (whose one wire check is that it holds its
     * header: ibex_proto_wire_check) from a known peer, in its turn, nothing early behind it. */
    if (__builtin_expect(len >= sizeof(*h) && h->type == IBEX_HDR_EAGER && ep != NULL &&
                             h->seq == ep->recv_seq && !ep->early,
                         1))
        return recv_eager_in_turn(ep, src_world, data, len);
    return recv_cb_full(src_world, data, len);
}

/* The 4 to 16 bytes (or none) of recv_small_expected: two fixed-size copies that overlap, no
 * call (copy_small's memcpy of other sizes would need a frame). */
static inline __attribute__((always_inline)) void copy_4_16(char *d, const char *s, size_t n)
{
    char a[8], b[8];
    if (n >= 8) {
        memcpy(a, s, 8), memcpy(b, s + n - 8, 8);
        memcpy(d, a, 8), memcpy(d + n - 8, b, 8);
    } else if (n >= 4) {
        memcpy(a, s, 4), memcpy(b, s + n - 4, 4);
        memcpy(d, a, 4), memcpy(d + n - 4, b, 4);
    }
}

/* The usual message, the expected small eager one, with no call: a known peer that has not
 * failed, in its turn with nothing early behind it, no ACK asked, the oldest posted receive of
 * its context takes it, into a contiguous buffer 4 to 16 bytes (or none, or truncated to
 * those), nothing to run at completion. Every test is made before anything is written, and
 * what is written is what recv_cb_general does in that case (recv_eager_in_turn); so the
 * callback needs no stack frame (it saved six registers for the other cases' calls: 15 of
 * its 112 instructions a message, callgrind, issue 18). False: nothing done. */
static inline __attribute__((always_inline)) bool recv_small_expected(int src_world,
                                                                      const void *data, size_t len)
{
    const ibex_match_hdr_t *h = data;
    if (!((unsigned)src_world < (unsigned)ibex_ep_table_size && len >= sizeof(*h) &&
          h->type == IBEX_HDR_EAGER && !(h->flags & IBEX_HDR_FLAG_SYNC) &&
          h->ctx < IBEX_MAX_CONTEXT_IDS))
        return false;
    ibex_ep_t *ep = &ibex_ep_table[src_world];
    ibex_match_queue_t *q = ibex_match_queues[h->ctx];
    if (!q || ep->failed || h->seq != ep->recv_seq || ep->early)
        return false;
    ibex_match_entry_t *e = q->posted.head;
    if (!e || !ibex_match_fits(e->src, e->tag, h->src, h->tag))
        return false;
    ibex_req_t *req = (ibex_req_t *)e;
    size_t got = len - sizeof(*h);
    size_t n = got < req->bytes ? got : req->bytes;
    if (!(n == 0 || (n >= 4 && n <= 16 && ibex_dt_is_contig(req->dt, req->count))) ||
        req->inflight_ep || req->on_complete || req->freed)
        return false;
    ibex_match_take_head(q);
    req->in_posted = false;
    req->status.MPI_SOURCE = h->src;
    req->status.MPI_TAG = h->tag;
    if (n)
        copy_4_16((char *)req->buf + req->dt->true_lb, (const char *)(h + 1), n);
    req->status.ibex_count = (MPI_Count)n;
    req->error = got > req->bytes ? IBEX_ERR_TRUNCATE : IBEX_OK;
    req->complete = true;
    ibex_req_active_count--;
    ep->recv_seq++;
    return true;
}

ibex_status_t ibex_proto_recv_cb(void *arg, int src_world, const void *data, size_t len)
{
    (void)arg;
    if (__builtin_expect(recv_small_expected(src_world, data, len), 1))
        return IBEX_OK;
    return recv_cb_general(src_world, data, len);
}
