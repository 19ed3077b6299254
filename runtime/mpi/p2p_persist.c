/* SPDX-License-Identifier: BSD-3-Clause */
/* Persistent requests: *_init makes an inactive request; MPI_Start / Startall start it. */
#include "coll_nbc.h"
#include "ibex_p2p_api.h"
#include "ibex_part.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

static int persist_make(ibex_req_t *req, MPI_Request *request, const char *call)
{
    req->persistent = true;
    req->complete = true; /* inactive: not counted as active until started */
    req->active = false;
    ibex_req_active_count--;
    if (ibex_req_publish(req, request) != 0) {
        ibex_req_release(req);
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of request handles");
    }
    return MPI_SUCCESS;
}

static int send_init(const char *call, const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                     int tag, MPI_Comm comm, ibex_send_mode_t mode, MPI_Request *request)
{
    ibex_req_t *req;
    if (!request)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "request pointer is NULL");
    int rc = ibex_p2p_send_req(call, buf, count, dt, dest, tag, comm, mode, false, &req);
    return rc != MPI_SUCCESS ? rc : persist_make(req, request, call);
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    IBEX_ENTER_FAST(Send_init);
    return send_init(call, buf, count, dt, dest, tag, comm, IBEX_SEND_STANDARD, request);
}

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    IBEX_ENTER_FAST(Ssend_init);
    return send_init(call, buf, count, dt, dest, tag, comm, IBEX_SEND_SYNC, request);
}

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    IBEX_ENTER_FAST(Rsend_init);
    return send_init(call, buf, count, dt, dest, tag, comm, IBEX_SEND_READY, request);
}

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    IBEX_ENTER_FAST(Bsend_init);
    return send_init(call, buf, count, dt, dest, tag, comm, IBEX_SEND_BUFFERED, request);
}

static int recv_init(const char *call, void *buf, MPI_Count count, MPI_Datatype dt, int source,
                     int tag, MPI_Comm comm, MPI_Request *request)
{
    ibex_req_t *req;
    if (!request)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "request pointer is NULL");
    int rc = ibex_p2p_recv_req(call, buf, count, dt, source, tag, comm, false, &req);
    return rc != MPI_SUCCESS ? rc : persist_make(req, request, call);
}

int PMPI_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    IBEX_ENTER_FAST(Recv_init);
    return recv_init(call, buf, count, dt, source, tag, comm, request);
}

/* MPI 4.0 large counts: the same paths, the engine carries MPI_Count */
int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Send_init_c);
    return send_init(call, buf, count, dt, dest, tag, comm, IBEX_SEND_STANDARD, request);
}

int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Ssend_init_c);
    return send_init(call, buf, count, dt, dest, tag, comm, IBEX_SEND_SYNC, request);
}

int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Rsend_init_c);
    return send_init(call, buf, count, dt, dest, tag, comm, IBEX_SEND_READY, request);
}

int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Bsend_init_c);
    return send_init(call, buf, count, dt, dest, tag, comm, IBEX_SEND_BUFFERED, request);
}

int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Recv_init_c);
    return recv_init(call, buf, count, dt, source, tag, comm, request);
}

static int start_one(MPI_Request h, const char *call)
{
    ibex_req_t *req = ibex_req_from_handle(h);
    if (!req || !req->persistent)
        return ibex_mpi_error(NULL, MPI_ERR_REQUEST, call, "not a persistent request");
    if (req->active)
        return ibex_mpi_error(req->comm, MPI_ERR_REQUEST, call, "request is already active");
    if (ibex_part_is(req))
        return ibex_part_start(req, call);
    if (req->kind == IBEX_REQ_COLL)
        return ibex_nbc_start(req, call);
    if (req->mode == IBEX_SEND_BUFFERED && req->kind == IBEX_REQ_SEND &&
        req->peer != MPI_PROC_NULL) {
        /* The user's request completes at once; an inner request carries the copy. */
        ibex_req_active_count++;
        req->complete = false;
        req->active = true;
        ibex_status_empty(&req->status);
        return ibex_p2p_bsend_start(call, req);
    }
    ibex_p2p_start(req);
    return MPI_SUCCESS;
}

int PMPI_Start(MPI_Request *request)
{
    IBEX_ENTER(Start);
    if (!request)
        return ibex_mpi_error(NULL, MPI_ERR_REQUEST, call, "request pointer is NULL");
    return start_one(*request, call);
}

int PMPI_Startall(int count, MPI_Request reqs[])
{
    IBEX_ENTER(Startall);
    int rc;
    if (count < 0 || (count > 0 && !reqs))
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "invalid request array");
    for (int i = 0; i < count; i++)
        if ((rc = start_one(reqs[i], call)) != MPI_SUCCESS)
            return rc;
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(p2p_persist)
