/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pingpong: the benchmark of point-to-point speed between ranks 0 and 1 (standard MPI, so the
 * same source builds with any MPI for side-by-side runs).
 *   latency:   half the round trip of a ping-pong, median of `reps` repetitions
 *   bandwidth: a window of non-blocking sends then a one-int reply, MB/s
 * Usage: pingpong [-i iterations] [-w window] [size ...]   (sizes like 8 4k 64k 1m)
 * Output: one line per size: "lat SIZE USEC" and "bw SIZE MBPS".
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
        v <<= 10;
    else if (*end == 'm' || *end == 'M')
        v <<= 20;
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double latency_us(int rank, char *buf, long n, int iters)
{
    enum { REPS = 5 };
    double t[REPS];
    for (int r = 0; r < REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                MPI_Send(buf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        }
        t[r] = (MPI_Wtime() - t0) * 1e6 / (2.0 * iters);
    }
    qsort(t, REPS, sizeof(double), cmp_double);
    return t[REPS / 2];
}

static double bandwidth_mbs(int rank, char *buf, long n, int iters, int window)
{
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)window);
    int ack = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        for (int w = 0; w < window; w++) {
            if (rank == 0)
                MPI_Isend(buf, (int)n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &reqs[w]);
            else if (rank == 1)
                MPI_Irecv(buf, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &reqs[w]);
        }
        if (rank <= 1)
            MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
        if (rank == 0)
            MPI_Recv(&ack, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else if (rank == 1)
            MPI_Send(&ack, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
    double secs = MPI_Wtime() - t0;
    free(reqs);
    return (double)n * window * iters / secs / 1e6;
}

int main(int argc, char **argv)
{
    int rank, size, iters = 0, window = 16;
    long sizes[32];
    int nsizes = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-i") == 0 && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc)
            window = atoi(argv[++i]);
        else if (nsizes < 32)
            sizes[nsizes++] = parse_size(argv[i]);
    }
    if (nsizes == 0) {
        long defaults[] = {8, 4096, 65536, 1 << 20};
        memcpy(sizes, defaults, sizeof(defaults));
        nsizes = 4;
    }
    if (size < 2) {
        fprintf(stderr, "pingpong needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long max = 0;
    for (int s = 0; s < nsizes; s++)
        max = sizes[s] > max ? sizes[s] : max;
    char *buf = malloc((size_t)max + 1);
    memset(buf, 1, (size_t)max + 1);
    for (int s = 0; s < nsizes; s++) {
        long n = sizes[s];
        int it = iters ? iters : (n <= 65536 ? 2000 : 200);
        latency_us(rank, buf, n, it / 10 + 1); /* warm-up */
        double lat = latency_us(rank, buf, n, it);
        double bw = bandwidth_mbs(rank, buf, n, n >= (1 << 20) ? 20 : 100, window);
        if (rank == 0)
            printf("lat %ld %.3f\nbw %ld %.1f\n", n, lat, n, bw);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
