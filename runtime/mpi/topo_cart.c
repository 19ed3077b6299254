/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cartesian topologies: MPI_Cart_create, Cart_get, Cart_rank, Cart_coords, Cart_shift,
 * Cart_sub, Cartdim_get, Cart_map, and MPI_Topo_test; the creation helper the graph calls share.
 *
 * Errors: a negative ndims or a dimension that is not positive is MPI_ERR_DIMS, a grid larger
 * than the communicator MPI_ERR_TOPOLOGY, as is asking a communicator without a Cartesian
 * topology; a bad direction, coordinate or short output array MPI_ERR_ARG, a rank outside the
 * grid MPI_ERR_RANK. Arguments every member passes alike are checked before any
 * communication, so members fail together.
 */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "comm_impl.h"
#include "ibex_err.h"
#include "ibex_entry.h"
#include "topo_internal.h"

const ibex_topo_t *ibex_topo_need(ibex_comm_t *c, int kind, const char *call)
{
    const ibex_topo_t *t = ibex_topo_of(c);
    if (t && (kind == 0 || t->kind == kind))
        return t;
    const char *want = kind == MPI_CART         ? "a Cartesian"
                       : kind == MPI_GRAPH      ? "a graph"
                       : kind == MPI_DIST_GRAPH ? "a distributed graph"
                                                : "a process";
    ibex_mpi_error(c, MPI_ERR_TOPOLOGY, call, "communicator %s has no %s topology", c->name, want);
    return NULL;
}

int ibex_topo_check_array(ibex_comm_t *c, const char *call, const void *a, int n, const char *what)
{
    if (n > 0 && !a)
        return ibex_mpi_error(c, MPI_ERR_ARG, call, "%s is NULL", what);
    return MPI_SUCCESS;
}

/* The group of parent ranks 0 .. n - 1, or NULL when out of memory. */
static ibex_group_t *first_ranks(ibex_comm_t *parent, int n)
{
    int *w = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (!w)
        return NULL;
    for (int i = 0; i < n; i++)
        w[i] = ibex_comm_world_rank(parent, i);
    ibex_group_t *g = ibex_group_from_world(w, n);
    free(w);
    return g;
}

/* Creates over group (NULL: not a member) and attaches make's topology. */
static int create_with_topo(ibex_comm_t *parent, ibex_group_t *group, ibex_topo_make_fn make,
                            const void *arg, const char *call, MPI_Comm *newcomm)
{
    ibex_comm_t *comm;
    ibex_status_t st = ibex_comm_create_from(parent, group, &comm);
    if (st != IBEX_OK)
        return ibex_mpi_error(parent, ibex_err_class_of(st), call,
                              "communicator creation failed: %s", ibex_status_str(st));
    if (!comm) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    comm->session = parent->session;
    comm->topo = make(arg, comm->rank);
    if (!comm->topo) {
        ibex_comm_release(comm);
        *newcomm = MPI_COMM_NULL;
        return ibex_mpi_error(parent, MPI_ERR_NO_MEM, call, "out of memory for the topology");
    }
    *newcomm = comm->handle;
    return MPI_SUCCESS;
}

/* Every parent rank's vertex under g's placement (-1: not a member, or the placement failed
 * there); all[i] for parent rank i, the same everywhere (an allgather). */
static ibex_status_t placed_vertices(ibex_comm_t *parent, const ibex_topo_graph_t *g, int n,
                                     int *all)
{
    int mine = -1, *vertex_of = g ? malloc((size_t)n * sizeof(int)) : NULL;
    if (vertex_of && parent->rank < n && ibex_topo_place(parent, g, vertex_of) == IBEX_OK)
        mine = vertex_of[parent->rank];
    free(vertex_of);
    ibex_coll_args_t a = {.comm = parent,
                          .sbuf = &mine,
                          .scount = 1,
                          .sdt = MPI_INT,
                          .rbuf = all,
                          .rcount = 1,
                          .rdt = MPI_INT};
    return ibex_coll_run(IBEX_COLL_ALLGATHER, &a, sizeof(int));
}

/* The group of parent ranks 0 .. n - 1 in the order of their vertices, or in rank order when
 * the vertices are not a permutation (a placement failed somewhere). NULL: out of memory. */
static ibex_group_t *placed_ranks(ibex_comm_t *parent, int n, const int *all)
{
    int *w = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (!w)
        return NULL;
    for (int i = 0; i < n; i++)
        w[i] = -1;
    bool perm = true;
    for (int i = 0; i < n && perm; i++) {
        perm = all[i] >= 0 && all[i] < n && w[all[i]] < 0;
        if (perm)
            w[all[i]] = ibex_comm_world_rank(parent, i);
    }
    for (int i = 0; i < n && !perm; i++)
        w[i] = ibex_comm_world_rank(parent, i);
    ibex_group_t *grp = ibex_group_from_world(w, n);
    free(w);
    return grp;
}

int ibex_topo_comm_create(ibex_comm_t *parent, int n, const ibex_topo_graph_t *g,
                          ibex_topo_make_fn make, const void *arg, const char *call,
                          MPI_Comm *newcomm)
{
    if (ibex_comm_is_inter(parent)) /* MPI defines topologies on intracommunicators only */
        return ibex_mpi_error(parent, MPI_ERR_COMM, call,
                              "a topology cannot be built on an intercommunicator");
    bool member = parent->rank < n;
    int *all = NULL;
    if (g != IBEX_TOPO_KEEP_RANKS) {
        all = malloc((size_t)parent->size * sizeof(int));
        ibex_status_t st = all ? placed_vertices(parent, g, n, all) : IBEX_ERR_NO_MEMORY;
        if (st != IBEX_OK) { /* an allgather failure is everyone's, or the job's */
            free(all);
            return ibex_mpi_error(parent, ibex_err_class_of(st), call,
                                  "agreeing on the placement failed: %s", ibex_status_str(st));
        }
    }
    ibex_group_t *group = !member ? NULL
                          : all   ? placed_ranks(parent, n, all)
                                  : first_ranks(parent, n);
    free(all);
    /* out of memory for the group: still take part in the agreement, then fail */
    int rc = create_with_topo(parent, group, make, arg, call, newcomm);
    if (member && !group && rc == MPI_SUCCESS)
        rc = ibex_mpi_error(parent, MPI_ERR_NO_MEM, call, "out of memory for the group");
    ibex_group_release(group);
    return rc;
}

int ibex_topo_map(ibex_comm_t *c, ibex_topo_graph_t *g, const char *call, int *newrank)
{
    int *vertex_of = g ? malloc((size_t)g->n * sizeof(int)) : NULL;
    ibex_status_t st = vertex_of ? ibex_topo_place(c, g, vertex_of) : IBEX_ERR_NO_MEMORY;
    if (st == IBEX_OK)
        *newrank = vertex_of[c->rank];
    free(vertex_of);
    ibex_topo_graph_free(g);
    if (st != IBEX_OK)
        return ibex_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory for the placement");
    return MPI_SUCCESS;
}

typedef struct cart_spec {
    int ndims;
    const int *dims, *periods;
} cart_spec_t;

static ibex_topo_t *make_cart(const void *arg, int new_rank)
{
    const cart_spec_t *s = arg;
    return ibex_topo_cart_new(s->ndims, s->dims, s->periods, new_rank);
}

/* ndims >= 0, dims positive, the grid fits in c; *size_p the grid's size. */
static int check_grid(ibex_comm_t *c, const char *call, int ndims, const int *dims,
                      const int *periods, long *size_p)
{
    if (ndims < 0)
        return ibex_mpi_error(c, MPI_ERR_DIMS, call, "ndims %d is negative", ndims);
    IBEX_CHECK(ibex_topo_check_array(c, call, dims, ndims, "dims"));
    IBEX_CHECK(ibex_topo_check_array(c, call, periods, ndims, "periods"));
    for (int i = 0; i < ndims; i++)
        if (dims[i] <= 0)
            return ibex_mpi_error(c, MPI_ERR_DIMS, call, "dims[%d] = %d is not positive", i,
                                  dims[i]);
    long size = ibex_topo_cart_size(ndims, dims);
    if (size > c->size)
        return ibex_mpi_error(c, MPI_ERR_TOPOLOGY, call,
                              "the grid has %ld processes, the communicator only %d", size,
                              c->size);
    *size_p = size;
    return MPI_SUCCESS;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    IBEX_ENTER_COMM(Cart_create, comm_old, c);
    IBEX_ARGS(Cart_create, comm_cart);
    *comm_cart = MPI_COMM_NULL; /* what an erroneous call leaves there */
    long size;
    IBEX_CHECK(check_grid(c, call, ndims, dims, periods, &size));
    cart_spec_t s = {ndims, dims, periods};
    if (!reorder || size < 2)
        return ibex_topo_comm_create(c, (int)size, IBEX_TOPO_KEEP_RANKS, make_cart, &s, call,
                                     comm_cart);
    ibex_topo_graph_t *g = ibex_topo_graph_of_cart(ndims, dims, periods);
    int rc = ibex_topo_comm_create(c, (int)size, g, make_cart, &s, call, comm_cart);
    ibex_topo_graph_free(g);
    return rc;
}

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    IBEX_ENTER_COMM(Cart_map, comm, c);
    IBEX_ARGS(Cart_map, newrank);
    long size;
    IBEX_CHECK(check_grid(c, call, ndims, dims, periods, &size));
    if (c->rank >= size) {
        *newrank = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    ibex_topo_graph_t *g = ibex_topo_graph_of_cart(ndims, dims, periods);
    return ibex_topo_map(c, g, call, newrank);
}

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    IBEX_ENTER_COMM(Cartdim_get, comm, c);
    IBEX_ARGS(Cartdim_get, ndims);
    const ibex_topo_t *t = ibex_topo_need(c, MPI_CART, call);
    if (!t)
        return MPI_ERR_TOPOLOGY;
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    IBEX_ENTER_COMM(Cart_get, comm, c);
    const ibex_topo_t *t = ibex_topo_need(c, MPI_CART, call);
    if (!t)
        return MPI_ERR_TOPOLOGY;
    int n = maxdims < t->ndims ? maxdims : t->ndims;
    if (n < 0)
        return IBEX_ERROR(MPI_ERR_ARG, "maxdims %d is negative", maxdims);
    IBEX_CHECK(ibex_topo_check_array(c, call, dims, n, "dims"));
    IBEX_CHECK(ibex_topo_check_array(c, call, periods, n, "periods"));
    IBEX_CHECK(ibex_topo_check_array(c, call, coords, n, "coords"));
    for (int i = 0; i < n; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = t->coords[i];
    }
    return MPI_SUCCESS;
}

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    IBEX_ENTER_COMM(Cart_rank, comm, c);
    IBEX_ARGS(Cart_rank, rank);
    const ibex_topo_t *t = ibex_topo_need(c, MPI_CART, call);
    if (!t)
        return MPI_ERR_TOPOLOGY;
    IBEX_CHECK(ibex_topo_check_array(c, call, coords, t->ndims, "coords"));
    int r = ibex_topo_cart_rank(t, coords);
    if (r < 0) {
        for (int i = 0; i < t->ndims; i++)
            if (!t->periods[i] && (coords[i] < 0 || coords[i] >= t->dims[i]))
                return IBEX_ERROR(MPI_ERR_ARG,
                                  "coords[%d] = %d is outside 0..%d of a non-periodic dimension", i,
                                  coords[i], t->dims[i] - 1);
    }
    *rank = r;
    return MPI_SUCCESS;
}

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    IBEX_ENTER_COMM(Cart_coords, comm, c);
    const ibex_topo_t *t = ibex_topo_need(c, MPI_CART, call);
    if (!t)
        return MPI_ERR_TOPOLOGY;
    if (rank < 0 || rank >= c->size)
        return IBEX_ERROR(MPI_ERR_RANK, "rank %d is not in a grid of %d", rank, c->size);
    if (maxdims < t->ndims)
        return IBEX_ERROR(MPI_ERR_ARG, "maxdims %d is less than the %d dimensions", maxdims,
                          t->ndims);
    IBEX_CHECK(ibex_topo_check_array(c, call, coords, t->ndims, "coords"));
    ibex_topo_cart_coords(t, rank, coords);
    return MPI_SUCCESS;
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    IBEX_ENTER_COMM(Cart_shift, comm, c);
    IBEX_ARGS(Cart_shift, rank_source, rank_dest);
    const ibex_topo_t *t = ibex_topo_need(c, MPI_CART, call);
    if (!t)
        return MPI_ERR_TOPOLOGY;
    if (direction < 0 || direction >= t->ndims)
        return IBEX_ERROR(MPI_ERR_ARG, "direction %d is not a dimension (0..%d)", direction,
                          t->ndims - 1);
    ibex_topo_cart_shift(t, direction, disp, rank_source, rank_dest);
    return MPI_SUCCESS;
}

/* Cart_sub: the sub-grid of the kept dimensions through this process. */
typedef struct sub_spec {
    int ndims;
    int *dims, *periods;
} sub_spec_t;

static ibex_topo_t *make_sub(const void *arg, int new_rank)
{
    const sub_spec_t *s = arg;
    return ibex_topo_cart_new(s->ndims, s->dims, s->periods, new_rank);
}

/* World ranks of the sub-grid through this process, in rank order (its new ranks). */
static int sub_members(const ibex_topo_t *t, ibex_comm_t *c, const int *remain, int *world)
{
    int n = 0, coords[t->ndims > 0 ? t->ndims : 1];
    for (int r = 0; r < c->size; r++) {
        ibex_topo_cart_coords(t, r, coords);
        bool same = true;
        for (int i = 0; i < t->ndims && same; i++)
            same = remain[i] || coords[i] == t->coords[i];
        if (same)
            world[n++] = ibex_comm_world_rank(c, r);
    }
    return n;
}

static int cart_sub(ibex_comm_t *c, const ibex_topo_t *t, const int *remain, const char *call,
                    MPI_Comm *newcomm)
{
    int *ints = malloc((size_t)(2 * t->ndims + c->size + 1) * sizeof(int));
    if (!ints)
        return ibex_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory");
    sub_spec_t s = {0, ints, ints + t->ndims};
    for (int i = 0; i < t->ndims; i++)
        if (remain[i]) {
            s.dims[s.ndims] = t->dims[i];
            s.periods[s.ndims++] = t->periods[i];
        }
    int *world = ints + 2 * t->ndims;
    ibex_group_t *g = ibex_group_from_world(world, sub_members(t, c, remain, world));
    int rc = create_with_topo(c, g, make_sub, &s, call, newcomm);
    if (!g && rc == MPI_SUCCESS)
        rc = ibex_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory for the group");
    ibex_group_release(g);
    free(ints);
    return rc;
}

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    IBEX_ENTER_COMM(Cart_sub, comm, c);
    IBEX_ARGS(Cart_sub, newcomm);
    const ibex_topo_t *t = ibex_topo_need(c, MPI_CART, call);
    if (!t)
        return MPI_ERR_TOPOLOGY;
    IBEX_CHECK(ibex_topo_check_array(c, call, remain_dims, t->ndims, "remain_dims"));
    return cart_sub(c, t, remain_dims, call, newcomm);
}

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    IBEX_ENTER_COMM(Topo_test, comm, c);
    IBEX_ARGS(Topo_test, status);
    const ibex_topo_t *t = ibex_topo_of(c);
    *status = t ? t->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(topo_cart)
