/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Progress while blocked (DESIGN lesson 8): rank 0 sits in MPI_Recv waiting for rank 1, which
 * waits for a message that rank 2 sends only after its rendezvous send to rank 0 completes.
 * Rank 0 must serve rank 2's rendezvous from inside its unrelated blocking receive.
 * With 2 ranks, the same happens between rank 0 and 1 with a self-contained pattern.
 */
#include "mpitest.h"

#define BIG (8 << 20)

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *big = malloc(BIG);
    int token = 0;
    if (size >= 3) {
        if (rank == 0) {
            MPI_Request r;
            CHECK_RC(MPI_Irecv(big, BIG, MPI_BYTE, 2, 1, MPI_COMM_WORLD, &r));
            CHECK_RC(MPI_Recv(&token, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(token == 42);
            CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
            CHECK(mt_verify(big, BIG, 2) == (size_t)-1);
        } else if (rank == 1) {
            CHECK_RC(MPI_Recv(&token, 1, MPI_INT, 2, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_RC(MPI_Send(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD));
        } else if (rank == 2) {
            mt_fill(big, BIG, 2);
            CHECK_RC(MPI_Send(big, BIG, MPI_BYTE, 0, 1, MPI_COMM_WORLD));
            token = 42;
            CHECK_RC(MPI_Send(&token, 1, MPI_INT, 1, 3, MPI_COMM_WORLD));
        }
    } else {
        /* Both ranks send a large message first and receive after: only correct if each
         * rank's blocking Send serves the other's rendezvous while it waits. */
        MPI_Request r;
        mt_fill(big, BIG, (unsigned)rank);
        char *in = malloc(BIG);
        CHECK_RC(MPI_Irecv(in, BIG, MPI_BYTE, 1 - rank, 1, MPI_COMM_WORLD, &r));
        CHECK_RC(MPI_Send(big, BIG, MPI_BYTE, 1 - rank, 1, MPI_COMM_WORLD));
        CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(mt_verify(in, BIG, (unsigned)(1 - rank)) == (size_t)-1);
        free(in);
    }
    free(big);
    mt_barrier(MPI_COMM_WORLD);
    mt_done("p2p_progress");
    MPI_Finalize();
    return 0;
}
