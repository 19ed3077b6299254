/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reduction operations. The predefined ops are generated from two X-macro lists: the types of
 * each group of the MPI standard's table (C integer, Fortran integer, floating point, complex,
 * logical, byte, multi-language, pairs) and the ops with the groups they are defined on. One
 * loop per (op, type) fills a constant table indexed by the handles' indexes, so applying an op
 * is one lookup and one tight loop; a missing entry is MPI_ERR_OP.
 *
 * A derived type applies the op of the predefined type it is built of (its op_type): blockwise
 * when that type has no padding, through pack / unpack into an array of it otherwise
 * (MPI_DOUBLE_INT and the other padded pairs).
 */
#include <complex.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dt_priv.h"
#include "ibex_handle.h"
#include "ibex_log.h"
#include "ibex_runtime.h"
#include "op_priv.h"

/* Type groups: X(op, name without MPI_, C type). */
#define OPT_C_INT(X, op)                                                                           \
    X(op, SIGNED_CHAR, signed char)                                                                \
    X(op, UNSIGNED_CHAR, unsigned char)                                                            \
    X(op, SHORT, short)                                                                            \
    X(op, UNSIGNED_SHORT, unsigned short)                                                          \
    X(op, INT, int)                                                                                \
    X(op, UNSIGNED, unsigned)                                                                      \
    X(op, LONG, long)                                                                              \
    X(op, UNSIGNED_LONG, unsigned long)                                                            \
    X(op, LONG_LONG_INT, long long)                                                                \
    X(op, UNSIGNED_LONG_LONG, unsigned long long)                                                  \
    X(op, INT8_T, int8_t)                                                                          \
    X(op, INT16_T, int16_t)                                                                        \
    X(op, INT32_T, int32_t)                                                                        \
    X(op, INT64_T, int64_t)                                                                        \
    X(op, UINT8_T, uint8_t)                                                                        \
    X(op, UINT16_T, uint16_t)                                                                      \
    X(op, UINT32_T, uint32_t)                                                                      \
    X(op, UINT64_T, uint64_t)
#define OPT_F_INT(X, op)                                                                           \
    X(op, INTEGER, int32_t)                                                                        \
    X(op, INTEGER1, int8_t)                                                                        \
    X(op, INTEGER2, int16_t)                                                                       \
    X(op, INTEGER4, int32_t)                                                                       \
    X(op, INTEGER8, int64_t)
#define OPT_MULTI(X, op)                                                                           \
    X(op, AINT, MPI_Aint)                                                                          \
    X(op, OFFSET, MPI_Offset)                                                                      \
    X(op, COUNT, MPI_Count)
#define OPT_FLOAT(X, op)                                                                           \
    X(op, FLOAT, float)                                                                            \
    X(op, DOUBLE, double)                                                                          \
    X(op, LONG_DOUBLE, long double)                                                                \
    X(op, REAL, float)                                                                             \
    X(op, DOUBLE_PRECISION, double)                                                                \
    X(op, REAL4, float)                                                                            \
    X(op, REAL8, double)
#define OPT_COMPLEX(X, op)                                                                         \
    X(op, C_FLOAT_COMPLEX, float _Complex)                                                         \
    X(op, C_DOUBLE_COMPLEX, double _Complex)                                                       \
    X(op, C_LONG_DOUBLE_COMPLEX, long double _Complex)                                             \
    X(op, CXX_FLOAT_COMPLEX, float _Complex)                                                       \
    X(op, CXX_DOUBLE_COMPLEX, double _Complex)                                                     \
    X(op, CXX_LONG_DOUBLE_COMPLEX, long double _Complex)                                           \
    X(op, COMPLEX, float _Complex)                                                                 \
    X(op, DOUBLE_COMPLEX, double _Complex)                                                         \
    X(op, COMPLEX8, float _Complex)                                                                \
    X(op, COMPLEX16, double _Complex)
#define OPT_LOGICAL(X, op)                                                                         \
    X(op, C_BOOL, _Bool)                                                                           \
    X(op, CXX_BOOL, _Bool)                                                                         \
    X(op, LOGICAL, int32_t)
#define OPT_BYTE(X, op) X(op, BYTE, unsigned char)
/* Pairs: X(op, name, value type, index type). */
#define OPT_PAIR(X, op)                                                                            \
    X(op, FLOAT_INT, float, int)                                                                   \
    X(op, DOUBLE_INT, double, int)                                                                 \
    X(op, LONG_INT, long, int)                                                                     \
    X(op, 2INT, int, int)                                                                          \
    X(op, SHORT_INT, short, int)                                                                   \
    X(op, LONG_DOUBLE_INT, long double, int)                                                       \
    X(op, 2INTEGER, int32_t, int32_t)                                                              \
    X(op, 2REAL, float, float)                                                                     \
    X(op, 2DOUBLE_PRECISION, double, double)

/* MPI_CHAR is for characters and not in MPI's C integer group, but Open MPI and MPICH reduce it
 * with every op of that group, and OSU's reduction benchmarks use it by default (osu_allreduce,
 * osu_reduce, osu_iallreduce ... without -T): an extension, computed as the C char it is (as
 * one-sided accumulates already do, runtime/win/win_rma.c). */
#define OPT_CHAR_EXT(X, op) X(op, CHAR, char)

/* MPI_AINT, MPI_OFFSET and MPI_COUNT are integers, but MPI's table leaves the multi-language
 * group out of LAND / LOR / LXOR; Open MPI and MPICH reduce them logically too, and MPICH's
 * coll/allred checks that it works: an extension, as for MPI_CHAR. */
#define OPT_MULTI_LOGIC_EXT(X, op) OPT_MULTI(X, op)

/* The groups each op is defined on (MPI 4.0, section 6.9.2), plus the extensions above. */
#define MINMAX_TYPES(X, op)                                                                        \
    OPT_C_INT(X, op) OPT_F_INT(X, op) OPT_FLOAT(X, op) OPT_MULTI(X, op) OPT_CHAR_EXT(X, op)
#define SUM_TYPES(X, op) MINMAX_TYPES(X, op) OPT_COMPLEX(X, op)
#define LOGIC_TYPES(X, op)                                                                         \
    OPT_C_INT(X, op) OPT_LOGICAL(X, op) OPT_CHAR_EXT(X, op) OPT_MULTI_LOGIC_EXT(X, op)
#define BIT_TYPES(X, op)                                                                           \
    OPT_C_INT(X, op) OPT_F_INT(X, op) OPT_BYTE(X, op) OPT_MULTI(X, op) OPT_CHAR_EXT(X, op)

/* X(op, MPI op name without MPI_, type groups) */
#define OP_LIST(X)                                                                                 \
    X(max, MAX, MINMAX_TYPES)                                                                      \
    X(min, MIN, MINMAX_TYPES)                                                                      \
    X(sum, SUM, SUM_TYPES)                                                                         \
    X(prod, PROD, SUM_TYPES)                                                                       \
    X(land, LAND, LOGIC_TYPES)                                                                     \
    X(lor, LOR, LOGIC_TYPES)                                                                       \
    X(lxor, LXOR, LOGIC_TYPES)                                                                     \
    X(band, BAND, BIT_TYPES)                                                                       \
    X(bor, BOR, BIT_TYPES)                                                                         \
    X(bxor, BXOR, BIT_TYPES)
#define LOC_LIST(X)                                                                                \
    X(minloc, MINLOC, OPT_PAIR)                                                                    \
    X(maxloc, MAXLOC, OPT_PAIR)

/* inout = in op inout, elementwise: x is in, y is inout. */
#define OPX_max(x, y)  ((x) > (y) ? (x) : (y))
#define OPX_min(x, y)  ((x) < (y) ? (x) : (y))
#define OPX_sum(x, y)  ((x) + (y))
#define OPX_prod(x, y) ((x) * (y))
#define OPX_land(x, y) ((x) && (y))
#define OPX_lor(x, y)  ((x) || (y))
#define OPX_lxor(x, y) (!(x) != !(y))
#define OPX_band(x, y) ((x) & (y))
#define OPX_bor(x, y)  ((x) | (y))
#define OPX_bxor(x, y) ((x) ^ (y))
/* Whether in's value wins; on equal values the lower index wins (MPI's tie rule). */
#define LOCX_minloc(x, y) ((x) < (y))
#define LOCX_maxloc(x, y) ((x) > (y))

typedef ibex_op_fn_t op_fn_t;

#define OP_ENUM(op, NAME, TYPES) OPI_##op = IBEX_HANDLE_INDEX(MPI_##NAME),
enum { OP_LIST(OP_ENUM) LOC_LIST(OP_ENUM) };
#undef OP_ENUM

#define DEFINE_OP_FN(op, name, T)                                                                  \
    static void op_##op##_##name(const void *in, void *inout, size_t n)                            \
    {                                                                                              \
        const T *x = in;                                                                           \
        T *y = inout;                                                                              \
        for (size_t i = 0; i < n; i++)                                                             \
            y[i] = OPX_##op(x[i], y[i]);                                                           \
    }
#define DEFINE_LOC_FN(op, name, A, B)                                                              \
    static void op_##op##_##name(const void *in, void *inout, size_t n)                            \
    {                                                                                              \
        const struct {                                                                             \
            A v;                                                                                   \
            B i;                                                                                   \
        } *x = in;                                                                                 \
        struct {                                                                                   \
            A v;                                                                                   \
            B i;                                                                                   \
        } *y = inout;                                                                              \
        /* Field by field: the last element's padding (DOUBLE_INT: 4 bytes) may lie past a         \
         * buffer sized by the true extent, as collectives' temporaries are. */                    \
        for (size_t k = 0; k < n; k++) {                                                           \
            if (LOCX_##op(x[k].v, y[k].v) || (x[k].v == y[k].v && x[k].i < y[k].i)) {              \
                y[k].v = x[k].v;                                                                   \
                y[k].i = x[k].i;                                                                   \
            }                                                                                      \
        }                                                                                          \
    }
#define GEN_FNS(op, NAME, TYPES)     TYPES(DEFINE_OP_FN, op)
#define GEN_LOC_FNS(op, NAME, TYPES) TYPES(DEFINE_LOC_FN, op)
/* The elementwise loops vectorised (gcc's -O2 leaves them scalar: one element per add); each
 * element is still combined alone, in the same order, so results are bitwise those of -O2. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("O3")
#endif
OP_LIST(GEN_FNS)
LOC_LIST(GEN_LOC_FNS)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

#define REG_FN(op, name, ...)   [OPI_##op][IBEX_HANDLE_INDEX(MPI_##name)] = op_##op##_##name,
#define REG_OP(op, NAME, TYPES) TYPES(REG_FN, op)
static op_fn_t *const op_fns[IBEX_OP_PREDEFINED_COUNT][IBEX_DT_PREDEFINED_COUNT] = {
    OP_LIST(REG_OP) LOC_LIST(REG_OP)};

static ibex_op_t op_predef[IBEX_OP_PREDEFINED_COUNT];
static ibex_handle_table_t op_table;

ibex_op_t *ibex_op_get(MPI_Op handle)
{
    return ibex_handle_get(&op_table, handle);
}

ibex_status_t ibex_op_init(void)
{
    ibex_handle_table_init(&op_table, IBEX_KIND_OP, IBEX_OP_PREDEFINED_COUNT);
    /* Index 0 is MPI_OP_NULL and stays empty. */
    for (int i = 1; i < IBEX_OP_PREDEFINED_COUNT; i++) {
        op_predef[i] = (ibex_op_t){.handle = IBEX_HANDLE_MAKE(IBEX_KIND_OP, i),
                                   .refcount = 1,
                                   .commutative = true,
                                   .predefined = true};
        ibex_handle_set(&op_table, i, &op_predef[i]);
    }
    return IBEX_OK;
}

void ibex_op_fini(void)
{
    for (int i = IBEX_OP_PREDEFINED_COUNT; i < op_table.capacity; i++)
        free(ibex_handle_at(&op_table, i));
    ibex_handle_table_fini(&op_table);
}

ibex_op_t *ibex_op_create(MPI_User_function *fn, bool commutative)
{
    ibex_op_t *op = calloc(1, sizeof(*op));
    if (!op)
        return NULL;
    *op = (ibex_op_t){.refcount = 1, .commutative = commutative, .user_fn = fn};
    op->handle = ibex_handle_alloc(&op_table, op);
    if (op->handle < 0) {
        free(op);
        return NULL;
    }
    return op;
}

void ibex_op_retain(ibex_op_t *op)
{
    if (!op->predefined)
        op->refcount++;
}

void ibex_op_release(ibex_op_t *op)
{
    if (!op->predefined && --op->refcount == 0)
        free(op);
}

void ibex_op_free(ibex_op_t *op)
{
    if (op->predefined)
        return;
    ibex_handle_release(&op_table, op->handle);
    op->handle = MPI_OP_NULL;
    ibex_op_release(op);
}

/* MPI_REPLACE: inout takes in's data, in the type's layout. */
static void op_replace(const void *in, void *inout, int count, const ibex_dt_t *dt)
{
    if (ibex_dt_is_contig(dt, count)) {
        memcpy(ibex_dt_addr(inout, dt->true_lb), ibex_dt_addr(in, dt->true_lb),
               (size_t)count * dt->size);
        return;
    }
    for (int i = 0; i < count; i++) {
        ptrdiff_t base = (ptrdiff_t)i * dt->extent;
        for (int b = 0; b < dt->nblocks; b++) {
            ptrdiff_t d = base + dt->blocks[b].disp;
            memcpy(ibex_dt_addr(inout, d), ibex_dt_addr(in, d), dt->blocks[b].len);
        }
    }
}

/* Blocks of a type built of a padding-free unit hold whole units: apply block by block. */
static void op_apply_blocks(op_fn_t *fn, const void *in, void *inout, int count,
                            const ibex_dt_t *dt, size_t unit)
{
    if (ibex_dt_is_contig(dt, count)) {
        fn(ibex_dt_addr(in, dt->true_lb), ibex_dt_addr(inout, dt->true_lb),
           (size_t)count * dt->size / unit);
        return;
    }
    for (int i = 0; i < count; i++) {
        ptrdiff_t base = (ptrdiff_t)i * dt->extent;
        for (int b = 0; b < dt->nblocks; b++) {
            ptrdiff_t d = base + dt->blocks[b].disp;
            fn(ibex_dt_addr(in, d), ibex_dt_addr(inout, d), dt->blocks[b].len / unit);
        }
    }
}

/* Units with padding (MPI_DOUBLE_INT...) are split over blocks: gather both operands into
 * arrays of the unit through the packed form, reduce, and scatter the result back. */
static int op_apply_gather(op_fn_t *fn, const void *in, void *inout, int count, const ibex_dt_t *dt,
                           const ibex_dt_t *unit)
{
    size_t bytes = (size_t)count * dt->size, n = bytes / unit->size;
    size_t arr = n * (size_t)unit->extent;
    char *packed = malloc(bytes), *x = malloc(arr), *y = malloc(arr);
    int rc = MPI_ERR_NO_MEM;
    if (!packed || !x || !y)
        goto out;
    ibex_dt_pack(in, count, dt, 0, packed, bytes);
    ibex_dt_unpack(x, (int)n, unit, 0, packed, bytes);
    ibex_dt_pack(inout, count, dt, 0, packed, bytes);
    ibex_dt_unpack(y, (int)n, unit, 0, packed, bytes);
    fn(x, y, n);
    ibex_dt_pack(y, (int)n, unit, 0, packed, bytes);
    ibex_dt_unpack(inout, count, dt, 0, packed, bytes);
    rc = MPI_SUCCESS;
out:
    free(packed);
    free(x);
    free(y);
    return rc;
}

void ibex_op_unwrap_type(MPI_Datatype contiguous)
{
    ibex_dt_t *dt = ibex_dt_get(contiguous);
    ibex_dt_priv_t *p = dt ? ibex_dt_priv(dt) : NULL;
    if (p && p->combiner == IBEX_DT_COMBINER_CONTIGUOUS && p->contents && p->contents->nc == 1)
        p->op_unwrap = true;
}

/* The program's function on count elements of dt (handle h): once for an MPI_User_function_c,
 * in pieces of at most INT_MAX elements, each at its place, for an MPI_User_function. */
static void user_call(const ibex_op_t *op, const void *in, void *inout, MPI_Count count,
                      const ibex_dt_t *dt, MPI_Datatype h)
{
    if (op->user_fn_c) {
        op->user_fn_c((void *)in, inout, &count, &h);
        return;
    }
    MPI_Count at = 0;
    do { /* count 0: one call, as before */
        int n = count - at < INT_MAX ? (int)(count - at) : INT_MAX;
        ptrdiff_t d = dt ? (ptrdiff_t)at * dt->extent : 0;
        op->user_fn(ibex_dt_addr(in, d), ibex_dt_addr(inout, d), &n, &h);
        at += n;
    } while (at < count);
}

/* A user op; a marked wrapping type is its count elements of its member type. */
static int user_apply(const ibex_op_t *op, const void *in, void *inout, MPI_Count count,
                      const ibex_dt_t *dt, MPI_Datatype h)
{
    if (dt && ibex_dt_priv(dt)->op_unwrap) {
        const ibex_dt_contents_t *c = ibex_dt_priv(dt)->contents;
        return user_apply(op, in, inout, count * c->counts[0], c->types[0], c->types[0]->handle);
    }
    user_call(op, in, inout, count, dt, h);
    return MPI_SUCCESS;
}

static int predef_apply(const ibex_op_t *op, const void *in, void *inout, int count,
                        const ibex_dt_t *dt);

int ibex_op_apply_c(const ibex_op_t *op, const void *in, void *inout, MPI_Count count,
                    MPI_Datatype datatype)
{
    const ibex_dt_t *dt = ibex_dt_get(datatype);
    if (!op->predefined)
        return user_apply(op, in, inout, count, dt, datatype);
    if (!dt)
        return MPI_ERR_TYPE;
    MPI_Count at = 0;
    do { /* count 0: one call, as the int form makes */
        MPI_Count n = count - at < INT_MAX ? count - at : INT_MAX;
        ptrdiff_t d = (ptrdiff_t)at * dt->extent;
        int rc = predef_apply(op, ibex_dt_addr(in, d), ibex_dt_addr(inout, d), (int)n, dt);
        if (rc != MPI_SUCCESS)
            return rc;
        at += n;
    } while (at < count);
    return MPI_SUCCESS;
}

int ibex_op_apply(const ibex_op_t *op, const void *in, void *inout, int count,
                  MPI_Datatype datatype)
{
    const ibex_dt_t *dt = ibex_dt_get(datatype);
    if (!op->predefined)
        return user_apply(op, in, inout, count, dt, datatype);
    return dt ? predef_apply(op, in, inout, count, dt) : MPI_ERR_TYPE;
}

int ibex_op_apply_dt(const ibex_op_t *op, const void *in, void *inout, int count,
                     const ibex_dt_t *dt)
{
    if (!op->predefined)
        return user_apply(op, in, inout, count, dt, dt->handle);
    return predef_apply(op, in, inout, count, dt);
}

bool ibex_op_defined_on(const ibex_op_t *op, const ibex_dt_t *dt)
{
    if (!op->predefined || op->handle == MPI_NO_OP || op->handle == MPI_REPLACE)
        return true;
    int t = ibex_dt_priv(dt)->op_type;
    return t >= 0 && op_fns[IBEX_HANDLE_INDEX(op->handle)][IBEX_HANDLE_INDEX(t)] != NULL;
}

ibex_op_fn_t *ibex_op_fn_of(const ibex_op_t *op, const ibex_dt_t *dt)
{
    if (!op->predefined || !dt->predefined || op->handle == MPI_NO_OP || op->handle == MPI_REPLACE)
        return NULL;
    int t = ibex_dt_priv(dt)->op_type;
    return t >= 0 ? op_fns[IBEX_HANDLE_INDEX(op->handle)][IBEX_HANDLE_INDEX(t)] : NULL;
}

static int predef_apply(const ibex_op_t *op, const void *in, void *inout, int count,
                        const ibex_dt_t *dt)
{
    int opi = IBEX_HANDLE_INDEX(op->handle);
    if (op->handle == MPI_NO_OP)
        return MPI_SUCCESS;
    if (op->handle == MPI_REPLACE) {
        if (count > 0)
            op_replace(in, inout, count, dt);
        return MPI_SUCCESS;
    }
    int t = ibex_dt_priv(dt)->op_type;
    op_fn_t *fn = t < 0 ? NULL : op_fns[opi][IBEX_HANDLE_INDEX(t)];
    if (!fn)
        return MPI_ERR_OP;
    if (count <= 0)
        return MPI_SUCCESS;
    if (dt->predefined) {
        fn(in, inout, (size_t)count);
        return MPI_SUCCESS;
    }
    const ibex_dt_t *unit = ibex_dt_get(t);
    if (unit->contiguous) {
        op_apply_blocks(fn, in, inout, count, dt, unit->size);
        return MPI_SUCCESS;
    }
    return op_apply_gather(fn, in, inout, count, dt, unit);
}
