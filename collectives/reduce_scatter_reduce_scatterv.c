/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduce_scatter(_block): reduce the whole vector to rank 0 (the binomial reduce, rank order),
 * then scatter block i to rank i (linear Scatterv from rank 0). Correct for every op,
 * non-commutative included; the choice for those and for small vectors.
 *
 * Cost, N the whole vector: ceil(log2 p) (alpha + N beta + N gamma) + (p - 1) alpha + N beta,
 * rank 0 does all the combining of its subtrees; ring.c moves and combines N (p - 1) / p per
 * rank instead for large commutative reductions.
 */
#include <stdlib.h>

#include "coll.h"

static ibex_status_t rs_scatter(const ibex_coll_args_t *a, void *result, int *displs)
{
    ibex_coll_args_t s = {.comm = a->comm,
                          .sbuf = result,
                          .sdt = a->rdt,
                          .scounts = a->rcounts,
                          .sdispls = displs,
                          .rbuf = a->rbuf,
                          .rcount = a->rcounts[a->comm->rank],
                          .rdt = a->rdt,
                          .root = 0};
    return ibex_coll_scatterv_linear(&s);
}

ibex_status_t ibex_coll_reduce_scatter_reduce_scatterv(const ibex_coll_args_t *a)
{
    int size = a->comm->size, total = 0;
    int *displs = malloc((size_t)size * sizeof(*displs));
    if (!displs)
        return IBEX_ERR_NO_MEMORY;
    for (int i = 0; i < size; i++) {
        displs[i] = total;
        total += a->rcounts[i];
    }
    void *base = NULL, *result = NULL;
    if (a->comm->rank == 0)
        result = ibex_coll_tmp_alloc(a->rdt, total, &base);
    ibex_status_t st = a->comm->rank == 0 && !result ? IBEX_ERR_NO_MEMORY : IBEX_OK;
    ibex_coll_args_t r = {.comm = a->comm,
                          .sbuf = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf,
                          .rbuf = result,
                          .rcount = total,
                          .rdt = a->rdt,
                          .op = a->op,
                          .root = 0};
    if (st == IBEX_OK)
        st = ibex_coll_reduce_binomial(&r);
    if (st == IBEX_OK)
        st = rs_scatter(a, result, displs);
    free(base);
    free(displs);
    return st;
}

ibex_status_t ibex_coll_reduce_scatter_block_reduce_scatterv(const ibex_coll_args_t *args)
{
    return ibex_coll_rsb_as_rs(args, ibex_coll_reduce_scatter_reduce_scatterv);
}
