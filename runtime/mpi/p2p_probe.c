/* SPDX-License-Identifier: BSD-3-Clause */
/* Probe, Iprobe, Mprobe, Improbe, Mrecv, Imrecv: looking at unexpected messages, and taking
 * one out of matching (Mprobe) so that no other receive can have it. */
#include <stdio.h>
#include <stdlib.h>

#include "ibex_blocked_rec.h"
#include "ibex_handle.h"
#include "ibex_p2p_api.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

/* A matched-probe message: the unexpected message, out of every queue. */
typedef struct probe_msg {
    ibex_umsg_t *umsg;
    ibex_comm_t *comm;
} probe_msg_t;

static ibex_handle_table_t msg_table;
static bool msg_table_ready;

static int probe_check(const char *call, int source, int tag, MPI_Comm comm, ibex_comm_t **c_p)
{
    ibex_comm_t *c;
    int rc = ibex_comm_enter(comm, call, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = ibex_check_tag(c, call, tag, 1)) != MPI_SUCCESS ||
        (rc = ibex_check_rank(c, call, source, 1)) != MPI_SUCCESS)
        return rc;
    *c_p = c;
    return MPI_SUCCESS;
}

static void probe_status(const ibex_umsg_t *u, MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = u->match.src;
    st->MPI_TAG = u->match.tag;
    st->ibex_cancelled = 0;
    st->ibex_count = (MPI_Count)u->len; /* a rendezvous reports the full count from its RTS */
}

static void proc_null_status(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    int err = st->MPI_ERROR; /* a probe, like a single completion, leaves MPI_ERROR alone */
    ibex_status_empty(st);
    st->MPI_SOURCE = MPI_PROC_NULL;
    st->MPI_ERROR = err;
}

static ibex_umsg_t *probe_find(ibex_comm_t *c, int source, int tag, bool take)
{
    ibex_match_queue_t *q = ibex_match_queue_get(c->context_id);
    return (ibex_umsg_t *)ibex_match_find_unexpected(q, source, tag, take);
}

/* One look for Iprobe / Improbe: search, poll progress once (backing off like any poll when it
 * finds nothing), search again. Removes the message when take is true. */
static ibex_umsg_t *probe_once(ibex_comm_t *c, int source, int tag, bool take)
{
    ibex_umsg_t *u = probe_find(c, source, tag, take);
    if (u)
        return u;
    ibex_poll_step();
    u = probe_find(c, source, tag, take);
    if (!u)
        ibex_blk_poll_probe(c, source, tag); /* what a polling loop waits for (hang reports) */
    return u;
}

/* A probe that found nothing and never will: a source it depends on has failed
 * (runtime/engine/peer_fail.c). Returns the MPI error class raised, or MPI_SUCCESS. */
static int probe_doomed(const char *call, ibex_comm_t *c, int source, int tag)
{
    ibex_status_t why;
    int dead = ibex_proto_src_failed(c, source, &why);
    if (dead < 0)
        return MPI_SUCCESS;
    char src[32];
    snprintf(src, sizeof(src), source == MPI_ANY_SOURCE ? "MPI_ANY_SOURCE" : "rank %d", source);
    return ibex_mpi_error(c, ibex_err_class_of(why), call,
                          "probe for %s (tag %d) failed: rank %d of the communicator (world rank "
                          "%d) has failed: %s",
                          src, tag, dead, ibex_comm_world_rank(c, dead), ibex_status_str(why));
}

/* Waits for a message; NULL when it can never come (probe_doomed says why). */
static ibex_umsg_t *probe_wait(ibex_comm_t *c, int source, int tag, bool take)
{
    int idle = 0;
    ibex_umsg_t *u;
    bool rec = false;
    int spins = 0;
    ibex_status_t why;
    while (!(u = probe_find(c, source, tag, take))) {
        if (ibex_proto_src_failed(c, source, &why) >= 0)
            break;
        ibex_wait_step(&idle);
        if (!rec && ibex_blk_due(&spins)) { /* it has to wait: say for whom (ibex_blocked_rec.h) */
            ibex_blk_begin(false);
            ibex_blk_add(c, IBEX_BLK_OP_PROBE, source, tag, 0);
            ibex_blk_commit();
            rec = true;
        }
    }
    if (rec)
        ibex_blk_end();
    return u;
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    IBEX_ENTER_FAST(Iprobe);
    ibex_comm_t *c;
    int rc = probe_check(call, source, tag, comm, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    ibex_umsg_t *u = probe_once(c, source, tag, false);
    *flag = u != NULL;
    if (u)
        probe_status(u, status);
    return u ? MPI_SUCCESS : probe_doomed(call, c, source, tag);
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    IBEX_ENTER_FAST(Probe);
    ibex_comm_t *c;
    int rc = probe_check(call, source, tag, comm, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (source == MPI_PROC_NULL) {
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    ibex_umsg_t *u = probe_wait(c, source, tag, false);
    if (!u)
        return probe_doomed(call, c, source, tag);
    probe_status(u, status);
    return MPI_SUCCESS;
}

static int msg_publish(ibex_comm_t *c, ibex_umsg_t *u, MPI_Message *message)
{
    if (!msg_table_ready) {
        ibex_handle_table_init(&msg_table, IBEX_KIND_MESSAGE, 2);
        msg_table_ready = true;
    }
    probe_msg_t *m = malloc(sizeof(*m));
    int h = m ? ibex_handle_alloc(&msg_table, m) : -1;
    if (h < 0) {
        free(m);
        return ibex_mpi_error(c, MPI_ERR_NO_MEM, "MPI_Mprobe", "out of message handles");
    }
    m->umsg = u;
    m->comm = c;
    *message = h;
    return MPI_SUCCESS;
}

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    IBEX_ENTER_FAST(Improbe);
    ibex_comm_t *c;
    int rc = probe_check(call, source, tag, comm, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    ibex_umsg_t *u = probe_once(c, source, tag, true);
    *flag = u != NULL;
    if (!u)
        return probe_doomed(call, c, source, tag);
    probe_status(u, status);
    return msg_publish(c, u, message);
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    IBEX_ENTER_FAST(Mprobe);
    ibex_comm_t *c;
    int rc = probe_check(call, source, tag, comm, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (source == MPI_PROC_NULL) {
        *message = MPI_MESSAGE_NO_PROC;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    ibex_umsg_t *u = probe_wait(c, source, tag, true);
    if (!u)
        return probe_doomed(call, c, source, tag);
    probe_status(u, status);
    return msg_publish(c, u, message);
}

/* Starts the receive of a matched-probe message into a new request. */
static int mrecv_start(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Message *message, ibex_req_t **req_p)
{
    int rc = ibex_check_initialized(call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!message)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "message pointer is NULL");
    if (*message == MPI_MESSAGE_NO_PROC) {
        *message = MPI_MESSAGE_NULL;
        return ibex_p2p_recv_req(call, buf, count, datatype, MPI_PROC_NULL, 0, MPI_COMM_SELF, true,
                                 req_p);
    }
    probe_msg_t *m = msg_table_ready ? ibex_handle_get(&msg_table, *message) : NULL;
    if (!m)
        return ibex_mpi_error(NULL, MPI_ERR_REQUEST, call, "invalid message handle 0x%x",
                              (unsigned)*message);
    ibex_req_t *req;
    rc = ibex_p2p_recv_req(call, buf, count, datatype, MPI_PROC_NULL, 0, m->comm->handle, false,
                           &req);
    if (rc != MPI_SUCCESS)
        return rc;
    req->peer = m->umsg->match.src;
    req->tag = m->umsg->match.tag;
    ibex_proto_recv_matched(req, m->umsg);
    ibex_handle_release(&msg_table, *message);
    free(m);
    *message = MPI_MESSAGE_NULL;
    *req_p = req;
    return MPI_SUCCESS;
}

static int mrecv(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Message *message, MPI_Status *status)
{
    ibex_req_t *req;
    int rc = mrecv_start(call, buf, count, datatype, message, &req);
    if (rc != MPI_SUCCESS)
        return rc;
    ibex_req_wait_complete(req);
    return ibex_p2p_finish(req, NULL, status, call, true);
}

static int imrecv(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Message *message, MPI_Request *request)
{
    ibex_req_t *req;
    int rc = mrecv_start(call, buf, count, datatype, message, &req);
    if (rc != MPI_SUCCESS)
        return rc;
    if (ibex_req_publish(req, request) != 0)
        return ibex_mpi_error(req->comm, MPI_ERR_NO_MEM, call, "out of request handles");
    return MPI_SUCCESS;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status)
{
    IBEX_ENTER_FAST(Mrecv);
    return mrecv(call, buf, count, datatype, message, status);
}

int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request)
{
    IBEX_ENTER_FAST(Imrecv);
    return imrecv(call, buf, count, datatype, message, request);
}

/* MPI 4.0 large counts: the same paths, the engine carries MPI_Count */
int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Status *status)
{
    IBEX_ENTER_FAST(Mrecv_c);
    return mrecv(call, buf, count, datatype, message, status);
}

int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                  MPI_Request *request)
{
    IBEX_ENTER_FAST(Imrecv_c);
    return imrecv(call, buf, count, datatype, message, request);
}

IBEX_MPI_ALIASES(p2p_probe)
