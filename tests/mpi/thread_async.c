/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IBEX_ASYNC_PROGRESS: rank 0 starts a rendezvous send (and a non-blocking barrier) and then
 * computes for COMPUTE seconds without calling MPI; rank 1 receives and times how long its
 * receive and its half of the barrier took. Usage: thread_async expect-async|expect-stall.
 * With the progress thread the transfer and the barrier complete while rank 0 computes (well
 * under half the compute time); without it (the control case, IBEX_RNDV_SCHEME=write so the
 * sender must act on the receiver's clear-to-send) they wait for rank 0's MPI_Wait.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMPUTE 3.0
#define N       (1 << 20)

static int rank;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "thread_async: rank %d: line %d: check failed: %s\n", rank, __LINE__,  \
                    #cond);                                                                        \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

static double compute(double seconds)
{
    double t0 = MPI_Wtime(), x = 0;
    while (MPI_Wtime() - t0 < seconds)
        for (int i = 0; i < 1000; i++)
            x += i * 1e-9;
    return x;
}

int main(int argc, char **argv)
{
    int size, provided;
    CHECK(argc == 2);
    int expect_async = strcmp(argv[1], "expect-async") == 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2);
    int *buf = malloc(N * sizeof(int));
    CHECK(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Request r[2];
        for (int i = 0; i < N; i++)
            buf[i] = i * 3 + 1;
        CHECK(MPI_Isend(buf, N, MPI_INT, 1, 5, MPI_COMM_WORLD, &r[0]) == MPI_SUCCESS);
        CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &r[1]) == MPI_SUCCESS);
        volatile double sink = compute(COMPUTE);
        (void)sink;
        CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    } else {
        double t0 = MPI_Wtime();
        CHECK(MPI_Recv(buf, N, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        MPI_Request b; /* a blocking barrier would not match rank 0's MPI_Ibarrier */
        CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &b) == MPI_SUCCESS);
        CHECK(MPI_Wait(&b, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        double took = MPI_Wtime() - t0;
        for (int i = 0; i < N; i++)
            CHECK(buf[i] == i * 3 + 1);
        printf("thread_async: receive and barrier took %.3f s while the sender computed %.1f s\n",
               took, COMPUTE);
        if (expect_async)
            CHECK(took < COMPUTE / 2);
        else
            CHECK(took > COMPUTE * 0.8);
    }
    free(buf);
    MPI_Finalize();
    if (rank == 0)
        printf("thread_async: ok\n");
    return 0;
}
