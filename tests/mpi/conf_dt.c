/* Datatype decoders, written against MPI 4.1: get_envelope / get_contents of every
 * constructor (nested, predefined, F90, dup, resized, subarray, darray) rebuilt from its
 * contents and compared by layout; Type_match_size; external32 byte images. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs, wrank;
#include "conf_check.h"

static MPI_Datatype rebuild(MPI_Datatype t);

/* The expected envelope of each combiner from its contents' counts (MPI 4.1 table 5.1). */
static void check_counts(int comb, int ni, int na, int nd, const int *ints)
{
    int want_i = -1, want_a = -1, want_d = -1;
    switch (comb) {
    case MPI_COMBINER_DUP:
        want_i = 0, want_a = 0, want_d = 1;
        break;
    case MPI_COMBINER_CONTIGUOUS:
        want_i = 1, want_a = 0, want_d = 1;
        break;
    case MPI_COMBINER_VECTOR:
        want_i = 3, want_a = 0, want_d = 1;
        break;
    case MPI_COMBINER_HVECTOR:
        want_i = 2, want_a = 1, want_d = 1;
        break;
    case MPI_COMBINER_INDEXED:
        want_i = 2 * ints[0] + 1, want_a = 0, want_d = 1;
        break;
    case MPI_COMBINER_HINDEXED:
        want_i = ints[0] + 1, want_a = ints[0], want_d = 1;
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        want_i = ints[0] + 2, want_a = 0, want_d = 1;
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        want_i = 2, want_a = ints[0], want_d = 1;
        break;
    case MPI_COMBINER_STRUCT:
        want_i = ints[0] + 1, want_a = ints[0], want_d = ints[0];
        break;
    case MPI_COMBINER_SUBARRAY:
        want_i = 3 * ints[0] + 2, want_a = 0, want_d = 1;
        break;
    case MPI_COMBINER_DARRAY:
        want_i = 4 * ints[2] + 4, want_a = 0, want_d = 1;
        break;
    case MPI_COMBINER_F90_REAL:
    case MPI_COMBINER_F90_COMPLEX:
        want_i = 2, want_a = 0, want_d = 0;
        break;
    case MPI_COMBINER_F90_INTEGER:
        want_i = 1, want_a = 0, want_d = 0;
        break;
    case MPI_COMBINER_RESIZED:
        want_i = 0, want_a = 2, want_d = 1;
        break;
    default:
        CHECK(0, "unexpected combiner %d", comb);
        return;
    }
    CHECK(ni == want_i && na == want_a && nd == want_d, "combiner %d: counts %d %d %d", comb, ni,
          na, nd);
}

static MPI_Datatype construct(int comb, int *ii, MPI_Aint *aa, MPI_Datatype *dd)
{
    MPI_Datatype n = MPI_DATATYPE_NULL;
    switch (comb) {
    case MPI_COMBINER_DUP:
        MPI_Type_dup(dd[0], &n);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        MPI_Type_contiguous(ii[0], dd[0], &n);
        break;
    case MPI_COMBINER_VECTOR:
        MPI_Type_vector(ii[0], ii[1], ii[2], dd[0], &n);
        break;
    case MPI_COMBINER_HVECTOR:
        MPI_Type_create_hvector(ii[0], ii[1], aa[0], dd[0], &n);
        break;
    case MPI_COMBINER_INDEXED:
        MPI_Type_indexed(ii[0], ii + 1, ii + 1 + ii[0], dd[0], &n);
        break;
    case MPI_COMBINER_HINDEXED:
        MPI_Type_create_hindexed(ii[0], ii + 1, aa, dd[0], &n);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        MPI_Type_create_indexed_block(ii[0], ii[1], ii + 2, dd[0], &n);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        MPI_Type_create_hindexed_block(ii[0], ii[1], aa, dd[0], &n);
        break;
    case MPI_COMBINER_STRUCT:
        MPI_Type_create_struct(ii[0], ii + 1, aa, dd, &n);
        break;
    case MPI_COMBINER_SUBARRAY: {
        int nd = ii[0];
        MPI_Type_create_subarray(nd, ii + 1, ii + 1 + nd, ii + 1 + 2 * nd, ii[1 + 3 * nd], dd[0],
                                 &n);
        break;
    }
    case MPI_COMBINER_DARRAY: {
        int nd = ii[2];
        MPI_Type_create_darray(ii[0], ii[1], nd, ii + 3, ii + 3 + nd, ii + 3 + 2 * nd,
                               ii + 3 + 3 * nd, ii[3 + 4 * nd], dd[0], &n);
        break;
    }
    case MPI_COMBINER_F90_REAL:
        MPI_Type_create_f90_real(ii[0], ii[1], &n);
        return n;
    case MPI_COMBINER_F90_COMPLEX:
        MPI_Type_create_f90_complex(ii[0], ii[1], &n);
        return n;
    case MPI_COMBINER_F90_INTEGER:
        MPI_Type_create_f90_integer(ii[0], &n);
        return n;
    case MPI_COMBINER_RESIZED:
        MPI_Type_create_resized(dd[0], aa[0], aa[1], &n);
        break;
    }
    if (n != MPI_DATATYPE_NULL)
        MPI_Type_commit(&n);
    return n;
}

/* Decode t and build an equal type from its contents, recursively. Predefined types come back
 * as themselves; derived inner types are freed after use as MPI requires. */
static MPI_Datatype rebuild(MPI_Datatype t)
{
    int ni, na, nd, comb, i, c2;
    int *ii;
    MPI_Aint *aa;
    MPI_Datatype *dd, n;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED) {
        CHECK(ni == 0 && na == 0 && nd == 0, "NAMED counts %d %d %d", ni, na, nd);
        return t;
    }
    ii = malloc(sizeof(int) * (ni + 1));
    aa = malloc(sizeof(MPI_Aint) * (na + 1));
    dd = malloc(sizeof(MPI_Datatype) * (nd + 1));
    MPI_Type_get_contents(t, ni, na, nd, ii, aa, dd);
    check_counts(comb, ni, na, nd, ii);
    for (i = 0; i < nd; i++) {
        MPI_Datatype inner = rebuild(dd[i]);
        int ic, x, y, z;
        MPI_Type_get_envelope(dd[i], &x, &y, &z, &ic);
        if (ic != MPI_COMBINER_NAMED && ic != MPI_COMBINER_F90_REAL &&
            ic != MPI_COMBINER_F90_INTEGER && ic != MPI_COMBINER_F90_COMPLEX)
            MPI_Type_free(&dd[i]);
        dd[i] = inner;
    }
    n = construct(comb, ii, aa, dd);
    for (i = 0; i < nd; i++) {
        int x, y, z;
        MPI_Type_get_envelope(dd[i], &x, &y, &z, &c2);
        if (c2 != MPI_COMBINER_NAMED && c2 != MPI_COMBINER_F90_REAL &&
            c2 != MPI_COMBINER_F90_INTEGER && c2 != MPI_COMBINER_F90_COMPLEX)
            MPI_Type_free(&dd[i]);
    }
    free(ii);
    free(aa);
    free(dd);
    return n;
}

/* Same size, bounds and packed bytes of a patterned buffer. */
static void same_layout(MPI_Datatype a, MPI_Datatype b, const char *what)
{
    static unsigned char buf[1 << 16];
    static unsigned char pa[1 << 15], pb[1 << 15];
    MPI_Aint lba, exa, lbb, exb, tla, tea, tlb, teb;
    int sa, sb, posa = 0, posb = 0, i;
    MPI_Type_size(a, &sa);
    MPI_Type_size(b, &sb);
    MPI_Type_get_extent(a, &lba, &exa);
    MPI_Type_get_extent(b, &lbb, &exb);
    MPI_Type_get_true_extent(a, &tla, &tea);
    MPI_Type_get_true_extent(b, &tlb, &teb);
    CHECK(sa == sb && lba == lbb && exa == exb && tla == tlb && tea == teb,
          "%s: size %d/%d lb %ld/%ld extent %ld/%ld", what, sa, sb, (long)lba, (long)lbb, (long)exa,
          (long)exb);
    if (sa != sb || sa > (int)sizeof pa / 2 || tea + exa > (MPI_Aint)sizeof buf / 2)
        return;
    for (i = 0; i < (int)sizeof buf; i++)
        buf[i] = (unsigned char)(i * 7 + 3);
    MPI_Pack(buf + sizeof buf / 4 - tla, 2, a, pa, sizeof pa, &posa, MPI_COMM_SELF);
    MPI_Pack(buf + sizeof buf / 4 - tla, 2, b, pb, sizeof pb, &posb, MPI_COMM_SELF);
    CHECK(posa == posb && memcmp(pa, pb, posa) == 0, "%s: packed bytes differ", what);
}

static void round_trip(MPI_Datatype t, int want_comb, const char *what)
{
    int ni, na, nd, comb;
    MPI_Datatype r;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    CHECK(comb == want_comb, "%s: combiner %d want %d", what, comb, want_comb);
    r = rebuild(t);
    if (r == MPI_DATATYPE_NULL) {
        CHECK(0, "%s: rebuild failed", what);
        return;
    }
    same_layout(t, r, what);
    if (r != t)
        MPI_Type_free(&r);
}

static void constructors(void)
{
    MPI_Datatype t[20], base;
    int bl[3] = {2, 1, 3}, disp[3] = {0, 5, 9}, n = 0, i;
    MPI_Aint ad[3] = {0, 24, 56};
    MPI_Datatype types[3];
    int sizes[3] = {6, 5, 4}, subs[3] = {2, 3, 2}, starts[3] = {1, 0, 2};
    int gs[2] = {10, 7}, dist[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
    int darg[2] = {2, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {2, 2};
    int combs[20];
    const char *names[20];
#define ADD(cmb, nm)                                                                               \
    do {                                                                                           \
        MPI_Type_commit(&t[n]);                                                                    \
        combs[n] = cmb;                                                                            \
        names[n++] = nm;                                                                           \
    } while (0)
    MPI_Type_contiguous(3, MPI_DOUBLE, &t[n]);
    ADD(MPI_COMBINER_CONTIGUOUS, "contiguous");
    MPI_Type_vector(3, 2, 4, MPI_INT, &t[n]);
    ADD(MPI_COMBINER_VECTOR, "vector");
    MPI_Type_create_hvector(2, 3, 40, MPI_SHORT, &t[n]);
    ADD(MPI_COMBINER_HVECTOR, "hvector");
    MPI_Type_indexed(3, bl, disp, MPI_FLOAT, &t[n]);
    ADD(MPI_COMBINER_INDEXED, "indexed");
    MPI_Type_create_hindexed(3, bl, ad, MPI_CHAR, &t[n]);
    ADD(MPI_COMBINER_HINDEXED, "hindexed");
    MPI_Type_create_indexed_block(3, 2, disp, MPI_INT, &t[n]);
    ADD(MPI_COMBINER_INDEXED_BLOCK, "indexed_block");
    MPI_Type_create_hindexed_block(3, 2, ad, MPI_DOUBLE, &t[n]);
    ADD(MPI_COMBINER_HINDEXED_BLOCK, "hindexed_block");
    types[0] = MPI_INT, types[1] = t[1], types[2] = MPI_DOUBLE_INT;
    MPI_Type_create_struct(3, bl, ad, types, &t[n]);
    ADD(MPI_COMBINER_STRUCT, "struct with a vector inside");
    MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t[n]);
    ADD(MPI_COMBINER_SUBARRAY, "subarray C");
    MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_FORTRAN, t[0], &t[n]);
    ADD(MPI_COMBINER_SUBARRAY, "subarray Fortran of contiguous");
    MPI_Type_create_darray(4, 3, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_FLOAT, &t[n]);
    ADD(MPI_COMBINER_DARRAY, "darray C");
    MPI_Type_create_darray(4, 1, 2, gs, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t[n]);
    ADD(MPI_COMBINER_DARRAY, "darray Fortran");
    MPI_Type_create_resized(t[1], -8, 100, &t[n]);
    ADD(MPI_COMBINER_RESIZED, "resized vector");
    MPI_Type_dup(t[7], &t[n]);
    ADD(MPI_COMBINER_DUP, "dup of struct");
    MPI_Type_dup(MPI_INT, &t[n]);
    ADD(MPI_COMBINER_DUP, "dup of MPI_INT");
    MPI_Type_contiguous(2, t[12], &base);
    t[n] = base;
    ADD(MPI_COMBINER_CONTIGUOUS, "contiguous of resized");
    for (i = 0; i < n; i++) {
        round_trip(t[i], combs[i], names[i]);
    }
    /* contents of a struct give back the predefined types themselves */
    {
        int ii[4];
        MPI_Aint aa[3];
        MPI_Datatype dd[3];
        MPI_Type_get_contents(t[7], 4, 3, 3, ii, aa, dd);
        CHECK(dd[0] == MPI_INT && dd[2] == MPI_DOUBLE_INT, "struct contents types");
        CHECK(ii[0] == 3 && ii[1] == 2 && ii[3] == 3 && aa[1] == 24, "struct contents values");
        MPI_Type_free(&dd[1]);
    }
    for (i = 0; i < n; i++)
        MPI_Type_free(&t[i]);
#undef ADD
}

static void predefined(void)
{
    MPI_Datatype pre[] = {MPI_INT,           MPI_DOUBLE,   MPI_CHAR,    MPI_FLOAT_INT,
                          MPI_2INT,          MPI_LONG_INT, MPI_INT64_T, MPI_C_DOUBLE_COMPLEX,
                          MPI_UNSIGNED_LONG, MPI_BYTE,     MPI_PACKED,  MPI_AINT,
                          MPI_COUNT,         MPI_OFFSET,   MPI_WCHAR,   MPI_C_BOOL};
    int i, ni, na, nd, comb;
    for (i = 0; i < (int)(sizeof pre / sizeof pre[0]); i++) {
        MPI_Type_get_envelope(pre[i], &ni, &na, &nd, &comb);
        CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0,
              "predefined %d: combiner %d", i, comb);
    }
    {
        int rc, cls, ii[1];
        MPI_Aint aa[1];
        MPI_Datatype dd[1];
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        rc = MPI_Type_get_contents(MPI_INT, 0, 0, 0, ii, aa, dd);
        MPI_Error_class(rc, &cls);
        CHECK(rc != MPI_SUCCESS, "get_contents of MPI_INT succeeded");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
}

static void f90(void)
{
    MPI_Datatype t, t2;
    int ni, na, nd, comb, ii[2], sz;
    MPI_Aint aa[1];
    MPI_Datatype dd[1];
    MPI_Type_create_f90_integer(9, &t);
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_F90_INTEGER && ni == 1 && na == 0 && nd == 0, "f90 integer env");
    MPI_Type_get_contents(t, 1, 0, 0, ii, aa, dd);
    CHECK(ii[0] == 9, "f90 integer r %d", ii[0]);
    MPI_Type_size(t, &sz);
    CHECK(sz == 4, "f90 integer(9) size %d", sz);
    /* the same arguments give the same handle (MPI 4.1 19.1.9: a predefined type) */
    MPI_Type_create_f90_integer(9, &t2);
    CHECK(t == t2, "f90 integer not the same type twice");
    MPI_Type_create_f90_real(15, MPI_UNDEFINED, &t);
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_F90_REAL && ni == 2, "f90 real env");
    MPI_Type_get_contents(t, 2, 0, 0, ii, aa, dd);
    CHECK(ii[0] == 15 && ii[1] == MPI_UNDEFINED, "f90 real p r %d %d", ii[0], ii[1]);
    MPI_Type_size(t, &sz);
    CHECK(sz == 8, "f90 real(15) size %d", sz);
    MPI_Type_create_f90_complex(MPI_UNDEFINED, 40, &t);
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_F90_COMPLEX && ni == 2, "f90 complex env");
    MPI_Type_size(t, &sz);
    CHECK(sz == 16, "f90 complex(,40) size %d", sz);
    /* a dup of an f90 type decodes to DUP of it */
    MPI_Type_dup(t, &t2);
    round_trip(t2, MPI_COMBINER_DUP, "dup of f90 complex");
    MPI_Type_free(&t2);
}

static void match_size(void)
{
    MPI_Datatype t;
    int sz, rc, cls;
    struct {
        int cl, size;
    } cases[] = {{MPI_TYPECLASS_INTEGER, 1}, {MPI_TYPECLASS_INTEGER, 2}, {MPI_TYPECLASS_INTEGER, 4},
                 {MPI_TYPECLASS_INTEGER, 8}, {MPI_TYPECLASS_REAL, 4},    {MPI_TYPECLASS_REAL, 8},
                 {MPI_TYPECLASS_COMPLEX, 8}, {MPI_TYPECLASS_COMPLEX, 16}};
    unsigned i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        MPI_Type_match_size(cases[i].cl, cases[i].size, &t);
        MPI_Type_size(t, &sz);
        CHECK(sz == cases[i].size, "match_size %d %d: size %d", cases[i].cl, cases[i].size, sz);
    }
    MPI_Type_match_size(MPI_TYPECLASS_REAL, sizeof(double), &t);
    CHECK(t == MPI_DOUBLE || t == MPI_REAL8, "match_size real 8 not a double type");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    rc = MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "match_size real 3 class %d", cls);
    rc = MPI_Type_match_size(12345, 4, &t);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "match_size bad class: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* external32: big-endian, IEEE, fixed sizes (MPI 4.1 table 19.1, 19.2). */
static void external32(void)
{
    unsigned char out[256];
    MPI_Aint pos = 0, sz;
    int iv[3] = {0x01020304, -2, 7};
    short sv = 0x0a0b;
    double dv = 1.0;
    float fv = -2.0f;
    long long llv = 0x1122334455667788LL;
    unsigned char want[] = {1,    2,    3,    4,    0xff, 0xff, 0xff, 0xfe, 0,    0,   0,    7,
                            0x0a, 0x0b, 0x3f, 0xf0, 0,    0,    0,    0,    0,    0,   0xc0, 0,
                            0,    0,    0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
    MPI_Pack_external("external32", iv, 3, MPI_INT, out, sizeof out, &pos);
    MPI_Pack_external("external32", &sv, 1, MPI_SHORT, out, sizeof out, &pos);
    MPI_Pack_external("external32", &dv, 1, MPI_DOUBLE, out, sizeof out, &pos);
    MPI_Pack_external("external32", &fv, 1, MPI_FLOAT, out, sizeof out, &pos);
    MPI_Pack_external("external32", &llv, 1, MPI_LONG_LONG, out, sizeof out, &pos);
    CHECK(pos == (MPI_Aint)sizeof want, "external32 length %ld", (long)pos);
    CHECK(memcmp(out, want, sizeof want) == 0, "external32 bytes differ");
    MPI_Pack_external_size("external32", 3, MPI_INT, &sz);
    CHECK(sz == 12, "external size of 3 int %ld", (long)sz);
    MPI_Pack_external_size("external32", 2, MPI_DOUBLE_INT, &sz);
    CHECK(sz == 24, "external size of 2 double_int %ld", (long)sz);
    /* a vector with holes packs only its elements, and unpacks back into place */
    {
        MPI_Datatype v;
        int src[8] = {10, 11, 12, 13, 14, 15, 16, 17}, dst[8] = {0};
        MPI_Aint p2 = 0, p3 = 0;
        MPI_Type_vector(2, 2, 4, MPI_INT, &v);
        MPI_Type_commit(&v);
        unsigned char vb[64];
        MPI_Pack_external("external32", src, 1, v, vb, sizeof vb, &p2);
        CHECK(p2 == 16 && vb[3] == 10 && vb[7] == 11 && vb[11] == 14 && vb[15] == 15,
              "external32 vector bytes");
        MPI_Unpack_external("external32", vb, p2, &p3, dst, 1, v);
        CHECK(p3 == 16 && dst[0] == 10 && dst[1] == 11 && dst[2] == 0 && dst[4] == 14 &&
                  dst[5] == 15 && dst[6] == 0,
              "external32 vector unpack");
        MPI_Type_free(&v);
    }
    {
        double back = 0;
        MPI_Aint p = 14;
        MPI_Unpack_external("external32", out, sizeof want, &p, &back, 1, MPI_DOUBLE);
        CHECK(back == 1.0 && p == 22, "external32 double back %g", back);
    }
}

static void names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Datatype t;
    MPI_Type_get_name(MPI_INT, name, &len);
    CHECK(strcmp(name, "MPI_INT") == 0 && len == 7, "name of MPI_INT %s", name);
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_get_name(t, name, &len);
    CHECK(len == 0 && name[0] == 0, "derived type has a name %s", name);
    MPI_Type_set_name(t, "pair");
    MPI_Type_get_name(t, name, &len);
    CHECK(strcmp(name, "pair") == 0 && len == 4, "set name %s", name);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    int tot;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    constructors();
    predefined();
    f90();
    match_size();
    external32();
    names();
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0 && tot == 0)
        printf("conf_dt: ok\n");
    MPI_Finalize();
    return tot != 0;
}
