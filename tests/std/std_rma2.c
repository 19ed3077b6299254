/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided corners from the MPI 4.1 text that std_rma / std_extra / tests/win leave out, each in
 * a created, an allocated and a dynamic window: Accumulate with MPI_MAXLOC / MINLOC on MPI_2INT
 * from every rank (ties: the lower index), a contiguous type of MPI_2INT against MPI_2INT;
 * Get_accumulate MPI_NO_OP and MPI_SUM through a vector target type into a strided result;
 * Win_flush_local then reuse of the origin buffer (Put, Accumulate, Rput); Fetch_and_op on
 * MPI_INT32_T / MPI_UINT64_T / MPI_DOUBLE as a ticket counter (every ticket once) and with
 * MAX / BXOR / REPLACE / NO_OP; Compare_and_swap on MPI_INT and MPI_LONG as a contended lock and
 * on 1-, 2- and 8-byte types at odd offsets; Rput / Rget / Raccumulate / Rget_accumulate with
 * derived types on both sides completed by MPI_Wait before the flush; a target that computes
 * outside MPI while the others lock its dynamic window; a different disp_unit per rank and a
 * zero-size rank; PSCW with post / start groups in different orders and a Win_test polling loop;
 * Win_allocate_shared with lock_all, Win_sync and plain loads / stores (a flag polled with
 * Win_sync); error classes of bad epochs and out-of-range access. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define CHECK_RANK rank
#include "std_check.h"

static int rank, size;
enum { F_CREATE, F_ALLOC, F_DYN, NFLAV };
static const char *fname[NFLAV] = {"create", "allocate", "dynamic"};

/* A window of `bytes` (disp_unit 1) of flavor f; `disp` turns a byte offset at a target into
 * that target's displacement (an address on a dynamic window). */
typedef struct {
    MPI_Win win;
    char *base;
    MPI_Aint *addr;
    int f;
} win_t;
static void win_make(win_t *w, int f, MPI_Aint bytes)
{
    w->f = f;
    w->addr = calloc(size, sizeof(MPI_Aint));
    if (f == F_ALLOC)
        MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->base, &w->win);
    else {
        w->base = malloc(bytes);
        if (f == F_CREATE)
            MPI_Win_create(w->base, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
        else {
            MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
            MPI_Win_attach(w->win, w->base, bytes);
            MPI_Aint a;
            MPI_Get_address(w->base, &a);
            MPI_Allgather(&a, 1, MPI_AINT, w->addr, 1, MPI_AINT, MPI_COMM_WORLD);
        }
    }
    memset(w->base, 0, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
}
static MPI_Aint disp(const win_t *w, int target, MPI_Aint off)
{
    return w->f == F_DYN ? MPI_Aint_add(w->addr[target], off) : off;
}
static void win_done(win_t *w)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (w->f == F_DYN)
        MPI_Win_detach(w->win, w->base);
    MPI_Win_free(&w->win);
    if (w->f != F_ALLOC)
        free(w->base);
    free(w->addr);
}
/* read own window memory inside an exclusive self-lock (the separate model's rule) */
static void self_sync(win_t *w)
{
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w->win);
    MPI_Win_unlock(rank, w->win);
}

/* ---- MAXLOC / MINLOC on MPI_2INT ---- */
static void maxloc_2int(int f)
{
    win_t w;
    win_make(&w, f, 16 * sizeof(int));
    int *b = (int *)w.base;
    for (int i = 0; i < 4; i++) {
        b[2 * i] = i == 3 ? 1 << 30 : -1000; /* [3]: MINLOC start */
        b[2 * i + 1] = 99;
    }
    MPI_Datatype four;
    MPI_Type_contiguous(3, MPI_2INT, &four);
    MPI_Type_commit(&four);
    MPI_Barrier(MPI_COMM_WORLD);
    int v[8];
    for (int i = 0; i < 4; i++) {
        v[2 * i] = i == 0 ? rank : i == 1 ? 5 : i == 2 ? (rank % 2) * 3 : rank % 2 + 1;
        v[2 * i + 1] = size - 1 - rank; /* the index: ties go to the lowest */
    }
    MPI_Win_lock_all(0, w.win);
    MPI_Accumulate(v, 1, four, 0, disp(&w, 0, 0), 3, MPI_2INT, MPI_MAXLOC, w.win);
    MPI_Accumulate(v + 6, 1, MPI_2INT, 0, disp(&w, 0, 24), 1, MPI_2INT, MPI_MINLOC, w.win);
    MPI_Win_unlock_all(w.win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        self_sync(&w);
        int odd = size > 1;
        CHECK(b[0] == size - 1 && b[1] == 0, "%s maxloc distinct: (%d,%d)", fname[f], b[0], b[1]);
        CHECK(b[2] == 5 && b[3] == 0, "%s maxloc all tie: (%d,%d)", fname[f], b[2], b[3]);
        /* value 3 at odd ranks: the lowest index is that of the highest odd rank */
        int hi_odd = size % 2 ? size - 2 : size - 1;
        CHECK(b[4] == 3 * odd && b[5] == size - 1 - hi_odd, "%s maxloc some tie: (%d,%d)", fname[f],
              b[4], b[5]);
        int hi_even = (size - 1) / 2 * 2;
        CHECK(b[6] == 1 && b[7] == size - 1 - hi_even, "%s minloc: (%d,%d)", fname[f], b[6], b[7]);
    }
    MPI_Type_free(&four);
    win_done(&w);
}

/* ---- Get_accumulate through a vector target type, NO_OP and SUM ---- */
static void gacc_vector(int f)
{
    enum { N = 64 };
    win_t w;
    win_make(&w, f, N * sizeof(int));
    int *b = (int *)w.base;
    for (int i = 0; i < N; i++)
        b[i] = rank * 1000 + i;
    MPI_Datatype vec, rvec;
    MPI_Type_vector(5, 2, 3, MPI_INT, &vec); /* 10 ints of 14 */
    MPI_Type_commit(&vec);
    MPI_Type_vector(10, 1, 2, MPI_INT, &rvec); /* 10 ints at a stride of 2 */
    MPI_Type_commit(&rvec);
    MPI_Barrier(MPI_COMM_WORLD);
    int t = (rank + 1) % size, res[20], one[10], dummy = 0;
    for (int i = 0; i < 20; i++)
        res[i] = -5;
    for (int i = 0; i < 10; i++)
        one[i] = 1;
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w.win);
    MPI_Get_accumulate(&dummy, 0, MPI_INT, res, 1, rvec, t, disp(&w, t, 4), 1, vec, MPI_NO_OP,
                       w.win);
    MPI_Win_unlock(t, w.win);
    for (int k = 0; k < 10; k++) {
        int idx = 1 + (k / 2) * 3 + k % 2;
        CHECK(res[2 * k] == t * 1000 + idx && res[2 * k + 1] == -5, "%s gacc no_op %d: %d",
              fname[f], k, res[2 * k]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* every rank adds 1 into rank 0's vector, fetching the value before */
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win);
    MPI_Get_accumulate(one, 10, MPI_INT, res, 1, rvec, 0, disp(&w, 0, 32 * 4), 1, vec, MPI_SUM,
                       w.win);
    MPI_Win_unlock(0, w.win);
    for (int k = 0; k < 10; k++) {
        int idx = 32 + (k / 2) * 3 + k % 2, d = res[2 * k] - idx;
        CHECK(d >= 0 && d < size, "%s gacc sum fetched %d", fname[f], res[2 * k]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        self_sync(&w);
        for (int i = 32; i < 48; i++) {
            int in = (i - 32) % 3 != 2 && i - 32 < 14;
            CHECK(b[i] == i + (in ? size : 0), "%s gacc sum word %d: %d", fname[f], i, b[i]);
        }
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&rvec);
    win_done(&w);
}

/* ---- Win_flush_local, then the origin buffer reused ---- */
static void flush_local_reuse(int f)
{
    enum { N = 4096 };
    win_t w;
    win_make(&w, f, 4 * N * sizeof(double));
    double *b = (double *)w.base, *buf = malloc(N * sizeof(double));
    int t = (rank + 1) % size;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w.win);
    for (int r = 0; r < 3; r++) {
        for (int i = 0; i < N; i++)
            buf[i] = rank * 10 + r + i * 0.25;
        if (r == 0)
            MPI_Put(buf, N, MPI_DOUBLE, t, disp(&w, t, 0), N, MPI_DOUBLE, w.win);
        else if (r == 1)
            MPI_Accumulate(buf, N, MPI_DOUBLE, t, disp(&w, t, N * 8), N, MPI_DOUBLE, MPI_SUM,
                           w.win);
        else {
            MPI_Request rq;
            MPI_Rput(buf, N, MPI_DOUBLE, t, disp(&w, t, 2 * N * 8), N, MPI_DOUBLE, w.win, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE); /* local completion: the buffer is free */
            for (int i = 0; i < N; i++)
                buf[i] = -1;
            MPI_Put(buf, 1, MPI_DOUBLE, t, disp(&w, t, 3 * N * 8), 1, MPI_DOUBLE, w.win);
        }
        MPI_Win_flush_local(t, w.win);
        for (int i = 0; i < N; i++)
            buf[i] = -99;
    }
    MPI_Win_unlock(t, w.win);
    MPI_Barrier(MPI_COMM_WORLD);
    self_sync(&w);
    int from = (rank + size - 1) % size, bad = 0;
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < N; i++)
            bad += b[r * N + i] != from * 10 + r + i * 0.25;
    CHECK(bad == 0 && b[3 * N] == -1, "%s flush_local reuse: %d bad", fname[f], bad);
    free(buf);
    win_done(&w);
}

/* ---- Fetch_and_op tickets on three types, then other ops ---- */
static void fop_types(int f)
{
    enum { IT = 40 };
    win_t w;
    win_make(&w, f, 64);
    int t = size - 1;
    int32_t *i32 = (int32_t *)w.base;
    uint64_t *u64 = (uint64_t *)(w.base + 8);
    double *dbl = (double *)(w.base + 16);
    uint64_t *x64 = (uint64_t *)(w.base + 24);
    int32_t *m32 = (int32_t *)(w.base + 32);
    if (rank == t) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w.win);
        *x64 = 0;
        *m32 = -1000;
        MPI_Win_unlock(t, w.win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int32_t one32 = 1, got32[IT];
    uint64_t one64 = 1, got64[IT];
    double oned = 1.0, gotd[IT];
    MPI_Win_lock_all(0, w.win);
    for (int i = 0; i < IT; i++) {
        MPI_Fetch_and_op(&one32, &got32[i], MPI_INT32_T, t, disp(&w, t, 0), MPI_SUM, w.win);
        MPI_Fetch_and_op(&one64, &got64[i], MPI_UINT64_T, t, disp(&w, t, 8), MPI_SUM, w.win);
        MPI_Fetch_and_op(&oned, &gotd[i], MPI_DOUBLE, t, disp(&w, t, 16), MPI_SUM, w.win);
        MPI_Win_flush(t, w.win);
        uint64_t bit = 1ull << (rank * 8 + i % 8), old;
        MPI_Fetch_and_op(&bit, &old, MPI_UINT64_T, t, disp(&w, t, 24), MPI_BXOR, w.win);
        int32_t mine = rank * 100 + i, oldm;
        MPI_Fetch_and_op(&mine, &oldm, MPI_INT32_T, t, disp(&w, t, 32), MPI_MAX, w.win);
        MPI_Win_flush(t, w.win);
        CHECK(i == 0 || oldm >= rank * 100 + i - 1, "%s fop max fetched %d", fname[f], oldm);
    }
    MPI_Win_unlock_all(w.win);
    /* every ticket once: gather them at rank 0 */
    int total = IT * size;
    int32_t *a32 = malloc(total * 4);
    uint64_t *a64 = malloc(total * 8);
    double *ad = malloc(total * 8);
    MPI_Gather(got32, IT, MPI_INT32_T, a32, IT, MPI_INT32_T, 0, MPI_COMM_WORLD);
    MPI_Gather(got64, IT, MPI_UINT64_T, a64, IT, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Gather(gotd, IT, MPI_DOUBLE, ad, IT, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        char *seen = calloc(3 * total, 1);
        for (int i = 0; i < total; i++) {
            if (a32[i] >= 0 && a32[i] < total)
                seen[a32[i]]++;
            if (a64[i] < (uint64_t)total)
                seen[total + a64[i]]++;
            if (ad[i] >= 0 && ad[i] < total && ad[i] == (int)ad[i])
                seen[2 * total + (int)ad[i]]++;
        }
        int bad = 0;
        for (int i = 0; i < 3 * total; i++)
            bad += seen[i] != 1;
        CHECK(bad == 0, "%s fetch_and_op tickets: %d not seen once", fname[f], bad);
        free(seen);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == t) {
        self_sync(&w);
        CHECK(*i32 == total && *u64 == (uint64_t)total && *dbl == total, "%s fop totals %d %llu %g",
              fname[f], *i32, (unsigned long long)*u64, *dbl);
        /* each bit flipped IT / 8 times per rank = 5: odd, so every rank's 8 bits are set */
        uint64_t want = 0;
        for (int r = 0; r < size; r++)
            want |= 0xffull << (r * 8);
        CHECK(*x64 == want, "%s fop bxor %llx", fname[f], (unsigned long long)*x64);
        CHECK(*m32 == (size - 1) * 100 + IT - 1, "%s fop max %d", fname[f], *m32);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* REPLACE then NO_OP on each type, one rank at a time */
    for (int r = 0; r < size; r++) {
        if (rank == r) {
            int32_t v32 = -r - 7, o32, n32;
            uint64_t v64 = 0xfedcba9876543210ull + r, o64, n64;
            double vd = r + 0.5, od, nd;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w.win);
            MPI_Fetch_and_op(&v32, &o32, MPI_INT32_T, t, disp(&w, t, 0), MPI_REPLACE, w.win);
            MPI_Fetch_and_op(&v64, &o64, MPI_UINT64_T, t, disp(&w, t, 8), MPI_REPLACE, w.win);
            MPI_Fetch_and_op(&vd, &od, MPI_DOUBLE, t, disp(&w, t, 16), MPI_REPLACE, w.win);
            MPI_Win_flush(t, w.win);
            MPI_Fetch_and_op(NULL, &n32, MPI_INT32_T, t, disp(&w, t, 0), MPI_NO_OP, w.win);
            MPI_Fetch_and_op(NULL, &n64, MPI_UINT64_T, t, disp(&w, t, 8), MPI_NO_OP, w.win);
            MPI_Fetch_and_op(NULL, &nd, MPI_DOUBLE, t, disp(&w, t, 16), MPI_NO_OP, w.win);
            MPI_Win_unlock(t, w.win);
            if (r == 0)
                CHECK(o32 == total && o64 == (uint64_t)total && od == total, "%s replace old",
                      fname[f]);
            else
                CHECK(o32 == -r - 6 && o64 == v64 - 1 && od == r - 0.5, "%s replace chain",
                      fname[f]);
            CHECK(n32 == v32 && n64 == v64 && nd == vd, "%s no_op after replace", fname[f]);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(a32);
    free(a64);
    free(ad);
    win_done(&w);
}

/* ---- Compare_and_swap: a contended lock on MPI_INT and on MPI_LONG; small types at odd
 * offsets ---- */
static void cas_lock_on(win_t *w, MPI_Datatype ty, int esz)
{
    enum { IT = 30 };
    int t = 0;
    MPI_Aint lk = 8, ctr = 16;
    MPI_Win_lock_all(0, w->win);
    for (int i = 0; i < IT; i++) {
        long one = 1, zero = 0, prev; /* the low esz bytes are the value (little endian) */
        do {
            prev = 0;
            MPI_Compare_and_swap(&one, &zero, &prev, ty, t, disp(w, t, lk), w->win);
            MPI_Win_flush(t, w->win);
        } while ((esz == 4 ? (long)(int)prev : prev) != 0);
        int v;
        MPI_Get(&v, 1, MPI_INT, t, disp(w, t, ctr), 1, MPI_INT, w->win);
        MPI_Win_flush(t, w->win);
        v++;
        MPI_Put(&v, 1, MPI_INT, t, disp(w, t, ctr), 1, MPI_INT, w->win);
        MPI_Win_flush(t, w->win);
        prev = 0;
        MPI_Compare_and_swap(&zero, &one, &prev, ty, t, disp(w, t, lk), w->win);
        MPI_Win_flush(t, w->win);
        CHECK((esz == 4 ? (long)(int)prev : prev) == 1, "%s cas unlock saw %ld", fname[w->f], prev);
    }
    MPI_Win_unlock_all(w->win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == t) {
        self_sync(w);
        int c;
        memcpy(&c, w->base + ctr, 4);
        CHECK(c == IT * size, "%s cas counter (%d bytes) %d", fname[w->f], esz, c);
        memset(w->base, 0, 64);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}
static void cas_types(int f)
{
    win_t w;
    win_make(&w, f, 64);
    cas_lock_on(&w, MPI_INT, 4);
    cas_lock_on(&w, MPI_LONG, 8);
    /* each type at an odd or aligned offset: a failing compare leaves it, a matching one swaps */
    struct {
        MPI_Datatype t;
        int sz, off;
    } ts[] = {{MPI_UINT8_T, 1, 33}, {MPI_BYTE, 1, 35},    {MPI_SHORT, 2, 38},
              {MPI_INT16_T, 2, 42}, {MPI_INT64_T, 8, 48}, {MPI_UNSIGNED_LONG_LONG, 8, 56}};
    /* STD_RMA2_SMALLCAS=0: the 8-byte ones alone (Open MPI 4.1's vader crashes on 1 and 2) */
    const char *e = getenv("STD_RMA2_SMALLCAS");
    int k0 = e && !atoi(e) ? 4 : 0;
    for (int r = 0; r < size; r++) {
        if (rank == r)
            for (int k = k0; k < 6; k++) {
                int t = (r + 1) % size;
                uint64_t cmp = 0x0102030405060708ull * (r + 1), nv = ~cmp, res = 0, chk = 0;
                uint64_t wrong = cmp ^ 1,
                         mask = ts[k].sz == 8 ? ~0ull : (1ull << (8 * ts[k].sz)) - 1;
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w.win);
                MPI_Put(&cmp, ts[k].sz, MPI_BYTE, t, disp(&w, t, ts[k].off), ts[k].sz, MPI_BYTE,
                        w.win);
                MPI_Win_flush(t, w.win);
                MPI_Compare_and_swap(&nv, &wrong, &res, ts[k].t, t, disp(&w, t, ts[k].off), w.win);
                MPI_Win_flush(t, w.win);
                CHECK((res & mask) == (cmp & mask), "%s cas type %d: failing old %llx", fname[f], k,
                      (unsigned long long)res);
                res = 0;
                MPI_Compare_and_swap(&nv, &cmp, &res, ts[k].t, t, disp(&w, t, ts[k].off), w.win);
                MPI_Win_flush(t, w.win);
                CHECK((res & mask) == (cmp & mask), "%s cas type %d: old %llx", fname[f], k,
                      (unsigned long long)res);
                MPI_Get(&chk, ts[k].sz, MPI_BYTE, t, disp(&w, t, ts[k].off), ts[k].sz, MPI_BYTE,
                        w.win);
                MPI_Win_unlock(t, w.win);
                CHECK((chk & mask) == (nv & mask), "%s cas type %d: now %llx", fname[f], k,
                      (unsigned long long)chk);
            }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    win_done(&w);
}

/* ---- request-based operations with derived types on both sides ---- */
static void request_derived(int f)
{
    enum { N = 256 };
    win_t w;
    win_make(&w, f, N * sizeof(int));
    int *b = (int *)w.base;
    MPI_Datatype ovec, tidx, rres;
    MPI_Type_vector(4, 3, 5, MPI_INT, &ovec); /* 12 ints of 18 */
    int bl[3] = {2, 6, 4}, dl[3] = {40, 3, 20};
    MPI_Type_indexed(3, bl, dl, MPI_INT, &tidx);    /* 12 ints, out of order */
    MPI_Type_create_resized(MPI_INT, 0, 12, &rres); /* an int every 3 */
    MPI_Type_commit(&ovec);
    MPI_Type_commit(&tidx);
    MPI_Type_commit(&rres);
    int o[18], g[36], ga[36], res[12];
    for (int i = 0; i < 18; i++)
        o[i] = rank * 100 + i;
    for (int i = 0; i < 36; i++)
        g[i] = ga[i] = -4;
    int t = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, w.win);
    MPI_Request rq[4];
    MPI_Rput(o, 1, ovec, t, disp(&w, t, 0), 1, tidx, w.win, &rq[0]);
    MPI_Raccumulate(o, 1, ovec, t, disp(&w, t, 64 * 4), 1, tidx, MPI_SUM, w.win, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Win_flush_all(w.win);
    MPI_Rget(g, 12, rres, t, disp(&w, t, 0), 1, tidx, w.win, &rq[2]);
    int add[12];
    for (int i = 0; i < 12; i++)
        add[i] = 1000;
    MPI_Rget_accumulate(add, 12, MPI_INT, ga, 12, rres, t, disp(&w, t, 64 * 4), 1, tidx, MPI_SUM,
                        w.win, &rq[3]);
    MPI_Waitall(2, rq + 2, MPI_STATUSES_IGNORE);
    MPI_Win_unlock_all(w.win);
    /* origin element k (of the vector) went to target element k of the indexed type */
    int tpos[12], k = 0;
    for (int j = 0; j < 3; j++)
        for (int x = 0; x < bl[j]; x++)
            tpos[k++] = dl[j] + x;
    for (k = 0; k < 12; k++) {
        int ov = rank * 100 + (k / 3) * 5 + k % 3;
        CHECK(g[3 * k] == ov && g[3 * k + 1] == -4, "%s rget %d: %d want %d", fname[f], k, g[3 * k],
              ov);
        CHECK(ga[3 * k] == ov, "%s rget_accumulate fetched %d: %d", fname[f], k, ga[3 * k]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    self_sync(&w);
    for (k = 0; k < 12; k++) {
        int ov = from * 100 + (k / 3) * 5 + k % 3;
        CHECK(b[tpos[k]] == ov && b[64 + tpos[k]] == ov + 1000, "%s target %d: %d %d", fname[f], k,
              b[tpos[k]], b[64 + tpos[k]]);
    }
    (void)res;
    MPI_Type_free(&ovec);
    MPI_Type_free(&tidx);
    MPI_Type_free(&rres);
    win_done(&w);
}

/* ---- a target computing outside MPI while the others use its dynamic window ---- */
static volatile double sink;
static void busy_target(void)
{
    enum { N = 512 };
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    long *mem = calloc(N, sizeof(long));
    MPI_Win_attach(win, mem, N * sizeof(long));
    MPI_Aint a, *addr = malloc(size * sizeof *addr);
    MPI_Get_address(mem, &a);
    MPI_Allgather(&a, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
    int t = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == t) {
        double x = 0, t0 = MPI_Wtime();
        while (MPI_Wtime() - t0 < 1.0) /* MPI_Wtime is the one call: not progress */
            for (int i = 0; i < 100000; i++)
                x += i * 0.5;
        sink = x;
    } else {
        long v[8], got[8], one = 1, prev;
        for (int i = 0; i < 8; i++)
            v[i] = rank * 10 + i;
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        MPI_Put(v, 8, MPI_LONG, t, addr[t] + rank * 8 * 8, 8, MPI_LONG, win);
        MPI_Win_flush(t, win);
        MPI_Get(got, 8, MPI_LONG, t, addr[t] + rank * 8 * 8, 8, MPI_LONG, win);
        MPI_Accumulate(&one, 1, MPI_LONG, t, addr[t] + (N - 1) * 8, 1, MPI_LONG, MPI_SUM, win);
        MPI_Fetch_and_op(&one, &prev, MPI_LONG, t, addr[t] + (N - 2) * 8, MPI_SUM, win);
        MPI_Win_unlock(t, win);
        for (int i = 0; i < 8; i++)
            CHECK(got[i] == v[i], "busy target get %d", i);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
        long z = 0, o = 1;
        MPI_Compare_and_swap(&o, &z, &prev, MPI_LONG, t, addr[t] + (N - 3) * 8, win);
        MPI_Win_unlock(t, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == t) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
        MPI_Win_unlock(t, win);
        CHECK(mem[N - 1] == size - 1 && mem[N - 2] == size - 1 && mem[N - 3] == (size > 1),
              "busy target counters %ld %ld %ld", mem[N - 1], mem[N - 2], mem[N - 3]);
        for (int r = 1; r < size; r++)
            for (int i = 0; i < 8; i++)
                CHECK(mem[r * 8 + i] == r * 10 + i, "busy target put %d %d", r, i);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
    free(mem);
    free(addr);
}

/* ---- a disp_unit per rank, a zero-size rank ---- */
static void disp_per_rank(void)
{
    int du = rank % 2 ? 8 : 2, zero = size > 2 && rank == 1;
    MPI_Aint bytes = zero ? 0 : 256;
    char *mem = zero ? NULL : calloc(256, 1);
    MPI_Win win;
    MPI_Win_create(mem, bytes, du, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int t = 0; t < size; t++) {
        int tdu = t % 2 ? 8 : 2;
        if (size > 2 && t == 1)
            continue;
        int v = 0x7000 + rank;
        MPI_Put(&v, 1, MPI_INT, t, (rank * 8) / tdu, 1, MPI_INT, win);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    for (int r = 0; !zero && r < size; r++) {
        int v;
        memcpy(&v, mem + r * 8, 4);
        CHECK(v == 0x7000 + r, "disp unit %d: from %d at byte %d: %x", du, r, r * 8, v);
    }
    /* a Get of zero elements at a zero-size rank is no error */
    MPI_Win_fence(0, win);
    if (size > 2) {
        int dummy;
        MPI_Get(&dummy, 0, MPI_INT, 1, 0, 0, MPI_INT, win);
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    free(mem);
}

/* ---- PSCW with groups in different orders, Win_test polling ---- */
static void pscw_orders(int f)
{
    win_t w;
    win_make(&w, f, size * sizeof(int));
    int *b = (int *)w.base;
    MPI_Group wg, post_g, start_g;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int *l1 = malloc(size * 4), *l2 = malloc(size * 4), n = 0;
    for (int i = size - 1; i >= 0; i--)
        if (i != rank)
            l1[n++] = i; /* post: the others, descending */
    for (int i = 0; i < n; i++)
        l2[i] = l1[(i + rank) % n]; /* start: the others, rotated */
    MPI_Group_incl(wg, n, l1, &post_g);
    MPI_Group_incl(wg, n, l2, &start_g);
    for (int it = 0; it < 3; it++) {
        for (int i = 0; i < size; i++)
            b[i] = -1;
        MPI_Win_post(post_g, it == 2 ? MPI_MODE_NOSTORE : 0, w.win);
        if (it == 1 && rank % 2)
            usleep(100000); /* some starts come late: the others' Win_test loops see it */
        MPI_Win_start(start_g, 0, w.win);
        int v = rank * 10 + it;
        for (int i = 0; i < n; i++)
            MPI_Put(&v, 1, MPI_INT, l2[i], disp(&w, l2[i], rank * 4), 1, MPI_INT, w.win);
        MPI_Win_complete(w.win);
        int flag = 0;
        long polls = 0;
        while (!flag) {
            MPI_Win_test(w.win, &flag);
            polls++;
        }
        for (int i = 0; i < size; i++)
            CHECK(b[i] == (i == rank ? -1 : i * 10 + it), "%s pscw turn %d from %d: %d", fname[f],
                  it, i, b[i]);
        (void)polls;
    }
    /* Win_test with no post open is erroneous; one more after a completed test is too: skip */
    MPI_Group_free(&wg);
    MPI_Group_free(&post_g);
    MPI_Group_free(&start_g);
    free(l1);
    free(l2);
    win_done(&w);
}

/* ---- a shared window: lock_all, plain stores, Win_sync, a polled flag ---- */
static void shared_sync(void)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int me, n;
    MPI_Comm_rank(node, &me);
    MPI_Comm_size(node, &n);
    volatile int *mine;
    MPI_Win win;
    MPI_Win_allocate_shared(me == 1 ? 0 : 64, sizeof(int), MPI_INFO_NULL, node, (void *)&mine,
                            &win);
    volatile int **peer = malloc(n * sizeof *peer);
    for (int r = 0; r < n; r++) {
        MPI_Aint sz;
        int du;
        MPI_Win_shared_query(win, r, &sz, &du, (void *)&peer[r]);
        CHECK(du == sizeof(int) && sz == (r == 1 ? 0 : 64), "shared query %d: %ld %d", r, (long)sz,
              du);
    }
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int it = 0; it < 5; it++) {
        if (me != 1)
            for (int i = 0; i < 16; i++)
                mine[i] = me * 100 + it + i;
        MPI_Win_sync(win);
        MPI_Barrier(node);
        MPI_Win_sync(win);
        if (right != 1)
            for (int i = 0; i < 16; i++)
                CHECK(peer[right][i] == right * 100 + it + i, "shared load it %d", it);
        MPI_Barrier(node);
    }
    /* a flag: each rank but 1 stores into its left neighbour's word 0 .. polled there */
    if (n > 1) {
        if (me != 1)
            mine[0] = -1;
        MPI_Win_sync(win);
        MPI_Barrier(node);
        if (left != 1) {
            peer[left][1] = 4242 + me;
            MPI_Win_sync(win);
            peer[left][0] = me;
            MPI_Win_sync(win);
        }
        if (me != 1 && right != 1) {
            while (mine[0] != right)
                MPI_Win_sync(win);
            CHECK(mine[1] == 4242 + right, "shared flag data %d", mine[1]);
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(node);
    MPI_Win_free(&win);
    free(peer);
    MPI_Comm_free(&node);
}

/* ---- error classes ---- */
static int cls(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}
static void errors(int f)
{
    win_t w;
    win_make(&w, f, 64);
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
    int v = 1, t = (rank + 1) % size, rc;
    MPI_Request rq;
    /* no epoch at all */
    rc = MPI_Put(&v, 1, MPI_INT, t, disp(&w, t, 0), 1, MPI_INT, w.win);
    CHECK(cls(rc) == MPI_ERR_RMA_SYNC, "%s put outside an epoch: %d", fname[f], cls(rc));
    CHECK(cls(MPI_Win_unlock(t, w.win)) == MPI_ERR_RMA_SYNC, "%s unlock without lock", fname[f]);
    CHECK(cls(MPI_Win_flush(t, w.win)) == MPI_ERR_RMA_SYNC, "%s flush without lock", fname[f]);
    CHECK(cls(MPI_Win_flush_local_all(w.win)) == MPI_ERR_RMA_SYNC, "%s flush_local_all", fname[f]);
    CHECK(cls(MPI_Win_unlock_all(w.win)) == MPI_ERR_RMA_SYNC, "%s unlock_all without", fname[f]);
    CHECK(cls(MPI_Win_complete(w.win)) == MPI_ERR_RMA_SYNC, "%s complete without start", fname[f]);
    CHECK(cls(MPI_Win_wait(w.win)) == MPI_ERR_RMA_SYNC, "%s wait without post", fname[f]);
    /* request-based operations need a passive-target epoch */
    MPI_Win_fence(0, w.win);
    rc = MPI_Rput(&v, 1, MPI_INT, t, disp(&w, t, 0), 1, MPI_INT, w.win, &rq);
    CHECK(cls(rc) == MPI_ERR_RMA_SYNC, "%s rput in a fence epoch: %d", fname[f], cls(rc));
    MPI_Win_fence(0, w.win);
    /* a second lock on the same target; lock inside lock_all */
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w.win);
    CHECK(cls(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w.win)) == MPI_ERR_RMA_SYNC, "%s lock twice",
          fname[f]);
    /* out of range: past the end, straddling it, a negative displacement (not dynamic) */
    if (f != F_DYN) {
        rc = MPI_Put(&v, 1, MPI_INT, t, 64, 1, MPI_INT, w.win);
        CHECK(cls(rc) == MPI_ERR_RMA_RANGE, "%s put past the end: %d", fname[f], cls(rc));
        int g[4];
        rc = MPI_Get(g, 4, MPI_INT, t, 56, 4, MPI_INT, w.win);
        CHECK(cls(rc) == MPI_ERR_RMA_RANGE, "%s get straddling the end: %d", fname[f], cls(rc));
        rc = MPI_Accumulate(&v, 1, MPI_INT, t, -4, 1, MPI_INT, MPI_SUM, w.win);
        CHECK(cls(rc) == MPI_ERR_RMA_RANGE, "%s accumulate at -4: %d", fname[f], cls(rc));
        long lv = 0, lr;
        rc = MPI_Fetch_and_op(&lv, &lr, MPI_LONG, t, 60, MPI_SUM, w.win);
        CHECK(cls(rc) == MPI_ERR_RMA_RANGE, "%s fetch_and_op straddling: %d", fname[f], cls(rc));
    } else {
        /* dynamic: memory that is not attached */
        rc = MPI_Put(&v, 1, MPI_INT, t, disp(&w, t, 64 + 4096), 1, MPI_INT, w.win);
        CHECK(cls(rc) == MPI_ERR_RMA_RANGE, "%s put off the attached region: %d", fname[f],
              cls(rc));
    }
    rc = MPI_Put(&v, 1, MPI_INT, size, disp(&w, t, 0), 1, MPI_INT, w.win);
    CHECK(cls(rc) == MPI_ERR_RANK, "%s put to rank %d: %d", fname[f], size, cls(rc));
    MPI_Win_unlock(t, w.win);
    MPI_Win_lock_all(0, w.win);
    CHECK(cls(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w.win)) == MPI_ERR_RMA_SYNC,
          "%s lock inside lock_all", fname[f]);
    /* the window still works after the errors */
    MPI_Put(&v, 1, MPI_INT, t, disp(&w, t, 8), 1, MPI_INT, w.win);
    MPI_Win_unlock_all(w.win);
    MPI_Barrier(MPI_COMM_WORLD);
    self_sync(&w);
    int got;
    memcpy(&got, w.base + 8, 4);
    CHECK(got == 1, "%s put after errors: %d", fname[f], got);
    win_done(&w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int f = 0; f < NFLAV; f++) {
        maxloc_2int(f);
        gacc_vector(f);
        flush_local_reuse(f);
        fop_types(f);
        cas_types(f);
        request_derived(f);
        pscw_orders(f);
        /* STD_RMA2_ERRORS=0: not the error classes (MPICH 4.0 and Open MPI 4.1 crash on them) */
        if (!getenv("STD_RMA2_ERRORS") || atoi(getenv("STD_RMA2_ERRORS")))
            errors(f);
    }
    busy_target();
    disp_per_rank();
    shared_sync();
    int tot = 0;
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rc = std_report("std_rma2", tot, rank);
    MPI_Finalize();
    return rc;
}
