/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the point-to-point entry points (runtime/p2p_*.c): argument checks and the steps
 * every blocking call shares. Not used outside runtime/p2p_*.c.
 */
#ifndef IBEX_P2P_API_H
#define IBEX_P2P_API_H

#include "ibex_dt_ref.h"
#include "ibex_engine.h"
#include "ibex_err.h"
#include "ibex_runtime.h"

/* Checks (buf, count, datatype, peer, tag, comm) of a send or receive. */
int ibex_p2p_check_args(const char *call, const void *buf, MPI_Count count, MPI_Datatype datatype,
                        int peer, int tag, MPI_Comm comm, bool is_recv, ibex_comm_t **comm_p,
                        ibex_dt_t **dt_p);
/* ibex_p2p_check_args for the common case, inline: when every check passes it costs two table
 * loads and a few compares; at the first doubt the full check runs and raises the error (so the
 * classes, their order and the messages are those of ibex_p2p_check_args). Always inlined: as
 * a call (gcc's choice with several callers in a file) its prologue and epilogue cost as much
 * as its checks. */
static inline __attribute__((always_inline)) int
ibex_p2p_args(const char *call, const void *buf, MPI_Count count, MPI_Datatype datatype, int peer,
              int tag, MPI_Comm comm, bool is_recv, ibex_comm_t **comm_p, ibex_dt_t **dt_p)
{
    ibex_comm_t *c;
    ibex_dt_t *dt;
    if (__builtin_expect(ibex_rt.running, 1) &&
        (c = ibex_handle_get_k(&ibex_comm_handles, IBEX_KIND_COMM, comm)) != NULL &&
        (dt = ibex_handle_get_k(&ibex_dt_handles, IBEX_KIND_DATATYPE, datatype)) != NULL &&
        dt->committed && count >= 0 && (buf || count == 0 || !dt->predefined) &&
        ((unsigned)tag <= (unsigned)ibex_tag_ub || (is_recv && tag == MPI_ANY_TAG)) &&
        ((unsigned)peer < (unsigned)c->peer_size || peer == MPI_PROC_NULL ||
         (is_recv && peer == MPI_ANY_SOURCE))) {
        *comm_p = c;
        *dt_p = dt;
        return MPI_SUCCESS;
    }
    /* the full check fills its own variables, so the caller's stay in registers (their
     * addresses passed on made the compiler keep them on the stack on the fast path too) */
    ibex_comm_t *fc = NULL;
    ibex_dt_t *fdt = NULL;
    int rc = ibex_p2p_check_args(call, buf, count, datatype, peer, tag, comm, is_recv, &fc, &fdt);
    *comm_p = fc;
    *dt_p = fdt;
    return rc;
}
/* Raises the error of a completed request through its communicator's handler. */
int ibex_p2p_req_error(ibex_req_t *req, const char *call);
/* Copies a completed request's status out (st may be MPI_STATUS_IGNORE). */
void ibex_p2p_status_out(const ibex_req_t *req, MPI_Status *st);
/* Finishes a completed request (Wait / Test): status out, then release (and *handle =
 * MPI_REQUEST_NULL; handle may be NULL) or, if persistent, deactivate. Returns the request's
 * MPI error class, raised through the communicator's handler when raise is true. */
int ibex_p2p_finish(ibex_req_t *req, MPI_Request *handle, MPI_Status *st, const char *call,
                    bool raise);
/* ibex_p2p_finish, its common case inline (no status wanted, no error, not persistent): the
 * -all and -some calls finish many requests in one loop. */
static inline int ibex_p2p_finish_inline(ibex_req_t *req, MPI_Request *handle, MPI_Status *st,
                                         const char *call, bool raise)
{
    if (__builtin_expect(st == MPI_STATUS_IGNORE && req->error == IBEX_OK && !req->persistent, 1)) {
        ibex_req_release_inline(req);
        *handle = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    return ibex_p2p_finish(req, handle, st, call, raise);
}
/* The send half shared by MPI_Isend and friends; with start false the request is made but not
 * started (persistent requests). */
int ibex_p2p_send_req(const char *call, const void *buf, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, ibex_send_mode_t mode, bool start,
                      ibex_req_t **req_p);
/* ibex_p2p_send_req with the arguments already checked (comm and datatype looked up). */
int ibex_p2p_send_req_on(const char *call, const void *buf, MPI_Count count, ibex_dt_t *dt,
                         int dest, int tag, ibex_comm_t *comm, ibex_send_mode_t mode, bool start,
                         ibex_req_t **req_p);
int ibex_p2p_recv_req(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype, int src,
                      int tag, MPI_Comm comm, bool start, ibex_req_t **req_p);
/* Completes a request to or from MPI_PROC_NULL at once. */
void ibex_p2p_req_proc_null(ibex_req_t *req);
/* The message's fields, which ibex_req_take / ibex_req_init_local leave to the caller. */
static inline __attribute__((always_inline)) void ibex_p2p_req_set(ibex_req_t *req, const void *buf,
                                                                   MPI_Count count, ibex_dt_t *dt,
                                                                   int peer, int tag,
                                                                   ibex_comm_t *comm, bool coll)
{
    req->buf = (void *)buf;
    req->count = count;
    req->dt = dt;
    req->bytes = (size_t)count * dt->size;
    req->peer = peer;
    req->tag = tag;
    req->comm = comm;
    req->coll = coll;
    /* a request keeps its communicator and datatype alive until it is released */
    ibex_comm_retain(comm);
    if (!dt->predefined)
        ibex_dt_retain(dt);
}

/* Starts a receive: matched against the unexpected queue, else posted. Inline, with the tests
 * of the usual case (nothing unexpected, no peer failed) before the calls that handle the
 * others: 31 + 4 + 9 + 9 instructions a receive before (callgrind, MPI_Irecv of 8 B). */
static inline __attribute__((always_inline)) void ibex_p2p_recv_start(ibex_req_t *req)
{
    ibex_match_queue_t *q = req->coll ? req->comm->coll : req->comm->pt2pt;
    ibex_umsg_t *u = q->unexpected.head
                         ? (ibex_umsg_t *)ibex_match_find_unexpected(q, req->peer, req->tag, true)
                         : NULL;
    if (u) {
        ibex_proto_recv_matched(req, u);
        return;
    }
    ibex_status_t why;
    int dead = __builtin_expect(ibex_ep_failed_count == 0, 1)
                   ? -1
                   : ibex_proto_src_failed(req->comm, req->peer, &why);
    if (dead >= 0) { /* it could only wait in vain (runtime/engine/peer_fail.c) */
        req->status.MPI_SOURCE = dead;
        ibex_req_complete(req, why);
        return;
    }
    req->match.src = req->peer;
    req->match.tag = req->tag;
    req->in_posted = true;
    ibex_match_list_append_inline(&q->posted, &req->match);
}

/* The blocking receive's request, started, in *req on the caller's stack (no pool slot, no
 * handle: ibex_req_init_local); the caller waits for it and finishes it before returning.
 * Inline into MPI_Recv: as a call (eight arguments, two on the stack, five registers saved)
 * it cost about 20 instructions of its own (callgrind, issue 18). */
static inline __attribute__((always_inline)) int
ibex_p2p_recv_local(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype, int src,
                    int tag, MPI_Comm comm, ibex_req_t *req)
{
    ibex_comm_t *c;
    ibex_dt_t *dt;
    int rc = ibex_p2p_args(call, buf, count, datatype, src, tag, comm, true, &c, &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    ibex_req_init_local(req, IBEX_REQ_RECV);
    ibex_p2p_req_set(req, buf, count, dt, src, tag, c, false);
    if (src == MPI_PROC_NULL) /* what ibex_p2p_start does for a fresh receive */
        ibex_p2p_req_proc_null(req);
    else
        ibex_p2p_recv_start(req);
    return MPI_SUCCESS;
}

/* MPI_Irecv's request, started: ibex_p2p_recv_req inline, with the pool's pop and the receive's
 * start (ibex_p2p_start's persistent and MPI_PROC_NULL tests done here) in the caller
 * (callgrind, issue 18: the calls to the request maker, ibex_req_take and ibex_p2p_start were
 * about a third of an 8-byte MPI_Irecv's instructions). */
static inline __attribute__((always_inline)) int
ibex_p2p_irecv_req(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype, int src,
                   int tag, MPI_Comm comm, ibex_req_t **req_p)
{
    ibex_comm_t *c;
    ibex_dt_t *dt;
    int rc = ibex_p2p_args(call, buf, count, datatype, src, tag, comm, true, &c, &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    ibex_match_queue_t *q = c->pt2pt;
    ibex_req_t *req = ibex_req_free_list;
    if (__builtin_expect(
            req && !q->unexpected.head && ibex_ep_failed_count == 0 && src != MPI_PROC_NULL, 1)) {
        /* the usual receive, posted: each field written once (ibex_req_take_inline, then
         * ibex_p2p_recv_start, wrote the match entry, in_posted and coll twice) */
        ibex_req_free_list = req->pnext;
        req->match.src = src;
        req->match.tag = tag;
        ibex_req_head_init_common(req, IBEX_REQ_RECV, true);
        ibex_p2p_req_set(req, buf, count, dt, src, tag, c, false);
        ibex_match_list_append_inline(&q->posted, &req->match);
        *req_p = req;
        return MPI_SUCCESS;
    }
    req = ibex_req_take_inline(IBEX_REQ_RECV);
    if (__builtin_expect(!req, 0))
        return ibex_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory for a request");
    ibex_p2p_req_set(req, buf, count, dt, src, tag, c, false);
    if (src == MPI_PROC_NULL)
        ibex_p2p_req_proc_null(req);
    else
        ibex_p2p_recv_start(req);
    *req_p = req;
    return MPI_SUCCESS;
}

/* Starts an inactive request (MPI_Start, and the non-persistent calls). */
void ibex_p2p_start(ibex_req_t *req);
/* The finish of a generalized request (p2p_greq.c): query_fn, status, free_fn, release. */
int ibex_p2p_greq_finish(ibex_req_t *req, MPI_Request *handle, MPI_Status *st, const char *call,
                         bool raise);
/* A request already complete, on c (the calls that finish at the call: Comm_idup,
 * Buffer_iflush): Wait / Test report an empty status. */
int ibex_p2p_req_done(ibex_comm_t *c, const char *call, MPI_Request *request);
/* Buffered send (p2p_bsend.c). */
int ibex_p2p_bsend_start(const char *call, ibex_req_t *req);
/* MPI_Comm_free: c's own buffer, if any, is flushed and detached. */
void ibex_p2p_bsend_comm_drop(const ibex_comm_t *c);

#endif
