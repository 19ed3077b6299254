/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Graph and distributed-graph topologies: MPI_Graph_create, Graphdims_get, Graph_get,
 * Graph_neighbors_count, Graph_neighbors, Graph_map, Dist_graph_create_adjacent,
 * Dist_graph_create, Dist_graph_neighbors_count, Dist_graph_neighbors.
 *
 * MPI_Dist_graph_create lets any process name any edge, so each edge (u -> v, w) is sent to u
 * (an out-neighbour v) and to v (an in-neighbour u): an alltoall of counts, then one message
 * per pair on the parent's collective context. A process's neighbours are listed in the
 * order of the ranks that named them, each rank's edges in the order it gave them.
 */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "ibex_datatype.h"
#include "ibex_err.h"
#include "ibex_entry.h"
#include "ibex_p2p.h"
#include "topo_internal.h"

int ibex_mpi_unweighted[1], ibex_mpi_weights_empty[1]; /* MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY */

typedef struct graph_spec {
    int nnodes;
    const int *index, *edges;
} graph_spec_t;

static ibex_topo_t *make_graph(const void *arg, int new_rank)
{
    const graph_spec_t *s = arg;
    (void)new_rank;
    return ibex_topo_graph_new(s->nnodes, s->index, s->edges);
}

static int check_graph(ibex_comm_t *c, const char *call, int nnodes, const int *index,
                       const int *edges)
{
    if (nnodes < 0 || nnodes > c->size)
        return ibex_mpi_error(c, MPI_ERR_ARG, call, "nnodes %d is not in 0..%d", nnodes, c->size);
    IBEX_CHECK(ibex_topo_check_array(c, call, index, nnodes, "index"));
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i > 0 ? index[i - 1] : 0))
            return ibex_mpi_error(c, MPI_ERR_ARG, call, "index[%d] = %d is less than before", i,
                                  index[i]);
    IBEX_CHECK(ibex_topo_check_array(c, call, edges, nedges, "edges"));
    for (int i = 0; i < nedges; i++)
        if (edges[i] < 0 || edges[i] >= nnodes)
            return ibex_mpi_error(c, MPI_ERR_TOPOLOGY, call, "edges[%d] = %d is not a node (0..%d)",
                                  i, edges[i], nnodes - 1);
    return MPI_SUCCESS;
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    IBEX_ENTER_COMM(Graph_create, comm_old, c);
    IBEX_ARGS(Graph_create, comm_graph);
    *comm_graph = MPI_COMM_NULL; /* what an erroneous call leaves there */
    IBEX_CHECK(check_graph(c, call, nnodes, index, edges));
    graph_spec_t s = {nnodes, index, edges};
    if (!reorder || nnodes < 2)
        return ibex_topo_comm_create(c, nnodes, IBEX_TOPO_KEEP_RANKS, make_graph, &s, call,
                                     comm_graph);
    ibex_topo_graph_t *g = ibex_topo_graph_of_edges(nnodes, index, edges);
    int rc = ibex_topo_comm_create(c, nnodes, g, make_graph, &s, call, comm_graph);
    ibex_topo_graph_free(g);
    return rc;
}

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    IBEX_ENTER_COMM(Graph_map, comm, c);
    IBEX_ARGS(Graph_map, newrank);
    IBEX_CHECK(check_graph(c, call, nnodes, index, edges));
    if (c->rank >= nnodes) {
        *newrank = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    return ibex_topo_map(c, ibex_topo_graph_of_edges(nnodes, index, edges), call, newrank);
}

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    IBEX_ENTER_COMM(Graphdims_get, comm, c);
    IBEX_ARGS(Graphdims_get, nnodes, nedges);
    const ibex_topo_t *t = ibex_topo_need(c, MPI_GRAPH, call);
    if (!t)
        return MPI_ERR_TOPOLOGY;
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    return MPI_SUCCESS;
}

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    IBEX_ENTER_COMM(Graph_get, comm, c);
    const ibex_topo_t *t = ibex_topo_need(c, MPI_GRAPH, call);
    if (!t)
        return MPI_ERR_TOPOLOGY;
    int ni = maxindex < t->nnodes ? maxindex : t->nnodes;
    int ne = maxedges < t->nedges ? maxedges : t->nedges;
    if (ni < 0 || ne < 0)
        return IBEX_ERROR(MPI_ERR_ARG, "maxindex %d or maxedges %d is negative", maxindex,
                          maxedges);
    IBEX_CHECK(ibex_topo_check_array(c, call, index, ni, "index"));
    IBEX_CHECK(ibex_topo_check_array(c, call, edges, ne, "edges"));
    memcpy(index, t->index, (size_t)ni * sizeof(int));
    memcpy(edges, t->edges, (size_t)ne * sizeof(int));
    return MPI_SUCCESS;
}

static int graph_node(ibex_comm_t *c, const ibex_topo_t *t, int rank, const char *call)
{
    if (rank < 0 || rank >= t->nnodes)
        return ibex_mpi_error(c, MPI_ERR_RANK, call, "rank %d is not a node (0..%d)", rank,
                              t->nnodes - 1);
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    IBEX_ENTER_COMM(Graph_neighbors_count, comm, c);
    IBEX_ARGS(Graph_neighbors_count, nneighbors);
    const ibex_topo_t *t = ibex_topo_need(c, MPI_GRAPH, call);
    if (!t)
        return MPI_ERR_TOPOLOGY;
    IBEX_CHECK(graph_node(c, t, rank, call));
    int in;
    ibex_topo_degrees(t, rank, &in, nneighbors);
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    IBEX_ENTER_COMM(Graph_neighbors, comm, c);
    const ibex_topo_t *t = ibex_topo_need(c, MPI_GRAPH, call);
    if (!t)
        return MPI_ERR_TOPOLOGY;
    IBEX_CHECK(graph_node(c, t, rank, call));
    int first = rank > 0 ? t->index[rank - 1] : 0, n = t->index[rank] - first;
    if (maxneighbors < 0)
        return IBEX_ERROR(MPI_ERR_ARG, "maxneighbors %d is negative", maxneighbors);
    n = n < maxneighbors ? n : maxneighbors;
    IBEX_CHECK(ibex_topo_check_array(c, call, neighbors, n, "neighbors"));
    memcpy(neighbors, t->edges + first, (size_t)n * sizeof(int));
    return MPI_SUCCESS;
}

/* ---- distributed graphs ---- */

typedef struct dist_spec {
    int indegree, outdegree;
    const int *sources, *sweights, *dests, *dweights;
    bool weighted;
} dist_spec_t;

static ibex_topo_t *make_dist(const void *arg, int new_rank)
{
    const dist_spec_t *s = arg;
    (void)new_rank;
    return ibex_topo_dist_new(s->indegree, s->sources, s->sweights, s->outdegree, s->dests,
                              s->dweights, s->weighted);
}

/* n ranks of c, each in 0 .. size - 1. */
static int check_ranks(ibex_comm_t *c, const char *call, const int *r, int n, const char *what)
{
    IBEX_CHECK(ibex_topo_check_array(c, call, r, n, what));
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= c->size)
            return ibex_mpi_error(c, MPI_ERR_RANK, call, "%s[%d] = %d is not a rank (0..%d)", what,
                                  i, r[i], c->size - 1);
    return MPI_SUCCESS;
}

/* Weights of n edges: MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY (only for n == 0) or n non-negative
 * ints. */
static int check_weights(ibex_comm_t *c, const char *call, const int *w, int n, const char *what)
{
    if (w == MPI_UNWEIGHTED || (w == MPI_WEIGHTS_EMPTY && n == 0))
        return MPI_SUCCESS;
    if (w == MPI_WEIGHTS_EMPTY)
        return ibex_mpi_error(c, MPI_ERR_ARG, call, "%s is MPI_WEIGHTS_EMPTY for %d edges", what,
                              n);
    IBEX_CHECK(ibex_topo_check_array(c, call, w, n, what));
    for (int i = 0; i < n; i++)
        if (w[i] < 0)
            return ibex_mpi_error(c, MPI_ERR_ARG, call, "%s[%d] = %d is negative", what, i, w[i]);
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    IBEX_ENTER_COMM(Dist_graph_create_adjacent, comm_old, c);
    IBEX_ARGS(Dist_graph_create_adjacent, comm_dist_graph);
    *comm_dist_graph = MPI_COMM_NULL; /* what an erroneous call leaves there */
    if (indegree < 0 || outdegree < 0)
        return IBEX_ERROR(MPI_ERR_ARG, "indegree %d or outdegree %d is negative", indegree,
                          outdegree);
    IBEX_CHECK(check_ranks(c, call, sources, indegree, "sources"));
    IBEX_CHECK(check_ranks(c, call, destinations, outdegree, "destinations"));
    IBEX_CHECK(check_weights(c, call, sourceweights, indegree, "sourceweights"));
    IBEX_CHECK(check_weights(c, call, destweights, outdegree, "destweights"));
    (void)info; /* no hints are honoured for graphs */
    (void)reorder;
    dist_spec_t s = {indegree,
                     outdegree,
                     sources,
                     sourceweights,
                     destinations,
                     destweights,
                     sourceweights != MPI_UNWEIGHTED};
    return ibex_topo_comm_create(c, c->size, IBEX_TOPO_KEEP_RANKS, make_dist, &s, call,
                                 comm_dist_graph);
}

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    IBEX_ENTER_COMM(Dist_graph_neighbors_count, comm, c);
    IBEX_ARGS(Dist_graph_neighbors_count, indegree, outdegree, weighted);
    const ibex_topo_t *t = ibex_topo_need(c, MPI_DIST_GRAPH, call);
    if (!t)
        return MPI_ERR_TOPOLOGY;
    *indegree = t->indegree;
    *outdegree = t->outdegree;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}

/* Copies up to max of n neighbours (and their weights unless the output is MPI_UNWEIGHTED). */
static int copy_side(ibex_comm_t *c, const char *call, int max, const int *from, const int *fw,
                     int n, int *to, int *tw)
{
    if (max < 0)
        return ibex_mpi_error(c, MPI_ERR_ARG, call, "a maximum degree (%d) is negative", max);
    n = n < max ? n : max;
    IBEX_CHECK(ibex_topo_check_array(c, call, to, n, "a neighbour array"));
    memcpy(to, from, (size_t)n * sizeof(int));
    if (tw != MPI_UNWEIGHTED && tw != MPI_WEIGHTS_EMPTY && tw)
        memcpy(tw, fw, (size_t)n * sizeof(int));
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    IBEX_ENTER_COMM(Dist_graph_neighbors, comm, c);
    const ibex_topo_t *t = ibex_topo_need(c, MPI_DIST_GRAPH, call);
    if (!t)
        return MPI_ERR_TOPOLOGY;
    IBEX_CHECK(copy_side(c, call, maxindegree, t->sources, t->sweights, t->indegree, sources,
                         sourceweights));
    return copy_side(c, call, maxoutdegree, t->dests, t->dweights, t->outdegree, destinations,
                     destweights);
}

/* MPI_Dist_graph_create: each edge goes to both its ends as a record (peer, weight, out). */
enum { REC_INTS = 3 };

typedef struct edge_buckets {
    int *count; /* records per rank */
    int **rec;  /* rank -> its records */
} edge_buckets_t;

static void buckets_free(edge_buckets_t *b, int size)
{
    for (int r = 0; b->rec && r < size; r++)
        free(b->rec[r]);
    free(b->rec);
    free(b->count);
}

static int bucket_add(edge_buckets_t *b, int to, int peer, int weight, int out)
{
    int *p = realloc(b->rec[to], (size_t)(b->count[to] + 1) * REC_INTS * sizeof(int));
    if (!p)
        return -1;
    b->rec[to] = p;
    p += b->count[to]++ * REC_INTS;
    p[0] = peer;
    p[1] = weight;
    p[2] = out;
    return 0;
}

/* Sorts the edges this process names into per-rank buckets. */
static int buckets_fill(edge_buckets_t *b, int size, int n, const int *src, const int *deg,
                        const int *dst, const int *w)
{
    b->count = calloc((size_t)size, sizeof(int));
    b->rec = calloc((size_t)size, sizeof(int *));
    if (!b->count || !b->rec)
        return -1;
    bool weighted = w != MPI_UNWEIGHTED && w != MPI_WEIGHTS_EMPTY;
    for (int i = 0, e = 0; i < n; i++)
        for (int k = 0; k < deg[i]; k++, e++) {
            int u = src[i], v = dst[e], wt = weighted ? w[e] : 1;
            if (bucket_add(b, u, v, wt, 1) != 0 || bucket_add(b, v, u, wt, 0) != 0)
                return -1;
        }
    return 0;
}

/* Sends every bucket to its rank and receives this process's records from every rank:
 * *recs_p[r] holds in_count[r] records from rank r. */
static ibex_status_t buckets_exchange(ibex_comm_t *c, const edge_buckets_t *b, int *in_count,
                                      int ***recs_p)
{
    ibex_coll_args_t a = {.comm = c,
                          .sbuf = b->count,
                          .scount = 1,
                          .sdt = MPI_INT,
                          .rbuf = in_count,
                          .rcount = 1,
                          .rdt = MPI_INT};
    ibex_status_t st = ibex_coll_run(IBEX_COLL_ALLTOALL, &a, sizeof(int));
    if (st != IBEX_OK)
        return st;
    int size = c->size, **recs = calloc((size_t)size, sizeof(int *));
    ibex_req_t **reqs = calloc((size_t)(2 * size), sizeof(*reqs));
    int nreq = 0;
    ibex_dt_t *dt = ibex_dt_get(MPI_INT);
    for (int r = 0; r < size && recs && reqs && st == IBEX_OK; r++) {
        recs[r] = malloc((size_t)(in_count[r] * REC_INTS + 1) * sizeof(int));
        st = recs[r] ? ibex_p2p_irecv(recs[r], in_count[r] * REC_INTS, dt, r, IBEX_TOPO_TAG, c,
                                      true, &reqs[nreq])
                     : IBEX_ERR_NO_MEMORY;
        nreq += st == IBEX_OK;
    }
    for (int r = 0; r < size && recs && reqs && st == IBEX_OK; r++) {
        st = ibex_p2p_isend(b->rec[r], b->count[r] * REC_INTS, dt, r, IBEX_TOPO_TAG, c, true,
                            &reqs[nreq]);
        nreq += st == IBEX_OK;
    }
    if (!recs || !reqs)
        st = IBEX_ERR_NO_MEMORY;
    ibex_status_t wst = ibex_p2p_waitall(nreq, reqs);
    free(reqs);
    *recs_p = recs;
    return st != IBEX_OK ? st : wst;
}

/* From the records received, this process's in- and out-lists (in *ints_p, to be freed). */
static int dist_from_records(int size, const int *in_count, int **recs, dist_spec_t *s,
                             int **ints_p)
{
    int total = 0;
    for (int r = 0; r < size; r++)
        total += in_count[r];
    int *ints = malloc((size_t)(4 * total + 1) * sizeof(int));
    if (!ints)
        return -1;
    int *src = ints, *sw = ints + total, *dst = ints + 2 * total, *dw = ints + 3 * total;
    s->indegree = s->outdegree = 0;
    for (int r = 0; r < size; r++)
        for (int k = 0; k < in_count[r]; k++) {
            const int *p = recs[r] + k * REC_INTS;
            if (p[2]) {
                dst[s->outdegree] = p[0];
                dw[s->outdegree++] = p[1];
            } else {
                src[s->indegree] = p[0];
                sw[s->indegree++] = p[1];
            }
        }
    s->sources = src;
    s->sweights = sw;
    s->dests = dst;
    s->dweights = dw;
    *ints_p = ints;
    return 0;
}

static int check_dist_edges(ibex_comm_t *c, const char *call, int n, const int *sources,
                            const int *degrees, const int *dests, const int *weights)
{
    if (n < 0)
        return ibex_mpi_error(c, MPI_ERR_ARG, call, "n %d is negative", n);
    IBEX_CHECK(check_ranks(c, call, sources, n, "sources"));
    IBEX_CHECK(ibex_topo_check_array(c, call, degrees, n, "degrees"));
    int nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return ibex_mpi_error(c, MPI_ERR_ARG, call, "degrees[%d] = %d is negative", i,
                                  degrees[i]);
        nedges += degrees[i];
    }
    IBEX_CHECK(check_ranks(c, call, dests, nedges, "destinations"));
    return check_weights(c, call, weights, nedges, "weights");
}

static int dist_create(ibex_comm_t *c, const int *in_count, int **recs, bool weighted,
                       const char *call, MPI_Comm *newcomm)
{
    dist_spec_t s = {.weighted = weighted};
    int *ints = NULL;
    if (dist_from_records(c->size, in_count, recs, &s, &ints) != 0)
        return ibex_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory for the graph");
    int rc = ibex_topo_comm_create(c, c->size, IBEX_TOPO_KEEP_RANKS, make_dist, &s, call, newcomm);
    free(ints);
    return rc;
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    IBEX_ENTER_COMM(Dist_graph_create, comm_old, c);
    IBEX_ARGS(Dist_graph_create, comm_dist_graph);
    *comm_dist_graph = MPI_COMM_NULL; /* what an erroneous call leaves there */
    IBEX_CHECK(check_dist_edges(c, call, n, sources, degrees, destinations, weights));
    (void)info;
    (void)reorder;
    edge_buckets_t b = {0};
    int rc = MPI_SUCCESS, **recs = NULL;
    int *in_count = calloc((size_t)c->size, sizeof(int));
    ibex_status_t st = IBEX_ERR_NO_MEMORY;
    if (in_count && buckets_fill(&b, c->size, n, sources, degrees, destinations, weights) == 0)
        st = buckets_exchange(c, &b, in_count, &recs);
    if (st != IBEX_OK)
        rc = IBEX_ERROR(ibex_err_class_of(st), "exchanging the edges failed: %s",
                        ibex_status_str(st));
    else
        rc = dist_create(c, in_count, recs, weights != MPI_UNWEIGHTED, call, comm_dist_graph);
    for (int r = 0; recs && r < c->size; r++)
        free(recs[r]);
    free(recs);
    buckets_free(&b, c->size);
    free(in_count);
    return rc;
}

IBEX_MPI_ALIASES(topo_graph)
