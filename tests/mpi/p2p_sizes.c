/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every size class, 0 bytes to 256 MiB, checked byte for byte: around every eager / inline /
 * slot boundary and deep into rendezvous. Each rank sends to its right neighbour. The largest
 * size runs only when MT_MAX_MB allows (default 256).
 */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *env = getenv("MT_MAX_MB");
    size_t max = (size_t)(env ? atoi(env) : 256) << 20;
    static const size_t sizes[] = {0,
                                   1,
                                   7,
                                   8,
                                   63,
                                   64,
                                   65,
                                   127,
                                   128,
                                   255,
                                   256,
                                   1023,
                                   1024,
                                   4095,
                                   4096,
                                   4097,
                                   8000,
                                   8192,
                                   8193,
                                   16384,
                                   65535,
                                   65536,
                                   65537,
                                   1 << 20,
                                   (1 << 20) + 3,
                                   4 << 20,
                                   16 << 20,
                                   (64 << 20) + 1,
                                   256 << 20};
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = sizes[k];
        if (n > max)
            break;
        char *s = malloc(n + 1), *r = malloc(n + 1);
        mt_fill(s, n, (unsigned)(rank * 64 + k));
        memset(r, 0xee, n + 1);
        MPI_Status st;
        CHECK_RC(MPI_Sendrecv(s, (int)n, MPI_BYTE, right, (int)k, r, (int)n + 1, MPI_BYTE, left,
                              (int)k, MPI_COMM_WORLD, &st));
        int count;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK((size_t)count == n);
        size_t bad = mt_verify(r, n, (unsigned)(left * 64 + k));
        if (bad != (size_t)-1)
            fprintf(stderr, "rank %d: size %zu wrong at byte %zu\n", rank, n, bad);
        CHECK(bad == (size_t)-1);
        CHECK((unsigned char)r[n] == 0xee); /* nothing written past the message */
        free(s);
        free(r);
    }
    mt_barrier(MPI_COMM_WORLD);
    mt_done("p2p_sizes");
    MPI_Finalize();
    return 0;
}
