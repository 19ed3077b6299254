/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Independent checks of window objects and errors, written from the MPI 4.1 standard in the
 * manner of MPICH's rma suite: dynamic windows (attach / detach, addresses by
 * MPI_Get_address + MPI_Bcast), Win_allocate_shared with zero-size ranks and
 * Win_shared_query (MPI_PROC_NULL too), Win_allocate with displacement units 1 / 4 / 8,
 * derived origin and target types, epoch errors (MPI_ERR_RMA_SYNC) and out-of-window access
 * (MPI_ERR_RMA_RANGE) with nothing written. The error classes are asserted only with
 * RMA_CHK_ERRORS=1 (the standard makes those calls erroneous; Ibex promises the classes).
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

/* Rank r attaches two regions (the second only while needed), everyone learns their
 * addresses by Get_address + Bcast, puts its rank into the right neighbour's first region and
 * gets the left one's second region; then the second regions are detached. */
static void dynamic(void)
{
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    long long *a = calloc(16, 8), *b = malloc(64 * 8);
    for (int i = 0; i < 64; i++)
        b[i] = me * 1000 + i;
    MPI_Win_attach(win, a, 16 * 8);
    MPI_Win_attach(win, b, 64 * 8);
    MPI_Aint *ad = malloc(sizeof(MPI_Aint) * 2 * np);
    for (int r = 0; r < np; r++) {
        if (r == me) {
            MPI_Get_address(a, &ad[2 * r]);
            MPI_Get_address(b, &ad[2 * r + 1]);
        }
        MPI_Bcast(&ad[2 * r], 2, MPI_AINT, r, MPI_COMM_WORLD);
    }
    int right = (me + 1) % np, left = (me + np - 1) % np;
    long long v = me + 1, got[64];
    MPI_Win_lock_all(0, win);
    MPI_Put(&v, 1, MPI_LONG_LONG, right, MPI_Aint_add(ad[2 * right], 3 * 8), 1, MPI_LONG_LONG, win);
    MPI_Get(got, 64, MPI_LONG_LONG, left, ad[2 * left + 1], 64, MPI_LONG_LONG, win);
    MPI_Accumulate(&v, 1, MPI_LONG_LONG, right, ad[2 * right], 1, MPI_LONG_LONG, MPI_SUM, win);
    MPI_Win_unlock_all(win);
    for (int i = 0; i < 64; i++)
        CHECK(got[i] == left * 1000 + i, "dynamic get [%d] %lld", i, got[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(a[3] == left + 1 && a[0] == left + 1, "dynamic put %lld acc %lld", a[3], a[0]);
    MPI_Win_detach(win, b);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win); /* the first regions still work */
    MPI_Get(got, 1, MPI_LONG_LONG, right, MPI_Aint_add(ad[2 * right], 3 * 8), 1, MPI_LONG_LONG,
            win);
    MPI_Win_unlock_all(win);
    CHECK(got[0] == me + 1, "dynamic get after detach %lld", got[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_detach(win, a);
    MPI_Win_free(&win);
    free(ad);
    free(a);
    free(b);
}

/* Odd ranks contribute no memory; shared_query of each rank gives its size, of
 * MPI_PROC_NULL the lowest rank with memory; stores through a queried pointer are seen by its
 * owner after a sync + barrier. */
static void shared(void)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nme, nnp;
    MPI_Comm_rank(node, &nme);
    MPI_Comm_size(node, &nnp);
    MPI_Aint mysize = nme % 2 ? 0 : 64 * 8;
    long long *mine;
    MPI_Win win;
    MPI_Win_allocate_shared(mysize, 8, MPI_INFO_NULL, node, &mine, &win);
    MPI_Win_lock_all(0, win);
    for (int r = 0; r < nnp; r++) {
        MPI_Aint sz;
        int du;
        long long *p;
        MPI_Win_shared_query(win, r, &sz, &du, &p);
        CHECK(sz == (r % 2 ? 0 : 64 * 8) && du == 8, "shared_query(%d): %ld %d", r, (long)sz, du);
        if (sz && r == (nme + 2) % nnp - ((nme + 2) % nnp) % 2)
            p[nme] = nme + 1;
    }
    MPI_Aint sz;
    int du;
    long long *p0, *q;
    MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p0);
    MPI_Win_shared_query(win, 0, &sz, &du, &q);
    CHECK(p0 == q && sz == 64 * 8, "shared_query(MPI_PROC_NULL) %p %p %ld", (void *)p0, (void *)q,
          (long)sz);
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    for (int r = 0; r < nnp && mysize; r++) {
        int writer_target = (r + 2) % nnp - ((r + 2) % nnp) % 2;
        CHECK(writer_target != nme || mine[r] == r + 1, "shared store from %d: %lld", r, mine[r]);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}

/* Displacement units 1, 4 and 8: a Put at displacement d lands at byte d * unit; the
 * attribute reports the unit and the size. */
static void disp_units(void)
{
    static const int units[] = {1, 4, 8};
    for (int u = 0; u < 3; u++) {
        int du = units[u];
        char *base;
        MPI_Win win;
        MPI_Win_allocate(256, du, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        memset(base, 0, 256);
        int *got_du, flag;
        MPI_Aint *got_sz;
        MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &got_du, &flag);
        CHECK(flag && *got_du == du, "disp unit attribute %d", flag ? *got_du : -1);
        MPI_Win_get_attr(win, MPI_WIN_SIZE, &got_sz, &flag);
        CHECK(flag && *got_sz == 256, "size attribute");
        int v = 0x5a000000 | me, d = 40 / du;
        MPI_Win_fence(0, win);
        MPI_Put(&v, 1, MPI_INT, (me + 1) % np, d, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        int left = (me + np - 1) % np, at;
        memcpy(&at, base + d * du, 4);
        CHECK(at == (0x5a000000 | left), "disp unit %d: %x at byte %d", du, at, d * du);
        for (int i = 0; i < 256; i++)
            CHECK(base[i] == 0 || (i >= d * du && i < d * du + 4), "disp unit %d: byte %d", du, i);
        MPI_Win_free(&win);
    }
}

/* A vector origin into an indexed target, a Get of it back into a struct-free contiguous
 * buffer, and an Accumulate with derived types on both sides (same basic type). */
static void derived(void)
{
    double *base;
    MPI_Win win;
    MPI_Win_allocate(64 * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 64; i++)
        base[i] = -1;
    double src[32], got[8];
    for (int i = 0; i < 32; i++)
        src[i] = me * 100 + i;
    MPI_Datatype vec, idx;
    int bl[3] = {2, 3, 3}, dp[3] = {1, 10, 20};
    MPI_Type_vector(4, 2, 8, MPI_DOUBLE, &vec); /* 8 doubles: 0 1, 8 9, 16 17, 24 25 */
    MPI_Type_indexed(3, bl, dp, MPI_DOUBLE, &idx);
    MPI_Type_commit(&vec);
    MPI_Type_commit(&idx);
    int t = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Win_fence(0, win);
    MPI_Put(src, 1, vec, t, 0, 1, idx, win);
    MPI_Win_fence(0, win);
    MPI_Get(got, 8, MPI_DOUBLE, t, 0, 1, idx, win);
    MPI_Win_fence(0, win);
    static const int vi[8] = {0, 1, 8, 9, 16, 17, 24, 25}, ti[8] = {1, 2, 10, 11, 12, 20, 21, 22};
    for (int i = 0; i < 8; i++) {
        CHECK(got[i] == me * 100 + vi[i], "derived get [%d] %g", i, got[i]);
        CHECK(base[ti[i]] == left * 100 + vi[i], "derived put [%d] %g", ti[i], base[ti[i]]);
    }
    CHECK(base[0] == -1 && base[3] == -1 && base[13] == -1 && base[23] == -1, "derived gaps");
    MPI_Barrier(MPI_COMM_WORLD); /* the checks read what the next epoch's accumulate changes */
    MPI_Accumulate(src, 1, vec, t, 0, 1, idx, MPI_SUM, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 8; i++)
        CHECK(base[ti[i]] == 2 * (left * 100 + vi[i]), "derived acc [%d] %g", ti[i], base[ti[i]]);
    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
    MPI_Win_free(&win);
}

static int eclass(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

/* Erroneous calls under MPI_ERRORS_RETURN: the class, and nothing written. */
static void epoch_errors(void)
{
    int *base, v = 7, t = (me + 1) % np;
    MPI_Win win;
    MPI_Win_allocate(16 * 4, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < 16; i++)
        base[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(eclass(MPI_Put(&v, 1, MPI_INT, t, 0, 1, MPI_INT, win)) == MPI_ERR_RMA_SYNC,
          "Put outside an epoch");
    CHECK(eclass(MPI_Win_unlock(t, win)) == MPI_ERR_RMA_SYNC, "unlock without lock");
    CHECK(eclass(MPI_Win_flush(t, win)) == MPI_ERR_RMA_SYNC, "flush without lock");
    CHECK(eclass(MPI_Win_complete(win)) == MPI_ERR_RMA_SYNC, "complete without start");
    CHECK(eclass(MPI_Win_wait(win)) == MPI_ERR_RMA_SYNC, "wait without post");
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    CHECK(eclass(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win)) == MPI_ERR_RMA_SYNC, "lock twice");
    CHECK(eclass(MPI_Win_lock_all(0, win)) == MPI_ERR_RMA_SYNC, "lock_all inside lock");
    CHECK(eclass(MPI_Put(&v, 1, MPI_INT, t, 16, 1, MPI_INT, win)) == MPI_ERR_RMA_RANGE,
          "Put past the end");
    CHECK(eclass(MPI_Put(&v, 2, MPI_INT, t, 15, 2, MPI_INT, win)) == MPI_ERR_RMA_RANGE,
          "Put across the end");
    CHECK(eclass(MPI_Get(&v, 1, MPI_INT, t, -1, 1, MPI_INT, win)) == MPI_ERR_RMA_RANGE,
          "Get before the start");
    CHECK(eclass(MPI_Accumulate(&v, 1, MPI_INT, t, 16, 1, MPI_INT, MPI_SUM, win)) ==
              MPI_ERR_RMA_RANGE,
          "Accumulate past the end");
    int o;
    CHECK(eclass(MPI_Fetch_and_op(&v, &o, MPI_INT, t, 1000, MPI_SUM, win)) == MPI_ERR_RMA_RANGE,
          "Fetch_and_op past the end");
    MPI_Win_unlock(t, win);
    MPI_Win_fence(0, win);
    MPI_Win_lock_all(0, win);
    CHECK(eclass(MPI_Win_fence(0, win)) == MPI_ERR_RMA_SYNC, "fence inside lock_all");
    CHECK(eclass(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win)) == MPI_ERR_RMA_SYNC,
          "lock inside lock_all");
    MPI_Win_unlock_all(win);
    MPI_Win_fence(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 16; i++)
        CHECK(base[i] == 0, "erroneous calls wrote base[%d] = %d", i, base[i]);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    dynamic();
    shared();
    disp_units();
    derived();
    char *e = getenv("RMA_CHK_ERRORS");
    if (e && *e == '1')
        epoch_errors();
    int all;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf(all ? "rma_chk_win: %d errors\n" : "rma_chk_win: ok\n", all);
    MPI_Finalize();
    return all != 0;
}
