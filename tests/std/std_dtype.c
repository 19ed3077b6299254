/* SPDX-License-Identifier: BSD-3-Clause */
/* The data-moving collectives (Bcast, Gather(v), Scatter(v), Allgather(v), Alltoall(v, w)) with
 * derived types: a send side and a receive side of different type maps and one type signature
 * (3 ints a unit: contiguous, a resized vector, an indexed type, a struct with gaps resized, and
 * plain MPI_INT with three times the count), blocking, non-blocking and persistent (started
 * twice, the input rewritten between starts), MPI_IN_PLACE wherever MPI 4.1 allows it, every
 * root, counts 0, 1, odd and past 1 MiB, v-forms with zero counts and displacements in reverse
 * order with holes. A receive buffer is checked whole: every data int, and every gap byte left as
 * it was. STD_DTYPE_FULL=1: every pair of unit types (else a rotation through them). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CHECK_RANK wrank
#include "std_check.h"

static int wrank, full, mode_mask = 7,
                        refill = 1; /* STD_NO_REFILL: MPICH 4.0.2 reads some inputs only at init */
struct unit {
    const char *name;
    MPI_Datatype t; /* one unit is `mul` of these */
    int mul;
    int offs[3]; /* byte offsets of the 3 ints in a unit */
    int ext;     /* bytes from one unit to the next */
};
static struct unit units[5];
#define NU 5
static void make_units(void)
{
    MPI_Datatype v, ix, st;
    MPI_Type_contiguous(3, MPI_INT, &units[0].t);
    units[0] = (struct unit){"contig", units[0].t, 1, {0, 4, 8}, 12};
    MPI_Type_vector(3, 1, 2, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 28, &units[1].t);
    units[1] = (struct unit){"vector", units[1].t, 1, {0, 8, 16}, 28};
    int bl[2] = {2, 1}, dp[2] = {0, 3};
    MPI_Type_indexed(2, bl, dp, MPI_INT, &ix);
    units[2] = (struct unit){"indexed", ix, 1, {0, 4, 12}, 16};
    int sbl[2] = {1, 2};
    MPI_Aint sdp[2] = {0, 8};
    MPI_Datatype sty[2] = {MPI_INT, MPI_INT};
    MPI_Type_create_struct(2, sbl, sdp, sty, &st);
    MPI_Type_create_resized(st, 0, 24, &units[3].t);
    units[3] = (struct unit){"struct", units[3].t, 1, {0, 8, 12}, 24};
    units[4] = (struct unit){"int", MPI_INT, 3, {0, 4, 8}, 12};
    for (int i = 0; i < NU; i++)
        MPI_Type_commit(&units[i].t);
    MPI_Type_free(&v);
    MPI_Type_free(&st);
}

/* the value of int j of unit k from rank src to rank dst, version v */
static int val(int src, int dst, long k, int j, int v)
{
    return ((src * 32 + dst) << 21) + (int)(k * 3 + j) + v * 977;
}
/* units [at, at + c) of buffer b in unit u hold src -> dst's units [0, c) */
static void wr(const struct unit *u, char *b, long at, long c, int src, int dst, int v)
{
    for (long k = 0; k < c; k++)
        for (int j = 0; j < 3; j++) {
            int x = val(src, dst, k, j, v);
            memcpy(b + (at + k) * u->ext + u->offs[j], &x, 4);
        }
}

enum kind {
    BCAST,
    GATHER,
    GATHERV,
    SCATTER,
    SCATTERV,
    ALLGATHER,
    ALLGATHERV,
    ALLTOALL,
    ALLTOALLV,
    ALLTOALLW,
    NKIND
};
static const char *kname[NKIND] = {"bcast",     "gather",     "gatherv",  "scatter",   "scatterv",
                                   "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};
enum { BLK, NB, PERS };
struct ctx {
    MPI_Comm comm;
    int rank, size, root, inplace, kind;
    const struct unit *s, *r;
    long c;
    int *cnt, *dsp;     /* per rank, in units (v-forms: rank i's block) */
    char *sb, *rb, *eb; /* send, receive, expected receive */
    size_t sbytes, rbytes;
    /* alltoallw: per peer */
    int *wsc, *wsd, *wrc, *wrd;
    MPI_Datatype *wst, *wrt;
    const struct unit **wsu, **wru;
};

static int is_v(int k)
{
    return k == GATHERV || k == SCATTERV || k == ALLGATHERV || k == ALLTOALLV;
}
/* block layout: plain forms c units each in rank order; v-forms c + i units (rank 1 none;
 * Alltoallv: by pair) in reverse rank order with a one-unit hole between blocks */
static void layout(struct ctx *x)
{
    long at = 0;
    for (int i = 0; i < x->size; i++) {
        x->cnt[i] = is_v(x->kind) ? (i == 1 ? 0 : (int)(x->c + i)) : (int)x->c;
        if (x->kind == ALLTOALLV) /* per peer, the same count both ways of a pair */
            x->cnt[i] = (x->rank + i) % 4 == 1 ? 0 : (int)(x->c + (x->rank + i) % 3);
    }
    for (int i = x->size - 1; i >= 0; i--) {
        int ii = is_v(x->kind) ? i : x->size - 1 - i;
        x->dsp[ii] = (int)at;
        at += x->cnt[ii] + (is_v(x->kind) ? 1 : 0);
    }
}
static long span(struct ctx *x)
{
    long m = 0;
    for (int i = 0; i < x->size; i++)
        if (x->dsp[i] + x->cnt[i] > m)
            m = x->dsp[i] + x->cnt[i];
    return m + 1;
}

/* alltoallw: send to peer j in unit wsu[j] at bytes wsd[j]; receive from i in wru[i] */
static void wlayout(struct ctx *x)
{
    long sat = 8, rat = 4;
    for (int j = 0; j < x->size; j++) {
        long n = x->c + (x->rank + j) % 2; /* counts differ per pair, agreed on both sides */
        long m = x->c + (j + x->rank) % 2;
        x->wsu[j] = &units[(x->rank + j) % NU];
        x->wru[j] = x->inplace ? x->r : &units[(2 * j + x->rank + 1) % NU];
        x->wsc[j] = (int)(n * x->wsu[j]->mul);
        x->wrc[j] = (int)(m * x->wru[j]->mul);
        x->wst[j] = x->wsu[j]->t;
        x->wrt[j] = x->wru[j]->t;
        x->wsd[j] = (int)sat;
        x->wrd[j] = (int)rat;
        sat += n * x->wsu[j]->ext + 4;
        rat += m * x->wru[j]->ext + 8;
    }
    x->sbytes = sat;
    x->rbytes = rat;
}

/* fill the send buffer (and an in-place receive buffer) with version v, the receive buffer and
 * the expected image with the gap byte 0xEE and then what must arrive */
static void prep(struct ctx *x, int v)
{
    int me = x->rank, n = x->size, rt = x->root;
    const struct unit *s = x->s, *r = x->r;
    memset(x->sb, 0xEE, x->sbytes);
    if (v == 0)
        memset(x->rb, 0xEE, x->rbytes);
    memset(x->eb, 0xEE, x->rbytes);
    switch (x->kind) {
    case BCAST:
        if (me == rt)
            wr(s, x->sb, 0, x->c, rt, 0, v);
        else
            wr(r, x->eb, 0, x->c, rt, 0, v);
        break;
    case GATHER:
    case GATHERV:
        wr(s, x->sb, 0, x->cnt[me], me, 0, v);
        if (me == rt)
            for (int i = 0; i < n; i++)
                wr(r, x->eb, x->dsp[i], x->cnt[i], i, 0, v);
        if (me == rt && x->inplace)
            wr(r, x->rb, x->dsp[me], x->cnt[me], me, 0, v);
        break;
    case SCATTER:
    case SCATTERV:
        if (me == rt)
            for (int i = 0; i < n; i++)
                wr(s, x->sb, x->dsp[i], x->cnt[i], rt, i, v);
        if (me == rt && x->inplace) /* only the send buffer, as it was */
            memcpy(x->eb, x->sb, x->sbytes);
        else
            wr(r, x->eb, 0, x->cnt[me], rt, me, v);
        break;
    case ALLGATHER:
    case ALLGATHERV:
        wr(s, x->sb, 0, x->cnt[me], me, 0, v);
        for (int i = 0; i < n; i++)
            wr(r, x->eb, x->dsp[i], x->cnt[i], i, 0, v);
        if (x->inplace)
            wr(r, x->rb, x->dsp[me], x->cnt[me], me, 0, v);
        break;
    case ALLTOALL:
    case ALLTOALLV:
        for (int j = 0; j < n; j++) {
            wr(x->inplace ? r : s, x->inplace ? x->rb : x->sb, x->dsp[j], x->cnt[j], me, j, v);
            wr(r, x->eb, x->dsp[j], x->cnt[j], j, me, v);
        }
        break;
    case ALLTOALLW:
        for (int j = 0; j < n; j++) {
            long sn = x->wsc[j] / x->wsu[j]->mul, rn = x->wrc[j] / x->wru[j]->mul;
            if (x->inplace)
                wr(x->wru[j], x->rb + x->wrd[j], 0, rn, me, j, v);
            else
                wr(x->wsu[j], x->sb + x->wsd[j], 0, sn, me, j, v);
            wr(x->wru[j], x->eb + x->wrd[j], 0, rn, j, me, v);
        }
        break;
    }
    if (x->kind == BCAST && me == rt) /* the root's buffer is input only */
        memcpy(x->eb, x->sb, x->sbytes);
}

static MPI_Request rq;
#define PICK(blk, nb, init) (void)(mode == BLK ? (blk) : mode == NB ? (nb) : (init))
static void call(struct ctx *x, int mode)
{
    int n = x->size, me = x->rank, rt = x->root;
    MPI_Comm cm = x->comm;
    MPI_Info in = MPI_INFO_NULL;
    const struct unit *s = x->s, *r = x->r;
    int sc = (int)(x->c * s->mul), rc = (int)(x->c * r->mul);
    int *rcs = malloc(n * sizeof(int)), *rds = malloc(n * sizeof(int));
    int *scs = malloc(n * sizeof(int)), *sds = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) {
        rcs[i] = x->cnt[i] * r->mul;
        rds[i] = x->dsp[i] * r->mul;
        scs[i] = x->cnt[i] * s->mul;
        sds[i] = x->dsp[i] * s->mul;
    }
    void *sb = x->sb, *rb = x->rb, *ip = MPI_IN_PLACE;
    switch (x->kind) {
    case BCAST: {
        void *b = me == rt ? sb : rb;
        MPI_Datatype t = me == rt ? s->t : r->t;
        int k = me == rt ? sc : rc;
        PICK(MPI_Bcast(b, k, t, rt, cm), MPI_Ibcast(b, k, t, rt, cm, &rq),
             MPI_Bcast_init(b, k, t, rt, cm, in, &rq));
        break;
    }
    case GATHER: {
        void *g = x->inplace && me == rt ? ip : sb;
        PICK(MPI_Gather(g, sc, s->t, rb, rc, r->t, rt, cm),
             MPI_Igather(g, sc, s->t, rb, rc, r->t, rt, cm, &rq),
             MPI_Gather_init(g, sc, s->t, rb, rc, r->t, rt, cm, in, &rq));
        /* the plain forms' blocks are in rank order: dsp ascending, so rb is right */
        break;
    }
    case GATHERV: {
        void *g = x->inplace && me == rt ? ip : sb;
        int k = scs[me];
        PICK(MPI_Gatherv(g, k, s->t, rb, rcs, rds, r->t, rt, cm),
             MPI_Igatherv(g, k, s->t, rb, rcs, rds, r->t, rt, cm, &rq),
             MPI_Gatherv_init(g, k, s->t, rb, rcs, rds, r->t, rt, cm, in, &rq));
        break;
    }
    case SCATTER: {
        void *d = x->inplace && me == rt ? ip : rb;
        PICK(MPI_Scatter(sb, sc, s->t, d, rc, r->t, rt, cm),
             MPI_Iscatter(sb, sc, s->t, d, rc, r->t, rt, cm, &rq),
             MPI_Scatter_init(sb, sc, s->t, d, rc, r->t, rt, cm, in, &rq));
        break;
    }
    case SCATTERV: {
        void *d = x->inplace && me == rt ? ip : rb;
        int k = rcs[me];
        PICK(MPI_Scatterv(sb, scs, sds, s->t, d, k, r->t, rt, cm),
             MPI_Iscatterv(sb, scs, sds, s->t, d, k, r->t, rt, cm, &rq),
             MPI_Scatterv_init(sb, scs, sds, s->t, d, k, r->t, rt, cm, in, &rq));
        break;
    }
    case ALLGATHER: {
        void *g = x->inplace ? ip : sb;
        PICK(MPI_Allgather(g, sc, s->t, rb, rc, r->t, cm),
             MPI_Iallgather(g, sc, s->t, rb, rc, r->t, cm, &rq),
             MPI_Allgather_init(g, sc, s->t, rb, rc, r->t, cm, in, &rq));
        break;
    }
    case ALLGATHERV: {
        void *g = x->inplace ? ip : sb;
        int k = scs[me];
        PICK(MPI_Allgatherv(g, k, s->t, rb, rcs, rds, r->t, cm),
             MPI_Iallgatherv(g, k, s->t, rb, rcs, rds, r->t, cm, &rq),
             MPI_Allgatherv_init(g, k, s->t, rb, rcs, rds, r->t, cm, in, &rq));
        break;
    }
    case ALLTOALL: {
        void *g = x->inplace ? ip : sb;
        PICK(MPI_Alltoall(g, sc, s->t, rb, rc, r->t, cm),
             MPI_Ialltoall(g, sc, s->t, rb, rc, r->t, cm, &rq),
             MPI_Alltoall_init(g, sc, s->t, rb, rc, r->t, cm, in, &rq));
        break;
    }
    case ALLTOALLV: {
        void *g = x->inplace ? ip : sb;
        PICK(MPI_Alltoallv(g, scs, sds, s->t, rb, rcs, rds, r->t, cm),
             MPI_Ialltoallv(g, scs, sds, s->t, rb, rcs, rds, r->t, cm, &rq),
             MPI_Alltoallv_init(g, scs, sds, s->t, rb, rcs, rds, r->t, cm, in, &rq));
        break;
    }
    case ALLTOALLW: {
        void *g = x->inplace ? ip : sb;
        PICK(
            MPI_Alltoallw(g, x->wsc, x->wsd, x->wst, rb, x->wrc, x->wrd, x->wrt, cm),
            MPI_Ialltoallw(g, x->wsc, x->wsd, x->wst, rb, x->wrc, x->wrd, x->wrt, cm, &rq),
            MPI_Alltoallw_init(g, x->wsc, x->wsd, x->wst, rb, x->wrc, x->wrd, x->wrt, cm, in, &rq));
        break;
    }
    }
    free(rcs);
    free(rds);
    free(scs);
    free(sds);
}

static void one(struct ctx *x, int mode)
{
    if (x->kind == ALLTOALLW)
        wlayout(x);
    else {
        layout(x);
        long sp = span(x);
        int one_block = x->kind == BCAST || x->kind == GATHER || x->kind == GATHERV ||
                        x->kind == ALLGATHER || x->kind == ALLGATHERV;
        x->sbytes = (one_block ? x->c + x->size + 1 : sp) * x->s->ext + 8;
        x->rbytes = (x->kind == BCAST                            ? x->c + 1
                     : x->kind == SCATTER || x->kind == SCATTERV ? x->c + x->size + 1
                                                                 : sp) *
                        x->r->ext +
                    8;
        if (x->kind == SCATTER || x->kind == SCATTERV)
            if (x->inplace && x->rank == x->root) /* the expected image is the send buffer's */
                x->rbytes = x->sbytes > x->rbytes ? x->sbytes : x->rbytes;
        if (x->kind == BCAST && x->sbytes > x->rbytes)
            x->rbytes = x->sbytes;
    }
    x->sb = malloc(x->sbytes);
    x->rb = malloc(x->rbytes);
    x->eb = malloc(x->rbytes);
    prep(x, 0);
    if (getenv("STD_TRACE"))
        printf("[%d] %s %s->%s c %ld root %d inplace %d mode %d size %d\n", wrank, kname[x->kind],
               x->s->name, x->r->name, x->c, x->root, x->inplace, mode, x->size);
    call(x, mode);
    if (mode == NB) {
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else if (mode == PERS) {
        MPI_Start(&rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        if (refill)
            prep(x, 1);
        MPI_Start(&rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MPI_Request_free(&rq);
    }
    const char *got = x->rb;
    int scat_root = (x->kind == SCATTER || x->kind == SCATTERV) && x->inplace && x->rank == x->root;
    if (scat_root)
        got = x->sb; /* only the send buffer is there; it must be unchanged */
    if (x->kind == BCAST && x->rank == x->root)
        got = x->sb;
    size_t nb = scat_root || (x->kind == BCAST && x->rank == x->root) ? x->sbytes : x->rbytes;
    size_t bad = nb;
    for (size_t i = 0; i < nb; i++)
        if (got[i] != x->eb[i]) {
            bad = i;
            break;
        }
    CHECK(bad == nb, "%s %s->%s c %ld root %d inplace %d mode %d size %d: byte %zu of %zu",
          kname[x->kind], x->s->name, x->r->name, x->c, x->root, x->inplace, mode, x->size, bad,
          nb);
    free(x->sb);
    free(x->rb);
    free(x->eb);
}

static int rooted(int k)
{
    return k <= SCATTERV;
}
/* MPI 4.1: in place at the root of Gather(v) / Scatter(v), everywhere for All*, not for Bcast */
static int has_inplace(int k)
{
    return k != BCAST;
}

static void suite(MPI_Comm comm, const long *counts, int ncounts, int modes)
{
    struct ctx x = {0};
    x.comm = comm;
    MPI_Comm_rank(comm, &x.rank);
    MPI_Comm_size(comm, &x.size);
    int n = x.size;
    x.cnt = malloc(n * sizeof(int));
    x.dsp = malloc(n * sizeof(int));
    x.wsc = malloc(n * sizeof(int));
    x.wsd = malloc(n * sizeof(int));
    x.wrc = malloc(n * sizeof(int));
    x.wrd = malloc(n * sizeof(int));
    x.wst = malloc(n * sizeof(MPI_Datatype));
    x.wrt = malloc(n * sizeof(MPI_Datatype));
    x.wsu = malloc(n * sizeof(void *));
    x.wru = malloc(n * sizeof(void *));
    int rot = 0;
    for (int k = 0; k < NKIND; k++)
        for (int ci = 0; ci < ncounts; ci++)
            for (int mode = BLK; mode <= PERS; mode++) {
                if (!(modes & mode_mask & (1 << mode)))
                    continue;
                for (int ip = 0; ip <= has_inplace(k); ip++)
                    for (int root = 0; root < (rooted(k) ? n : 1); root++) {
                        if (counts[ci] > 1000 && root > 1)
                            continue;
                        for (int su = 0; su < NU; su++)
                            for (int ru = 0; ru < NU; ru++) {
                                if (!full && (su + ru * 2 + rot) % NU != 0)
                                    continue;
                                x.kind = k, x.c = counts[ci], x.root = root, x.inplace = ip;
                                x.s = &units[su], x.r = &units[ru];
                                one(&x, mode);
                            }
                        rot++;
                    }
            }
    free(x.cnt), free(x.dsp), free(x.wsc), free(x.wsd), free(x.wrc), free(x.wrd);
    free(x.wst), free(x.wrt), free(x.wsu), free(x.wru);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    full = getenv("STD_DTYPE_FULL") && atoi(getenv("STD_DTYPE_FULL"));
    refill = !getenv("STD_NO_REFILL");
    if (getenv("STD_MODES")) /* bit 0 blocking, 1 non-blocking, 2 persistent */
        mode_mask = atoi(getenv("STD_MODES"));
    make_units();
    static const long small[] = {0, 1, 7};
    suite(MPI_COMM_WORLD, small, 3, 7);
    MPI_Comm rev, half;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - wrank, &rev);
    suite(rev, small + 2, 1, 7);
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &half);
    suite(half, small + 1, 2, 1 << BLK | 1 << NB);
    /* past 1 MiB a block (3 * 4 * 90000 bytes) */
    static const long big[] = {90001};
    int f = full;
    full = 0; /* a rotation of unit pairs there: every pair would be 25 times the traffic */
    if (!getenv("STD_DTYPE_NOBIG"))
        suite(rev, big, 1, f ? 7 : 1 << NB);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&half);
    for (int i = 0; i < NU - 1; i++)
        MPI_Type_free(&units[i].t);
    int tot = 0;
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rc = std_report("std_dtype", tot, wrank);
    MPI_Finalize();
    return rc;
}
