/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scatter: binomial tree (MPICH's scatter_intra_binomial), the mirror of gather_binomial.c.
 * The root packs the blocks in vrank order (vrank = rank - root mod p) into a temporary
 * buffer; each rank receives its subtree's blocks from its parent in one message, keeps the
 * first and sends each child its subtree's range. Blocks travel packed (as bytes).
 *
 * Cost: ceil(log2 p) alpha + n (p - 1) beta (n one block), plus the packing copies, against
 * linear's (p - 1) alpha.
 */
#include <limits.h>
#include <stdlib.h>

#include "coll.h"
#include "ibex_datatype.h"
#include "ibex_p2p.h"

static int subtree(int vrank, int size)
{
    int span = vrank == 0 ? size : vrank & -vrank;
    return span < size - vrank ? span : size - vrank;
}

static ibex_status_t scatter_pack(const ibex_coll_args_t *a, char *tmp, size_t nbytes)
{
    ibex_status_t st = IBEX_OK;
    int size = a->comm->size;
    for (int j = 0; st == IBEX_OK && j < size; j++) {
        int r = (j + a->root) % size;
        const void *block = ibex_coll_block(a->sbuf, a->sdt, (size_t)r * (size_t)a->scount);
        st = ibex_coll_copy(block, a->scount, a->sdt, tmp + j * nbytes, (int)nbytes, MPI_BYTE);
    }
    return st;
}

static ibex_status_t scatter_tree(const ibex_coll_args_t *a, char *tmp, size_t nbytes, int vrank)
{
    int size = a->comm->size, tag = IBEX_COLL_TAG(IBEX_COLL_SCATTER), mask = 1;
    ibex_status_t st = IBEX_OK;
    for (; mask < size; mask <<= 1) {
        if (vrank & mask) {
            st = ibex_coll_recv(tmp, (int)(subtree(vrank, size) * nbytes), MPI_BYTE,
                                (vrank - mask + a->root) % size, tag, a->comm);
            break;
        }
    }
    for (mask >>= 1; st == IBEX_OK && mask > 0; mask >>= 1) {
        int child = vrank + mask;
        if (child < size)
            st = ibex_coll_send(tmp + mask * nbytes, (int)(subtree(child, size) * nbytes), MPI_BYTE,
                                (child + a->root) % size, tag, a->comm);
    }
    return st;
}

ibex_status_t ibex_coll_scatter_binomial(const ibex_coll_args_t *a)
{
    int size = a->comm->size, vrank = (a->comm->rank - a->root + size) % size;
    bool root = vrank == 0;
    size_t nbytes = root ? (size_t)a->scount * ibex_dt_get(a->sdt)->size
                         : (size_t)a->rcount * ibex_dt_get(a->rdt)->size;
    if ((size_t)size * nbytes > INT_MAX)
        return ibex_coll_scatter_linear(a); /* the same test on every rank */
    char *tmp = malloc((size_t)subtree(vrank, size) * nbytes + 1);
    if (!tmp)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st = root ? scatter_pack(a, tmp, nbytes) : IBEX_OK;
    if (st == IBEX_OK)
        st = scatter_tree(a, tmp, nbytes, vrank);
    if (st == IBEX_OK && !(root && a->rbuf == MPI_IN_PLACE))
        st = ibex_coll_copy(tmp, (int)nbytes, MPI_BYTE, a->rbuf, a->rcount, a->rdt);
    free(tmp);
    return st;
}
