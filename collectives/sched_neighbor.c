/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbourhood collectives as a schedule: the exchange of neighbor_linear.c (every receive,
 * then every send in the same order, one tag: the schedule's own) as one round, for
 * MPI_Ineighbor_* and MPI_Neighbor_*_init. Cost as there: (indegree + outdegree) alpha + the
 * blocks' bytes, all in flight at once.
 */
#include <mpi.h>

#include "coll_neighbor.h"
#include "coll_sched.h"

void ibex_sched_neighbor(const ibex_coll_nbr_args_t *a, ibex_sched_t *s)
{
    for (int i = 0; i < a->nin; i++)
        if (a->in[i] != MPI_PROC_NULL)
            ibex_sched_recv(s, a->recv[i].buf, a->recv[i].count, a->recv[i].dt->handle, a->in[i]);
    for (int k = 0; k < a->nout; k++) {
        int i = ibex_coll_nbr_send_index(a, k);
        if (a->out[i] != MPI_PROC_NULL)
            ibex_sched_send(s, a->send[i].buf, a->send[i].count, a->send[i].dt->handle, a->out[i]);
    }
    ibex_sched_fence(s);
}
