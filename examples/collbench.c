/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Times collectives (standard MPI only, so it builds with any MPI's mpicc):
 *   collbench [-i iters] [-r reps] [op ...] [-- size ...]
 * ops: barrier bcast reduce allreduce allgather gather (default: allreduce bcast reduce barrier);
 * sizes in bytes per rank, with k / m suffixes (default: 8 64k 1m). For each op and size it runs
 * `reps` timed blocks of `iters` calls after a warm-up; a block's time per call is the slowest
 * rank's, and the line printed gives the median and the fastest block, in microseconds:
 *   <op> <ranks> <bytes> <median us> <min us>
 * Roots rotate over the ranks, so a rooted collective is not timed from one favoured root only.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long parse_size(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end == 'k' || *end == 'K')
        v *= 1024;
    else if (*end == 'm' || *end == 'M')
        v *= 1024 * 1024;
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void run_op(const char *op, int n, char *sb, char *rb, int it, MPI_Comm c)
{
    int size;
    MPI_Comm_size(c, &size);
    int root = it % size;
    int ints = n / (int)sizeof(int);
    if (strcmp(op, "barrier") == 0)
        MPI_Barrier(c);
    else if (strcmp(op, "bcast") == 0)
        MPI_Bcast(sb, n, MPI_BYTE, root, c);
    else if (strcmp(op, "reduce") == 0)
        MPI_Reduce(sb, rb, ints > 0 ? ints : 1, MPI_INT, MPI_SUM, root, c);
    else if (strcmp(op, "allreduce") == 0)
        MPI_Allreduce(sb, rb, ints > 0 ? ints : 1, MPI_INT, MPI_SUM, c);
    else if (strcmp(op, "allgather") == 0)
        MPI_Allgather(sb, n, MPI_BYTE, rb, n, MPI_BYTE, c);
    else if (strcmp(op, "gather") == 0)
        MPI_Gather(sb, n, MPI_BYTE, rb, n, MPI_BYTE, root, c);
}

static double time_block(const char *op, int n, char *sb, char *rb, int iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        run_op(op, n, sb, rb, i, MPI_COMM_WORLD);
    double t = (MPI_Wtime() - t0) / iters, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, iters = 0, reps = 7, nops = 0, nsizes = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *ops[16];
    long sizes[16];
    int in_sizes = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-i") == 0 && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--") == 0)
            in_sizes = 1;
        else if (in_sizes && nsizes < 16)
            sizes[nsizes++] = parse_size(argv[i]);
        else if (!in_sizes && nops < 16)
            ops[nops++] = argv[i];
    }
    if (nops == 0) {
        static const char *def[] = {"allreduce", "bcast", "reduce", "barrier"};
        memcpy(ops, def, sizeof(def));
        nops = 4;
    }
    if (nsizes == 0) {
        sizes[0] = 8, sizes[1] = 64 * 1024, sizes[2] = 1024 * 1024;
        nsizes = 3;
    }
    long maxn = 0;
    for (int s = 0; s < nsizes; s++)
        maxn = sizes[s] > maxn ? sizes[s] : maxn;
    char *sb = calloc((size_t)maxn * (size_t)size + 8, 1);
    char *rb = calloc((size_t)maxn * (size_t)size + 8, 1);
    double *t = malloc(sizeof(double) * (size_t)reps);
    for (int o = 0; o < nops; o++)
        for (int s = 0; s < nsizes; s++) {
            int n = strcmp(ops[o], "barrier") == 0 ? 0 : (int)sizes[s];
            if (strcmp(ops[o], "barrier") == 0 && s > 0)
                break;
            int it = iters > 0 ? iters : n <= 4096 ? 2000 : n <= 65536 ? 300 : 40;
            time_block(ops[o], n, sb, rb, it / 10 + 1); /* warm-up */
            for (int r = 0; r < reps; r++)
                t[r] = time_block(ops[o], n, sb, rb, it);
            qsort(t, (size_t)reps, sizeof(double), cmp_double);
            if (rank == 0)
                printf("%s %d %d %.3f %.3f\n", ops[o], size, n, t[reps / 2] * 1e6, t[0] * 1e6);
        }
    free(t);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
