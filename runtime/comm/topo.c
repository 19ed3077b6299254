/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Process topologies: the data attached to a communicator and the computations on it. Pure
 * functions of the topology (no communication); see ibex_topo.h.
 */
#include "ibex_topo.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* Points the arrays into data[] from the counts (after an allocation or a copy). */
static void topo_layout(ibex_topo_t *t)
{
    int *p = t->data;
    switch (t->kind) {
    case MPI_CART:
        t->dims = p;
        t->periods = p + t->ndims;
        t->coords = p + 2 * t->ndims;
        break;
    case MPI_GRAPH:
        t->index = p;
        t->edges = p + t->nnodes;
        break;
    default:
        t->sources = p;
        t->sweights = p + t->indegree;
        t->dests = p + 2 * t->indegree;
        t->dweights = p + 2 * t->indegree + t->outdegree;
        break;
    }
}

static ibex_topo_t *topo_alloc(int kind, int nints)
{
    ibex_topo_t *t = calloc(1, sizeof(*t) + (size_t)(nints > 0 ? nints : 1) * sizeof(int));
    if (t) {
        t->kind = kind;
        t->nints = nints;
    }
    return t;
}

long ibex_topo_cart_size(int ndims, const int *dims)
{
    long n = 1;
    for (int i = 0; i < ndims; i++)
        n *= dims[i];
    return n;
}

ibex_topo_t *ibex_topo_cart_new(int ndims, const int *dims, const int *periods, int my_rank)
{
    ibex_topo_t *t = topo_alloc(MPI_CART, 3 * ndims);
    if (!t)
        return NULL;
    t->ndims = ndims;
    topo_layout(t);
    for (int i = 0; i < ndims; i++) {
        t->dims[i] = dims[i];
        t->periods[i] = periods[i] != 0;
    }
    ibex_topo_cart_coords(t, my_rank, t->coords);
    return t;
}

ibex_topo_t *ibex_topo_graph_new(int nnodes, const int *index, const int *edges)
{
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    ibex_topo_t *t = topo_alloc(MPI_GRAPH, nnodes + nedges);
    if (!t)
        return NULL;
    t->nnodes = nnodes;
    t->nedges = nedges;
    topo_layout(t);
    memcpy(t->index, index, (size_t)nnodes * sizeof(int));
    memcpy(t->edges, edges, (size_t)nedges * sizeof(int));
    return t;
}

/* Weights are stored as 1 when the graph is unweighted, so the arrays are always there. */
static void copy_weights(int *to, const int *from, int n, bool weighted)
{
    for (int i = 0; i < n; i++)
        to[i] = weighted ? from[i] : 1;
}

ibex_topo_t *ibex_topo_dist_new(int indegree, const int *sources, const int *sweights,
                                int outdegree, const int *dests, const int *dweights, bool weighted)
{
    ibex_topo_t *t = topo_alloc(MPI_DIST_GRAPH, 2 * (indegree + outdegree));
    if (!t)
        return NULL;
    t->indegree = indegree;
    t->outdegree = outdegree;
    t->weighted = weighted;
    topo_layout(t);
    memcpy(t->sources, sources, (size_t)indegree * sizeof(int));
    memcpy(t->dests, dests, (size_t)outdegree * sizeof(int));
    copy_weights(t->sweights, sweights, indegree, weighted);
    copy_weights(t->dweights, dweights, outdegree, weighted);
    return t;
}

ibex_topo_t *ibex_topo_dup(const ibex_topo_t *topo)
{
    if (!topo)
        return NULL;
    size_t bytes = sizeof(*topo) + (size_t)(topo->nints > 0 ? topo->nints : 1) * sizeof(int);
    ibex_topo_t *t = malloc(bytes);
    if (t) {
        memcpy(t, topo, bytes);
        topo_layout(t);
    }
    return t;
}

void ibex_topo_cart_coords(const ibex_topo_t *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

int ibex_topo_cart_rank(const ibex_topo_t *t, const int *coords)
{
    int rank = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i], d = t->dims[i];
        if (t->periods[i])
            c = ((c % d) + d) % d;
        else if (c < 0 || c >= d)
            return -1;
        rank = rank * d + c;
    }
    return rank;
}

/* The rank displaced by disp along dim from this process, or MPI_PROC_NULL. */
static int cart_neighbor(const ibex_topo_t *t, int dim, int disp)
{
    int c[t->ndims > 0 ? t->ndims : 1];
    memcpy(c, t->coords, (size_t)t->ndims * sizeof(int));
    c[dim] += disp;
    int r = ibex_topo_cart_rank(t, c);
    return r < 0 ? MPI_PROC_NULL : r;
}

void ibex_topo_cart_shift(const ibex_topo_t *t, int dim, int disp, int *src_p, int *dst_p)
{
    *src_p = cart_neighbor(t, dim, -disp);
    *dst_p = cart_neighbor(t, dim, disp);
}

void ibex_topo_degrees(const ibex_topo_t *t, int rank, int *in_p, int *out_p)
{
    int n;
    switch (t->kind) {
    case MPI_CART:
        *in_p = *out_p = 2 * t->ndims;
        return;
    case MPI_GRAPH:
        n = t->index[rank] - (rank > 0 ? t->index[rank - 1] : 0);
        *in_p = *out_p = n;
        return;
    default:
        *in_p = t->indegree;
        *out_p = t->outdegree;
        return;
    }
}

void ibex_topo_neighbors(const ibex_topo_t *t, int rank, int *in, int *out)
{
    int first, n;
    switch (t->kind) {
    case MPI_CART:
        for (int d = 0; d < t->ndims; d++) {
            ibex_topo_cart_shift(t, d, 1, &in[2 * d], &in[2 * d + 1]);
            out[2 * d] = in[2 * d];
            out[2 * d + 1] = in[2 * d + 1];
        }
        return;
    case MPI_GRAPH:
        first = rank > 0 ? t->index[rank - 1] : 0;
        n = t->index[rank] - first;
        memcpy(in, t->edges + first, (size_t)n * sizeof(int));
        memcpy(out, t->edges + first, (size_t)n * sizeof(int));
        return;
    default:
        memcpy(in, t->sources, (size_t)t->indegree * sizeof(int));
        memcpy(out, t->dests, (size_t)t->outdegree * sizeof(int));
        return;
    }
}
