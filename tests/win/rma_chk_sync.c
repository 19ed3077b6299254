/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Independent checks of one-sided synchronisation, written from the MPI 4.1 standard in the
 * manner of MPICH's rma suite: accfence, putpscw, lockcontention, lock_all + flush_local,
 * Rput / Rget completion, and a passive target that computes outside MPI (no MPI call for
 * 2 s) while the others put, get, accumulate, fetch-and-op and compare-and-swap on 4- and
 * 8-byte types (the target storing meanwhile into an int beside them, which they must not
 * undo): they must be done in about the time of the transfers. The timing is asserted
 * only with RMA_CHK_TIMED=1 (the standard does not promise it; Ibex does). Standard MPI only.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, np, errs;

#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            if (errs++ < 20) {                                                                     \
                fprintf(stderr, "rank %d: %s:%d: ", me, __FILE__, __LINE__);                       \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fputc('\n', stderr);                                                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#define N 64 /* ints per rank's slot */

/* accfence: every rank adds (r + 1) * (i + 1) into element i of every rank's window under
 * fences, twice; then reads its neighbour's back with a Get in a second fence epoch. */
static void accfence(MPI_Win win, int *w)
{
    int buf[N], got[N];
    for (int i = 0; i < N; i++) {
        w[i] = i;
        buf[i] = (me + 1) * (i + 1);
    }
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int rep = 0; rep < 2; rep++)
        for (int t = 0; t < np; t++)
            MPI_Accumulate(buf, N, MPI_INT, t, 0, N, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    int sumr = np * (np + 1) / 2;
    for (int i = 0; i < N; i++)
        CHECK(w[i] == i + 2 * sumr * (i + 1), "accfence w[%d] %d, want %d", i, w[i],
              i + 2 * sumr * (i + 1));
    MPI_Get(got, N, MPI_INT, (me + 1) % np, 0, N, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    for (int i = 0; i < N; i++)
        CHECK(got[i] == w[i], "accfence get [%d] %d, want %d", i, got[i], w[i]);
}

/* putpscw: each rank exposes its window to its left neighbour and puts to its right one. */
static void putpscw(MPI_Win win, int *w)
{
    MPI_Group world, gl, gr;
    int left = (me + np - 1) % np, right = (me + 1) % np, buf[N];
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &gl);
    MPI_Group_incl(world, 1, &right, &gr);
    for (int rep = 0; rep < 3; rep++) {
        for (int i = 0; i < N; i++) {
            buf[i] = me * 1000 + rep * 100 + i;
            w[i] = -1;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_post(gl, 0, win);
        MPI_Win_start(gr, 0, win);
        MPI_Put(buf, N, MPI_INT, right, 0, N, MPI_INT, win);
        MPI_Win_complete(win);
        if (rep == 1) {
            int flag = 0;
            while (!flag)
                MPI_Win_test(win, &flag);
        } else {
            MPI_Win_wait(win);
        }
        for (int i = 0; i < N; i++)
            CHECK(w[i] == left * 1000 + rep * 100 + i, "putpscw rep %d w[%d] %d", rep, i, w[i]);
    }
    MPI_Group_free(&gl);
    MPI_Group_free(&gr);
    MPI_Group_free(&world);
}

/* lockcontention: every rank takes an exclusive lock on rank 0 many times and, inside,
 * reads a shared counter, adds one and writes it back (no atomics: the lock alone guards
 * it), and puts its rank into its own slot. */
static void lockcontention(MPI_Win win, int *w)
{
    int iters = 30, cnt, mark = me + 1;
    if (me == 0)
        memset(w, 0, sizeof(int) * N);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters; i++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&cnt, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        cnt++;
        MPI_Put(&cnt, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Put(&mark, 1, MPI_INT, 0, 1 + me, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        CHECK(w[0] == iters * np, "lockcontention count %d, want %d", w[0], iters * np);
        for (int r = 0; r < np; r++)
            CHECK(w[1 + r] == r + 1, "lockcontention slot %d: %d", r, w[1 + r]);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* lock_all + flush_local: after flush_local the origin buffer may be reused at once; after
 * flush the data is at the target. Then Rput / Rget: the request's completion means local
 * completion (the buffer may be reused / holds the data). */
static void lockall_flush_local(MPI_Win win, int *w)
{
    int buf[N], got[N];
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    for (int i = 0; i < N; i++)
        w[i] = -1;
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);
    int right = (me + 1) % np;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < N; i++) {
        buf[0] = me * 100 + i;
        MPI_Put(buf, 1, MPI_INT, right, i, 1, MPI_INT, win);
        MPI_Win_flush_local(right, win);
    }
    MPI_Win_flush(right, win);
    MPI_Get(got, N, MPI_INT, right, 0, N, MPI_INT, win);
    MPI_Win_flush_local_all(win);
    for (int i = 0; i < N; i++)
        CHECK(got[i] == me * 100 + i, "flush_local put [%d] %d", i, got[i]);
    MPI_Request rq[2];
    for (int i = 0; i < N; i++)
        buf[i] = me * 7 + i * 3;
    MPI_Rput(buf, N, MPI_INT, right, 0, N, MPI_INT, win, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    memset(buf, 0, sizeof(buf)); /* local completion: reusable */
    MPI_Win_flush(right, win);
    MPI_Rget(got, N, MPI_INT, right, 0, N, MPI_INT, win, &rq[1]);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++)
        CHECK(got[i] == me * 7 + i * 3, "Rput / Rget [%d] %d", i, got[i]);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The target (rank 0) computes for 2 s without any MPI call, inside no epoch of its own,
 * while every other rank locks it and runs puts, gets, accumulates, fetch-and-ops and
 * compare-and-swaps on int and long long (also a derived, strided target), unlocks, and
 * times it. */
static volatile double sink;

/* Returns how many times it stored into *store (its last value). */
static int busy_until(double t, volatile int *store)
{
    int n = 0;
    while (MPI_Wtime() < t) { /* MPI_Wtime is allowed: it is not a communication call */
        for (int i = 0; i < 1000; i++)
            sink += i * 0.5;
        *store = ++n; /* a local store beside the ints the others accumulate into */
    }
    return n;
}

static double passive_ops(MPI_Win win)
{
    int ibuf[N], iold, ione = 1, izero = 0, igot[N];
    long long lone = 1, lold, lzero = 0, lbuf[8];
    MPI_Datatype vec;
    MPI_Type_vector(8, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (int i = 0; i < N; i++)
        ibuf[i] = me * 10 + i;
    double t0 = MPI_Wtime();
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    int slot = 4 * N + me * 32; /* this rank's ints, past the counters */
    MPI_Put(ibuf, 16, MPI_INT, 0, slot, 16, MPI_INT, win);
    MPI_Get(igot, 16, MPI_INT, 0, slot, 16, MPI_INT, win);
    MPI_Win_flush(0, win);
    MPI_Put(ibuf, 8, MPI_INT, 0, slot + 16, 1, vec, win);
    MPI_Accumulate(&ione, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Accumulate(&lone, 1, MPI_LONG_LONG, 0, 2, 1, MPI_LONG_LONG, MPI_SUM, win); /* int 2-3 */
    MPI_Fetch_and_op(&ione, &iold, MPI_INT, 0, 4, MPI_SUM, win);
    MPI_Fetch_and_op(&lone, &lold, MPI_LONG_LONG, 0, 6, MPI_SUM, win);
    MPI_Accumulate(&ione, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_MAX, win);
    MPI_Get_accumulate(&ione, 1, MPI_INT, &iold, 1, MPI_INT, 0, 8, 1, MPI_INT, MPI_SUM, win);
    int mine = me + 1, lmine = me + 1;
    long long lm = lmine;
    MPI_Compare_and_swap(&mine, &izero, &iold, MPI_INT, 0, 9, win);
    MPI_Compare_and_swap(&lm, &lzero, &lold, MPI_LONG_LONG, 0, 10, win);
    MPI_Get(lbuf, 1, MPI_LONG_LONG, 0, 2, 1, MPI_LONG_LONG, win);
    MPI_Win_unlock(0, win);
    double dt = MPI_Wtime() - t0;
    for (int i = 0; i < 16; i++)
        CHECK(igot[i] == ibuf[i], "passive get [%d] %d", i, igot[i]);
    MPI_Type_free(&vec);
    return dt;
}

static void passive_target(MPI_Win win, int *w, const char *how)
{
    memset(w, 0, sizeof(int) * (4 * N + 32 * np));
    MPI_Barrier(MPI_COMM_WORLD);
    double dt = 0;
    int stores = 0;
    if (me == 0)
        stores = busy_until(MPI_Wtime() + 2.0, &w[5]);
    else
        dt = passive_ops(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        int o = np - 1;
        long long l2, l6;
        memcpy(&l2, &w[2], 8);
        memcpy(&l6, &w[6], 8);
        CHECK(w[0] == o && w[1] == (o ? 1 : 0) && w[4] == o && w[8] == o, "passive int %d %d %d %d",
              w[0], w[1], w[4], w[8]);
        CHECK(l2 == o && l6 == o, "passive long long %lld %lld", l2, l6);
        CHECK(w[5] == stores, "the target's own stores beside them: %d, want %d", w[5], stores);
        CHECK(w[9] >= (o ? 1 : 0) && w[9] <= np, "passive CAS int %d", w[9]);
        for (int r = 1; r < np; r++)
            for (int i = 0; i < 16; i++) {
                int *s = &w[4 * N + r * 32];
                CHECK(s[i] == r * 10 + i, "passive put from %d [%d] %d", r, i, s[i]);
                CHECK(s[16 + 2 * (i % 8)] == r * 10 + i % 8, "passive strided put from %d", r);
            }
        MPI_Win_unlock(0, win);
    }
    double worst;
    MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    char *timed = getenv("RMA_CHK_TIMED");
    if (me == 0 && timed && *timed == '1')
        CHECK(worst < 1.0, "%s window: the origins took %.2f s with the target outside MPI for 2 s",
              how, worst);
    if (me == 0 && getenv("RMA_CHK_VERBOSE"))
        printf("%s: passive epoch %.3f s\n", how, worst);
}

static void run(MPI_Win win, int *w, const char *how)
{
    accfence(win, w);
    putpscw(win, w);
    lockcontention(win, w);
    lockall_flush_local(win, w);
    passive_target(win, w, how);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Aint bytes = sizeof(int) * (4 * N + 32 * np);
    int *w;
    MPI_Win win;
    MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win);
    run(win, w, "allocated");
    MPI_Win_free(&win);
    MPI_Alloc_mem(bytes, MPI_INFO_NULL, &w);
    MPI_Win_create(w, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    run(win, w, "created");
    MPI_Win_free(&win);
    MPI_Free_mem(w);
    int all;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf(all ? "rma_chk_sync: %d errors\n" : "rma_chk_sync: ok\n", all);
    MPI_Finalize();
    return all != 0;
}
