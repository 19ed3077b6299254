/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbourhood collectives (collectives/neighbor_linear.c): every variant (allgather(v),
 * alltoall(v, w)) is one exchange with the process's topology neighbours, described block by
 * block by the entry point (runtime/mpi/topo_neighbor.c).
 */
#ifndef IBEX_COLL_NEIGHBOR_H
#define IBEX_COLL_NEIGHBOR_H

#include <stdbool.h>

#include "ibex_comm.h"
#include "ibex_datatype.h"
#include "ibex_status.h"

/* The collective-context tag of neighbourhood collectives (see coll.h's tag space). */
#define IBEX_COLL_NEIGHBOR_TAG 63

typedef struct ibex_coll_nbr_block {
    void *buf; /* a send block is only read */
    int count;
    ibex_dt_t *dt;
} ibex_coll_nbr_block_t;

typedef struct ibex_coll_nbr_args {
    ibex_comm_t *comm;
    int nin, nout;
    const int *in, *out;         /* neighbour ranks; MPI_PROC_NULL ones are skipped */
    ibex_coll_nbr_block_t *recv; /* nin blocks, recv[i] from in[i] */
    ibex_coll_nbr_block_t *send; /* nout blocks, send[i] to out[i] */
    /* Cartesian: in and out are (-1, +1) pairs per dimension; see neighbor_linear.c */
    bool cart_pairs;
} ibex_coll_nbr_args_t;

/* Posts every receive, then every send, and waits for all. */
ibex_status_t ibex_coll_neighbor_linear(const ibex_coll_nbr_args_t *a);
/* The same exchange as one round of a schedule (the non-blocking and persistent forms,
 * collectives/sched_neighbor.c). */
struct ibex_sched;
void ibex_sched_neighbor(const ibex_coll_nbr_args_t *a, struct ibex_sched *s);
/* The i-th send in posting order (see neighbor_linear.c). */
static inline int ibex_coll_nbr_send_index(const ibex_coll_nbr_args_t *a, int i)
{
    return a->cart_pairs ? (i ^ 1) : i;
}

#endif
