/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-rank-count collectives: Gatherv, Scatterv, Allgatherv, Alltoallv, Alltoallw, with
 * results against a reference computed here. Counts 0, 1, 7 and one past the eager limit,
 * different on every rank and zero on some; blocks placed in reverse rank order with gaps that
 * must stay untouched; every root; MPI_IN_PLACE wherever MPI allows it; non-root arguments that
 * are not significant passed as NULL; strided and resized datatypes; per-peer types in
 * Alltoallw. Runs on MPI_COMM_WORLD and on a Comm_split with reversed ranks, once per
 * algorithm of each kind (forced). Any rank count >= 1. Prints "coll_v: ok" on rank 0.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "coll_test.h"

#define SENT (-1) /* what the gaps hold */
static const int bases[] = {0, 1, 7, 30000};
#define NBASES ((int)(sizeof(bases) / sizeof(bases[0])))
#define MAXB   (30000 + 64)

static const ibex_coll_kind_t kinds[] = {IBEX_COLL_GATHERV, IBEX_COLL_SCATTERV,
                                         IBEX_COLL_ALLGATHERV, IBEX_COLL_ALLTOALLV,
                                         IBEX_COLL_ALLTOALLW};

/* Rank r's count for base: different per rank, zero on every third rank. */
static int vcount(int base, int r)
{
    return base == 0 || r % 3 == 1 ? 0 : base + r;
}

/* Blocks in reverse rank order, one-element gaps before each; returns the span. */
static int layout(const int *counts, int *displs, int stride)
{
    int off = 1;
    for (int r = size - 1; r >= 0; r--) {
        displs[r] = off;
        off += counts[r] * stride + 1;
    }
    return off;
}

/* The buffer a root (or every rank) must hold: block r at displs[r] (in units of stride ints,
 * every stride-th int), value f(r, i), the rest SENT. */
static int *expect(const int *counts, const int *displs, int span, int stride, int (*f)(int, int))
{
    int *e = malloc(sizeof(int) * (size_t)span);
    fill(e, (size_t)span, SENT);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < counts[r]; i++)
            e[displs[r] + i * stride] = f(r, i);
    return e;
}

static int *alloc_ints(size_t n)
{
    int *p = malloc(sizeof(int) * (n ? n : 1));
    CHECK(p);
    return p;
}

static void check_gatherv(void)
{
    int counts[64], displs[64];
    int *mine = alloc_ints(MAXB), *all = alloc_ints((size_t)MAXB * (size_t)size + 64);
    for (int b = 0; b < NBASES; b++) {
        for (int r = 0; r < size; r++)
            counts[r] = vcount(bases[b], r);
        int span = layout(counts, displs, 1), n = counts[rank];
        int *e = expect(counts, displs, span, 1, val);
        for (int i = 0; i < n; i++)
            mine[i] = val(rank, i);
        for (int root = 0; root < size; root++) {
            fill(all, (size_t)span, SENT);
            CHECK_OK(MPI_Gatherv(mine, n, MPI_INT, all, counts, displs, MPI_INT, root, comm));
            CHECK(rank != root || memcmp(all, e, sizeof(int) * (size_t)span) == 0);
            /* in place at the root; elsewhere the receive arguments are not significant */
            bool me = rank == root;
            fill(all, (size_t)span, SENT);
            memcpy(all + displs[rank], mine, sizeof(int) * (size_t)n);
            CHECK_OK(MPI_Gatherv(me ? MPI_IN_PLACE : mine, n, MPI_INT, me ? all : NULL,
                                 me ? counts : NULL, me ? displs : NULL, MPI_INT, root, comm));
            CHECK(!me || memcmp(all, e, sizeof(int) * (size_t)span) == 0);
        }
        free(e);
    }
    free(mine);
    free(all);
}

static void check_scatterv(void)
{
    int counts[64], displs[64];
    int *mine = alloc_ints(MAXB + 1), *all = alloc_ints((size_t)MAXB * (size_t)size + 64);
    for (int b = 0; b < NBASES; b++) {
        for (int r = 0; r < size; r++)
            counts[r] = vcount(bases[b], r);
        int span = layout(counts, displs, 1), n = counts[rank];
        int *e = expect(counts, displs, span, 1, val);
        for (int root = 0; root < size; root++) {
            bool me = rank == root;
            memcpy(all, e, sizeof(int) * (size_t)span);
            fill(mine, (size_t)n + 1, SENT);
            CHECK_OK(MPI_Scatterv(me ? all : NULL, me ? counts : NULL, me ? displs : NULL, MPI_INT,
                                  mine, n, MPI_INT, root, comm));
            for (int i = 0; i < n; i++)
                CHECK(mine[i] == val(rank, i));
            CHECK(mine[n] == SENT);
            CHECK_OK(MPI_Scatterv(me ? all : NULL, counts, displs, MPI_INT,
                                  me ? MPI_IN_PLACE : mine, n, MPI_INT, root, comm));
            CHECK(memcmp(all, e, sizeof(int) * (size_t)span) == 0 || !me);
            for (int i = 0; !me && i < n; i++)
                CHECK(mine[i] == val(rank, i));
        }
        free(e);
    }
    free(mine);
    free(all);
}

static void check_allgatherv(void)
{
    int counts[64], displs[64];
    int *mine = alloc_ints(MAXB), *all = alloc_ints((size_t)MAXB * (size_t)size + 64);
    for (int b = 0; b < NBASES; b++) {
        for (int r = 0; r < size; r++)
            counts[r] = vcount(bases[b], r);
        int span = layout(counts, displs, 1), n = counts[rank];
        int *e = expect(counts, displs, span, 1, val);
        for (int i = 0; i < n; i++)
            mine[i] = val(rank, i);
        fill(all, (size_t)span, SENT);
        CHECK_OK(MPI_Allgatherv(mine, n, MPI_INT, all, counts, displs, MPI_INT, comm));
        CHECK(memcmp(all, e, sizeof(int) * (size_t)span) == 0);
        fill(all, (size_t)span, SENT);
        memcpy(all + displs[rank], mine, sizeof(int) * (size_t)n);
        CHECK_OK(
            MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, counts, displs, MPI_INT, comm));
        CHECK(memcmp(all, e, sizeof(int) * (size_t)span) == 0);
        free(e);
    }
    free(mine);
    free(all);
}

/* Elements from rank i to rank j; symmetric when in place needs it. */
static int a2a_count(int base, int i, int j, bool symmetric)
{
    int k = symmetric ? i + j : i + 2 * j;
    return base == 0 || k % 3 == 0 ? 0 : (base > 100 ? base / 4 : base) + i + j;
}

static int a2a_val(int from, int to, int i)
{
    return val(from * 64 + to, i);
}

/* Alltoallv at one base: send blocks laid out like the receive ones (reverse order, gaps). */
static void alltoallv_once(int base, bool in_place, int *sbuf, int *rbuf)
{
    int sc[64], sd[64], rc[64], rd[64];
    for (int j = 0; j < size; j++) {
        sc[j] = a2a_count(base, rank, j, in_place);
        rc[j] = a2a_count(base, j, rank, in_place);
    }
    int sspan = layout(sc, sd, 1), rspan = layout(rc, rd, 1);
    int *want = alloc_ints((size_t)rspan);
    fill(want, (size_t)rspan, SENT);
    fill(sbuf, (size_t)sspan, SENT);
    for (int j = 0; j < size; j++) {
        for (int i = 0; i < sc[j]; i++)
            sbuf[sd[j] + i] = a2a_val(rank, j, i);
        for (int i = 0; i < rc[j]; i++)
            want[rd[j] + i] = a2a_val(j, rank, i);
    }
    if (in_place) {
        memcpy(rbuf, sbuf, sizeof(int) * (size_t)sspan);
        CHECK_OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rbuf, rc, rd, MPI_INT,
                               comm));
    } else {
        fill(rbuf, (size_t)rspan, SENT);
        CHECK_OK(MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, comm));
    }
    CHECK(memcmp(rbuf, want, sizeof(int) * (size_t)rspan) == 0);
    free(want);
}

static void check_alltoallv(void)
{
    size_t n = (size_t)(MAXB / 4 + 200) * (size_t)size + 64;
    int *sbuf = alloc_ints(n), *rbuf = alloc_ints(n);
    for (int b = 0; b < NBASES; b++) {
        alltoallv_once(bases[b], false, sbuf, rbuf);
        alltoallv_once(bases[b], true, sbuf, rbuf);
    }
    free(sbuf);
    free(rbuf);
}

/* Alltoallw's per-peer types: peer j % 3 == 0 MPI_INT, 1 two contiguous ints, 2 one int
 * resized to an extent of two (every other int). m(i, j) ints go from i to j, m even. */
static MPI_Datatype wtypes[3];

static int w_stride(int j)
{
    return j % 3 == 2 ? 2 : 1;
}

static int w_count(int m, int j)
{
    return j % 3 == 1 ? m / 2 : m;
}

/* One side: counts in its types, byte displacements, the ints it covers at their place. */
static int w_side(const int *m, int *counts, int *displs, MPI_Datatype *types, int *buf,
                  int (*f)(int, int))
{
    int off = 1;
    for (int j = size - 1; j >= 0; j--) {
        counts[j] = w_count(m[j], j);
        types[j] = m[j] ? wtypes[j % 3] : MPI_DATATYPE_NULL; /* empty: not looked at */
        displs[j] = off * (int)sizeof(int);
        for (int i = 0; buf && i < m[j]; i++)
            buf[off + i * w_stride(j)] = f(j, i);
        off += m[j] * w_stride(j) + 1;
    }
    return off;
}

static int w_from; /* the rank whose data w_send_val / w_recv_val describe */
static int w_send_val(int to, int i)
{
    return a2a_val(w_from, to, i);
}
static int w_recv_val(int from, int i)
{
    return a2a_val(from, w_from, i);
}

static void alltoallw_once(int base, bool in_place, int *sbuf, int *rbuf, int *want)
{
    int sm[64], rm[64], sc[64], sd[64], rc[64], rd[64];
    MPI_Datatype st[64], rt[64];
    for (int j = 0; j < size; j++) {
        sm[j] = 2 * a2a_count(base, rank, j, in_place);
        rm[j] = 2 * a2a_count(base, j, rank, in_place);
    }
    w_from = rank;
    int sspan = w_side(sm, sc, sd, st, NULL, NULL), rspan = w_side(rm, rc, rd, rt, NULL, NULL);
    fill(sbuf, (size_t)sspan, SENT);
    fill(want, (size_t)rspan, SENT);
    w_side(sm, sc, sd, st, sbuf, w_send_val);
    w_side(rm, rc, rd, rt, want, w_recv_val);
    if (in_place) {
        memcpy(rbuf, sbuf, sizeof(int) * (size_t)sspan);
        CHECK_OK(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, rbuf, rc, rd, rt, comm));
    } else {
        fill(rbuf, (size_t)rspan, SENT);
        CHECK_OK(MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, comm));
    }
    CHECK(memcmp(rbuf, want, sizeof(int) * (size_t)rspan) == 0);
}

static void check_alltoallw(void)
{
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &wtypes[1]));
    CHECK_OK(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &wtypes[2]));
    CHECK_OK(MPI_Type_commit(&wtypes[1]));
    CHECK_OK(MPI_Type_commit(&wtypes[2]));
    wtypes[0] = MPI_INT;
    size_t n = (size_t)(MAXB / 4 + 200) * 4 * (size_t)size + 64;
    int *sbuf = alloc_ints(n), *rbuf = alloc_ints(n), *want = alloc_ints(n);
    for (int b = 0; b < NBASES; b++) {
        alltoallw_once(bases[b], false, sbuf, rbuf, want);
        alltoallw_once(bases[b], true, sbuf, rbuf, want);
    }
    free(sbuf);
    free(rbuf);
    free(want);
    CHECK_OK(MPI_Type_free(&wtypes[1]));
    CHECK_OK(MPI_Type_free(&wtypes[2]));
}

/* Derived types: strided sends (a vector) gathered into resized receive elements (every
 * other int), then scattered back from resized elements into a strided receive. */
static void check_v_derived(void)
{
    enum { N = 301 };
    int counts[64], displs[64];
    MPI_Datatype vec, every2;
    CHECK_OK(MPI_Type_vector(N, 1, 3, MPI_INT, &vec));
    CHECK_OK(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every2));
    CHECK_OK(MPI_Type_commit(&vec));
    CHECK_OK(MPI_Type_commit(&every2));
    int *mine = alloc_ints(3 * N), *all = alloc_ints((size_t)(2 * N + 1) * (size_t)size + 2);
    for (int r = 0; r < size; r++)
        counts[r] = N;
    int span = layout(counts, displs, 2);
    for (int r = 0; r < size; r++)
        displs[r] = (displs[r] + 1) / 2; /* in every2 extents (8 bytes) */
    span = 2 * displs[0] + 2 * N + 1;
    int *e = alloc_ints((size_t)span);
    fill(e, (size_t)span, SENT);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++)
            e[2 * displs[r] + 2 * i] = val(r, i);
    for (int root = 0; root < size; root++) {
        fill(mine, 3 * N, SENT);
        for (int i = 0; i < N; i++)
            mine[3 * i] = val(rank, i);
        fill(all, (size_t)span, SENT);
        CHECK_OK(MPI_Gatherv(mine, 1, vec, all, counts, displs, every2, root, comm));
        CHECK(rank != root || memcmp(all, e, sizeof(int) * (size_t)span) == 0);
        fill(mine, 3 * N, SENT);
        CHECK_OK(MPI_Scatterv(e, counts, displs, every2, mine, 1, vec, root, comm));
        for (int i = 0; i < 3 * N; i++)
            CHECK(mine[i] == (i % 3 ? SENT : val(rank, i / 3)));
    }
    fill(all, (size_t)span, SENT);
    for (int i = 0; i < N; i++)
        mine[3 * i] = val(rank, i);
    CHECK_OK(MPI_Allgatherv(mine, 1, vec, all, counts, displs, every2, comm));
    CHECK(memcmp(all, e, sizeof(int) * (size_t)span) == 0);
    free(e);
    free(mine);
    free(all);
    CHECK_OK(MPI_Type_free(&vec));
    CHECK_OK(MPI_Type_free(&every2));
}

/* Errors every rank detects alike (so nobody is left waiting), and root-only ones on
 * MPI_COMM_SELF. */
static void check_v_errors(void)
{
    int x[4] = {0}, one[1] = {1}, zero[1] = {0}, neg[1] = {-1};
    int cnts[64], disps[64];
    for (int r = 0; r < size; r++)
        cnts[r] = 1, disps[r] = r;
    MPI_Datatype types[64], bad[1] = {MPI_DATATYPE_NULL};
    for (int r = 0; r < size; r++)
        types[r] = MPI_INT;
    CHECK(MPI_Gatherv(x, 1, MPI_INT, x, cnts, disps, MPI_INT, size, comm) == MPI_ERR_ROOT);
    CHECK(MPI_Scatterv(x, cnts, disps, MPI_INT, x, 1, MPI_INT, -1, comm) == MPI_ERR_ROOT);
    CHECK(MPI_Allgatherv(x, 1, MPI_INT, x, NULL, disps, MPI_INT, comm) == MPI_ERR_ARG);
    CHECK(MPI_Allgatherv(x, 1, MPI_INT, x, cnts, NULL, MPI_INT, comm) == MPI_ERR_ARG);
    CHECK(MPI_Allgatherv(x, -1, MPI_INT, x, cnts, disps, MPI_INT, comm) == MPI_ERR_COUNT);
    CHECK(MPI_Allgatherv(MPI_IN_PLACE, 1, MPI_INT, MPI_IN_PLACE, cnts, disps, MPI_INT, comm) ==
          MPI_ERR_BUFFER);
    CHECK(MPI_Alltoallv(x, cnts, disps, MPI_INT, x, cnts, disps, MPI_DATATYPE_NULL, comm) ==
          MPI_ERR_TYPE);
    CHECK(MPI_Alltoallv(x, NULL, disps, MPI_INT, x, cnts, disps, MPI_INT, comm) == MPI_ERR_ARG);
    CHECK(MPI_Alltoallw(x, cnts, disps, types, x, cnts, disps, NULL, comm) == MPI_ERR_ARG);
    CHECK(MPI_Alltoallv(x, cnts, disps, MPI_INT, x, cnts, disps, MPI_INT, MPI_COMM_NULL) ==
          MPI_ERR_COMM);
    /* root-side arguments, checked at the root only: on a communicator of one */
    CHECK(MPI_Gatherv(x, 1, MPI_INT, x, NULL, zero, MPI_INT, 0, MPI_COMM_SELF) == MPI_ERR_ARG);
    CHECK(MPI_Gatherv(x, 1, MPI_INT, x, neg, zero, MPI_INT, 0, MPI_COMM_SELF) == MPI_ERR_COUNT);
    CHECK(MPI_Gatherv(x, 1, MPI_INT, NULL, one, zero, MPI_INT, 0, MPI_COMM_SELF) == MPI_ERR_BUFFER);
    CHECK(MPI_Scatterv(MPI_IN_PLACE, one, zero, MPI_INT, x, 1, MPI_INT, 0, MPI_COMM_SELF) ==
          MPI_ERR_BUFFER);
    CHECK(MPI_Scatterv(x, one, zero, MPI_DATATYPE_NULL, x, 1, MPI_INT, 0, MPI_COMM_SELF) ==
          MPI_ERR_TYPE);
    CHECK(MPI_Alltoallw(x, one, zero, bad, x, one, zero, types, MPI_COMM_SELF) == MPI_ERR_TYPE);
    /* an empty block's type is not looked at */
    CHECK_OK(MPI_Alltoallw(x, zero, zero, bad, x + 1, zero, zero, bad, MPI_COMM_SELF));
    /* the root's own count larger than what it receives into */
    CHECK(MPI_Gatherv(x, 2, MPI_INT, x + 2, one, zero, MPI_INT, 0, MPI_COMM_SELF) ==
          MPI_ERR_TRUNCATE);
}

/* The large-count forms: MPI_Count counts and MPI_Aint displacements, converted for the int
 * calls; a negative count is MPI_ERR_COUNT on every rank (counts past INT_MAX are
 * tests/mpi/large_coll.c's). */
static void check_large_c(void)
{
    MPI_Count cnt[64], big[64];
    MPI_Aint dsp[64];
    int mine[4], *all = alloc_ints((size_t)size * 4 + 1);
    for (int r = 0; r < size; r++)
        cnt[r] = r % 3 == 1 ? 0 : 3, dsp[r] = (MPI_Aint)(size - 1 - r) * 3, big[r] = cnt[r];
    big[size - 1] = -1;
    for (int i = 0; i < 3; i++)
        mine[i] = val(rank, i);
    for (int root = 0; root < size; root++) {
        fill(all, (size_t)size * 3, SENT);
        CHECK_OK(MPI_Gatherv_c(mine, cnt[rank], MPI_INT, all, rank == root ? cnt : NULL,
                               rank == root ? dsp : NULL, MPI_INT, root, comm));
        for (int r = 0; rank == root && r < size; r++)
            for (int i = 0; i < 3; i++)
                CHECK(all[dsp[r] + i] == (i < cnt[r] ? val(r, i) : SENT));
    }
    fill(all, (size_t)size * 3, SENT);
    CHECK_OK(MPI_Allgatherv_c(mine, cnt[rank], MPI_INT, all, cnt, dsp, MPI_INT, comm));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < 3; i++)
            CHECK(all[dsp[r] + i] == (i < cnt[r] ? val(r, i) : SENT));
    CHECK(MPI_Allgatherv_c(mine, cnt[rank], MPI_INT, all, big, dsp, MPI_INT, comm) ==
          MPI_ERR_COUNT);
    /* Reduce_scatter_c: block r of 3 ints to rank r */
    int in[3 * 64], out[3];
    MPI_Count three[64];
    for (int r = 0; r < size; r++)
        three[r] = 3;
    for (int g = 0; g < 3 * size; g++)
        in[g] = val(rank, g);
    CHECK_OK(MPI_Reduce_scatter_c(in, out, three, MPI_INT, MPI_SUM, comm));
    for (int i = 0; i < 3; i++) {
        int want = 0;
        for (int r = 0; r < size; r++)
            want += val(r, 3 * rank + i);
        CHECK(out[i] == want);
    }
    /* Alltoallv_c in place: the send arrays are not significant */
    for (int r = 0; r < size; r++)
        cnt[r] = 1, dsp[r] = r;
    for (int r = 0; r < size; r++)
        all[r] = a2a_val(rank, r, 0);
    CHECK_OK(
        MPI_Alltoallv_c(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, all, cnt, dsp, MPI_INT, comm));
    for (int r = 0; r < size; r++)
        CHECK(all[r] == a2a_val(r, rank, 0));
    free(all);
}

static void run_all(void)
{
    check_gatherv();
    check_scatterv();
    check_allgatherv();
    check_alltoallv();
    check_alltoallw();
    check_v_derived();
    check_v_errors();
    check_large_c();
}

int main(int argc, char **argv)
{
    alarm(200);
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int nk = (int)(sizeof(kinds) / sizeof(kinds[0]));
    MPI_Comm split = coll_reordered();
    for (int v = 0; v < coll_rounds(kinds, nk); v++) {
        coll_force_round(kinds, nk, v, "coll_v");
        coll_use(MPI_COMM_WORLD);
        run_all();
        coll_use(split);
        run_all();
    }
    CHECK_OK(MPI_Comm_free(&split));
    int wrank;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    CHECK_OK(MPI_Finalize());
    if (wrank == 0)
        printf("coll_v: ok\n");
    return 0;
}
