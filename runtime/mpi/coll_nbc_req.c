/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The request of a non-blocking or persistent collective: an IBEX_REQ_COLL request whose
 * schedule (collectives/base/coll_sched.h) hangs on hook_arg. It completes through the same
 * flags as a point-to-point request, so every Wait / Test variant, Request_free and
 * Request_get_status work on it unchanged; on_release frees the schedule and drops the op.
 */
#include "coll_api.h"
#include "coll_nbc.h"
#include "coll_sched.h"
#include "ibex_blocked_rec.h"
#include "ibex_err.h"
#include "ibex_runtime.h"
#include "op_priv.h"
#include "ibex_entry.h"

static void nbc_release(ibex_req_t *req)
{
    ibex_sched_t *s = req->hook_arg;
    if (s && s->op)
        ibex_op_release((ibex_op_t *)s->op);
    ibex_sched_free(s);
    req->hook_arg = NULL;
}

/* For a hang record: the schedule's sends and receives in flight (the step it waits in), each
 * naming its peer, instead of the whole communicator. */
static bool nbc_items(const ibex_req_t *req)
{
    const ibex_sched_t *s = req->on_release == nbc_release ? req->hook_arg : NULL;
    bool any = false;
    for (int i = 0; s && i < s->nreqs; i++)
        if (!s->reqs[i]->complete) {
            ibex_blk_add_req(s->reqs[i]);
            any = true;
        }
    return any;
}

static ibex_req_t *nbc_req_new(ibex_comm_t *comm, ibex_sched_t *s, const char *call)
{
    ibex_req_t *req = ibex_req_alloc(IBEX_REQ_COLL);
    if (!req)
        return NULL;
    req->start_call = call;
    req->comm = comm;
    ibex_comm_retain(comm);
    req->peer = MPI_PROC_NULL;
    req->hook_arg = s;
    req->on_release = nbc_release;
    ibex_blk_set_coll_items(nbc_items);
    if (s->op) /* a user op freed while the collective runs stays alive */
        ibex_op_retain((ibex_op_t *)s->op);
    return req;
}

int ibex_nbc_post(ibex_coll_kind_t kind, MPI_Comm comm, MPI_Op op, ibex_coll_args_t *a,
                  bool persistent, MPI_Request *request, const char *call)
{
    size_t bytes = 0;
    IBEX_CHECK(ibex_coll_prepare(kind, comm, op, call, a, &bytes));
    if (!request)
        return ibex_mpi_error(a->comm, MPI_ERR_ARG, call, "request pointer is NULL");
    return ibex_nbc_post_sched(a->comm, ibex_sched_build(kind, a, bytes), persistent, request,
                               call);
}

int ibex_nbc_post_sched(ibex_comm_t *comm, ibex_sched_t *s, bool persistent, MPI_Request *request,
                        const char *call)
{
    ibex_req_t *req = s ? nbc_req_new(comm, s, call) : NULL;
    if (!req) {
        ibex_sched_free(s);
        return ibex_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of memory for a schedule");
    }
    if (s->build_error == IBEX_ERR_UNSUPPORTED) {
        ibex_req_release(req);
        return ibex_mpi_error(comm, MPI_ERR_UNSUPPORTED_OPERATION, call,
                              "not supported yet in its non-blocking / persistent form");
    }
    if (persistent) {
        req->persistent = true;
        req->complete = true; /* inactive: not counted as active until started */
        ibex_req_active_count--;
    }
    if (ibex_req_publish(req, request) != 0) {
        ibex_req_release(req);
        return ibex_mpi_error(comm, MPI_ERR_NO_MEM, call, "out of request handles");
    }
    if (!persistent)
        ibex_sched_start(s, req);
    return MPI_SUCCESS;
}

ibex_status_t ibex_nbc_run(ibex_coll_kind_t kind, const ibex_coll_args_t *a, size_t bytes)
{
    ibex_sched_t *s = ibex_sched_build(kind, a, bytes);
    ibex_req_t *req = s ? nbc_req_new(a->comm, s, NULL) : NULL;
    if (!req) {
        ibex_sched_free(s);
        return IBEX_ERR_NO_MEMORY;
    }
    ibex_sched_start(s, req);
    return ibex_p2p_wait(req, NULL); /* releases req, and with it the schedule */
}

int ibex_nbc_start(ibex_req_t *req, const char *call)
{
    (void)call;
    ibex_sched_start(req->hook_arg, req);
    return MPI_SUCCESS;
}
