/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for datatype objects and queries (runtime/engine/datatype.c, dt_create.c, dt_api.c).
 */
#include <complex.h>
#include <stdalign.h>
#include <stdbool.h>
#include <wchar.h>

#include "dt_test_util.h"
#include "ibex_dt_ref.h"

typedef struct predef_expect {
    MPI_Datatype type;
    size_t size, extent;
    int nblocks;
    const char *name;
} predef_expect_t;

#define SCALAR(h, T)                                                                               \
    {                                                                                              \
        h, sizeof(T), sizeof(T), 1, #h                                                             \
    }
#define PAIR(h, A, B)                                                                              \
    {                                                                                              \
        h, sizeof(A) + sizeof(B), sizeof(struct {                                                  \
            A a;                                                                                   \
            B b;                                                                                   \
        }),                                                                                        \
            offsetof(                                                                              \
                struct {                                                                           \
                    A a;                                                                           \
                    B b;                                                                           \
                },                                                                                 \
                b) == sizeof(A)                                                                    \
                ? 1                                                                                \
                : 2,                                                                               \
            #h                                                                                     \
    }

static const predef_expect_t predefs[] = {
    SCALAR(MPI_CHAR, char),
    SCALAR(MPI_SIGNED_CHAR, signed char),
    SCALAR(MPI_UNSIGNED_CHAR, unsigned char),
    SCALAR(MPI_BYTE, char),
    SCALAR(MPI_WCHAR, wchar_t),
    SCALAR(MPI_SHORT, short),
    SCALAR(MPI_UNSIGNED_SHORT, unsigned short),
    SCALAR(MPI_INT, int),
    SCALAR(MPI_UNSIGNED, unsigned),
    SCALAR(MPI_LONG, long),
    SCALAR(MPI_UNSIGNED_LONG, long),
    SCALAR(MPI_LONG_LONG_INT, long long),
    SCALAR(MPI_UNSIGNED_LONG_LONG, long long),
    SCALAR(MPI_FLOAT, float),
    SCALAR(MPI_DOUBLE, double),
    SCALAR(MPI_LONG_DOUBLE, long double),
    SCALAR(MPI_INT8_T, int8_t),
    SCALAR(MPI_INT16_T, int16_t),
    SCALAR(MPI_INT32_T, int32_t),
    SCALAR(MPI_INT64_T, int64_t),
    SCALAR(MPI_UINT8_T, uint8_t),
    SCALAR(MPI_UINT16_T, uint16_t),
    SCALAR(MPI_UINT32_T, uint32_t),
    SCALAR(MPI_UINT64_T, uint64_t),
    SCALAR(MPI_C_BOOL, _Bool),
    {MPI_C_FLOAT_COMPLEX, sizeof(float _Complex), sizeof(float _Complex), 1, "MPI_C_COMPLEX"},
    SCALAR(MPI_C_DOUBLE_COMPLEX, double _Complex),
    SCALAR(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex),
    SCALAR(MPI_AINT, MPI_Aint),
    SCALAR(MPI_OFFSET, MPI_Offset),
    SCALAR(MPI_COUNT, MPI_Count),
    SCALAR(MPI_PACKED, char),
    PAIR(MPI_FLOAT_INT, float, int),
    PAIR(MPI_DOUBLE_INT, double, int),
    PAIR(MPI_LONG_INT, long, int),
    PAIR(MPI_2INT, int, int),
    PAIR(MPI_SHORT_INT, short, int),
    PAIR(MPI_LONG_DOUBLE_INT, long double, int),
    SCALAR(MPI_CXX_BOOL, _Bool),
    SCALAR(MPI_CXX_FLOAT_COMPLEX, float _Complex),
    SCALAR(MPI_CXX_DOUBLE_COMPLEX, double _Complex),
    SCALAR(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex),
    /* Fortran types with gfortran's default kinds */
    {MPI_CHARACTER, 1, 1, 1, "MPI_CHARACTER"},
    {MPI_LOGICAL, 4, 4, 1, "MPI_LOGICAL"},
    {MPI_INTEGER, 4, 4, 1, "MPI_INTEGER"},
    {MPI_REAL, 4, 4, 1, "MPI_REAL"},
    {MPI_DOUBLE_PRECISION, 8, 8, 1, "MPI_DOUBLE_PRECISION"},
    {MPI_COMPLEX, 8, 8, 1, "MPI_COMPLEX"},
    {MPI_DOUBLE_COMPLEX, 16, 16, 1, "MPI_DOUBLE_COMPLEX"},
    {MPI_2INTEGER, 8, 8, 1, "MPI_2INTEGER"},
    {MPI_2REAL, 8, 8, 1, "MPI_2REAL"},
    {MPI_2DOUBLE_PRECISION, 16, 16, 1, "MPI_2DOUBLE_PRECISION"},
    {MPI_INTEGER1, 1, 1, 1, "MPI_INTEGER1"},
    {MPI_INTEGER2, 2, 2, 1, "MPI_INTEGER2"},
    {MPI_INTEGER4, 4, 4, 1, "MPI_INTEGER4"},
    {MPI_INTEGER8, 8, 8, 1, "MPI_INTEGER8"},
    {MPI_REAL4, 4, 4, 1, "MPI_REAL4"},
    {MPI_REAL8, 8, 8, 1, "MPI_REAL8"},
    {MPI_COMPLEX8, 8, 8, 1, "MPI_COMPLEX8"},
    {MPI_COMPLEX16, 16, 16, 1, "MPI_COMPLEX16"},
};

static void test_predefined_table(void **state)
{
    (void)state;
    size_t n = sizeof(predefs) / sizeof(predefs[0]);
    assert_int_equal(n, IBEX_DT_PREDEFINED_COUNT - 1); /* every one but MPI_DATATYPE_NULL */
    for (size_t i = 0; i < n; i++) {
        const predef_expect_t *e = &predefs[i];
        int size, len;
        MPI_Aint lb, extent, tlb, textent;
        char name[MPI_MAX_OBJECT_NAME];
        ibex_dt_t *dt = ibex_dt_get(e->type);
        assert_non_null(dt);
        assert_true(dt->predefined && dt->committed);
        assert_int_equal(MPI_Type_size(e->type, &size), MPI_SUCCESS);
        assert_int_equal(size, e->size);
        assert_int_equal(MPI_Type_get_extent(e->type, &lb, &extent), MPI_SUCCESS);
        assert_int_equal(lb, 0);
        assert_int_equal(extent, e->extent);
        assert_int_equal(MPI_Type_get_true_extent(e->type, &tlb, &textent), MPI_SUCCESS);
        assert_int_equal(tlb, 0);
        assert_int_equal(dt->nblocks, e->nblocks);
        assert_int_equal(MPI_Type_get_name(e->type, name, &len), MPI_SUCCESS);
        assert_string_equal(name, e->name);
        assert_int_equal(len, strlen(e->name));
        assert_int_equal(dt->contiguous, e->size == e->extent && e->nblocks == 1);
    }
    assert_null(ibex_dt_get(MPI_DATATYPE_NULL));
}

static void test_pair_layout(void **state)
{
    (void)state;
    struct di {
        double d;
        int i;
    };
    struct si {
        short s;
        int i;
    };
    ibex_dt_t *dt = ibex_dt_get(MPI_DOUBLE_INT);
    MPI_Aint tlb, textent;
    /* double and int are adjacent: one block, the padding is at the end */
    assert_int_equal(dt->nblocks, 1);
    assert_int_equal(dt->blocks[0].len, 12);
    assert_false(dt->contiguous);
    dt = ibex_dt_get(MPI_SHORT_INT);
    assert_int_equal(dt->nblocks, 2);
    assert_int_equal(dt->blocks[1].disp, offsetof(struct si, i));
    assert_int_equal(MPI_Type_get_true_extent(MPI_DOUBLE_INT, &tlb, &textent), MPI_SUCCESS);
    assert_int_equal(textent, offsetof(struct di, i) + sizeof(int));
    assert_int_equal(ibex_dt_get(MPI_2INT)->basic_type, MPI_INT);
    assert_int_equal(ibex_dt_get(MPI_DOUBLE_INT)->basic_type, -1);
}

typedef struct bounds {
    int size;
    MPI_Aint lb, extent, tlb, textent;
} bounds_t;

static void assert_bounds(MPI_Datatype t, bounds_t want)
{
    bounds_t got;
    assert_int_equal(MPI_Type_size(t, &got.size), MPI_SUCCESS);
    assert_int_equal(MPI_Type_get_extent(t, &got.lb, &got.extent), MPI_SUCCESS);
    assert_int_equal(MPI_Type_get_true_extent(t, &got.tlb, &got.textent), MPI_SUCCESS);
    assert_int_equal(got.size, want.size);
    assert_int_equal(got.lb, want.lb);
    assert_int_equal(got.extent, want.extent);
    assert_int_equal(got.tlb, want.tlb);
    assert_int_equal(got.textent, want.textent);
}

static void test_extents_vector_indexed(void **state)
{
    (void)state;
    MPI_Datatype t;
    assert_int_equal(MPI_Type_vector(3, 2, 4, MPI_INT, &t), MPI_SUCCESS);
    assert_bounds(t, (bounds_t){24, 0, 40, 0, 40});
    MPI_Type_free(&t);
    assert_int_equal(MPI_Type_vector(3, 1, -2, MPI_DOUBLE, &t), MPI_SUCCESS);
    assert_bounds(t, (bounds_t){24, -32, 40, -32, 40});
    MPI_Type_free(&t);
    assert_int_equal(MPI_Type_create_hvector(2, 3, 20, MPI_SHORT, &t), MPI_SUCCESS);
    assert_bounds(t, (bounds_t){12, 0, 26, 0, 26});
    MPI_Type_free(&t);
    int lens[] = {2, 0, 1}, disps[] = {5, 1, 0};
    assert_int_equal(MPI_Type_indexed(3, lens, disps, MPI_INT, &t), MPI_SUCCESS);
    assert_bounds(t, (bounds_t){12, 0, 28, 0, 28});
    assert_int_equal(ibex_dt_get(t)->nblocks, 2);
    MPI_Type_free(&t);
    int bdisps[] = {4, 0, 8};
    assert_int_equal(MPI_Type_create_indexed_block(3, 2, bdisps, MPI_INT, &t), MPI_SUCCESS);
    assert_bounds(t, (bounds_t){24, 0, 40, 0, 40});
    MPI_Type_free(&t);
    MPI_Aint hdisps[] = {-8, 8};
    assert_int_equal(MPI_Type_create_hindexed_block(2, 1, hdisps, MPI_DOUBLE, &t), MPI_SUCCESS);
    assert_bounds(t, (bounds_t){16, -8, 24, -8, 24});
    MPI_Type_free(&t);
    int hlens[] = {1, 2};
    assert_int_equal(MPI_Type_create_hindexed(2, hlens, hdisps, MPI_INT, &t), MPI_SUCCESS);
    assert_bounds(t, (bounds_t){12, -8, 24, -8, 24});
    MPI_Type_free(&t);
}

static void test_extents_struct_padding(void **state)
{
    (void)state;
    MPI_Datatype t;
    int lens[] = {1, 1};
    MPI_Aint d08[] = {0, 8}, d04[] = {0, 4}, d01[] = {0, 1};
    MPI_Datatype cd[] = {MPI_CHAR, MPI_DOUBLE}, dc[] = {MPI_DOUBLE, MPI_CHAR};
    MPI_Datatype ic[] = {MPI_INT, MPI_CHAR}, cc[] = {MPI_CHAR, MPI_CHAR};
    assert_int_equal(MPI_Type_create_struct(2, lens, d08, cd, &t), MPI_SUCCESS);
    assert_bounds(t, (bounds_t){9, 0, 16, 0, 16});
    MPI_Type_free(&t);
    assert_int_equal(MPI_Type_create_struct(2, lens, d08, dc, &t), MPI_SUCCESS);
    assert_bounds(t, (bounds_t){9, 0, 16, 0, 9}); /* padded to double alignment */
    MPI_Type_free(&t);
    assert_int_equal(MPI_Type_create_struct(2, lens, d04, ic, &t), MPI_SUCCESS);
    assert_bounds(t, (bounds_t){5, 0, 8, 0, 5});
    MPI_Type_free(&t);
    assert_int_equal(MPI_Type_create_struct(2, lens, d01, cc, &t), MPI_SUCCESS);
    assert_bounds(t, (bounds_t){2, 0, 2, 0, 2});
    MPI_Type_free(&t);
    /* The C compiler agrees: struct {double; char} has the extent MPI gives it. */
    struct dchar {
        double d;
        char c;
    };
    assert_int_equal(sizeof(struct dchar), 16);
}

static void test_extents_resized(void **state)
{
    (void)state;
    MPI_Datatype r, c, s, v;
    assert_int_equal(MPI_Type_create_resized(MPI_INT, -4, 12, &r), MPI_SUCCESS);
    assert_bounds(r, (bounds_t){4, -4, 12, 0, 4});
    assert_int_equal(MPI_Type_contiguous(3, r, &c), MPI_SUCCESS);
    assert_bounds(c, (bounds_t){12, -4, 36, 0, 28});
    /* Markers stick: the double's data does not move the bounds, only the true extent. */
    int lens[] = {1, 1};
    MPI_Aint disps[] = {0, 100};
    MPI_Datatype types[] = {r, MPI_DOUBLE};
    assert_int_equal(MPI_Type_create_struct(2, lens, disps, types, &s), MPI_SUCCESS);
    assert_bounds(s, (bounds_t){12, -4, 12, 0, 108});
    /* Negative extent: copies run downwards. */
    MPI_Datatype neg;
    assert_int_equal(MPI_Type_create_resized(MPI_INT, 0, -8, &neg), MPI_SUCCESS);
    assert_int_equal(MPI_Type_contiguous(3, neg, &v), MPI_SUCCESS);
    assert_bounds(v, (bounds_t){12, -16, 8, -16, 20}); /* markers: lb -16, ub -8 */
    MPI_Type_free(&r);
    MPI_Type_free(&c);
    MPI_Type_free(&s);
    MPI_Type_free(&neg);
    MPI_Type_free(&v);
}

static void test_zero_count_types(void **state)
{
    (void)state;
    MPI_Datatype t, s;
    int count = -1, lens[] = {0, 2};
    MPI_Aint disps[] = {-100, 8};
    MPI_Datatype types[] = {MPI_DOUBLE, MPI_INT};
    MPI_Status st = {.ibex_count = 0};
    assert_int_equal(MPI_Type_contiguous(0, MPI_INT, &t), MPI_SUCCESS);
    assert_bounds(t, (bounds_t){0, 0, 0, 0, 0});
    assert_int_equal(MPI_Type_commit(&t), MPI_SUCCESS);
    assert_int_equal(MPI_Get_count(&st, t, &count), MPI_SUCCESS);
    assert_int_equal(count, 0);
    assert_int_equal(MPI_Get_elements(&st, t, &count), MPI_SUCCESS);
    assert_int_equal(count, 0);
    /* A zero-length member contributes neither data nor bounds. */
    assert_int_equal(MPI_Type_create_struct(2, lens, disps, types, &s), MPI_SUCCESS);
    assert_bounds(s, (bounds_t){8, 8, 8, 8, 8});
    MPI_Type_free(&t);
    MPI_Type_free(&s);
}

static void test_get_count_elements(void **state)
{
    (void)state;
    MPI_Status st = {0};
    int n;
    MPI_Count nx;
    MPI_Datatype c2, s;
    int lens[] = {1, 1};
    MPI_Aint disps[] = {0, 8};
    MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE};
    st.ibex_count = 12;
    assert_int_equal(MPI_Get_count(&st, MPI_INT, &n), MPI_SUCCESS);
    assert_int_equal(n, 3);
    st.ibex_count = 13;
    assert_int_equal(MPI_Get_count(&st, MPI_INT, &n), MPI_SUCCESS);
    assert_int_equal(n, MPI_UNDEFINED);
    assert_int_equal(MPI_Get_elements(&st, MPI_INT, &n), MPI_SUCCESS);
    assert_int_equal(n, MPI_UNDEFINED);
    /* Partial last element: count undefined, elements counts the basic ones. */
    assert_int_equal(MPI_Type_contiguous(2, MPI_INT, &c2), MPI_SUCCESS);
    st.ibex_count = 12;
    assert_int_equal(MPI_Get_count(&st, c2, &n), MPI_SUCCESS);
    assert_int_equal(n, MPI_UNDEFINED);
    assert_int_equal(MPI_Get_elements(&st, c2, &n), MPI_SUCCESS);
    assert_int_equal(n, 3);
    /* Mixed struct {int; double}: 12 bytes per element. */
    assert_int_equal(MPI_Type_create_struct(2, lens, disps, types, &s), MPI_SUCCESS);
    const struct {
        MPI_Count bytes;
        int count, elems;
    } cases[] = {
        {0, 0, 0},
        {12, 1, 2},
        {16, MPI_UNDEFINED, 3},
        {14, MPI_UNDEFINED, MPI_UNDEFINED},
        {20, MPI_UNDEFINED, MPI_UNDEFINED},
        {24, 2, 4},
        {4, MPI_UNDEFINED, 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        st.ibex_count = cases[i].bytes;
        assert_int_equal(MPI_Get_count(&st, s, &n), MPI_SUCCESS);
        assert_int_equal(n, cases[i].count);
        assert_int_equal(MPI_Get_elements(&st, s, &n), MPI_SUCCESS);
        assert_int_equal(n, cases[i].elems);
        assert_int_equal(MPI_Get_elements_x(&st, s, &nx), MPI_SUCCESS);
        assert_int_equal(nx, cases[i].elems);
    }
    /* Pair types count both members. */
    st.ibex_count = 12;
    assert_int_equal(MPI_Get_count(&st, MPI_DOUBLE_INT, &n), MPI_SUCCESS);
    assert_int_equal(n, 1);
    assert_int_equal(MPI_Get_elements(&st, MPI_DOUBLE_INT, &n), MPI_SUCCESS);
    assert_int_equal(n, 2);
    st.ibex_count = 8;
    assert_int_equal(MPI_Get_elements(&st, MPI_DOUBLE_INT, &n), MPI_SUCCESS);
    assert_int_equal(n, 1);
    assert_int_equal(MPI_Get_elements(&st, MPI_2INT, &n), MPI_SUCCESS);
    assert_int_equal(n, 2);
    /* Status_set_elements is the inverse of Get_elements. */
    for (int k = 0; k < 7; k++) {
        assert_int_equal(MPI_Status_set_elements(&st, s, k), MPI_SUCCESS);
        assert_int_equal(MPI_Get_elements(&st, s, &n), MPI_SUCCESS);
        assert_int_equal(n, k);
    }
    assert_int_equal(st.ibex_count, 12 * 3);
    assert_int_equal(MPI_Status_set_cancelled(&st, 1), MPI_SUCCESS);
    assert_int_equal(st.ibex_cancelled, 1);
    MPI_Type_free(&c2);
    MPI_Type_free(&s);
}

static void test_names(void **state)
{
    (void)state;
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Datatype t;
    assert_int_equal(MPI_Type_get_name(MPI_LONG_LONG, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "MPI_LONG_LONG_INT");
    assert_int_equal(MPI_Type_contiguous(2, MPI_INT, &t), MPI_SUCCESS);
    assert_int_equal(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
    assert_int_equal(len, 0);
    assert_int_equal(MPI_Type_set_name(t, "pair of ints"), MPI_SUCCESS);
    assert_int_equal(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
    assert_string_equal(name, "pair of ints");
    assert_int_equal(len, 12);
    MPI_Type_free(&t);
}

static void test_commit_dup_free(void **state)
{
    (void)state;
    MPI_Datatype v, d1, d2;
    assert_int_equal(MPI_Type_vector(4, 1, 3, MPI_FLOAT, &v), MPI_SUCCESS);
    assert_false(ibex_dt_get(v)->committed);
    assert_int_equal(MPI_Type_dup(v, &d1), MPI_SUCCESS);
    assert_false(ibex_dt_get(d1)->committed);
    assert_int_equal(MPI_Type_commit(&v), MPI_SUCCESS);
    assert_true(ibex_dt_get(v)->committed);
    assert_int_equal(MPI_Type_dup(v, &d2), MPI_SUCCESS);
    assert_true(ibex_dt_get(d2)->committed);
    assert_bounds(d2, (bounds_t){16, 0, 40, 0, 40});
    assert_int_equal(MPI_Type_commit(&v), MPI_SUCCESS); /* committing twice is fine */
    assert_int_equal(MPI_Type_commit((MPI_Datatype[]){MPI_INT}), MPI_SUCCESS);
    /* Freed while a request holds it: the handle dies, the layout lives on. */
    ibex_dt_t *dt = ibex_dt_get(v);
    ibex_dt_retain(dt);
    MPI_Datatype old = v;
    assert_int_equal(MPI_Type_free(&v), MPI_SUCCESS);
    assert_int_equal(v, MPI_DATATYPE_NULL);
    assert_null(ibex_dt_get(old));
    float src[10], out[4];
    for (int i = 0; i < 10; i++)
        src[i] = (float)i;
    assert_int_equal(ibex_dt_pack(src, 1, dt, 0, out, sizeof(out)), sizeof(out));
    assert_true(out[0] == 0 && out[1] == 3 && out[2] == 6 && out[3] == 9);
    ibex_dt_release(dt);
    /* Derived types keep their own layout after the type they came from is freed. */
    assert_int_equal(MPI_Type_free(&d2), MPI_SUCCESS);
    assert_bounds(d1, (bounds_t){16, 0, 40, 0, 40});
    assert_int_equal(MPI_Type_free(&d1), MPI_SUCCESS);
}

/* Types the program never freed, one built from the other, die at fini: the older one is held
 * by the newer one's construction record too, so fini drops references instead of destroying
 * (it freed the older first and the newer's record then wrote into it: ROMIO's big_extents;
 * make check-asan sees the use after free). */
static void test_unfreed_at_fini(void **state)
{
    (void)state;
    int bl[2] = {1, 1}, displs[2] = {0, 4};
    MPI_Datatype base, outer;
    assert_int_equal(MPI_Type_indexed(2, bl, displs, MPI_INT, &base), MPI_SUCCESS);
    assert_int_equal(MPI_Type_contiguous(4, base, &outer), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&outer), MPI_SUCCESS);
    assert_int_equal(ibex_dt_get(base)->refcount, 2); /* the handle and outer's record */
}

/* Adjacent pieces merge into one block, whichever constructor produced them. */
static void test_blocks_merge(void **state)
{
    (void)state;
    MPI_Datatype s, v, c;
    int lens[] = {1, 1, 1};
    MPI_Aint disps[] = {0, 4, 8};
    MPI_Datatype types[] = {MPI_INT, MPI_INT, MPI_DOUBLE};
    assert_int_equal(MPI_Type_create_struct(3, lens, disps, types, &s), MPI_SUCCESS);
    assert_int_equal(ibex_dt_get(s)->nblocks, 1);
    assert_true(ibex_dt_get(s)->contiguous);
    assert_int_equal(MPI_Type_vector(3, 2, 2, MPI_INT, &v), MPI_SUCCESS);
    assert_int_equal(ibex_dt_get(v)->nblocks, 1);
    assert_true(ibex_dt_get(v)->contiguous);
    assert_int_equal(MPI_Type_contiguous(4, MPI_SHORT_INT, &c), MPI_SUCCESS);
    assert_int_equal(ibex_dt_get(c)->nblocks, 5); /* short, int+short x3, int */
    assert_int_equal(ibex_dt_get(c)->blocks[1].len, 6);
    MPI_Type_free(&s);
    MPI_Type_free(&v);
    MPI_Type_free(&c);
}

static void test_large_contiguous_is_one_block(void **state)
{
    (void)state;
    MPI_Datatype big, v;
    MPI_Count size;
    assert_int_equal(MPI_Type_contiguous(1 << 30, MPI_BYTE, &big), MPI_SUCCESS);
    assert_int_equal(ibex_dt_get(big)->nblocks, 1);
    assert_true(ibex_dt_get(big)->contiguous);
    assert_int_equal(MPI_Type_contiguous(8, big, &v), MPI_SUCCESS);
    assert_int_equal(MPI_Type_size_x(v, &size), MPI_SUCCESS);
    assert_true(size == 8LL << 30);
    int isize;
    assert_int_equal(MPI_Type_size(v, &isize), MPI_SUCCESS);
    assert_int_equal(isize, MPI_UNDEFINED);
    MPI_Type_free(&big);
    MPI_Type_free(&v);
}

static void test_errors(void **state)
{
    (void)state;
    MPI_Datatype t = MPI_INT, nt;
    int size, lens[] = {1, -1}, disps[] = {0, 1};
    MPI_Status st = {0};
    assert_mpi_err(MPI_ERR_TYPE, MPI_Type_free(&t));
    assert_int_equal(t, MPI_INT);
    t = MPI_DATATYPE_NULL;
    assert_mpi_err(MPI_ERR_TYPE, MPI_Type_free(&t));
    assert_mpi_err(MPI_ERR_TYPE, MPI_Type_size(12345, &size));
    assert_mpi_err(MPI_ERR_TYPE, MPI_Type_size(IBEX_DT(IBEX_DT_PREDEFINED_COUNT + 500), &size));
    assert_mpi_err(MPI_ERR_TYPE, MPI_Type_size(MPI_COMM_WORLD, &size));
    assert_mpi_err(MPI_ERR_TYPE, MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &nt));
    assert_mpi_err(MPI_ERR_COUNT, MPI_Type_contiguous(-1, MPI_INT, &nt));
    assert_mpi_err(MPI_ERR_COUNT, MPI_Type_vector(-3, 1, 1, MPI_INT, &nt));
    assert_mpi_err(MPI_ERR_ARG, MPI_Type_vector(3, -1, 1, MPI_INT, &nt));
    assert_mpi_err(MPI_ERR_ARG, MPI_Type_indexed(2, lens, disps, MPI_INT, &nt));
    assert_mpi_err(MPI_ERR_ARG, MPI_Type_indexed(2, NULL, disps, MPI_INT, &nt));
    assert_mpi_err(MPI_ERR_ARG, MPI_Type_contiguous(2, MPI_INT, NULL));
    assert_mpi_err(MPI_ERR_ARG, MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &size));
    assert_mpi_err(MPI_ERR_TYPE, MPI_Get_count(&st, MPI_DATATYPE_NULL, &size));
    assert_mpi_err(MPI_ERR_COUNT, MPI_Status_set_elements(&st, MPI_INT, -2));
    /* A freed handle is dead. */
    assert_int_equal(MPI_Type_contiguous(2, MPI_INT, &nt), MPI_SUCCESS);
    t = nt;
    assert_int_equal(MPI_Type_free(&nt), MPI_SUCCESS);
    assert_mpi_err(MPI_ERR_TYPE, MPI_Type_size(t, &size));
    assert_mpi_err(MPI_ERR_TYPE, MPI_Type_free(&t));
}

/* Before ibex_dt_init nothing is a datatype, and a lookup fails cleanly. */
static void test_before_init(void **state)
{
    (void)state;
    int size;
    assert_mpi_err(MPI_ERR_TYPE, MPI_Type_size(MPI_INT, &size));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_before_init),
        T(test_predefined_table),
        T(test_pair_layout),
        T(test_extents_vector_indexed),
        T(test_extents_struct_padding),
        T(test_extents_resized),
        T(test_zero_count_types),
        T(test_get_count_elements),
        T(test_names),
        T(test_commit_dup_free),
        T(test_unfreed_at_fini),
        T(test_blocks_merge),
        T(test_large_contiguous_is_one_block),
        T(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
