/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scan and Exscan: linear chain. Rank r waits for the prefix of ranks 0 .. r - 1 from r - 1,
 * combines it as prefix op mine (rank order, so non-commutative ops are right) and passes the
 * new prefix to r + 1. Exscan keeps the received prefix as its result (rank 0's is undefined
 * and left untouched).
 *
 * Cost: (p - 1) (alpha + n beta + n gamma) along the chain, but each rank only
 * alpha + n beta + n gamma of work; recursive doubling has log2 p latency.
 */
#include <stdlib.h>

#include "coll.h"
#include "ibex_p2p.h"

static ibex_status_t chain(const ibex_coll_args_t *a, bool exclusive, int tag)
{
    ibex_comm_t *comm = a->comm;
    int rank = comm->rank;
    void *base, *acc = ibex_coll_tmp_alloc(a->rdt, a->rcount, &base);
    if (!acc)
        return IBEX_ERR_NO_MEMORY;
    const void *mine = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    ibex_status_t st = ibex_coll_copy(mine, a->rcount, a->rdt, acc, a->rcount, a->rdt);
    if (st == IBEX_OK && rank > 0)
        st = ibex_coll_recv(a->rbuf, a->rcount, a->rdt, rank - 1, tag, comm);
    if (st == IBEX_OK && rank > 0)
        st = ibex_coll_apply(a->op, a->rbuf, acc, a->rcount, a->rdt); /* acc = prefix op mine */
    if (st == IBEX_OK && rank < comm->size - 1)
        st = ibex_coll_send(acc, a->rcount, a->rdt, rank + 1, tag, comm);
    if (st == IBEX_OK && !exclusive)
        st = ibex_coll_copy(acc, a->rcount, a->rdt, a->rbuf, a->rcount, a->rdt);
    free(base);
    return st;
}

ibex_status_t ibex_coll_scan_linear(const ibex_coll_args_t *args)
{
    return args->rcount == 0 ? IBEX_OK : chain(args, false, IBEX_COLL_TAG(IBEX_COLL_SCAN));
}

ibex_status_t ibex_coll_exscan_linear(const ibex_coll_args_t *args)
{
    return args->rcount == 0 ? IBEX_OK : chain(args, true, IBEX_COLL_TAG(IBEX_COLL_EXSCAN));
}
