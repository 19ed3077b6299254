/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Generalized requests (MPI 4.1 section 13.2): MPI_Grequest_start / Grequest_complete.
 *
 * A generalized request is an engine request (so Wait / Test / their -all / -any / -some
 * forms, Request_get_status, Request_free and Cancel take it like any other) whose `ext`
 * hooks run the program's callbacks: query_fn when a completion call reports it (its status
 * is what query_fn set; its return code is the call's), cancel_fn from MPI_Cancel (with
 * whether MPI_Grequest_complete was called), free_fn when the request goes (after the report,
 * or at MPI_Request_free of a completed request, or at MPI_Grequest_complete of a request the
 * program already freed). Grequest_complete completes it with IBEX_INPROGRESS, which keeps it
 * off the completion fast path (ibex_p2p_finish sends it here).
 */
#include <stdlib.h>

#include "ibex_p2p_api.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

typedef struct greq {
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
} greq_t;

static int greq_query(ibex_req_t *req)
{
    greq_t *g = req->hook_arg;
    MPI_Status st;
    ibex_status_empty(&st);
    st.MPI_ERROR = MPI_SUCCESS;
    int rc = g->query_fn(g->extra_state, &st);
    req->status = st;
    return rc;
}

static int greq_cancel(ibex_req_t *req)
{
    greq_t *g = req->hook_arg;
    return g->cancel_fn(g->extra_state, req->complete);
}

static int greq_release(ibex_req_t *req)
{
    greq_t *g = req->hook_arg;
    int rc = g->free_fn(g->extra_state);
    free(g);
    req->hook_arg = NULL;
    return rc;
}

static const ibex_req_ext_t greq_ext = {greq_query, greq_cancel, greq_release};

int ibex_p2p_greq_finish(ibex_req_t *req, MPI_Request *handle, MPI_Status *st, const char *call,
                         bool raise)
{
    int rc = req->ext->query(req);
    ibex_p2p_status_out(req, st);
    req->ext = NULL; /* free_fn runs here, so that its code is the call's */
    int frc = greq_release(req);
    ibex_req_release(req);
    if (handle)
        *handle = MPI_REQUEST_NULL;
    rc = rc != MPI_SUCCESS ? rc : frc;
    if (rc != MPI_SUCCESS && raise)
        return ibex_mpi_error(NULL, rc, call, "a generalized request callback returned %d", rc);
    return rc;
}

int ibex_p2p_req_done(ibex_comm_t *c, const char *call, MPI_Request *request)
{
    ibex_req_t *req = ibex_req_alloc(IBEX_REQ_RECV);
    if (!req)
        return ibex_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory for a request");
    req->comm = c;
    ibex_comm_retain(c);
    req->peer = MPI_PROC_NULL;
    ibex_req_complete(req, IBEX_OK);
    if (ibex_req_publish(req, request) != MPI_SUCCESS) {
        ibex_req_release(req);
        return ibex_mpi_error(c, MPI_ERR_NO_MEM, call, "out of request handles");
    }
    return MPI_SUCCESS;
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    IBEX_ENTER(Grequest_start);
    IBEX_ARGS(Grequest_start, request);
    if (!query_fn || !free_fn || !cancel_fn)
        return IBEX_ERROR(MPI_ERR_ARG, "a callback is NULL");
    greq_t *g = malloc(sizeof(*g));
    ibex_req_t *req = g ? ibex_req_alloc(IBEX_REQ_RECV) : NULL;
    if (!req) {
        free(g);
        return IBEX_ERROR(MPI_ERR_NO_MEM, "out of memory for a request");
    }
    *g = (greq_t){query_fn, free_fn, cancel_fn, extra_state};
    req->comm = ibex_comm_self;
    ibex_comm_retain(ibex_comm_self);
    req->peer = MPI_PROC_NULL;
    req->hook_arg = g;
    req->ext = &greq_ext;
    if (ibex_req_publish(req, request) != MPI_SUCCESS) {
        req->ext = NULL;
        free(g);
        ibex_req_release(req);
        return IBEX_ERROR(MPI_ERR_NO_MEM, "out of request handles");
    }
    return MPI_SUCCESS;
}

int PMPI_Grequest_complete(MPI_Request request)
{
    IBEX_ENTER(Grequest_complete);
    ibex_req_t *req = ibex_req_from_handle(request);
    if (!req || !req->ext || req->ext != &greq_ext)
        return IBEX_ERROR(MPI_ERR_REQUEST, "0x%x is not a generalized request", (unsigned)request);
    if (req->complete)
        return IBEX_ERROR(MPI_ERR_REQUEST, "the generalized request is already complete");
    ibex_req_complete(req, IBEX_INPROGRESS);
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(p2p_greq)
