/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Deliberate hangs for the hang reports (tests/reliability/hang.sh), standard MPI only:
 *   ssend     ranks 0 and 1 MPI_Ssend to each other (head to head), the others wait in a barrier
 *   ring      every rank MPI_Ssend to the next: a cycle through all ranks
 *   missing   rank 0 receives from rank 1 (tag 7), which never sends and goes to MPI_Finalize
 *   mismatch  the last rank calls MPI_Bcast, the others MPI_Allreduce, on MPI_COMM_WORLD
 *   anysrc    rank 0 receives from MPI_ANY_SOURCE; rank 1 computes (sleeps) ARG s, then sends;
 *             the others wait in MPI_Waitany for rank 0
 *   anyknot   rank 0 receives from MPI_ANY_SOURCE, every other rank receives from rank 0: an
 *             OR-wait in a knot (a deadlock)
 *   compute   rank 0 receives from rank 1 (tag 7), which computes (sleeps) ARG s, then sends:
 *             not a deadlock, the job ends well
 *   poll      as compute, but rank 0 polls for the message with MPI_Test
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void hang_ssend(int rank, int size)
{
    int buf = rank, peer = rank ^ 1;
    if (rank < 2 && size >= 2)
        MPI_Ssend(&buf, 1, MPI_INT, peer, 7, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void hang_ring(int rank, int size)
{
    int buf = rank;
    MPI_Ssend(&buf, 1, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD);
}

static void hang_missing(int rank)
{
    int buf = 0;
    if (rank == 0)
        MPI_Recv(&buf, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void hang_mismatch(int rank, int size, int n)
{
    double *x = calloc((size_t)n, sizeof(double)), *y = calloc((size_t)n, sizeof(double));
    if (rank == size - 1)
        MPI_Bcast(x, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else
        MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    free(x);
    free(y);
}

static void hang_anyknot(int rank)
{
    int buf = 0;
    MPI_Recv(&buf, 1, MPI_INT, rank == 0 ? MPI_ANY_SOURCE : 0, 5, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
}

static void hang_poll(int rank, int secs)
{
    int buf = 42, got = 0, done = 0;
    if (rank == 1) {
        sleep((unsigned)secs);
        MPI_Send(&buf, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Request r;
        MPI_Irecv(&got, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &r);
        while (!done)
            MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        if (got != buf)
            MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

static void hang_compute(int rank, int secs, int anysrc)
{
    int buf = 42, got = 0;
    if (rank == 1) {
        sleep((unsigned)secs); /* "compute" */
        MPI_Send(&buf, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Recv(&got, 1, MPI_INT, anysrc ? MPI_ANY_SOURCE : 1, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        if (got != buf) {
            fprintf(stderr, "hang_prog: got %d, expected %d\n", got, buf);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
    if (rank >= 2) { /* an OR-wait on rank 0 that ends when rank 0 is done */
        MPI_Request r;
        int idx;
        MPI_Irecv(&got, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &r);
        MPI_Waitany(1, &r, &idx, MPI_STATUS_IGNORE);
    } else if (rank == 0) {
        int size;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        for (int p = 2; p < size; p++)
            MPI_Send(&buf, 1, MPI_INT, p, 9, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    int secs = argc > 2 ? atoi(argv[2]) : 5;
    if (strcmp(mode, "ssend") == 0)
        hang_ssend(rank, size);
    else if (strcmp(mode, "ring") == 0)
        hang_ring(rank, size);
    else if (strcmp(mode, "missing") == 0)
        hang_missing(rank);
    else if (strcmp(mode, "mismatch") == 0)
        hang_mismatch(rank, size, secs);
    else if (strcmp(mode, "poll") == 0)
        hang_poll(rank, secs);
    else if (strcmp(mode, "anyknot") == 0)
        hang_anyknot(rank);
    else if (strcmp(mode, "compute") == 0 || strcmp(mode, "anysrc") == 0)
        hang_compute(rank, secs, strcmp(mode, "anysrc") == 0);
    else {
        fprintf(
            stderr,
            "usage: hang_prog ssend|ring|missing|mismatch|anyknot|compute|anysrc|poll [SECS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    if (rank == 0)
        printf("hang_prog: ok\n");
    return 0;
}
