/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every collective (collectives/) with checked results: several counts (0, 1, 7, 1000 and one
 * past the eager limit), every root, MPI_IN_PLACE where allowed, a derived datatype, a
 * non-commutative user op (2x2 matrix product, so rank order matters) and the error classes
 * under MPI_ERRORS_RETURN. The suite runs once per algorithm variant: round v forces the
 * v-th algorithm of every collective (through ibex_coll_force, as IBEX_COLL_<KIND> would).
 * Any rank count >= 1. Prints "coll_all: ok" on rank 0.
 */
#include <string.h>
#include <unistd.h>

#include "coll.h"
#include "comm_check.h"

static int rank, size;
static const int counts[] = {0, 1, 7, 1000, 70000};
#define NCOUNTS ((int)(sizeof(counts) / sizeof(counts[0])))

/* A value no two (rank, index) pairs share. */
static int val(int r, int i)
{
    return r * 1000003 + i * 7 + 1;
}

/* The last rank enters late; nobody may leave before it entered. All ranks share one node,
 * so MPI_Wtime (CLOCK_MONOTONIC) is comparable across them. */
static void check_barrier(void)
{
    double entered = 0.0, left;
    for (int i = 0; i < 20; i++)
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == size - 1) {
        usleep(100000);
        entered = MPI_Wtime();
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    left = MPI_Wtime();
    CHECK_OK(MPI_Bcast(&entered, 1, MPI_DOUBLE, size - 1, MPI_COMM_WORLD));
    CHECK(left >= entered);
}

static void check_bcast(void)
{
    int *buf = malloc(sizeof(int) * 70000);
    for (int c = 0; c < NCOUNTS; c++)
        for (int root = 0; root < size; root++) {
            for (int i = 0; i < counts[c]; i++)
                buf[i] = rank == root ? val(root, i) : -1;
            CHECK_OK(MPI_Bcast(buf, counts[c], MPI_INT, root, MPI_COMM_WORLD));
            for (int i = 0; i < counts[c]; i++)
                CHECK(buf[i] == val(root, i));
        }
    free(buf);
}

static void check_reduce_sum(void)
{
    int n = 70000;
    int *in = malloc(sizeof(int) * n), *out = malloc(sizeof(int) * n);
    double *din = malloc(sizeof(double) * n), *dout = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        in[i] = rank + i;
        din[i] = 0.5 * rank + i;
    }
    for (int c = 0; c < NCOUNTS; c++) {
        int cnt = counts[c];
        for (int root = 0; root < size; root++) {
            memset(out, 0xff, sizeof(int) * (size_t)cnt);
            CHECK_OK(MPI_Reduce(in, out, cnt, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
            for (int i = 0; rank == root && i < cnt; i++)
                CHECK(out[i] == size * (size - 1) / 2 + size * i);
            CHECK_OK(MPI_Reduce(din, dout, cnt, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD));
            for (int i = 0; rank == root && i < cnt; i++)
                CHECK(dout[i] == 0.5 * (size - 1) + i);
            /* in place at the root */
            memcpy(out, in, sizeof(int) * (size_t)cnt);
            CHECK_OK(MPI_Reduce(rank == root ? MPI_IN_PLACE : in, out, cnt, MPI_INT, MPI_SUM, root,
                                MPI_COMM_WORLD));
            for (int i = 0; rank == root && i < cnt; i++)
                CHECK(out[i] == size * (size - 1) / 2 + size * i);
        }
        memset(out, 0xff, sizeof(int) * (size_t)cnt);
        CHECK_OK(MPI_Allreduce(in, out, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (int i = 0; i < cnt; i++)
            CHECK(out[i] == size * (size - 1) / 2 + size * i);
        memcpy(dout, din, sizeof(double) * (size_t)cnt);
        CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, dout, cnt, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        for (int i = 0; i < cnt; i++)
            CHECK(dout[i] == 0.5 * size * (size - 1) / 2 + (double)size * i);
    }
    free(in);
    free(out);
    free(din);
    free(dout);
}

/* 2x2 matrices of unsigned (wrapping) ints: inout = in x inout, in is the left operand. */
static void matmul(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    unsigned *a = invec, *b = inoutvec;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        unsigned c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                         a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof(c));
    }
}

static void rank_matrix(int r, int k, unsigned m[4])
{
    m[0] = (unsigned)(r + 2 + k);
    m[1] = 1;
    m[2] = (unsigned)(3 * r + 1);
    m[3] = (unsigned)k;
}

static void check_noncommutative(void)
{
    enum { K = 5 };
    MPI_Datatype mat;
    MPI_Op op;
    CHECK_OK(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat));
    CHECK_OK(MPI_Type_commit(&mat));
    CHECK_OK(MPI_Op_create(matmul, 0, &op));
    unsigned in[K][4], out[K][4], want[K][4];
    for (int k = 0; k < K; k++) {
        rank_matrix(rank, k, in[k]);
        rank_matrix(0, k, want[k]);
        for (int r = 1; r < size; r++) {
            unsigned m[4];
            int one = 1;
            rank_matrix(r, k, m);
            matmul(want[k], m, &one, NULL); /* m = want x m */
            memcpy(want[k], m, sizeof(m));
        }
    }
    for (int root = 0; root < size; root++) {
        memset(out, 0, sizeof(out));
        CHECK_OK(MPI_Reduce(in, out, K, mat, op, root, MPI_COMM_WORLD));
        CHECK(rank != root || memcmp(out, want, sizeof(want)) == 0);
    }
    memset(out, 0, sizeof(out));
    CHECK_OK(MPI_Allreduce(in, out, K, mat, op, MPI_COMM_WORLD));
    CHECK(memcmp(out, want, sizeof(want)) == 0);
    CHECK_OK(MPI_Op_free(&op));
    CHECK_OK(MPI_Type_free(&mat));
}

static void check_gather_scatter(void)
{
    int *mine = malloc(sizeof(int) * 70000), *all = malloc(sizeof(int) * 70000 * (size_t)size);
    for (int c = 0; c < NCOUNTS; c++) {
        int cnt = counts[c];
        for (int root = 0; root < size; root++) {
            for (int i = 0; i < cnt; i++)
                mine[i] = val(rank, i);
            memset(all, 0xff, sizeof(int) * (size_t)cnt * (size_t)size);
            CHECK_OK(MPI_Gather(mine, cnt, MPI_INT, all, cnt, MPI_INT, root, MPI_COMM_WORLD));
            for (int r = 0; rank == root && r < size; r++)
                for (int i = 0; i < cnt; i++)
                    CHECK(all[r * cnt + i] == val(r, i));
            /* in place at the root: its block is already in all */
            CHECK_OK(MPI_Gather(rank == root ? MPI_IN_PLACE : mine, cnt, MPI_INT, all, cnt, MPI_INT,
                                root, MPI_COMM_WORLD));
            for (int r = 0; rank == root && r < size; r++)
                for (int i = 0; i < cnt; i++)
                    CHECK(all[r * cnt + i] == val(r, i));
            /* scatter back what the root gathered */
            memset(mine, 0xff, sizeof(int) * (size_t)cnt);
            CHECK_OK(MPI_Scatter(all, cnt, MPI_INT, mine, cnt, MPI_INT, root, MPI_COMM_WORLD));
            for (int i = 0; i < cnt; i++)
                CHECK(mine[i] == val(rank, i));
            CHECK_OK(MPI_Scatter(all, cnt, MPI_INT, rank == root ? MPI_IN_PLACE : mine, cnt,
                                 MPI_INT, root, MPI_COMM_WORLD));
            for (int i = 0; rank != root && i < cnt; i++)
                CHECK(mine[i] == val(rank, i));
        }
    }
    free(mine);
    free(all);
}

static void check_allgather_alltoall(void)
{
    int n = 70000;
    int *mine = malloc(sizeof(int) * (size_t)n * (size_t)size);
    int *all = malloc(sizeof(int) * (size_t)n * (size_t)size);
    for (int c = 0; c < NCOUNTS; c++) {
        int cnt = counts[c];
        for (int i = 0; i < cnt; i++)
            mine[i] = val(rank, i);
        memset(all, 0xff, sizeof(int) * (size_t)cnt * (size_t)size);
        CHECK_OK(MPI_Allgather(mine, cnt, MPI_INT, all, cnt, MPI_INT, MPI_COMM_WORLD));
        for (int r = 0; r < size; r++)
            for (int i = 0; i < cnt; i++)
                CHECK(all[r * cnt + i] == val(r, i));
        memset(all, 0xff, sizeof(int) * (size_t)cnt * (size_t)size);
        memcpy(all + (size_t)rank * cnt, mine, sizeof(int) * (size_t)cnt);
        CHECK_OK(
            MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, cnt, MPI_INT, MPI_COMM_WORLD));
        for (int r = 0; r < size; r++)
            for (int i = 0; i < cnt; i++)
                CHECK(all[r * cnt + i] == val(r, i));
        /* alltoall: block for rank d holds val(rank * size + d, i) */
        for (int d = 0; d < size; d++)
            for (int i = 0; i < cnt; i++)
                mine[d * cnt + i] = val(rank * size + d, i);
        CHECK_OK(MPI_Alltoall(mine, cnt, MPI_INT, all, cnt, MPI_INT, MPI_COMM_WORLD));
        for (int s = 0; s < size; s++)
            for (int i = 0; i < cnt; i++)
                CHECK(all[s * cnt + i] == val(s * size + rank, i));
        CHECK_OK(
            MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, mine, cnt, MPI_INT, MPI_COMM_WORLD));
        CHECK(memcmp(mine, all, sizeof(int) * (size_t)cnt * (size_t)size) == 0);
    }
    free(mine);
    free(all);
}

/* A strided type on the root side: every other int of a 2n buffer. */
static void check_derived(void)
{
    enum { N = 300 };
    MPI_Datatype strided;
    CHECK_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &strided));
    CHECK_OK(MPI_Type_commit(&strided));
    int *buf = malloc(sizeof(int) * 2 * N), *flat = malloc(sizeof(int) * N * (size_t)size);
    for (int i = 0; i < 2 * N; i++)
        buf[i] = rank == 0 ? (i % 2 ? -7 : val(0, i / 2)) : -1;
    CHECK_OK(MPI_Bcast(buf, 1, strided, 0, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECK(buf[2 * i] == val(0, i) && (rank == 0 ? buf[2 * i + 1] == -7 : buf[2 * i + 1] == -1));
    /* gather strided sends into a flat buffer */
    for (int i = 0; i < N; i++)
        buf[2 * i] = val(rank, i);
    CHECK_OK(MPI_Gather(buf, 1, strided, flat, N, MPI_INT, size - 1, MPI_COMM_WORLD));
    for (int r = 0; rank == size - 1 && r < size; r++)
        for (int i = 0; i < N; i++)
            CHECK(flat[r * N + i] == val(r, i));
    free(buf);
    free(flat);
    CHECK_OK(MPI_Type_free(&strided));
}

static void check_errors(void)
{
    int x = 1, y = 0;
    double d = 1.0, e;
    CHECK(MPI_Bcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD) == MPI_ERR_ROOT);
    CHECK(MPI_Bcast(&x, 1, MPI_INT, -1, MPI_COMM_WORLD) == MPI_ERR_ROOT);
    CHECK(MPI_Bcast(&x, -1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_ERR_COUNT);
    CHECK(MPI_Bcast(&x, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
    CHECK(MPI_Bcast(NULL, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
    CHECK(MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_NULL) == MPI_ERR_COMM);
    CHECK(MPI_Barrier(MPI_COMM_NULL) == MPI_ERR_COMM);
    CHECK(MPI_Reduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD) == MPI_ERR_OP);
    CHECK(MPI_Allreduce(&d, &e, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD) == MPI_ERR_OP);
    CHECK(MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, size + 2, MPI_COMM_WORLD) == MPI_ERR_ROOT);
    CHECK(MPI_Gather(&x, 1, MPI_INT, &y, 1, MPI_INT, -3, MPI_COMM_WORLD) == MPI_ERR_ROOT);
    CHECK(MPI_Allgather(&x, -2, MPI_INT, &y, 1, MPI_INT, MPI_COMM_WORLD) == MPI_ERR_COUNT);
    MPI_Datatype uncommitted;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
    CHECK(MPI_Alltoall(&x, 1, uncommitted, &y, 1, MPI_INT, MPI_COMM_WORLD) == MPI_ERR_TYPE);
    CHECK_OK(MPI_Type_free(&uncommitted));
    CHECK(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
}

int main(int argc, char **argv)
{
    alarm(120);
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int rounds = 1;
    for (int k = 0; k < IBEX_COLL_KIND_COUNT; k++)
        rounds = ibex_coll_algo_count(k) > rounds ? ibex_coll_algo_count(k) : rounds;
    for (int v = 0; v < rounds; v++) {
        for (int k = 0; k < IBEX_COLL_KIND_COUNT; k++) {
            if (ibex_coll_algo_count(k) == 0)
                continue;
            const ibex_coll_algo_t *a = ibex_coll_algo_at(k, v % ibex_coll_algo_count(k));
            CHECK(a && ibex_coll_force(k, a->name) == IBEX_OK);
        }
        check_barrier();
        check_bcast();
        check_reduce_sum();
        check_noncommutative();
        check_gather_scatter();
        check_allgather_alltoall();
        check_derived();
        check_errors();
    }
    CHECK(ibex_coll_force(IBEX_COLL_BCAST, "no such algorithm") == IBEX_ERR_INVALID);
    for (int k = 0; k < IBEX_COLL_KIND_COUNT; k++)
        CHECK(ibex_coll_force(k, "auto") == IBEX_OK);
    /* a collective on a split communicator after all that, to see nothing was left over */
    MPI_Comm half;
    int sum = 0;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, 0, &half));
    CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half));
    int want = 0;
    for (int r = rank % 2; r < size; r += 2)
        want += r;
    CHECK(sum == want);
    CHECK_OK(MPI_Comm_free(&half));
    CHECK_OK(MPI_Finalize());
    if (rank == 0)
        printf("coll_all: ok\n");
    return 0;
}
