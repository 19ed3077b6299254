/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reorder of Cartesian and graph topologies. The script fakes nodes (IBEX_COLL_NODE_SIZE: world
 * ranks r / NODE on one node) and, optionally, cores sharing an L2 cache (IBEX_TOPO_SYNTHETIC
 * with TOPO_L2_CORES cores per L2: world rank r on core r). For each topology, created with
 * reorder = 1 over MPI_COMM_WORLD:
 *  - the edges cut between nodes (then between L2 caches) are at most those of keeping the
 *    ranks, and equal to the optimum found here by trying every assignment of the vertices to
 *    the nodes (and caches);
 *  - MPI_Cart_map / MPI_Graph_map give each process the rank the creation gave it;
 *  - the topology is right under the new ranks: coordinates and ranks agree, and each process
 *    receives from its Cart_shift source / graph neighbours exactly the coordinates / ranks
 *    they should have.
 * Distributed graphs keep their ranks (each process names its own neighbours: renumbering
 * cannot move an edge). Without the variables (another MPI), only the last two points.
 */
#include "mpitest.h"

static int rank, size, node_size, l2_cores;

/* The cut of a placement: owner[v] is the world rank holding vertex v. */
typedef struct {
    int n, m;
    int *eu, *ev; /* m undirected edges */
} graph_t;

static int group_of(int world, int level) /* level 0: node, 1: L2 */
{
    if (level == 0)
        return node_size > 0 ? world / node_size : 0;
    return l2_cores > 0 ? world / l2_cores : group_of(world, 0);
}

static long cut(const graph_t *g, const int *owner, int level)
{
    long c = 0;
    for (int e = 0; e < g->m; e++)
        c += group_of(owner[g->eu[e]], level) != group_of(owner[g->ev[e]], level);
    return c;
}

/* Every assignment of vertices to L2 groups (which fix the nodes) within their capacities:
 * the lexicographic minimum of (node cut, L2 cut). */
static int grp[64], cap[64], ngrp, label[64];
static long best[2];

static void search(const graph_t *g, int v)
{
    if (v == g->n) {
        long c[2] = {0, 0};
        for (int e = 0; e < g->m; e++)
            for (int l = 0; l < 2; l++)
                c[l] += group_of(grp[label[g->eu[e]]], l) != group_of(grp[label[g->ev[e]]], l);
        if (c[0] < best[0] || (c[0] == best[0] && c[1] < best[1]))
            best[0] = c[0], best[1] = c[1];
        return;
    }
    for (int k = 0; k < ngrp; k++)
        if (cap[k] > 0) {
            cap[k]--;
            label[v] = k;
            search(g, v + 1);
            cap[k]++;
        }
}

/* grp[k]: a world rank of group k (its representative), cap[k]: how many ranks it has. */
static void optimum(const graph_t *g, long *opt)
{
    ngrp = 0;
    for (int r = 0; r < g->n; r++) {
        int k = 0;
        while (k < ngrp && group_of(grp[k], 1) != group_of(r, 1))
            k++;
        if (k == ngrp) {
            grp[ngrp] = r;
            cap[ngrp++] = 0;
        }
        cap[k]++;
    }
    best[0] = best[1] = 1L << 40;
    search(g, 0);
    opt[0] = best[0];
    opt[1] = best[1];
}

/* owner[v] over the new communicator, checks the cuts against keeping the ranks and the
 * optimum. */
static void check_cuts(MPI_Comm comm, const graph_t *g)
{
    int owner[64], ident[64];
    CHECK_RC(MPI_Allgather(&rank, 1, MPI_INT, owner, 1, MPI_INT, comm));
    for (int v = 0; v < g->n; v++)
        ident[v] = v;
    if (node_size <= 0)
        return;
    long opt[2];
    optimum(g, opt);
    long c0 = cut(g, owner, 0), c1 = cut(g, owner, 1);
    if (c0 != opt[0] || (l2_cores > 0 && c1 != opt[1]))
        fprintf(stderr,
                "rank %d: %d vertices, %d edges: cuts %ld / %ld, kept %ld / %ld, best %ld / %ld\n",
                rank, g->n, g->m, c0, c1, cut(g, ident, 0), cut(g, ident, 1), opt[0], opt[1]);
    CHECK(c0 <= cut(g, ident, 0));
    CHECK(c0 == opt[0]);
    if (l2_cores > 0) {
        CHECK(c0 < cut(g, ident, 0) || c1 <= cut(g, ident, 1));
        CHECK(c1 == opt[1]);
    }
}

/* The grid's edges (v and its +1 neighbour per dimension), from MPI's row-major order. */
static void cart_graph(int ndims, const int *dims, const int *periods, graph_t *g)
{
    g->n = 1;
    for (int d = 0; d < ndims; d++)
        g->n *= dims[d];
    g->m = 0;
    for (int v = 0; v < g->n; v++)
        for (int d = 0, stride = g->n; d < ndims; d++) {
            stride /= dims[d];
            int c = v / stride % dims[d];
            if (c + 1 >= dims[d] && (!periods[d] || dims[d] <= 2))
                continue; /* no +1 neighbour, or the same edge as the -1 one */
            g->eu[g->m] = v;
            g->ev[g->m++] = v + ((c + 1) % dims[d] - c) * stride;
        }
}

static void check_cart(int ndims, const int *dims, const int *periods)
{
    int eu[256], ev[256], n = 1;
    graph_t g = {0, 0, eu, ev};
    for (int d = 0; d < ndims; d++)
        n *= dims[d];
    if (n > size)
        return;
    cart_graph(ndims, dims, periods, &g);
    MPI_Comm cart;
    int mapped;
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 1, &cart));
    CHECK_RC(MPI_Cart_map(MPI_COMM_WORLD, ndims, dims, periods, &mapped));
    if (cart == MPI_COMM_NULL) {
        CHECK(rank >= n && mapped == MPI_UNDEFINED);
        return;
    }
    int me, c[8], back;
    CHECK_RC(MPI_Comm_rank(cart, &me));
    CHECK(mapped == me);
    check_cuts(cart, &g);
    CHECK_RC(MPI_Cart_coords(cart, me, ndims, c));
    CHECK_RC(MPI_Cart_rank(cart, c, &back));
    CHECK(back == me);
    for (int d = 0; d < ndims; d++) { /* what my -1 neighbour sends me is its coordinates */
        int src, dst, got[8] = {0};
        CHECK_RC(MPI_Cart_shift(cart, d, 1, &src, &dst));
        CHECK_RC(MPI_Sendrecv(c, ndims, MPI_INT, dst, d, got, ndims, MPI_INT, src, d, cart,
                              MPI_STATUS_IGNORE));
        if (src == MPI_PROC_NULL)
            continue;
        for (int k = 0; k < ndims; k++) {
            int want = k != d ? c[k] : (c[k] - 1 + dims[k]) % dims[k];
            CHECK(got[k] == want);
        }
    }
    CHECK_RC(MPI_Comm_free(&cart));
}

/* Two interleaved cliques (even and odd vertices): keeping the ranks cuts most edges. */
static void check_graph(int n)
{
    int index[64], edges[64 * 64], ne = 0, eu[2048], ev[2048];
    graph_t g = {n, 0, eu, ev};
    for (int v = 0; v < n; v++) {
        for (int u = 0; u < n; u++)
            if (u != v && u % 2 == v % 2) {
                edges[ne++] = u;
                if (u > v) {
                    eu[g.m] = v;
                    ev[g.m++] = u;
                }
            }
        index[v] = ne;
    }
    MPI_Comm comm;
    int mapped, me;
    CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 1, &comm));
    CHECK_RC(MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &mapped));
    if (comm == MPI_COMM_NULL) {
        CHECK(rank >= n && mapped == MPI_UNDEFINED);
        return;
    }
    CHECK_RC(MPI_Comm_rank(comm, &me));
    CHECK(mapped == me);
    check_cuts(comm, &g);
    int nn, nb[64];
    CHECK_RC(MPI_Graph_neighbors_count(comm, me, &nn));
    CHECK_RC(MPI_Graph_neighbors(comm, me, 64, nb));
    for (int i = 0; i < nn; i++) { /* each neighbour is who it should be */
        int got = -1;
        CHECK_RC(MPI_Sendrecv(&me, 1, MPI_INT, nb[i], 5, &got, 1, MPI_INT, nb[i], 5, comm,
                              MPI_STATUS_IGNORE));
        CHECK(got == nb[i] && got % 2 == me % 2);
    }
    CHECK_RC(MPI_Comm_free(&comm));
}

/* A ring as a distributed graph with reorder: the neighbours are still the processes that
 * were named (old ranks); Ibex keeps the ranks. */
static void check_dist(void)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size, me, src, dst, w;
    MPI_Comm comm;
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, MPI_UNWEIGHTED, 1, &to,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &comm));
    CHECK_RC(MPI_Comm_rank(comm, &me));
    int old_of[64];
    CHECK_RC(MPI_Allgather(&rank, 1, MPI_INT, old_of, 1, MPI_INT, comm));
    CHECK_RC(MPI_Dist_graph_neighbors(comm, 1, &src, &w, 1, &dst, &w));
    CHECK(old_of[src] == from && old_of[dst] == to);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    CHECK_RC(MPI_Get_library_version(lib, &len));
    if (strncmp(lib, "Ibex", 4) == 0)
        CHECK(me == rank);
    CHECK_RC(MPI_Comm_free(&comm));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    node_size = getenv("IBEX_COLL_NODE_SIZE") ? atoi(getenv("IBEX_COLL_NODE_SIZE")) : 0;
    l2_cores = getenv("TOPO_L2_CORES") ? atoi(getenv("TOPO_L2_CORES")) : 0;
    int dims[3] = {0, 0, 0}, per0[3] = {0, 0, 0}, per1[3] = {1, 1, 1}, per01[3] = {0, 1, 0};
    CHECK_RC(MPI_Dims_create(size, 2, dims));
    check_cart(2, dims, per0);
    check_cart(2, dims, per1);
    check_cart(2, dims, per01);
    int flip[2] = {dims[1], dims[0]};
    check_cart(2, flip, per0);
    int line[1] = {size};
    check_cart(1, line, per1);
    int d3[3] = {0, 0, 0};
    CHECK_RC(MPI_Dims_create(size, 3, d3));
    check_cart(3, d3, per0);
    if (size > 2) { /* a grid smaller than the world: the last rank stays out */
        int small[2] = {0, 0};
        CHECK_RC(MPI_Dims_create(size - 1, 2, small));
        check_cart(2, small, per0);
    }
    check_graph(size);
    check_dist();
    mt_done("topo_reorder");
    MPI_Finalize();
    return 0;
}
