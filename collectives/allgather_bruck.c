/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allgather: Bruck (MPICH's allgather_intra_brucks), for small blocks on any number of ranks.
 * A temporary buffer holds blocks in the order rank, rank + 1, ...; in step k (distance
 * 2^k) each rank sends the first min(2^k, p - 2^k) blocks it has to rank - 2^k and receives
 * as many from rank + 2^k after them, so after ceil(log2 p) steps it has all p; a last local
 * pass puts block j at its rank's place (rank + j mod p). Blocks travel packed (as bytes).
 *
 * Cost: ceil(log2 p) alpha + n (p - 1) beta + the two local copies, against the ring's
 * (p - 1) (alpha + n beta): the small-block choice.
 */
#include <limits.h>
#include <stdlib.h>

#include "coll.h"
#include "ibex_datatype.h"
#include "ibex_p2p.h"

static ibex_status_t bruck_steps(const ibex_coll_args_t *a, char *tmp, size_t nbytes)
{
    int size = a->comm->size, rank = a->comm->rank, tag = IBEX_COLL_TAG(IBEX_COLL_ALLGATHER);
    ibex_status_t st = IBEX_OK;
    for (int dist = 1; st == IBEX_OK && dist < size; dist *= 2) {
        int n = dist < size - dist ? dist : size - dist;
        st = ibex_coll_sendrecv(tmp, (int)(n * nbytes), MPI_BYTE, (rank - dist + size) % size,
                                tmp + dist * nbytes, (int)(n * nbytes), MPI_BYTE,
                                (rank + dist) % size, tag, a->comm);
    }
    return st;
}

ibex_status_t ibex_coll_allgather_bruck(const ibex_coll_args_t *a)
{
    int size = a->comm->size, rank = a->comm->rank;
    size_t nbytes = (size_t)a->rcount * ibex_dt_get(a->rdt)->size;
    if ((size_t)size * nbytes > INT_MAX)
        return ibex_coll_allgather_ring(a);
    char *tmp = malloc((size_t)size * nbytes + 1);
    if (!tmp)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st =
        a->sbuf == MPI_IN_PLACE
            ? ibex_coll_copy(ibex_coll_block(a->rbuf, a->rdt, (size_t)rank * (size_t)a->rcount),
                             a->rcount, a->rdt, tmp, (int)nbytes, MPI_BYTE)
            : ibex_coll_copy(a->sbuf, a->scount, a->sdt, tmp, (int)nbytes, MPI_BYTE);
    if (st == IBEX_OK)
        st = bruck_steps(a, tmp, nbytes);
    for (int j = 0; st == IBEX_OK && j < size; j++) {
        size_t r = (size_t)((rank + j) % size);
        st = ibex_coll_copy(tmp + j * nbytes, (int)nbytes, MPI_BYTE,
                            ibex_coll_block(a->rbuf, a->rdt, r * (size_t)a->rcount), a->rcount,
                            a->rdt);
    }
    free(tmp);
    return st;
}
