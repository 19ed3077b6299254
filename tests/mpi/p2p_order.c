/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Non-overtaking: messages from one sender on one communicator match in send order, also when
 * rendezvous (large) and eager (small) messages interleave, and with MPI_ANY_SOURCE across
 * senders (each sender's messages still arrive in its order).
 */
#include "mpitest.h"

#define NMSG 40
#define BIG  (1 << 20)

static size_t msg_size(int i)
{
    return (i % 3 == 0) ? BIG + (size_t)i : (size_t)(i * 13 % 200) + 8;
}

static void sender(int dest)
{
    char *bufs[NMSG];
    MPI_Request reqs[NMSG];
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* blocking sends interleave with still-pending non-blocking ones */
    for (int i = 0; i < NMSG; i++) {
        size_t n = msg_size(i);
        bufs[i] = malloc(n);
        mt_fill(bufs[i], n, (unsigned)(rank * 1000 + i));
        reqs[i] = MPI_REQUEST_NULL;
        if (i % 2)
            CHECK_RC(MPI_Send(bufs[i], (int)n, MPI_BYTE, dest, 5, MPI_COMM_WORLD));
        else
            CHECK_RC(MPI_Isend(bufs[i], (int)n, MPI_BYTE, dest, 5, MPI_COMM_WORLD, &reqs[i]));
    }
    CHECK_RC(MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NMSG; i++)
        free(bufs[i]);
}

static void receiver(int nsenders)
{
    int next[64] = {0};
    char *buf = malloc(BIG + NMSG);
    for (int k = 0; k < NMSG * nsenders; k++) {
        MPI_Status st;
        CHECK_RC(MPI_Recv(buf, BIG + NMSG, MPI_BYTE, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st));
        int src = st.MPI_SOURCE, i = next[src]++, count;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK((size_t)count == msg_size(i));
        CHECK(mt_verify(buf, (size_t)count, (unsigned)(src * 1000 + i)) == (size_t)-1);
    }
    for (int s = 1; s <= nsenders; s++)
        CHECK(next[s] == NMSG);
    free(buf);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2 && size <= 64);
    if (rank == 0)
        receiver(size - 1);
    else
        sender(0);
    mt_barrier(MPI_COMM_WORLD);
    mt_done("p2p_order");
    MPI_Finalize();
    return 0;
}
