/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allreduce: binomial reduce to rank 0, then binomial broadcast from rank 0.
 *
 * Correct for every op, commutative or not (the reduce keeps rank order), and MPI_IN_PLACE
 * (the data is then in rbuf on every rank).
 *
 * Cost: 2 ceil(log2 p) * (alpha + n * beta) + ceil(log2 p) * n * gamma. Recursive doubling
 * (log2 p rounds instead of 2 log2 p) and Rabenseifner's reduce-scatter + allgather for large
 * messages are the next entries of the table.
 */
#include "coll.h"

ibex_status_t ibex_coll_allreduce_reduce_bcast(const ibex_coll_args_t *args)
{
    ibex_coll_args_t a = *args;
    a.root = 0;
    ibex_status_t st = ibex_coll_reduce_binomial(&a);
    if (st != IBEX_OK)
        return st;
    return ibex_coll_bcast_binomial(&a);
}
