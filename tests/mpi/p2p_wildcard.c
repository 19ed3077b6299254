/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wildcards: MPI_ANY_SOURCE and MPI_ANY_TAG receives, with the status telling source, tag and
 * count; a specific receive posted after a wildcard one does not steal the wildcard's message;
 * MPI_ANY_SOURCE takes unexpected messages in arrival order.
 */
#include "mpitest.h"

static void any_tag_and_source(int rank, int size)
{
    if (rank != 0) {
        int v[3] = {rank, rank * 10, rank * 100}, ack;
        CHECK_RC(MPI_Send(v, 3, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD));
        /* wait, so no later message of ours can meet rank 0's ANY_TAG receives */
        CHECK_RC(MPI_Recv(&ack, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        return;
    }
    int seen[64] = {0};
    for (int k = 1; k < size; k++) {
        int v[8];
        MPI_Status st;
        CHECK_RC(MPI_Recv(v, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        int count;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == 3);
        CHECK(st.MPI_SOURCE >= 1 && st.MPI_SOURCE < size);
        CHECK(st.MPI_TAG == 100 + st.MPI_SOURCE);
        CHECK(v[0] == st.MPI_SOURCE && v[2] == st.MPI_SOURCE * 100);
        seen[st.MPI_SOURCE]++;
    }
    for (int k = 1; k < size; k++)
        CHECK(seen[k] == 1);
    for (int k = 1; k < size; k++)
        CHECK_RC(MPI_Send(&k, 1, MPI_INT, k, 99, MPI_COMM_WORLD));
}

/* Posted order decides: the earlier wildcard receive gets the first message. */
static void posted_order(int rank)
{
    if (rank == 1) {
        int a = 1, b = 2;
        mt_barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Send(&a, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(&b, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
    } else if (rank == 0) {
        int x = 0, y = 0;
        MPI_Request r[2];
        /* (ANY_TAG here would legitimately take the barrier's message) */
        CHECK_RC(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &r[0]));
        CHECK_RC(MPI_Irecv(&y, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &r[1]));
        mt_barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK(x == 1 && y == 2);
    } else {
        mt_barrier(MPI_COMM_WORLD);
    }
}

/* Unexpected messages from several tags: ANY_TAG takes them in arrival order. */
static void unexpected_order(int rank)
{
    if (rank == 1) {
        /* non-blocking: a standard send may wait for its receive (always, in rendezvous) */
        int v[10];
        MPI_Request r[10];
        for (int t = 0; t < 10; t++) {
            v[t] = t;
            CHECK_RC(MPI_Isend(&v[t], 1, MPI_INT, 0, 50 - t, MPI_COMM_WORLD, &r[t]));
        }
        mt_barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Waitall(10, r, MPI_STATUSES_IGNORE));
    } else if (rank == 0) {
        mt_barrier(MPI_COMM_WORLD); /* all ten are now sent (eager) or announced (RTS) */
        for (int t = 0; t < 10; t++) {
            int v;
            MPI_Status st;
            CHECK_RC(MPI_Recv(&v, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(v == t && st.MPI_TAG == 50 - t);
        }
    } else {
        mt_barrier(MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    any_tag_and_source(rank, size);
    posted_order(rank);
    unexpected_order(rank);
    mt_barrier(MPI_COMM_WORLD);
    mt_done("p2p_wildcard");
    MPI_Finalize();
    return 0;
}
