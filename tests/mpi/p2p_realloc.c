/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Freed-and-reused buffers never carry stale data: rank 0 sends rendezvous-sized messages from
 * buffers it frees and allocates again (malloc / free, and mmap / munmap / mmap at the same
 * address), each time with new contents. Over verbs this exercises the registration cache:
 * a registration kept past free / munmap would send the old pages (softib's
 * SOFTIB_STALE_CHECK=1 also fails such an access loudly).
 */
#include <sys/mman.h>

#include "mpitest.h"

#define ROUNDS 30

static void *get_buf(int how, size_t n, void *hint)
{
    if (how == 0)
        return malloc(n);
    void *p = mmap(hint, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void put_buf(int how, void *p, size_t n)
{
    if (how == 0)
        free(p);
    else
        munmap(p, n);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static const size_t sizes[] = {256 << 10, 3 << 20};
    for (int how = 0; how < 2; how++) {
        for (int s = 0; s < 2; s++) {
            size_t n = sizes[s];
            void *last = NULL;
            for (int r = 0; r < ROUNDS; r++) {
                unsigned seed = (unsigned)(how * 1000 + s * 100 + r);
                char *buf = get_buf(how, n, last);
                CHECK(buf != NULL);
                if (rank == 0) {
                    mt_fill(buf, n, seed);
                    CHECK_RC(MPI_Send(buf, (int)n, MPI_BYTE, 1, r, MPI_COMM_WORLD));
                } else if (rank == 1) {
                    memset(buf, 0, n);
                    CHECK_RC(
                        MPI_Recv(buf, (int)n, MPI_BYTE, 0, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    CHECK(mt_verify(buf, n, seed) == (size_t)-1);
                }
                last = buf;
                put_buf(how, buf, n);
            }
        }
    }
    mt_barrier(MPI_COMM_WORLD);
    mt_done("p2p_realloc");
    MPI_Finalize();
    return 0;
}
