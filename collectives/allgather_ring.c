/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allgather: ring. Each rank places its own block, then in p - 1 steps passes the block it
 * received last to its right neighbour while receiving the next from its left one; after
 * step i it holds blocks rank .. rank - i - 1.
 *
 * Cost: (p - 1) * (alpha + n * beta) with n the block size: bandwidth-optimal, latency-bound
 * for small blocks (recursive doubling, log2 p * alpha, is the next entry for those).
 */
#include "coll.h"
#include "ibex_p2p.h"

ibex_status_t ibex_coll_allgather_ring(const ibex_coll_args_t *args)
{
    ibex_comm_t *comm = args->comm;
    int size = comm->size, rank = comm->rank;
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    size_t count = (size_t)args->rcount;
    ibex_status_t st = IBEX_OK;
    if (args->sbuf != MPI_IN_PLACE)
        st = ibex_coll_copy(args->sbuf, args->scount, args->sdt,
                            ibex_coll_block(args->rbuf, args->rdt, (size_t)rank * count),
                            args->rcount, args->rdt);
    for (int i = 0; st == IBEX_OK && i < size - 1; i++) {
        int sblock = (rank - i + size) % size, rblock = (rank - i - 1 + size) % size;
        st = ibex_coll_sendrecv(
            ibex_coll_block(args->rbuf, args->rdt, (size_t)sblock * count), args->rcount, args->rdt,
            right, ibex_coll_block(args->rbuf, args->rdt, (size_t)rblock * count), args->rcount,
            args->rdt, left, IBEX_COLL_TAG(IBEX_COLL_ALLGATHER), comm);
    }
    return st;
}
