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

static const kind_t kinds[] = {
    {"barrier", 0, 0, 0, barrier_prepare, barrier_start, barrier_check},
    {"bcast", 1, 0, 0, bcast_prepare, bcast_start, bcast_check},
    {"reduce", 1, 1, 1, reduce_prepare, reduce_start, reduce_check},
    {"allreduce", 0, 1, 1, reduce_prepare, allreduce_start, allreduce_check},
    {"gather", 1, 1, 0, gather_prepare, gather_start, gather_check},
    {"scatter", 1, 1, 0, scatter_prepare, scatter_start, scatter_check},
    {"allgather", 0, 1, 0, gather_prepare, allgather_start, blocks_check},
    {"alltoall", 0, 1, 0, alltoall_prepare, alltoall_start, alltoall_check},
};
static const int nkinds = (int)(sizeof(kinds) / sizeof(kinds[0]));
