/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Synchronisation modes and atomicity: exclusive and shared locks, lock_all with every flush
 * call, request-based operations, post / start / complete / wait / test, a contended
 * Fetch_and_op counter (exact final value), a Compare_and_swap spin lock guarding a
 * non-atomic critical section, accumulate ordering (MPI_REPLACE after MPI_SUM from one
 * origin), and a target that sleeps outside MPI during a passive epoch.
 */
#include <unistd.h>

#include "mpitest.h"

#define ROUNDS 50

static int rank, size;

static void counter(MPI_Win win, long *base)
{
    MPI_Win_fence(0, win);
    base[0] = 0;
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    long one = 1, old, seen_max = -1;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < ROUNDS; i++) {
        CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM, win));
        CHECK_RC(MPI_Win_flush(0, win));
        CHECK(old > seen_max); /* each of my fetches sees a later value */
        seen_max = old;
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        CHECK(base[0] == (long)ROUNDS * size);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A spin lock in rank 0's word 1 guards a read-modify-write of word 2 by Get + Put. */
static void spinlock(MPI_Win win, long *base)
{
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        base[1] = 0;
        base[2] = 0;
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < 20; i++) {
        long mine = rank + 1, zero = 0, old;
        do {
            CHECK_RC(MPI_Compare_and_swap(&mine, &zero, &old, MPI_LONG, 0, 1, win));
            CHECK_RC(MPI_Win_flush(0, win));
        } while (old != 0);
        long v;
        CHECK_RC(MPI_Get(&v, 1, MPI_LONG, 0, 2, 1, MPI_LONG, win));
        MPI_Win_flush(0, win);
        v++;
        CHECK_RC(MPI_Put(&v, 1, MPI_LONG, 0, 2, 1, MPI_LONG, win));
        MPI_Win_flush(0, win);
        CHECK_RC(MPI_Compare_and_swap(&zero, &mine, &old, MPI_LONG, 0, 1, win));
        MPI_Win_flush(0, win);
        CHECK(old == mine);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        CHECK(base[2] == 20L * size);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void exclusive_and_ordering(MPI_Win win, long *base)
{
    int t = (rank + 1) % size;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
    long v = 5, w = 100 + rank, got[2];
    CHECK_RC(MPI_Put(&v, 1, MPI_LONG, t, 3, 1, MPI_LONG, win));
    CHECK_RC(MPI_Accumulate(&v, 1, MPI_LONG, t, 3, 1, MPI_LONG, MPI_SUM, win));
    CHECK_RC(MPI_Accumulate(&w, 1, MPI_LONG, t, 3, 1, MPI_LONG, MPI_REPLACE, win));
    CHECK_RC(
        MPI_Get_accumulate(&v, 1, MPI_LONG, &got[0], 1, MPI_LONG, t, 3, 1, MPI_LONG, MPI_SUM, win));
    MPI_Win_unlock(t, win);
    CHECK(got[0] == 100 + rank); /* the accumulates were applied in order */
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    CHECK_RC(MPI_Get(&got[1], 1, MPI_LONG, t, 3, 1, MPI_LONG, win));
    MPI_Win_flush_local(t, win);
    MPI_Win_unlock(t, win);
    CHECK(got[1] == 105 + rank);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void requests(MPI_Win win, long *base)
{
    int t = (rank + size - 1) % size;
    MPI_Request reqs[4];
    long v = rank * 7, r1 = -1, r2 = -1, one = 1;
    MPI_Win_lock_all(0, win);
    CHECK_RC(MPI_Rput(&v, 1, MPI_LONG, t, 4, 1, MPI_LONG, win, &reqs[0]));
    CHECK_RC(MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE));
    MPI_Win_flush(t, win);
    CHECK_RC(MPI_Rget(&r1, 1, MPI_LONG, t, 4, 1, MPI_LONG, win, &reqs[0]));
    CHECK_RC(MPI_Raccumulate(&one, 1, MPI_LONG, t, 4, 1, MPI_LONG, MPI_SUM, win, &reqs[1]));
    CHECK_RC(MPI_Rget_accumulate(&one, 1, MPI_LONG, &r2, 1, MPI_LONG, t, 4, 1, MPI_LONG, MPI_SUM,
                                 win, &reqs[2]));
    CHECK_RC(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
    CHECK(r1 == rank * 7 && r2 == rank * 7 + 1);
    MPI_Win_flush_all(win);
    MPI_Win_flush_local_all(win);
    CHECK_RC(MPI_Win_sync(win));
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Ring: every rank exposes to its left neighbour and accesses its right one. */
static void pscw(MPI_Win win, long *base)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Group world, gl, gr;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &gl);
    MPI_Group_incl(world, 1, &right, &gr);
    for (int round = 0; round < 5; round++) {
        long v = rank * 10 + round;
        CHECK_RC(MPI_Win_post(gl, 0, win));
        CHECK_RC(MPI_Win_start(gr, 0, win));
        CHECK_RC(MPI_Put(&v, 1, MPI_LONG, right, 5, 1, MPI_LONG, win));
        CHECK_RC(MPI_Win_complete(win));
        if (round % 2) {
            int flag = 0;
            while (!flag)
                CHECK_RC(MPI_Win_test(win, &flag));
        } else {
            CHECK_RC(MPI_Win_wait(win));
        }
        CHECK(base[5] == left * 10 + round);
    }
    MPI_Group_free(&gl);
    MPI_Group_free(&gr);
    MPI_Group_free(&world);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Fence assertions: every flag combination that is valid for this pattern. */
static void fences(MPI_Win win, long *base)
{
    long v = rank;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Put(&v, 1, MPI_LONG, (rank + 1) % size, 6, 1, MPI_LONG, win);
    MPI_Win_fence(MPI_MODE_NOSTORE, win);
    CHECK(base[6] == (rank + size - 1) % size);
    MPI_Win_fence(MPI_MODE_NOPUT | MPI_MODE_NOSUCCEED, win);
}

/* The last rank sleeps 2 s outside MPI while the others lock, put, flush, get and unlock its
 * memory. On a window whose memory every rank maps (MPI_Win_allocate on one node) that needs
 * nothing of the target: it must take well under the sleep (fast); else it just has to be
 * right. */
static void sleeper(MPI_Win win, long *base, int fast)
{
    int t = size - 1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == t) {
        sleep(2);
    } else {
        long v = rank + 1, got = 0;
        double t0 = MPI_Wtime();
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        MPI_Put(&v, 1, MPI_LONG, t, 8 + rank, 1, MPI_LONG, win);
        MPI_Win_flush(t, win);
        MPI_Get(&got, 1, MPI_LONG, t, 8 + rank, 1, MPI_LONG, win);
        MPI_Win_unlock(t, win);
        CHECK(got == rank + 1);
        if (fast && MPI_Wtime() - t0 > 1.0)
            fprintf(stderr, "rank %d: passive epoch took %.2f s\n", rank, MPI_Wtime() - t0);
        CHECK(!fast || MPI_Wtime() - t0 < 1.0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == t)
        for (int r = 0; r < t; r++)
            CHECK(base[8 + r] == r + 1);
}

/* Every rank on one node: MPI_Win_allocate's memory can be mapped by all. */
static int shared_node(void)
{
    MPI_Comm node;
    int n;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &n);
    MPI_Comm_free(&node);
    return n == size;
}

static void run(MPI_Win win, long *base, int fast)
{
    counter(win, base);
    spinlock(win, base);
    exclusive_and_ordering(win, base);
    requests(win, base);
    pscw(win, base);
    fences(win, base);
    sleeper(win, base, fast);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *base;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(64 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                              &win));
    /* MT_WIN_AM=1: the library was told to use the active-message path (IBEX_WIN_DIRECT=0) */
    int fast = shared_node() && !getenv("MT_WIN_AM");
    run(win, base, fast);
    CHECK_RC(MPI_Win_free(&win));
    long *mem = calloc(64, sizeof(long));
    CHECK_RC(
        MPI_Win_create(mem, 64 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    run(win, mem, fast);
    CHECK_RC(MPI_Win_free(&win));
    free(mem);
    mt_done("win_sync");
    MPI_Finalize();
    return 0;
}
