/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI point-to-point entry points: sends, receives, Sendrecv. */
#include <stdlib.h>
#include <string.h>

#include "ibex_p2p_api.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"
#include "ibex_send_now.h"

/* Blocking = start, wait, finish: one path for every blocking call. */
static int wait_finish(ibex_req_t *req, MPI_Status *st, const char *call)
{
    ibex_req_wait_complete(req);
    return ibex_p2p_finish(req, NULL, st, call, true);
}

/* A blocking send that needs a request: started, waited for, finished. */
static __attribute__((noinline)) int send_blocking_req(const char *call, const void *buf,
                                                       MPI_Count count, ibex_dt_t *dt, int dest,
                                                       int tag, ibex_comm_t *c,
                                                       ibex_send_mode_t mode)
{
    ibex_req_t *req;
    int rc = ibex_p2p_send_req_on(call, buf, count, dt, dest, tag, c, mode, true, &req);
    if (rc != MPI_SUCCESS)
        return rc;
    return wait_finish(req, MPI_STATUS_IGNORE, call);
}

/* Inline into each MPI_*send: the checks and the request-less send cost no call of their own
 * (a call with eight arguments, three on the stack, was 29 + 17 instructions, callgrind). */
static inline __attribute__((always_inline)) int
send_blocking(const char *call, const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm, ibex_send_mode_t mode)
{
    ibex_comm_t *c;
    ibex_dt_t *dt;
    int rc = ibex_p2p_args(call, buf, count, datatype, dest, tag, comm, false, &c, &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    /* a ready send is a standard one here: both may go out without a request */
    if ((mode == IBEX_SEND_STANDARD || mode == IBEX_SEND_READY) &&
        ibex_proto_send_now_inline(buf, count, dt, dest, tag, c) == IBEX_OK)
        return MPI_SUCCESS;
    return send_blocking_req(call, buf, count, dt, dest, tag, c, mode);
}

/* Inline into each MPI_I*send, as send_blocking. */
static inline __attribute__((always_inline)) int
send_nonblocking(const char *call, const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                 int tag, MPI_Comm comm, ibex_send_mode_t mode, MPI_Request *request)
{
    ibex_comm_t *c;
    ibex_dt_t *t;
    ibex_req_t *req;
    if (!request)
        return ibex_mpi_error(ibex_comm_get(comm), MPI_ERR_ARG, call, "request pointer is NULL");
    int rc = ibex_p2p_args(call, buf, count, dt, dest, tag, comm, false, &c, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    /* as the blocking send: an eager message the transport takes whole needs no protocol state
     * and can report nothing later, so its request is the shared completed send */
    if ((mode == IBEX_SEND_STANDARD || mode == IBEX_SEND_READY) &&
        ibex_proto_send_now_inline(buf, count, t, dest, tag, c) == IBEX_OK) {
        *request = IBEX_REQ_SENT;
        return MPI_SUCCESS;
    }
    rc = ibex_p2p_send_req_on(call, buf, count, t, dest, tag, c, mode, true, &req);
    if (rc != MPI_SUCCESS)
        return rc;
    if (ibex_req_publish(req, request) != 0)
        return ibex_mpi_error(req->comm, MPI_ERR_NO_MEM, call, "out of request handles");
    return MPI_SUCCESS;
}

/* The receives, shared by the int and the MPI_Count forms. */
static inline __attribute__((always_inline)) int recv_blocking(const char *call, void *buf,
                                                               MPI_Count count, MPI_Datatype dt,
                                                               int source, int tag, MPI_Comm comm,
                                                               MPI_Status *status)
{
    ibex_req_t req; /* no pool request for a blocking receive (runtime/engine/README.md) */
    IBEX_CHECK(ibex_p2p_recv_local(call, buf, count, dt, source, tag, comm, &req));
    ibex_req_wait_complete(&req);
    if (__builtin_expect(req.error != IBEX_OK, 0))
        return ibex_p2p_finish(&req, NULL, status, call, true);
    ibex_p2p_status_out(&req, status);
    ibex_req_release_local(&req);
    return MPI_SUCCESS;
}

static inline __attribute__((always_inline)) int
recv_nonblocking(const char *call, void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    ibex_req_t *req = NULL;
    if (!request)
        return ibex_mpi_error(ibex_comm_get(comm), MPI_ERR_ARG, call, "request pointer is NULL");
    IBEX_CHECK(ibex_p2p_irecv_req(call, buf, count, dt, source, tag, comm, &req));
    if (ibex_req_publish(req, request) != 0)
        return ibex_mpi_error(req->comm, MPI_ERR_NO_MEM, call, "out of request handles");
    return MPI_SUCCESS;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Send);
    return send_blocking(call, buf, count, dt, dest, tag, comm, IBEX_SEND_STANDARD);
}

int PMPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Ssend);
    return send_blocking(call, buf, count, dt, dest, tag, comm, IBEX_SEND_SYNC);
}

int PMPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Rsend);
    return send_blocking(call, buf, count, dt, dest, tag, comm, IBEX_SEND_READY);
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Bsend);
    return send_blocking(call, buf, count, dt, dest, tag, comm, IBEX_SEND_BUFFERED);
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    IBEX_ENTER_FAST(Isend);
    return send_nonblocking(call, buf, count, dt, dest, tag, comm, IBEX_SEND_STANDARD, request);
}

int PMPI_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    IBEX_ENTER_FAST(Issend);
    return send_nonblocking(call, buf, count, dt, dest, tag, comm, IBEX_SEND_SYNC, request);
}

int PMPI_Irsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    IBEX_ENTER_FAST(Irsend);
    return send_nonblocking(call, buf, count, dt, dest, tag, comm, IBEX_SEND_READY, request);
}

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    IBEX_ENTER_FAST(Ibsend);
    return send_nonblocking(call, buf, count, dt, dest, tag, comm, IBEX_SEND_BUFFERED, request);
}

int PMPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    IBEX_ENTER_FAST(Recv);
    return recv_blocking(call, buf, count, dt, source, tag, comm, status);
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    IBEX_ENTER_FAST(Irecv);
    return recv_nonblocking(call, buf, count, dt, source, tag, comm, request);
}

static int sendrecv(const char *call, const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                    MPI_Comm comm, MPI_Status *status)
{
    ibex_req_t *rreq, *sreq;
    int rc =
        ibex_p2p_recv_req(call, recvbuf, recvcount, recvtype, source, recvtag, comm, true, &rreq);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = ibex_p2p_send_req(call, sendbuf, sendcount, sendtype, dest, sendtag, comm,
                           IBEX_SEND_STANDARD, true, &sreq);
    if (rc != MPI_SUCCESS) {
        ibex_req_wait_complete(rreq); /* the receive is posted: it must not be left behind */
        ibex_req_release(rreq);
        return rc;
    }
    ibex_req_wait_complete(sreq);
    ibex_req_wait_complete(rreq);
    if (sreq->error != IBEX_OK) {
        ibex_req_release(rreq);
        return wait_finish(sreq, MPI_STATUS_IGNORE, call);
    }
    ibex_req_release(sreq);
    return wait_finish(rreq, status, call);
}

static int sendrecv_replace(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                            int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Status *status)
{
    ibex_comm_t *c;
    ibex_dt_t *dt;
    int rc = ibex_p2p_check_args(call, buf, count, datatype, dest, sendtag, comm, false, &c, &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Pack what goes out, so the receive may overwrite the buffer. */
    size_t bytes = (size_t)count * dt->size;
    void *tmp = malloc(bytes ? bytes : 1);
    if (!tmp)
        return ibex_mpi_error(c, MPI_ERR_NO_MEM, call, "cannot stage %zu bytes", bytes);
    ibex_dt_pack(buf, count, dt, 0, tmp, bytes);
    rc = sendrecv(call, tmp, (MPI_Count)bytes, MPI_BYTE, dest, sendtag, buf, count, datatype,
                  source, recvtag, comm, status);
    free(tmp);
    return rc;
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    IBEX_ENTER(Sendrecv);
    return sendrecv(call, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                    source, recvtag, comm, status);
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    IBEX_ENTER(Sendrecv_replace);
    return sendrecv_replace(call, buf, count, datatype, dest, sendtag, source, recvtag, comm,
                            status);
}

/* ---- MPI 4.0 large counts: the same paths, the engine carries MPI_Count (mpi.def:
 * large_native) ---- */

int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Send_c);
    return send_blocking(call, buf, count, dt, dest, tag, comm, IBEX_SEND_STANDARD);
}

int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm)
{
    IBEX_ENTER_FAST(Ssend_c);
    return send_blocking(call, buf, count, dt, dest, tag, comm, IBEX_SEND_SYNC);
}

int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm)
{
    IBEX_ENTER_FAST(Rsend_c);
    return send_blocking(call, buf, count, dt, dest, tag, comm, IBEX_SEND_READY);
}

int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm)
{
    IBEX_ENTER_FAST(Bsend_c);
    return send_blocking(call, buf, count, dt, dest, tag, comm, IBEX_SEND_BUFFERED);
}

int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Isend_c);
    return send_nonblocking(call, buf, count, dt, dest, tag, comm, IBEX_SEND_STANDARD, request);
}

int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Issend_c);
    return send_nonblocking(call, buf, count, dt, dest, tag, comm, IBEX_SEND_SYNC, request);
}

int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Irsend_c);
    return send_nonblocking(call, buf, count, dt, dest, tag, comm, IBEX_SEND_READY, request);
}

int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Ibsend_c);
    return send_nonblocking(call, buf, count, dt, dest, tag, comm, IBEX_SEND_BUFFERED, request);
}

int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                MPI_Status *status)
{
    IBEX_ENTER_FAST(Recv_c);
    return recv_blocking(call, buf, count, dt, source, tag, comm, status);
}

int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                 MPI_Request *request)
{
    IBEX_ENTER_FAST(Irecv_c);
    return recv_nonblocking(call, buf, count, dt, source, tag, comm, request);
}

int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    IBEX_ENTER(Sendrecv_c);
    return sendrecv(call, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                    source, recvtag, comm, status);
}

int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    IBEX_ENTER(Sendrecv_replace_c);
    return sendrecv_replace(call, buf, count, datatype, dest, sendtag, source, recvtag, comm,
                            status);
}

IBEX_MPI_ALIASES(p2p_api)
