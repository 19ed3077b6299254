/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0): a receive and a send started together,
 * one request that completes when both halves have, with the receive's status.
 *
 * The request the program gets is the receive's. Its send half is an internal request (no
 * handle). Each carries an on_complete hook on a shared `isr_t`: when the receive completes
 * first, its hook takes the completion back (the request stays pending, the receive's result
 * kept in it) until the send's hook completes it again. A failed send makes the pair fail with
 * the send's error. The send half releases itself when it completes.
 *
 * MPI_Isendrecv_replace packs the outgoing data into a temporary first, so the receive may
 * write the buffer at any time; the temporary is freed when the send has completed.
 */
#include <stdlib.h>

#include "ibex_p2p_api.h"
#include "ibex_entry.h"

typedef struct isr {
    ibex_req_t *recv;
    bool send_done;
    bool recv_held;  /* the receive completed first and waits for the send */
    bool recv_freed; /* MPI_Request_free'd before it was held: released at the real end */
    ibex_status_t send_error;
    void *tmp; /* Isendrecv_replace's packed send data */
} isr_t;

static void isr_recv_done(ibex_req_t *r)
{
    isr_t *isr = r->hook_arg;
    if (!isr->send_done) {
        r->complete = false; /* not yet: the send half is still going */
        ibex_req_active_count++;
        isr->recv_held = true;
        isr->recv_freed = r->freed; /* ibex_req_complete must not release it now */
        r->freed = false;
        return;
    }
    if (isr->recv_freed)
        r->freed = true; /* released by ibex_req_complete after this hook */
    if (isr->send_error != IBEX_OK && r->error == IBEX_OK)
        r->error = isr->send_error;
    r->on_complete = NULL;
    r->hook_arg = NULL;
    free(isr);
}

static void isr_send_finished(isr_t *isr, ibex_status_t error)
{
    isr->send_done = true;
    isr->send_error = error;
    free(isr->tmp);
    isr->tmp = NULL;
    if (isr->recv_held) {
        isr->recv_held = false;
        ibex_req_complete(isr->recv, isr->recv->error); /* runs isr_recv_done: frees isr */
    }
}

static void isr_send_done(ibex_req_t *s)
{
    s->freed = true; /* internal: ibex_req_complete releases it after this hook */
    isr_send_finished(s->hook_arg, s->error);
}

static int isendrecv(const char *call, const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                     MPI_Comm comm, MPI_Request *request, void *tmp)
{
    ibex_req_t *rreq, *sreq;
    isr_t *isr = calloc(1, sizeof(*isr));
    if (!isr) {
        free(tmp);
        return ibex_mpi_error(ibex_comm_get(comm), MPI_ERR_NO_MEM, call, "out of memory");
    }
    isr->tmp = tmp;
    int rc =
        ibex_p2p_recv_req(call, recvbuf, recvcount, recvtype, source, recvtag, comm, true, &rreq);
    if (rc != MPI_SUCCESS) {
        free(tmp);
        free(isr);
        return rc;
    }
    isr->recv = rreq;
    rreq->hook_arg = isr;
    rreq->on_complete = isr_recv_done;
    if (rreq->complete) { /* matched and done at once: hold it for the send */
        rreq->complete = false;
        ibex_req_active_count++;
        isr->recv_held = true;
    }
    rc = ibex_p2p_send_req(call, sendbuf, sendcount, sendtype, dest, sendtag, comm,
                           IBEX_SEND_STANDARD, true, &sreq);
    if (rc != MPI_SUCCESS) {
        /* the arguments were checked first, so this is a resource failure: the receive is
         * posted and must not be left behind */
        isr_send_finished(isr, IBEX_ERR_NO_MEMORY);
        ibex_req_wait_complete(rreq);
        ibex_req_release(rreq);
        return rc;
    }
    if (sreq->complete) {
        ibex_status_t err = sreq->error;
        ibex_req_release(sreq);
        isr_send_finished(isr, err);
    } else {
        sreq->hook_arg = isr;
        sreq->on_complete = isr_send_done;
    }
    if (ibex_req_publish(rreq, request) != 0)
        return ibex_mpi_error(rreq->comm, MPI_ERR_NO_MEM, call, "out of request handles");
    return MPI_SUCCESS;
}

/* Both halves' arguments are checked before anything starts. */
static int isendrecv_checked(const char *call, const void *sendbuf, MPI_Count sendcount,
                             MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                             MPI_Comm comm, MPI_Request *request)
{
    ibex_comm_t *c;
    ibex_dt_t *dt;
    IBEX_CHECK(ibex_p2p_check_args(call, sendbuf, sendcount, sendtype, dest, sendtag, comm, false,
                                   &c, &dt));
    IBEX_CHECK(ibex_p2p_check_args(call, recvbuf, recvcount, recvtype, source, recvtag, comm, true,
                                   &c, &dt));
    if (!request)
        return ibex_mpi_error(c, MPI_ERR_ARG, call, "request is NULL");
    return isendrecv(call, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                     recvtype, source, recvtag, comm, request, NULL);
}

static int isendrecv_replace(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                             int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request)
{
    ibex_comm_t *c;
    ibex_dt_t *dt;
    IBEX_CHECK(
        ibex_p2p_check_args(call, buf, count, datatype, dest, sendtag, comm, false, &c, &dt));
    IBEX_CHECK(
        ibex_p2p_check_args(call, buf, count, datatype, source, recvtag, comm, true, &c, &dt));
    if (!request)
        return ibex_mpi_error(c, MPI_ERR_ARG, call, "request is NULL");
    /* Pack what goes out, so the receive may overwrite the buffer. */
    size_t bytes = (size_t)count * dt->size;
    void *tmp = malloc(bytes ? bytes : 1);
    if (!tmp)
        return ibex_mpi_error(c, MPI_ERR_NO_MEM, call, "cannot stage %zu bytes", bytes);
    ibex_dt_pack(buf, count, dt, 0, tmp, bytes);
    return isendrecv(call, tmp, (MPI_Count)bytes, MPI_BYTE, dest, sendtag, buf, count, datatype,
                     source, recvtag, comm, request, tmp);
}

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER(Isendrecv);
    return isendrecv_checked(call, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                             recvtype, source, recvtag, comm, request);
}

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER(Isendrecv_replace);
    return isendrecv_replace(call, buf, count, datatype, dest, sendtag, source, recvtag, comm,
                             request);
}

/* MPI 4.0 large counts: the same paths, the engine carries MPI_Count */
int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER(Isendrecv_c);
    return isendrecv_checked(call, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                             recvtype, source, recvtag, comm, request);
}

int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request)
{
    IBEX_ENTER(Isendrecv_replace_c);
    return isendrecv_replace(call, buf, count, datatype, dest, sendtag, source, recvtag, comm,
                             request);
}

IBEX_MPI_ALIASES(p2p_isendrecv)
