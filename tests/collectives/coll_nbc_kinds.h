/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_nbc.c's collectives: for each kind, how to fill the buffers for iteration c->it, start
 * it (non-blocking or persistent) and check the result against the reference. Included once. */

typedef struct kind {
    const char *name;
    int rooted, inplace, reduction;
    void (*prepare)(ctx_t *c);
    int (*start)(ctx_t *c, int persistent, MPI_Request *req);
    void (*check)(ctx_t *c);
} kind_t;

#define SENTINEL(c, buf, n) fill_const(c, buf, n)
static void fill_const(const ctx_t *c, int *buf, int n)
{
    for (int i = 0; i < n * stride(c); i++)
        buf[i] = -1;
}

static int is_root(const ctx_t *c)
{
    return c->rank == c->root;
}

static const void *sbuf_or_in_place(const ctx_t *c, int at_root_only)
{
    return c->inplace && (!at_root_only || is_root(c)) ? MPI_IN_PLACE : c->s;
}

/* ---- barrier ---- */
static void barrier_prepare(ctx_t *c)
{
    (void)c;
}
static int barrier_start(ctx_t *c, int p, MPI_Request *req)
{
    return p ? MPI_Barrier_init(c->comm, MPI_INFO_NULL, req) : MPI_Ibarrier(c->comm, req);
}
static void barrier_check(ctx_t *c)
{
    (void)c;
}

/* ---- bcast ---- */
static void bcast_prepare(ctx_t *c)
{
    if (is_root(c))
        fill(c, c->r, 0, c->count, c->root, 0);
    else
        SENTINEL(c, c->r, c->count);
}
static int bcast_start(ctx_t *c, int p, MPI_Request *req)
{
    MPI_Datatype dt = dt_of(c);
    return p ? MPI_Bcast_init(c->r, c->count, dt, c->root, c->comm, MPI_INFO_NULL, req)
             : MPI_Ibcast(c->r, c->count, dt, c->root, c->comm, req);
}
static void bcast_check(ctx_t *c)
{
    for (int i = 0; i < c->count; i++)
        CHECK(*el(c, c->r, i) == val(c->root, i, c->it));
}

/* ---- reduce / allreduce ---- */
static void reduce_prepare(ctx_t *c)
{
    fill(c, c->s, 0, c->count, c->rank, 0);
    if (c->inplace)
        fill(c, c->r, 0, c->count, c->rank, 0);
    else
        SENTINEL(c, c->r, c->count);
}
static int reduce_start(ctx_t *c, int p, MPI_Request *req)
{
    const void *s = sbuf_or_in_place(c, 1);
    MPI_Datatype dt = dt_of(c);
    return p ? MPI_Reduce_init(s, c->r, c->count, dt, op_of(c), c->root, c->comm, MPI_INFO_NULL,
                               req)
             : MPI_Ireduce(s, c->r, c->count, dt, op_of(c), c->root, c->comm, req);
}
static void reduce_check(ctx_t *c)
{
    for (int i = 0; is_root(c) && i < c->count; i++)
        expect_reduced(c, c->r, i, 0, c->size - 1, i);
}
static int allreduce_start(ctx_t *c, int p, MPI_Request *req)
{
    const void *s = sbuf_or_in_place(c, 0);
    MPI_Datatype dt = dt_of(c);
    return p ? MPI_Allreduce_init(s, c->r, c->count, dt, op_of(c), c->comm, MPI_INFO_NULL, req)
             : MPI_Iallreduce(s, c->r, c->count, dt, op_of(c), c->comm, req);
}
static void allreduce_check(ctx_t *c)
{
    for (int i = 0; i < c->count; i++)
        expect_reduced(c, c->r, i, 0, c->size - 1, i);
}

/* ---- gather / allgather ---- */
static void gather_prepare(ctx_t *c)
{
    fill(c, c->s, 0, c->count, c->rank, 0);
    SENTINEL(c, c->r, c->count * c->size);
    if (c->inplace)
        fill(c, c->r, c->rank * c->count, c->count, c->rank, 0);
}
static int gather_start(ctx_t *c, int p, MPI_Request *req)
{
    const void *s = sbuf_or_in_place(c, 1);
    MPI_Datatype dt = dt_of(c);
    int n = c->count;
    return p ? MPI_Gather_init(s, n, dt, c->r, n, dt, c->root, c->comm, MPI_INFO_NULL, req)
             : MPI_Igather(s, n, dt, c->r, n, dt, c->root, c->comm, req);
}
static void blocks_check(ctx_t *c)
{
    for (int j = 0; j < c->size; j++)
        for (int i = 0; i < c->count; i++)
            CHECK(*el(c, c->r, j * c->count + i) == val(j, i, c->it));
}
static void gather_check(ctx_t *c)
{
    if (is_root(c))
        blocks_check(c);
}
static int allgather_start(ctx_t *c, int p, MPI_Request *req)
{
    const void *s = sbuf_or_in_place(c, 0);
    MPI_Datatype dt = dt_of(c);
    int n = c->count;
    return p ? MPI_Allgather_init(s, n, dt, c->r, n, dt, c->comm, MPI_INFO_NULL, req)
             : MPI_Iallgather(s, n, dt, c->r, n, dt, c->comm, req);
}

/* ---- scatter ---- */
static void scatter_prepare(ctx_t *c)
{
    if (is_root(c))
        fill(c, c->s, 0, c->count * c->size, c->root, 0);
    SENTINEL(c, c->r, c->count);
}
static int scatter_start(ctx_t *c, int p, MPI_Request *req)
{
    void *r = c->inplace && is_root(c) ? MPI_IN_PLACE : c->r;
    MPI_Datatype dt = dt_of(c);
    int n = c->count;
    return p ? MPI_Scatter_init(c->s, n, dt, r, n, dt, c->root, c->comm, MPI_INFO_NULL, req)
             : MPI_Iscatter(c->s, n, dt, r, n, dt, c->root, c->comm, req);
}
static void scatter_check(ctx_t *c)
{
    int *got = c->inplace && is_root(c) ? el(c, c->s, c->rank * c->count) : c->r;
    for (int i = 0; i < c->count; i++)
        CHECK(*el(c, got, i) == val(c->root, c->rank * c->count + i, c->it));
}

/* ---- alltoall ---- */
static void alltoall_prepare(ctx_t *c)
{
    fill(c, c->s, 0, c->count * c->size, c->rank, 0);
    if (c->inplace)
        fill(c, c->r, 0, c->count * c->size, c->rank, 0);
    else
        SENTINEL(c, c->r, c->count * c->size);
}
static int alltoall_start(ctx_t *c, int p, MPI_Request *req)
{
    const void *s = sbuf_or_in_place(c, 0);
    MPI_Datatype dt = dt_of(c);
    int n = c->count;
    return p ? MPI_Alltoall_init(s, n, dt, c->r, n, dt, c->comm, MPI_INFO_NULL, req)
             : MPI_Ialltoall(s, n, dt, c->r, n, dt, c->comm, req);
}
static void alltoall_check(ctx_t *c)
{
    for (int j = 0; j < c->size; j++)
        for (int i = 0; i < c->count; i++)
            CHECK(*el(c, c->r, j * c->count + i) == val(j, c->rank * c->count + i, c->it));
}

/* ---- the vector forms: block j holds count + j % 2 elements, blocks laid out in reverse
 * order with gaps ---- */
static int vcount(const ctx_t *c, int j)
{
    return c->count + j % 2;
}
static int vdispl(const ctx_t *c, int j)
{
    return (c->size - 1 - j) * (c->count + 2);
}
static void v_arrays(ctx_t *c)
{
    for (int j = 0; j < c->size; j++) {
        c->rcounts[j] = c->scounts[j] = vcount(c, j);
        c->rdispls[j] = c->sdispls[j] = vdispl(c, j);
    }
}
static int vspan(const ctx_t *c)
{
    return c->size * (c->count + 2);
}

static void gatherv_prepare(ctx_t *c)
{
    v_arrays(c);
    fill(c, c->s, 0, vcount(c, c->rank), c->rank, 0);
    SENTINEL(c, c->r, vspan(c));
    if (c->inplace)
        fill(c, c->r, vdispl(c, c->rank), vcount(c, c->rank), c->rank, 0);
}
static int gatherv_start(ctx_t *c, int p, MPI_Request *req)
{
    const void *s = sbuf_or_in_place(c, 1);
    MPI_Datatype dt = dt_of(c);
    int n = vcount(c, c->rank);
    return p ? MPI_Gatherv_init(s, n, dt, c->r, c->rcounts, c->rdispls, dt, c->root, c->comm,
                                MPI_INFO_NULL, req)
             : MPI_Igatherv(s, n, dt, c->r, c->rcounts, c->rdispls, dt, c->root, c->comm, req);
}
static void vblocks_check(ctx_t *c)
{
    for (int j = 0; j < c->size; j++)
        for (int i = 0; i < vcount(c, j); i++)
            CHECK(*el(c, c->r, vdispl(c, j) + i) == val(j, i, c->it));
}
static void gatherv_check(ctx_t *c)
{
    if (is_root(c))
        vblocks_check(c);
}
static int allgatherv_start(ctx_t *c, int p, MPI_Request *req)
{
    const void *s = sbuf_or_in_place(c, 0);
    MPI_Datatype dt = dt_of(c);
    int n = vcount(c, c->rank);
    return p ? MPI_Allgatherv_init(s, n, dt, c->r, c->rcounts, c->rdispls, dt, c->comm,
                                   MPI_INFO_NULL, req)
             : MPI_Iallgatherv(s, n, dt, c->r, c->rcounts, c->rdispls, dt, c->comm, req);
}

static void scatterv_prepare(ctx_t *c)
{
    v_arrays(c);
    for (int j = 0; is_root(c) && j < c->size; j++)
        fill(c, c->s, vdispl(c, j), vcount(c, j), c->root, j * 2 * BIG);
    SENTINEL(c, c->r, vcount(c, c->rank));
}
static int scatterv_start(ctx_t *c, int p, MPI_Request *req)
{
    void *r = c->inplace && is_root(c) ? MPI_IN_PLACE : c->r;
    MPI_Datatype dt = dt_of(c);
    int n = vcount(c, c->rank);
    return p ? MPI_Scatterv_init(c->s, c->scounts, c->sdispls, dt, r, n, dt, c->root, c->comm,
                                 MPI_INFO_NULL, req)
             : MPI_Iscatterv(c->s, c->scounts, c->sdispls, dt, r, n, dt, c->root, c->comm, req);
}
static void scatterv_check(ctx_t *c)
{
    int *got = c->inplace && is_root(c) ? el(c, c->s, vdispl(c, c->rank)) : c->r;
    for (int i = 0; i < vcount(c, c->rank); i++)
        CHECK(*el(c, got, i) == val(c->root, c->rank * 2 * BIG + i, c->it));
}

/* Alltoallv: rank a sends count + (a + b) % 2 elements to b; element i of that block is
 * val(a, b * 2 BIG + i). Send blocks in reverse order, receive blocks in order. */
static int pcount(const ctx_t *c, int a, int b)
{
    return c->count + (a + b) % 2;
}
static void a2av_arrays(ctx_t *c)
{
    for (int j = 0; j < c->size; j++) {
        c->scounts[j] = c->rcounts[j] = pcount(c, c->rank, j);
        c->sdispls[j] = (c->size - 1 - j) * (c->count + 2);
        c->rdispls[j] = j * (c->count + 2);
    }
}
static void alltoallv_prepare(ctx_t *c)
{
    a2av_arrays(c);
    SENTINEL(c, c->r, vspan(c));
    for (int j = 0; j < c->size; j++) {
        fill(c, c->s, c->sdispls[j], c->scounts[j], c->rank, j * 2 * BIG);
        if (c->inplace)
            fill(c, c->r, c->rdispls[j], c->rcounts[j], c->rank, j * 2 * BIG);
    }
}
static int alltoallv_start(ctx_t *c, int p, MPI_Request *req)
{
    const void *s = sbuf_or_in_place(c, 0);
    MPI_Datatype dt = dt_of(c);
    return p ? MPI_Alltoallv_init(s, c->scounts, c->sdispls, dt, c->r, c->rcounts, c->rdispls, dt,
                                  c->comm, MPI_INFO_NULL, req)
             : MPI_Ialltoallv(s, c->scounts, c->sdispls, dt, c->r, c->rcounts, c->rdispls, dt,
                              c->comm, req);
}
static void alltoallv_check(ctx_t *c)
{
    for (int j = 0; j < c->size; j++)
        for (int i = 0; i < pcount(c, j, c->rank); i++)
            CHECK(*el(c, c->r, c->rdispls[j] + i) == val(j, c->rank * 2 * BIG + i, c->it));
}

/* Alltoallw: the blocks of Alltoallv, with the types alternating per peer between MPI_INT and
 * the strided type (send and receive sides differently) and displacements in bytes. */
static MPI_Datatype wtype(int send, int j)
{
    return (j % 2) == send ? strided : MPI_INT;
}
static int wstride(int send, int j)
{
    return wtype(send, j) == strided ? 2 : 1;
}
static void wfill(ctx_t *c, int *buf, int send, int j)
{
    int disp = (send ? c->sdispls[j] : c->rdispls[j]) / (int)sizeof(int);
    for (int i = 0; i < pcount(c, c->rank, j); i++)
        buf[disp + i * wstride(send, j)] = val(c->rank, j * 2 * BIG + i, c->it);
}
static void alltoallw_prepare(ctx_t *c)
{
    for (int j = 0; j < c->size; j++) {
        c->scounts[j] = c->rcounts[j] = pcount(c, c->rank, j);
        c->sdispls[j] = (c->size - 1 - j) * (c->count + 2) * 2 * (int)sizeof(int);
        c->rdispls[j] = j * (c->count + 2) * 2 * (int)sizeof(int);
        c->sdts[j] = wtype(1, j);
        c->rdts[j] = wtype(0, j);
        /* an empty block's type is never looked at (MPICH 4.0 trips on it in place) */
        if (c->scounts[j] == 0 && !c->inplace)
            c->sdts[j] = c->rdts[j] = MPI_DATATYPE_NULL;
    }
    for (int i = 0; i < 2 * vspan(c); i++)
        c->r[i] = -1;
    for (int j = 0; j < c->size; j++) {
        wfill(c, c->s, 1, j);
        if (c->inplace) /* in place: the receive types describe both sides */
            wfill(c, c->r, 0, j);
    }
}
static int alltoallw_start(ctx_t *c, int p, MPI_Request *req)
{
    const void *s = sbuf_or_in_place(c, 0);
    return p ? MPI_Alltoallw_init(s, c->scounts, c->sdispls, c->sdts, c->r, c->rcounts, c->rdispls,
                                  c->rdts, c->comm, MPI_INFO_NULL, req)
             : MPI_Ialltoallw(s, c->scounts, c->sdispls, c->sdts, c->r, c->rcounts, c->rdispls,
                              c->rdts, c->comm, req);
}
static void alltoallw_check(ctx_t *c)
{
    for (int j = 0; j < c->size; j++) {
        int disp = c->rdispls[j] / (int)sizeof(int);
        for (int i = 0; i < pcount(c, j, c->rank); i++)
            CHECK(c->r[disp + i * wstride(0, j)] == val(j, c->rank * 2 * BIG + i, c->it));
    }
}

/* ---- reduce_scatter (block j: count + j % 2 elements), reduce_scatter_block, scan ---- */
static int rs_total(const ctx_t *c, int block)
{
    int t = 0;
    for (int j = 0; j < c->size; j++)
        t += block ? c->count : vcount(c, j);
    return t;
}
static void rs_prepare_common(ctx_t *c, int block)
{
    for (int j = 0; j < c->size; j++)
        c->rcounts[j] = block ? c->count : vcount(c, j);
    int total = rs_total(c, block);
    fill(c, c->s, 0, total, c->rank, 0);
    if (c->inplace)
        fill(c, c->r, 0, total, c->rank, 0);
    else
        SENTINEL(c, c->r, total);
}
static void rs_prepare(ctx_t *c)
{
    rs_prepare_common(c, 0);
}
static void rsb_prepare(ctx_t *c)
{
    rs_prepare_common(c, 1);
}
static int rs_start(ctx_t *c, int p, MPI_Request *req)
{
    const void *s = sbuf_or_in_place(c, 0);
    MPI_Datatype dt = dt_of(c);
    return p ? MPI_Reduce_scatter_init(s, c->r, c->rcounts, dt, op_of(c), c->comm, MPI_INFO_NULL,
                                       req)
             : MPI_Ireduce_scatter(s, c->r, c->rcounts, dt, op_of(c), c->comm, req);
}
static int rsb_start(ctx_t *c, int p, MPI_Request *req)
{
    const void *s = sbuf_or_in_place(c, 0);
    MPI_Datatype dt = dt_of(c);
    return p ? MPI_Reduce_scatter_block_init(s, c->r, c->count, dt, op_of(c), c->comm,
                                             MPI_INFO_NULL, req)
             : MPI_Ireduce_scatter_block(s, c->r, c->count, dt, op_of(c), c->comm, req);
}
static void rs_check(ctx_t *c)
{
    int base = 0;
    for (int j = 0; j < c->rank; j++)
        base += c->rcounts[j];
    for (int i = 0; i < c->rcounts[c->rank]; i++)
        expect_reduced(c, c->r, i, 0, c->size - 1, base + i);
}
static int scan_start(ctx_t *c, int p, MPI_Request *req)
{
    const void *s = sbuf_or_in_place(c, 0);
    MPI_Datatype dt = dt_of(c);
    return p ? MPI_Scan_init(s, c->r, c->count, dt, op_of(c), c->comm, MPI_INFO_NULL, req)
             : MPI_Iscan(s, c->r, c->count, dt, op_of(c), c->comm, req);
}
static void scan_check(ctx_t *c)
{
    for (int i = 0; i < c->count; i++)
        expect_reduced(c, c->r, i, 0, c->rank, i);
}
static int exscan_start(ctx_t *c, int p, MPI_Request *req)
{
    const void *s = sbuf_or_in_place(c, 0);
    MPI_Datatype dt = dt_of(c);
    return p ? MPI_Exscan_init(s, c->r, c->count, dt, op_of(c), c->comm, MPI_INFO_NULL, req)
             : MPI_Iexscan(s, c->r, c->count, dt, op_of(c), c->comm, req);
}
static void exscan_check(ctx_t *c)
{
    for (int i = 0; c->rank > 0 && i < c->count; i++)
        expect_reduced(c, c->r, i, 0, c->rank - 1, i);
}

static const kind_t kinds[] = {
    {"barrier", 0, 0, 0, barrier_prepare, barrier_start, barrier_check},
    {"bcast", 1, 0, 0, bcast_prepare, bcast_start, bcast_check},
    {"reduce", 1, 1, 1, reduce_prepare, reduce_start, reduce_check},
    {"allreduce", 0, 1, 1, reduce_prepare, allreduce_start, allreduce_check},
    {"gather", 1, 1, 0, gather_prepare, gather_start, gather_check},
    {"scatter", 1, 1, 0, scatter_prepare, scatter_start, scatter_check},
    {"allgather", 0, 1, 0, gather_prepare, allgather_start, blocks_check},
    {"alltoall", 0, 1, 0, alltoall_prepare, alltoall_start, alltoall_check},
    {"gatherv", 1, 1, 0, gatherv_prepare, gatherv_start, gatherv_check},
    {"scatterv", 1, 1, 0, scatterv_prepare, scatterv_start, scatterv_check},
    {"allgatherv", 0, 1, 0, gatherv_prepare, allgatherv_start, vblocks_check},
    {"alltoallv", 0, 1, 0, alltoallv_prepare, alltoallv_start, alltoallv_check},
    {"alltoallw", 0, 1, 0, alltoallw_prepare, alltoallw_start, alltoallw_check},
    {"reduce_scatter", 0, 1, 1, rs_prepare, rs_start, rs_check},
    {"reduce_scatter_block", 0, 1, 1, rsb_prepare, rsb_start, rs_check},
    {"scan", 0, 1, 1, reduce_prepare, scan_start, scan_check},
    {"exscan", 0, 1, 1, reduce_prepare, exscan_start, exscan_check},
};
static const int nkinds = (int)(sizeof(kinds) / sizeof(kinds[0]));
