/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for reduction ops (runtime/engine/op.c, op_api.c): every predefined op on every type
 * it is defined on, against a plain C loop; every other (op, type) pair must give MPI_ERR_OP.
 * MPI_CHAR, outside the standard's C integer group, is reduced as one (an extension: Open MPI
 * and MPICH do, and OSU's reduction benchmarks use it by default); so are the multi-language
 * types MPI_AINT / OFFSET / COUNT by LAND / LOR / LXOR (Open MPI and MPICH do; MPICH's
 * coll/allred fails otherwise).
 */
#include <complex.h>
#include <stdbool.h>
#include <stdio.h>

#include "dt_test_util.h"
#include "ibex_handle.h"

enum { NV = 37 };

/* Which (op, type) pairs the checks below exercised; the rest must be refused. */
static bool tested[IBEX_OP_PREDEFINED_COUNT][IBEX_DT_PREDEFINED_COUNT];

#define FILL_INT()  ((rand() % 9) - 3)
#define FILL_U()    (rand() % 9)
#define FILL_BOOL() (rand() % 2)
#define FILL_CPLX() ((rand() % 9 - 3) + (rand() % 5 - 2) * I)

#define CHECK(OPH, NAME, T, FILL, EXPR)                                                            \
    {                                                                                              \
        T in[NV], io[NV], ex[NV];                                                                  \
        for (int i = 0; i < NV; i++) {                                                             \
            in[i] = (T)FILL();                                                                     \
            io[i] = (T)FILL();                                                                     \
        }                                                                                          \
        for (int i = 0; i < NV; i++) {                                                             \
            T x = in[i], y = io[i];                                                                \
            ex[i] = (T)(EXPR);                                                                     \
        }                                                                                          \
        assert_int_equal(MPI_Reduce_local(in, io, NV, MPI_##NAME, OPH), MPI_SUCCESS);              \
        for (int i = 0; i < NV; i++)                                                               \
            assert_true(io[i] == ex[i]);                                                           \
        tested[IBEX_HANDLE_INDEX(OPH)][IBEX_HANDLE_INDEX(MPI_##NAME)] = true;                      \
    }

#define CHK_MINMAX(N, T, F)                                                                        \
    CHECK(MPI_MAX, N, T, F, x > y ? x : y) CHECK(MPI_MIN, N, T, F, x < y ? x : y)
#define CHK_SUMPROD(N, T, F) CHECK(MPI_SUM, N, T, F, x + y) CHECK(MPI_PROD, N, T, F, x *y)
#define CHK_LOGIC(N, T, F)                                                                         \
    CHECK(MPI_LAND, N, T, F, x &&y)                                                                \
    CHECK(MPI_LOR, N, T, F, x || y) CHECK(MPI_LXOR, N, T, F, (!x) != (!y))
#define CHK_BIT(N, T, F)                                                                           \
    CHECK(MPI_BAND, N, T, F, x &y)                                                                 \
    CHECK(MPI_BOR, N, T, F, x | y) CHECK(MPI_BXOR, N, T, F, x ^ y)

/* The MPI standard's groups, written out independently of op.c. */
#define CHK_C_INT(N, T, F)                                                                         \
    CHK_MINMAX(N, T, F) CHK_SUMPROD(N, T, F) CHK_LOGIC(N, T, F) CHK_BIT(N, T, F)
#define CHK_F_INT(N, T, F) CHK_MINMAX(N, T, F) CHK_SUMPROD(N, T, F) CHK_BIT(N, T, F)
#define CHK_FLOAT(N, T, F) CHK_MINMAX(N, T, F) CHK_SUMPROD(N, T, F)

static void test_c_integer(void **state)
{
    (void)state;
    CHK_C_INT(SIGNED_CHAR, signed char, FILL_INT)
    CHK_C_INT(UNSIGNED_CHAR, unsigned char, FILL_U)
    CHK_C_INT(SHORT, short, FILL_INT)
    CHK_C_INT(UNSIGNED_SHORT, unsigned short, FILL_U)
    CHK_C_INT(INT, int, FILL_INT)
    CHK_C_INT(UNSIGNED, unsigned, FILL_U)
    CHK_C_INT(LONG, long, FILL_INT)
    CHK_C_INT(UNSIGNED_LONG, unsigned long, FILL_U)
    CHK_C_INT(LONG_LONG, long long, FILL_INT)
    CHK_C_INT(UNSIGNED_LONG_LONG, unsigned long long, FILL_U)
    CHK_C_INT(INT8_T, int8_t, FILL_INT)
    CHK_C_INT(INT16_T, int16_t, FILL_INT)
    CHK_C_INT(INT32_T, int32_t, FILL_INT)
    CHK_C_INT(INT64_T, int64_t, FILL_INT)
    CHK_C_INT(UINT8_T, uint8_t, FILL_U)
    CHK_C_INT(UINT16_T, uint16_t, FILL_U)
    CHK_C_INT(UINT32_T, uint32_t, FILL_U)
    CHK_C_INT(UINT64_T, uint64_t, FILL_U)
    /* osu_allreduce / osu_reduce ... reduce MPI_CHAR with MPI_SUM unless given -T */
    CHK_C_INT(CHAR, char, FILL_INT)
}

static void test_fortran_integer_multi_byte(void **state)
{
    (void)state;
    CHK_F_INT(INTEGER, int32_t, FILL_INT)
    CHK_F_INT(INTEGER1, int8_t, FILL_INT)
    CHK_F_INT(INTEGER2, int16_t, FILL_INT)
    CHK_F_INT(INTEGER4, int32_t, FILL_INT)
    CHK_F_INT(INTEGER8, int64_t, FILL_INT)
    CHK_F_INT(AINT, MPI_Aint, FILL_INT)
    CHK_F_INT(OFFSET, MPI_Offset, FILL_INT)
    CHK_F_INT(COUNT, MPI_Count, FILL_INT)
    /* the logical ops on the multi-language types: an extension (above) */
    CHK_LOGIC(AINT, MPI_Aint, FILL_INT)
    CHK_LOGIC(OFFSET, MPI_Offset, FILL_INT)
    CHK_LOGIC(COUNT, MPI_Count, FILL_INT)
    CHK_BIT(BYTE, unsigned char, FILL_U)
}

static void test_floating_complex_logical(void **state)
{
    (void)state;
    CHK_FLOAT(FLOAT, float, FILL_INT)
    CHK_FLOAT(DOUBLE, double, FILL_INT)
    CHK_FLOAT(LONG_DOUBLE, long double, FILL_INT)
    CHK_FLOAT(REAL, float, FILL_INT)
    CHK_FLOAT(DOUBLE_PRECISION, double, FILL_INT)
    CHK_FLOAT(REAL4, float, FILL_INT)
    CHK_FLOAT(REAL8, double, FILL_INT)
    CHK_SUMPROD(C_FLOAT_COMPLEX, float _Complex, FILL_CPLX)
    CHK_SUMPROD(C_DOUBLE_COMPLEX, double _Complex, FILL_CPLX)
    CHK_SUMPROD(C_LONG_DOUBLE_COMPLEX, long double _Complex, FILL_CPLX)
    CHK_SUMPROD(CXX_FLOAT_COMPLEX, float _Complex, FILL_CPLX)
    CHK_SUMPROD(CXX_DOUBLE_COMPLEX, double _Complex, FILL_CPLX)
    CHK_SUMPROD(CXX_LONG_DOUBLE_COMPLEX, long double _Complex, FILL_CPLX)
    CHK_SUMPROD(COMPLEX, float _Complex, FILL_CPLX)
    CHK_SUMPROD(DOUBLE_COMPLEX, double _Complex, FILL_CPLX)
    CHK_SUMPROD(COMPLEX8, float _Complex, FILL_CPLX)
    CHK_SUMPROD(COMPLEX16, double _Complex, FILL_CPLX)
    CHK_LOGIC(C_BOOL, _Bool, FILL_BOOL)
    CHK_LOGIC(CXX_BOOL, _Bool, FILL_BOOL)
    CHK_LOGIC(LOGICAL, int32_t, FILL_BOOL)
}

/* MINLOC / MAXLOC: values from a small range so that ties are frequent; ties keep the lower
 * index. */
#define CHECK_LOC(NAME, A, B)                                                                      \
    {                                                                                              \
        typedef struct {                                                                           \
            A v;                                                                                   \
            B i;                                                                                   \
        } P;                                                                                       \
        P in[NV], io[NV], mn[NV], mx[NV];                                                          \
        memset(in, 0, sizeof(in)), memset(io, 0, sizeof(io));                                      \
        for (int k = 0; k < NV; k++) {                                                             \
            in[k].v = (A)(rand() % 3), in[k].i = (B)(rand() % 5);                                  \
            io[k].v = (A)(rand() % 3), io[k].i = (B)(rand() % 5);                                  \
        }                                                                                          \
        for (int k = 0; k < NV; k++) {                                                             \
            P x = in[k], y = io[k];                                                                \
            B lo = x.i < y.i ? x.i : y.i;                                                          \
            mn[k] = x.v < y.v ? x : y.v < x.v ? y : (P){x.v, lo};                                  \
            mx[k] = x.v > y.v ? x : y.v > x.v ? y : (P){x.v, lo};                                  \
        }                                                                                          \
        P io2[NV];                                                                                 \
        memcpy(io2, io, sizeof(io));                                                               \
        assert_int_equal(MPI_Reduce_local(in, io, NV, MPI_##NAME, MPI_MINLOC), MPI_SUCCESS);       \
        assert_int_equal(MPI_Reduce_local(in, io2, NV, MPI_##NAME, MPI_MAXLOC), MPI_SUCCESS);      \
        for (int k = 0; k < NV; k++) {                                                             \
            assert_true(io[k].v == mn[k].v && io[k].i == mn[k].i);                                 \
            assert_true(io2[k].v == mx[k].v && io2[k].i == mx[k].i);                               \
        }                                                                                          \
        tested[IBEX_HANDLE_INDEX(MPI_MINLOC)][IBEX_HANDLE_INDEX(MPI_##NAME)] = true;               \
        tested[IBEX_HANDLE_INDEX(MPI_MAXLOC)][IBEX_HANDLE_INDEX(MPI_##NAME)] = true;               \
    }

static void test_minloc_maxloc(void **state)
{
    (void)state;
    CHECK_LOC(FLOAT_INT, float, int)
    CHECK_LOC(DOUBLE_INT, double, int)
    CHECK_LOC(LONG_INT, long, int)
    CHECK_LOC(2INT, int, int)
    CHECK_LOC(SHORT_INT, short, int)
    CHECK_LOC(LONG_DOUBLE_INT, long double, int)
    CHECK_LOC(2INTEGER, int32_t, int32_t)
    CHECK_LOC(2REAL, float, float)
    CHECK_LOC(2DOUBLE_PRECISION, double, double)
    /* The tie rule on its own: equal values, the lower index wins either way round. */
    struct {
        double v;
        int i;
    } a = {1.0, 7}, b = {1.0, 3};
    assert_int_equal(MPI_Reduce_local(&a, &b, 1, MPI_DOUBLE_INT, MPI_MINLOC), MPI_SUCCESS);
    assert_int_equal(b.i, 3);
    b.i = 9;
    assert_int_equal(MPI_Reduce_local(&a, &b, 1, MPI_DOUBLE_INT, MPI_MAXLOC), MPI_SUCCESS);
    assert_int_equal(b.i, 7);
}

/* Runs last: everything the checks above did not exercise must be refused. */
static void test_undefined_pairs_refused(void **state)
{
    (void)state;
    char in[64] = {0}, io[64] = {0};
    int refused = 0;
    for (int o = 1; o < IBEX_OP_PREDEFINED_COUNT; o++) {
        MPI_Op op = IBEX_HANDLE_MAKE(IBEX_KIND_OP, o);
        if (op == MPI_REPLACE || op == MPI_NO_OP)
            continue;
        for (int t = 1; t < IBEX_DT_PREDEFINED_COUNT; t++) {
            if (tested[o][t])
                continue;
            assert_mpi_err(MPI_ERR_OP, MPI_Reduce_local(in, io, 1, IBEX_DT(t), op));
            refused++;
        }
    }
    /* e.g. MAX on MPI_WCHAR, SUM on MPI_C_BOOL, BAND on MPI_FLOAT, MINLOC on MPI_INT */
    assert_true(refused > 200);
    assert_false(tested[IBEX_HANDLE_INDEX(MPI_SUM)][IBEX_HANDLE_INDEX(MPI_WCHAR)]);
}

static void test_derived_types(void **state)
{
    (void)state;
    MPI_Datatype c3, v, c2di, vdi, mixed;
    int a[12], b[12], e[12];
    for (int i = 0; i < 12; i++)
        a[i] = i, b[i] = e[i] = 100 * i;
    /* contiguous: all 12 ints */
    assert_int_equal(MPI_Type_contiguous(3, MPI_INT, &c3), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&c3), MPI_SUCCESS);
    assert_int_equal(MPI_Reduce_local(a, b, 4, c3, MPI_SUM), MPI_SUCCESS);
    for (int i = 0; i < 12; i++)
        assert_int_equal(b[i], 101 * i);
    /* vector: only the selected ints, the gaps stay */
    assert_int_equal(MPI_Type_vector(3, 1, 2, MPI_INT, &v), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&v), MPI_SUCCESS);
    assert_int_equal(MPI_Reduce_local(a, e, 2, v, MPI_MAX), MPI_SUCCESS); /* extent 5 ints */
    for (int i = 0; i < 12; i++)
        assert_int_equal(e[i], 100 * i);
    assert_int_equal(MPI_Reduce_local(a, e, 2, v, MPI_REPLACE), MPI_SUCCESS);
    for (int i = 0; i < 12; i++) {
        bool sel = i < 10 && i % 5 % 2 == 0;
        assert_int_equal(e[i], sel ? i : 100 * i);
    }
    assert_int_equal(MPI_Reduce_local(b, e, 2, v, MPI_NO_OP), MPI_SUCCESS);
    assert_int_equal(e[0], 0);
    /* padded pairs inside derived types */
    struct {
        double v;
        int i;
    } x[6], y[6];
    for (int i = 0; i < 6; i++) {
        x[i].v = i % 2, x[i].i = i;
        y[i].v = 0.5, y[i].i = 10 + i;
    }
    assert_int_equal(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &c2di), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&c2di), MPI_SUCCESS);
    assert_int_equal(MPI_Reduce_local(x, y, 3, c2di, MPI_MAXLOC), MPI_SUCCESS);
    for (int i = 0; i < 6; i++)
        assert_true(y[i].i == (i % 2 ? i : 10 + i));
    assert_int_equal(MPI_Type_vector(2, 1, 2, MPI_DOUBLE_INT, &vdi), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&vdi), MPI_SUCCESS);
    assert_int_equal(MPI_Reduce_local(x, y, 1, vdi, MPI_MINLOC), MPI_SUCCESS);
    assert_true(y[0].i == 0 && y[2].i == 2 && y[1].i == 1);
    /* MPI_SHORT_INT's blocks run across pairs (int of one, short of the next) */
    MPI_Datatype c3si;
    struct {
        short v;
        int i;
    } p[6], q[6];
    for (int i = 0; i < 6; i++) {
        p[i].v = (short)(i % 3), p[i].i = i;
        q[i].v = 1, q[i].i = 20 + i;
    }
    assert_int_equal(MPI_Type_contiguous(3, MPI_SHORT_INT, &c3si), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&c3si), MPI_SUCCESS);
    assert_int_equal(MPI_Reduce_local(p, q, 2, c3si, MPI_MINLOC), MPI_SUCCESS);
    for (int i = 0; i < 6; i++) {
        int want_i = i % 3 == 0 ? i : i % 3 == 1 ? i : 20 + i;
        assert_true(q[i].v == (i % 3 == 0 ? 0 : 1) && q[i].i == want_i);
    }
    MPI_Type_free(&c3si);
    /* a struct of two basic types has no op */
    int lens[] = {1, 1};
    MPI_Aint disps[] = {0, 8};
    MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE};
    assert_int_equal(MPI_Type_create_struct(2, lens, disps, types, &mixed), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&mixed), MPI_SUCCESS);
    assert_mpi_err(MPI_ERR_OP, MPI_Reduce_local(x, y, 1, mixed, MPI_SUM));
    assert_int_equal(MPI_Reduce_local(x, y, 1, mixed, MPI_REPLACE), MPI_SUCCESS);
    MPI_Type_free(&c3), MPI_Type_free(&v), MPI_Type_free(&c2di), MPI_Type_free(&vdi);
    MPI_Type_free(&mixed);
}

static int user_calls;
static void user_diff(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    user_calls++;
    assert_int_equal(*dt, MPI_INT);
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] = ((int *)in)[i] - ((int *)inout)[i];
}

static void test_user_ops(void **state)
{
    (void)state;
    MPI_Op op, pre = MPI_SUM;
    int commute, a[3] = {10, 20, 30}, b[3] = {1, 2, 3};
    assert_int_equal(MPI_Op_create(user_diff, 0, &op), MPI_SUCCESS);
    assert_int_equal(MPI_Op_commutative(op, &commute), MPI_SUCCESS);
    assert_int_equal(commute, 0);
    assert_int_equal(MPI_Op_commutative(MPI_MAX, &commute), MPI_SUCCESS);
    assert_int_equal(commute, 1);
    assert_int_equal(MPI_Reduce_local(a, b, 3, MPI_INT, op), MPI_SUCCESS);
    assert_int_equal(user_calls, 1);
    assert_true(b[0] == 9 && b[1] == 18 && b[2] == 27);
    ibex_op_t *o = ibex_op_get(op);
    assert_non_null(o);
    assert_false(o->predefined);
    MPI_Op old = op;
    assert_int_equal(MPI_Op_free(&op), MPI_SUCCESS);
    assert_int_equal(op, MPI_OP_NULL);
    assert_null(ibex_op_get(old));
    assert_mpi_err(MPI_ERR_OP, MPI_Op_free(&pre));
    assert_mpi_err(MPI_ERR_OP, MPI_Op_free(&op));
    assert_mpi_err(MPI_ERR_ARG, MPI_Op_create(NULL, 1, &op));
}

static void test_errors(void **state)
{
    (void)state;
    int a[2] = {0}, b[2] = {0};
    MPI_Datatype u;
    assert_mpi_err(MPI_ERR_OP, MPI_Reduce_local(a, b, 2, MPI_INT, MPI_OP_NULL));
    assert_mpi_err(MPI_ERR_OP, MPI_Reduce_local(a, b, 2, MPI_INT, 77));
    assert_mpi_err(MPI_ERR_TYPE, MPI_Reduce_local(a, b, 2, MPI_DATATYPE_NULL, MPI_SUM));
    assert_mpi_err(MPI_ERR_COUNT, MPI_Reduce_local(a, b, -1, MPI_INT, MPI_SUM));
    assert_int_equal(MPI_Type_contiguous(2, MPI_INT, &u), MPI_SUCCESS);
    assert_mpi_err(MPI_ERR_TYPE, MPI_Reduce_local(a, b, 1, u, MPI_SUM));
    MPI_Type_free(&u);
    /* Zero elements still check the op against the type. */
    assert_int_equal(MPI_Reduce_local(a, b, 0, MPI_INT, MPI_SUM), MPI_SUCCESS);
    assert_mpi_err(MPI_ERR_OP, MPI_Reduce_local(a, b, 0, MPI_FLOAT, MPI_BAND));
}

int main(void)
{
    srand(4242);
    const struct CMUnitTest tests[] = {
        T(test_c_integer),
        T(test_fortran_integer_multi_byte),
        T(test_floating_complex_logical),
        T(test_minloc_maxloc),
        T(test_undefined_pairs_refused),
        T(test_derived_types),
        T(test_user_ops),
        T(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
