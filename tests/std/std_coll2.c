/* SPDX-License-Identifier: BSD-3-Clause */
/* Collective corners from the MPI 4.1 text that std_coll / std_dtype / std_ops / std_nbc /
 * std_inter leave out: Alltoallw in place with a different type per peer and zero pairs (4.1
 * 6.8: the receive buffer's per-peer types send too), Reduce_scatter with zero recvcounts on some
 * ranks, Scan / Exscan / Reduce with a non-commutative user op on a derived type with holes (the op
 * is handed that type), a non-commutative user op on MPI_2INT, Bcast of a struct with padding
 * (padding bytes untouched), Gatherv / Scatterv with permuted displacements, non-blocking
 * collectives on three communicators started in a different interleaving on each rank (6.12:
 * only the order per communicator is fixed), a blocking collective while others are pending,
 * persistent collectives started in an order other than their initialisation, Test on an
 * inactive persistent request, Request_free of an inactive one, a split with MPI_UNDEFINED, and
 * intercommunicator v / w forms, Reduce_scatter and persistent ones with MPI_ROOT /
 * MPI_PROC_NULL. Each on the world, a reversed split and an odd / even split. */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CHECK_RANK wrank
#include "std_check.h"

static int wrank, wsize;
static MPI_Datatype mat_t, hmat_t; /* 4 unsigned; 4 unsigned at a stride of 2, extent 8 */
static MPI_Op mat_opn, aff_opn;

/* z = x * y, 2x2 matrices, wrapping */
static void mat_mul(const unsigned *x, const unsigned *y, unsigned *z)
{
    unsigned c[4] = {x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3],
                     x[2] * y[0] + x[3] * y[2], x[2] * y[1] + x[3] * y[3]};
    memcpy(z, c, sizeof c);
}
/* io = in * io, element by element, laid out by the type handed in */
static void mat_op(void *in, void *io, int *n, MPI_Datatype *dt)
{
    int st = *dt == hmat_t ? 2 : 1;
    if (*dt != hmat_t && *dt != mat_t) {
        errs++;
        printf("[%d] mat_op: unexpected datatype\n", wrank);
        return;
    }
    unsigned *a = in, *b = io;
    for (int i = 0; i < *n; i++, a += 4 * st, b += 4 * st) {
        unsigned x[4], y[4], z[4];
        for (int k = 0; k < 4; k++) {
            x[k] = a[k * st];
            y[k] = b[k * st];
        }
        mat_mul(x, y, z);
        for (int k = 0; k < 4; k++)
            b[k * st] = z[k];
    }
}
static void mat_of(int r, int k, unsigned *m)
{
    m[0] = r + 2;
    m[1] = k + 1;
    m[2] = 1;
    m[3] = r + k;
}
/* m_lo * ... * m_hi of element k (identity if lo > hi) */
static void mat_ref(int lo, int hi, int k, const int *rmap, unsigned *m)
{
    unsigned acc[4] = {1, 0, 0, 1};
    for (int r = lo; r <= hi; r++) {
        unsigned a[4];
        mat_of(rmap[r], k, a);
        mat_mul(acc, a, acc);
    }
    memcpy(m, acc, sizeof acc);
}
/* store element k of m into a buffer of `st` layout */
static void mat_put(unsigned *buf, int k, int st, const unsigned *m)
{
    for (int j = 0; j < 4; j++)
        buf[k * 4 * st + j * st] = m[j];
}
static int mat_eq(const unsigned *buf, int k, int st, const unsigned *m)
{
    for (int j = 0; j < 4; j++)
        if (buf[k * 4 * st + j * st] != m[j])
            return 0;
    return 1;
}
#define HOLE 0xdeadbeefu
static int holes_ok(const unsigned *buf, int n)
{ /* the odd words of a hmat_t buffer of n elements */
    for (int i = 0; i < n * 8; i += 2)
        if (buf[i + 1] != HOLE)
            return 0;
    return 1;
}

/* world ranks of comm's ranks: the op's element values follow world ranks */
static int *rank_map(MPI_Comm comm)
{
    int n;
    MPI_Comm_size(comm, &n);
    int *m = malloc(n * sizeof *m);
    MPI_Allgather(&wrank, 1, MPI_INT, m, 1, MPI_INT, comm);
    return m;
}

/* ---- Alltoallw, in place and not, per-peer types, zero pairs ---- */
static int pair_count(int a, int b)
{
    return (a + b) % 3;
}
static int a2a_val(int from, int to, int k)
{
    return from * 1000 + to * 10 + k;
}
#define SLOT 64                  /* bytes per peer */
static MPI_Datatype strided_int; /* an int with extent 8 */
static MPI_Datatype peer_type(int peer, int cnt, int *cnt_p)
{ /* cnt ints as cnt MPI_INT, cnt strided ints, or one contiguous(cnt) */
    static MPI_Datatype contig[3];
    switch (peer % 3) {
    case 0:
        *cnt_p = cnt;
        return MPI_INT;
    case 1:
        *cnt_p = cnt;
        return strided_int;
    default:
        if (contig[cnt] == 0) {
            MPI_Type_contiguous(cnt, MPI_INT, &contig[cnt]);
            MPI_Type_commit(&contig[cnt]);
        }
        *cnt_p = 1;
        return contig[cnt];
    }
}
static int peer_stride(int peer)
{
    return peer % 3 == 1 ? 2 : 1;
}
static void a2aw_fill(int *buf, int me, int n, int recv_side)
{
    for (int i = 0; i < n * SLOT / 4 + 4; i++)
        buf[i] = -7;
    for (int j = 0; j < n; j++) {
        int *slot = buf + (n - 1 - j) * SLOT / 4, c = pair_count(me, j);
        for (int k = 0; k < c; k++)
            slot[k * peer_stride(j)] = recv_side ? -1 : a2a_val(me, j, k);
    }
}
static void a2aw_check(const int *buf, int me, int n, const char *what)
{
    for (int j = 0; j < n; j++) {
        const int *slot = buf + (n - 1 - j) * SLOT / 4;
        int c = pair_count(me, j), st = peer_stride(j);
        for (int w = 0; w < SLOT / 4; w++) {
            int want = (w % st == 0 && w / st < c) ? a2a_val(j, me, w / st) : -7;
            CHECK(slot[w] == want, "%s: from %d word %d: %d, want %d", what, j, w, slot[w], want);
        }
    }
    for (int i = 0; i < 4; i++)
        CHECK(buf[n * SLOT / 4 + i] == -7, "%s: guard %d", what, i);
}
static void alltoallw_cases(MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int *cnt = malloc(n * sizeof *cnt), *dis = malloc(n * sizeof *dis);
    MPI_Datatype *ty = malloc(n * sizeof *ty);
    for (int j = 0; j < n; j++) {
        ty[j] = peer_type(j, pair_count(me, j), &cnt[j]);
        dis[j] = (n - 1 - j) * SLOT;
    }
    int *buf = malloc(n * SLOT + 16), *sb = malloc(n * SLOT + 16);
    /* STD_A2AW_MODES=1: the blocking forms alone (Open MPI 4.1 hangs in a non-blocking in-place
     * Alltoallw at 3 ranks and more) */
    const char *e = getenv("STD_A2AW_MODES");
    for (int mode = 0; mode < (e ? atoi(e) : 3); mode++) {
        MPI_Request rq;
        /* in place */
        a2aw_fill(buf, me, n, 0);
        if (mode == 0)
            MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, cnt, dis, ty, comm);
        else if (mode == 1) {
            MPI_Ialltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, cnt, dis, ty, comm, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else {
            MPI_Alltoallw_init(MPI_IN_PLACE, NULL, NULL, NULL, buf, cnt, dis, ty, comm,
                               MPI_INFO_NULL, &rq);
            for (int t = 0; t < 2; t++) {
                a2aw_fill(buf, me, n, 0);
                MPI_Start(&rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
                a2aw_check(buf, me, n, "alltoallw_init in place");
            }
            MPI_Request_free(&rq);
        }
        a2aw_check(buf, me, n, "alltoallw in place");
        /* separate buffers, same per-peer types both sides */
        a2aw_fill(sb, me, n, 0);
        a2aw_fill(buf, me, n, 1);
        if (mode == 0)
            MPI_Alltoallw(sb, cnt, dis, ty, buf, cnt, dis, ty, comm);
        else {
            MPI_Ialltoallw(sb, cnt, dis, ty, buf, cnt, dis, ty, comm, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        }
        a2aw_check(buf, me, n, "alltoallw");
    }
    free(buf);
    free(sb);
    free(cnt);
    free(dis);
    free(ty);
}

/* One collective in mode 0 (blocking), 1 (non-blocking, waited) or 2 (persistent: started in
 * turn t, made at t == 0). */
#define RUN3(blk, nb, init)                                                                        \
    do {                                                                                           \
        if (mode == 0)                                                                             \
            blk;                                                                                   \
        else if (mode == 1) {                                                                      \
            nb;                                                                                    \
            MPI_Wait(&rq, MPI_STATUS_IGNORE);                                                      \
        } else {                                                                                   \
            if (t == 0)                                                                            \
                init;                                                                              \
            MPI_Start(&rq);                                                                        \
            MPI_Wait(&rq, MPI_STATUS_IGNORE);                                                      \
        }                                                                                          \
    } while (0)
#define TURNS (mode == 2 ? 2 : 1)
#define DONE3()                                                                                    \
    do {                                                                                           \
        if (mode == 2)                                                                             \
            MPI_Request_free(&rq);                                                                 \
    } while (0)

/* ---- Reduce_scatter with zero recvcounts, non-commutative ---- */
static void reduce_scatter_cases(MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int *rmap = rank_map(comm);
    for (int pat = 0; pat < 3; pat++) {
        int *rc = malloc(n * sizeof *rc), tot = 0, off = 0;
        for (int i = 0; i < n; i++) {
            rc[i] = pat == 0 ? (i % 2 ? i + 1 : 0) : pat == 1 ? (i == n - 1 ? 5 : 0) : 0;
            tot += rc[i];
        }
        for (int i = 0; i < me; i++)
            off += rc[i];
        unsigned *sb = malloc((tot + 1) * 16), *rb = malloc((tot + 1) * 16);
        for (int inplace = 0; inplace < 2; inplace++)
            for (int mode = 0; mode < 3; mode++) {
                MPI_Request rq;
                for (int t = 0; t < TURNS; t++) {
                    for (int k = 0; k < tot; k++) {
                        unsigned m[4];
                        mat_of(wrank + t, k, m);
                        mat_put(inplace ? rb : sb, k, 1, m);
                    }
                    if (!inplace)
                        memset(rb, 0x5a, (tot + 1) * 16);
                    const void *s = inplace ? MPI_IN_PLACE : sb;
                    RUN3(MPI_Reduce_scatter(s, rb, rc, mat_t, mat_opn, comm),
                         MPI_Ireduce_scatter(s, rb, rc, mat_t, mat_opn, comm, &rq),
                         MPI_Reduce_scatter_init(s, rb, rc, mat_t, mat_opn, comm, MPI_INFO_NULL,
                                                 &rq));
                    int tm[64];
                    for (int i = 0; i < n; i++)
                        tm[i] = rmap[i] + t;
                    for (int k = 0; k < rc[me]; k++) {
                        unsigned want[4];
                        mat_ref(0, n - 1, off + k, tm, want);
                        CHECK(mat_eq(rb, k, 1, want),
                              "reduce_scatter pat %d inplace %d mode %d k %d", pat, inplace, mode,
                              k);
                    }
                    if (!inplace)
                        CHECK(((unsigned char *)rb)[rc[me] * 16] == 0x5a,
                              "reduce_scatter wrote past its block");
                }
                DONE3();
            }
        free(sb);
        free(rb);
        free(rc);
    }
    free(rmap);
}

/* ---- Scan / Exscan / Reduce / Allreduce of a holed type with a non-commutative op ---- */
static void hmat_fill(unsigned *b, int cnt, int r)
{
    for (int i = 0; i < cnt * 8; i++)
        b[i] = HOLE;
    for (int k = 0; k < cnt; k++) {
        unsigned m[4];
        mat_of(r, k, m);
        mat_put(b, k, 2, m);
    }
}
static void hmat_expect(const unsigned *b, int cnt, int lo, int hi, const int *rmap,
                        const char *what)
{
    for (int k = 0; k < cnt; k++) {
        unsigned want[4];
        mat_ref(lo, hi, k, rmap, want);
        CHECK(mat_eq(b, k, 2, want), "%s: element %d of ranks %d..%d", what, k, lo, hi);
    }
    CHECK(holes_ok(b, cnt), "%s: a hole was written", what);
}
static void scan_cases(MPI_Comm comm, int cnt)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int *rmap = rank_map(comm);
    unsigned *sb = malloc(cnt * 32 + 32), *rb = malloc(cnt * 32 + 32);
    for (int inplace = 0; inplace < 2; inplace++)
        for (int mode = 0; mode < 3; mode++) {
            MPI_Request rq;
            const void *s = inplace ? MPI_IN_PLACE : sb;
            for (int t = 0; t < TURNS; t++) {
                hmat_fill(inplace ? rb : sb, cnt, wrank);
                if (!inplace)
                    for (int i = 0; i < cnt * 8; i++)
                        rb[i] = HOLE;
                RUN3(MPI_Scan(s, rb, cnt, hmat_t, mat_opn, comm),
                     MPI_Iscan(s, rb, cnt, hmat_t, mat_opn, comm, &rq),
                     MPI_Scan_init(s, rb, cnt, hmat_t, mat_opn, comm, MPI_INFO_NULL, &rq));
                hmat_expect(rb, cnt, 0, me, rmap, "scan");
            }
            DONE3();
            for (int t = 0; t < TURNS; t++) {
                hmat_fill(inplace ? rb : sb, cnt, wrank);
                if (!inplace)
                    for (int i = 0; i < cnt * 8; i++)
                        rb[i] = HOLE;
                RUN3(MPI_Exscan(s, rb, cnt, hmat_t, mat_opn, comm),
                     MPI_Iexscan(s, rb, cnt, hmat_t, mat_opn, comm, &rq),
                     MPI_Exscan_init(s, rb, cnt, hmat_t, mat_opn, comm, MPI_INFO_NULL, &rq));
                if (me > 0)
                    hmat_expect(rb, cnt, 0, me - 1, rmap, "exscan");
                else
                    CHECK(holes_ok(rb, cnt), "exscan rank 0: a hole was written");
            }
            DONE3();
            for (int root = 0; root < n; root++)
                for (int t = 0; t < TURNS; t++) {
                    int ip = inplace && me == root;
                    hmat_fill(ip ? rb : sb, cnt, wrank);
                    if (!ip)
                        for (int i = 0; i < cnt * 8; i++)
                            rb[i] = HOLE;
                    const void *s2 = ip ? MPI_IN_PLACE : sb;
                    RUN3(MPI_Reduce(s2, rb, cnt, hmat_t, mat_opn, root, comm),
                         MPI_Ireduce(s2, rb, cnt, hmat_t, mat_opn, root, comm, &rq),
                         MPI_Reduce_init(s2, rb, cnt, hmat_t, mat_opn, root, comm, MPI_INFO_NULL,
                                         &rq));
                    if (me == root)
                        hmat_expect(rb, cnt, 0, n - 1, rmap, "reduce");
                    else
                        CHECK(holes_ok(rb, cnt), "reduce non-root: a hole was written");
                    if (mode == 2 && t == TURNS - 1)
                        MPI_Request_free(&rq);
                }
            for (int t = 0; t < TURNS; t++) {
                hmat_fill(inplace ? rb : sb, cnt, wrank);
                if (!inplace)
                    for (int i = 0; i < cnt * 8; i++)
                        rb[i] = HOLE;
                RUN3(MPI_Allreduce(s, rb, cnt, hmat_t, mat_opn, comm),
                     MPI_Iallreduce(s, rb, cnt, hmat_t, mat_opn, comm, &rq),
                     MPI_Allreduce_init(s, rb, cnt, hmat_t, mat_opn, comm, MPI_INFO_NULL, &rq));
                hmat_expect(rb, cnt, 0, n - 1, rmap, "allreduce");
            }
            DONE3();
        }
    free(sb);
    free(rb);
    free(rmap);
}

/* ---- a non-commutative user op on MPI_2INT: affine maps x -> a x + b composed ---- */
typedef struct {
    int a, b;
} aff_t;
static void aff_comp(const aff_t *x, aff_t *y)
{ /* y = x o y */
    unsigned a = (unsigned)x->a * (unsigned)y->a, b = (unsigned)x->a * (unsigned)y->b + x->b;
    y->a = (int)a;
    y->b = (int)b;
}
static void aff_op(void *in, void *io, int *n, MPI_Datatype *dt)
{
    if (*dt != MPI_2INT) {
        errs++;
        return;
    }
    for (int i = 0; i < *n; i++)
        aff_comp((aff_t *)in + i, (aff_t *)io + i);
}
static aff_t aff_of(int r, int k)
{
    return (aff_t){r + 2 + k, 3 * r - k};
}
static aff_t aff_ref(int lo, int hi, int k, const int *rmap)
{
    aff_t acc = {1, 0};
    for (int r = hi; r >= lo; r--) {
        aff_t e = aff_of(rmap[r], k);
        aff_comp(&e, &acc);
    }
    return acc;
}
static void pair_op_cases(MPI_Comm comm)
{
    int me, n;
    enum { C = 5 };
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int *rmap = rank_map(comm);
    aff_t sb[C], rb[C];
    for (int k = 0; k < C; k++)
        sb[k] = aff_of(wrank, k);
    MPI_Allreduce(sb, rb, C, MPI_2INT, aff_opn, comm);
    for (int k = 0; k < C; k++) {
        aff_t w = aff_ref(0, n - 1, k, rmap);
        CHECK(rb[k].a == w.a && rb[k].b == w.b, "2int allreduce k %d", k);
    }
    for (int root = 0; root < n; root++) {
        memcpy(rb, sb, sizeof sb);
        MPI_Reduce(me == root ? MPI_IN_PLACE : sb, rb, C, MPI_2INT, aff_opn, root, comm);
        for (int k = 0; me == root && k < C; k++) {
            aff_t w = aff_ref(0, n - 1, k, rmap);
            CHECK(rb[k].a == w.a && rb[k].b == w.b, "2int reduce root %d k %d", root, k);
        }
    }
    MPI_Scan(sb, rb, C, MPI_2INT, aff_opn, comm);
    for (int k = 0; k < C; k++) {
        aff_t w = aff_ref(0, me, k, rmap);
        CHECK(rb[k].a == w.a && rb[k].b == w.b, "2int scan k %d", k);
    }
    memcpy(rb, sb, sizeof sb);
    MPI_Exscan(MPI_IN_PLACE, rb, C, MPI_2INT, aff_opn, comm);
    for (int k = 0; me > 0 && k < C; k++) {
        aff_t w = aff_ref(0, me - 1, k, rmap);
        CHECK(rb[k].a == w.a && rb[k].b == w.b, "2int exscan k %d", k);
    }
    /* the predefined MAXLOC beside it on the same type, in place */
    int mx[2] = {wrank % 2, me};
    MPI_Allreduce(MPI_IN_PLACE, mx, 1, MPI_2INT, MPI_MAXLOC, comm);
    int anyodd = 0, first = -1;
    for (int i = 0; i < n; i++)
        anyodd |= rmap[i] % 2;
    for (int i = n - 1; i >= 0; i--)
        if (rmap[i] % 2 == anyodd)
            first = i;
    CHECK(mx[0] == anyodd && mx[1] == first, "maxloc 2int (%d,%d)", mx[0], mx[1]);
    free(rmap);
}

/* ---- Bcast of a struct with padding ---- */
typedef struct {
    char c;
    double d;
    short s;
    int i[3];
    char e;
} pad_t;
static MPI_Datatype pad_type(void)
{
    int bl[5] = {1, 1, 1, 3, 1};
    MPI_Aint dis[5] = {offsetof(pad_t, c), offsetof(pad_t, d), offsetof(pad_t, s),
                       offsetof(pad_t, i), offsetof(pad_t, e)};
    MPI_Datatype ty[5] = {MPI_CHAR, MPI_DOUBLE, MPI_SHORT, MPI_INT, MPI_CHAR}, t, r;
    MPI_Type_create_struct(5, bl, dis, ty, &t);
    MPI_Type_create_resized(t, 0, sizeof(pad_t), &r);
    MPI_Type_free(&t);
    MPI_Type_commit(&r);
    return r;
}
static void pad_set(pad_t *p, int root, int k)
{
    p->c = (char)(root + k);
    p->d = root * 0.5 + k;
    p->s = (short)(k * 3 - root);
    for (int j = 0; j < 3; j++)
        p->i[j] = root * 100000 + k * 3 + j;
    p->e = (char)(k ^ 0x55);
}
static int pad_ok(const pad_t *p, int root, int k)
{
    pad_t w;
    memset(&w, 0xee, sizeof w);
    pad_set(&w, root, k);
    return memcmp(p, &w, sizeof w) == 0; /* fields equal and padding still 0xee */
}
static void bcast_pad_cases(MPI_Comm comm, int big)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    MPI_Datatype pt = pad_type();
    int counts[3] = {7, 1, big};
    pad_t *b = malloc(big * sizeof *b);
    for (int ci = 0; ci < 3; ci++)
        for (int root = 0; root < n; root++)
            for (int mode = 0; mode < 3; mode++) {
                int cnt = counts[ci];
                MPI_Request rq;
                for (int t = 0; t < TURNS; t++) {
                    memset(b, 0xee, cnt * sizeof *b);
                    if (me == root)
                        for (int k = 0; k < cnt; k++)
                            pad_set(&b[k], root + t, k);
                    RUN3(MPI_Bcast(b, cnt, pt, root, comm), MPI_Ibcast(b, cnt, pt, root, comm, &rq),
                         MPI_Bcast_init(b, cnt, pt, root, comm, MPI_INFO_NULL, &rq));
                    int bad = 0;
                    for (int k = 0; k < cnt; k++)
                        bad += !pad_ok(&b[k], root + t, k);
                    CHECK(bad == 0, "bcast pad count %d root %d mode %d: %d bad", cnt, root, mode,
                          bad);
                }
                DONE3();
            }
    free(b);
    MPI_Type_free(&pt);
}

/* ---- Gatherv / Scatterv with permuted displacements, root in place ---- */
static void gatherv_perm_cases(MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int w = n + 3, *cnt = malloc(n * sizeof *cnt), *dis = malloc(n * sizeof *dis);
    int *rb = malloc(n * w * sizeof *rb), sb[16];
    for (int root = 0; root < n; root++)
        for (int nb = 0; nb < 2; nb++) {
            for (int i = 0; i < n; i++) {
                cnt[i] = (i + root) % 3 == 0 ? 0 : i + 1;
                dis[i] = ((i * 2 + root + 1) % n) * w + 1;
            }
            /* a permutation of slots needs gcd(2, n) == 1; else reverse */
            if (n % 2 == 0)
                for (int i = 0; i < n; i++)
                    dis[i] = (n - 1 - i) * w + 1;
            for (int i = 0; i < n * w; i++)
                rb[i] = -3;
            for (int k = 0; k < cnt[me]; k++)
                sb[k] = wrank * 100 + k;
            if (me == root)
                memcpy(rb + dis[me], sb, cnt[me] * sizeof(int));
            const void *s = me == root ? MPI_IN_PLACE : sb;
            MPI_Request rq;
            if (nb) {
                MPI_Igatherv(s, cnt[me], MPI_INT, rb, cnt, dis, MPI_INT, root, comm, &rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
            } else
                MPI_Gatherv(s, cnt[me], MPI_INT, rb, cnt, dis, MPI_INT, root, comm);
            int *rmap = rank_map(comm);
            if (me == root)
                for (int i = 0; i < n; i++)
                    for (int x = 0; x < w; x++) {
                        int idx = dis[i] - 1 + x, k = x - 1;
                        int want = (k >= 0 && k < cnt[i]) ? rmap[i] * 100 + k : -3;
                        if (x == 0 || k >= cnt[i]) {
                            /* gap word: untouched unless another block owns it (none do) */
                            want = -3;
                        }
                        CHECK(rb[idx] == want, "gatherv root %d from %d word %d: %d want %d", root,
                              i, x, rb[idx], want);
                    }
            /* and back: Scatterv from the same layout, root in place */
            for (int k = 0; k < 16; k++)
                sb[k] = -9;
            if (me == root)
                for (int i = 0; i < n; i++)
                    for (int k = 0; k < cnt[i]; k++)
                        rb[dis[i] + k] = i * 1000 + k;
            void *r = me == root ? MPI_IN_PLACE : sb;
            if (nb) {
                MPI_Iscatterv(rb, cnt, dis, MPI_INT, r, cnt[me], MPI_INT, root, comm, &rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
            } else
                MPI_Scatterv(rb, cnt, dis, MPI_INT, r, cnt[me], MPI_INT, root, comm);
            if (me != root) {
                for (int k = 0; k < cnt[me]; k++)
                    CHECK(sb[k] == me * 1000 + k, "scatterv root %d k %d: %d", root, k, sb[k]);
                CHECK(sb[cnt[me]] == -9, "scatterv wrote past its count");
            }
            free(rmap);
        }
    free(cnt);
    free(dis);
    free(rb);
}

/* ---- non-blocking collectives on three communicators, interleaved differently per rank ---- */
static void nbc_interleave(MPI_Comm c0, MPI_Comm c1, MPI_Comm c2)
{
    MPI_Comm cs[3] = {c0, c1, c2};
    int me[3], n[3];
    for (int c = 0; c < 3; c++) {
        MPI_Comm_rank(cs[c], &me[c]);
        MPI_Comm_size(cs[c], &n[c]);
    }
    int ar[3], ar_out[3], *a2a_s = malloc(n[0] * 4), *a2a_r = malloc(n[0] * 4);
    int bc[100], sc, sc_out, *ag = malloc(n[1] * 4), rd = me[2] * 7, rd_out = -1;
    int *ga = malloc(n[2] * 4), ex = me[2] + 1, ex_out = -5;
    for (int k = 0; k < 3; k++)
        ar[k] = me[0] + k;
    for (int i = 0; i < n[0]; i++)
        a2a_s[i] = me[0] * 100 + i;
    for (int k = 0; k < 100; k++)
        bc[k] = me[1] == 0 ? k * 3 + 1 : -1;
    sc = me[1] + 1;
    MPI_Request rq[9];
    /* per communicator the order is fixed; across them each rank takes its own turn */
    int next[3] = {0, 0, 0}, done = 0, c = wrank % 3;
    while (done < 9) {
        int k = next[c];
        if (k < 3) {
            MPI_Request *r = &rq[c * 3 + k];
            if (c == 0 && k == 0)
                MPI_Iallreduce(ar, ar_out, 3, MPI_INT, MPI_SUM, c0, r);
            else if (c == 0 && k == 1)
                MPI_Ialltoall(a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, c0, r);
            else if (c == 0)
                MPI_Ibarrier(c0, r);
            else if (c == 1 && k == 0)
                MPI_Ibcast(bc, 100, MPI_INT, 0, c1, r);
            else if (c == 1 && k == 1)
                MPI_Iscan(&sc, &sc_out, 1, MPI_INT, MPI_SUM, c1, r);
            else if (c == 1)
                MPI_Iallgather(&wrank, 1, MPI_INT, ag, 1, MPI_INT, c1, r);
            else if (k == 0)
                MPI_Ireduce(&rd, &rd_out, 1, MPI_INT, MPI_MAX, n[2] - 1, c2, r);
            else if (k == 1)
                MPI_Igather(&wrank, 1, MPI_INT, ga, 1, MPI_INT, 0, c2, r);
            else
                MPI_Iexscan(&ex, &ex_out, 1, MPI_INT, MPI_SUM, c2, r);
            next[c]++;
            done++;
        }
        if (wrank % 4 == 3 && next[c] < 3)
            continue; /* some ranks finish one communicator before moving on */
        c = wrank % 2 ? (c + 2) % 3 : (c + 1) % 3;
    }
    /* a blocking collective on the world while all nine are pending */
    int s = 1, tot = 0;
    MPI_Allreduce(&s, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(tot == wsize, "blocking allreduce among pending ones: %d", tot);
    if (wrank % 2)
        MPI_Waitall(9, rq, MPI_STATUSES_IGNORE);
    else
        for (int i = 8; i >= 0; i--)
            MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
    for (int k = 0; k < 3; k++)
        CHECK(ar_out[k] == n[0] * (n[0] - 1) / 2 + n[0] * k, "interleaved iallreduce");
    for (int i = 0; i < n[0]; i++)
        CHECK(a2a_r[i] == i * 100 + me[0], "interleaved ialltoall from %d", i);
    for (int k = 0; k < 100; k++)
        CHECK(bc[k] == k * 3 + 1, "interleaved ibcast %d", k);
    CHECK(sc_out == (me[1] + 1) * (me[1] + 2) / 2, "interleaved iscan %d", sc_out);
    int *m1 = rank_map(c1), *m2 = rank_map(c2);
    for (int i = 0; i < n[1]; i++)
        CHECK(ag[i] == m1[i], "interleaved iallgather %d", i);
    if (me[2] == n[2] - 1)
        CHECK(rd_out == (n[2] - 1) * 7, "interleaved ireduce %d", rd_out);
    for (int i = 0; me[2] == 0 && i < n[2]; i++)
        CHECK(ga[i] == m2[i], "interleaved igather %d", i);
    if (me[2] > 0)
        CHECK(ex_out == me[2] * (me[2] + 1) / 2, "interleaved iexscan %d", ex_out);
    free(m1);
    free(m2);
    free(a2a_s);
    free(a2a_r);
    free(ag);
    free(ga);
}

/* ---- persistent collectives started in another order than made; Test, free inactive ---- */
static void persistent_order(MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int *rmap = rank_map(comm);
    int a = 0, a_out = 0, b[40];
    unsigned c[8], c_out[8];
    MPI_Request ra, rb, rc;
    MPI_Allreduce_init(&a, &a_out, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &ra);
    MPI_Bcast_init(b, 40, MPI_INT, n - 1, comm, MPI_INFO_NULL, &rb);
    MPI_Reduce_init(c, c_out, 2, mat_t, mat_opn, 0, comm, MPI_INFO_NULL, &rc);
    int flag = 0;
    MPI_Test(&ra, &flag, MPI_STATUS_IGNORE); /* inactive: at once */
    CHECK(flag, "test of an inactive persistent collective");
    for (int it = 0; it < 4; it++) {
        a = me + it;
        for (int k = 0; k < 40; k++)
            b[k] = me == n - 1 ? it * 50 + k : -1;
        for (int k = 0; k < 2; k++)
            mat_of(wrank + it, k, c + 4 * k);
        MPI_Request *order[3][3] = {{&rc, &ra, &rb}, {&rb, &rc, &ra}, {&ra, &rb, &rc}};
        for (int j = 0; j < 3; j++)
            MPI_Start(order[it % 3][j]);
        MPI_Request all[3] = {ra, rb, rc};
        flag = 0;
        while (!flag) /* Testall keeps persistent requests, marks them inactive */
            MPI_Testall(3, all, &flag, MPI_STATUSES_IGNORE);
        CHECK(all[0] == ra && all[1] == rb && all[2] == rc, "testall changed a persistent handle");
        CHECK(a_out == n * (n - 1) / 2 + n * it, "persistent allreduce turn %d: %d", it, a_out);
        for (int k = 0; k < 40; k++)
            CHECK(b[k] == it * 50 + k, "persistent bcast turn %d", it);
        if (me == 0) {
            int tm[64];
            for (int i = 0; i < n; i++)
                tm[i] = rmap[i] + it;
            for (int k = 0; k < 2; k++) {
                unsigned w[4];
                mat_ref(0, n - 1, k, tm, w);
                CHECK(mat_eq(c_out, k, 1, w), "persistent reduce turn %d", it);
            }
        }
    }
    MPI_Request_free(&ra);
    CHECK(ra == MPI_REQUEST_NULL, "request_free left the handle");
    /* a new one on the same communicator after a free, while rb / rc stay */
    MPI_Allreduce_init(&a, &a_out, 1, MPI_INT, MPI_MAX, comm, MPI_INFO_NULL, &ra);
    a = me * 3;
    MPI_Start(&rb);
    MPI_Start(&ra);
    MPI_Wait(&ra, MPI_STATUS_IGNORE);
    MPI_Wait(&rb, MPI_STATUS_IGNORE);
    CHECK(a_out == (n - 1) * 3, "allreduce_init after a free: %d", a_out);
    MPI_Request_free(&ra);
    MPI_Request_free(&rb);
    MPI_Request_free(&rc);
    free(rmap);
}

/* ---- intercommunicator v / w forms, Reduce_scatter, persistent, MPI_ROOT / MPI_PROC_NULL ---- */
static void inter_cases(void)
{
    if (wsize < 2)
        return;
    int color = wrank % 2, top_even = (wsize - 1) / 2 * 2,
        top_odd = wsize % 2 ? wsize - 2 : wsize - 1;
    MPI_Comm local, ic;
    MPI_Comm_split(MPI_COMM_WORLD, color, -wrank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color ? top_even : top_odd, 77, &ic);
    int me, ln, rn;
    MPI_Comm_rank(ic, &me);
    MPI_Comm_size(ic, &ln);
    MPI_Comm_remote_size(ic, &rn);
    int *rw = malloc(rn * 4); /* remote world ranks */
    MPI_Allgather(&wrank, 1, MPI_INT, rw, 1, MPI_INT, ic);
    int nmax = ln > rn ? ln : rn, *sb = malloc(64 * nmax * 4), *rb = malloc(64 * nmax * 4);
    int *sc = malloc(nmax * 4), *sd = malloc(nmax * 4), *rc = malloc(nmax * 4),
        *rd = malloc(nmax * 4);
    MPI_Request rq;
    /* Gatherv to group 0's local rank 0, reversed displacements */
    for (int nb = 0; nb < 2; nb++) {
        int root = color == 0 ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        for (int k = 0; k < 8; k++)
            sb[k] = wrank * 10 + k;
        for (int i = 0; i < rn; i++) {
            rc[i] = (i + 1) % 3;
            rd[i] = (rn - 1 - i) * 4;
        }
        for (int i = 0; i < rn * 4; i++)
            rb[i] = -1;
        int cnt = color ? (me + 1) % 3 : 0;
        if (nb) {
            MPI_Igatherv(sb, cnt, MPI_INT, rb, rc, rd, MPI_INT, root, ic, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else
            MPI_Gatherv(sb, cnt, MPI_INT, rb, rc, rd, MPI_INT, root, ic);
        if (root == MPI_ROOT)
            for (int i = 0; i < rn; i++)
                for (int k = 0; k < 4; k++)
                    CHECK(rb[rd[i] + k] == (k < rc[i] ? rw[i] * 10 + k : -1),
                          "inter gatherv from %d k %d", i, k);
    }
    /* Scatterv from group 1's last local rank */
    for (int nb = 0; nb < 2; nb++) {
        int root = color == 1 ? (me == ln - 1 ? MPI_ROOT : MPI_PROC_NULL) : ln > 0 ? rn - 1 : 0;
        for (int i = 0; i < rn; i++) {
            sc[i] = i % 2 + 1;
            sd[i] = (rn - 1 - i) * 3;
            for (int k = 0; k < sc[i]; k++)
                sb[sd[i] + k] = i * 100 + k + wrank;
        }
        for (int k = 0; k < 4; k++)
            rb[k] = -1;
        int cnt = color ? 0 : me % 2 + 1;
        if (nb) {
            MPI_Iscatterv(sb, sc, sd, MPI_INT, rb, cnt, MPI_INT, root, ic, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else
            MPI_Scatterv(sb, sc, sd, MPI_INT, rb, cnt, MPI_INT, root, ic);
        if (color == 0) {
            for (int k = 0; k < cnt; k++)
                CHECK(rb[k] == me * 100 + k + rw[rn - 1], "inter scatterv k %d: %d", k, rb[k]);
            CHECK(rb[cnt] == -1, "inter scatterv past count");
        }
    }
    /* Allgatherv: rank r of group c sends r % 2 + c ints */
    for (int mode = 0; mode < 2; mode++) {
        int cnt = me % 2 + color, off = 0;
        for (int k = 0; k < cnt; k++)
            sb[k] = wrank * 10 + k;
        for (int i = 0; i < rn; i++) {
            rc[i] = i % 2 + (1 - color);
            rd[i] = off;
            off += rc[i] + 1;
        }
        for (int i = 0; i < off; i++)
            rb[i] = -1;
        if (mode) {
            MPI_Iallgatherv(sb, cnt, MPI_INT, rb, rc, rd, MPI_INT, ic, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else
            MPI_Allgatherv(sb, cnt, MPI_INT, rb, rc, rd, MPI_INT, ic);
        for (int i = 0; i < rn; i++)
            for (int k = 0; k <= rc[i]; k++)
                CHECK(rb[rd[i] + k] == (k < rc[i] ? rw[i] * 10 + k : -1),
                      "inter allgatherv from %d k %d", i, k);
    }
    /* Alltoallv and Alltoallw (a strided receive type for odd peers) */
    for (int form = 0; form < 4; form++) {
        MPI_Datatype *st = malloc(rn * sizeof *st), *rt = malloc(rn * sizeof *rt);
        int *sdb = malloc(rn * 4), *rdb = malloc(rn * 4);
        for (int i = 0; i < rn; i++) {
            sc[i] = (me + i + color) % 3;
            sd[i] = i * 4;
            rc[i] = (i + me + 1 - color) % 3;
            rd[i] = (rn - 1 - i) * 8;
            for (int k = 0; k < sc[i]; k++)
                sb[sd[i] + k] = wrank * 1000 + i * 10 + k;
            st[i] = MPI_INT;
            rt[i] = form >= 2 && i % 2 ? strided_int : MPI_INT;
            sdb[i] = sd[i] * 4;
            rdb[i] = rd[i] * 4;
        }
        for (int i = 0; i < rn * 8; i++)
            rb[i] = -1;
        if (form == 0)
            MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, ic);
        else if (form == 1) {
            MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, ic, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else if (form == 2)
            MPI_Alltoallw(sb, sc, sdb, st, rb, rc, rdb, rt, ic);
        else {
            MPI_Alltoallw_init(sb, sc, sdb, st, rb, rc, rdb, rt, ic, MPI_INFO_NULL, &rq);
            MPI_Start(&rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            MPI_Request_free(&rq);
        }
        for (int i = 0; i < rn; i++) {
            int str = rt[i] == strided_int ? 2 : 1;
            for (int w = 0; w < 8; w++) {
                int want = w % str == 0 && w / str < rc[i] ? rw[i] * 1000 + me * 10 + w / str : -1;
                CHECK(rb[rd[i] + w] == want, "inter alltoall form %d from %d word %d: %d want %d",
                      form, i, w, rb[rd[i] + w], want);
            }
        }
        free(st);
        free(rt);
        free(sdb);
        free(rdb);
    }
    /* Reduce_scatter: 6 elements in both groups, zero blocks, the non-commutative op in the
     * remote group's rank order */
    {
        int off = 0;
        for (int i = 0; i < ln; i++) {
            rc[i] = i == ln - 1 ? 0 : i % 2 ? 0 : 1;
            off += rc[i];
        }
        rc[ln - 1] = 6 - off;
        off = 0;
        for (int i = 0; i < me; i++)
            off += rc[i];
        unsigned *ms = malloc(6 * 16), mr[6 * 4];
        for (int mode = 0; mode < 3; mode++)
            for (int t = 0; t < TURNS; t++) {
                for (int k = 0; k < 6; k++)
                    mat_of(wrank + t, k, ms + 4 * k);
                RUN3(MPI_Reduce_scatter(ms, mr, rc, mat_t, mat_opn, ic),
                     MPI_Ireduce_scatter(ms, mr, rc, mat_t, mat_opn, ic, &rq),
                     MPI_Reduce_scatter_init(ms, mr, rc, mat_t, mat_opn, ic, MPI_INFO_NULL, &rq));
                int tm[64];
                for (int i = 0; i < rn; i++)
                    tm[i] = rw[i] + t;
                for (int k = 0; k < rc[me]; k++) {
                    unsigned w[4];
                    mat_ref(0, rn - 1, off + k, tm, w);
                    CHECK(mat_eq(mr, k, 1, w), "inter reduce_scatter mode %d k %d", mode, k);
                }
                if (mode == 2 && t == TURNS - 1)
                    MPI_Request_free(&rq);
            }
        free(ms);
    }
    /* persistent Bcast / Reduce with MPI_ROOT in one group, then the other; a zero count */
    for (int g = 0; g < 2; g++) {
        int root = color == g ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        int bb[20];
        unsigned ms[8], mr[8];
        MPI_Request r2[3];
        MPI_Bcast_init(bb, 20, MPI_INT, root, ic, MPI_INFO_NULL, &r2[0]);
        MPI_Reduce_init(ms, mr, 2, mat_t, mat_opn, root, ic, MPI_INFO_NULL, &r2[1]);
        MPI_Reduce_init(ms, mr, 0, mat_t, mat_opn, root, ic, MPI_INFO_NULL, &r2[2]);
        for (int t = 0; t < 2; t++) {
            for (int k = 0; k < 20; k++)
                bb[k] = root == MPI_ROOT ? wrank * 100 + k + t : -1;
            for (int k = 0; k < 2; k++)
                mat_of(wrank + t, k, ms + 4 * k);
            memset(mr, 0, sizeof mr);
            for (int j = 0; j < 3; j++)
                MPI_Start(&r2[j]);
            MPI_Waitall(3, r2, MPI_STATUSES_IGNORE);
            if (color != g)
                for (int k = 0; k < 20; k++)
                    CHECK(bb[k] == rw[0] * 100 + k + t, "inter bcast_init group %d", g);
            if (root == MPI_ROOT) {
                int tm[64];
                for (int i = 0; i < rn; i++)
                    tm[i] = rw[i] + t;
                for (int k = 0; k < 2; k++) {
                    unsigned w[4];
                    mat_ref(0, rn - 1, k, tm, w);
                    CHECK(mat_eq(mr, k, 1, w), "inter reduce_init group %d k %d", g, k);
                }
            }
        }
        for (int j = 0; j < 3; j++)
            MPI_Request_free(&r2[j]);
    }
    free(rw);
    free(sb);
    free(rb);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
}

static void on(MPI_Comm comm, int big)
{
    if (comm == MPI_COMM_NULL)
        return;
    alltoallw_cases(comm);
    reduce_scatter_cases(comm);
    scan_cases(comm, 3);
    scan_cases(comm, big / 8);
    pair_op_cases(comm);
    bcast_pad_cases(comm, big);
    gatherv_perm_cases(comm);
    persistent_order(comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const char *e = getenv("STD_COLL2_BIG");
    int big = e ? atoi(e) : 3000;
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat_t);
    MPI_Type_commit(&mat_t);
    MPI_Datatype v;
    MPI_Type_vector(4, 1, 2, MPI_UNSIGNED, &v);
    MPI_Type_create_resized(v, 0, 8 * sizeof(unsigned), &hmat_t);
    MPI_Type_free(&v);
    MPI_Type_commit(&hmat_t);
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &strided_int);
    MPI_Type_commit(&strided_int);
    MPI_Op_create(mat_op, 0, &mat_opn);
    MPI_Op_create(aff_op, 0, &aff_opn);
    MPI_Comm rev, oe, und, dup;
    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &rev);
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &oe);
    MPI_Comm_split(MPI_COMM_WORLD, wrank == 1 ? MPI_UNDEFINED : wrank % 2, wrank % 3, &und);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK((wrank == 1) == (und == MPI_COMM_NULL), "split with MPI_UNDEFINED");
    on(MPI_COMM_WORLD, big);
    on(rev, big / 3);
    on(oe, big / 3);
    on(und, 30);
    nbc_interleave(dup, rev, oe);
    nbc_interleave(oe, dup, rev);
    inter_cases();
    MPI_Comm_free(&rev);
    MPI_Comm_free(&oe);
    MPI_Comm_free(&dup);
    if (und != MPI_COMM_NULL)
        MPI_Comm_free(&und);
    MPI_Op_free(&mat_opn);
    MPI_Op_free(&aff_opn);
    MPI_Type_free(&mat_t);
    MPI_Type_free(&hmat_t);
    MPI_Type_free(&strided_int);
    int tot = 0;
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rc = std_report("std_coll2", tot, wrank);
    MPI_Finalize();
    return rc;
}
