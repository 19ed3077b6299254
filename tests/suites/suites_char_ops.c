/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reductions on MPI_CHAR, as the OSU micro-benchmarks issue them by default (no -T):
 * osu_allreduce, osu_reduce (root fixed or rotating, -l: MPI_IN_PLACE at the root and the
 * receive buffer passed as the send buffer elsewhere), osu_iallreduce / osu_ireduce (start, probe
 * with MPI_Test, wait), osu_reduce_scatter (OSU's counts: the remainder spread over the first
 * ranks, one element each when there are fewer elements than ranks) and Reduce_scatter_block,
 * with MPI_SUM, and MPI_MAX / MPI_BXOR for the other groups. MPI_CHAR is not in the standard's
 * C integer group; Open MPI and MPICH reduce it as one, and Ibex does too (runtime/engine/op.c).
 * Every result is checked against the one computed here; the values stay within [-15, 15] so
 * that no sum over up to 8 ranks leaves the range of a char (Open MPI 4.1's vector ops saturate
 * char sums instead of wrapping them). The root's MPI_IN_PLACE is as OSU's -l has it; the
 * other ranks send their receive buffer but, unlike OSU, name another one as the (ignored)
 * receive buffer: MPI forbids aliased buffer arguments.
 *
 * Usage: suites_char_ops [MAX_BYTES] (default 65536). Standard MPI only.
 */
#include "mpitest.h"

static char val(int rank, int it, size_t i)
{
    return (char)((rank * 3 + it + (int)(i % 7)) % 31 - 15);
}

static char ref(MPI_Op op, int size, int it, size_t i)
{
    char r = val(0, it, i);
    for (int p = 1; p < size; p++) {
        char v = val(p, it, i);
        r = op == MPI_SUM ? (char)(r + v) : op == MPI_MAX ? (v > r ? v : r) : (char)(r ^ v);
    }
    return r;
}

static void fill(char *b, size_t n, int rank, int it)
{
    for (size_t i = 0; i < n; i++)
        b[i] = val(rank, it, i);
}

static void verify(const char *b, size_t first, size_t n, MPI_Op op, int size, int it)
{
    for (size_t i = 0; i < n; i++)
        CHECK(b[i] == ref(op, size, it, first + i));
}

/* osu_allreduce / osu_iallreduce: the i-form started, tested, waited for. */
static void allreduce(char *s, char *r, size_t n, MPI_Op op, int nb, int it)
{
    int rank, size, flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fill(s, n, rank, it);
    memset(r, 0, n);
    if (nb) {
        MPI_Request q;
        CHECK_RC(MPI_Iallreduce(s, r, (int)n, MPI_CHAR, op, MPI_COMM_WORLD, &q));
        CHECK_RC(MPI_Test(&q, &flag, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
        CHECK_RC(MPI_Allreduce(s, r, (int)n, MPI_CHAR, op, MPI_COMM_WORLD));
    }
    verify(r, 0, n, op, size, it);
}

/* osu_reduce with -k rotate and -l: the root in place, the others send their receive buffer. */
static void reduce(char *s, char *r, size_t n, int in_place, int nb, int it)
{
    int rank, size, root;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    root = it % size;
    char *src = in_place ? r : s, *dst = in_place && rank != root ? s : r;
    fill(src, n, rank, it);
    const void *sb = in_place && rank == root ? MPI_IN_PLACE : src;
    if (!in_place)
        memset(r, 0, n);
    if (nb) {
        MPI_Request q;
        CHECK_RC(MPI_Ireduce(sb, dst, (int)n, MPI_CHAR, MPI_SUM, root, MPI_COMM_WORLD, &q));
        CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
        CHECK_RC(MPI_Reduce(sb, dst, (int)n, MPI_CHAR, MPI_SUM, root, MPI_COMM_WORLD));
    }
    if (rank == root)
        verify(r, 0, n, MPI_SUM, size, it);
}

/* osu_reduce_scatter's counts for n elements over size ranks. */
static void osu_counts(int *counts, size_t n, int size)
{
    int portion = (int)n / size, rem = (int)n % size;
    for (int i = 0; i < size; i++)
        counts[i] = (size_t)size > n ? (i < (int)n ? 1 : 0) : portion + (i < rem ? 1 : 0);
}

static void reduce_scatter(char *s, char *r, size_t n, int it)
{
    int rank, size, counts[256];
    size_t first = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 256);
    osu_counts(counts, n, size);
    fill(s, n, rank, it);
    memset(r, 0, n);
    CHECK_RC(MPI_Reduce_scatter(s, r, counts, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
    for (int p = 0; p < rank; p++)
        first += (size_t)counts[p];
    verify(r, first, (size_t)counts[rank], MPI_SUM, size, it);
    int block = (int)(n / (size_t)size);
    if (block == 0)
        return;
    memset(r, 0, n);
    CHECK_RC(MPI_Reduce_scatter_block(s, r, block, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
    verify(r, (size_t)rank * (size_t)block, (size_t)block, MPI_SUM, size, it);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    size_t max = argc > 1 ? (size_t)atol(argv[1]) : 65536;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 8);
    char *s = malloc(max), *r = malloc(max);
    CHECK(s && r);
    int it = 0;
    for (size_t n = 1; n <= max; n *= 2, it++) {
        allreduce(s, r, n, MPI_SUM, 0, it);
        allreduce(s, r, n, MPI_SUM, 1, it);
        allreduce(s, r, n, MPI_MAX, 0, it);
        allreduce(s, r, n, MPI_BXOR, 1, it);
        for (int in_place = 0; in_place < 2; in_place++) {
            reduce(s, r, n, in_place, 0, it);
            reduce(s, r, n, in_place, 1, it);
        }
        reduce_scatter(s, r, n, it);
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    }
    free(s);
    free(r);
    mt_done("suites_char_ops");
    MPI_Finalize();
    return 0;
}
