/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Making and starting point-to-point requests, for the MPI entry points and for internal users
 * (collectives, communicator construction).
 */
#include "ibex_p2p_api.h"

#include <stdlib.h>
#include <string.h>

#include "ibex_dt_ref.h"
#include "ibex_log.h"
#include "ibex_runtime.h"

int ibex_p2p_check_args(const char *call, const void *buf, MPI_Count count, MPI_Datatype datatype,
                        int peer, int tag, MPI_Comm comm, bool is_recv, ibex_comm_t **comm_p,
                        ibex_dt_t **dt_p)
{
    ibex_comm_t *c;
    int rc = ibex_comm_enter(comm, call, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = ibex_check_count(c, call, count)) != MPI_SUCCESS ||
        (rc = ibex_dt_lookup_on(c, datatype, call, true, dt_p)) != MPI_SUCCESS ||
        (rc = ibex_check_tag(c, call, tag, is_recv)) != MPI_SUCCESS ||
        (rc = ibex_check_rank(c, call, peer, is_recv)) != MPI_SUCCESS)
        return rc;
    /* MPI_BOTTOM (NULL) is a valid base for absolute displacements of derived types. */
    if ((*dt_p)->predefined && (rc = ibex_check_buffer(c, call, buf, count)) != MPI_SUCCESS)
        return rc;
    *comm_p = c;
    return MPI_SUCCESS;
}

static ibex_req_t *req_fill(ibex_req_kind_t kind, const void *buf, MPI_Count count, ibex_dt_t *dt,
                            int peer, int tag, ibex_comm_t *comm, bool coll)
{
    ibex_req_t *req = ibex_req_take_inline(kind); /* sets all but the message's fields */
    if (req)
        ibex_p2p_req_set(req, buf, count, dt, peer, tag, comm, coll);
    return req;
}

/* Completes a request to or from MPI_PROC_NULL at once. */
void ibex_p2p_req_proc_null(ibex_req_t *req)
{
    req->status.MPI_SOURCE = MPI_PROC_NULL;
    req->status.MPI_TAG = MPI_ANY_TAG;
    req->status.ibex_count = 0;
    ibex_req_complete(req, IBEX_OK);
}

/* Starts a fresh or persistent request: the one place where sends and receives begin. */
void ibex_p2p_start(ibex_req_t *req)
{
    if (req->persistent) {
        if (req->complete)
            ibex_req_active_count++; /* restarting a completed persistent request */
        req->complete = false;
        req->error = IBEX_OK;
        ibex_status_empty(&req->status);
        req->active = true;
    }
    if (req->peer == MPI_PROC_NULL) {
        ibex_p2p_req_proc_null(req);
        return;
    }
    if (req->kind == IBEX_REQ_RECV)
        ibex_p2p_recv_start(req);
    else
        ibex_proto_send_start(req);
}

ibex_status_t ibex_p2p_isend(const void *buf, MPI_Count count, ibex_dt_t *dt, int dest, int tag,
                             ibex_comm_t *comm, bool coll, ibex_req_t **req_p)
{
    ibex_req_t *req = req_fill(IBEX_REQ_SEND, buf, count, dt, dest, tag, comm, coll);
    if (!req)
        return IBEX_ERR_NO_MEMORY;
    req->mode = IBEX_SEND_STANDARD;
    ibex_p2p_start(req);
    *req_p = req;
    return IBEX_OK;
}

ibex_status_t ibex_p2p_irecv(void *buf, MPI_Count count, ibex_dt_t *dt, int src, int tag,
                             ibex_comm_t *comm, bool coll, ibex_req_t **req_p)
{
    ibex_req_t *req = req_fill(IBEX_REQ_RECV, buf, count, dt, src, tag, comm, coll);
    if (!req)
        return IBEX_ERR_NO_MEMORY;
    ibex_p2p_start(req);
    *req_p = req;
    return IBEX_OK;
}

int ibex_p2p_send_req(const char *call, const void *buf, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, ibex_send_mode_t mode, bool start,
                      ibex_req_t **req_p)
{
    ibex_comm_t *c;
    ibex_dt_t *dt;
    int rc = ibex_p2p_args(call, buf, count, datatype, dest, tag, comm, false, &c, &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    return ibex_p2p_send_req_on(call, buf, count, dt, dest, tag, c, mode, start, req_p);
}

int ibex_p2p_send_req_on(const char *call, const void *buf, MPI_Count count, ibex_dt_t *dt,
                         int dest, int tag, ibex_comm_t *c, ibex_send_mode_t mode, bool start,
                         ibex_req_t **req_p)
{
    ibex_req_t *req = req_fill(IBEX_REQ_SEND, buf, count, dt, dest, tag, c, false);
    if (!req)
        return ibex_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory for a request");
    req->mode = (uint8_t)mode;
    *req_p = req;
    if (!start)
        return MPI_SUCCESS;
    if (mode == IBEX_SEND_BUFFERED && dest != MPI_PROC_NULL)
        return ibex_p2p_bsend_start(call, req);
    ibex_p2p_start(req);
    return MPI_SUCCESS;
}

int ibex_p2p_recv_req(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype, int src,
                      int tag, MPI_Comm comm, bool start, ibex_req_t **req_p)
{
    ibex_comm_t *c;
    ibex_dt_t *dt;
    int rc = ibex_p2p_args(call, buf, count, datatype, src, tag, comm, true, &c, &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    ibex_req_t *req = req_fill(IBEX_REQ_RECV, buf, count, dt, src, tag, c, false);
    if (!req)
        return ibex_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory for a request");
    *req_p = req;
    if (start)
        ibex_p2p_start(req);
    return MPI_SUCCESS;
}

static inline void status_out(const ibex_req_t *req, MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    int err = st->MPI_ERROR; /* single-completion calls leave MPI_ERROR alone */
    *st = req->status;
    st->MPI_ERROR = err;
}

void ibex_p2p_status_out(const ibex_req_t *req, MPI_Status *st)
{
    status_out(req, st);
}

static const char *req_what(const ibex_req_t *req)
{
    return req->kind == IBEX_REQ_SEND ? "send to" : "receive from";
}

int ibex_p2p_req_error(ibex_req_t *req, const char *call)
{
    int cls = ibex_err_class_of(req->error);
    if (req->error == IBEX_ERR_TRUNCATE)
        return ibex_mpi_error(req->comm, cls, call,
                              "message from rank %d tag %d truncated: the receive buffer holds "
                              "%zu bytes",
                              req->status.MPI_SOURCE, req->status.MPI_TAG, req->bytes);
    if (req->kind == IBEX_REQ_COLL && req->start_call) /* "MPI_Wait: MPI_Comm_idup failed: ..." */
        return ibex_mpi_error(req->comm, cls, call, "%s failed: %s", req->start_call,
                              ibex_status_str(req->error));
    if (req->kind == IBEX_REQ_COLL)
        return ibex_mpi_error(req->comm, cls, call, "collective failed: %s",
                              ibex_status_str(req->error));
    if (req->peer == MPI_ANY_SOURCE) /* MPI_SOURCE: the failed rank (engine/peer_fail.c) */
        return ibex_mpi_error(req->comm, cls, call,
                              "receive from MPI_ANY_SOURCE (tag %d) failed: rank %d of the "
                              "communicator (world rank %d) has failed: %s",
                              req->tag, req->status.MPI_SOURCE,
                              ibex_comm_world_rank(req->comm, req->status.MPI_SOURCE),
                              ibex_status_str(req->error));
    return ibex_mpi_error(req->comm, cls, call, "%s rank %d (tag %d) failed: %s", req_what(req),
                          req->peer, req->tag, ibex_status_str(req->error));
}

int ibex_p2p_finish(ibex_req_t *req, MPI_Request *handle, MPI_Status *st, const char *call,
                    bool raise)
{
    status_out(req, st);
    if (__builtin_expect(req->error == IBEX_OK && !req->persistent, 1)) {
        ibex_req_release(req);
        if (handle)
            *handle = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    if (req->ext) /* a generalized request: its callbacks say the outcome */
        return ibex_p2p_greq_finish(req, handle, st, call, raise);
    int cls = ibex_err_class_of(req->error);
    if (req->error != IBEX_OK && raise)
        cls = ibex_p2p_req_error(req, call);
    if (req->persistent) {
        req->active = false;
    } else {
        ibex_req_release(req);
        if (handle)
            *handle = MPI_REQUEST_NULL;
    }
    return cls;
}
