/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Alltoall: Bruck (MPICH's alltoall_intra_brucks), for small blocks. A temporary buffer holds
 * the send blocks rotated (block j is the one for rank + j). In step k (bit 2^k) each rank
 * packs the blocks whose index has that bit set, sends them to rank + 2^k and puts the as
 * many blocks received from rank - 2^k at the same indices; a block of index j thus moves j
 * ranks in all, so rank r ends with the block from r - j at index j, which a last local pass
 * puts in place. Blocks travel packed (as bytes); MPI_IN_PLACE needs nothing more, since the
 * send blocks are copied out first.
 *
 * Cost: ceil(log2 p) alpha + n p / 2 ceil(log2 p) beta + local copies, against pairwise's
 * (p - 1) (alpha + n beta): the choice for small blocks on many ranks.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "ibex_datatype.h"
#include "ibex_p2p.h"

static ibex_status_t bruck_step(const ibex_coll_args_t *a, char *tmp, char *pack, size_t nbytes,
                                int bit)
{
    int size = a->comm->size, rank = a->comm->rank, n = 0;
    for (int j = 0; j < size; j++)
        if (j & bit)
            memcpy(pack + (size_t)n++ * nbytes, tmp + (size_t)j * nbytes, nbytes);
    char *in = pack + (size_t)n * nbytes;
    ibex_status_t st = ibex_coll_sendrecv(
        pack, (int)(n * nbytes), MPI_BYTE, (rank + bit) % size, in, (int)(n * nbytes), MPI_BYTE,
        (rank - bit + size) % size, IBEX_COLL_TAG(IBEX_COLL_ALLTOALL), a->comm);
    for (int j = 0, k = 0; st == IBEX_OK && j < size; j++)
        if (j & bit)
            memcpy(tmp + (size_t)j * nbytes, in + (size_t)k++ * nbytes, nbytes);
    return st;
}

static ibex_status_t bruck_run(const ibex_coll_args_t *a, char *tmp, char *pack, size_t nbytes)
{
    int size = a->comm->size, rank = a->comm->rank;
    const void *src = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    MPI_Datatype sdt = a->sbuf == MPI_IN_PLACE ? a->rdt : a->sdt;
    int scount = a->sbuf == MPI_IN_PLACE ? a->rcount : a->scount;
    ibex_status_t st = IBEX_OK;
    for (int j = 0; st == IBEX_OK && j < size; j++) {
        size_t to = (size_t)((rank + j) % size);
        st = ibex_coll_copy(ibex_coll_block(src, sdt, to * (size_t)scount), scount, sdt,
                            tmp + j * nbytes, (int)nbytes, MPI_BYTE);
    }
    for (int bit = 1; st == IBEX_OK && bit < size; bit <<= 1)
        st = bruck_step(a, tmp, pack, nbytes, bit);
    for (int j = 0; st == IBEX_OK && j < size; j++) {
        size_t from = (size_t)((rank - j + size) % size);
        st = ibex_coll_copy(tmp + j * nbytes, (int)nbytes, MPI_BYTE,
                            ibex_coll_block(a->rbuf, a->rdt, from * (size_t)a->rcount), a->rcount,
                            a->rdt);
    }
    return st;
}

ibex_status_t ibex_coll_alltoall_bruck(const ibex_coll_args_t *a)
{
    int size = a->comm->size;
    size_t nbytes = (size_t)a->rcount * ibex_dt_get(a->rdt)->size;
    if ((size_t)size * nbytes > INT_MAX)
        return ibex_coll_alltoall_pairwise(a);
    char *tmp = malloc((size_t)size * nbytes + 1), *pack = malloc((size_t)size * nbytes + 1);
    ibex_status_t st = tmp && pack ? bruck_run(a, tmp, pack, nbytes) : IBEX_ERR_NO_MEMORY;
    free(tmp);
    free(pack);
    return st;
}
