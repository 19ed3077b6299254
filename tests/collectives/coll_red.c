/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reduce-scatters and scans: Reduce_scatter, Reduce_scatter_block, Scan, Exscan (and
 * Reduce_local), with results against a reference folded here in rank order. Every predefined
 * op on int (MINLOC / MAXLOC on MPI_2INT, SUM / MAX on double), counts 0, 1, 7, one past the
 * eager limit and one past the 64 KiB inline slots, per-rank counts zero on some ranks,
 * MPI_IN_PLACE, a strided derived type, a non-commutative user op (2x2 matrix product, so rank
 * order matters) and the error classes under MPI_ERRORS_RETURN. Runs on MPI_COMM_WORLD and on a
 * Comm_split with reversed ranks, once per algorithm of each kind (forced). Any rank count >= 1.
 * Prints "coll_red: ok".
 */
#include <stdlib.h>
#include <unistd.h>

#include "coll_test.h"

static const int counts[] = {0, 1, 7, 3001, 20011}; /* 20011: past the 64 KiB inline slots */
#define NCOUNTS ((int)(sizeof(counts) / sizeof(counts[0])))
#define MAXC    20011

static const ibex_coll_kind_t kinds[] = {IBEX_COLL_REDUCE_SCATTER, IBEX_COLL_REDUCE_SCATTER_BLOCK,
                                         IBEX_COLL_SCAN, IBEX_COLL_EXSCAN};

/* Rank r's element i: small (products of 5 stay small), negative, zero and positive. */
static int x(int r, int i)
{
    return (r * 7 + i * 3) % 5 - 1;
}

static const MPI_Op int_ops[] = {MPI_SUM, MPI_PROD, MPI_MAX,  MPI_MIN, MPI_LAND,
                                 MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
#define NOPS ((int)(sizeof(int_ops) / sizeof(int_ops[0])))

/* a op b, the naive reference */
static int ref(MPI_Op op, int a, int b)
{
    if (op == MPI_SUM)
        return a + b;
    if (op == MPI_PROD)
        return a * b;
    if (op == MPI_MAX)
        return a > b ? a : b;
    if (op == MPI_MIN)
        return a < b ? a : b;
    if (op == MPI_LAND)
        return a && b;
    if (op == MPI_LOR)
        return a || b;
    if (op == MPI_LXOR)
        return !a != !b;
    if (op == MPI_BAND)
        return a & b;
    if (op == MPI_BOR)
        return a | b;
    return a ^ b;
}

/* x(0, i) op ... op x(last, i) */
static int fold(MPI_Op op, int last, int i)
{
    int acc = x(0, i);
    for (int r = 1; r <= last; r++)
        acc = ref(op, acc, x(r, i));
    return acc;
}

static void check_scan_ops(int *in, int *out)
{
    for (int o = 0; o < NOPS; o++)
        for (int c = 0; c < NCOUNTS; c++) {
            int n = counts[c];
            for (int i = 0; i < n; i++)
                in[i] = x(rank, i);
            fill(out, (size_t)n, -99);
            CHECK_OK(MPI_Scan(in, out, n, MPI_INT, int_ops[o], comm));
            for (int i = 0; i < n; i++)
                CHECK(out[i] == fold(int_ops[o], rank, i));
            fill(out, (size_t)n, -99);
            CHECK_OK(MPI_Exscan(in, out, n, MPI_INT, int_ops[o], comm));
            for (int i = 0; i < n; i++)
                CHECK(rank == 0 ? out[i] == -99 : out[i] == fold(int_ops[o], rank - 1, i));
            memcpy(out, in, sizeof(int) * (size_t)n);
            CHECK_OK(MPI_Scan(MPI_IN_PLACE, out, n, MPI_INT, int_ops[o], comm));
            for (int i = 0; i < n; i++)
                CHECK(out[i] == fold(int_ops[o], rank, i));
            memcpy(out, in, sizeof(int) * (size_t)n);
            CHECK_OK(MPI_Exscan(MPI_IN_PLACE, out, n, MPI_INT, int_ops[o], comm));
            for (int i = 0; rank > 0 && i < n; i++)
                CHECK(out[i] == fold(int_ops[o], rank - 1, i));
        }
}

/* Block b of the vector goes to rank b; element g of the whole vector reduces x(r, g). */
static void check_reduce_scatter(int *in, int *out)
{
    int rc[64];
    for (int o = 0; o < NOPS; o++)
        for (int c = 0; c < NCOUNTS; c++) {
            int total = 0, first = 0;
            for (int r = 0; r < size; r++) {
                rc[r] = counts[c] == 0 || r % 3 == 1 ? 0 : counts[c] / 2 + r;
                first += r < rank ? rc[r] : 0;
                total += rc[r];
            }
            for (int g = 0; g < total; g++)
                in[g] = x(rank, g);
            fill(out, (size_t)rc[rank] + 1, -99);
            CHECK_OK(MPI_Reduce_scatter(in, out, rc, MPI_INT, int_ops[o], comm));
            for (int i = 0; i < rc[rank]; i++)
                CHECK(out[i] == fold(int_ops[o], size - 1, first + i));
            CHECK(out[rc[rank]] == -99);
            CHECK_OK(MPI_Reduce_scatter(MPI_IN_PLACE, in, rc, MPI_INT, int_ops[o], comm));
            for (int i = 0; i < rc[rank]; i++)
                CHECK(in[i] == fold(int_ops[o], size - 1, first + i));
        }
}

static void check_reduce_scatter_block(int *in, int *out)
{
    for (int o = 0; o < NOPS; o++)
        for (int c = 0; c < NCOUNTS; c++) {
            int n = counts[c], first = rank * n;
            for (int g = 0; g < n * size; g++)
                in[g] = x(rank, g);
            fill(out, (size_t)n + 1, -99);
            CHECK_OK(MPI_Reduce_scatter_block(in, out, n, MPI_INT, int_ops[o], comm));
            for (int i = 0; i < n; i++)
                CHECK(out[i] == fold(int_ops[o], size - 1, first + i));
            CHECK(out[n] == -99);
            CHECK_OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, in, n, MPI_INT, int_ops[o], comm));
            for (int i = 0; i < n; i++)
                CHECK(in[i] == fold(int_ops[o], size - 1, first + i));
        }
}

/* MINLOC / MAXLOC on (value, index) pairs, and double SUM / MAX. */
static void check_loc_and_double(void)
{
    enum { N = 9 };
    struct {
        int v, i;
    } in[N * 64], out[N];
    double din[N], dout[N];
    for (int k = 0; k < N * size; k++)
        in[k].v = x(rank, k), in[k].i = rank;
    for (int k = 0; k < N; k++)
        din[k] = 0.5 * (rank + 1) * (k + 1);
    CHECK_OK(MPI_Scan(in, out, N, MPI_2INT, MPI_MINLOC, comm));
    for (int k = 0; k < N; k++) {
        int best = 0; /* lowest value, lowest rank on ties */
        for (int r = 1; r <= rank; r++)
            best = x(r, k) < x(best, k) ? r : best;
        CHECK(out[k].v == x(best, k) && out[k].i == best);
    }
    CHECK_OK(MPI_Reduce_scatter_block(in, out, N, MPI_2INT, MPI_MAXLOC, comm));
    for (int k = 0; k < N; k++) {
        int g = rank * N + k, best = 0;
        for (int r = 1; r < size; r++)
            best = x(r, g) > x(best, g) ? r : best;
        CHECK(out[k].v == x(best, g) && out[k].i == best);
    }
    CHECK_OK(MPI_Scan(din, dout, N, MPI_DOUBLE, MPI_SUM, comm));
    for (int k = 0; k < N; k++)
        CHECK(dout[k] == 0.5 * (rank + 1) * (rank + 2) / 2 * (k + 1));
    CHECK_OK(MPI_Exscan(din, rank ? dout : NULL, N, MPI_DOUBLE, MPI_MAX, comm)); /* rank 0: n. s. */
    for (int k = 0; rank > 0 && k < N; k++)
        CHECK(dout[k] == 0.5 * rank * (k + 1));
}

/* 2x2 matrices of unsigned (wrapping) ints: inout = in x inout, in is the left operand. */
static void matmul(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    (void)dt;
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

/* want = M(0, k) x ... x M(last, k) */
static void mat_fold(int last, int k, unsigned want[4])
{
    rank_matrix(0, k, want);
    for (int r = 1; r <= last; r++) {
        unsigned m[4];
        int one = 1;
        rank_matrix(r, k, m);
        matmul(want, m, &one, NULL);
        memcpy(want, m, sizeof(m));
    }
}

/* Scan and Exscan of KL matrices (16,000 bytes: past the two-rank pair limit), in place too. */
static void check_noncommutative_scans(MPI_Datatype mat, MPI_Op op)
{
    enum { KL = 1000 };
    static unsigned in[KL][4], out[KL][4];
    unsigned want[4];
    for (int inplace = 0; inplace < 2; inplace++) {
        for (int k = 0; k < KL; k++)
            rank_matrix(rank, k, inplace ? out[k] : in[k]);
        CHECK_OK(MPI_Scan(inplace ? MPI_IN_PLACE : in, out, KL, mat, op, comm));
        for (int k = 0; k < KL; k += 97) {
            mat_fold(rank, k, want);
            CHECK(memcmp(out[k], want, sizeof(want)) == 0);
        }
        for (int k = 0; k < KL; k++)
            rank_matrix(rank, k, inplace ? out[k] : in[k]);
        CHECK_OK(MPI_Exscan(inplace ? MPI_IN_PLACE : in, out, KL, mat, op, comm));
        for (int k = 0; rank > 0 && k < KL; k += 97) {
            mat_fold(rank - 1, k, want);
            CHECK(memcmp(out[k], want, sizeof(want)) == 0);
        }
    }
}

static void check_noncommutative(void)
{
    enum { K = 5 };
    MPI_Datatype mat;
    MPI_Op op;
    CHECK_OK(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat));
    CHECK_OK(MPI_Type_commit(&mat));
    CHECK_OK(MPI_Op_create(matmul, 0, &op));
    unsigned in[K * 64][4], out[K * 64][4], want[4];
    int rc[64];
    for (int k = 0; k < K * size; k++)
        rank_matrix(rank, k, in[k]);
    CHECK_OK(MPI_Scan(in, out, K, mat, op, comm));
    for (int k = 0; k < K; k++) {
        mat_fold(rank, k, want);
        CHECK(memcmp(out[k], want, sizeof(want)) == 0);
    }
    CHECK_OK(MPI_Exscan(in, out, K, mat, op, comm));
    for (int k = 0; rank > 0 && k < K; k++) {
        mat_fold(rank - 1, k, want);
        CHECK(memcmp(out[k], want, sizeof(want)) == 0);
    }
    check_noncommutative_scans(mat, op);
    CHECK_OK(MPI_Reduce_scatter_block(in, out, K, mat, op, comm));
    for (int k = 0; k < K; k++) {
        mat_fold(size - 1, rank * K + k, want);
        CHECK(memcmp(out[k], want, sizeof(want)) == 0);
    }
    int first = 0;
    for (int r = 0; r < size; r++) {
        rc[r] = r % 3 == 1 ? 0 : K - r % 2;
        first += r < rank ? rc[r] : 0;
    }
    CHECK_OK(MPI_Reduce_scatter(in, out, rc, mat, op, comm));
    for (int k = 0; k < rc[rank]; k++) {
        mat_fold(size - 1, first + k, want);
        CHECK(memcmp(out[k], want, sizeof(want)) == 0);
    }
    CHECK_OK(MPI_Op_free(&op));
    CHECK_OK(MPI_Type_free(&mat));
}

/* A strided type (every other int) with MPI_SUM: Scan and Reduce_scatter_block. */
static void check_red_derived(void)
{
    enum { N = 700 };
    MPI_Datatype every2;
    CHECK_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &every2));
    CHECK_OK(MPI_Type_commit(&every2));
    MPI_Aint lb, ext;
    CHECK_OK(MPI_Type_get_extent(every2, &lb, &ext));
    int stride = (int)(ext / (MPI_Aint)sizeof(int)); /* 2N - 1 */
    int *in = calloc((size_t)stride * (size_t)size + 2, sizeof(int));
    int *out = calloc((size_t)stride + 2, sizeof(int));
    for (int k = 0; k < stride * size; k++)
        in[k] = x(rank, k);
    fill(out, (size_t)stride + 2, -99);
    CHECK_OK(MPI_Scan(in, out, 1, every2, MPI_SUM, comm));
    for (int k = 0; k < stride + 2; k++)
        CHECK(out[k] == (k % 2 || k >= stride ? -99 : fold(MPI_SUM, rank, k)));
    fill(out, (size_t)stride + 2, -99);
    CHECK_OK(MPI_Reduce_scatter_block(in, out, 1, every2, MPI_SUM, comm));
    for (int k = 0; k < stride + 2; k++)
        CHECK(out[k] == (k % 2 || k >= stride ? -99 : fold(MPI_SUM, size - 1, rank * stride + k)));
    free(in);
    free(out);
    CHECK_OK(MPI_Type_free(&every2));
}

static void check_red_errors(void)
{
    int a[64] = {0}, b[64] = {0}, rc[64], neg[64];
    double d = 1.0, e = 0.0;
    for (int r = 0; r < size; r++)
        rc[r] = 1, neg[r] = r == size - 1 ? -1 : 1;
    CHECK(MPI_Scan(a, b, 1, MPI_INT, MPI_OP_NULL, comm) == MPI_ERR_OP);
    CHECK(MPI_Exscan(&d, &e, 1, MPI_DOUBLE, MPI_BXOR, comm) == MPI_ERR_OP);
    CHECK(MPI_Scan(a, b, -1, MPI_INT, MPI_SUM, comm) == MPI_ERR_COUNT);
    CHECK(MPI_Scan(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, comm) == MPI_ERR_TYPE);
    CHECK(MPI_Scan(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, comm) == MPI_ERR_BUFFER);
    CHECK(MPI_Scan(a, NULL, 1, MPI_INT, MPI_SUM, comm) == MPI_ERR_BUFFER);
    /* Exscan's recvbuf is not significant at rank 0 (unless in place) */
    CHECK_OK(MPI_Exscan(a, NULL, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF));
    CHECK(MPI_Exscan(MPI_IN_PLACE, NULL, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF) == MPI_ERR_BUFFER);
    CHECK(MPI_Reduce_scatter(a, b, NULL, MPI_INT, MPI_SUM, comm) == MPI_ERR_ARG);
    CHECK(MPI_Reduce_scatter(a, b, neg, MPI_INT, MPI_SUM, comm) == MPI_ERR_COUNT);
    CHECK(MPI_Reduce_scatter(a, b, rc, MPI_INT, MPI_OP_NULL, comm) == MPI_ERR_OP);
    CHECK(MPI_Reduce_scatter_block(a, b, -2, MPI_INT, MPI_SUM, comm) == MPI_ERR_COUNT);
    CHECK(MPI_Reduce_scatter_block(a, b, 1, MPI_FLOAT, MPI_BOR, comm) == MPI_ERR_OP);
    CHECK(MPI_Reduce_scatter_block(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL) == MPI_ERR_COMM);
    CHECK(MPI_Reduce_local(a, b, 1, MPI_DOUBLE, MPI_BAND) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(a, b, -1, MPI_INT, MPI_SUM) == MPI_ERR_COUNT);
}

/* Reduce_local: inoutbuf = inbuf op inoutbuf, with the non-commutative order checked too. */
static void check_reduce_local(void)
{
    int in[7], io[7];
    for (int o = 0; o < NOPS; o++) {
        for (int i = 0; i < 7; i++)
            in[i] = x(1, i), io[i] = x(2, i);
        CHECK_OK(MPI_Reduce_local(in, io, 7, MPI_INT, int_ops[o]));
        for (int i = 0; i < 7; i++)
            CHECK(io[i] == ref(int_ops[o], x(1, i), x(2, i)));
    }
}

static void run_all(int *in, int *out)
{
    check_scan_ops(in, out);
    check_reduce_scatter(in, out);
    check_reduce_scatter_block(in, out);
    check_loc_and_double();
    check_noncommutative();
    check_red_derived();
    check_red_errors();
}

int main(int argc, char **argv)
{
    alarm(200);
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int nk = (int)(sizeof(kinds) / sizeof(kinds[0])), wrank, wsize;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
    int *in = malloc(sizeof(int) * (size_t)MAXC * (size_t)wsize * 2);
    int *out = malloc(sizeof(int) * (size_t)MAXC * 2);
    MPI_Comm split = coll_reordered();
    check_reduce_local();
    for (int v = 0; v < coll_rounds(kinds, nk); v++) {
        coll_force_round(kinds, nk, v, "coll_red");
        coll_use(MPI_COMM_WORLD);
        run_all(in, out);
        coll_use(split);
        run_all(in, out);
    }
    free(in);
    free(out);
    CHECK_OK(MPI_Comm_free(&split));
    CHECK_OK(MPI_Finalize());
    if (wrank == 0)
        printf("coll_red: ok\n");
    return 0;
}
