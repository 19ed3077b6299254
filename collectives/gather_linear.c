/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gather: linear. The root posts one receive per other rank straight into its block of rbuf
 * and waits for all; every other rank sends once. The root's own block is a local copy
 * (none with MPI_IN_PLACE, where it is already in place).
 *
 * Cost: (p - 1) * alpha + (p - 1) * n * beta at the root, which serialises on its link; a
 * binomial gather (log2 p * alpha) is the next entry for small blocks.
 */
#include <stdlib.h>

#include "coll.h"
#include "ibex_datatype.h"
#include "ibex_p2p.h"

static ibex_status_t gather_root(const ibex_coll_args_t *a)
{
    ibex_comm_t *comm = a->comm;
    int size = comm->size, n = 0;
    ibex_dt_t *rdt = ibex_dt_get(a->rdt);
    ibex_req_t **reqs = malloc((size_t)size * sizeof(*reqs));
    if (!reqs)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st = IBEX_OK;
    for (int r = 0; r < size && st == IBEX_OK; r++) {
        void *block = ibex_coll_block(a->rbuf, a->rdt, (size_t)r * (size_t)a->rcount);
        if (r == comm->rank)
            continue;
        st = ibex_p2p_irecv(block, a->rcount, rdt, r, IBEX_COLL_TAG(IBEX_COLL_GATHER), comm, true,
                            &reqs[n]);
        n += st == IBEX_OK;
    }
    ibex_status_t wst = n > 0 ? ibex_p2p_waitall(n, reqs) : IBEX_OK;
    free(reqs);
    if (st == IBEX_OK)
        st = wst;
    if (st == IBEX_OK && a->sbuf != MPI_IN_PLACE) {
        void *mine = ibex_coll_block(a->rbuf, a->rdt, (size_t)comm->rank * (size_t)a->rcount);
        st = ibex_coll_copy(a->sbuf, a->scount, a->sdt, mine, a->rcount, a->rdt);
    }
    return st;
}

ibex_status_t ibex_coll_gather_linear(const ibex_coll_args_t *args)
{
    if (args->comm->rank == args->root)
        return gather_root(args);
    return ibex_coll_send(args->sbuf, args->scount, args->sdt, args->root,
                          IBEX_COLL_TAG(IBEX_COLL_GATHER), args->comm);
}
