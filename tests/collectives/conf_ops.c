/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every predefined reduction op on every predefined type it applies to (MPI 4.1 section 6.9.2),
 * as MPICH's opsum / opprod / opmax / opmin / opland / oplor / oplxor / opband / opbor / opbxor /
 * opminloc / opmaxloc do: C integers, floating point, complex (SUM, PROD), MPI_C_BOOL (logical),
 * MPI_BYTE (bitwise), the pair types (MINLOC / MAXLOC, ties to the lowest index). Each through
 * Reduce (two roots, also in place), Allreduce (also in place), Iallreduce and Reduce_local,
 * against a reference folded in the program; counts 0, 1, 13 and 700 (past the small-message
 * algorithms); on the world, a reversed split and a sub-communicator. Ops on types they do not
 * apply to give MPI_ERR_OP.
 */
#include "conf_test.h"
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>

enum { O_SUM, O_PROD, O_MAX, O_MIN, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR, O_N };
static const char *op_names[O_N] = {"SUM", "PROD", "MAX",  "MIN", "LAND",
                                    "LOR", "LXOR", "BAND", "BOR", "BXOR"};
static MPI_Op op_handle(int o)
{
    MPI_Op ops[O_N] = {MPI_SUM, MPI_PROD, MPI_MAX,  MPI_MIN, MPI_LAND,
                       MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
    return ops[o];
}

#define ARITH  (1 << O_SUM | 1 << O_PROD)
#define MINMAX (1 << O_MAX | 1 << O_MIN)
#define LOGIC  (1 << O_LAND | 1 << O_LOR | 1 << O_LXOR)
#define BITS   (1 << O_BAND | 1 << O_BOR | 1 << O_BXOR)

typedef int (*eq_fn)(const void *, const void *);
typedef struct {
    MPI_Comm comm;
    const char *cname;
    MPI_Datatype dt;
    const char *tname;
    int o, count;
    size_t esz;
    eq_fn eq;
} ocase_t;

static void run_colls(const ocase_t *c, const void *in, const void *ref, const void *lin,
                      const void *lref)
{
    int rank, size, i, root, roots[2];
    size_t n = c->esz * (size_t)c->count;
    char *out = conf_alloc(n), *tmp = conf_alloc(n);
    MPI_Op op = op_handle(c->o);
    MPI_Request req;

#define CMP(buf, r, what)                                                                          \
    for (i = 0; i < c->count; i++)                                                                 \
        if (!c->eq((buf) + i * c->esz, (const char *)(r) + i * c->esz)) {                          \
            CHECK(0, "%s %s %s count %d on %s: element %d wrong", what, op_names[c->o], c->tname,  \
                  c->count, c->cname, i);                                                          \
            break;                                                                                 \
        }
    MPI_Comm_rank(c->comm, &rank);
    MPI_Comm_size(c->comm, &size);
    MPI_Allreduce(in, out, c->count, c->dt, op, c->comm);
    CMP(out, ref, "Allreduce");
    memcpy(out, in, n);
    MPI_Allreduce(MPI_IN_PLACE, out, c->count, c->dt, op, c->comm);
    CMP(out, ref, "Allreduce(in place)");
    MPI_Iallreduce(in, out, c->count, c->dt, op, c->comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CMP(out, ref, "Iallreduce");
    roots[0] = 0;
    roots[1] = size - 1;
    for (int k = 0; k < 2; k++) {
        root = roots[k];
        MPI_Reduce(in, out, c->count, c->dt, op, root, c->comm);
        if (rank == root) {
            CMP(out, ref, "Reduce");
            memcpy(out, in, n);
        }
        if (CONF_PEER_INPLACE_ROOT0 && root != 0)
            continue;
        MPI_Reduce(rank == root ? MPI_IN_PLACE : in, rank == root ? out : CONF_NONROOT_BUF(tmp),
                   c->count, c->dt, op, root, c->comm);
        if (rank == root)
            CMP(out, ref, "Reduce(in place)");
    }
    memcpy(tmp, lref == NULL ? in : lin, n);
    if (lref) {
        memcpy(out, in, n);
        MPI_Reduce_local(tmp, out, c->count, c->dt, op);
        CMP(out, lref, "Reduce_local");
    }
    free(out);
    free(tmp);
#undef CMP
}

/* Values: small, so sums and products of up to 8 ranks are exact in every type. */
#define VAL_INT(o, r, i)                                                                           \
    ((o) == O_PROD   ? ((r) + (i)) % 2 + 1                                                         \
     : (o) == O_SUM  ? ((r)*3 + (i)) % 10                                                          \
     : (o) >= O_BAND ? ((r)*37 + (i)*11 + 5) & 0x7f                                                \
     : (o) >= O_LAND ? (((r) + (i)) % 3 == 0 ? 0 : ((r) + 2 * (i)) % 5 + 1)                        \
                     : (((r)*7 + (i)*3) % 11) - 5)

#define COMB_INT(o, a, b)                                                                          \
    ((o) == O_SUM    ? (a) + (b)                                                                   \
     : (o) == O_PROD ? (a) * (b)                                                                   \
     : (o) == O_MAX  ? ((a) > (b) ? (a) : (b))                                                     \
     : (o) == O_MIN  ? ((a) < (b) ? (a) : (b))                                                     \
     : (o) == O_LAND ? ((a) && (b))                                                                \
     : (o) == O_LOR  ? ((a) || (b))                                                                \
     : (o) == O_LXOR ? (!(a) != !(b))                                                              \
     : (o) == O_BAND ? ((a) & (b))                                                                 \
     : (o) == O_BOR  ? ((a) | (b))                                                                 \
                     : ((a) ^ (b)))

#define COMB_FLT(o, a, b)                                                                          \
    ((o) == O_SUM    ? (a) + (b)                                                                   \
     : (o) == O_PROD ? (a) * (b)                                                                   \
     : (o) == O_MAX  ? ((a) > (b) ? (a) : (b))                                                     \
                     : ((a) < (b) ? (a) : (b)))

/* One test function per type: fills, folds the reference in rank order, runs the calls. */
#define DEF_TYPE(NAME, T, VAL, COMB, EQ)                                                           \
    static int eq_##NAME(const void *a, const void *b)                                             \
    {                                                                                              \
        return EQ(*(const T *)a, *(const T *)b);                                                   \
    }                                                                                              \
    static void test_##NAME(ocase_t *c)                                                            \
    {                                                                                              \
        int rank, size, i, r;                                                                      \
        T *in = conf_alloc(sizeof(T) * c->count), *ref = conf_alloc(sizeof(T) * c->count);         \
        T *lin = conf_alloc(sizeof(T) * c->count), *lref = conf_alloc(sizeof(T) * c->count);       \
        MPI_Comm_rank(c->comm, &rank);                                                             \
        MPI_Comm_size(c->comm, &size);                                                             \
        for (i = 0; i < c->count; i++) {                                                           \
            in[i] = (T)VAL(c->o, rank, i);                                                         \
            ref[i] = (T)VAL(c->o, 0, i);                                                           \
            for (r = 1; r < size; r++)                                                             \
                ref[i] = (T)COMB(c->o, ref[i], (T)VAL(c->o, r, i));                                \
            lin[i] = (T)VAL(c->o, rank + 1, i);                                                    \
            lref[i] = (T)COMB(c->o, lin[i], in[i]);                                                \
        }                                                                                          \
        c->esz = sizeof(T);                                                                        \
        c->eq = eq_##NAME;                                                                         \
        run_colls(c, in, ref, lin, lref);                                                          \
        free(in);                                                                                  \
        free(ref);                                                                                 \
        free(lin);                                                                                 \
        free(lref);                                                                                \
    }

#define EQ_PLAIN(a, b) ((a) == (b))
#define EQ_TRUTH(a, b) (!(a) == !(b))

typedef signed char schar_t;
typedef unsigned char uchar_t;
typedef unsigned short ushort_t;
typedef unsigned int uint_t;
typedef unsigned long ulong_t;
typedef long long llong_t;
typedef unsigned long long ullong_t;
typedef long double ldouble_t;

DEF_TYPE(schar, schar_t, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(uchar, uchar_t, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(short, short, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(ushort, ushort_t, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(int, int, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(uint, uint_t, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(long, long, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(ulong, ulong_t, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(llong, llong_t, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(ullong, ullong_t, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(i8, int8_t, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(u8, uint8_t, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(i16, int16_t, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(u16, uint16_t, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(i32, int32_t, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(u32, uint32_t, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(i64, int64_t, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(u64, uint64_t, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(aint, MPI_Aint, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(offset, MPI_Offset, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(count, MPI_Count, VAL_INT, COMB_INT, EQ_PLAIN)
DEF_TYPE(cbool, bool, VAL_INT, COMB_INT, EQ_TRUTH)
DEF_TYPE(flt, float, VAL_INT, COMB_FLT, EQ_PLAIN)
DEF_TYPE(dbl, double, VAL_INT, COMB_FLT, EQ_PLAIN)
DEF_TYPE(ldbl, ldouble_t, VAL_INT, COMB_FLT, EQ_PLAIN)

/* Complex: SUM and PROD of small Gaussian integers, exact in every precision. */
#define VAL_CPLX(o, r, i)                                                                          \
    ((o) == O_PROD ? (double)(((r) + (i)) % 2) + (double)(((r) + 2 * (i)) % 2 ? 1 : 0) * I + 0.0   \
                   : (double)(((r)*3 + (i)) % 10) - (double)(((r) + (i)) % 4) * I)
#define COMB_CPLX(o, a, b) ((o) == O_SUM ? (a) + (b) : (a) * (b))
typedef float _Complex fcplx_t;
typedef double _Complex dcplx_t;
typedef long double _Complex ldcplx_t;
DEF_TYPE(fcplx, fcplx_t, VAL_CPLX, COMB_CPLX, EQ_PLAIN)
DEF_TYPE(dcplx, dcplx_t, VAL_CPLX, COMB_CPLX, EQ_PLAIN)
DEF_TYPE(ldcplx, ldcplx_t, VAL_CPLX, COMB_CPLX, EQ_PLAIN)

typedef struct {
    const char *name;
    MPI_Datatype dt;
    int ops;
    void (*fn)(ocase_t *);
} otype_t;

static void pair_all(MPI_Comm comm, const char *cname);

static void run_type(const otype_t *t, MPI_Comm comm, const char *cname)
{
    static const int counts[] = {0, 1, 13, 700};
    ocase_t c;

    for (int o = 0; o < O_N; o++) {
        if (!(t->ops & (1 << o)))
            continue;
        if (CONF_PEER_SKIP_UNSIGNED_MINMAX(t->name, o))
            continue;
        for (int k = 0; k < 4; k++) {
            c = (ocase_t){comm, cname, t->dt, t->name, o, counts[k], 0, NULL};
            t->fn(&c);
        }
    }
}

/* MPI_ERR_OP for an op on a type outside its groups (MPI 4.1 6.9.2). */
static void bad_ops(MPI_Comm comm)
{
    struct {
        MPI_Op op;
        MPI_Datatype dt;
        const char *what;
    } bad[] = {{MPI_LAND, MPI_DOUBLE, "LAND on DOUBLE"},
               {MPI_BAND, MPI_FLOAT, "BAND on FLOAT"},
               {MPI_MAX, MPI_C_DOUBLE_COMPLEX, "MAX on complex"},
               {MPI_MINLOC, MPI_INT, "MINLOC on INT"},
               {MPI_SUM, MPI_2INT, "SUM on 2INT"}};
    double buf[8] = {0}, out[8];
    int err, cls;

    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        err = MPI_Allreduce(buf, out, 1, bad[k].dt, bad[k].op, comm);
        MPI_Error_class(err, &cls);
        CHECK(err != MPI_SUCCESS && cls == MPI_ERR_OP,
              "Allreduce %s: class %d, expected MPI_ERR_OP", bad[k].what, cls);
    }
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    const otype_t types[] = {
        {"SIGNED_CHAR", MPI_SIGNED_CHAR, ARITH | MINMAX | LOGIC | BITS, test_schar},
        {"UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, ARITH | MINMAX | LOGIC | BITS, test_uchar},
        {"SHORT", MPI_SHORT, ARITH | MINMAX | LOGIC | BITS, test_short},
        {"UNSIGNED_SHORT", MPI_UNSIGNED_SHORT, ARITH | MINMAX | LOGIC | BITS, test_ushort},
        {"INT", MPI_INT, ARITH | MINMAX | LOGIC | BITS, test_int},
        {"UNSIGNED", MPI_UNSIGNED, ARITH | MINMAX | LOGIC | BITS, test_uint},
        {"LONG", MPI_LONG, ARITH | MINMAX | LOGIC | BITS, test_long},
        {"UNSIGNED_LONG", MPI_UNSIGNED_LONG, ARITH | MINMAX | LOGIC | BITS, test_ulong},
        {"LONG_LONG", MPI_LONG_LONG, ARITH | MINMAX | LOGIC | BITS, test_llong},
        {"LONG_LONG_INT", MPI_LONG_LONG_INT, ARITH | MINMAX | LOGIC | BITS, test_llong},
        {"UNSIGNED_LONG_LONG", MPI_UNSIGNED_LONG_LONG, ARITH | MINMAX | LOGIC | BITS, test_ullong},
        {"INT8_T", MPI_INT8_T, ARITH | MINMAX | LOGIC | BITS, test_i8},
        {"UINT8_T", MPI_UINT8_T, ARITH | MINMAX | LOGIC | BITS, test_u8},
        {"INT16_T", MPI_INT16_T, ARITH | MINMAX | LOGIC | BITS, test_i16},
        {"UINT16_T", MPI_UINT16_T, ARITH | MINMAX | LOGIC | BITS, test_u16},
        {"INT32_T", MPI_INT32_T, ARITH | MINMAX | LOGIC | BITS, test_i32},
        {"UINT32_T", MPI_UINT32_T, ARITH | MINMAX | LOGIC | BITS, test_u32},
        {"INT64_T", MPI_INT64_T, ARITH | MINMAX | LOGIC | BITS, test_i64},
        {"UINT64_T", MPI_UINT64_T, ARITH | MINMAX | LOGIC | BITS, test_u64},
        {"AINT", MPI_AINT, ARITH | MINMAX | BITS, test_aint},
        {"OFFSET", MPI_OFFSET, ARITH | MINMAX | BITS, test_offset},
        {"COUNT", MPI_COUNT, ARITH | MINMAX | BITS, test_count},
        {"C_BOOL", MPI_C_BOOL, LOGIC, test_cbool},
        {"BYTE", MPI_BYTE, BITS, test_uchar},
        {"FLOAT", MPI_FLOAT, ARITH | MINMAX, test_flt},
        {"DOUBLE", MPI_DOUBLE, ARITH | MINMAX, test_dbl},
        {"LONG_DOUBLE", MPI_LONG_DOUBLE, ARITH | MINMAX, test_ldbl},
        {"C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX, ARITH, test_fcplx},
        {"C_COMPLEX", MPI_C_COMPLEX, ARITH, test_fcplx},
        {"C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX, ARITH, test_dcplx},
        {"C_LONG_DOUBLE_COMPLEX", MPI_C_LONG_DOUBLE_COMPLEX, ARITH, test_ldcplx},
    };
    const char *cname;
    MPI_Comm comm;

    conf_init(&argc, &argv);
    for (int ci = 0; ci < CONF_NCOMMS; ci++) {
        comm = conf_comm_get(ci, &cname);
        if (comm == MPI_COMM_NULL)
            continue;
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            run_type(&types[t], comm, cname);
        pair_all(comm, cname);
        if (ci == 0)
            bad_ops(comm);
        MPI_Comm_free(&comm);
    }
    return conf_finish("conf_ops");
}

/* MINLOC / MAXLOC on the pair types: values with ties, the index the rank; a tie goes to the
 * lowest index (MPI 4.1 6.9.4). */
#define DEF_PAIR(NAME, VT, IT)                                                                     \
    typedef struct {                                                                               \
        VT v;                                                                                      \
        IT i;                                                                                      \
    } NAME##_t;                                                                                    \
    static int eq_##NAME(const void *a, const void *b)                                             \
    {                                                                                              \
        const NAME##_t *x = a, *y = b;                                                             \
        return x->v == y->v && x->i == y->i;                                                       \
    }                                                                                              \
    static void pair_##NAME(ocase_t *c)                                                            \
    {                                                                                              \
        int rank, size, k, r;                                                                      \
        NAME##_t *in = conf_alloc(sizeof(NAME##_t) * c->count);                                    \
        NAME##_t *ref = conf_alloc(sizeof(NAME##_t) * c->count);                                   \
        int max = c->o;                                                                            \
        MPI_Comm_rank(c->comm, &rank);                                                             \
        MPI_Comm_size(c->comm, &size);                                                             \
        for (k = 0; k < c->count; k++) {                                                           \
            memset(&in[k], 0, sizeof in[k]);                                                       \
            memset(&ref[k], 0, sizeof ref[k]);                                                     \
            in[k].v = (VT)((rank * 5 + k * 3) % 4);                                                \
            in[k].i = (IT)(rank * 2 + k % 3);                                                      \
            ref[k].v = (VT)((k * 3) % 4);                                                          \
            ref[k].i = (IT)(k % 3);                                                                \
            for (r = 1; r < size; r++) {                                                           \
                VT v = (VT)((r * 5 + k * 3) % 4);                                                  \
                IT ix = (IT)(r * 2 + k % 3);                                                       \
                if ((max ? v > ref[k].v : v < ref[k].v) || (v == ref[k].v && ix < ref[k].i)) {     \
                    ref[k].v = v;                                                                  \
                    ref[k].i = ix;                                                                 \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        c->esz = sizeof(NAME##_t);                                                                 \
        c->eq = eq_##NAME;                                                                         \
        pair_run(c, in, ref, max);                                                                 \
        free(in);                                                                                  \
        free(ref);                                                                                 \
    }

static void pair_run(ocase_t *c, const void *in, const void *ref, int max)
{
    int rank, size;
    size_t n = c->esz * (size_t)c->count;
    char *out = conf_alloc(n);
    MPI_Op op = max ? MPI_MAXLOC : MPI_MINLOC;
    const char *on = max ? "MAXLOC" : "MINLOC";

    MPI_Comm_rank(c->comm, &rank);
    MPI_Comm_size(c->comm, &size);
    for (int pass = 0; pass < 3; pass++) {
        int root = pass == 1 ? size - 1 : 0;
        memcpy(out, in, n);
        if (pass == 0)
            MPI_Allreduce(in, out, c->count, c->dt, op, c->comm);
        else if (pass == 1)
            MPI_Reduce(in, out, c->count, c->dt, op, root, c->comm);
        else
            MPI_Allreduce(MPI_IN_PLACE, out, c->count, c->dt, op, c->comm);
        if (pass == 1 && rank != root)
            continue;
        for (int k = 0; k < c->count; k++)
            if (!c->eq(out + k * c->esz, (const char *)ref + k * c->esz)) {
                CHECK(0, "%s %s count %d on %s pass %d: element %d wrong", on, c->tname, c->count,
                      c->cname, pass, k);
                break;
            }
    }
    free(out);
}

DEF_PAIR(fi, float, int)
DEF_PAIR(di, double, int)
DEF_PAIR(li, long, int)
DEF_PAIR(ii, int, int)
DEF_PAIR(si, short, int)
DEF_PAIR(ldi, long double, int)

static void pair_all(MPI_Comm comm, const char *cname)
{
    const struct {
        const char *name;
        MPI_Datatype dt;
        void (*fn)(ocase_t *);
    } pt[] = {
        {"FLOAT_INT", MPI_FLOAT_INT, pair_fi}, {"DOUBLE_INT", MPI_DOUBLE_INT, pair_di},
        {"LONG_INT", MPI_LONG_INT, pair_li},   {"2INT", MPI_2INT, pair_ii},
        {"SHORT_INT", MPI_SHORT_INT, pair_si}, {"LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT, pair_ldi}};
    static const int counts[] = {0, 1, 13, 700};
    ocase_t c;

    for (size_t t = 0; t < sizeof pt / sizeof pt[0]; t++)
        for (int max = 0; max < 2; max++)
            for (int k = 0; k < 4; k++) {
                c = (ocase_t){comm, cname, pt[t].dt, pt[t].name, max, counts[k], 0, NULL};
                pt[t].fn(&c);
            }
}
