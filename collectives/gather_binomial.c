/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gather: binomial tree (MPICH's gather_intra_binomial). Ranks are renumbered from the root
 * (vrank = rank - root mod p); each rank collects the blocks of its subtree, vranks
 * [vrank, vrank + subtree), packed in vrank order in a temporary buffer, and sends them to
 * its parent in one message. The root unpacks the blocks into rbuf in rank order. Blocks
 * travel packed (as bytes), so every rank may use its own datatype of the same signature.
 *
 * Cost: ceil(log2 p) alpha + n (p - 1) beta (n one block), plus the packing copies, against
 * linear's (p - 1) alpha: the choice for small blocks on more than a few ranks.
 */
#include <limits.h>
#include <stdlib.h>

#include "coll.h"
#include "ibex_datatype.h"
#include "ibex_p2p.h"

/* blocks in the subtree of vrank: up to its lowest set bit (the root: everything) */
static int subtree(int vrank, int size)
{
    int span = vrank == 0 ? size : vrank & -vrank;
    return span < size - vrank ? span : size - vrank;
}

static ibex_status_t gather_tree(const ibex_coll_args_t *a, char *tmp, size_t nbytes, int vrank)
{
    int size = a->comm->size, tag = IBEX_COLL_TAG(IBEX_COLL_GATHER), have = 1;
    for (int mask = 1; mask < size; mask <<= 1) {
        if (vrank & mask)
            return ibex_coll_send(tmp, (int)(have * nbytes), MPI_BYTE,
                                  (vrank - mask + a->root) % size, tag, a->comm);
        if (vrank + mask >= size)
            continue;
        int n = subtree(vrank + mask, size);
        ibex_status_t st = ibex_coll_recv(tmp + have * nbytes, (int)(n * nbytes), MPI_BYTE,
                                          (vrank + mask + a->root) % size, tag, a->comm);
        if (st != IBEX_OK)
            return st;
        have += n;
    }
    return IBEX_OK;
}

static ibex_status_t gather_unpack(const ibex_coll_args_t *a, const char *tmp, size_t nbytes)
{
    ibex_status_t st = IBEX_OK;
    int size = a->comm->size;
    for (int j = 0; st == IBEX_OK && j < size; j++) {
        int r = (j + a->root) % size;
        void *block = ibex_coll_block(a->rbuf, a->rdt, (size_t)r * (size_t)a->rcount);
        if (j > 0 || a->sbuf != MPI_IN_PLACE)
            st = ibex_coll_copy(tmp + j * nbytes, (int)nbytes, MPI_BYTE, block, a->rcount, a->rdt);
    }
    return st;
}

ibex_status_t ibex_coll_gather_binomial(const ibex_coll_args_t *a)
{
    int size = a->comm->size, vrank = (a->comm->rank - a->root + size) % size;
    bool root = vrank == 0;
    size_t nbytes = root ? (size_t)a->rcount * ibex_dt_get(a->rdt)->size
                         : (size_t)a->scount * ibex_dt_get(a->sdt)->size;
    if ((size_t)size * nbytes > INT_MAX)
        return ibex_coll_gather_linear(a); /* the same test on every rank */
    char *tmp = malloc((size_t)subtree(vrank, size) * nbytes + 1);
    if (!tmp)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st = IBEX_OK;
    if (!(root && a->sbuf == MPI_IN_PLACE))
        st = ibex_coll_copy(a->sbuf, a->scount, a->sdt, tmp, (int)nbytes, MPI_BYTE);
    if (st == IBEX_OK)
        st = gather_tree(a, tmp, nbytes, vrank);
    if (st == IBEX_OK && root)
        st = gather_unpack(a, tmp, nbytes);
    free(tmp);
    return st;
}
