/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The count guard of MPI_Comm_idup's agreement: IDUP_K idups of MPI_COMM_WORLD in flight at
 * once, completed by MPI_Test polled forwards on even ranks and backwards on odd ones (so the
 * agreements' rounds end in different orders on different ranks), IDUP_ROUNDS times. Each
 * result is checked (size, rank, a sum on it, traffic apart from its neighbour's). Ibex's
 * performance variable ibex_idup_retries (an MPI_T counter) must stay 0: idups of one
 * communicator in flight together take different classes of context pairs. When they shared
 * whole words, 24 idups retried hundreds of times per run and, under load, some gave up after
 * 1000 tries (CI: "non-blocking context agreement ... failed"). Without that variable
 * (another MPI) only the results are checked.
 */
#include <stdbool.h>

#include "mpitest.h"

#define IDUP_K      24
#define IDUP_ROUNDS 4

static int rank, size;

static void check_comm(MPI_Comm c, MPI_Comm next, int mark)
{
    int r, s, sum = -1, v = rank + mark;
    CHECK(c != MPI_COMM_NULL);
    CHECK_RC(MPI_Comm_rank(c, &r));
    CHECK_RC(MPI_Comm_size(c, &s));
    CHECK(r == rank && s == size);
    CHECK_RC(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size * (size - 1) / 2 + size * mark);
    /* same tag on c and next: each message arrives on its own communicator */
    int to = (rank + 1) % size, from = (rank + size - 1) % size, x = -1, y = -1;
    int mx = 1000 + rank, my = 2000 + rank;
    MPI_Request q[4];
    CHECK_RC(MPI_Irecv(&y, 1, MPI_INT, from, 0, next, &q[0]));
    CHECK_RC(MPI_Irecv(&x, 1, MPI_INT, from, 0, c, &q[1]));
    CHECK_RC(MPI_Isend(&mx, 1, MPI_INT, to, 0, c, &q[2]));
    CHECK_RC(MPI_Isend(&my, 1, MPI_INT, to, 0, next, &q[3]));
    CHECK_RC(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
    CHECK(x == 1000 + from && y == 2000 + from);
}

static void one_round(int round)
{
    MPI_Comm c[IDUP_K];
    MPI_Request r[IDUP_K];
    for (int i = 0; i < IDUP_K; i++)
        CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &c[i], &r[i]));
    for (int left = IDUP_K; left > 0;)
        for (int k = 0; k < IDUP_K; k++) {
            int i = rank % 2 ? IDUP_K - 1 - k : k, flag = 0;
            if (r[i] == MPI_REQUEST_NULL)
                continue;
            CHECK_RC(MPI_Test(&r[i], &flag, MPI_STATUS_IGNORE));
            left -= flag != 0;
        }
    for (int i = 0; i < IDUP_K; i++)
        check_comm(c[i], c[(i + 1) % IDUP_K], 100 * round + i);
    for (int i = 0; i < IDUP_K; i++)
        CHECK_RC(MPI_Comm_free(&c[i]));
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    int idx = mt_pvar_index("ibex_idup_retries");
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    if (idx >= 0) {
        int count;
        CHECK_RC(MPI_T_pvar_session_create(&s));
        CHECK_RC(MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count));
        CHECK(count == 1);
        CHECK_RC(MPI_T_pvar_start(s, h));
    }
    for (int round = 0; round < IDUP_ROUNDS; round++)
        one_round(round);
    if (idx >= 0) {
        unsigned long long retries = ~0ull;
        CHECK_RC(MPI_T_pvar_read(s, h, &retries));
        if (retries != 0)
            printf("idup_count: rank %d: %llu retries over %d idups\n", rank, retries,
                   IDUP_K * IDUP_ROUNDS);
        CHECK(retries == 0);
        CHECK_RC(MPI_T_pvar_handle_free(s, &h));
        CHECK_RC(MPI_T_pvar_session_free(&s));
    }
    CHECK_RC(MPI_T_finalize());
    MPI_Barrier(MPI_COMM_WORLD);
    mt_done("idup_count");
    MPI_Finalize();
    return 0;
}
