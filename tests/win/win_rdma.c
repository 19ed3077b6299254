/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Windows on the network direct path (runtime/win/win_rdma.c), standard MPI plus, when softib
 * is preloaded and MT_WIN_RDMA=1 says the library was asked for that path, softib's operation
 * counters (softib_counters.h) to prove how each operation travelled:
 *   - a contiguous Put is one RDMA WRITE, a Get one RDMA READ (also from a non-contiguous
 *     origin; from the origin's own window memory without a registration-cache lookup, MPI_T's
 *     ibex_verbs_reg_hits / _misses), Fetch_and_op / Compare_and_swap one atomic each, lock and
 * unlock atomics, and the origin sends nothing in the whole epoch;
 *   - a strided target: one WRITE / READ per block, nothing sent to the target;
 *   - a target computing in a loop without MPI calls while the others lock, put, get (also to
 *     a strided target), fetch-and-add, flush and unlock: each origin's epoch takes well under
 *     the loop;
 *   - a contended Fetch_and_op counter and a Compare_and_swap spin lock from every rank (exact
 *     final values), Accumulate / Get_accumulate of 8-byte types (SUM, REPLACE, NO_OP, and
 *     MAX / SUM on double / MAXLOC on MPI_2INT from every rank at once)
 *     against a reference computed here, and an out-of-range access refused untouched;
 *   - a dynamic window: the same with a computing target (MT_WIN_NOCPU=1: each epoch under
 *     0.5 s; with the counters, the origin reading the target's regions by three READs), and
 *     MPI_ERR_RMA_RANGE after a detach;
 *   - the large-count creation calls (MPI_Win_allocate_c, create_c, allocate_shared_c,
 *     shared_query_c).
 */
#include <dlfcn.h>
#include <unistd.h>

#include "mpitest.h"
#include "softib_counters.h"

#define N      256
#define ROUNDS 40

static int rank, size;
static softib_counters_get_fn counters; /* NULL: not under softib, or not asked to check */

static void snap(struct softib_counters *c)
{
    if (counters)
        counters(c);
}

/* Each origin in turn: one epoch on the last rank, counted. */
static void counted(MPI_Win win, long *base)
{
    int t = size - 1;
    long src[N], got[N], one = 1, old = -1, cmp = 0, swp = 7, seen = -1;
    for (int r = 0; r < size - 1; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank != r)
            continue;
        for (int i = 0; i < N; i++)
            src[i] = 1000 * rank + i;
        struct softib_counters c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0}, c4 = {0};
        snap(&c0);
        CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
        snap(&c1);
        CHECK_RC(MPI_Put(src, N, MPI_LONG, t, 0, N, MPI_LONG, win));
        CHECK_RC(MPI_Win_flush(t, win));
        snap(&c2);
        CHECK_RC(MPI_Get(got, N, MPI_LONG, t, 0, N, MPI_LONG, win));
        CHECK_RC(MPI_Win_flush(t, win));
        snap(&c3);
        CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_LONG, t, N, MPI_SUM, win));
        CHECK_RC(MPI_Compare_and_swap(&swp, &cmp, &seen, MPI_LONG, t, N + 1, win));
        CHECK_RC(MPI_Win_unlock(t, win));
        snap(&c4);
        CHECK(memcmp(src, got, sizeof(src)) == 0);
        CHECK(old == r); /* the counter at N counts the origins before */
        CHECK(seen == (r == 0 ? 0 : 7));
        if (!counters)
            continue;
        CHECK(c1.atomic - c0.atomic == 1); /* the lock: one compare-and-swap */
        CHECK(c2.rdma_write - c1.rdma_write == 1);
        CHECK(c3.rdma_read - c2.rdma_read == 1);
        CHECK(c4.atomic - c3.atomic == 3); /* fetch-and-add, compare-and-swap, unlock */
        /* no request went to the target (the active-message path sends one per call): at most
         * one explicit credit return of the transport, owed from the barrier before */
        CHECK(c4.send - c0.send <= 1 && c4.ud_send == c0.ud_send);
        CHECK(c4.rdma_write - c0.rdma_write == 1 && c4.rdma_read - c0.rdma_read == 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == t && size > 1)
        CHECK(base[N] == size - 1 && base[N + 1] == 7);
}

/* The verbs registration cache's hits and misses, counted from when the handles start. */
typedef struct {
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h[2];
} reg_counters_t;

static void reg_open(reg_counters_t *c)
{
    static const char *names[] = {"ibex_verbs_reg_hits", "ibex_verbs_reg_misses"};
    CHECK_RC(MPI_T_pvar_session_create(&c->s));
    for (int k = 0; k < 2; k++) {
        int i, count;
        CHECK_RC(MPI_T_pvar_get_index(names[k], MPI_T_PVAR_CLASS_COUNTER, &i));
        CHECK_RC(MPI_T_pvar_handle_alloc(c->s, i, NULL, &c->h[k], &count));
    }
    CHECK_RC(MPI_T_pvar_start(c->s, MPI_T_PVAR_ALL_HANDLES));
}

static unsigned long long reg_lookups(reg_counters_t *c)
{
    unsigned long long sum = 0;
    for (int k = 0; k < 2; k++) {
        unsigned long long v = 0;
        CHECK_RC(MPI_T_pvar_read(c->s, c->h[k], &v));
        sum += v;
    }
    return sum;
}

/* An origin buffer inside the origin's own window memory travels with the window's
 * registration: a Put from it and a Get into it look nothing up in the registration cache. */
static void own_origin(MPI_Win win, long *base)
{
    int t = size - 1, provided;
    if (!counters || rank != 0 || t == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    for (int i = 0; i < N; i++)
        base[3 * N + i] = 5000 + i;
    reg_counters_t rc;
    reg_open(&rc);
    unsigned long long before = reg_lookups(&rc);
    CHECK_RC(MPI_Put(base + 3 * N, N, MPI_LONG, t, 2 * N, N, MPI_LONG, win));
    CHECK_RC(MPI_Win_flush(t, win));
    memset(base + 3 * N, 0, N * sizeof(long));
    CHECK_RC(MPI_Get(base + 3 * N, N, MPI_LONG, t, 2 * N, N, MPI_LONG, win));
    CHECK_RC(MPI_Win_flush(t, win));
    CHECK(reg_lookups(&rc) == before);
    unsigned long long seen = reg_lookups(&rc);
    for (int i = 0; i < N; i++)
        CHECK(base[3 * N + i] == 5000 + i);
    memset(base + 3 * N, 0, N * sizeof(long)); /* both places zero again for the tests after */
    CHECK_RC(MPI_Put(base + 3 * N, N, MPI_LONG, t, 2 * N, N, MPI_LONG, win));
    CHECK_RC(MPI_Win_unlock(t, win));
    /* the counters do count: a Get into an origin outside the window (a Put that small goes
       inline, with no registration at all) */
    long other[4] = {1, 2, 3, 4};
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    CHECK_RC(MPI_Get(other, 4, MPI_LONG, t, 2 * N, 4, MPI_LONG, win));
    CHECK_RC(MPI_Win_flush(t, win));
    CHECK(reg_lookups(&rc) > seen);
    long zero[4] = {0};
    CHECK_RC(MPI_Put(zero, 4, MPI_LONG, t, 2 * N, 4, MPI_LONG, win));
    CHECK_RC(MPI_Win_unlock(t, win));
    CHECK_RC(MPI_T_pvar_session_free(&rc.s));
    CHECK_RC(MPI_T_finalize());
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A strided origin into a contiguous target is still one WRITE (packed first); reading back
 * into a strided origin one READ. */
static void strided(MPI_Win win, long *base)
{
    int t = (rank + 1) % size;
    long src[2 * 16], back[2 * 16];
    MPI_Datatype vec;
    MPI_Type_vector(16, 1, 2, MPI_LONG, &vec);
    MPI_Type_commit(&vec);
    for (int i = 0; i < 32; i++) {
        src[i] = i % 2 ? -1 : 100 * rank + i;
        back[i] = -5;
    }
    struct softib_counters c0 = {0}, c1 = {0};
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    snap(&c0);
    CHECK_RC(MPI_Put(src, 1, vec, t, N + 2 + 16 * rank, 16, MPI_LONG, win));
    CHECK_RC(MPI_Win_flush(t, win));
    CHECK_RC(MPI_Get(back, 1, vec, t, N + 2 + 16 * rank, 16, MPI_LONG, win));
    MPI_Win_unlock(t, win);
    snap(&c1);
    MPI_Type_free(&vec);
    for (int i = 0; i < 32; i++)
        CHECK(back[i] == (i % 2 ? -5 : 100 * rank + i));
    if (counters)
        CHECK(c1.rdma_write - c0.rdma_write == 1 && c1.rdma_read - c0.rdma_read == 1);
    MPI_Barrier(MPI_COMM_WORLD);
    int from = (rank + size - 1) % size;
    for (int i = 0; i < 16; i++)
        CHECK(base[N + 2 + 16 * from + i] == 100 * from + 2 * i);
}

/* A strided target: on the network path one WRITE / READ per block, no request to the target;
 * a Get with both sides strided (bounce buffer unpacked at completion), an Rget's request. */
static void strided_target(MPI_Win win, long *base)
{
    int t = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Aint at = N + 80 + 32 * rank;
    long src[16], back[16], both[32];
    MPI_Datatype vec;
    MPI_Type_vector(16, 1, 2, MPI_LONG, &vec);
    MPI_Type_commit(&vec);
    for (int i = 0; i < 16; i++)
        src[i] = 1000 * rank + i + 7, back[i] = -1;
    for (int i = 0; i < 32; i++)
        both[i] = -3;
    struct softib_counters c0 = {0}, c1 = {0};
    MPI_Request req;
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    snap(&c0);
    CHECK_RC(MPI_Put(src, 16, MPI_LONG, t, at, 1, vec, win));
    CHECK_RC(MPI_Win_flush(t, win));
    CHECK_RC(MPI_Rget(back, 16, MPI_LONG, t, at, 1, vec, win, &req));
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
    snap(&c1);
    CHECK_RC(MPI_Get(both, 1, vec, t, at, 1, vec, win));
    MPI_Win_unlock(t, win);
    for (int i = 0; i < 16; i++)
        CHECK(back[i] == src[i] && both[2 * i] == src[i] && both[2 * i + 1] == -3);
    if (counters)
        CHECK(c1.rdma_write - c0.rdma_write == 16 && c1.rdma_read - c0.rdma_read == 16 &&
              c1.send - c0.send <= 1);
    MPI_Type_free(&vec);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 16; i++) /* the gaps between the blocks untouched */
        CHECK(base[N + 80 + 32 * from + 2 * i] == 1000 * from + i + 7 &&
              base[N + 80 + 32 * from + 2 * i + 1] == 0);
    MPI_Barrier(MPI_COMM_WORLD);
}

static volatile double sink;

/* The last rank computes for 1.5 s without MPI calls; every other rank's passive epoch on it
 * must take well under that. */
static void busy_target(MPI_Win win, long *base, int fast)
{
    int t = size - 1;
    long off = 2 * N;
    MPI_Datatype vec2; /* a strided target: RDMA per block on the network path */
    MPI_Type_vector(4, 1, 2, MPI_LONG, &vec2);
    MPI_Type_commit(&vec2);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == t) {
        double t0 = MPI_Wtime(), x = 1;
        while (MPI_Wtime() - t0 < 1.5)
            for (int i = 0; i < 100000; i++)
                x = x * 1.0000001 + 1e-9;
        sink = x;
    } else {
        long v[8], got[8], one = 1, old;
        for (int i = 0; i < 8; i++)
            v[i] = 10 * rank + i;
        double t0 = MPI_Wtime();
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        CHECK_RC(MPI_Put(v, 8, MPI_LONG, t, off + 8 * rank, 8, MPI_LONG, win));
        CHECK_RC(MPI_Win_flush(t, win));
        CHECK_RC(MPI_Get(got, 8, MPI_LONG, t, off + 8 * rank, 8, MPI_LONG, win));
        CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_LONG, t, off - 1, MPI_SUM, win));
        long sv[4], sg[4] = {0};
        for (int i = 0; i < 4; i++)
            sv[i] = -10 * rank - i;
        CHECK_RC(MPI_Put(sv, 4, MPI_LONG, t, off + N / 2 + 8 * rank, 1, vec2, win));
        CHECK_RC(MPI_Win_flush(t, win));
        CHECK_RC(MPI_Get(sg, 4, MPI_LONG, t, off + N / 2 + 8 * rank, 1, vec2, win));
        CHECK_RC(MPI_Win_unlock(t, win));
        double dt = MPI_Wtime() - t0;
        CHECK(memcmp(v, got, sizeof(v)) == 0 && memcmp(sv, sg, sizeof(sv)) == 0);
        if (fast && dt > 0.75)
            fprintf(stderr, "rank %d: epoch on a computing target took %.2f s\n", rank, dt);
        CHECK(!fast || dt < 0.75);
    }
    MPI_Type_free(&vec2);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == t) {
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        CHECK(base[off - 1] == size - 1);
        for (int r = 0; r < t; r++)
            for (int i = 0; i < 8; i++)
                CHECK(base[off + 8 * r + i] == 10 * r + i &&
                      base[off + N / 2 + 8 * r + i] == (i % 2 ? 0 : -10 * r - i / 2));
        MPI_Win_unlock(t, win);
    }
}

/* Every rank adds 1 ROUNDS times to rank 0's counter and takes a Compare_and_swap spin lock
 * on rank 0 to increment a plain word by Get + Put. */
static void contention(MPI_Win win, long *base)
{
    long one = 1, old, last = -1, zero = 0, me = rank + 1, held, cur;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < ROUNDS; i++) {
        CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 3 * N, MPI_SUM, win));
        CHECK_RC(MPI_Win_flush(0, win));
        CHECK(old > last);
        last = old;
        do {
            CHECK_RC(MPI_Compare_and_swap(&me, &zero, &held, MPI_LONG, 0, 3 * N + 1, win));
            CHECK_RC(MPI_Win_flush(0, win));
        } while (held != 0);
        CHECK_RC(MPI_Get(&cur, 1, MPI_LONG, 0, 3 * N + 2, 1, MPI_LONG, win));
        CHECK_RC(MPI_Win_flush(0, win));
        cur++;
        CHECK_RC(MPI_Put(&cur, 1, MPI_LONG, 0, 3 * N + 2, 1, MPI_LONG, win));
        CHECK_RC(MPI_Win_flush(0, win));
        CHECK_RC(MPI_Compare_and_swap(&zero, &me, &held, MPI_LONG, 0, 3 * N + 1, win));
        CHECK_RC(MPI_Win_flush(0, win));
        CHECK(held == me);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        CHECK(base[3 * N] == (long)ROUNDS * size);
        CHECK(base[3 * N + 2] == (long)ROUNDS * size);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Accumulate SUM of 16 int64 from every rank into rank 0, then Get_accumulate REPLACE and
 * NO_OP, against values computed here. */
static void accumulates(MPI_Win win, long *base)
{
    int64_t add[16], prev[16], now[16], mine[16];
    int off = 3 * N + 8;
    for (int i = 0; i < 16; i++)
        add[i] = (int64_t)(rank + 1) * (i + 1);
    MPI_Win_fence(0, win);
    CHECK_RC(MPI_Accumulate(add, 16, MPI_INT64_T, 0, off, 16, MPI_INT64_T, MPI_SUM, win));
    MPI_Win_fence(0, win);
    int64_t total = (int64_t)size * (size + 1) / 2;
    if (rank == 0)
        for (int i = 0; i < 16; i++)
            CHECK(base[off + i] == total * (i + 1));
    for (int i = 0; i < 16; i++)
        mine[i] = -(int64_t)rank - 1;
    for (int r = 0; r < size; r++) { /* one at a time, so the old values are known */
        if (rank == r) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            CHECK_RC(MPI_Get_accumulate(mine, 16, MPI_INT64_T, prev, 16, MPI_INT64_T, 0, off, 16,
                                        MPI_INT64_T, MPI_REPLACE, win));
            CHECK_RC(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, now, 16, MPI_INT64_T, 0, off, 16,
                                        MPI_INT64_T, MPI_NO_OP, win));
            MPI_Win_unlock(0, win);
            for (int i = 0; i < 16; i++) {
                CHECK(prev[i] == (r == 0 ? total * (i + 1) : -(int64_t)r));
                CHECK(now[i] == mine[i]);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
}

/* MAXLOC's answer over every rank's (q * 7 % size, q): the largest value, the lowest index. */
static void maxloc_ref(int *best, int *at)
{
    *best = -1;
    for (int q = 0; q < size; q++)
        if (q * 7 % size > *best)
            *best = q * 7 % size, *at = q;
}

/* Every rank at once: MAX on int64, SUM on double (small integers: exact in any order),
 * MAXLOC on MPI_2INT, each a compare-and-swap loop on the network path. */
static void concurrent_accumulates(MPI_Win win, long *base)
{
    int off = 3 * N + 8;
    int64_t mx[4];
    double dv[4];
    int pair[2] = {rank * 7 % size, rank};
    for (int i = 0; i < 4; i++) {
        mx[i] = (int64_t)((rank * 5 + i) % size) - 3;
        dv[i] = rank + i;
    }
    MPI_Win_lock_all(0, win);
    for (int r = 0; r < 5; r++) {
        CHECK_RC(MPI_Accumulate(mx, 4, MPI_INT64_T, 0, off + 16, 4, MPI_INT64_T, MPI_MAX, win));
        CHECK_RC(MPI_Accumulate(dv, 4, MPI_DOUBLE, 0, off + 20, 4, MPI_DOUBLE, MPI_SUM, win));
        CHECK_RC(MPI_Accumulate(pair, 1, MPI_2INT, 0, off + 24, 1, MPI_2INT, MPI_MAXLOC, win));
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        const double *d = (const double *)&base[off + 20];
        const int *p = (const int *)&base[off + 24];
        int best, at = -1;
        maxloc_ref(&best, &at);
        for (int i = 0; i < 4; i++) {
            int64_t m = -3; /* the initial 0 counts too */
            for (int q = 0; q < size; q++)
                if ((int64_t)((q * 5 + i) % size) - 3 > m)
                    m = (int64_t)((q * 5 + i) % size) - 3;
            CHECK(base[off + 16 + i] == (m > 0 ? m : 0));
            CHECK(d[i] == 5.0 * (size * (size - 1) / 2 + size * i));
        }
        CHECK(p[0] == best && p[1] == at);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void range(MPI_Win win, long *base, MPI_Aint bytes)
{
    int t = (rank + 1) % size;
    long v[4] = {1, 2, 3, 4};
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    int rc = MPI_Put(v, 4, MPI_LONG, t, bytes / (MPI_Aint)sizeof(long) - 2, 4, MPI_LONG, win);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE);
    MPI_Win_unlock(t, win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(base[bytes / sizeof(long) - 2] == 0 && base[bytes / sizeof(long) - 1] == 0);
}

/* The large-count creation calls (MPI 4.0): displacement units as MPI_Aint. */
static void large_count(void)
{
    long *b, v = rank;
    MPI_Win w;
    int *unit, flag;
    CHECK_RC(MPI_Win_allocate_c(4 * sizeof(long), (MPI_Aint)sizeof(long), MPI_INFO_NULL,
                                MPI_COMM_WORLD, &b, &w));
    CHECK_RC(MPI_Win_get_attr(w, MPI_WIN_DISP_UNIT, &unit, &flag));
    CHECK(flag && *unit == (int)sizeof(long));
    MPI_Win_fence(0, w);
    CHECK_RC(MPI_Put_c(&v, 1, MPI_LONG, (rank + 1) % size, 1, 1, MPI_LONG, w));
    MPI_Win_fence(0, w);
    CHECK(b[1] == (rank + size - 1) % size);
    CHECK_RC(MPI_Win_free(&w));
    long mem[4];
    CHECK_RC(MPI_Win_create_c(mem, sizeof(mem), 2, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    CHECK_RC(MPI_Win_free(&w));
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nrank;
    MPI_Comm_rank(node, &nrank);
    CHECK_RC(MPI_Win_allocate_shared_c(16 * (nrank + 1), 4, MPI_INFO_NULL, node, &b, &w));
    MPI_Aint sz, du;
    void *p;
    CHECK_RC(MPI_Win_shared_query_c(w, 0, &sz, &du, &p));
    CHECK(sz == 16 && du == 4 && p != NULL);
    CHECK_RC(MPI_Win_free(&w));
    MPI_Comm_free(&node);
}

/* A dynamic window: the last rank computes for 1 s without MPI calls while the others lock,
 * put, get and fetch-and-add into the region it attached (so the origin reads the target's
 * regions itself); after a detach the old address is out of range. */
static void dynamic(int nocpu)
{
    MPI_Win win;
    int t = size - 1;
    long *mem = calloc(64, sizeof(long));
    MPI_Aint mine, *addrs = malloc((size_t)size * sizeof(MPI_Aint));
    CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_RC(MPI_Win_attach(win, mem, 64 * sizeof(long)));
    MPI_Get_address(mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    if (rank == t) {
        double t0 = MPI_Wtime(), x = 1;
        while (MPI_Wtime() - t0 < 1.0)
            for (int i = 0; i < 100000; i++)
                x = x * 1.0000001 + 1e-9;
        sink = x;
    } else {
        long v = rank + 1, got = 0, one = 1, old;
        struct softib_counters c0 = {0}, c1 = {0};
        double t0 = MPI_Wtime();
        snap(&c0);
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        CHECK_RC(MPI_Put(&v, 1, MPI_LONG, t, MPI_Aint_add(addrs[t], rank * 8), 1, MPI_LONG, win));
        CHECK_RC(MPI_Win_flush(t, win));
        CHECK_RC(MPI_Get(&got, 1, MPI_LONG, t, MPI_Aint_add(addrs[t], rank * 8), 1, MPI_LONG, win));
        CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_LONG, t, MPI_Aint_add(addrs[t], 63 * 8), MPI_SUM,
                                  win));
        CHECK_RC(MPI_Win_unlock(t, win));
        snap(&c1);
        double dt = MPI_Wtime() - t0;
        CHECK(got == v);
        if (nocpu && dt > 0.5)
            fprintf(stderr, "rank %d: dynamic epoch on a computing target took %.2f s\n", rank, dt);
        CHECK(!nocpu || dt < 0.5);
        if (counters) /* the regions: generation, table, generation; then the Get */
            CHECK(c1.rdma_write - c0.rdma_write == 1 && c1.rdma_read - c0.rdma_read == 4 &&
                  c1.atomic - c0.atomic == 3 && c1.send - c0.send <= 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == t)
        for (int r = 0; r < t; r++)
            CHECK(mem[r] == r + 1 && mem[63] == t);
    CHECK_RC(MPI_Win_detach(win, mem));
    MPI_Barrier(MPI_COMM_WORLD);
    long v = 9;
    int cls = -1;
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    MPI_Error_class(MPI_Put(&v, 1, MPI_LONG, t, addrs[t], 1, MPI_LONG, win), &cls);
    MPI_Win_unlock(t, win);
    CHECK(cls == MPI_ERR_RMA_RANGE);
    CHECK_RC(MPI_Win_free(&win));
    free(addrs);
    free(mem);
}

static void run(MPI_Win win, long *base, MPI_Aint bytes, int fast)
{
    counted(win, base);
    own_origin(win, base);
    strided(win, base);
    strided_target(win, base);
    busy_target(win, base, fast);
    contention(win, base);
    accumulates(win, base);
    concurrent_accumulates(win, base);
    range(win, base, bytes);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int fast = getenv("MT_WIN_RDMA") != NULL;
    if (fast)
        counters = (softib_counters_get_fn)dlsym(RTLD_DEFAULT, "softib_counters_get");
    CHECK(counters || !getenv("MT_SOFTIB")); /* the script preloaded softib: its counters */
    MPI_Aint bytes = 4 * N * sizeof(long);
    long *base;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    memset(base, 0, (size_t)bytes);
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    run(win, base, bytes, fast);
    CHECK_RC(MPI_Win_free(&win));
    long *mem = calloc(4 * N, sizeof(long));
    CHECK_RC(MPI_Win_create(mem, bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    run(win, mem, bytes, fast);
    CHECK_RC(MPI_Win_free(&win));
    free(mem);
    dynamic(getenv("MT_WIN_NOCPU") != NULL);
    large_count();
    mt_done("win_rdma");
    MPI_Finalize();
    return 0;
}
