/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Persistent requests: Send_init / Recv_init / Start / Startall reused over many iterations,
 * at eager and rendezvous sizes, an inactive request waits at once with an empty status, and
 * Request_free of a persistent request.
 */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static const int counts[] = {1, 1000, 300000};
    for (int c = 0; c < 3; c++) {
        int n = counts[c];
        int *sbuf = malloc(sizeof(int) * (size_t)n), *rbuf = malloc(sizeof(int) * (size_t)n);
        MPI_Request reqs[2];
        CHECK_RC(MPI_Recv_init(rbuf, n, MPI_INT, left, 8, MPI_COMM_WORLD, &reqs[0]));
        CHECK_RC(MPI_Send_init(sbuf, n, MPI_INT, right, 8, MPI_COMM_WORLD, &reqs[1]));
        /* inactive: Wait returns at once with an empty status */
        MPI_Status st;
        CHECK_RC(MPI_Wait(&reqs[0], &st));
        CHECK(reqs[0] != MPI_REQUEST_NULL && st.MPI_SOURCE == MPI_ANY_SOURCE);
        for (int it = 0; it < 20; it++) {
            for (int i = 0; i < n; i += (n / 10) + 1)
                sbuf[i] = rank * 1000 + it + i;
            CHECK_RC(MPI_Startall(2, reqs));
            MPI_Status sts[2];
            CHECK_RC(MPI_Waitall(2, reqs, sts));
            CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL);
            CHECK(sts[0].MPI_SOURCE == left && sts[0].MPI_TAG == 8);
            for (int i = 0; i < n; i += (n / 10) + 1)
                CHECK(rbuf[i] == left * 1000 + it + i);
        }
        /* one more round with Start and Test */
        CHECK_RC(MPI_Start(&reqs[0]));
        CHECK_RC(MPI_Start(&reqs[1]));
        int flag = 0;
        while (!flag)
            CHECK_RC(MPI_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE));
        CHECK_RC(MPI_Request_free(&reqs[0]));
        CHECK_RC(MPI_Request_free(&reqs[1]));
        CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL);
        free(sbuf);
        free(rbuf);
    }
    mt_barrier(MPI_COMM_WORLD);
    mt_done("p2p_persist");
    MPI_Finalize();
    return 0;
}
