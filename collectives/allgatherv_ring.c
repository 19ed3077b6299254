/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allgatherv: ring. Each rank places its own block at rdispls[rank], then in p - 1 steps
 * passes the block it received last to its right neighbour while receiving the next from its
 * left one (every rank knows every block's count and place from rcounts / rdispls).
 *
 * Cost: (p - 1) alpha + (N - n_rank) beta with N the total: bandwidth-optimal, latency-bound for
 * small blocks.
 */
#include "coll.h"
#include "ibex_p2p.h"

ibex_status_t ibex_coll_allgatherv_ring(const ibex_coll_args_t *a)
{
    ibex_comm_t *comm = a->comm;
    int size = comm->size, rank = comm->rank;
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    ibex_status_t st = IBEX_OK;
    if (a->sbuf != MPI_IN_PLACE)
        st = ibex_coll_copy(a->sbuf, a->scount, a->sdt,
                            ibex_coll_disp(a->rbuf, a->rdt, a->rdispls[rank]), a->rcounts[rank],
                            a->rdt);
    for (int i = 0; st == IBEX_OK && i < size - 1; i++) {
        int sb = (rank - i + size) % size, rb = (rank - i - 1 + size) % size;
        st = ibex_coll_sendrecv(ibex_coll_disp(a->rbuf, a->rdt, a->rdispls[sb]), a->rcounts[sb],
                                a->rdt, right, ibex_coll_disp(a->rbuf, a->rdt, a->rdispls[rb]),
                                a->rcounts[rb], a->rdt, left, IBEX_COLL_TAG(IBEX_COLL_ALLGATHERV),
                                comm);
    }
    return st;
}
