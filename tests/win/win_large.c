/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The large-count one-sided calls (MPI 4.0 _c forms), standard MPI only, at 2 ranks or more.
 *
 * Without an argument (make check, little memory): counts past INT_MAX are carried, not
 * refused: a Put_c / Get_c / Accumulate_c / Get_accumulate_c / R* call of INT_MAX + 9 bytes
 * into a 64-byte window is MPI_ERR_RMA_RANGE (a count cut to an int would be negative or
 * small), origin and target signatures differing past an int are MPI_ERR_TYPE, a negative
 * count MPI_ERR_COUNT; nothing of the origin is read. Window creation with a displacement unit
 * past INT_MAX (MPI_Aint in the _c calls): Win_create_c / allocate_c / allocate_shared_c take
 * it, Win_shared_query_c answers it, the int Win_shared_query is MPI_ERR_VALUE_TOO_LARGE, the
 * int attribute MPI_WIN_DISP_UNIT is absent; a Put at displacement 0 lands, one at 1 (byte
 * 2^32 + 8) is out of the window.
 *
 * With MIB (make check-large): rank 0 puts MIB MiB (past INT_MAX bytes) into rank 1's window
 * with Put_c, gets it back with Get_c, then Accumulate_c (MPI_BXOR on MPI_UNSIGNED_CHAR, one
 * element a byte: a count past INT_MAX) and Get_accumulate_c (MPI_NO_OP), each checked, into
 * an allocated window, or with MT_LARGE_CREATE=1 a created one; then the same two with a
 * non-contiguous target type past INT_MAX bytes (4,095 bytes of every 4,096: the last keeps
 * what the Put wrote). Also on the active-message path (IBEX_WIN_DIRECT=0 IBEX_WIN_RDMA=0), which
 * sends such an operation in pieces of whole target elements (it was MPI_ERR_COUNT).
 */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);                    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static int err_class(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

#define EXPECT(call, want)                                                                         \
    do {                                                                                           \
        int c_ = err_class(call);                                                                  \
        CHECK(c_ == (want), "%s: class %d, expected %d", #call, c_, (want));                       \
    } while (0)

static const MPI_Count BIG = (MPI_Count)INT_MAX + 9;

/* Counts past an int at rank 1's 64-byte window: refused for what they are, not as counts. */
static void big_counts(MPI_Win win)
{
    char small[64] = {0}, res[64];
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    EXPECT(MPI_Put_c(small, BIG, MPI_BYTE, 1, 0, BIG, MPI_BYTE, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Get_c(res, BIG, MPI_BYTE, 1, 0, BIG, MPI_BYTE, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Accumulate_c(small, BIG, MPI_BYTE, 1, 0, BIG, MPI_BYTE, MPI_REPLACE, win),
           MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Get_accumulate_c(small, BIG, MPI_INT8_T, res, BIG, MPI_INT8_T, 1, 0, BIG, MPI_INT8_T,
                                MPI_SUM, win),
           MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Rput_c(small, BIG, MPI_BYTE, 1, 0, BIG, MPI_BYTE, win, &rq), MPI_ERR_RMA_RANGE);
    CHECK(rq == MPI_REQUEST_NULL, "a refused Rput_c left a request");
    EXPECT(MPI_Rget_c(res, BIG, MPI_BYTE, 1, 0, BIG, MPI_BYTE, win, &rq), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Raccumulate_c(small, BIG, MPI_BYTE, 1, 0, BIG, MPI_BYTE, MPI_REPLACE, win, &rq),
           MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Rget_accumulate_c(small, BIG, MPI_INT8_T, res, BIG, MPI_INT8_T, 1, 0, BIG,
                                 MPI_INT8_T, MPI_SUM, win, &rq),
           MPI_ERR_RMA_RANGE);
    /* INT_MAX + 9 bytes against INT_MAX + 10 (cut to ints: -2147483640 / ...) */
    EXPECT(MPI_Put_c(small, BIG, MPI_BYTE, 1, 0, BIG + 1, MPI_BYTE, win), MPI_ERR_TYPE);
    EXPECT(MPI_Get_c(res, BIG + 1, MPI_BYTE, 1, 0, BIG, MPI_BYTE, win), MPI_ERR_TYPE);
    /* 2^32 + 16 bytes as 2^31 + 8 shorts: equal signatures, out of range (an int cut gives 16) */
    MPI_Count wrap = ((MPI_Count)1 << 32) + 16;
    EXPECT(MPI_Put_c(small, wrap, MPI_BYTE, 1, 0, wrap / 2, MPI_SHORT, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Put_c(small, -1, MPI_BYTE, 1, 0, 1, MPI_BYTE, win), MPI_ERR_COUNT);
    /* a _c call with small counts still works */
    memset(small, 7, sizeof(small));
    EXPECT(MPI_Put_c(small, 64, MPI_BYTE, 1, 0, 64, MPI_BYTE, win), MPI_SUCCESS);
    MPI_Win_flush(1, win);
    EXPECT(MPI_Get_c(res, 64, MPI_BYTE, 1, 0, 64, MPI_BYTE, win), MPI_SUCCESS);
    MPI_Win_unlock(1, win);
    CHECK(memcmp(res, small, 64) == 0, "Put_c / Get_c of 64 bytes: data differs");
}

static void big_unit(const char *how, MPI_Win win)
{
    MPI_Aint unit = ((MPI_Aint)1 << 32) + 8, size = 0, got = 0;
    int iunit = 0, flag = 1;
    void *base = NULL;
    EXPECT(MPI_Win_shared_query_c(win, 1, &size, &got, &base), MPI_SUCCESS);
    CHECK(got == unit, "%s: Win_shared_query_c unit %lld, expected %lld", how, (long long)got,
          (long long)unit);
    EXPECT(MPI_Win_shared_query(win, 1, &size, &iunit, &base), MPI_ERR_VALUE_TOO_LARGE);
    int *attr = NULL;
    EXPECT(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &attr, &flag), MPI_SUCCESS);
    CHECK(!flag, "%s: MPI_WIN_DISP_UNIT present for a unit past INT_MAX", how);
    if (rank == 0) {
        uint64_t v = 0x1122334455667788u, r = 0;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        EXPECT(MPI_Put(&v, 1, MPI_UINT64_T, 1, 0, 1, MPI_UINT64_T, win), MPI_SUCCESS);
        EXPECT(MPI_Put(&v, 1, MPI_UINT64_T, 1, 1, 1, MPI_UINT64_T, win), MPI_ERR_RMA_RANGE);
        MPI_Win_flush(1, win);
        EXPECT(MPI_Get(&r, 1, MPI_UINT64_T, 1, 0, 1, MPI_UINT64_T, win), MPI_SUCCESS);
        MPI_Win_unlock(1, win);
        CHECK(r == v, "%s: 8 bytes at displacement 0: 0x%llx", how, (unsigned long long)r);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void small_mode(void)
{
    MPI_Aint unit = ((MPI_Aint)1 << 32) + 8;
    uint64_t mem[8] = {0};
    void *base;
    MPI_Win win;
    MPI_Win_allocate_c(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (rank == 0)
        big_counts(win);
    MPI_Win_free(&win);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT(MPI_Win_create_c(mem, sizeof(mem), unit, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
           MPI_SUCCESS);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    big_unit("Win_create_c", win);
    MPI_Win_free(&win);
    EXPECT(MPI_Win_allocate_c(64, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win), MPI_SUCCESS);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    big_unit("Win_allocate_c", win);
    MPI_Win_free(&win);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nsize;
    MPI_Comm_size(node, &nsize);
    MPI_Comm_free(&node);
    if (nsize == 2) { /* every rank on this node */
        EXPECT(MPI_Win_allocate_shared_c(64, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win),
               MPI_SUCCESS);
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        big_unit("Win_allocate_shared_c", win);
        MPI_Win_free(&win);
    }
}

static unsigned char pattern(MPI_Count i)
{
    return (unsigned char)(i * 7 + (i >> 20));
}

/* In an epoch on rank 1: Accumulate_c (BXOR with fill) of bytes origin bytes into tcount
 * elements of tdt at displacement 0, then Get_accumulate_c (NO_OP) of them back into buf
 * (n bytes, cleared first), each flushed. */
static void xor_then_fetch(MPI_Win win, unsigned char *buf, MPI_Count n, MPI_Count bytes, int fill,
                           MPI_Count tcount, MPI_Datatype tdt)
{
    memset(buf, fill, (size_t)bytes);
    EXPECT(MPI_Accumulate_c(buf, bytes, MPI_UNSIGNED_CHAR, 1, 0, tcount, tdt, MPI_BXOR, win),
           MPI_SUCCESS);
    MPI_Win_flush(1, win);
    memset(buf, 0, (size_t)n);
    EXPECT(MPI_Get_accumulate_c(NULL, 0, MPI_UNSIGNED_CHAR, buf, bytes, MPI_UNSIGNED_CHAR, 1, 0,
                                tcount, tdt, MPI_NO_OP, win),
           MPI_SUCCESS);
    MPI_Win_flush(1, win);
}

/* After large_mode's four: Accumulate_c (BXOR 0x33) and Get_accumulate_c (NO_OP) of n /
 * STRIDE elements of BLOCK bytes at a stride of STRIDE (a non-contiguous target past INT_MAX
 * bytes; blocks of a page, so that cross-memory attach's 64 blocks a call stay few calls).
 * The window holds pattern ^ 0x5a; the last byte of every stride must keep it. buf: n bytes
 * of the origin. */
#define STRIDE 4096
#define BLOCK  (STRIDE - 1)

/* The verbs transport's memory-registration lookups (its pvars ibex_verbs_reg_hits +
 * reg_misses) while started: a strided accumulate once looked up each run's pages. */
typedef struct regs {
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h[2];
    int n;
} regs_t;

static void regs_start(regs_t *r)
{
    const char *names[2] = {"ibex_verbs_reg_hits", "ibex_verbs_reg_misses"};
    int provided, count;
    r->n = 0;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_pvar_session_create(&r->s);
    for (int i = 0; i < 2; i++) {
        int idx;
        if (MPI_T_pvar_get_index(names[i], MPI_T_PVAR_CLASS_COUNTER, &idx) == MPI_SUCCESS &&
            MPI_T_pvar_handle_alloc(r->s, idx, NULL, &r->h[r->n], &count) == MPI_SUCCESS)
            r->n++;
    }
    MPI_T_pvar_start(r->s, MPI_T_PVAR_ALL_HANDLES);
}

static unsigned long long regs_stop(regs_t *r)
{
    unsigned long long sum = 0, v;
    for (int i = 0; i < r->n; i++)
        if (MPI_T_pvar_read(r->s, r->h[i], &v) == MPI_SUCCESS)
            sum += v;
    MPI_T_pvar_stop(r->s, MPI_T_PVAR_ALL_HANDLES);
    for (int i = 0; i < r->n; i++)
        MPI_T_pvar_handle_free(r->s, &r->h[i]);
    MPI_T_pvar_session_free(&r->s);
    MPI_T_finalize();
    return sum;
}
static void large_strided(MPI_Win win, unsigned char *buf, MPI_Count n)
{
    MPI_Datatype block, t;
    MPI_Type_contiguous(BLOCK, MPI_UNSIGNED_CHAR, &block);
    MPI_Type_create_resized(block, 0, STRIDE, &t);
    MPI_Type_commit(&t);
    MPI_Count c = n / STRIDE, bytes = BLOCK * c;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    regs_t regs;
    regs_start(&regs);
    xor_then_fetch(win, buf, n, bytes, 0x33, c, t);
    unsigned long long lookups = regs_stop(&regs);
    /* over verbs: the window's scratch, registered once (and once more as it grows), not
     * one registration per run (c runs, each read and written) */
    CHECK(lookups <= 16, "strided accumulates of %lld runs: %llu registration lookups",
          (long long)c, lookups);
    MPI_Count bad = 0;
    for (MPI_Count i = 0; i < bytes; i++)
        bad += buf[i] != (unsigned char)(pattern(i / BLOCK * STRIDE + i % BLOCK) ^ 0x5a ^ 0x33);
    memset(buf, 0, (size_t)n);
    EXPECT(MPI_Get_c(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win), MPI_SUCCESS);
    MPI_Win_unlock(1, win);
    for (MPI_Count i = BLOCK; i < n; i += STRIDE)
        bad += buf[i] != (unsigned char)(pattern(i) ^ 0x5a);
    CHECK(bad == 0, "strided Accumulate_c / Get_accumulate_c of %lld bytes: %lld differ",
          (long long)bytes, (long long)bad);
    MPI_Type_free(&t);
    MPI_Type_free(&block);
}

/* Rank 0 at rank 1's window of n bytes: Put_c, Get_c, Accumulate_c, Get_accumulate_c. */
static void large_mode(MPI_Count n)
{
    void *base = NULL;
    MPI_Win win;
    const char *create = getenv("MT_LARGE_CREATE"); /* Win_create_c: cross-memory attach */
    if (create && *create == '1') {
        base = rank == 1 ? calloc(1, (size_t)n) : NULL;
        MPI_Win_create_c(base, rank == 1 ? n : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate_c(rank == 1 ? n : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        base = NULL;
    }
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (rank == 0) {
        unsigned char *buf = malloc((size_t)n);
        CHECK(buf != NULL, "out of memory for %lld bytes", (long long)n);
        if (!buf)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (MPI_Count i = 0; i < n; i++)
            buf[i] = pattern(i);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        EXPECT(MPI_Put_c(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win), MPI_SUCCESS);
        MPI_Win_flush(1, win);
        memset(buf, 0, (size_t)n);
        EXPECT(MPI_Get_c(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win), MPI_SUCCESS);
        MPI_Win_flush(1, win);
        MPI_Count bad = 0;
        for (MPI_Count i = 0; i < n; i++)
            bad += buf[i] != pattern(i);
        CHECK(bad == 0, "Put_c then Get_c of %lld bytes: %lld differ", (long long)n,
              (long long)bad);
        xor_then_fetch(win, buf, n, n, 0x5a, n, MPI_UNSIGNED_CHAR);
        MPI_Win_unlock(1, win);
        bad = 0;
        for (MPI_Count i = 0; i < n; i++)
            bad += buf[i] != (unsigned char)((i * 7 + (i >> 20)) ^ 0x5a);
        CHECK(bad == 0, "Accumulate_c (BXOR) then Get_accumulate_c of %lld bytes: %lld differ",
              (long long)n, (long long)bad);
        large_strided(win, buf, n);
        free(buf);
    }
    MPI_Win_free(&win);
    free(base);
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "win_large runs at 2 ranks\n");
        MPI_Finalize();
        return 77;
    }
    if (argc > 1) {
        large_mode((MPI_Count)atoll(argv[1]) << 20);
    } else {
        small_mode();
    }
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("win_large: %s (%d failures)\n", all ? "FAIL" : "ok", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
