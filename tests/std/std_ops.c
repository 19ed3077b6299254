/* SPDX-License-Identifier: BSD-3-Clause */
/* Every predefined reduction op on every C type MPI 4.1 (section 6.9.2) allows it on, MINLOC /
 * MAXLOC on every pair type, through Reduce (every root, in place at the root), Allreduce (in
 * place too), Reduce_local, Scan, Exscan, Reduce_scatter_block and Reduce_scatter (a zero count
 * among the blocks), blocking, non-blocking and persistent (started twice, the input changed
 * between starts); counts 0, 1, 7 and, for a few pairs, past 1 MiB. Each result is checked
 * against a reference folded here from every rank's input, which each rank computes itself.
 * STD_OPS_FULL=1 in the environment: every collective in every mode at every count. */
#include <complex.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CHECK_RANK wrank
#include "std_check.h"

static int wrank, full, refill = 1; /* STD_NO_REFILL: MPICH 4.0.2 reads some inputs only at init */

enum kind { K_INT, K_UINT, K_FLT, K_CPX, K_BOOL, K_BYTE };
struct ty {
    MPI_Datatype t;
    const char *name;
    enum kind k;
    size_t sz;
    int sgn; /* signed integer or floating */
};
#define TY(t, k, c, s)                                                                             \
    {                                                                                              \
        t, #t, k, sizeof(c), s                                                                     \
    }
static struct ty tys[] = {
    TY(MPI_INT, K_INT, int, 1),
    TY(MPI_LONG, K_INT, long, 1),
    TY(MPI_SHORT, K_INT, short, 1),
    TY(MPI_UNSIGNED_SHORT, K_UINT, unsigned short, 0),
    TY(MPI_UNSIGNED, K_UINT, unsigned, 0),
    TY(MPI_UNSIGNED_LONG, K_UINT, unsigned long, 0),
    TY(MPI_LONG_LONG_INT, K_INT, long long, 1),
    TY(MPI_LONG_LONG, K_INT, long long, 1),
    TY(MPI_UNSIGNED_LONG_LONG, K_UINT, unsigned long long, 0),
    TY(MPI_SIGNED_CHAR, K_INT, signed char, 1),
    TY(MPI_UNSIGNED_CHAR, K_UINT, unsigned char, 0),
    TY(MPI_INT8_T, K_INT, int8_t, 1),
    TY(MPI_INT16_T, K_INT, int16_t, 1),
    TY(MPI_INT32_T, K_INT, int32_t, 1),
    TY(MPI_INT64_T, K_INT, int64_t, 1),
    TY(MPI_UINT8_T, K_UINT, uint8_t, 0),
    TY(MPI_UINT16_T, K_UINT, uint16_t, 0),
    TY(MPI_UINT32_T, K_UINT, uint32_t, 0),
    TY(MPI_UINT64_T, K_UINT, uint64_t, 0),
    TY(MPI_AINT, K_INT, MPI_Aint, 1),
    TY(MPI_OFFSET, K_INT, MPI_Offset, 1),
    TY(MPI_COUNT, K_INT, MPI_Count, 1),
    TY(MPI_FLOAT, K_FLT, float, 1),
    TY(MPI_DOUBLE, K_FLT, double, 1),
    TY(MPI_LONG_DOUBLE, K_FLT, long double, 1),
    TY(MPI_C_BOOL, K_BOOL, bool, 0),
    TY(MPI_C_FLOAT_COMPLEX, K_CPX, float _Complex, 1),
    TY(MPI_C_COMPLEX, K_CPX, float _Complex, 1),
    TY(MPI_C_DOUBLE_COMPLEX, K_CPX, double _Complex, 1),
    TY(MPI_C_LONG_DOUBLE_COMPLEX, K_CPX, long double _Complex, 1),
    TY(MPI_BYTE, K_BYTE, char, 0),
};
#define NTY ((int)(sizeof tys / sizeof tys[0]))
enum { O_MAX, O_MIN, O_SUM, O_PROD, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR, NOPS };
static MPI_Op ops[NOPS];
static const char *opn[NOPS] = {"MAX", "MIN",  "SUM",  "PROD", "LAND",
                                "LOR", "LXOR", "BAND", "BOR",  "BXOR"};

/* MPI 4.1 6.9.2: which groups of types each op applies to. MPI_AINT / OFFSET / COUNT are the
 * multi-language types: no logical ops on them. */
static int applies(int o, const struct ty *t)
{
    int mlang = t->t == MPI_AINT || t->t == MPI_OFFSET || t->t == MPI_COUNT;
    switch (o) {
    case O_MAX:
    case O_MIN:
        return t->k == K_INT || t->k == K_UINT || t->k == K_FLT;
    case O_SUM:
    case O_PROD:
        return t->k == K_INT || t->k == K_UINT || t->k == K_FLT || t->k == K_CPX;
    case O_LAND:
    case O_LOR:
    case O_LXOR:
        return (t->k == K_INT && !mlang) || t->k == K_UINT || t->k == K_BOOL;
    default:
        return t->k == K_INT || t->k == K_UINT || t->k == K_BYTE;
    }
}

/* Rank r's element i for op o (version v: persistent restarts change it), small enough that
 * every fold over 5 ranks is exact in every type: (re, im). */
static void gen(int o, const struct ty *t, int r, long i, int v, long long *re, long long *im)
{
    long h = (r * 7 + i * 13 + v * 5) % 101;
    *im = 0;
    switch (o) {
    case O_MAX:
    case O_MIN:
        *re = h - (t->sgn ? 50 : 0);
        break;
    case O_SUM:
        *re = h % 5 - (t->sgn ? 2 : 0);
        if (t->k == K_CPX)
            *im = (h / 5) % 3 - 1;
        break;
    case O_PROD:
        *re = h % 3 == 0 && t->sgn ? -1 : 1 + h % 2;
        if (t->k == K_CPX) { /* 1, i, 1+i, -1 */
            static const int rr[4] = {1, 0, 1, -1}, ii[4] = {0, 1, 1, 0};
            *re = rr[h % 4];
            *im = ii[h % 4];
        }
        break;
    case O_LAND:
        *re = h % 4 == 0 ? 0 : 1 + h % 2;
        break;
    case O_LOR:
        *re = h % 3 == 0 ? 0 : 2;
        break;
    case O_LXOR:
        *re = h % 2 ? 3 : 0;
        break;
    default:
        *re = (h * 37 + 5) & 0x7f;
        break;
    }
    if (t->k == K_BOOL)
        *re = *re != 0;
}

static void put(const struct ty *t, void *b, long i, long long re, long long im)
{
    char *p = (char *)b + i * t->sz;
    MPI_Datatype d = t->t;
    if (t->k == K_FLT) {
        if (d == MPI_FLOAT)
            *(float *)p = re;
        else if (d == MPI_DOUBLE)
            *(double *)p = re;
        else
            *(long double *)p = re;
    } else if (t->k == K_CPX) {
        if (t->sz == sizeof(float _Complex))
            *(float _Complex *)p = re + im * I;
        else if (t->sz == sizeof(double _Complex))
            *(double _Complex *)p = re + im * I;
        else
            *(long double _Complex *)p = re + im * I;
    } else if (t->k == K_BOOL) {
        *(bool *)p = re;
    } else {
        switch (t->sz) {
        case 1:
            *(int8_t *)p = re;
            break;
        case 2:
            *(int16_t *)p = re;
            break;
        case 4:
            *(int32_t *)p = re;
            break;
        default:
            *(int64_t *)p = re;
            break;
        }
    }
}

static void get(const struct ty *t, const void *b, long i, long long *re, long long *im)
{
    const char *p = (const char *)b + i * t->sz;
    MPI_Datatype d = t->t;
    *im = 0;
    if (t->k == K_FLT) {
        *re = d == MPI_FLOAT ? *(float *)p : d == MPI_DOUBLE ? *(double *)p : *(long double *)p;
    } else if (t->k == K_CPX) {
        long double _Complex z = t->sz == sizeof(float _Complex)    ? *(float _Complex *)p
                                 : t->sz == sizeof(double _Complex) ? *(double _Complex *)p
                                                                    : *(long double _Complex *)p;
        *re = creall(z);
        *im = cimagl(z);
    } else if (t->k == K_BOOL) {
        *re = *(bool *)p;
    } else {
        int u = t->k != K_INT;
        switch (t->sz) {
        case 1:
            *re = u ? *(uint8_t *)p : *(int8_t *)p;
            break;
        case 2:
            *re = u ? *(uint16_t *)p : *(int16_t *)p;
            break;
        case 4:
            *re = u ? (long long)*(uint32_t *)p : *(int32_t *)p;
            break;
        default:
            *re = *(int64_t *)p;
            break;
        }
    }
}

/* the op on (a) and (b), a from the lower rank */
static void fold(int o, long long *ar, long long *ai, long long br, long long bi)
{
    switch (o) {
    case O_MAX:
        *ar = *ar > br ? *ar : br;
        break;
    case O_MIN:
        *ar = *ar < br ? *ar : br;
        break;
    case O_SUM:
        *ar += br;
        *ai += bi;
        break;
    case O_PROD: {
        long long r = *ar * br - *ai * bi, i = *ar * bi + *ai * br;
        *ar = r;
        *ai = i;
        break;
    }
    case O_LAND:
        *ar = *ar && br;
        break;
    case O_LOR:
        *ar = *ar || br;
        break;
    case O_LXOR:
        *ar = !*ar != !br;
        break;
    case O_BAND:
        *ar &= br;
        break;
    case O_BOR:
        *ar |= br;
        break;
    default:
        *ar ^= br;
        break;
    }
}

/* the fold of ranks lo..hi's element i */
static void ref(int o, const struct ty *t, int lo, int hi, long i, int v, long long *re,
                long long *im)
{
    gen(o, t, lo, i, v, re, im);
    for (int r = lo + 1; r <= hi; r++) {
        long long br, bi;
        gen(o, t, r, i, v, &br, &bi);
        fold(o, re, im, br, bi);
    }
}

static void fill(int o, const struct ty *t, void *b, int r, long n, int v, long off)
{
    for (long i = 0; i < n; i++) {
        long long re, im;
        gen(o, t, r, i + off, v, &re, &im);
        put(t, b, i, re, im);
    }
}

static int logical(int o)
{
    return o == O_LAND || o == O_LOR || o == O_LXOR;
}

/* elements [0, n) of b against the fold of ranks lo..hi at element i + off */
static int verify(int o, const struct ty *t, const void *b, int lo, int hi, long n, int v, long off,
                  const char *what, int mode)
{
    int bad = 0;
    for (long i = 0; i < n; i++) {
        long long re, im, gr, gi;
        ref(o, t, lo, hi, i + off, v, &re, &im);
        get(t, b, i, &gr, &gi);
        int same = logical(o) ? (!gr == !re) : (gr == re && gi == im);
        if (!same && !bad++)
            CHECK(0, "%s %s %s mode %d n %ld [%ld]: %lld%+lldi, want %lld%+lldi", what, opn[o],
                  t->name, mode, n, i, gr, gi, re, im);
    }
    return bad;
}

enum { BLK, NB, PERS };
static MPI_Request rq;
/* complete the call just made by `mode`; for a persistent one: start, wait, refill with version 1
 * via `refill`, start, wait, free */
static void finish(int mode, void (*again)(void *), void *arg)
{
    if (mode == NB)
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    if (mode != PERS)
        return;
    MPI_Start(&rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    if (refill)
        again(arg);
    MPI_Start(&rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Request_free(&rq);
}

struct cs {
    int o;
    const struct ty *t;
    void *in, *out;
    long n, off;
    int rank, inplace;
};
static void refill_in(void *a)
{
    struct cs *c = a;
    fill(c->o, c->t, c->inplace ? c->out : c->in, c->rank, c->n, 1, c->off);
}

/* one op / type pair at count n through every collective (all modes when `all`) */
static void pair(MPI_Comm comm, int o, const struct ty *t, long n, int all)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Datatype d = t->t;
    MPI_Op op = ops[o];
    size_t bytes = (size_t)(n * size + 1) * t->sz;
    char *in = malloc(bytes), *out = malloc(bytes);
    struct cs c = {o, t, in, out, n, 0, rank, 0};
    for (int mode = BLK; mode <= PERS; mode++) {
        int v = mode == PERS && refill; /* the persistent forms' last start had version 1 */
        if (!all && mode != BLK && n > 7)
            continue;
        /* Allreduce, then in place */
        c.inplace = 0, c.off = 0, c.n = n;
        fill(o, t, in, rank, n, 0, 0);
        if (mode == BLK)
            MPI_Allreduce(in, out, n, d, op, comm);
        else if (mode == NB)
            MPI_Iallreduce(in, out, n, d, op, comm, &rq);
        else
            MPI_Allreduce_init(in, out, n, d, op, comm, MPI_INFO_NULL, &rq);
        finish(mode, refill_in, &c);
        verify(o, t, out, 0, size - 1, n, v, 0, "allreduce", mode);
        c.inplace = 1;
        fill(o, t, out, rank, n, 0, 0);
        if (mode == BLK)
            MPI_Allreduce(MPI_IN_PLACE, out, n, d, op, comm);
        else if (mode == NB) {
            MPI_Iallreduce(MPI_IN_PLACE, out, n, d, op, comm, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else { /* the persistent in-place form reads its buffer anew at each start */
            MPI_Allreduce_init(MPI_IN_PLACE, out, n, d, op, comm, MPI_INFO_NULL, &rq);
            MPI_Start(&rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            fill(o, t, out, rank, n, refill, 0);
            MPI_Start(&rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            MPI_Request_free(&rq);
        }
        verify(o, t, out, 0, size - 1, n, v, 0, "allreduce in place", mode);
        if (!all && mode != BLK)
            continue;
        /* Reduce at every root (the last root in place) */
        for (int root = 0; root < size; root++) {
            int ip = root == size - 1 && rank == root;
            c.inplace = ip;
            fill(o, t, ip ? out : in, rank, n, 0, 0);
            const void *sb = ip ? MPI_IN_PLACE : in;
            if (mode == BLK)
                MPI_Reduce(sb, out, n, d, op, root, comm);
            else if (mode == NB)
                MPI_Ireduce(sb, out, n, d, op, root, comm, &rq);
            else
                MPI_Reduce_init(sb, out, n, d, op, root, comm, MPI_INFO_NULL, &rq);
            finish(mode, refill_in, &c);
            if (rank == root)
                verify(o, t, out, 0, size - 1, n, v, 0, ip ? "reduce in place" : "reduce", mode);
        }
        /* Scan (odd ranks in place: MPI_IN_PLACE is a local choice), Exscan */
        c.inplace = rank % 2;
        fill(o, t, c.inplace ? out : in, rank, n, 0, 0);
        if (mode == BLK)
            MPI_Scan(c.inplace ? MPI_IN_PLACE : in, out, n, d, op, comm);
        else if (mode == NB)
            MPI_Iscan(c.inplace ? MPI_IN_PLACE : in, out, n, d, op, comm, &rq);
        else
            MPI_Scan_init(c.inplace ? MPI_IN_PLACE : in, out, n, d, op, comm, MPI_INFO_NULL, &rq);
        finish(mode, refill_in, &c);
        verify(o, t, out, 0, rank, n, v, 0, "scan", mode);
        c.inplace = 0;
        fill(o, t, in, rank, n, 0, 0);
        if (mode == BLK)
            MPI_Exscan(in, out, n, d, op, comm);
        else if (mode == NB)
            MPI_Iexscan(in, out, n, d, op, comm, &rq);
        else
            MPI_Exscan_init(in, out, n, d, op, comm, MPI_INFO_NULL, &rq);
        finish(mode, refill_in, &c);
        if (rank > 0)
            verify(o, t, out, 0, rank - 1, n, v, 0, "exscan", mode);
        /* Reduce_scatter_block: n per rank; in place at even ranks */
        c.n = n * size;
        c.inplace = rank % 2 == 0;
        fill(o, t, c.inplace ? out : in, rank, n * size, 0, 0);
        if (mode == BLK)
            MPI_Reduce_scatter_block(c.inplace ? MPI_IN_PLACE : in, out, n, d, op, comm);
        else if (mode == NB)
            MPI_Ireduce_scatter_block(c.inplace ? MPI_IN_PLACE : in, out, n, d, op, comm, &rq);
        else
            MPI_Reduce_scatter_block_init(c.inplace ? MPI_IN_PLACE : in, out, n, d, op, comm,
                                          MPI_INFO_NULL, &rq);
        finish(mode, refill_in, &c);
        verify(o, t, out, 0, size - 1, n, v, n * rank, "reduce_scatter_block", mode);
        /* Reduce_scatter: rank i gets n + i - 1 (rank 0: none if n = 1, ...), clipped at 0 */
        int *rc = malloc(size * sizeof(int));
        long tot = 0, mine = 0;
        for (int i = 0; i < size; i++) {
            rc[i] = n == 0 ? 0 : (int)(i == 1 ? 0 : n + i - 1);
            if (i < rank)
                mine += rc[i];
            tot += rc[i];
        }
        char *in2 = malloc((tot + 1) * t->sz), *out2 = malloc((tot + 1) * t->sz);
        c.in = in2, c.out = out2, c.n = tot, c.inplace = 0;
        fill(o, t, in2, rank, tot, 0, 0);
        if (mode == BLK)
            MPI_Reduce_scatter(in2, out2, rc, d, op, comm);
        else if (mode == NB)
            MPI_Ireduce_scatter(in2, out2, rc, d, op, comm, &rq);
        else
            MPI_Reduce_scatter_init(in2, out2, rc, d, op, comm, MPI_INFO_NULL, &rq);
        finish(mode, refill_in, &c);
        verify(o, t, out2, 0, size - 1, rc[rank], v, mine, "reduce_scatter", mode);
        c.in = in, c.out = out;
        free(in2);
        free(out2);
        free(rc);
    }
    /* Reduce_local: inout = in op inout, in the place of the lower rank */
    fill(o, t, in, 0, n, 0, 0);
    fill(o, t, out, 1, n, 0, 0);
    MPI_Reduce_local(in, out, n, d, op);
    verify(o, t, out, 0, 1, n, 0, 0, "reduce_local", BLK);
    free(in);
    free(out);
}

/* MINLOC / MAXLOC on every pair type: ties take the smaller index */
#define LOC_TEST(T, C)                                                                             \
    static void loc_##C##_(MPI_Comm comm, long n, int mode)                                        \
    {                                                                                              \
        struct p {                                                                                 \
            C v;                                                                                   \
            int i;                                                                                 \
        };                                                                                         \
        int rank, size;                                                                            \
        MPI_Comm_rank(comm, &rank);                                                                \
        MPI_Comm_size(comm, &size);                                                                \
        struct p *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);               \
        for (int mx = 0; mx < 2; mx++) {                                                           \
            for (long k = 0; k < n; k++) {                                                         \
                a[k].v = (C)((rank * 7 + k * 3) % 4 - 1);                                          \
                a[k].i = (rank * 5 + (int)k) % 11;                                                 \
            }                                                                                      \
            MPI_Op op = mx ? MPI_MAXLOC : MPI_MINLOC;                                              \
            if (mode == BLK)                                                                       \
                MPI_Allreduce(a, b, n, T, op, comm);                                               \
            else if (mode == NB)                                                                   \
                MPI_Iallreduce(a, b, n, T, op, comm, &rq);                                         \
            else                                                                                   \
                MPI_Allreduce_init(a, b, n, T, op, comm, MPI_INFO_NULL, &rq);                      \
            if (mode == PERS) {                                                                    \
                MPI_Start(&rq);                                                                    \
                MPI_Wait(&rq, MPI_STATUS_IGNORE);                                                  \
                MPI_Request_free(&rq);                                                             \
            } else if (mode == NB)                                                                 \
                MPI_Wait(&rq, MPI_STATUS_IGNORE);                                                  \
            for (long k = 0; k < n; k++) {                                                         \
                C bv = 0;                                                                          \
                int bi = 0;                                                                        \
                for (int r = 0; r < size; r++) {                                                   \
                    C v = (C)((r * 7 + k * 3) % 4 - 1);                                            \
                    int i = (r * 5 + (int)k) % 11;                                                 \
                    if (r == 0 || (mx ? v > bv : v < bv) || (v == bv && i < bi))                   \
                        bv = v, bi = i;                                                            \
                }                                                                                  \
                if (b[k].v != bv || b[k].i != bi) {                                                \
                    CHECK(0, "%s %s mode %d n %ld [%ld]: (%g, %d) want (%g, %d)", #T,              \
                          mx ? "MAXLOC" : "MINLOC", mode, n, k, (double)b[k].v, b[k].i,            \
                          (double)bv, bi);                                                         \
                    break;                                                                         \
                }                                                                                  \
            }                                                                                      \
            /* Reduce_local and Scan as well */                                                    \
            MPI_Scan(a, b, n, T, op, comm);                                                        \
            for (long k = 0; k < n; k++) {                                                         \
                C bv = 0;                                                                          \
                int bi = 0;                                                                        \
                for (int r = 0; r <= rank; r++) {                                                  \
                    C v = (C)((r * 7 + k * 3) % 4 - 1);                                            \
                    int i = (r * 5 + (int)k) % 11;                                                 \
                    if (r == 0 || (mx ? v > bv : v < bv) || (v == bv && i < bi))                   \
                        bv = v, bi = i;                                                            \
                }                                                                                  \
                if (b[k].v != bv || b[k].i != bi) {                                                \
                    CHECK(0, "scan %s %s [%ld]", #T, mx ? "MAXLOC" : "MINLOC", k);                 \
                    break;                                                                         \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        free(a);                                                                                   \
        free(b);                                                                                   \
    }
typedef long double ldouble;
#define PAIRS(X)                                                                                   \
    X(MPI_FLOAT_INT, float)                                                                        \
    X(MPI_DOUBLE_INT, double)                                                                      \
    X(MPI_LONG_INT, long) X(MPI_2INT, int) X(MPI_SHORT_INT, short) X(MPI_LONG_DOUBLE_INT, ldouble)
PAIRS(LOC_TEST)
#define LOC_CALL(T, C) loc_##C##_(comm, n, mode);

static void locs(MPI_Comm comm, long n, int mode)
{
    PAIRS(LOC_CALL)
}

static void suite(MPI_Comm comm)
{
    static const long counts[] = {0, 1, 7};
    for (int ti = 0; ti < NTY; ti++)
        for (int o = 0; o < NOPS; o++) {
            if (!applies(o, &tys[ti]))
                continue;
            for (int ci = 0; ci < 3; ci++)
                pair(comm, o, &tys[ti], counts[ci], full || counts[ci] == 7);
        }
    for (int mode = BLK; mode <= PERS; mode++)
        for (int ci = 0; ci < 3; ci++)
            locs(comm, counts[ci], mode);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    refill = !getenv("STD_NO_REFILL");
    full = getenv("STD_OPS_FULL") && atoi(getenv("STD_OPS_FULL"));
    MPI_Op o[NOPS] = {MPI_MAX, MPI_MIN,  MPI_SUM,  MPI_PROD, MPI_LAND,
                      MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR,  MPI_BXOR};
    memcpy(ops, o, sizeof o);
    suite(MPI_COMM_WORLD);
    /* a split with reversed keys: rank order reversed, so every fold goes the other way */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - wrank, &rev);
    suite(rev);
    /* past 1 MiB: a few pairs through every collective (their large-message algorithms) */
    long big = (1 << 20) / 4 + 7;
    if (getenv("STD_OPS_NOBIG"))
        big = 0;
    pair(MPI_COMM_WORLD, O_SUM, &tys[0], big, full);
    pair(rev, O_BXOR, &tys[NTY - 1], 4 * big, full);
    pair(MPI_COMM_WORLD, O_MAX, &tys[23], big / 2 + 1, full);
    pair(rev, O_PROD, &tys[28], big / 4, full);
    locs(MPI_COMM_WORLD, big / 2, BLK);
    MPI_Comm_free(&rev);
    int tot = 0;
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rc = std_report("std_ops", tot, wrank);
    MPI_Finalize();
    return rc;
}
