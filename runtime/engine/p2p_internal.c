/* SPDX-License-Identifier: BSD-3-Clause */
/* Point-to-point for the library's own use: collectives and communicator construction run on a
 * communicator's collective context with internal requests. */
#include <stdlib.h>

#include "ibex_blocked.h"
#include "ibex_engine.h"
#include "ibex_log.h"

ibex_status_t ibex_p2p_wait(ibex_req_t *req, MPI_Status *status)
{
    ibex_blk.step++; /* a collective's steps, for the blocked-call record */
    ibex_req_wait_complete(req);
    if (status && status != MPI_STATUS_IGNORE)
        *status = req->status;
    ibex_status_t st = req->error;
    ibex_req_release(req);
    return st;
}

ibex_status_t ibex_p2p_waitall(int n, ibex_req_t **reqs)
{
    ibex_status_t result = IBEX_OK;
    for (int i = 0; i < n; i++) {
        ibex_status_t st = ibex_p2p_wait(reqs[i], NULL);
        if (st != IBEX_OK && result == IBEX_OK)
            result = st;
    }
    return result;
}

static ibex_dt_t *dt_of(MPI_Datatype h)
{
    ibex_dt_t *dt = ibex_dt_get(h);
    ibex_assert(dt != NULL);
    return dt;
}

ibex_status_t ibex_coll_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                             ibex_comm_t *comm)
{
    ibex_req_t *req;
    ibex_status_t st = ibex_p2p_isend(buf, count, dt_of(dt), dest, tag, comm, true, &req);
    return st != IBEX_OK ? st : ibex_p2p_wait(req, NULL);
}

ibex_status_t ibex_coll_recv(void *buf, int count, MPI_Datatype dt, int src, int tag,
                             ibex_comm_t *comm)
{
    ibex_req_t *req;
    ibex_status_t st = ibex_p2p_irecv(buf, count, dt_of(dt), src, tag, comm, true, &req);
    return st != IBEX_OK ? st : ibex_p2p_wait(req, NULL);
}

ibex_status_t ibex_coll_sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest,
                                 void *rbuf, int rcount, MPI_Datatype rdt, int src, int tag,
                                 ibex_comm_t *comm)
{
    ibex_req_t *reqs[2];
    ibex_status_t st = ibex_p2p_irecv(rbuf, rcount, dt_of(rdt), src, tag, comm, true, &reqs[0]);
    if (st != IBEX_OK)
        return st;
    st = ibex_p2p_isend(sbuf, scount, dt_of(sdt), dest, tag, comm, true, &reqs[1]);
    if (st != IBEX_OK) {
        ibex_p2p_wait(reqs[0], NULL);
        return st;
    }
    return ibex_p2p_waitall(2, reqs);
}
