/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Alltoall: pairwise exchange. In step i (1 .. p - 1) each rank sends its block for rank + i
 * and receives the block from rank - i, so every step is a permutation and no rank is hit by
 * two senders at once. The own block is a local copy. With MPI_IN_PLACE the send blocks are
 * taken from a copy of rbuf made first, since receives overwrite blocks not yet sent.
 *
 * Cost: (p - 1) * (alpha + n * beta) with n the block size; a Bruck variant (log2 p * alpha,
 * more bytes) is the next entry for small blocks.
 */
#include <stdlib.h>

#include "coll.h"
#include "ibex_p2p.h"

static ibex_status_t alltoall_steps(const ibex_coll_args_t *a)
{
    ibex_comm_t *comm = a->comm;
    int size = comm->size, rank = comm->rank;
    size_t sc = (size_t)a->scount, rc = (size_t)a->rcount;
    ibex_status_t st =
        ibex_coll_copy(ibex_coll_block(a->sbuf, a->sdt, (size_t)rank * sc), a->scount, a->sdt,
                       ibex_coll_block(a->rbuf, a->rdt, (size_t)rank * rc), a->rcount, a->rdt);
    for (int i = 1; st == IBEX_OK && i < size; i++) {
        int to = (rank + i) % size, from = (rank - i + size) % size;
        st = ibex_coll_sendrecv(ibex_coll_block(a->sbuf, a->sdt, (size_t)to * sc), a->scount,
                                a->sdt, to, ibex_coll_block(a->rbuf, a->rdt, (size_t)from * rc),
                                a->rcount, a->rdt, from, IBEX_COLL_TAG(IBEX_COLL_ALLTOALL), comm);
    }
    return st;
}

ibex_status_t ibex_coll_alltoall_pairwise(const ibex_coll_args_t *args)
{
    if (args->sbuf != MPI_IN_PLACE)
        return alltoall_steps(args);
    ibex_coll_args_t a = *args;
    void *base;
    int total = args->rcount * args->comm->size;
    void *copy = ibex_coll_tmp_alloc(args->rdt, total, &base);
    if (!copy)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st = ibex_coll_copy(args->rbuf, total, args->rdt, copy, total, args->rdt);
    a.sbuf = copy;
    a.scount = args->rcount;
    a.sdt = args->rdt;
    if (st == IBEX_OK)
        st = alltoall_steps(&a);
    free(base);
    return st;
}
