/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbourhood collectives: linear exchange. Every receive is posted (in neighbour order),
 * then every send, then all are waited for: one message per edge, all in flight at once.
 *
 * Cost: (indegree + outdegree) alpha + the bytes of the blocks, with no step waiting on
 * another.
 *
 * Matching: all messages use one tag, and messages between two processes match in the order
 * they were posted. For a graph that is the order of the neighbour lists, as MPI defines it.
 * On a Cartesian topology whose dimension has size 1 or 2 and is periodic, both neighbours
 * of a dimension are the same process: the block a process receives from its -1 neighbour is
 * the one that neighbour sent to its +1 neighbour, so within each dimension sends go +1 first,
 * while receives are posted -1 first (MPI 4.1, section 8.6).
 */
#include <stdlib.h>

#include <mpi.h>

#include "coll_neighbor.h"
#include "ibex_p2p.h"

static ibex_status_t post_all(const ibex_coll_nbr_args_t *a, ibex_req_t **reqs, int *nreq_p)
{
    ibex_status_t st = IBEX_OK;
    int nreq = 0;
    for (int i = 0; i < a->nin && st == IBEX_OK; i++) {
        const ibex_coll_nbr_block_t *b = &a->recv[i];
        if (a->in[i] == MPI_PROC_NULL)
            continue;
        st = ibex_p2p_irecv(b->buf, b->count, b->dt, a->in[i], IBEX_COLL_NEIGHBOR_TAG, a->comm,
                            true, &reqs[nreq]);
        nreq += st == IBEX_OK;
    }
    for (int k = 0; k < a->nout && st == IBEX_OK; k++) {
        int i = ibex_coll_nbr_send_index(a, k);
        const ibex_coll_nbr_block_t *b = &a->send[i];
        if (a->out[i] == MPI_PROC_NULL)
            continue;
        st = ibex_p2p_isend(b->buf, b->count, b->dt, a->out[i], IBEX_COLL_NEIGHBOR_TAG, a->comm,
                            true, &reqs[nreq]);
        nreq += st == IBEX_OK;
    }
    *nreq_p = nreq;
    return st;
}

ibex_status_t ibex_coll_neighbor_linear(const ibex_coll_nbr_args_t *a)
{
    ibex_req_t **reqs = malloc((size_t)(a->nin + a->nout + 1) * sizeof(*reqs));
    if (!reqs)
        return IBEX_ERR_NO_MEMORY;
    int nreq;
    ibex_status_t st = post_all(a, reqs, &nreq);
    ibex_status_t wst = ibex_p2p_waitall(nreq, reqs); /* also after a failed post */
    free(reqs);
    return st != IBEX_OK ? st : wst;
}
