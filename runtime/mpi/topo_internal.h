/* SPDX-License-Identifier: BSD-3-Clause */
/* What the topology entry points (topo_cart.c, topo_graph.c, topo_neighbor.c) share. */
#ifndef IBEX_TOPO_INTERNAL_H
#define IBEX_TOPO_INTERNAL_H

#include <mpi.h>

#include "ibex_comm.h"
#include "ibex_topo.h"

/* Tags on the collective context (coll.h reserves 1..63 for collectives, whose kinds take the
 * low end): the edge exchange of MPI_Dist_graph_create. */
#define IBEX_TOPO_TAG 62

/* The topology of c, or NULL after raising MPI_ERR_TOPOLOGY when c has none of `kind`
 * (kind 0: any kind). */
const ibex_topo_t *ibex_topo_need(ibex_comm_t *c, int kind, const char *call);
/* Builds the communicator of a new topology over the first n ranks of parent. With g (the
 * topology's graph, n vertices; reorder) their new ranks are g's placement
 * (runtime/comm/topo_place.c), agreed by an allgather over parent; with IBEX_TOPO_KEEP_RANKS
 * they keep their order. Every member of parent calls it (with g, or NULL when it could not
 * build g: it then takes part and the ranks are kept); `make` builds the topology for a
 * member's new rank (or NULL when out of memory) and is called only on members. */
typedef ibex_topo_t *(*ibex_topo_make_fn)(const void *arg, int new_rank);
#define IBEX_TOPO_KEEP_RANKS ((const ibex_topo_graph_t *)-1)
int ibex_topo_comm_create(ibex_comm_t *parent, int n, const ibex_topo_graph_t *g,
                          ibex_topo_make_fn make, const void *arg, const char *call,
                          MPI_Comm *newcomm);
/* Cart_map / Graph_map for a member: *newrank is its vertex in g's placement; frees g (NULL:
 * out of memory, MPI_ERR_NO_MEM). */
int ibex_topo_map(ibex_comm_t *c, ibex_topo_graph_t *g, const char *call, int *newrank);
/* An int array argument of n entries: NULL only when n is 0 (else MPI_ERR_ARG). */
int ibex_topo_check_array(ibex_comm_t *c, const char *call, const void *a, int n, const char *what);

#endif
