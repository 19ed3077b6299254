/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Process topologies (runtime/comm/topo.c): the Cartesian, graph and distributed-graph
 * structure attached to a communicator, and the pure computations on it (coordinates, shifts,
 * sub-grids, neighbour lists). Creating the communicator itself is ibex_comm_create_from; the
 * MPI entry points are runtime/mpi/topo_*.c.
 *
 * A topology is one malloc'd block (header + its int arrays), owned by the communicator
 * (ibex_comm_t.topo, freed with it), so the engine frees it without knowing its shape and a
 * Comm_dup copies it with one allocation.
 */
#ifndef IBEX_TOPO_H
#define IBEX_TOPO_H

#include <stdbool.h>

#include "ibex_comm.h"
#include "ibex_status.h"

typedef struct ibex_topo {
    int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* MPI_CART: ndims dimensions, periodic flags and this process's coordinates */
    int ndims;
    int *dims, *periods, *coords;
    /* MPI_GRAPH: the whole graph, as MPI_Graph_create takes it (index is cumulative) */
    int nnodes, nedges;
    int *index, *edges;
    /* MPI_DIST_GRAPH: this process's in- and out-neighbours and their weights */
    int indegree, outdegree;
    bool weighted;
    int *sources, *sweights, *dests, *dweights;
    int nints; /* ints stored after the header */
    int data[];
} ibex_topo_t;

/* The topology of comm, or NULL. */
static inline const ibex_topo_t *ibex_topo_of(const ibex_comm_t *comm)
{
    return (const ibex_topo_t *)comm->topo;
}

/* New topologies (NULL when out of memory). my_rank is the process's rank in the new
 * communicator (coords are computed from it). */
ibex_topo_t *ibex_topo_cart_new(int ndims, const int *dims, const int *periods, int my_rank);
ibex_topo_t *ibex_topo_graph_new(int nnodes, const int *index, const int *edges);
ibex_topo_t *ibex_topo_dist_new(int indegree, const int *sources, const int *sweights,
                                int outdegree, const int *dests, const int *dweights,
                                bool weighted);
/* A copy for a duplicated communicator (NULL for NULL, or when out of memory). */
ibex_topo_t *ibex_topo_dup(const ibex_topo_t *topo);

/* ---- Cartesian computations ---- */
/* Product of dims (the number of processes of the grid). */
long ibex_topo_cart_size(int ndims, const int *dims);
/* Coordinates of rank in row-major order. */
void ibex_topo_cart_coords(const ibex_topo_t *t, int rank, int *coords);
/* The rank at coords (periodic dims wrap; out of range in a non-periodic one: -1). */
int ibex_topo_cart_rank(const ibex_topo_t *t, const int *coords);
/* Cart_shift: source and destination of a shift by disp along dim (MPI_PROC_NULL off a
 * non-periodic edge). */
void ibex_topo_cart_shift(const ibex_topo_t *t, int dim, int disp, int *src_p, int *dst_p);

/* ---- neighbours, in the order neighbourhood collectives use ---- */
/* Counts of in- (receive) and out- (send) neighbours of rank `rank`. */
void ibex_topo_degrees(const ibex_topo_t *t, int rank, int *in_p, int *out_p);
/* The in- and out-neighbour ranks (MPI_PROC_NULL where a Cartesian edge has none). For a
 * Cartesian topology both lists are, per dimension, the -1 then the +1 neighbour. */
void ibex_topo_neighbors(const ibex_topo_t *t, int rank, int *in, int *out);

/* ---- reorder (topo_place.c) ---- */
/* An undirected graph over n vertices: the neighbours of v are adj[xadj[v] .. xadj[v+1]) (an
 * edge listed twice counts twice). */
typedef struct ibex_topo_graph {
    int n;
    int *xadj, *adj;
} ibex_topo_graph_t;
/* From npairs edges (pairs[2e], pairs[2e + 1]), each given once; NULL when out of memory. */
ibex_topo_graph_t *ibex_topo_graph_from_pairs(int n, const int *pairs, int npairs);
/* The graph of a Cartesian grid (each process and its +1 neighbour in each dimension) and of
 * an MPI_Graph_create graph (each edge once, as its lower end lists it); NULL: no memory. */
ibex_topo_graph_t *ibex_topo_graph_of_cart(int ndims, const int *dims, const int *periods);
ibex_topo_graph_t *ibex_topo_graph_of_edges(int nnodes, const int *index, const int *edges);
void ibex_topo_graph_free(ibex_topo_graph_t *g);
/* Where the vertices of g go: vertex_of[i] is the vertex (new rank) of parent rank i, for
 * i < g->n, placing neighbours on one node, then on cores sharing caches (see topo_place.c).
 * Local: every process computes it alike for its own node. */
ibex_status_t ibex_topo_place(ibex_comm_t *parent, const ibex_topo_graph_t *g, int *vertex_of);

#endif
