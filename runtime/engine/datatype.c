/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datatype objects: the predefined table, the handle table, and the life of a type (alloc,
 * register, retain / release, destroy). Constructors are in dt_create.c, packing in dt_pack.c,
 * the MPI entry points in dt_api.c.
 */
#include <complex.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "dt_priv.h"
#include "ibex_handle.h"
#include "ibex_log.h"
#include "ibex_runtime.h"

/* Predefined types of one C type: X(name without MPI_, C type, basic type of its elements).
 * The basic type differs from the name only for aliases that share a representation. */
#define IBEX_DT_SCALAR_LIST(X)                                                                     \
    X(CHAR, char)                                                                                  \
    X(SIGNED_CHAR, signed char)                                                                    \
    X(UNSIGNED_CHAR, unsigned char)                                                                \
    X(BYTE, unsigned char)                                                                         \
    X(WCHAR, wchar_t)                                                                              \
    X(SHORT, short)                                                                                \
    X(UNSIGNED_SHORT, unsigned short)                                                              \
    X(INT, int)                                                                                    \
    X(UNSIGNED, unsigned)                                                                          \
    X(LONG, long)                                                                                  \
    X(UNSIGNED_LONG, unsigned long)                                                                \
    X(LONG_LONG_INT, long long)                                                                    \
    X(UNSIGNED_LONG_LONG, unsigned long long)                                                      \
    X(FLOAT, float)                                                                                \
    X(DOUBLE, double)                                                                              \
    X(LONG_DOUBLE, long double)                                                                    \
    X(INT8_T, int8_t)                                                                              \
    X(INT16_T, int16_t)                                                                            \
    X(INT32_T, int32_t)                                                                            \
    X(INT64_T, int64_t)                                                                            \
    X(UINT8_T, uint8_t)                                                                            \
    X(UINT16_T, uint16_t)                                                                          \
    X(UINT32_T, uint32_t)                                                                          \
    X(UINT64_T, uint64_t)                                                                          \
    X(C_BOOL, _Bool)                                                                               \
    X(C_FLOAT_COMPLEX, float _Complex)                                                             \
    X(C_DOUBLE_COMPLEX, double _Complex)                                                           \
    X(C_LONG_DOUBLE_COMPLEX, long double _Complex)                                                 \
    X(AINT, MPI_Aint)                                                                              \
    X(OFFSET, MPI_Offset)                                                                          \
    X(COUNT, MPI_Count)                                                                            \
    X(PACKED, unsigned char)                                                                       \
    X(CXX_BOOL, _Bool)                                                                             \
    X(CXX_FLOAT_COMPLEX, float _Complex)                                                           \
    X(CXX_DOUBLE_COMPLEX, double _Complex)                                                         \
    X(CXX_LONG_DOUBLE_COMPLEX, long double _Complex)                                               \
    X(CHARACTER, char)                                                                             \
    X(LOGICAL, int32_t)                                                                            \
    X(INTEGER, int32_t)                                                                            \
    X(REAL, float)                                                                                 \
    X(DOUBLE_PRECISION, double)                                                                    \
    X(COMPLEX, float _Complex)                                                                     \
    X(DOUBLE_COMPLEX, double _Complex)                                                             \
    X(INTEGER1, int8_t)                                                                            \
    X(INTEGER2, int16_t)                                                                           \
    X(INTEGER4, int32_t)                                                                           \
    X(INTEGER8, int64_t)                                                                           \
    X(REAL4, float)                                                                                \
    X(REAL8, double)                                                                               \
    X(COMPLEX8, float _Complex)                                                                    \
    X(COMPLEX16, double _Complex)

/* Pair types for MINLOC / MAXLOC: struct {A value; B index} with the C padding.
 * X(name, A, basic type of A, B, basic type of B). */
#define IBEX_DT_PAIR_LIST(X)                                                                       \
    X(FLOAT_INT, float, FLOAT, int, INT)                                                           \
    X(DOUBLE_INT, double, DOUBLE, int, INT)                                                        \
    X(LONG_INT, long, LONG, int, INT)                                                              \
    X(2INT, int, INT, int, INT)                                                                    \
    X(SHORT_INT, short, SHORT, int, INT)                                                           \
    X(LONG_DOUBLE_INT, long double, LONG_DOUBLE, int, INT)                                         \
    X(2INTEGER, int32_t, INTEGER, int32_t, INTEGER)                                                \
    X(2REAL, float, REAL, float, REAL)                                                             \
    X(2DOUBLE_PRECISION, double, DOUBLE_PRECISION, double, DOUBLE_PRECISION)

#define DT_INDEX(name) IBEX_HANDLE_INDEX(MPI_##name)

typedef struct dt_predef {
    ibex_dt_t dt;
    ibex_dt_priv_t priv;
    ibex_dt_block_t blocks[2];
    size_t prefix[3];
    ibex_dt_run_t runs[2];
} dt_predef_t;

static dt_predef_t dt_predef[IBEX_DT_PREDEFINED_COUNT];
ibex_handle_table_t ibex_dt_handles;

static dt_predef_t *predef_begin(int index, const char *name, size_t align)
{
    dt_predef_t *p = &dt_predef[index];
    memset(p, 0, sizeof(*p));
    p->dt.handle = IBEX_DT(index);
    p->dt.refcount = 1;
    p->dt.predefined = true;
    p->dt.committed = true;
    p->dt.blocks = p->blocks;
    p->dt.priv = &p->priv;
    p->priv.prefix = p->prefix;
    p->priv.runs = p->runs;
    p->priv.op_type = IBEX_DT(index);
    p->priv.align = align;
    p->priv.combiner = IBEX_DT_COMBINER_NAMED;
    snprintf(p->dt.name, sizeof(p->dt.name), "MPI_%s", name);
    return p;
}

static void predef_scalar(int index, const char *name, size_t size, size_t align)
{
    dt_predef_t *p = predef_begin(index, name, align);
    p->dt.size = size;
    p->dt.extent = p->dt.true_extent = (ptrdiff_t)size;
    p->dt.contiguous = true;
    p->dt.nblocks = 1;
    p->blocks[0] = (ibex_dt_block_t){0, size};
    p->prefix[1] = size;
    p->dt.basic_type = IBEX_DT(index);
    p->dt.basic_size = size;
    p->runs[0] = (ibex_dt_run_t){1, size};
    p->priv.nruns = 1;
    p->priv.nelems = 1;
}

typedef struct pair_desc {
    size_t a_size, b_off, b_size, extent, align;
    int a_basic, b_basic;
} pair_desc_t;

static void predef_pair(int index, const char *name, const pair_desc_t *d)
{
    dt_predef_t *p = predef_begin(index, name, d->align);
    p->dt.size = d->a_size + d->b_size;
    p->dt.extent = (ptrdiff_t)d->extent;
    p->dt.true_extent = (ptrdiff_t)(d->b_off + d->b_size);
    p->blocks[0] = (ibex_dt_block_t){0, d->a_size};
    p->blocks[1] = (ibex_dt_block_t){(ptrdiff_t)d->b_off, d->b_size};
    p->dt.nblocks = 2;
    if (d->b_off == d->a_size) { /* no padding between the members: one block */
        p->blocks[0].len += d->b_size;
        p->dt.nblocks = 1;
    }
    for (int i = 0; i < p->dt.nblocks; i++)
        p->prefix[i + 1] = p->prefix[i] + p->blocks[i].len;
    p->dt.contiguous = p->dt.nblocks == 1 && p->dt.size == d->extent;
    p->dt.basic_type = d->a_basic == d->b_basic ? d->a_basic : -1;
    p->dt.basic_size = d->a_basic == d->b_basic ? d->a_size : 0;
    p->runs[0] = (ibex_dt_run_t){1, d->a_size};
    p->runs[1] = (ibex_dt_run_t){1, d->b_size};
    p->priv.nruns = 2;
    if (d->a_size == d->b_size) {
        p->runs[0].n = 2;
        p->priv.nruns = 1;
    }
    p->priv.nelems = 2;
    ibex_dt_vec_detect(&p->dt);
}

static void predef_build(void)
{
#define DT_SCALAR(name, T) predef_scalar(DT_INDEX(name), #name, sizeof(T), alignof(T));
    IBEX_DT_SCALAR_LIST(DT_SCALAR)
#undef DT_SCALAR
    /* MPI_C_COMPLEX and MPI_C_FLOAT_COMPLEX are one type; MPI names it by the first. */
    snprintf(dt_predef[DT_INDEX(C_FLOAT_COMPLEX)].dt.name, MPI_MAX_OBJECT_NAME, "MPI_C_COMPLEX");
#define DT_PAIR(name, A, abasic, B, bbasic)                                                        \
    {                                                                                              \
        struct pair {                                                                              \
            A a;                                                                                   \
            B b;                                                                                   \
        };                                                                                         \
        pair_desc_t d = {.a_size = sizeof(A),                                                      \
                         .b_off = offsetof(struct pair, b),                                        \
                         .b_size = sizeof(B),                                                      \
                         .extent = sizeof(struct pair),                                            \
                         .align = alignof(struct pair),                                            \
                         .a_basic = MPI_##abasic,                                                  \
                         .b_basic = MPI_##bbasic};                                                 \
        predef_pair(DT_INDEX(name), #name, &d);                                                    \
    }
    IBEX_DT_PAIR_LIST(DT_PAIR)
#undef DT_PAIR
}

ibex_status_t ibex_dt_init(void)
{
    ibex_handle_table_init(&ibex_dt_handles, IBEX_KIND_DATATYPE, IBEX_DT_PREDEFINED_COUNT);
    predef_build();
    /* Index 0 is MPI_DATATYPE_NULL: left empty so that looking it up fails. */
    for (int i = 1; i < IBEX_DT_PREDEFINED_COUNT; i++)
        ibex_handle_set(&ibex_dt_handles, i, &dt_predef[i].dt);
    return IBEX_OK;
}

void ibex_dt_fini(void)
{
    /* Types the program never freed die with the table; nothing can use them after Finalize.
     * The table's reference is dropped, not the type destroyed: a type another one was built
     * from is also held by that one's construction record, and goes with the last holder. */
    for (int i = IBEX_DT_PREDEFINED_COUNT; i < ibex_dt_handles.capacity; i++) {
        if (ibex_handle_at(&ibex_dt_handles, i))
            ibex_dt_release(ibex_handle_at(&ibex_dt_handles, i));
    }
    ibex_handle_table_fini(&ibex_dt_handles);
}

ibex_dt_t *ibex_dt_alloc(void)
{
    ibex_dt_t *dt = calloc(1, sizeof(*dt) + sizeof(ibex_dt_priv_t));
    if (!dt)
        return NULL;
    dt->priv = dt + 1;
    dt->refcount = 1;
    dt->handle = MPI_DATATYPE_NULL;
    dt->basic_type = -1;
    ibex_dt_priv(dt)->op_type = -1;
    return dt;
}

static void dt_contents_free(ibex_dt_contents_t *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->nd; i++)
        ibex_dt_release(c->types[i]);
    free(c);
}

bool ibex_dt_contents_set(ibex_dt_t *dt, const int *ints, int ni, const MPI_Aint *aints, int na,
                          ibex_dt_t *const *types, int nd)
{
    ibex_dt_args_t a = {ints, ni, aints, na, NULL, 0};
    return ibex_dt_contents_set_args(dt, &a, types, nd);
}

bool ibex_dt_contents_set_args(ibex_dt_t *dt, const ibex_dt_args_t *a, ibex_dt_t *const *types,
                               int nd)
{
    /* one allocation: the record, then the addresses, the large counts, the type pointers and
     * the ints (in falling alignment) */
    size_t bytes = sizeof(ibex_dt_contents_t) + (size_t)a->na * sizeof(MPI_Aint) +
                   (size_t)a->nc * sizeof(MPI_Count) + (size_t)nd * sizeof(ibex_dt_t *) +
                   (size_t)a->ni * sizeof(int);
    ibex_dt_contents_t *c = malloc(bytes);
    if (!c)
        return false;
    c->ni = a->ni, c->na = a->na, c->nd = nd, c->nc = a->nc;
    c->aints = (MPI_Aint *)(c + 1);
    c->counts = (MPI_Count *)(c->aints + a->na);
    c->types = (ibex_dt_t **)(c->counts + a->nc);
    c->ints = (int *)(c->types + nd);
    if (a->na > 0)
        memcpy(c->aints, a->aints, (size_t)a->na * sizeof(MPI_Aint));
    if (a->nc > 0)
        memcpy(c->counts, a->counts, (size_t)a->nc * sizeof(MPI_Count));
    if (a->ni > 0)
        memcpy(c->ints, a->ints, (size_t)a->ni * sizeof(int));
    for (int i = 0; i < nd; i++) {
        c->types[i] = types[i];
        ibex_dt_retain(types[i]);
    }
    dt_contents_free(ibex_dt_priv(dt)->contents);
    ibex_dt_priv(dt)->contents = c;
    return true;
}

void ibex_dt_destroy(ibex_dt_t *dt)
{
    if (!dt || dt->predefined)
        return;
    ibex_dt_priv_t *priv = ibex_dt_priv(dt);
    dt_contents_free(priv->contents);
    free(priv->prefix);
    free(priv->runs);
    free(dt->blocks);
    free(dt);
}

bool ibex_dt_prefix_build(ibex_dt_t *dt)
{
    ibex_dt_priv_t *priv = ibex_dt_priv(dt);
    size_t *prefix = malloc(((size_t)dt->nblocks + 1) * sizeof(*prefix));
    if (!prefix)
        return false;
    prefix[0] = 0;
    for (int i = 0; i < dt->nblocks; i++)
        prefix[i + 1] = prefix[i] + dt->blocks[i].len;
    free(priv->prefix);
    priv->prefix = prefix;
    ibex_dt_vec_detect(dt);
    return true;
}

int ibex_dt_register(ibex_dt_t *dt)
{
    int handle = ibex_handle_alloc(&ibex_dt_handles, dt);
    if (handle >= 0)
        dt->handle = handle;
    return handle;
}

void ibex_dt_unregister(ibex_dt_t *dt)
{
    if (dt->predefined || dt->handle == MPI_DATATYPE_NULL)
        return;
    ibex_handle_release(&ibex_dt_handles, dt->handle);
    dt->handle = MPI_DATATYPE_NULL;
}

void ibex_dt_retain(ibex_dt_t *dt)
{
    if (!dt->predefined)
        dt->refcount++;
}

void ibex_dt_release(ibex_dt_t *dt)
{
    if (dt->predefined)
        return;
    ibex_assert(dt->refcount > 0);
    if (--dt->refcount == 0)
        ibex_dt_destroy(dt);
}

int ibex_dt_op_type(const ibex_dt_t *dt)
{
    return ibex_dt_priv(dt)->op_type;
}
