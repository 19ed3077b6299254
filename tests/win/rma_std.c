/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-sided programs written from the MPI standard (MPI-4.0 chapter 12) alone, at 2 or more
 * ranks, each checking its results against values computed here:
 *   cas_lock     a spin lock by MPI_Compare_and_swap on rank 0 guarding a Get + Put counter
 *                increment, contended by every rank (the count is exact)
 *   sleeper      a passive target that never calls MPI for SLEEP_MS while every other rank
 *                locks it and puts, gets, accumulates (created and allocated windows);
 *                RMA_STD_TIMED=1: each origin's epoch must end before the target wakes
 *   derived      Get_accumulate / Fetch_and_op / Accumulate with different derived types at
 *                origin, target and result over the same basic type, pair types (MINLOC on
 *                MPI_DOUBLE_INT), short / float / long long Fetch_and_op
 *   dynamic      MPI_Win_create_dynamic: attach two regions, put / get at the addresses
 *                published by Bcast, detach one, attach a new one, access it
 *   shared       MPI_Win_allocate_shared with alloc_shared_noncontig, sizes per rank (one of
 *                them 0), Win_shared_query of every rank and of MPI_PROC_NULL, loads and
 *                stores through the pointers with Win_sync + Barrier
 *   request      Rput (the buffer reused after MPI_Wait), Rget (MPI_Test loop), Rget into a
 *                strided origin, Raccumulate, Rget_accumulate
 *   fence        fence assertions: NOPRECEDE, NOSTORE, NOPUT, NOSUCCEED then a lock epoch
 *   pscw         general active target with groups: rank 0 exposed to all others (wait and
 *                test), then rank 0 accessing all others
 *   errors       MPI_ERR_RMA_SYNC (an operation outside an epoch, unlock without lock,
 *                complete without start, wait without post), MPI_ERR_RMA_RANGE (past the
 *                window, negative displacement), nothing written by them
 *   manyget      MANYGET Gets of 32 KiB from rank 0 inside one fence epoch (the many replies a
 *                target's active-message path has in flight at once)
 * argv[1] names one case; without it every case runs. Prints "rma_std: ok" when all passed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank, nprocs, failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);                    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

/* Windows of whole pages (MPICH 4.0, used to cross-check this program, loses operations into
 * small allocated windows). */
static MPI_Aint pages(size_t n)
{
    return (MPI_Aint)((n + 4095) / 4096 * 4096);
}

static double now(void)
{
    return MPI_Wtime();
}

/* ---- cas_lock ---- */
#define CAS_ROUNDS 200
static void cas_lock(void)
{
    long long *mem;
    MPI_Win win;
    MPI_Win_allocate(2 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                     &win);
    mem[0] = mem[1] = 0; /* [0]: the lock word, [1]: the counter */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    long long one = 1, zero = 0, old;
    for (int i = 0; i < CAS_ROUNDS; i++) {
        do {
            MPI_Compare_and_swap(&one, &zero, &old, MPI_LONG_LONG, 0, 0, win);
            MPI_Win_flush(0, win);
        } while (old != 0);
        long long c;
        MPI_Get(&c, 1, MPI_LONG_LONG, 0, 1, 1, MPI_LONG_LONG, win);
        MPI_Win_flush(0, win);
        c++;
        MPI_Put(&c, 1, MPI_LONG_LONG, 0, 1, 1, MPI_LONG_LONG, win);
        MPI_Win_flush(0, win);
        MPI_Fetch_and_op(&zero, &old, MPI_LONG_LONG, 0, 0, MPI_REPLACE, win);
        MPI_Win_flush(0, win);
        CHECK(old == 1, "released a lock word of %lld", old);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        CHECK(mem[1] == (long long)CAS_ROUNDS * nprocs, "counter %lld, expected %lld", mem[1],
              (long long)CAS_ROUNDS * nprocs);
        CHECK(mem[0] == 0, "lock word %lld at the end", mem[0]);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
}

/* ---- sleeper ---- */
#define SLEEP_MS 1500
#define SL_N     64
static void sleeper_on(MPI_Win win, int *mem, const char *how)
{
    int timed = getenv("RMA_STD_TIMED") && atoi(getenv("RMA_STD_TIMED"));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        struct timespec ts = {SLEEP_MS / 1000, (SLEEP_MS % 1000) * 1000000L};
        nanosleep(&ts, NULL); /* no MPI call at all meanwhile */
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        for (int r = 1; r < nprocs; r++)
            for (int i = 0; i < SL_N; i++) {
                int want = r * 1000 + i + (i % 2 ? 7 * r : 0);
                CHECK(mem[r * SL_N + i] == want, "%s: [%d][%d] = %d, expected %d", how, r, i,
                      mem[r * SL_N + i], want);
            }
        CHECK(mem[0] == 3 * (nprocs - 1), "%s: accumulated %d, expected %d", how, mem[0],
              3 * (nprocs - 1));
        MPI_Win_unlock(0, win);
        return;
    }
    double t0 = now();
    int buf[SL_N], back[SL_N], three = 3, seven[SL_N / 2];
    for (int i = 0; i < SL_N; i++)
        buf[i] = rank * 1000 + i;
    for (int i = 0; i < SL_N / 2; i++)
        seven[i] = 7 * rank;
    MPI_Datatype odd; /* every second int */
    MPI_Type_vector(SL_N / 2, 1, 2, MPI_INT, &odd);
    MPI_Type_commit(&odd);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Put(buf, SL_N, MPI_INT, 0, rank * SL_N, SL_N, MPI_INT, win);
    MPI_Win_flush(0, win);
    MPI_Accumulate(seven, SL_N / 2, MPI_INT, 0, rank * SL_N + 1, 1, odd, MPI_SUM, win);
    MPI_Accumulate(&three, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_flush(0, win);
    MPI_Get(back, SL_N, MPI_INT, 0, rank * SL_N, SL_N, MPI_INT, win);
    MPI_Win_unlock(0, win);
    double t = now() - t0;
    for (int i = 0; i < SL_N; i++)
        CHECK(back[i] == buf[i] + (i % 2 ? 7 * rank : 0), "%s: got back %d at %d", how, back[i], i);
    if (timed)
        CHECK(t < 0.7 * SLEEP_MS / 1000.0, "%s: the epoch took %.3f s while the target slept", how,
              t);
    MPI_Type_free(&odd);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void sleeper(void)
{
    MPI_Win win;
    size_t len = (size_t)nprocs * SL_N * sizeof(int);
    int *mem;
    MPI_Win_allocate((MPI_Aint)len, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    memset(mem, 0, len);
    sleeper_on(win, mem, "allocated");
    MPI_Win_free(&win);
    mem = calloc(1, len);
    MPI_Win_create(mem, (MPI_Aint)len, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    sleeper_on(win, mem, "created");
    MPI_Win_free(&win);
    free(mem);
}

/* ---- derived ---- */
#define DV_N 12
static void derived(void)
{
    /* rank 0's window: DV_N * 3 ints, DV_N doubles, DV_N double-int pairs */
    struct pair {
        double v;
        int i;
    };
    MPI_Aint len = 3 * DV_N * sizeof(int);
    int *mem;
    MPI_Win win;
    MPI_Win_allocate(rank == 0 ? len : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    if (rank == 0)
        for (int i = 0; i < 3 * DV_N; i++)
            mem[i] = i;
    struct pair *pm;
    MPI_Win pwin;
    MPI_Win_allocate(rank == 0 ? DV_N * (MPI_Aint)sizeof(struct pair) : 0, sizeof(struct pair),
                     MPI_INFO_NULL, MPI_COMM_WORLD, &pm, &pwin);
    if (rank == 0)
        for (int i = 0; i < DV_N; i++)
            pm[i] = (struct pair){.v = 100.0, .i = -1};
    MPI_Barrier(MPI_COMM_WORLD);
    /* origin: DV_N ints as a vector (every other int of 2 * DV_N); target: an indexed type of
     * blocks 1, 2, 3 ... laid over ints 0, 3, 6...; result: contiguous */
    MPI_Datatype ovec, tidx;
    MPI_Type_vector(DV_N, 1, 2, MPI_INT, &ovec);
    MPI_Type_commit(&ovec);
    int bl[DV_N / 2], dp[DV_N / 2];
    for (int b = 0; b < DV_N / 2; b++) { /* blocks of 2: ints 0,1 3,4 6,7 ... */
        bl[b] = 2;
        dp[b] = 3 * b;
    }
    MPI_Type_indexed(DV_N / 2, bl, dp, MPI_INT, &tidx);
    MPI_Type_commit(&tidx);
    int orig[2 * DV_N], res[DV_N];
    for (int i = 0; i < 2 * DV_N; i++)
        orig[i] = i % 2 ? -999 : rank + 1;
    MPI_Win_lock_all(0, win);
    MPI_Get_accumulate(orig, 1, ovec, res, DV_N, MPI_INT, 0, 0, 1, tidx, MPI_SUM, win);
    MPI_Win_unlock_all(win);
    /* each result is the value before this rank's addition: at least the initial one, and the
     * same location's earlier additions are sums of (r + 1) of some ranks */
    for (int b = 0; b < DV_N; b++) {
        int loc = 3 * (b / 2) + b % 2;
        CHECK(res[b] >= loc && res[b] <= loc + nprocs * (nprocs + 1) / 2 - (rank + 1),
              "Get_accumulate result %d at %d", res[b], b);
    }
    /* pairs: MINLOC on MPI_DOUBLE_INT, rank r offering (i + r, r) at element i */
    struct pair po[2 * DV_N], pr[DV_N];
    for (int i = 0; i < 2 * DV_N; i++)
        po[i] = (struct pair){.v = (double)(i % DV_N + rank), .i = rank};
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, pwin);
    MPI_Get_accumulate(po, DV_N, MPI_DOUBLE_INT, pr, DV_N, MPI_DOUBLE_INT, 0, 0, DV_N,
                       MPI_DOUBLE_INT, MPI_MINLOC, pwin);
    MPI_Win_unlock(0, pwin);
    for (int i = 0; i < DV_N; i++)
        CHECK(pr[i].v <= 100.0, "MINLOC fetched %g", pr[i].v);
    /* Fetch_and_op on short (SUM), float (SUM) and long long (MAX), a window each */
    short *s;
    float *f;
    long long *l;
    MPI_Win sw, fw, lw;
    MPI_Win_allocate(rank == 0 ? sizeof(short) : 0, sizeof(short), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &s, &sw);
    MPI_Win_allocate(rank == 0 ? sizeof(float) : 0, sizeof(float), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &f, &fw);
    MPI_Win_allocate(rank == 0 ? sizeof(long long) : 0, sizeof(long long), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &l, &lw);
    if (rank == 0) {
        *s = 1;
        *f = 0.5f;
        *l = 1ll << 40;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    short sv = 2, so;
    float fv = 1.0f, fo;
    long long lv = rank, lo;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, sw);
    MPI_Fetch_and_op(&sv, &so, MPI_SHORT, 0, 0, MPI_SUM, sw);
    MPI_Win_unlock(0, sw);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, fw);
    MPI_Fetch_and_op(&fv, &fo, MPI_FLOAT, 0, 0, MPI_SUM, fw);
    MPI_Win_unlock(0, fw);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, lw);
    MPI_Fetch_and_op(&lv, &lo, MPI_LONG_LONG, 0, 0, MPI_MAX, lw);
    MPI_Win_unlock(0, lw);
    CHECK(so >= 1 && so <= 1 + 2 * (nprocs - 1) && so % 2 == 1, "short fetched %d", so);
    CHECK(fo >= 0.5f && fo <= 0.5f + nprocs - 1, "float fetched %g", fo);
    CHECK(lo == 1ll << 40, "long long MAX fetched %lld", lo);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        for (int i = 0; i < 3 * DV_N; i++) {
            int want = i % 3 == 2 || i >= 3 * (DV_N / 2) ? i : i + nprocs * (nprocs + 1) / 2;
            CHECK(mem[i] == want, "window int %d = %d, expected %d", i, mem[i], want);
        }
        MPI_Win_unlock(0, win);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, pwin);
        for (int i = 0; i < DV_N; i++)
            CHECK(pm[i].v == (double)i && pm[i].i == 0, "MINLOC left (%g, %d) at %d", pm[i].v,
                  pm[i].i, i);
        MPI_Win_unlock(0, pwin);
        CHECK(*s == 1 + 2 * nprocs, "short sum %d", *s);
        CHECK(*f == 0.5f + nprocs, "float sum %g", *f);
        CHECK(*l == 1ll << 40, "long long max %lld", *l);
    }
    MPI_Win_free(&sw);
    MPI_Win_free(&fw);
    MPI_Win_free(&lw);
    MPI_Type_free(&ovec);
    MPI_Type_free(&tidx);
    MPI_Win_free(&pwin);
    MPI_Win_free(&win);
}

/* ---- dynamic ---- */
#define DY_N 32
static void dynamic(void)
{
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int *a = calloc(DY_N * nprocs, sizeof(int)), *b = calloc(DY_N * nprocs, sizeof(int));
    MPI_Aint addr[2] = {0, 0};
    if (rank == 0) {
        MPI_Win_attach(win, a, DY_N * nprocs * sizeof(int));
        MPI_Win_attach(win, b, DY_N * nprocs * sizeof(int));
        MPI_Get_address(a, &addr[0]);
        MPI_Get_address(b, &addr[1]);
    }
    MPI_Bcast(addr, 2, MPI_AINT, 0, MPI_COMM_WORLD);
    int v[DY_N], back[DY_N];
    for (int i = 0; i < DY_N; i++)
        v[i] = rank * 100 + i;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Put(v, DY_N, MPI_INT, 0, MPI_Aint_add(addr[0], rank * DY_N * sizeof(int)), DY_N, MPI_INT,
            win);
    MPI_Put(v, DY_N, MPI_INT, 0, MPI_Aint_add(addr[1], rank * DY_N * sizeof(int)), DY_N, MPI_INT,
            win);
    MPI_Win_flush(0, win);
    MPI_Get(back, DY_N, MPI_INT, 0, MPI_Aint_add(addr[1], rank * DY_N * sizeof(int)), DY_N, MPI_INT,
            win);
    MPI_Win_unlock(0, win);
    for (int i = 0; i < DY_N; i++)
        CHECK(back[i] == v[i], "dynamic: got %d at %d", back[i], i);
    MPI_Barrier(MPI_COMM_WORLD);
    int *c = NULL;
    if (rank == 0) {
        for (int i = 0; i < DY_N * nprocs; i++)
            CHECK(a[i] == (i / DY_N) * 100 + i % DY_N, "dynamic: a[%d] = %d", i, a[i]);
        MPI_Win_detach(win, a);
        c = calloc(DY_N * nprocs, sizeof(int));
        MPI_Win_attach(win, c, DY_N * nprocs * sizeof(int));
        MPI_Get_address(c, &addr[0]);
    }
    MPI_Bcast(addr, 1, MPI_AINT, 0, MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Accumulate(v, DY_N, MPI_INT, 0, MPI_Aint_add(addr[0], rank * DY_N * sizeof(int)), DY_N,
                   MPI_INT, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < DY_N * nprocs; i++)
            CHECK(c[i] == (i / DY_N) * 100 + i % DY_N, "dynamic: new region [%d] = %d", i, c[i]);
        MPI_Win_detach(win, b);
        MPI_Win_detach(win, c);
    }
    MPI_Win_free(&win);
    free(a);
    free(b);
    free(c);
}

/* ---- shared ---- */
static void shared(void)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nr, nn;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &nn);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    /* rank r has 100 * r ints (rank 0 none), unit 4 */
    MPI_Aint mine = (MPI_Aint)(100 * nr) * (MPI_Aint)sizeof(int);
    int *base;
    MPI_Win win;
    MPI_Win_allocate_shared(mine, sizeof(int), info, node, &base, &win);
    MPI_Info_free(&info);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < 100 * nr; i++)
        base[i] = nr * 10000 + i;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    for (int r = 0; r < nn; r++) {
        MPI_Aint size;
        int unit;
        int *p;
        MPI_Win_shared_query(win, r, &size, &unit, &p);
        CHECK(size == (MPI_Aint)(100 * r) * (MPI_Aint)sizeof(int), "query %d: size %ld", r,
              (long)size);
        CHECK(unit == (int)sizeof(int), "query %d: unit %d", r, unit);
        for (int i = 0; i < 100 * r && p; i++)
            CHECK(p[i] == r * 10000 + i, "shared: rank %d [%d] = %d", r, i, p[i]);
    }
    if (nn > 1) {
        MPI_Aint size;
        int unit;
        int *p, *p1;
        MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &unit, &p);
        MPI_Win_shared_query(win, 1, &size, &unit, &p1);
        CHECK(p == p1, "MPI_PROC_NULL query is not the first rank with memory (rank 1)");
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}

/* ---- request ---- */
#define RQ_N 256
static void request(void)
{
    int *mem;
    MPI_Win win;
    MPI_Aint len = (MPI_Aint)nprocs * 2 * RQ_N * sizeof(int);
    MPI_Win_allocate(pages((size_t)len), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    memset(mem, 0, (size_t)len);
    MPI_Barrier(MPI_COMM_WORLD);
    int t = (rank + 1) % nprocs, buf[2 * RQ_N], back[2 * RQ_N];
    for (int i = 0; i < RQ_N; i++)
        buf[i] = rank * 1000 + i;
    MPI_Request rq;
    MPI_Win_lock_all(0, win);
    MPI_Rput(buf, RQ_N, MPI_INT, t, rank * 2 * RQ_N, RQ_N, MPI_INT, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    for (int i = 0; i < RQ_N; i++) /* locally complete: the buffer may be reused */
        buf[i] = -1;
    MPI_Win_flush(t, win);
    MPI_Rget(back, RQ_N, MPI_INT, t, rank * 2 * RQ_N, RQ_N, MPI_INT, win, &rq);
    int flag = 0;
    while (!flag)
        MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
    for (int i = 0; i < RQ_N; i++)
        CHECK(back[i] == rank * 1000 + i, "Rput / Rget: %d at %d", back[i], i);
    /* Rget into every other int of back */
    MPI_Datatype every2;
    MPI_Type_vector(RQ_N, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    for (int i = 0; i < 2 * RQ_N; i++)
        back[i] = -7;
    MPI_Rget(back, 1, every2, t, rank * 2 * RQ_N, RQ_N, MPI_INT, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    for (int i = 0; i < 2 * RQ_N; i++)
        CHECK(back[i] == (i % 2 ? -7 : rank * 1000 + i / 2), "strided Rget: %d at %d", back[i], i);
    /* Raccumulate then Rget_accumulate (NO_OP: an atomic read) */
    int ones[RQ_N];
    for (int i = 0; i < RQ_N; i++)
        ones[i] = 1;
    MPI_Raccumulate(ones, RQ_N, MPI_INT, t, rank * 2 * RQ_N + RQ_N, RQ_N, MPI_INT, MPI_SUM, win,
                    &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Rget_accumulate(NULL, 0, MPI_INT, back, RQ_N, MPI_INT, t, rank * 2 * RQ_N + RQ_N, RQ_N,
                        MPI_INT, MPI_NO_OP, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    for (int i = 0; i < RQ_N; i++)
        CHECK(back[i] == 1, "Raccumulate then Rget_accumulate: %d at %d", back[i], i);
    MPI_Win_unlock_all(win);
    MPI_Type_free(&every2);
    MPI_Win_free(&win);
}

/* ---- fence ---- */
static void fence(void)
{
    int *mem;
    MPI_Win win;
    MPI_Win_allocate(pages((size_t)nprocs * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < nprocs; i++)
        mem[i] = -1;
    int t = (rank + 1) % nprocs, v = rank, got = -5;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Put(&v, 1, MPI_INT, t, rank, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSTORE, win); /* no local stores in the epoch before */
    MPI_Get(&got, 1, MPI_INT, t, rank, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOPUT, win); /* the window is not updated by puts in the epoch after */
    CHECK(got == rank, "fence: got %d", got);
    int from = (rank + nprocs - 1) % nprocs;
    CHECK(mem[from] == from, "fence: my [%d] = %d", from, mem[from]);
    got = -5;
    MPI_Get(&got, 1, MPI_INT, t, rank, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win);
    CHECK(got == rank, "fence: got %d in the NOPUT epoch", got);
    /* after NOSUCCEED: a passive-target epoch */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
    v = 100 + rank;
    MPI_Accumulate(&v, 1, MPI_INT, t, rank, 1, MPI_INT, MPI_REPLACE, win);
    MPI_Win_unlock(t, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    CHECK(mem[from] == 100 + from, "after the fences: my [%d] = %d", from, mem[from]);
    MPI_Win_unlock(rank, win);
    MPI_Win_free(&win);
}

/* ---- pscw ---- */
static void pscw(void)
{
    int *mem;
    MPI_Win win;
    MPI_Win_allocate(pages((size_t)nprocs * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < nprocs; i++)
        mem[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Group world, others, zero;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int z = 0;
    MPI_Group_excl(world, 1, &z, &others);
    MPI_Group_incl(world, 1, &z, &zero);
    /* rank 0 exposed to everyone else, who each put their rank at [rank] */
    if (rank == 0) {
        MPI_Win_post(others, 0, win);
        MPI_Win_wait(win);
        for (int r = 1; r < nprocs; r++)
            CHECK(mem[r] == r, "pscw: [%d] = %d", r, mem[r]);
    } else {
        MPI_Win_start(zero, 0, win);
        MPI_Put(&rank, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
        MPI_Win_complete(win);
    }
    /* rank 0 accesses everyone else: puts 50 + r at their [0], gets their [r] back */
    int got[64];
    if (rank == 0) {
        MPI_Win_start(others, 0, win);
        for (int r = 1; r < nprocs && r < 64; r++) {
            int v = 50 + r;
            MPI_Accumulate(&v, 1, MPI_INT, r, 0, 1, MPI_INT, MPI_REPLACE, win);
            MPI_Get(&got[r], 1, MPI_INT, r, r, 1, MPI_INT, win);
        }
        MPI_Win_complete(win);
        for (int r = 1; r < nprocs && r < 64; r++)
            CHECK(got[r] == -1, "pscw: rank %d's [%d] = %d", r, r, got[r]);
    } else {
        MPI_Win_post(zero, 0, win);
        int flag = 0;
        while (!flag)
            MPI_Win_test(win, &flag);
        CHECK(mem[0] == 50 + rank, "pscw: my [0] = %d after rank 0's access", mem[0]);
    }
    MPI_Group_free(&world);
    MPI_Group_free(&others);
    MPI_Group_free(&zero);
    MPI_Win_free(&win);
}

/* ---- errors ---- */
static int cls(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

static void errors(void)
{
    int *mem;
    MPI_Win win;
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < 4; i++)
        mem[i] = 7;
    MPI_Barrier(MPI_COMM_WORLD);
    int t = (rank + 1) % nprocs, v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(cls(MPI_Put(v, 1, MPI_INT, t, 0, 1, MPI_INT, win)) == MPI_ERR_RMA_SYNC,
          "a put outside any epoch");
    CHECK(cls(MPI_Win_unlock(t, win)) == MPI_ERR_RMA_SYNC, "unlock without lock");
    CHECK(cls(MPI_Win_complete(win)) == MPI_ERR_RMA_SYNC, "complete without start");
    CHECK(cls(MPI_Win_wait(win)) == MPI_ERR_RMA_SYNC, "wait without post");
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    CHECK(cls(MPI_Put(v, 2, MPI_INT, t, 3, 2, MPI_INT, win)) == MPI_ERR_RMA_RANGE,
          "a put past the window's end");
    CHECK(cls(MPI_Get(v, 1, MPI_INT, t, -1, 1, MPI_INT, win)) == MPI_ERR_RMA_RANGE,
          "a get at displacement -1");
    CHECK(cls(MPI_Accumulate(v, 8, MPI_INT, t, 0, 8, MPI_INT, MPI_SUM, win)) == MPI_ERR_RMA_RANGE,
          "an accumulate of 8 ints into 4");
    CHECK(cls(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win)) == MPI_ERR_RMA_SYNC,
          "a second lock of the same target");
    MPI_Win_unlock(t, win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++)
        CHECK(mem[i] == 7, "errors: [%d] = %d: a refused operation wrote", i, mem[i]);
    MPI_Win_free(&win);
}

/* ---- manyget ---- */
#define MG_BYTES (32 * 1024)
static void manyget(void)
{
    int n = getenv("MANYGET") ? atoi(getenv("MANYGET")) : 4000;
    int *mem;
    MPI_Win win;
    int *buf = malloc(MG_BYTES);
    MPI_Win_allocate(rank == 0 ? MG_BYTES : 0, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                     &win);
    if (rank == 0)
        for (int i = 0; i < MG_BYTES / 4; i++)
            mem[i] = i * 3;
    MPI_Win_fence(0, win);
    if (rank != 0)
        for (int i = 0; i < n; i++)
            MPI_Get(buf, MG_BYTES / 4, MPI_INT, 0, 0, MG_BYTES / 4, MPI_INT, win);
    MPI_Win_fence(0, win);
    if (rank != 0)
        for (int i = 0; i < MG_BYTES / 4; i++)
            if (buf[i] != i * 3) {
                CHECK(0, "manyget: [%d] = %d", i, buf[i]);
                break;
            }
    MPI_Win_free(&win);
    free(buf);
}

static const struct {
    const char *name;
    void (*fn)(void);
} cases[] = {
    {"cas_lock", cas_lock}, {"sleeper", sleeper}, {"derived", derived}, {"dynamic", dynamic},
    {"shared", shared},     {"request", request}, {"fence", fence},     {"pscw", pscw},
    {"errors", errors},     {"manyget", manyget},
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (nprocs < 2) {
        if (rank == 0)
            printf("rma_std: needs 2 ranks or more\n");
        MPI_Finalize();
        return 77;
    }
    int ran = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
            continue;
        cases[i].fn();
        MPI_Barrier(MPI_COMM_WORLD);
        ran++;
    }
    CHECK(ran > 0, "no case named %s", argc > 1 ? argv[1] : "");
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_std: %s (%d failures)\n", all ? "FAIL" : "ok", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
