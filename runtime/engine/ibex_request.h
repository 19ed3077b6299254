/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests (runtime/engine/request.c): one struct for every send and receive, user-visible or
 * internal (collectives), taken from a pool so the fast path does not call malloc. A user-visible
 * request also has an MPI_Request handle.
 */
#ifndef IBEX_REQUEST_H
#define IBEX_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <mpi.h>

#include "ibex_hidden.h"
#include "ibex_comm.h"
#include "ibex_datatype.h"
#include "ibex_dt_ref.h"
#include "ibex_match.h"
#include "ibex_p2p.h"
#include "ibex_proto.h"

/* IBEX_REQ_COLL: a non-blocking or persistent collective; its schedule (collectives/base)
 * hangs on hook_arg, completes it through ibex_req_complete and is freed by on_release. */
typedef enum { IBEX_REQ_SEND, IBEX_REQ_RECV, IBEX_REQ_COLL } ibex_req_kind_t;

struct ibex_ep;
struct ibex_umsg;
struct ibex_req;

/* Requests the program drives itself (generalized requests, runtime/mpi/p2p_greq.c): the
 * MPI layer calls query when Wait / Test / Request_get_status report the request (it fills
 * req->status and returns an MPI code) and cancel from MPI_Cancel; the engine calls release
 * when the request goes back to the pool. */
typedef struct ibex_req_ext {
    int (*query)(struct ibex_req *req);
    int (*cancel)(struct ibex_req *req);
    int (*release)(struct ibex_req *req);
} ibex_req_ext_t;

struct ibex_req {
    ibex_match_entry_t match;       /* first: a posted receive sits in a match queue by this */
    struct ibex_req *pnext;         /* pending-send queue of its endpoint */
    struct ibex_req *inext, *iprev; /* in flight: waits for a message from its peer */
    struct ibex_ep *inflight_ep;
    int handle;    /* MPI_Request, or MPI_REQUEST_NULL for internal ones */
    uint8_t kind;  /* ibex_req_kind_t */
    uint8_t mode;  /* ibex_send_mode_t */
    uint8_t proto; /* ibex_proto_t of a send */
    bool complete;
    bool persistent; /* made by *_init: survives completion */
    bool active;     /* persistent: started and not yet completed */
    bool freed;      /* MPI_Request_free'd while active: release on completion */
    bool coll;       /* on the collective context */
    bool in_posted;  /* sits in a posted queue (cancellable) */
    ibex_comm_t *comm;
    void *buf;
    MPI_Count count;
    ibex_dt_t *dt;
    size_t bytes; /* count * dt->size */
    int peer;     /* rank in comm (or MPI_ANY_SOURCE / MPI_PROC_NULL) */
    int tag;
    MPI_Status status;
    ibex_status_t error; /* set once, at completion */
    /* protocol state */
    struct ibex_ep *ep;
    uint32_t seq;
    /* hooks */
    void (*on_complete)(struct ibex_req *req); /* e.g. Bsend releases its buffer */
    void *hook_arg;
    void (*on_release)(struct ibex_req *req); /* e.g. a collective frees its schedule */
    const ibex_req_ext_t *ext;                /* NULL but for generalized requests */
    /* place in the pool, which names the handle (request.c); never changes. Everything above
     * is set by ibex_req_alloc / ibex_req_take; everything below is rendezvous state, zeroed only
     * by ibex_req_rndv_clear when a rendezvous (or a synchronous send) starts, so an eager request
     * never writes those lines (runtime/engine/README.md) */
    int slot;
    /* rendezvous state (tail) */
    int pending;     /* SPLIT: own copy and the peer's FIN still to come */
    bool split;      /* a SPLIT rendezvous */
    void *staging;   /* packed copy of non-contiguous data */
    void *rma_local; /* the contiguous bytes a rendezvous moves */
    size_t rma_len;
    struct iovec *rma_iov; /* or, when set, these pieces of the user buffer (no staging) */
    int rma_iovcnt;
    size_t frag_done;    /* PIPE: bytes sent / received in fragments */
    bool frag_go;        /* PIPE sender: the CTS came, the backlog resumes the fragments */
    ibex_tl_mem_t *mem;  /* registration of rma_local */
    uint64_t peer_req;   /* the other side's request id */
    ibex_tl_comp_t comp; /* put / get completion */
    int rma_outstanding;
    ibex_status_t rma_status;
    /* IBEX_REQ_COLL only: the MPI call that made it ("MPI_Comm_idup", "MPI_Ibcast"; NULL for an
     * internal one), named by the error of the Wait / Test that completes it. Set NULL by
     * ibex_req_alloc, the only way to a collective request; never read for a send or a receive,
     * so the point-to-point path neither sets nor clears it. */
    const char *start_call;
};

/* Takes a request from the pool, every field zero or empty up to its slot (the rendezvous tail is
 * not: see ibex_req_rndv_clear); handle is MPI_REQUEST_NULL until published. */
ibex_req_t *ibex_req_alloc(ibex_req_kind_t kind);
/* The same without the message's fields (comm, buf, count, dt, bytes, peer, tag), which the
 * caller must all set: the point-to-point path (runtime/mpi/p2p_req.c). */
ibex_req_t *ibex_req_take(ibex_req_kind_t kind);
/* Zeroes the rendezvous state: called where a send or receive first needs it (a rendezvous
 * starts, a synchronous send waits for its ACK), before anything in it is read. */
static inline void ibex_req_rndv_clear(ibex_req_t *req)
{
    memset(&req->pending, 0, sizeof(*req) - offsetof(ibex_req_t, pending));
}
static inline void ibex_status_empty(MPI_Status *st)
{
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    st->ibex_cancelled = 0;
    st->ibex_count = 0;
}

/* A request on its caller's stack (the blocking MPI_Recv: runtime/mpi/p2p_api.c), with no pool
 * slot and no handle: ibex_req_init_local sets what ibex_req_take sets (the caller sets the
 * message fields) and slot = IBEX_REQ_LOCAL; ibex_req_release then drops only its references.
 * It lives until its caller has seen it complete, and no peer ever learns its address: a
 * rendezvous that matches it first moves it into the pool (ibex_req_adopt: the pool copy
 * completes the local one with its status and goes back to the pool by itself), so every id on
 * the wire is still a pool request (issue 16). */
enum { IBEX_REQ_LOCAL = -1 };
extern long ibex_req_active_count IBEX_ENGINE_HIDDEN;
extern ibex_req_t *ibex_req_free_list IBEX_ENGINE_HIDDEN; /* the pool's, through pnext */
/* Everything ibex_req_take sets but the pool link, the match entry and in_posted (given): the
 * error, the protocol state and the hooks zeroed as one run of bytes (IBEX_OK is 0), which gcc
 * stores 16 at a time (field by field they were seven stores). */
_Static_assert(IBEX_OK == 0 && offsetof(ibex_req_t, error) < offsetof(ibex_req_t, ep) &&
                   offsetof(ibex_req_t, ep) < offsetof(ibex_req_t, seq) &&
                   offsetof(ibex_req_t, seq) < offsetof(ibex_req_t, on_complete) &&
                   offsetof(ibex_req_t, on_complete) < offsetof(ibex_req_t, hook_arg) &&
                   offsetof(ibex_req_t, hook_arg) < offsetof(ibex_req_t, on_release) &&
                   offsetof(ibex_req_t, on_release) < offsetof(ibex_req_t, ext) &&
                   offsetof(ibex_req_t, ext) < offsetof(ibex_req_t, slot),
               "ibex_req_head_init_common: error .. ext are one run before slot");
static inline __attribute__((always_inline)) void
ibex_req_head_init_common(ibex_req_t *req, ibex_req_kind_t kind, bool in_posted)
{
    req->pnext = req->inext = req->iprev = NULL;
    req->inflight_ep = NULL;
    req->handle = MPI_REQUEST_NULL;
    req->kind = (uint8_t)kind;
    req->mode = req->proto = 0;
    req->complete = req->persistent = req->active = req->freed = false;
    req->coll = false;
    req->in_posted = in_posted;
    ibex_status_empty(&req->status);
    memset(&req->error, 0, offsetof(ibex_req_t, slot) - offsetof(ibex_req_t, error));
    ibex_req_active_count++;
}
/* Everything ibex_req_take sets but the pool link (every caller sets the message fields). */
static inline void ibex_req_head_init(ibex_req_t *req, ibex_req_kind_t kind)
{
    req->match.next = req->match.prev = NULL;
    req->match.src = req->match.tag = 0;
    ibex_req_head_init_common(req, kind, false);
}
/* ibex_req_take with the free list's pop inline (its call was a tenth of an MPI_Irecv,
 * callgrind, issue 18); the pool's growth stays out of line. */
static inline __attribute__((always_inline)) ibex_req_t *ibex_req_take_inline(ibex_req_kind_t kind)
{
    ibex_req_t *req = ibex_req_free_list;
    if (__builtin_expect(!req, 0))
        return ibex_req_take(kind);
    ibex_req_free_list = req->pnext;
    ibex_req_head_init(req, kind);
    return req;
}
static inline void ibex_req_init_local(ibex_req_t *req, ibex_req_kind_t kind)
{
    ibex_req_head_init(req, kind);
    req->slot = IBEX_REQ_LOCAL;
}
/* What ibex_req_release does for a local request that completed without hooks: its
 * references (a local request has no slot, handle or hooks). */
static inline void ibex_req_release_local(ibex_req_t *req)
{
    ibex_comm_release(req->comm);
    if (!req->dt->predefined)
        ibex_dt_release(req->dt);
}
static inline bool ibex_req_is_local(const ibex_req_t *req)
{
    return req->slot == IBEX_REQ_LOCAL;
}
/* The pool copy of a local request (taken out of every queue), or NULL when out of memory. */
ibex_req_t *ibex_req_adopt(ibex_req_t *local);
/* The pool request a peer's message names by id, or NULL if the id is none (request.c). */
ibex_req_t *ibex_req_from_wire(uint64_t id);

/* The pool's first chunk, and the slots past it (NULL beyond the pool), for the lookup below. */
enum { IBEX_REQ_CHUNK0 = 64 };
extern ibex_req_t ibex_req_first[IBEX_REQ_CHUNK0];
ibex_req_t *ibex_req_slot_far(unsigned slot);

/* The request of a live handle, or NULL. Inline, as the polling calls look each request up
 * several times: a handle of another kind or index 0 (MPI_REQUEST_NULL) gives a slot past any
 * pool after the subtraction, and a released or never published slot holds another handle. */
static inline ibex_req_t *ibex_req_from_handle(MPI_Request handle)
{
    unsigned s = (unsigned)handle - (unsigned)IBEX_HANDLE(IBEX_KIND_REQUEST, 1);
    ibex_req_t *req =
        __builtin_expect(s < IBEX_REQ_CHUNK0, 1) ? &ibex_req_first[s] : ibex_req_slot_far(s);
    return req && __atomic_load_n(&req->handle, __ATOMIC_ACQUIRE) == handle ? req : NULL;
}

/* The shared completed send (issue 18): pool slot 0 is never taken; it holds a request born
 * complete (a standard send with an empty status, no communicator, no datatype, no hook) that
 * never changes. An MPI_Isend / MPI_Irsend whose eager message the transport took whole
 * (ibex_proto_send_now) returns its handle instead of a request of its own: nothing can happen
 * to such a send any more (no ACK, CTS or FIN, no error: the request path reports every
 * failure), so every completion call gives it back as MPI_REQUEST_NULL with an empty status,
 * MPI_Request_get_status says complete, MPI_Cancel does nothing (a send goes ahead), and
 * ibex_req_release of it returns at once. Many sends may hold the handle at once. */
enum { IBEX_REQ_SENT_SLOT = 0 };
#define IBEX_REQ_SENT ((MPI_Request)IBEX_HANDLE(IBEX_KIND_REQUEST, IBEX_REQ_SENT_SLOT + 1))
#define ibex_req_sent (&ibex_req_first[IBEX_REQ_SENT_SLOT])
static inline bool ibex_req_is_sent(const ibex_req_t *req)
{
    return req == ibex_req_sent;
}
/* Makes the pool's first chunk (and the shared completed send): the engine's start
 * (ibex_p2p_init), so the handle IBEX_REQ_SENT is valid before any request is taken. */
ibex_status_t ibex_req_pool_init(void);

/* Gives the request its MPI_Request handle, IBEX_HANDLE(IBEX_KIND_REQUEST, slot + 1); returns
 * 0 (the pool never holds more requests than a handle can name). */
static inline int ibex_req_publish(ibex_req_t *req, MPI_Request *handle_p)
{
    int h = IBEX_HANDLE(IBEX_KIND_REQUEST, req->slot + 1);
    __atomic_store_n(&req->handle, h, __ATOMIC_RELEASE);
    *handle_p = h;
    return 0;
}
/* Marks the request complete with a status (IBEX_OK, IBEX_ERR_TRUNCATE, ...). */
void ibex_req_complete(ibex_req_t *req, ibex_status_t error);
/* ibex_req_complete, with its common case inline: nothing in flight, no hook, not freed (an
 * eager receive, matched in the transport's callback). */
static inline void ibex_req_complete_inline(ibex_req_t *req, ibex_status_t error)
{
    if (__builtin_expect(req->inflight_ep || req->on_complete || req->freed, 0)) {
        ibex_req_complete(req, error);
        return;
    }
    req->error = error;
    req->complete = true;
    ibex_req_active_count--;
}
/* Returns the request to the pool (and its handle, if any): the references, the hooks, the
 * free list. Out of line; ibex_req_release_inline is the same with the common case (no hook, a
 * predefined datatype, complete, a pool request) inline. */
void ibex_req_release(ibex_req_t *req);
/* The common end of a release (ibex_req_release_inline, ibex_req_release_found): the
 * communicator's reference dropped, the handle gone, the request back on the free list. */
static inline __attribute__((always_inline)) void ibex_req_to_pool(ibex_req_t *req)
{
    ibex_comm_release(req->comm);
    __atomic_store_n(&req->handle, MPI_REQUEST_NULL, __ATOMIC_RELAXED);
    req->pnext = ibex_req_free_list;
    ibex_req_free_list = req;
}
static inline __attribute__((always_inline)) void ibex_req_release_inline(ibex_req_t *req)
{
    if (__builtin_expect(ibex_req_is_sent(req), 0))
        return;
    if (__builtin_expect(req->on_release || req->ext || !req->complete || req->slot < 0 ||
                             (req->dt && !req->dt->predefined),
                         0)) {
        ibex_req_release(req);
        return;
    }
    ibex_req_to_pool(req);
}
/* ibex_req_release_inline for a complete request found by its handle (ibex_req_from_handle of
 * a handle other than IBEX_REQ_SENT): a pool request, not the shared completed send, so only
 * the hooks and the datatype are tested (MPI_Waitall, issue 18). */
static inline __attribute__((always_inline)) void ibex_req_release_found(ibex_req_t *req)
{
    if (__builtin_expect(req->on_release || req->ext || (req->dt && !req->dt->predefined), 0)) {
        ibex_req_release(req);
        return;
    }
    ibex_req_to_pool(req);
}
/* MPI_REQUEST_NULL or IBEX_REQ_SENT (they are consecutive): one compare. */
static inline bool ibex_req_null_or_sent(MPI_Request h)
{
    return (unsigned)h - (unsigned)MPI_REQUEST_NULL <= 1;
}
_Static_assert((unsigned)IBEX_REQ_SENT == (unsigned)MPI_REQUEST_NULL + 1,
               "ibex_req_null_or_sent: the shared completed send follows MPI_REQUEST_NULL");
/* The inactive persistent requests the program holds on comm (each keeps a reference to it:
 * MPI_Comm_disconnect does not wait for those). */
int ibex_req_count_idle(const ibex_comm_t *comm);
/* Requests not yet complete (MPI_Finalize waits for the internal ones): ibex_req_active_count,
 * declared above. */
void ibex_req_pool_fini(void);

/* Waits until req completes, driving progress with the waiting policy. */
void ibex_req_wait_complete(ibex_req_t *req);
/* One step of a wait loop: progress, then spin or yield by the policy. */
void ibex_wait_step(int *idle_polls);
/* One progress call from a call that polls without blocking (MPI_Test*, Iprobe, Improbe,
 * Request_get_status): when it finds nothing, the same back-off as a blocking wait, counted over
 * the program's consecutive polls. */
void ibex_poll_step(void);
/* Says at debug level which waiting policy this rank runs with and why. */
void ibex_wait_policy_log(void);

#endif
