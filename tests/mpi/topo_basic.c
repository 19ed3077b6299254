/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Process topologies and neighbourhood collectives at any number of ranks: Cartesian (periodic
 * and not, including a periodic dimension of size 2, where both neighbours are one process),
 * graph and distributed-graph (adjacent and general, weighted and not) communicators, their
 * queries against values computed here, Comm_dup and Cart_sub, every neighbourhood collective
 * (blocking, non-blocking and persistent) against a reference, and the error classes of bad
 * arguments. Standard MPI only.
 */
#include "mpitest.h"

static int rank, size;

/* Row-major coordinates of r in dims. */
static void ref_coords(int ndims, const int *dims, int r, int *coords)
{
    for (int i = ndims - 1; i >= 0; i--) {
        coords[i] = r % dims[i];
        r /= dims[i];
    }
}

static int ref_rank(int ndims, const int *dims, const int *periods, const int *coords)
{
    int r = 0;
    for (int i = 0; i < ndims; i++) {
        int c = coords[i];
        if (c < 0 || c >= dims[i]) {
            if (!periods[i])
                return MPI_PROC_NULL;
            c = ((c % dims[i]) + dims[i]) % dims[i];
        }
        r = r * dims[i] + c;
    }
    return r;
}

static void check_cart_queries(MPI_Comm cart, int ndims, const int *dims, const int *periods)
{
    int status, nd, me, d[4], p[4], c[4], rc[4];
    CHECK_RC(MPI_Topo_test(cart, &status));
    CHECK(status == MPI_CART);
    CHECK_RC(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == ndims);
    CHECK_RC(MPI_Comm_rank(cart, &me));
    CHECK_RC(MPI_Cart_get(cart, 4, d, p, c));
    ref_coords(ndims, dims, me, rc);
    for (int i = 0; i < ndims; i++)
        CHECK(d[i] == dims[i] && (p[i] != 0) == (periods[i] != 0) && c[i] == rc[i]);
    int n;
    CHECK_RC(MPI_Comm_size(cart, &n));
    for (int r = 0; r < n; r++) {
        int back;
        CHECK_RC(MPI_Cart_coords(cart, r, 4, c));
        CHECK_RC(MPI_Cart_rank(cart, c, &back));
        CHECK(back == r);
    }
    for (int dim = 0; dim < ndims; dim++)
        for (int disp = -2; disp <= 2; disp++) {
            int src, dst, cc[4];
            CHECK_RC(MPI_Cart_shift(cart, dim, disp, &src, &dst));
            ref_coords(ndims, dims, me, cc);
            cc[dim] += disp;
            CHECK(dst == ref_rank(ndims, dims, periods, cc));
            cc[dim] -= 2 * disp;
            CHECK(src == ref_rank(ndims, dims, periods, cc));
        }
}

/* Neighbour lists of this process by the MPI definition of each topology. */
static int neighbours(MPI_Comm comm, int *in, int *out, int *nin, int *nout)
{
    int status;
    CHECK_RC(MPI_Topo_test(comm, &status));
    if (status == MPI_CART) {
        int nd;
        CHECK_RC(MPI_Cartdim_get(comm, &nd));
        for (int d = 0; d < nd; d++) {
            CHECK_RC(MPI_Cart_shift(comm, d, 1, &in[2 * d], &in[2 * d + 1]));
            out[2 * d] = in[2 * d];
            out[2 * d + 1] = in[2 * d + 1];
        }
        *nin = *nout = 2 * nd;
    } else if (status == MPI_GRAPH) {
        int me;
        CHECK_RC(MPI_Comm_rank(comm, &me));
        CHECK_RC(MPI_Graph_neighbors_count(comm, me, nin));
        CHECK_RC(MPI_Graph_neighbors(comm, me, *nin, in));
        memcpy(out, in, (size_t)*nin * sizeof(int));
        *nout = *nin;
    } else {
        int weighted;
        CHECK_RC(MPI_Dist_graph_neighbors_count(comm, nin, nout, &weighted));
        CHECK_RC(
            MPI_Dist_graph_neighbors(comm, *nin, in, MPI_UNWEIGHTED, *nout, out, MPI_UNWEIGHTED));
    }
    return status;
}

/* The slot of `me` among the neighbours of `peer` that corresponds to my k-th in-neighbour:
 * peer's out-block that lands in my slot k. Computed with peer's own lists, which every
 * process can derive for Cartesian and graph topologies; for distributed graphs the test
 * sends (sender, block index) in the data itself instead. */
#define VAL(sender, block) ((sender)*1000 + (block))

/* How check_neighbor_colls runs each collective: 0 blocking, 1 MPI_Ineighbor_* + MPI_Wait,
 * 2 MPI_Neighbor_*_init started twice (the receive buffer's first `reset` ints set back to -1
 * between the starts, so the second start must write them again). */
static int nbr_mode;

#define RUN_NBR(NAME, reset, ...)                                                                  \
    do {                                                                                           \
        MPI_Request rq_;                                                                           \
        if (nbr_mode == 0) {                                                                       \
            CHECK_RC(MPI_Neighbor_##NAME(__VA_ARGS__));                                            \
        } else if (nbr_mode == 1) {                                                                \
            CHECK_RC(MPI_Ineighbor_##NAME(__VA_ARGS__, &rq_));                                     \
            CHECK_RC(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                                           \
        } else {                                                                                   \
            CHECK_RC(MPI_Neighbor_##NAME##_init(__VA_ARGS__, MPI_INFO_NULL, &rq_));                \
            CHECK_RC(MPI_Start(&rq_));                                                             \
            CHECK_RC(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                                           \
            for (int z_ = 0; z_ < (reset); z_++)                                                   \
                rbuf[z_] = -1;                                                                     \
            CHECK_RC(MPI_Start(&rq_));                                                             \
            CHECK_RC(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                                           \
            CHECK_RC(MPI_Request_free(&rq_));                                                      \
        }                                                                                          \
    } while (0)

/* Every neighbour collective on comm: each send block i carries VAL(me, i) (so misplaced
 * blocks show), each receive slot starts as -1 (PROC_NULL slots must stay so). */
static void check_neighbor_mode(MPI_Comm comm)
{
    int in[64], out[64], nin, nout, me;
    int kind = neighbours(comm, in, out, &nin, &nout);
    CHECK_RC(MPI_Comm_rank(comm, &me));
    int sbuf[64 * 3], rbuf[64 * 3];

    /* allgather: slot k holds in[k]'s value */
    int mine = VAL(me, 999);
    for (int k = 0; k < nin; k++)
        rbuf[k] = -1;
    RUN_NBR(allgather, nin, &mine, 1, MPI_INT, rbuf, 1, MPI_INT, comm);
    for (int k = 0; k < nin; k++)
        CHECK(rbuf[k] == (in[k] == MPI_PROC_NULL ? -1 : VAL(in[k], 999)));

    /* alltoall: block i to out[i]; slot k from in[k] holds the block in[k] addressed to me in
     * the position matching k. We check the sender, and that the block index the sender used
     * is one of its out-positions naming me (exact position for Cartesian: see below). */
    for (int i = 0; i < nout; i++)
        sbuf[i] = VAL(me, i);
    for (int k = 0; k < nin; k++)
        rbuf[k] = -1;
    RUN_NBR(alltoall, nin, sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, comm);
    for (int k = 0; k < nin; k++) {
        if (in[k] == MPI_PROC_NULL) {
            CHECK(rbuf[k] == -1);
            continue;
        }
        CHECK(rbuf[k] / 1000 == in[k]);
        if (kind == MPI_CART) /* from my -1 neighbour: its +1 block, and vice versa */
            CHECK(rbuf[k] % 1000 == (k ^ 1));
    }

    /* alltoallv: block i has i + 1 ints, laid out backwards with gaps */
    int sc[64], sd[64], rcnt[64], rd[64], pos = 0;
    for (int i = nout - 1; i >= 0; i--) {
        sc[i] = 1 + (i % 3);
        sd[i] = pos;
        for (int j = 0; j < sc[i]; j++)
            sbuf[pos + j] = VAL(me, i);
        pos += sc[i] + 1;
    }
    /* the count of my slot k is the count of the sender's block: its index (Cart: k ^ 1) */
    pos = 0;
    for (int k = 0; k < nin; k++) {
        rcnt[k] = kind == MPI_CART ? 1 + ((k ^ 1) % 3) : 1;
        rd[k] = pos;
        pos += rcnt[k];
    }
    if (kind != MPI_CART) /* graphs: one int per block */
        for (int i = 0; i < nout; i++)
            sc[i] = 1;
    for (int j = 0; j < pos; j++)
        rbuf[j] = -1;
    RUN_NBR(alltoallv, pos, sbuf, sc, sd, MPI_INT, rbuf, rcnt, rd, MPI_INT, comm);
    for (int k = 0; k < nin; k++)
        for (int j = 0; j < rcnt[k]; j++)
            CHECK(in[k] == MPI_PROC_NULL ? rbuf[rd[k] + j] == -1 : rbuf[rd[k] + j] / 1000 == in[k]);

    /* allgatherv: slot k at displacement 2 k (gaps stay -1) */
    int rc1[64], rdv[64];
    for (int k = 0; k < nin; k++) {
        rc1[k] = 1;
        rdv[k] = 2 * k;
        rbuf[2 * k] = rbuf[2 * k + 1] = -1;
    }
    RUN_NBR(allgatherv, 2 * nin, &mine, 1, MPI_INT, rbuf, rc1, rdv, MPI_INT, comm);
    for (int k = 0; k < nin; k++)
        CHECK(rbuf[2 * k + 1] == -1 &&
              rbuf[2 * k] == (in[k] == MPI_PROC_NULL ? -1 : VAL(in[k], 999)));

    /* alltoallw: byte displacements, mixed types (int and a pair of ints as MPI_2INT) */
    int swc[64], rwc[64];
    MPI_Aint swd[64], rwd[64];
    MPI_Datatype st[64], rt[64];
    for (int i = 0; i < nout; i++) {
        swc[i] = 1;
        swd[i] = (MPI_Aint)(i * 2 * sizeof(int));
        st[i] = MPI_2INT;
        sbuf[2 * i] = VAL(me, i);
        sbuf[2 * i + 1] = -VAL(me, i);
    }
    for (int k = 0; k < nin; k++) {
        rwc[k] = 2;
        rwd[k] = (MPI_Aint)(k * 2 * sizeof(int));
        rt[k] = MPI_INT;
        rbuf[2 * k] = rbuf[2 * k + 1] = -1;
    }
    RUN_NBR(alltoallw, 2 * nin, sbuf, swc, swd, st, rbuf, rwc, rwd, rt, comm);
    for (int k = 0; k < nin; k++)
        if (in[k] == MPI_PROC_NULL)
            CHECK(rbuf[2 * k] == -1 && rbuf[2 * k + 1] == -1);
        else
            CHECK(rbuf[2 * k] / 1000 == in[k] && rbuf[2 * k + 1] == -rbuf[2 * k]);
}

/* Every neighbourhood collective, blocking, non-blocking and persistent. */
static void check_neighbor_colls(MPI_Comm comm)
{
    for (nbr_mode = 0; nbr_mode < 3; nbr_mode++)
        check_neighbor_mode(comm);
}

static void test_cart(int ndims, const int *dims, const int *periods)
{
    MPI_Comm cart, dup;
    int n = 1;
    for (int i = 0; i < ndims; i++)
        n *= dims[i];
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart));
    if (rank >= n) {
        CHECK(cart == MPI_COMM_NULL);
        return;
    }
    CHECK(cart != MPI_COMM_NULL);
    check_cart_queries(cart, ndims, dims, periods);
    CHECK_RC(MPI_Comm_dup(cart, &dup));
    check_cart_queries(dup, ndims, dims, periods);
    check_neighbor_colls(dup);
    check_neighbor_colls(cart);
    if (ndims >= 2) { /* keep the last dimension */
        int remain[4] = {0}, sub_size, sub_rank, c[4];
        remain[ndims - 1] = 1;
        MPI_Comm sub;
        CHECK_RC(MPI_Cart_sub(cart, remain, &sub));
        CHECK_RC(MPI_Comm_size(sub, &sub_size));
        CHECK_RC(MPI_Comm_rank(sub, &sub_rank));
        ref_coords(ndims, dims, rank, c);
        CHECK(sub_size == dims[ndims - 1] && sub_rank == c[ndims - 1]);
        check_cart_queries(sub, 1, &dims[ndims - 1], &periods[ndims - 1]);
        check_neighbor_colls(sub);
        CHECK_RC(MPI_Comm_free(&sub));
    }
    CHECK_RC(MPI_Comm_free(&dup));
    CHECK_RC(MPI_Comm_free(&cart));
}

static void test_carts(void)
{
    int d1[1] = {size}, p1[1] = {1}, np1[1] = {0};
    test_cart(1, d1, p1);
    test_cart(1, d1, np1);
    if (size >= 2) { /* a periodic dimension of 2: both neighbours are one process */
        int d[2] = {2, size / 2}, p[2] = {1, 0};
        test_cart(2, d, p);
        int d3[3] = {1, size / 2, 2}, p3[3] = {1, 1, 1};
        test_cart(3, d3, p3);
    }
    if (size >= 3) { /* fewer processes than the communicator */
        int d[1] = {size - 1};
        test_cart(1, d, p1);
    }
    MPI_Comm zero; /* zero dimensions: a grid of one process */
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &zero));
    CHECK((rank == 0) == (zero != MPI_COMM_NULL));
    if (zero != MPI_COMM_NULL) {
        int s, nd;
        CHECK_RC(MPI_Comm_size(zero, &s));
        CHECK_RC(MPI_Cartdim_get(zero, &nd));
        CHECK(s == 1 && nd == 0);
        CHECK_RC(MPI_Comm_free(&zero));
    }
    int newrank;
    CHECK_RC(MPI_Cart_map(MPI_COMM_WORLD, 1, d1, p1, &newrank));
    CHECK(newrank >= 0 && newrank < size);
}

/* A ring graph (two edges per node when size >= 3) and a star. */
static void test_graph(void)
{
    int index[64], edges[128], ne = 0;
    for (int i = 0; i < size; i++) {
        if (size >= 2)
            edges[ne++] = (i + 1) % size;
        if (size >= 3)
            edges[ne++] = (i - 1 + size) % size;
        index[i] = ne;
    }
    MPI_Comm g;
    CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g));
    int status, nn, nedges, gi[64], ge[128];
    CHECK_RC(MPI_Topo_test(g, &status));
    CHECK(status == MPI_GRAPH);
    CHECK_RC(MPI_Graphdims_get(g, &nn, &nedges));
    CHECK(nn == size && nedges == ne);
    CHECK_RC(MPI_Graph_get(g, 64, 128, gi, ge));
    CHECK(memcmp(gi, index, (size_t)size * sizeof(int)) == 0);
    CHECK(memcmp(ge, edges, (size_t)ne * sizeof(int)) == 0);
    for (int r = 0; r < size; r++) {
        int cnt, nb[4];
        CHECK_RC(MPI_Graph_neighbors_count(g, r, &cnt));
        CHECK(cnt == index[r] - (r ? index[r - 1] : 0));
        CHECK_RC(MPI_Graph_neighbors(g, r, 4, nb));
        CHECK(memcmp(nb, edges + (r ? index[r - 1] : 0), (size_t)cnt * sizeof(int)) == 0);
    }
    check_neighbor_colls(g);
    CHECK_RC(MPI_Comm_free(&g));
}

static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Sorts n (rank, weight) pairs by rank: the order of MPI_Dist_graph_create's neighbours is the
 * implementation's. */
static void sort_pairs(int *r, int *w, int n)
{
    int p[2 * 64];
    for (int i = 0; i < n; i++) {
        p[2 * i] = r[i];
        p[2 * i + 1] = w ? w[i] : 0;
    }
    qsort(p, (size_t)n, 2 * sizeof(int), cmp_pair);
    for (int i = 0; i < n; i++) {
        r[i] = p[2 * i];
        if (w)
            w[i] = p[2 * i + 1];
    }
}

/* With `any_order` (MPI_Dist_graph_create) the lists are compared sorted; the adjacent form
 * keeps the order given. src / dst must then be sorted by rank. */
static void check_dist(MPI_Comm d, int nin, const int *src, const int *sw, int nout, const int *dst,
                       const int *dw, int weighted, int any_order)
{
    int in, out, w, s[64], sws[64], o[64], ows[64];
    CHECK_RC(MPI_Dist_graph_neighbors_count(d, &in, &out, &w));
    CHECK(in == nin && out == nout && (w != 0) == (weighted != 0));
    CHECK_RC(MPI_Dist_graph_neighbors(d, 64, s, sws, 64, o, ows));
    if (any_order) {
        sort_pairs(s, weighted ? sws : NULL, in);
        sort_pairs(o, weighted ? ows : NULL, out);
    }
    for (int i = 0; i < nin; i++)
        CHECK(s[i] == src[i] && (!weighted || sws[i] == sw[i]));
    for (int i = 0; i < nout; i++)
        CHECK(o[i] == dst[i] && (!weighted || ows[i] == dw[i]));
}

static void test_dist_graph(void)
{
    /* adjacent: my sources are rank - 1 and rank + 2, so my destinations rank + 1, rank - 2 */
    int src[2] = {(rank - 1 + size) % size, (rank + 2) % size};
    int dst[2] = {(rank + 1) % size, (rank - 2 + 2 * size) % size};
    int sw[2] = {10 * src[0] + rank, 10 * src[1] + rank};
    int dw[2] = {10 * rank + dst[0], 10 * rank + dst[1]};
    MPI_Comm d;
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw, MPI_INFO_NULL,
                                            0, &d));
    int status;
    CHECK_RC(MPI_Topo_test(d, &status));
    CHECK(status == MPI_DIST_GRAPH);
    check_dist(d, 2, src, sw, 2, dst, dw, 1, 0);
    check_neighbor_colls(d);
    CHECK_RC(MPI_Comm_free(&d));

    /* general, every edge named by rank 0: i -> i + 1 with weight i + 5 */
    int n = rank == 0 ? size : 0, sources[64], degrees[64], dests[64], weights[64];
    for (int i = 0; i < n; i++) {
        sources[i] = i;
        degrees[i] = 1;
        dests[i] = (i + 1) % size;
        weights[i] = i + 5;
    }
    CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests,
                                   n ? weights : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &d));
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    int lw = left + 5, rw = rank + 5;
    check_dist(d, 1, &left, &lw, 1, &right, &rw, 1, 1);
    check_neighbor_colls(d);
    CHECK_RC(MPI_Comm_free(&d));

    /* general, unweighted, each rank names its own out-edges to everyone */
    for (int i = 0; i < size; i++)
        dests[i] = i;
    int me = rank, deg = size;
    CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, &deg, dests, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &d));
    check_dist(d, size, dests, NULL, size, dests, NULL, 0, 1);
    check_neighbor_colls(d);
    CHECK_RC(MPI_Comm_free(&d));
}

static void test_errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm c = MPI_COMM_NULL;
    int cls, dims[2] = {size + 1, 1}, periods[2] = {0, 0}, x, y;
    MPI_Error_class(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c), &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY);
    dims[0] = -1;
    MPI_Error_class(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c), &cls);
    CHECK(cls == MPI_ERR_DIMS);
    MPI_Error_class(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &c), &cls);
    CHECK(cls == MPI_ERR_DIMS);
    MPI_Error_class(MPI_Cart_coords(MPI_COMM_WORLD, 0, 1, &x), &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY);
    MPI_Error_class(MPI_Graphdims_get(MPI_COMM_WORLD, &x, &y), &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY);
    MPI_Error_class(MPI_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, MPI_COMM_WORLD), &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY);
    int bad = size;
    MPI_Error_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad, MPI_UNWEIGHTED, 0, NULL,
                                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
                    &cls);
    CHECK(cls == MPI_ERR_RANK);
    CHECK(c == MPI_COMM_NULL);
    dims[0] = size;
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Error_class(MPI_Cart_shift(c, 1, 1, &x, &y), &cls);
    CHECK(cls == MPI_ERR_ARG);
    MPI_Error_class(MPI_Cart_coords(c, size, 1, &x), &cls);
    CHECK(cls == MPI_ERR_RANK);
    int far = size;
    MPI_Error_class(MPI_Cart_rank(c, &far, &x), &cls);
    CHECK(cls == MPI_ERR_ARG);
    MPI_Error_class(MPI_Neighbor_allgather(&x, -1, MPI_INT, &y, 1, MPI_INT, c), &cls);
    CHECK(cls == MPI_ERR_COUNT);
    MPI_Error_class(MPI_Neighbor_alltoall(&x, 1, MPI_DATATYPE_NULL, &y, 1, MPI_INT, c), &cls);
    CHECK(cls == MPI_ERR_TYPE);
    MPI_Error_class(MPI_Graph_neighbors_count(c, 0, &x), &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY);
    CHECK_RC(MPI_Comm_free(&c));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_carts();
    test_graph();
    test_dist_graph();
    test_errors();
    mt_done("topo_basic");
    MPI_Finalize();
    return 0;
}
