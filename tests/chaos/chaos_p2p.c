/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Traffic for the chaos matrix (tests/chaos/chaos.sh): every rank exchanges with every other rank,
 * round after round, messages on both sides of the eager limit (eager, rendezvous READ or WRITE,
 * fragmented) in standard, synchronous and persistent modes and through a ring of Sendrecv, and
 * checks every byte against a pattern of (round, source, destination). Wrong data prints
 * "CORRUPT" and aborts with code 3, so the matrix tells corruption from a clean error.
 * Standard MPI only. Usage: chaos_p2p [ROUNDS]
 */
#include "mpitest.h"

static const size_t g_sizes[] = {0, 1, 100, 4000, 9000, 70000, 300000, 1536 * 1024};
#define NSIZES (sizeof(g_sizes) / sizeof(g_sizes[0]))

static unsigned seed_of(int round, int src, int dst)
{
    return (unsigned)(round * 7919 + src * 131 + dst + 1);
}

static void verify(const unsigned char *buf, size_t n, int round, int src, int dst)
{
    size_t bad = mt_verify(buf, n, seed_of(round, src, dst));

    if (bad != (size_t)-1) {
        fprintf(stderr, "CORRUPT rank %d: round %d, %zu bytes from rank %d, byte %zu wrong\n", dst,
                round, n, src, bad);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* One round: a message to and from every peer, the size depending on the round and the pair. */
static void round_all(int round, int rank, int size, unsigned char **sbuf, unsigned char **rbuf)
{
    MPI_Request req[2 * 64];
    int n = 0;

    for (int p = 0; p < size; p++) {
        if (p == rank)
            continue;
        size_t len = g_sizes[(size_t)(round + p + rank) % NSIZES];
        CHECK_RC(MPI_Irecv(rbuf[p], (int)len, MPI_BYTE, p, round, MPI_COMM_WORLD, &req[n++]));
    }
    for (int p = 0; p < size; p++) {
        if (p == rank)
            continue;
        size_t len = g_sizes[(size_t)(round + p + rank) % NSIZES];
        mt_fill(sbuf[p], len, seed_of(round, rank, p));
        if (round % 3 == 1)
            CHECK_RC(MPI_Issend(sbuf[p], (int)len, MPI_BYTE, p, round, MPI_COMM_WORLD, &req[n++]));
        else
            CHECK_RC(MPI_Isend(sbuf[p], (int)len, MPI_BYTE, p, round, MPI_COMM_WORLD, &req[n++]));
    }
    CHECK_RC(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
    for (int p = 0; p < size; p++)
        if (p != rank)
            verify(rbuf[p], g_sizes[(size_t)(round + p + rank) % NSIZES], round, p, rank);
}

/* A ring of Sendrecv, then a persistent exchange with the next rank. */
static void round_ring(int round, int rank, int size, unsigned char *sb, unsigned char *rb)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    size_t len = g_sizes[(size_t)(round * 5 + 3) % NSIZES];
    MPI_Request req[2];

    mt_fill(sb, len, seed_of(round + 100000, rank, to));
    CHECK_RC(MPI_Sendrecv(sb, (int)len, MPI_BYTE, to, 7, rb, (int)len, MPI_BYTE, from, 7,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    verify(rb, len, round + 100000, from, rank);
    CHECK_RC(MPI_Recv_init(rb, (int)len, MPI_BYTE, from, 8, MPI_COMM_WORLD, &req[0]));
    CHECK_RC(MPI_Send_init(sb, (int)len, MPI_BYTE, to, 8, MPI_COMM_WORLD, &req[1]));
    CHECK_RC(MPI_Startall(2, req));
    CHECK_RC(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    verify(rb, len, round + 100000, from, rank);
    CHECK_RC(MPI_Request_free(&req[0]));
    CHECK_RC(MPI_Request_free(&req[1]));
}

int main(int argc, char **argv)
{
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 24;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 64);
    unsigned char **sbuf = calloc((size_t)size, sizeof(*sbuf));
    unsigned char **rbuf = calloc((size_t)size, sizeof(*rbuf));
    for (int p = 0; p < size; p++) {
        sbuf[p] = malloc(g_sizes[NSIZES - 1]);
        rbuf[p] = malloc(g_sizes[NSIZES - 1]);
        CHECK(sbuf[p] && rbuf[p]);
    }
    for (int r = 0; r < rounds; r++) {
        round_all(r, rank, size, sbuf, rbuf);
        if (size > 1)
            round_ring(r, rank, size, sbuf[0], rbuf[0]);
    }
    mt_barrier(MPI_COMM_WORLD);
    for (int p = 0; p < size; p++) {
        free(sbuf[p]);
        free(rbuf[p]);
    }
    free(sbuf);
    free(rbuf);
    mt_done("chaos_p2p");
    MPI_Finalize();
    return 0;
}
