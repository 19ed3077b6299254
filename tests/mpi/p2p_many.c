/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 10,000 outstanding non-blocking sends to one receiver that posts its receives only later,
 * completed with Waitall; then the same count completed with Waitany, Waitsome and Testsome.
 */
#include "mpitest.h"

#define N 10000

static void many(int rank, int size, int how)
{
    int *vals = malloc(sizeof(int) * N);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * N);
    if (rank == 1) {
        for (int i = 0; i < N; i++) {
            vals[i] = i * 3 + how;
            CHECK_RC(MPI_Isend(&vals[i], 1, MPI_INT, 0, i % 100, MPI_COMM_WORLD, &reqs[i]));
        }
        mt_barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE));
    } else if (rank == 0) {
        mt_barrier(MPI_COMM_WORLD); /* the sends were all issued before any receive */
        for (int i = 0; i < N; i++)
            CHECK_RC(MPI_Irecv(&vals[i], 1, MPI_INT, 1, i % 100, MPI_COMM_WORLD, &reqs[i]));
        int done = 0, *idx = malloc(sizeof(int) * N);
        while (done < N) {
            int k = 0, one;
            if (how == 0) {
                CHECK_RC(MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE));
                k = N;
            } else if (how == 1) {
                CHECK_RC(MPI_Waitany(N, reqs, &one, MPI_STATUS_IGNORE));
                CHECK(one >= 0 && one < N && reqs[one] == MPI_REQUEST_NULL);
                k = 1;
            } else if (how == 2) {
                CHECK_RC(MPI_Waitsome(N, reqs, &k, idx, MPI_STATUSES_IGNORE));
            } else {
                CHECK_RC(MPI_Testsome(N, reqs, &k, idx, MPI_STATUSES_IGNORE));
            }
            CHECK(k >= 0);
            done += k;
        }
        int k;
        CHECK_RC(MPI_Waitsome(N, reqs, &k, idx, MPI_STATUSES_IGNORE));
        CHECK(k == MPI_UNDEFINED); /* every request is now MPI_REQUEST_NULL */
        for (int i = 0; i < N; i++)
            CHECK(vals[i] == i * 3 + how);
        free(idx);
    } else {
        mt_barrier(MPI_COMM_WORLD);
    }
    (void)size;
    free(vals);
    free(reqs);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int how = 0; how < 4; how++)
        many(rank, size, how);
    mt_barrier(MPI_COMM_WORLD);
    mt_done("p2p_many");
    MPI_Finalize();
    return 0;
}
