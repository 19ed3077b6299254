/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The call sequences of the common benchmark suites' one-sided programs, with their results
 * checked (the suites themselves check nothing):
 *   - OSU osu_put_latency / get_latency / put_bw / get_bw / acc_latency / get_acc_latency /
 *     fop_latency / cas_latency: rank 0 the origin, rank 1 the target, every window creation
 *     mode (MPI_Win_create of posix_memalign'd memory, MPI_Win_allocate, MPI_Win_create_dynamic
 *     + MPI_Win_attach + MPI_Get_address + the address sent to the origin) and every
 *     synchronisation mode (lock_all + flush, lock + flush, lock + flush_local, lock / unlock
 *     around each operation, post / start / complete / wait with one-rank groups, fence);
 *     accumulates on MPI_CHAR with MPI_SUM as OSU issues them, fetch-and-op / compare-and-swap
 *     on MPI_LONG_LONG; bandwidth as a window of operations at consecutive offsets;
 *   - IMB-RMA: MPI_Alloc_mem'd memory under MPI_Win_create, a lock_all epoch for the whole run,
 *     All_put_all / All_get_all with MPI_Win_flush_all, One_put_all, Accumulate and
 *     Get_accumulate on MPI_FLOAT with MPI_SUM, Fetch_and_op on MPI_FLOAT, a contended
 *     Compare_and_swap on MPI_INT, and Truly_passive_put (the target computes without MPI
 *     calls while the origin puts and flushes).
 * Ranks beyond the first two take part in the collective calls only (as OSU wants 2 ranks);
 * the IMB part uses every rank.
 */
#include <stdbool.h>

#include "mpitest.h"

#define ITERS  4
#define WINDOW 8

enum { W_CREATE, W_ALLOCATE, W_DYNAMIC, W_MODES };
enum { S_LOCK_ALL, S_FLUSH, S_FLUSH_LOCAL, S_LOCK, S_PSCW, S_FENCE, S_MODES };
enum { O_PUT, O_GET, O_ACC, O_GACC, O_FOP, O_CAS, O_OPS };

static const char *wname[] = {"create", "allocate", "dynamic"};
static const char *sname[] = {"lock_all", "flush", "flush_local", "lock", "pscw", "fence"};

static int rank, size;

struct osu_win {
    MPI_Win win;
    char *base;      /* this rank's window memory */
    char *mem;       /* create / dynamic: ours to free */
    MPI_Aint disp;   /* the target's displacement of its memory (dynamic: its address) */
    MPI_Group group; /* pscw: the peer alone */
};

/* As OSU's allocate_memory_one_sided: memory by mode, the target's address sent to the origin
 * for a dynamic window. */
static void win_open(int mode, MPI_Aint bytes, struct osu_win *w)
{
    memset(w, 0, sizeof(*w));
    if (mode == W_ALLOCATE) {
        CHECK_RC(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->base, &w->win));
    } else {
        CHECK(posix_memalign((void **)&w->mem, 4096, (size_t)bytes) == 0);
        w->base = w->mem;
        if (mode == W_CREATE)
            CHECK_RC(MPI_Win_create(w->mem, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
    }
    memset(w->base, 0, (size_t)bytes);
    if (mode == W_DYNAMIC) {
        MPI_Aint mine;
        CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
        CHECK_RC(MPI_Win_attach(w->win, w->mem, bytes));
        CHECK_RC(MPI_Get_address(w->mem, &mine));
        w->disp = mine;
        CHECK_RC(MPI_Bcast(&w->disp, 1, MPI_AINT, 1, MPI_COMM_WORLD));
    }
    MPI_Group world;
    int peer = rank == 0 ? 1 : 0;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &peer, &w->group);
    MPI_Group_free(&world);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void win_close(int mode, struct osu_win *w)
{
    if (mode == W_DYNAMIC)
        CHECK_RC(MPI_Win_detach(w->win, w->mem));
    CHECK_RC(MPI_Win_free(&w->win));
    MPI_Group_free(&w->group);
    free(w->mem);
}

/* One operation of the suite's program, at byte offset off of the target's memory. */
static void osu_op(int op, struct osu_win *w, char *sbuf, char *rbuf, int n, MPI_Aint off)
{
    MPI_Aint d = w->disp + off;
    switch (op) {
    case O_PUT:
        CHECK_RC(MPI_Put(sbuf, n, MPI_CHAR, 1, d, n, MPI_CHAR, w->win));
        break;
    case O_GET:
        CHECK_RC(MPI_Get(rbuf, n, MPI_CHAR, 1, d, n, MPI_CHAR, w->win));
        break;
    case O_ACC:
        CHECK_RC(MPI_Accumulate(sbuf, n, MPI_CHAR, 1, d, n, MPI_CHAR, MPI_SUM, w->win));
        break;
    case O_GACC:
        CHECK_RC(MPI_Get_accumulate(sbuf, n, MPI_CHAR, rbuf, n, MPI_CHAR, 1, d, n, MPI_CHAR,
                                    MPI_SUM, w->win));
        break;
    case O_FOP:
        CHECK_RC(MPI_Fetch_and_op(sbuf, rbuf, MPI_LONG_LONG, 1, d, MPI_SUM, w->win));
        break;
    default:
        CHECK_RC(MPI_Compare_and_swap(sbuf, sbuf + 8, rbuf, MPI_LONG_LONG, 1, d, w->win));
    }
}

/* The origin's data for iteration it: a pattern to put, ones to add, (it + 1, it) to swap. */
static void osu_data(int op, char *sbuf, int n, int nops, int it)
{
    if (op == O_PUT)
        mt_fill(sbuf, (size_t)n * nops, 100u + (unsigned)it);
    else if (op == O_ACC || op == O_GACC)
        memset(sbuf, 1, (size_t)n);
    else if (op == O_FOP)
        *(long long *)(void *)sbuf = 1;
    else if (op == O_CAS)
        ((long long *)(void *)sbuf)[0] = it + 1, ((long long *)(void *)sbuf)[1] = it;
}

/* After the iteration's operations completed at the origin: what the fetching ones returned
 * (a Get: the target's pattern, seeded 7; Get_accumulate: it ones added before). */
static void osu_check_result(int op, const char *rbuf, int n, int nops, int it)
{
    for (size_t k = 0; op == O_GET && k < (size_t)n * nops; k++)
        CHECK((unsigned char)rbuf[k] == mt_pattern(7, k));
    for (int k = 0; op == O_GACC && k < n; k++)
        CHECK(rbuf[k] == (char)it);
    if (op == O_FOP || op == O_CAS)
        CHECK(*(const long long *)(const void *)rbuf == it);
}

/* The operations of one iteration: one (latency) or nops at consecutive offsets (bandwidth),
 * each with its own result buffer. */
static void osu_ops(int op, struct osu_win *w, char *sbuf, char *rbuf, int n, int nops)
{
    int step = op == O_ACC || op == O_GACC ? 0 : n; /* accumulates add up at one place */
    for (int j = 0; j < nops; j++)
        osu_op(op, w, sbuf + (op == O_PUT ? (size_t)j * n : 0), rbuf + (size_t)j * n, n,
               (MPI_Aint)j * step);
}

static void osu_epoch_open(int sync, struct osu_win *w)
{
    if (sync == S_LOCK_ALL)
        CHECK_RC(MPI_Win_lock_all(0, w->win));
    else if (sync == S_FLUSH || sync == S_FLUSH_LOCAL)
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w->win));
}

static void osu_epoch_close(int sync, struct osu_win *w)
{
    if (sync == S_LOCK_ALL)
        CHECK_RC(MPI_Win_unlock_all(w->win));
    else if (sync == S_FLUSH || sync == S_FLUSH_LOCAL)
        CHECK_RC(MPI_Win_unlock(1, w->win));
}

/* One iteration at the origin under sync (the target's side of pscw / fence in osu_target). */
static void osu_iter(int sync, int op, struct osu_win *w, char *sbuf, char *rbuf, int n, int nops)
{
    if (sync == S_LOCK)
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w->win));
    else if (sync == S_PSCW)
        CHECK_RC(MPI_Win_start(w->group, 0, w->win));
    else if (sync == S_FENCE)
        CHECK_RC(MPI_Win_fence(0, w->win));
    osu_ops(op, w, sbuf, rbuf, n, nops);
    if (sync == S_LOCK_ALL || sync == S_FLUSH)
        CHECK_RC(MPI_Win_flush(1, w->win));
    else if (sync == S_FLUSH_LOCAL)
        CHECK_RC(MPI_Win_flush_local(1, w->win));
    else if (sync == S_LOCK)
        CHECK_RC(MPI_Win_unlock(1, w->win));
    else if (sync == S_PSCW)
        CHECK_RC(MPI_Win_complete(w->win));
    else
        CHECK_RC(MPI_Win_fence(0, w->win));
}

/* The target's part: its memory set for a Get, exposure epochs for pscw, fences for fence. */
static void osu_target(int sync, struct osu_win *w, int iters)
{
    for (int i = 0; i < iters; i++) {
        if (sync == S_PSCW && rank == 1) {
            CHECK_RC(MPI_Win_post(w->group, 0, w->win));
            CHECK_RC(MPI_Win_wait(w->win));
        } else if (sync == S_FENCE) {
            CHECK_RC(MPI_Win_fence(0, w->win));
            CHECK_RC(MPI_Win_fence(0, w->win));
        }
    }
}

/* The target's memory after the run, against what the origin did. */
static void osu_verify(int op, const char *base, int n, int nops, int iters)
{
    size_t bad =
        op == O_PUT ? mt_verify(base, (size_t)n * nops, 100u + (unsigned)(iters - 1)) : (size_t)-1;
    if (bad != (size_t)-1)
        fprintf(stderr, "put of %d x %d bytes: byte %zu is %d, not %d\n", nops, n, bad,
                (unsigned char)base[bad], mt_pattern(100u + (unsigned)(iters - 1), bad));
    CHECK(bad == (size_t)-1);
    for (int k = 0; (op == O_ACC || op == O_GACC) && k < n; k++)
        CHECK(base[k] == (char)(iters * nops));
    if (op == O_FOP || op == O_CAS)
        CHECK(*(const long long *)(const void *)base == iters);
}

static void osu_case(int mode, int sync, int op, int n, int nops)
{
    struct osu_win w;
    /* whole pages: MPICH 4.0 loses puts into an allocated window of 17 bytes */
    MPI_Aint bytes = ((MPI_Aint)n * nops + 16 + 4095) / 4096 * 4096;
    char *sbuf = calloc(1, (size_t)bytes), *rbuf = calloc(1, (size_t)bytes);
    win_open(mode, bytes, &w);
    if (rank == 1 && op == O_GET)
        mt_fill(w.base, (size_t)n * nops, 7);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        osu_epoch_open(sync, &w);
        for (int it = 0; it < ITERS; it++) {
            osu_data(op, sbuf, n, nops, it);
            osu_iter(sync, op, &w, sbuf, rbuf, n, nops);
            osu_check_result(op, rbuf, n, nops, it);
        }
        osu_epoch_close(sync, &w);
    } else {
        osu_target(sync, &w, ITERS);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) { /* every epoch is closed: read under a lock of our own */
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w.win));
        osu_verify(op, w.base, n, nops, ITERS);
        CHECK_RC(MPI_Win_unlock(1, w.win));
    }
    win_close(mode, &w);
    free(sbuf);
    free(rbuf);
}

/* Each operation's sizes: OSU's 1 B .. 4 MiB sampled (accumulates as one byte each: MPI_CHAR),
 * fetch-and-op / compare-and-swap one MPI_LONG_LONG. */
static void osu_all(void)
{
    static const int sizes[] = {1, 8, 4096, 65536, 1 << 20};
    for (int mode = 0; mode < W_MODES; mode++)
        for (int sync = 0; sync < S_MODES; sync++) {
            for (int op = 0; op < O_OPS; op++) {
                bool atom = op == O_FOP || op == O_CAS;
                for (size_t s = 0; s < (atom ? 1 : sizeof(sizes) / sizeof(*sizes)); s++) {
                    int n = atom ? 8 : sizes[s];
                    /* the Get_accumulate checks assume the result = 1 per byte per op: no
                     * bandwidth form (osu has none) */
                    osu_case(mode, sync, op, n, 1);
                    if ((op == O_PUT || op == O_GET) && n <= 65536)
                        osu_case(mode, sync, op, n, WINDOW); /* osu_put_bw / osu_get_bw */
                }
            }
            if (rank == 0 && getenv("MT_VERBOSE")) {
                printf("osu %s %s: ok\n", wname[mode], sname[sync]);
                fflush(stdout);
            }
        }
}

/* ---- IMB-RMA ---- */

static volatile double sink;

static void imb_all(void)
{
    int n = 64;
    MPI_Aint bytes = (MPI_Aint)(n * size + 16) * (MPI_Aint)sizeof(float);
    float *mem, *src;
    MPI_Win win;
    CHECK_RC(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &mem));
    CHECK_RC(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &src));
    memset(mem, 0, (size_t)bytes);
    CHECK_RC(MPI_Win_create(mem, bytes, sizeof(float), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_RC(MPI_Win_lock_all(0, win));
    /* All_put_all: every rank into every other's slot for it, then flush_all */
    for (int i = 0; i < n; i++)
        src[i] = (float)(rank * 1000 + i);
    for (int t = 0; t < size; t++)
        CHECK_RC(MPI_Put(src, n, MPI_FLOAT, t, rank * n, n, MPI_FLOAT, win));
    CHECK_RC(MPI_Win_flush_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_sync(win));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < n; i++)
            CHECK(mem[r * n + i] == (float)(r * 1000 + i));
    /* All_get_all: read back every rank's slot of mine, flush_local_all */
    float *got = malloc((size_t)(n * size) * sizeof(float));
    for (int t = 0; t < size; t++)
        CHECK_RC(MPI_Get(got + t * n, n, MPI_FLOAT, t, rank * n, n, MPI_FLOAT, win));
    CHECK_RC(MPI_Win_flush_local_all(win));
    for (int t = 0; t < size; t++)
        for (int i = 0; i < n; i++)
            CHECK(got[t * n + i] == (float)(rank * 1000 + i));
    free(got);
    MPI_Barrier(MPI_COMM_WORLD);
    /* Accumulate / Get_accumulate / Fetch_and_op on MPI_FLOAT (small integers: exact) into rank
     * 0's counters after the slots; a contended Compare_and_swap on MPI_INT */
    float one = 1, old, gold;
    int cas_slot = n * size + 3;
    for (int i = 0; i < ITERS; i++) {
        CHECK_RC(MPI_Accumulate(&one, 1, MPI_FLOAT, 0, n * size, 1, MPI_FLOAT, MPI_SUM, win));
        CHECK_RC(MPI_Get_accumulate(&one, 1, MPI_FLOAT, &gold, 1, MPI_FLOAT, 0, n * size + 1, 1,
                                    MPI_FLOAT, MPI_SUM, win));
        CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_FLOAT, 0, n * size + 2, MPI_SUM, win));
        CHECK_RC(MPI_Win_flush(0, win));
        CHECK(old >= (float)i && old < (float)(ITERS * size));
        CHECK(gold >= (float)i && gold < (float)(ITERS * size));
    }
    int me = rank + 1, zero = 0, held = -1;
    do { /* take the word: exactly one winner at a time */
        CHECK_RC(MPI_Compare_and_swap(&me, &zero, &held, MPI_INT, 0, cas_slot, win));
        CHECK_RC(MPI_Win_flush(0, win));
    } while (held != 0);
    CHECK_RC(MPI_Compare_and_swap(&zero, &me, &held, MPI_INT, 0, cas_slot, win));
    CHECK_RC(MPI_Win_flush(0, win));
    CHECK(held == me);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_sync(win));
    if (rank == 0)
        for (int k = 0; k < 3; k++)
            CHECK(mem[n * size + k] == (float)(ITERS * size));
    MPI_Barrier(MPI_COMM_WORLD);
    /* Truly_passive_put: the last rank computes without MPI while rank 0 puts and flushes */
    int t = size - 1;
    if (rank == t && t != 0) {
        double t0 = MPI_Wtime(), x = 1;
        while (MPI_Wtime() - t0 < 0.5)
            for (int i = 0; i < 10000; i++)
                x = x * 1.0000001 + 1e-9;
        sink = x;
    } else if (rank == 0) {
        for (int i = 0; i < n; i++)
            src[i] = (float)(-i);
        CHECK_RC(MPI_Put(src, n, MPI_FLOAT, t, 0, n, MPI_FLOAT, win));
        CHECK_RC(MPI_Win_flush(t, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_sync(win));
    for (int i = 0; rank == t && i < n; i++)
        CHECK(mem[i] == (float)(-i));
    CHECK_RC(MPI_Win_unlock_all(win));
    /* One_put_all under fence: rank 0 into every rank */
    CHECK_RC(MPI_Win_fence(0, win));
    for (int q = 0; rank == 0 && q < size; q++)
        CHECK_RC(MPI_Put(src, n, MPI_FLOAT, q, n, n, MPI_FLOAT, win));
    CHECK_RC(MPI_Win_fence(0, win));
    for (int i = 0; i < n; i++)
        CHECK(mem[n + i] == (float)(-i));
    CHECK_RC(MPI_Win_free(&win));
    MPI_Free_mem(mem);
    MPI_Free_mem(src);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2);
    osu_all();
    imb_all();
    mt_done("win_suites");
    MPI_Finalize();
    return 0;
}
