/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Barrier: dissemination (Hensgen, Finkel, Manber 1988).
 *
 * In round k (k = 1, 2, 4, ...) each rank sends an empty message to rank + k and receives one
 * from rank - k (mod p). After ceil(log2 p) rounds every rank has heard, directly or
 * transitively, from every other, so no rank leaves before all have entered.
 *
 * Cost: ceil(log2 p) * alpha; no bandwidth term. Works for any p, no power-of-two fix-up.
 */
#include "coll.h"
#include "ibex_p2p.h"

ibex_status_t ibex_coll_barrier_dissemination(const ibex_coll_args_t *args)
{
    ibex_comm_t *comm = args->comm;
    int size = comm->size, rank = comm->rank;
    for (int k = 1; k < size; k <<= 1) {
        int to = (rank + k) % size, from = (rank - k + size) % size;
        ibex_status_t st = ibex_coll_sendrecv(NULL, 0, MPI_BYTE, to, NULL, 0, MPI_BYTE, from,
                                              IBEX_COLL_TAG(IBEX_COLL_BARRIER), comm);
        if (st != IBEX_OK)
            return st;
    }
    return IBEX_OK;
}
