/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datatype additions (standard MPI only): envelope / contents round trip of every
 * constructor (the contents rebuild a type that packs exactly like the original), subarray and
 * darray against layouts computed here in both orders, Type keyvals with their callbacks on
 * Type_dup / Type_free, external32 byte images against the standard's layout (big-endian, no
 * padding, MPI_LONG in 4 bytes), the _x queries, Type_match_size, the f90 types,
 * Type_get_value_index, the optional Fortran sizes (MPI_COMPLEX8 ...) and the error classes. Local
 * calls only: every rank runs it alike.
 */
#include <complex.h>
#include <stdbool.h>
#include <string.h>

#include "mpitest.h"

static int ecls(int rc)
{
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}

/* The ints a type's MPI_Pack of count elements picks out of 0, 1, 2, ... (n at most). */
static int pack_ints(MPI_Datatype t, int count, int *out, int n)
{
    static int src[4096];
    char buf[16384];
    int pos = 0, size;
    for (int i = 0; i < 4096; i++)
        src[i] = i;
    CHECK_RC(MPI_Pack_size(count, t, MPI_COMM_WORLD, &size));
    CHECK(size <= (int)sizeof(buf));
    CHECK_RC(MPI_Pack(src, count, t, buf, sizeof(buf), &pos, MPI_COMM_WORLD));
    CHECK(pos / (int)sizeof(int) <= n);
    memcpy(out, buf, (size_t)pos);
    return pos / (int)sizeof(int);
}

static void same_layout(MPI_Datatype a, MPI_Datatype b)
{
    int x[1024], y[1024];
    MPI_Aint lba, exa, lbb, exb;
    CHECK_RC(MPI_Type_get_extent(a, &lba, &exa));
    CHECK_RC(MPI_Type_get_extent(b, &lbb, &exb));
    CHECK(lba == lbb && exa == exb);
    int n = pack_ints(a, 2, x, 1024), m = pack_ints(b, 2, y, 1024);
    CHECK(n == m && memcmp(x, y, sizeof(int) * (size_t)n) == 0);
}

/* Rebuilds a type from its envelope and contents with the constructor they name. */
static MPI_Datatype rebuild(MPI_Datatype t)
{
    int ni, na, nd, comb, in[256];
    MPI_Aint ad[128];
    MPI_Datatype ty[64], r = MPI_DATATYPE_NULL;
    CHECK_RC(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK(ni <= 256 && na <= 128 && nd <= 64);
    CHECK_RC(MPI_Type_get_contents(t, ni, na, nd, in, ad, ty));
    switch (comb) {
    case MPI_COMBINER_DUP:
        CHECK_RC(MPI_Type_dup(ty[0], &r));
        break;
    case MPI_COMBINER_CONTIGUOUS:
        CHECK_RC(MPI_Type_contiguous(in[0], ty[0], &r));
        break;
    case MPI_COMBINER_VECTOR:
        CHECK_RC(MPI_Type_vector(in[0], in[1], in[2], ty[0], &r));
        break;
    case MPI_COMBINER_HVECTOR:
        CHECK_RC(MPI_Type_create_hvector(in[0], in[1], ad[0], ty[0], &r));
        break;
    case MPI_COMBINER_INDEXED:
        CHECK_RC(MPI_Type_indexed(in[0], in + 1, in + 1 + in[0], ty[0], &r));
        break;
    case MPI_COMBINER_HINDEXED:
        CHECK_RC(MPI_Type_create_hindexed(in[0], in + 1, ad, ty[0], &r));
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        CHECK_RC(MPI_Type_create_indexed_block(in[0], in[1], in + 2, ty[0], &r));
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        CHECK_RC(MPI_Type_create_hindexed_block(in[0], in[1], ad, ty[0], &r));
        break;
    case MPI_COMBINER_STRUCT:
        CHECK_RC(MPI_Type_create_struct(in[0], in + 1, ad, ty, &r));
        break;
    case MPI_COMBINER_RESIZED:
        CHECK_RC(MPI_Type_create_resized(ty[0], ad[0], ad[1], &r));
        break;
    case MPI_COMBINER_SUBARRAY: {
        int n = in[0];
        CHECK_RC(MPI_Type_create_subarray(n, in + 1, in + 1 + n, in + 1 + 2 * n, in[1 + 3 * n],
                                          ty[0], &r));
        break;
    }
    case MPI_COMBINER_DARRAY: {
        int n = in[2];
        CHECK_RC(MPI_Type_create_darray(in[0], in[1], n, in + 3, in + 3 + n, in + 3 + 2 * n,
                                        in + 3 + 3 * n, in[3 + 4 * n], ty[0], &r));
        break;
    }
    default:
        CHECK(0);
    }
    for (int i = 0; i < nd; i++) { /* derived member types are the program's to free */
        int c2, a, b, d;
        CHECK_RC(MPI_Type_get_envelope(ty[i], &a, &b, &d, &c2));
        if (c2 != MPI_COMBINER_NAMED)
            CHECK_RC(MPI_Type_free(&ty[i]));
    }
    CHECK_RC(MPI_Type_commit(&r));
    return r;
}

static void round_trip(MPI_Datatype t, int combiner, int ni, int na, int nd)
{
    int a, b, c, comb;
    CHECK_RC(MPI_Type_commit(&t));
    CHECK_RC(MPI_Type_get_envelope(t, &a, &b, &c, &comb));
    CHECK(comb == combiner && a == ni && b == na && c == nd);
    MPI_Datatype r = rebuild(t);
    same_layout(t, r);
    CHECK_RC(MPI_Type_free(&r));
    CHECK_RC(MPI_Type_free(&t));
}

static void check_round_trips(void)
{
    MPI_Datatype t, v, s;
    int lens[3] = {2, 1, 3}, disps[3] = {0, 5, 9};
    MPI_Aint adisps[3] = {0, 20, 40};
    CHECK_RC(MPI_Type_contiguous(3, MPI_INT, &t));
    round_trip(t, MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
    CHECK_RC(MPI_Type_vector(3, 2, 4, MPI_INT, &v));
    CHECK_RC(MPI_Type_dup(v, &t));
    round_trip(t, MPI_COMBINER_DUP, 0, 0, 1);
    CHECK_RC(MPI_Type_vector(3, 2, -4, v, &t)); /* a derived member, negative stride */
    round_trip(t, MPI_COMBINER_VECTOR, 3, 0, 1);
    CHECK_RC(MPI_Type_create_hvector(2, 3, 28, MPI_INT, &t));
    round_trip(t, MPI_COMBINER_HVECTOR, 2, 1, 1);
    CHECK_RC(MPI_Type_indexed(3, lens, disps, MPI_INT, &t));
    round_trip(t, MPI_COMBINER_INDEXED, 7, 0, 1);
    CHECK_RC(MPI_Type_create_hindexed(3, lens, adisps, MPI_INT, &t));
    round_trip(t, MPI_COMBINER_HINDEXED, 4, 3, 1);
    CHECK_RC(MPI_Type_create_indexed_block(3, 2, disps, MPI_INT, &t));
    round_trip(t, MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1);
    CHECK_RC(MPI_Type_create_hindexed_block(3, 2, adisps, v, &t));
    round_trip(t, MPI_COMBINER_HINDEXED_BLOCK, 2, 3, 1);
    MPI_Datatype types[3] = {MPI_INT, v, MPI_INT};
    CHECK_RC(MPI_Type_create_struct(3, lens, adisps, types, &s));
    CHECK_RC(MPI_Type_dup(s, &t));
    round_trip(t, MPI_COMBINER_DUP, 0, 0, 1);
    CHECK_RC(MPI_Type_create_resized(s, -8, 100, &t));
    round_trip(t, MPI_COMBINER_RESIZED, 0, 2, 1);
    round_trip(s, MPI_COMBINER_STRUCT, 4, 3, 3);
    int sizes[3] = {4, 5, 6}, sub[3] = {2, 3, 1}, st[3] = {1, 2, 5};
    CHECK_RC(MPI_Type_create_subarray(3, sizes, sub, st, MPI_ORDER_C, MPI_INT, &t));
    round_trip(t, MPI_COMBINER_SUBARRAY, 11, 0, 1);
    CHECK_RC(MPI_Type_create_subarray(3, sizes, sub, st, MPI_ORDER_FORTRAN, MPI_INT, &t));
    round_trip(t, MPI_COMBINER_SUBARRAY, 11, 0, 1);
    int gs[2] = {6, 7}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
        darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 3};
    CHECK_RC(MPI_Type_create_darray(6, 4, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t));
    round_trip(t, MPI_COMBINER_DARRAY, 12, 0, 1);
    CHECK_RC(MPI_Type_free(&v));
    int a, b, c, comb, dummy;
    CHECK_RC(MPI_Type_get_envelope(MPI_INT, &a, &b, &c, &comb));
    CHECK(comb == MPI_COMBINER_NAMED && a == 0 && b == 0 && c == 0);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Type_get_contents(MPI_INT, 0, 0, 0, &dummy, NULL, NULL) != MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* subarray against the element indices computed here: 4 x 5 ints, 2 x 3 from (1, 2). */
static void check_subarray(void)
{
    int sizes[2] = {4, 5}, sub[2] = {2, 3}, st[2] = {1, 2}, got[64], exp[64], n = 0;
    MPI_Datatype t;
    MPI_Aint lb, ext;
    CHECK_RC(MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_C, MPI_INT, &t));
    CHECK_RC(MPI_Type_commit(&t));
    CHECK_RC(MPI_Type_get_extent(t, &lb, &ext));
    CHECK(lb == 0 && ext == 20 * (MPI_Aint)sizeof(int));
    for (int i = 1; i < 3; i++)
        for (int j = 2; j < 5; j++)
            exp[n++] = i * 5 + j;
    CHECK(pack_ints(t, 1, got, 64) == n && memcmp(got, exp, sizeof(int) * (size_t)n) == 0);
    int two = pack_ints(t, 2, got, 64); /* the second element starts one whole array later */
    CHECK(two == 2 * n && got[n] == exp[0] + 20);
    CHECK_RC(MPI_Type_free(&t));
    /* Fortran order: element (i, j) of a 4 x 5 array is at i + 4 j, i fastest */
    n = 0;
    CHECK_RC(MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_FORTRAN, MPI_INT, &t));
    CHECK_RC(MPI_Type_commit(&t));
    for (int j = 2; j < 5; j++)
        for (int i = 1; i < 3; i++)
            exp[n++] = i + 4 * j;
    CHECK(pack_ints(t, 1, got, 64) == n && memcmp(got, exp, sizeof(int) * (size_t)n) == 0);
    CHECK_RC(MPI_Type_free(&t));
}

/* Does process coordinate c own global index x of a dimension (g over p, dist, darg)? */
static bool owns(int dist, int darg, int g, int p, int c, int x)
{
    if (dist == MPI_DISTRIBUTE_NONE)
        return true;
    int k = darg != MPI_DISTRIBUTE_DFLT_DARG ? darg
            : dist == MPI_DISTRIBUTE_BLOCK   ? (g + p - 1) / p
                                             : 1;
    return dist == MPI_DISTRIBUTE_BLOCK ? x / k == c : (x / k) % p == c;
}

/* 2-D darray of every rank of a 2 x 3 grid against the owned indices in array order. */
static void check_darray_2d(int order, const int *dist, const int *darg)
{
    int gs[2] = {6, 7}, ps[2] = {2, 3}, got[64], exp[64];
    for (int rank = 0; rank < 6; rank++) {
        int c[2] = {rank / 3, rank % 3}, n = 0;
        MPI_Datatype t;
        CHECK_RC(MPI_Type_create_darray(6, rank, 2, gs, dist, darg, ps, order, MPI_INT, &t));
        CHECK_RC(MPI_Type_commit(&t));
        MPI_Aint lb, ext;
        CHECK_RC(MPI_Type_get_extent(t, &lb, &ext));
        CHECK(lb == 0 && ext == 42 * (MPI_Aint)sizeof(int));
        int slow = order == MPI_ORDER_C ? 0 : 1, fast = 1 - slow;
        for (int a = 0; a < gs[slow]; a++)
            for (int b = 0; b < gs[fast]; b++) {
                int x[2];
                x[slow] = a, x[fast] = b;
                if (owns(dist[0], darg[0], gs[0], ps[0], c[0], x[0]) &&
                    owns(dist[1], darg[1], gs[1], ps[1], c[1], x[1]))
                    exp[n++] = order == MPI_ORDER_C ? x[0] * gs[1] + x[1] : x[0] + x[1] * gs[0];
            }
        CHECK(pack_ints(t, 1, got, 64) == n && memcmp(got, exp, sizeof(int) * (size_t)n) == 0);
        CHECK_RC(MPI_Type_free(&t));
    }
}

static void check_darray(void)
{
    int d1[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int a1[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    int d2[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK}, a2[2] = {2, 3};
    check_darray_2d(MPI_ORDER_C, d1, a1);
    check_darray_2d(MPI_ORDER_FORTRAN, d1, a1);
    check_darray_2d(MPI_ORDER_C, d2, a2);
    check_darray_2d(MPI_ORDER_FORTRAN, d2, a2);
    MPI_Datatype t;
    int gs = 10, dist = MPI_DISTRIBUTE_BLOCK, darg = 2, ps = 2;
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Type_create_darray(2, 0, 1, &gs, &dist, &darg, &ps, MPI_ORDER_C, MPI_INT, &t) !=
          MPI_SUCCESS); /* 2 x 2 < 10: the blocks do not cover the array */
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* ---- type attributes ---- */
static int copies, deletes, order_log[8], nlog;

static int copy_fn(MPI_Datatype old, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)kv;
    copies++;
    CHECK(extra == (void *)&copies);
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Datatype t, int kv, void *val, void *extra)
{
    (void)t, (void)kv, (void)extra;
    deletes++;
    if (nlog < 8)
        order_log[nlog++] = (int)(intptr_t)val;
    return MPI_SUCCESS;
}

static void check_type_attrs(void)
{
    int k1, k2, k3, flag;
    void *val;
    MPI_Datatype t, d;
    CHECK_RC(MPI_Type_create_keyval(copy_fn, delete_fn, &k1, &copies));
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_fn, &k2, NULL));
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &k3, NULL));
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_RC(MPI_Type_set_attr(t, k1, (void *)(intptr_t)10));
    CHECK_RC(MPI_Type_set_attr(t, k2, (void *)(intptr_t)20));
    CHECK_RC(MPI_Type_set_attr(t, k3, (void *)(intptr_t)30));
    CHECK_RC(MPI_Type_dup(t, &d));
    CHECK(copies == 1);
    CHECK_RC(MPI_Type_get_attr(d, k1, &val, &flag));
    CHECK(flag && val == (void *)(intptr_t)11);
    CHECK_RC(MPI_Type_get_attr(d, k2, &val, &flag));
    CHECK(!flag); /* MPI_TYPE_NULL_COPY_FN: not copied */
    CHECK_RC(MPI_Type_get_attr(d, k3, &val, &flag));
    CHECK(flag && val == (void *)(intptr_t)30);
    CHECK_RC(MPI_Type_set_attr(t, k1, (void *)(intptr_t)12)); /* overwrite: delete runs */
    CHECK(deletes == 1 && order_log[0] == 10);
    CHECK_RC(MPI_Type_free_keyval(&k2)); /* still used by t */
    CHECK(k2 == MPI_KEYVAL_INVALID);
    CHECK_RC(MPI_Type_free(&t)); /* k1 (12) and k2 (20); Ibex: the last set first */
#ifdef IBEX_MPI_H                /* MPICH 4.0 runs them later (when the object goes) */
    CHECK(deletes == 3 && order_log[1] == 20 && order_log[2] == 12);
#endif
    deletes = 3;
    CHECK_RC(MPI_Type_delete_attr(d, k1));
    CHECK(deletes == 4 && order_log[nlog - 1] == 11);
    CHECK_RC(MPI_Type_get_attr(d, k1, &val, &flag));
    CHECK(!flag);
    CHECK_RC(MPI_Type_free(&d));
#ifdef IBEX_MPI_H
    CHECK(deletes == 4);
#endif
    CHECK_RC(MPI_Type_set_attr(MPI_INT, k3, (void *)(intptr_t)5)); /* predefined types too */
    CHECK_RC(MPI_Type_get_attr(MPI_INT, k3, &val, &flag));
    CHECK(flag && val == (void *)(intptr_t)5);
    CHECK_RC(MPI_Type_delete_attr(MPI_INT, k3));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int bad = MPI_KEYVAL_INVALID;
    CHECK(ecls(MPI_Type_set_attr(MPI_INT, bad, NULL)) == MPI_ERR_KEYVAL);
    CHECK(ecls(MPI_Type_free_keyval(&bad)) == MPI_ERR_KEYVAL);
    CHECK(ecls(MPI_Type_get_attr(MPI_DATATYPE_NULL, k1, &val, &flag)) == MPI_ERR_TYPE);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    CHECK_RC(MPI_Type_free_keyval(&k1));
    CHECK_RC(MPI_Type_free_keyval(&k3));
}

/* ---- external32 ---- */
static void check_bytes(const unsigned char *got, const unsigned char *exp, int n)
{
    for (int i = 0; i < n; i++)
        CHECK(got[i] == exp[i]);
}

static void check_external32(void)
{
    unsigned char buf[64];
    MPI_Aint pos = 0, size;
    int i = 0x01020304;
    short sh = 0x0506;
    double d = 1.0;
    long l = -2;
    float fc[2] = {1.0f, 2.0f};
    CHECK_RC(MPI_Pack_external("external32", &i, 1, MPI_INT, buf, 64, &pos));
    CHECK_RC(MPI_Pack_external("external32", &sh, 1, MPI_SHORT, buf, 64, &pos));
    CHECK_RC(MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, buf, 64, &pos));
    CHECK_RC(MPI_Pack_external("external32", &l, 1, MPI_LONG, buf, 64, &pos));
    CHECK_RC(MPI_Pack_external("external32", fc, 1, MPI_C_FLOAT_COMPLEX, buf, 64, &pos));
    static const unsigned char exp[] = {1,    2,    3, 4, 5,    6,    0x3f, 0xf0, 0,
                                        0,    0,    0, 0, 0,    0xff, 0xff, 0xff, 0xfe,
                                        0x3f, 0x80, 0, 0, 0x40, 0,    0,    0};
    CHECK(pos == (MPI_Aint)sizeof(exp));
    check_bytes(buf, exp, (int)sizeof(exp));
    int i2 = 0;
    short sh2 = 0;
    double d2 = 0;
    long l2 = 0;
    float fc2[2] = {0, 0};
    pos = 0;
    CHECK_RC(MPI_Unpack_external("external32", buf, sizeof(exp), &pos, &i2, 1, MPI_INT));
    CHECK_RC(MPI_Unpack_external("external32", buf, sizeof(exp), &pos, &sh2, 1, MPI_SHORT));
    CHECK_RC(MPI_Unpack_external("external32", buf, sizeof(exp), &pos, &d2, 1, MPI_DOUBLE));
    CHECK_RC(MPI_Unpack_external("external32", buf, sizeof(exp), &pos, &l2, 1, MPI_LONG));
    CHECK_RC(
        MPI_Unpack_external("external32", buf, sizeof(exp), &pos, fc2, 1, MPI_C_FLOAT_COMPLEX));
    CHECK(i2 == i && sh2 == sh && d2 == d && l2 == l && fc2[0] == 1.0f && fc2[1] == 2.0f);
    /* a struct with native padding: char, int, double -> 1 + 4 + 8 bytes, no padding */
    struct {
        char c;
        int x;
        double y;
    } s[2] = {{'A', 7, -2.0}, {'B', 8, 0.5}}, s2[2];
    int lens[3] = {1, 1, 1};
    MPI_Aint disps[3] = {0, (char *)&s[0].x - (char *)&s[0], (char *)&s[0].y - (char *)&s[0]};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_INT, MPI_DOUBLE}, st, sr;
    CHECK_RC(MPI_Type_create_struct(3, lens, disps, types, &st));
    CHECK_RC(MPI_Type_create_resized(st, 0, sizeof(s[0]), &sr));
    CHECK_RC(MPI_Type_commit(&sr));
    CHECK_RC(MPI_Pack_external_size("external32", 2, sr, &size));
    CHECK(size == 26);
    pos = 0;
    CHECK_RC(MPI_Pack_external("external32", s, 2, sr, buf, 64, &pos));
    static const unsigned char exps[] = {'A', 0, 0, 0, 7, 0xc0, 0,    0, 0, 0, 0, 0, 0,
                                         'B', 0, 0, 0, 8, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0};
    CHECK(pos == 26);
    check_bytes(buf, exps, 26);
    pos = 0;
    memset(s2, 0, sizeof(s2));
    CHECK_RC(MPI_Unpack_external("external32", buf, 26, &pos, s2, 2, sr));
    CHECK(s2[1].c == 'B' && s2[1].x == 8 && s2[1].y == 0.5 && s2[0].y == -2.0);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    pos = 0;
    CHECK(MPI_Pack_external("external32", s, 2, sr, buf, 20, &pos) != MPI_SUCCESS);
    CHECK(MPI_Pack_external("native", s, 2, sr, buf, 64, &pos) != MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    CHECK_RC(MPI_Type_free(&st));
    CHECK_RC(MPI_Type_free(&sr));
}

static void check_misc(void)
{
    MPI_Datatype t, v;
    MPI_Count lb, ext, size;
    int sz, ni, na, nd, comb, in[4];
    CHECK_RC(MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &v));
    CHECK_RC(MPI_Type_get_extent_x(v, &lb, &ext));
    CHECK(lb == 0 && ext == 5 * 8);
    CHECK_RC(MPI_Type_get_true_extent_x(v, &lb, &ext));
    CHECK(lb == 0 && ext == 5 * 8);
    CHECK_RC(MPI_Type_size_x(v, &size));
    CHECK(size == 24);
    CHECK_RC(MPI_Type_free(&v));
    MPI_Status xst; /* Status_set_elements_x and Get_elements_x agree */
    MPI_Count elems;
    CHECK_RC(MPI_Status_set_elements_x(&xst, MPI_DOUBLE, 7));
    CHECK_RC(MPI_Get_elements_x(&xst, MPI_DOUBLE, &elems));
    CHECK(elems == 7);
    /* a count past INT_MAX, with bits set in both halves, round-trips through the status */
    const MPI_Count big = ((MPI_Count)0x3fedcba9 << 32) | 0x87654321;
    CHECK_RC(MPI_Status_set_elements_x(&xst, MPI_BYTE, big));
    CHECK_RC(MPI_Get_elements_x(&xst, MPI_BYTE, &elems));
    CHECK(elems == big);
    CHECK_RC(MPI_Status_set_elements_x(&xst, MPI_INT, big / 8));
    CHECK_RC(MPI_Get_elements_x(&xst, MPI_INT, &elems));
    CHECK(elems == big / 8);
    /* a struct of count 0 may pass NULL arrays: size 0, extent 0 */
    CHECK_RC(MPI_Type_create_struct(0, NULL, NULL, NULL, &v));
    CHECK_RC(MPI_Type_size(v, &sz));
    CHECK_RC(MPI_Type_get_extent_x(v, &lb, &ext));
    CHECK(sz == 0 && lb == 0 && ext == 0);
    CHECK_RC(MPI_Type_get_envelope(v, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_STRUCT && ni == 1 && na == 0 && nd == 0);
    CHECK_RC(MPI_Type_commit(&v));
    CHECK_RC(MPI_Sendrecv(NULL, 1, v, 0, 2, NULL, 1, v, 0, 2, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Type_free(&v));
    /* the optional Fortran sizes: each a type of its size, or MPI_DATATYPE_NULL */
    const struct {
        MPI_Datatype t;
        int size;
        const char *name;
    } opt[] = {{MPI_COMPLEX8, 8, "MPI_COMPLEX8"},   {MPI_COMPLEX16, 16, "MPI_COMPLEX16"},
               {MPI_REAL2, 2, "MPI_REAL2"},         {MPI_REAL16, 16, "MPI_REAL16"},
               {MPI_COMPLEX4, 4, "MPI_COMPLEX4"},   {MPI_COMPLEX32, 32, "MPI_COMPLEX32"},
               {MPI_INTEGER16, 16, "MPI_INTEGER16"}};
    for (size_t i = 0; i < sizeof(opt) / sizeof(opt[0]); i++) {
        char nm[MPI_MAX_OBJECT_NAME];
        int len;
        if (opt[i].t == MPI_DATATYPE_NULL)
            continue;
        CHECK_RC(MPI_Type_size(opt[i].t, &sz));
        CHECK_RC(MPI_Type_get_name(opt[i].t, nm, &len));
        CHECK(sz == opt[i].size && strcmp(nm, opt[i].name) == 0);
    }
    char cname[MPI_MAX_OBJECT_NAME];
    int clen;
    CHECK_RC(MPI_Type_get_name(MPI_C_FLOAT_COMPLEX, cname, &clen)); /* = MPI_C_COMPLEX */
    CHECK(strcmp(cname, "MPI_C_COMPLEX") == 0 || strcmp(cname, "MPI_C_FLOAT_COMPLEX") == 0);
    CHECK_RC(MPI_Type_get_name(MPI_C_COMPLEX, cname, &clen));
    CHECK(strcmp(cname, "MPI_C_COMPLEX") == 0);
    double _Complex zin[2] = {1.0 + 2.0 * I, -3.0}, zio[2] = {0.5, 1.0 * I};
    CHECK_RC(MPI_Reduce_local(zin, zio, 2, MPI_COMPLEX16, MPI_PROD));
    CHECK(zio[0] == 0.5 + 1.0 * I && zio[1] == -3.0 * I);
    /* handle conversion round trips */
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD);
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE);
    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM);
    CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY);
    CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL);
    CHECK(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_NULL)) == MPI_INFO_NULL);
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN);
    CHECK_RC(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t));
    CHECK_RC(MPI_Type_size(t, &sz));
    CHECK(sz == 4);
    CHECK_RC(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
    CHECK_RC(MPI_Type_size(t, &sz));
    CHECK(sz == 8);
    CHECK_RC(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 8, &t));
    CHECK_RC(MPI_Type_size(t, &sz));
    CHECK(sz == 8);
    CHECK_RC(MPI_Type_create_f90_integer(9, &t));
    CHECK_RC(MPI_Type_size(t, &sz));
    CHECK(sz == 4);
    CHECK_RC(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_F90_INTEGER && ni == 1 && na == 0 && nd == 0);
    CHECK_RC(MPI_Type_get_contents(t, 1, 0, 0, in, NULL, NULL));
    CHECK(in[0] == 9);
    CHECK_RC(MPI_Type_create_f90_real(10, MPI_UNDEFINED, &t));
    CHECK_RC(MPI_Type_size(t, &sz));
    CHECK(sz == 8);
    CHECK_RC(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_F90_REAL && ni == 2);
    CHECK_RC(MPI_Type_get_contents(t, 2, 0, 0, in, NULL, NULL));
    CHECK(in[0] == 10 && in[1] == MPI_UNDEFINED);
    CHECK_RC(MPI_Type_create_f90_complex(6, 30, &t));
    CHECK_RC(MPI_Type_size(t, &sz));
    CHECK(sz == 8);
    int x = 0; /* an f90 type communicates like its predefined twin */
    CHECK_RC(MPI_Type_create_f90_integer(9, &t));
    CHECK_RC(MPI_Sendrecv(&sz, 1, t, 0, 1, &x, 1, t, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    CHECK(x == sz);
#if defined(IBEX_MPI_H) || MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    CHECK_RC(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t)); /* MPI 4.1 */
    CHECK(t == MPI_DOUBLE_INT);
    CHECK_RC(MPI_Type_get_value_index(MPI_INT, MPI_INT, &t));
    CHECK(t == MPI_2INT);
#endif
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK(ecls(MPI_Type_create_f90_integer(40, &t)) == MPI_ERR_ARG);
    CHECK(ecls(MPI_Type_create_f90_real(500, 5000, &t)) == MPI_ERR_ARG);
    CHECK(ecls(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t)) == MPI_ERR_ARG);
    /* types are flattened: one of 2^30 separate blocks is refused at once, not built */
    CHECK(ecls(MPI_Type_vector(1 << 30, 1, 3, MPI_INT, &t)) == MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(ecls(MPI_Type_create_hvector(1 << 28, 2, 64, MPI_DOUBLE, &t)) ==
          MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_RC(MPI_Type_vector(1 << 20, 2, 2, MPI_INT, &t)); /* contiguous: one block, allowed */
    CHECK_RC(MPI_Type_size_x(t, &size));
    CHECK(size == ((MPI_Count)8 << 20));
    CHECK_RC(MPI_Type_free(&t));
    CHECK(ecls(MPI_Status_set_elements_x(&xst, MPI_INT, -1)) == MPI_ERR_COUNT);
    CHECK(ecls(MPI_Status_set_elements_x(&xst, MPI_INT, big)) ==
          MPI_ERR_COUNT); /* bytes overflow */
    int sizes[1] = {4}, sub[1] = {5}, st[1] = {0};
    CHECK(ecls(MPI_Type_create_subarray(1, sizes, sub, st, MPI_ORDER_C, MPI_INT, &t)) ==
          MPI_ERR_ARG);
    sub[0] = 2;
    CHECK(ecls(MPI_Type_create_subarray(1, sizes, sub, st, 99, MPI_INT, &t)) == MPI_ERR_ARG);
    CHECK(ecls(MPI_Type_get_envelope(MPI_DATATYPE_NULL, &ni, &na, &nd, &comb)) == MPI_ERR_TYPE);
    CHECK_RC(MPI_Type_create_f90_integer(9, &t));
    CHECK(ecls(MPI_Type_free(&t)) == MPI_ERR_TYPE); /* f90 types are predefined */
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

/* Status conversion (MPI 4.1 section 19.3.5) of a real status, through every form and back;
 * the ignore constants are MPI_ERR_ARG; MPI_Get_hw_resource_info gives an info to free. */
static void check_status_conv(void)
{
    double d[5] = {1, 2, 3, 4, 5}, r[5];
    int count = 0, cls;
    MPI_Status st, back, again;
    MPI_Fint f[MPI_F_STATUS_SIZE], f2[MPI_F_STATUS_SIZE];
    MPI_F08_status f08;
    CHECK_RC(MPI_Sendrecv(d, 5, MPI_DOUBLE, 0, 7, r, 5, MPI_DOUBLE, 0, 7, MPI_COMM_SELF, &st));
    CHECK_RC(MPI_Status_c2f(&st, f));
    CHECK(f[MPI_F_SOURCE] == 0 && f[MPI_F_TAG] == 7 && f[MPI_F_ERROR] == st.MPI_ERROR);
    memset(&back, 0xff, sizeof(back));
    CHECK_RC(MPI_Status_f2c(f, &back));
    CHECK_RC(MPI_Get_count(&back, MPI_DOUBLE, &count));
    CHECK(count == 5 && back.MPI_SOURCE == 0 && back.MPI_TAG == 7);
    CHECK_RC(MPI_Status_f2f08(f, &f08));
    CHECK(f08.MPI_SOURCE == 0 && f08.MPI_TAG == 7);
    CHECK_RC(MPI_Status_f082f(&f08, f2));
    CHECK(memcmp(f, f2, sizeof(f)) == 0);
    CHECK_RC(MPI_Status_c2f08(&st, &f08));
    memset(&again, 0, sizeof(again));
    CHECK_RC(MPI_Status_f082c(&f08, &again));
    count = 0;
    CHECK_RC(MPI_Get_count(&again, MPI_DOUBLE, &count));
    CHECK(count == 5 && again.MPI_TAG == 7);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Error_class(MPI_Status_c2f(MPI_STATUS_IGNORE, f), &cls);
    CHECK(cls == MPI_ERR_ARG);
    MPI_Error_class(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back), &cls);
    CHECK(cls == MPI_ERR_ARG);
    MPI_Error_class(MPI_Status_f082c(&f08, MPI_STATUS_IGNORE), &cls);
    CHECK(cls == MPI_ERR_ARG);
    MPI_Error_class(MPI_Status_c2f08(&st, MPI_F08_STATUS_IGNORE), &cls);
    CHECK(cls == MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Info hw = MPI_INFO_NULL;
    int nkeys = -1;
    CHECK_RC(MPI_Get_hw_resource_info(&hw));
    CHECK(hw != MPI_INFO_NULL);
    CHECK_RC(MPI_Info_get_nkeys(hw, &nkeys));
    CHECK(nkeys == 0);
    CHECK_RC(MPI_Info_free(&hw));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_round_trips();
    check_subarray();
    check_darray();
    check_type_attrs();
    check_external32();
    check_misc();
    check_status_conv();
    mt_barrier(MPI_COMM_WORLD);
    mt_done("dt_decode");
    MPI_Finalize();
    return 0;
}
