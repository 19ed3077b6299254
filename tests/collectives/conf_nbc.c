/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What MPICH's nonblocking, nonblocking2, nonblocking3, p_* and the error tests of test/mpi/coll
 * check beyond single calls: every non-blocking collective in flight at once on one
 * communicator (and a second one), completed in reverse order or by Testall polling with
 * point-to-point traffic in between; NULL buffers with zero counts; persistent collectives
 * started several times with new data, and several at once with MPI_Startall; a struct type with
 * a gap and a negative lower bound in Bcast / Allgather / Alltoall / Gather; MPI_COMM_SELF; the
 * large-count forms (MPI 4.0); error classes under MPI_ERRORS_RETURN (MPI_ERR_ROOT, MPI_ERR_COUNT,
 * MPI_ERR_TYPE, MPI_ERR_OP, MPI_ERR_COMM, MPI_ERR_BUFFER).
 */
#include "conf_test.h"

static int rank, size;

#define NK 17
/* All 17 kinds started on comm, results checked after the caller completes them. */
typedef struct {
    int n;
    int *sb, *rb[NK];
    int *cnt, *dsp;
} batch_t;

static int *iarr(int n, int v)
{
    int *b = conf_alloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i <= n; i++)
        b[i] = v;
    return b;
}

static void batch_start(batch_t *b, MPI_Comm comm, int n, MPI_Request *req)
{
    b->n = n;
    b->sb = iarr(size * n, 0);
    for (int i = 0; i < size * n; i++)
        b->sb[i] = rank * 1000 + i;
    for (int k = 0; k < NK; k++)
        b->rb[k] = iarr(size * n, -1);
    b->cnt = iarr(size, n);
    b->dsp = iarr(size, 0);
    for (int j = 0; j < size; j++)
        b->dsp[j] = j * n;
    for (int i = 0; i < n; i++)
        b->rb[1][i] = rank == 0 ? i * 7 : -1;
    MPI_Ibarrier(comm, &req[0]);
    MPI_Ibcast(b->rb[1], n, MPI_INT, 0, comm, &req[1]);
    MPI_Ireduce(b->sb, b->rb[2], n, MPI_INT, MPI_SUM, size - 1, comm, &req[2]);
    MPI_Iallreduce(b->sb, b->rb[3], n, MPI_INT, MPI_MAX, comm, &req[3]);
    MPI_Igather(b->sb, n, MPI_INT, b->rb[4], n, MPI_INT, 0, comm, &req[4]);
    MPI_Iscatter(b->sb, n, MPI_INT, b->rb[5], n, MPI_INT, size - 1, comm, &req[5]);
    MPI_Iallgather(b->sb, n, MPI_INT, b->rb[6], n, MPI_INT, comm, &req[6]);
    MPI_Ialltoall(b->sb, n, MPI_INT, b->rb[7], n, MPI_INT, comm, &req[7]);
    MPI_Igatherv(b->sb, n, MPI_INT, b->rb[8], b->cnt, b->dsp, MPI_INT, 0, comm, &req[8]);
    MPI_Iscatterv(b->sb, b->cnt, b->dsp, MPI_INT, b->rb[9], n, MPI_INT, 0, comm, &req[9]);
    MPI_Iallgatherv(b->sb, n, MPI_INT, b->rb[10], b->cnt, b->dsp, MPI_INT, comm, &req[10]);
    MPI_Ialltoallv(b->sb, b->cnt, b->dsp, MPI_INT, b->rb[11], b->cnt, b->dsp, MPI_INT, comm,
                   &req[11]);
    MPI_Ireduce_scatter(b->sb, b->rb[12], b->cnt, MPI_INT, MPI_SUM, comm, &req[12]);
    MPI_Ireduce_scatter_block(b->sb, b->rb[13], n, MPI_INT, MPI_SUM, comm, &req[13]);
    MPI_Iscan(b->sb, b->rb[14], n, MPI_INT, MPI_SUM, comm, &req[14]);
    MPI_Iexscan(b->sb, b->rb[15], n, MPI_INT, MPI_SUM, comm, &req[15]);
    {
        static MPI_Datatype ty[64];
        static int bd[64];
        for (int j = 0; j < size && j < 64; j++) {
            ty[j] = MPI_INT;
            bd[j] = j * n * (int)sizeof(int);
        }
        MPI_Ialltoallw(b->sb, b->cnt, bd, ty, b->rb[16], b->cnt, bd, ty, comm, &req[16]);
    }
}

static int sum_ranks(int upto, int i)
{
    return 1000 * upto * (upto - 1) / 2 + upto * i;
}

static void batch_check(batch_t *b, const char *what)
{
    int n = b->n, i, j, bad = -1;

    for (i = 0; i < n && bad < 0; i++) {
        if (b->rb[1][i] != i * 7)
            bad = 1;
        else if (rank == size - 1 && b->rb[2][i] != sum_ranks(size, i))
            bad = 2;
        else if (b->rb[3][i] != (size - 1) * 1000 + i)
            bad = 3;
        else if (b->rb[5][i] != (size - 1) * 1000 + rank * n + i)
            bad = 5;
        else if (b->rb[9][i] != rank * n + i)
            bad = 9;
        else if (b->rb[13][i] != sum_ranks(size, rank * n + i))
            bad = 13;
        else if (b->rb[12][i] != sum_ranks(size, rank * n + i))
            bad = 12;
        else if (b->rb[14][i] != sum_ranks(rank + 1, i))
            bad = 14;
        else if (rank > 0 && b->rb[15][i] != sum_ranks(rank, i))
            bad = 15;
    }
    for (j = 0; j < size && bad < 0; j++)
        for (i = 0; i < n && bad < 0; i++) {
            if (rank == 0 &&
                (b->rb[4][j * n + i] != j * 1000 + i || b->rb[8][j * n + i] != j * 1000 + i))
                bad = 4;
            else if (b->rb[6][j * n + i] != j * 1000 + i || b->rb[10][j * n + i] != j * 1000 + i)
                bad = 6;
            else if (b->rb[7][j * n + i] != j * 1000 + rank * n + i ||
                     b->rb[11][j * n + i] != j * 1000 + rank * n + i ||
                     b->rb[16][j * n + i] != j * 1000 + rank * n + i)
                bad = 7;
        }
    CHECK(bad < 0, "%s n %d: collective %d of the batch (0 Ibarrier .. 16 Ialltoallw) wrong", what,
          n, bad);
    free(b->sb);
    for (int k = 0; k < NK; k++)
        free(b->rb[k]);
    free(b->cnt);
    free(b->dsp);
}

/* Two batches on two communicators at once, completed in reverse order / by Testall while a
 * ring exchange runs on the world. */
static void t_many(void)
{
    MPI_Comm c2;
    MPI_Request r1[NK], r2[NK], p[2];
    batch_t b1, b2;
    int flag = 0, in = -1, out = rank, spins = 0;

    MPI_Comm_dup(MPI_COMM_WORLD, &c2);
    for (int n = 0; n <= 3000; n = n ? n * 30 : 1) {
        batch_start(&b1, MPI_COMM_WORLD, n, r1);
        batch_start(&b2, c2, n + 1, r2);
        MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &p[0]);
        MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD, &p[1]);
        for (int k = NK - 1; k >= 0; k--)
            MPI_Wait(&r1[k], MPI_STATUS_IGNORE);
        while (!flag) {
            MPI_Testall(NK, r2, &flag, MPI_STATUSES_IGNORE);
            spins++;
        }
        flag = 0;
        MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
        CHECK(in == (rank + size - 1) % size, "ring message beside the collectives: %d", in);
        batch_check(&b1, "batch on world, waited in reverse");
        batch_check(&b2, "batch on a dup, Testall");
    }
    MPI_Comm_free(&c2);
}

/* nonblocking2: zero counts with NULL buffers everywhere a buffer would be. */
static void t_null(void)
{
    MPI_Request r[8];
    int *zc = iarr(size, 0);

    MPI_Ibcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Ireduce(NULL, NULL, 0, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Iallreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[2]);
    MPI_Igather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD, &r[3]);
    MPI_Iallgather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD, &r[4]);
    MPI_Ialltoall(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD, &r[5]);
    /* MPICH 4.0 calls two NULL buffers aliased */
    MPI_Ialltoallv(CONF_NONROOT_BUF(zc), zc, zc, MPI_INT, CONF_NONROOT_BUF(zc + 1), zc, zc, MPI_INT,
                   MPI_COMM_WORLD, &r[6]);
    MPI_Ireduce_scatter(NULL, NULL, zc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[7]);
    MPI_Waitall(8, r, MPI_STATUSES_IGNORE);
    MPI_Bcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(NULL, NULL, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(NULL, NULL, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(zc);
}

/* A struct {int; gap; double} resized to lb -8: every type map entry is displaced, the gap and
 * the area below the start must not be written. */
typedef struct {
    double pad; /* what lies below the buffer's start: lb is -8 */
    int i;
    int gap;
    double d;
} rec_t;

static MPI_Datatype rec_type(void)
{
    MPI_Datatype s, r;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE};

    MPI_Type_create_struct(2, bl, disp, ts, &s);
    MPI_Type_create_resized(s, -8, (MPI_Aint)sizeof(rec_t), &r);
    MPI_Type_commit(&r);
    MPI_Type_free(&s);
    return r;
}

static void rec_set(rec_t *r, int n, int v)
{
    for (int k = 0; k < n; k++) {
        r[k].pad = -1.5;
        r[k].gap = -3;
        r[k].i = v < 0 ? -1 : v + k;
        r[k].d = v < 0 ? -1.0 : (double)(v * 2 + k);
    }
}

static int rec_ok(const rec_t *r, int n, int v)
{
    for (int k = 0; k < n; k++)
        if (r[k].pad != -1.5 || r[k].gap != -3 || r[k].i != v + k || r[k].d != (double)(v * 2 + k))
            return 0;
    return 1;
}

static void t_struct(void)
{
    MPI_Datatype t = rec_type();
    int n = 50;
    rec_t *a = conf_alloc(sizeof(rec_t) * n), *b = conf_alloc(sizeof(rec_t) * n * size);
    /* the buffer argument is the address of the int, 8 bytes into each record (lb -8) */
#define AT(p) ((char *)(p) + 8)

    for (int root = 0; root < size; root++) {
        rec_set(a, n, rank == root ? 100 * root : -1);
        MPI_Bcast(AT(a), n, t, root, MPI_COMM_WORLD);
        CHECK(rec_ok(a, n, 100 * root), "Bcast of a struct type with lb -8, root %d", root);
        rec_set(a, n, rank * 1000);
        rec_set(b, n * size, -1);
        MPI_Gather(AT(a), n, t, AT(b), n, t, root, MPI_COMM_WORLD);
        for (int j = 0; rank == root && j < size; j++)
            CHECK(rec_ok(b + j * n, n, j * 1000), "Gather of a struct type, root %d block %d", root,
                  j);
    }
    rec_set(b, n * size, -1);
    MPI_Allgather(AT(a), n, t, AT(b), n, t, MPI_COMM_WORLD);
    for (int j = 0; j < size; j++)
        CHECK(rec_ok(b + j * n, n, j * 1000), "Allgather of a struct type, block %d", j);
    rec_t *s = conf_alloc(sizeof(rec_t) * size);
    rec_t *r = conf_alloc(sizeof(rec_t) * size);
    for (int j = 0; j < size; j++)
        rec_set(s + j, 1, rank * 10 + j);
    rec_set(r, size, -1);
    MPI_Alltoall(AT(s), 1, t, AT(r), 1, t, MPI_COMM_WORLD);
    for (int j = 0; j < size; j++)
        CHECK(rec_ok(r + j, 1, j * 10 + rank), "Alltoall of a struct type, block %d", j);
    /* Ibcast of the same, so the schedule path sees the displaced type too */
    MPI_Request q;
    rec_set(a, n, rank == 0 ? 77 : -1);
    MPI_Ibcast(AT(a), n, t, 0, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    CHECK(rec_ok(a, n, 77), "Ibcast of a struct type with lb -8");
#undef AT
    free(a);
    free(b);
    free(s);
    free(r);
    MPI_Type_free(&t);
}

/* p_*: persistent collectives started several times with new data, and a Startall of several. */
static void t_persistent(void)
{
#if MPI_VERSION >= 4
    MPI_Request r[4];
    int v, sum = -1, bc = -1, *g = iarr(size, -1), sc = -1;

    MPI_Allreduce_init(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Bcast_init(&bc, 1, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    MPI_Allgather_init(&v, 1, MPI_INT, g, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]);
    MPI_Exscan_init(&v, &sc, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[3]);
    for (int it = 1; it <= 4; it++) {
        v = rank * it;
        bc = rank == size - 1 ? it * 11 : -1;
        if (it % 2)
            MPI_Startall(4, r);
        else
            for (int k = 0; k < 4; k++)
                MPI_Start(&r[k]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        CHECK(sum == it * size * (size - 1) / 2, "persistent Allreduce start %d: %d", it, sum);
        CHECK(bc == it * 11, "persistent Bcast start %d: %d", it, bc);
        for (int j = 0; j < size; j++)
            CHECK(g[j] == j * it, "persistent Allgather start %d block %d: %d", it, j, g[j]);
        CHECK(rank == 0 || sc == it * rank * (rank - 1) / 2, "persistent Exscan start %d: %d", it,
              sc);
    }
    for (int k = 0; k < 4; k++)
        MPI_Request_free(&r[k]);
    free(g);
#endif
}

static void t_self(void)
{
    int a[3] = {1, 2, 3}, b[3] = {0, 0, 0};

    MPI_Allreduce(a, b, 3, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    CHECK(b[0] == 1 && b[2] == 3, "Allreduce on MPI_COMM_SELF");
    MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_SELF);
    CHECK(b[0] == 1, "Alltoall on MPI_COMM_SELF");
    MPI_Exscan(a, b, 3, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    MPI_Scan(a, b, 3, MPI_INT, MPI_PROD, MPI_COMM_SELF);
    CHECK(b[1] == 2, "Scan on MPI_COMM_SELF");
}

/* The large-count forms (MPI 4.0) with ordinary counts. */
static void t_large_forms(void)
{
#if MPI_VERSION >= 4
    MPI_Count c = 5, *cnt = conf_alloc(sizeof(MPI_Count) * size);
    MPI_Aint *dsp = conf_alloc(sizeof(MPI_Aint) * size);
    int *s = iarr(5 * size, 0), *r = iarr(5 * size, -1);

    for (int i = 0; i < 5 * size; i++)
        s[i] = rank * 100 + i;
    for (int j = 0; j < size; j++) {
        cnt[j] = 5;
        dsp[j] = (MPI_Aint)(5 * (size - 1 - j));
    }
    MPI_Allreduce_c(s, r, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(r[4] == 100 * size * (size - 1) / 2 + 4 * size, "MPI_Allreduce_c: %d", r[4]);
    MPI_Alltoallv_c(s, cnt, dsp, MPI_INT, r, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
    for (int j = 0; j < size; j++)
        CHECK(r[5 * (size - 1 - j)] == j * 100 + 5 * (size - 1 - rank),
              "MPI_Alltoallv_c block %d: %d", j, r[5 * (size - 1 - j)]);
    MPI_Bcast_c(s, c, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(s[3] == 3, "MPI_Bcast_c: %d", s[3]);
    free(cnt);
    free(dsp);
    free(s);
    free(r);
#endif
}

static void expect(int err, int cls, const char *what)
{
    int got = MPI_SUCCESS;

    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &got);
    CHECK(got == cls, "%s: error class %d, expected %d", what, got, cls);
}

static void t_errors(void)
{
    int a[4] = {0}, b[4 * 64];
    MPI_Request q;
    MPI_Comm inter, half;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    expect(MPI_Bcast(a, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT, "Bcast root = size");
    expect(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD), MPI_ERR_ROOT,
           "Reduce root -1");
    expect(MPI_Ibcast(a, 1, MPI_INT, size, MPI_COMM_WORLD, &q), MPI_ERR_ROOT, "Ibcast root = size");
    expect(MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT,
           "Allreduce count -1");
    expect(MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
           "Bcast MPI_DATATYPE_NULL");
    expect(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP,
           "Allreduce MPI_OP_NULL");
    expect(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "Barrier MPI_COMM_NULL");
    expect(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, &q), MPI_ERR_COMM,
           "Iallreduce MPI_COMM_NULL");
#ifndef CONF_PEER /* Open MPI 4.1 answers MPI_ERR_ARG */
    expect(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "Bcast MPI_IN_PLACE");
#endif
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#ifdef CONF_PEER /* Open MPI 4.1 crashes in Exscan on an intercommunicator */
    return;
#endif
    if (size < 2)
        return;
    /* Scan / Exscan are not defined on intercommunicators (MPI 4.1 6.11, 6.2.2) */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 9, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    expect(MPI_Scan(a, b, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM,
           "Scan on an intercommunicator");
    expect(MPI_Exscan(a, b, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM,
           "Exscan on an intercommunicator");
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t_many();
    t_null();
    t_struct();
    t_persistent();
    t_self();
    t_large_forms();
    t_errors();
    return conf_finish("conf_nbc");
}
