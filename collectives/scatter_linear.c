/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scatter: linear. The root starts one send per other rank from its block of sbuf and waits
 * for all; every other rank receives once. The root's own block is a local copy (none with
 * MPI_IN_PLACE as recvbuf, where the root keeps its block in sbuf).
 *
 * Cost: (p - 1) * alpha + (p - 1) * n * beta at the root; a binomial scatter is the next
 * entry for small blocks.
 */
#include <stdlib.h>

#include "coll.h"
#include "ibex_datatype.h"
#include "ibex_p2p.h"

static ibex_status_t scatter_root(const ibex_coll_args_t *a)
{
    ibex_comm_t *comm = a->comm;
    int size = comm->size, n = 0;
    ibex_dt_t *sdt = ibex_dt_get(a->sdt);
    ibex_req_t **reqs = malloc((size_t)size * sizeof(*reqs));
    if (!reqs)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st = IBEX_OK;
    for (int r = 0; r < size && st == IBEX_OK; r++) {
        const void *block = ibex_coll_block(a->sbuf, a->sdt, (size_t)r * (size_t)a->scount);
        if (r == comm->rank)
            continue;
        st = ibex_p2p_isend(block, a->scount, sdt, r, IBEX_COLL_TAG(IBEX_COLL_SCATTER), comm, true,
                            &reqs[n]);
        n += st == IBEX_OK;
    }
    ibex_status_t wst = n > 0 ? ibex_p2p_waitall(n, reqs) : IBEX_OK;
    free(reqs);
    if (st == IBEX_OK)
        st = wst;
    if (st == IBEX_OK && a->rbuf != MPI_IN_PLACE) {
        const void *mine = ibex_coll_block(a->sbuf, a->sdt, (size_t)comm->rank * (size_t)a->scount);
        st = ibex_coll_copy(mine, a->scount, a->sdt, a->rbuf, a->rcount, a->rdt);
    }
    return st;
}

ibex_status_t ibex_coll_scatter_linear(const ibex_coll_args_t *args)
{
    if (args->comm->rank == args->root)
        return scatter_root(args);
    return ibex_coll_recv(args->rbuf, args->rcount, args->rdt, args->root,
                          IBEX_COLL_TAG(IBEX_COLL_SCATTER), args->comm);
}
