/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The datatype constructors' entry points: MPI_Type_contiguous ... MPI_Type_dup. Each checks its
 * arguments, then describes the new type to the builder (runtime/engine/dt_build.c) as members
 * "count copies of oldtype at byte displacement disp".
 * The datatype and op calls enter with IBEX_ENTER_ANYTIME: they never checked that MPI is
 * running (before MPI_Init no handle is valid, so they fail on the handle) and their unit tests
 * (tests/runtime/engine) call them without MPI_Init.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dt_priv.h"
#include "ibex_attr.h"
#include "ibex_dt_api.h"
#include "ibex_err.h"
#include "ibex_log.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

/* Argument checks shared by every constructor; on success *b holds a fresh type. */
static int create_begin(const char *call, MPI_Count count, MPI_Datatype *newtype,
                        ibex_dt_build_t *b)
{
    memset(b, 0, sizeof(*b));
    if (count < 0)
        return ibex_mpi_error(NULL, MPI_ERR_COUNT, call, "negative count %lld", (long long)count);
    if (!newtype)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "newtype is NULL");
    b->dt = ibex_dt_alloc();
    if (!b->dt)
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory for a datatype");
    return MPI_SUCCESS;
}

static int create_end(const char *call, ibex_dt_build_t *b, int combiner, bool pad,
                      MPI_Datatype *out)
{
    int rc = ibex_dt_build_finish(b, pad);
    if (rc != MPI_SUCCESS)
        goto err_destroy;
    ibex_dt_priv(b->dt)->combiner = combiner;
    int handle = ibex_dt_register(b->dt);
    if (handle < 0) {
        rc = MPI_ERR_NO_MEM;
        goto err_destroy;
    }
    *out = handle;
    return MPI_SUCCESS;
err_destroy:
    ibex_dt_destroy(b->dt);
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION)
        return ibex_mpi_error(NULL, rc, call,
                              "a datatype of more than %zu separate blocks is not supported "
                              "(Ibex keeps types flattened)",
                              IBEX_DT_MAX_BLOCKS);
    return ibex_mpi_error(NULL, rc, call, "%s",
                          rc == MPI_ERR_ARG ? "datatype size overflows"
                                            : "out of memory for a datatype");
}

static int create_fail(ibex_dt_build_t *b, int rc)
{
    ibex_dt_destroy(b->dt);
    return rc;
}

/* Keeps the constructor's arguments on the new type *out (for Type_get_contents); on failure
 * the type goes and *out is reset. */
static int record_args(const char *call, MPI_Datatype *out, const ibex_dt_args_t *a,
                       const MPI_Datatype *types, int nd)
{
    ibex_dt_t *dt = ibex_dt_get(*out), *tv[nd > 0 ? nd : 1];
    for (int i = 0; i < nd; i++)
        tv[i] = ibex_dt_get(types[i]);
    if (ibex_dt_contents_set_args(dt, a, tv, nd))
        return MPI_SUCCESS;
    ibex_dt_unregister(dt);
    ibex_dt_release(dt);
    *out = MPI_DATATYPE_NULL;
    return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory for a datatype");
}

static int record(const char *call, MPI_Datatype *out, const int *ints, int ni,
                  const MPI_Aint *aints, int na, const MPI_Datatype *types, int nd)
{
    ibex_dt_args_t a = {ints, ni, aints, na, NULL, 0};
    return record_args(call, out, &a, types, nd);
}

/* A _c constructor's record: its count arguments as large counts. */
static int record_large(const char *call, MPI_Datatype *out, const MPI_Count *counts, int nc,
                        const MPI_Datatype *types, int nd)
{
    ibex_dt_args_t a = {NULL, 0, NULL, 0, counts, nc};
    return record_args(call, out, &a, types, nd);
}

static int check_blocklen(const char *call, MPI_Count len)
{
    if (len < 0)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "negative blocklength %lld", (long long)len);
    return MPI_SUCCESS;
}

static int check_array(const char *call, MPI_Count count, const void *arr, const char *what)
{
    if (count > 0 && !arr)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "%s is NULL", what);
    return MPI_SUCCESS;
}

/* A record too long for an int count of entries (Type_get_envelope counts in int). */
static int check_record(const char *call, MPI_Count entries)
{
    if (entries > INT_MAX)
        return ibex_mpi_error(NULL, MPI_ERR_COUNT, call,
                              "%lld blocks: more than a datatype's record holds",
                              (long long)entries);
    return MPI_SUCCESS;
}

int ibex_dt_create_contiguous(const char *call, MPI_Count count, MPI_Datatype oldtype, bool large,
                              MPI_Datatype *newtype)
{
    ibex_dt_t *old = NULL;
    ibex_dt_build_t b;
    int rc = create_begin(call, count, newtype, &b);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = ibex_dt_lookup(oldtype, call, false, &old)) != MPI_SUCCESS)
        return create_fail(&b, rc);
    ibex_dt_build_add(&b, old, 0, (size_t)count);
    IBEX_CHECK(create_end(call, &b, IBEX_DT_COMBINER_CONTIGUOUS, false, newtype));
    if (large)
        return record_large(call, newtype, &count, 1, &oldtype, 1);
    int n = (int)count;
    return record(call, newtype, &n, 1, NULL, 0, &oldtype, 1);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_contiguous);
    return ibex_dt_create_contiguous(call, count, oldtype, false, newtype);
}

/* The record of a vector / hvector: ints (and the byte stride as an address) or, for the _c
 * forms, three large counts. */
static int record_hvector(const char *call, const ibex_dt_hvector_t *v, MPI_Datatype oldtype,
                          MPI_Datatype *newtype)
{
    bool vec = v->combiner == IBEX_DT_COMBINER_VECTOR;
    MPI_Count counts[3] = {v->count, v->blocklength, v->stride};
    if (v->large)
        return record_large(call, newtype, counts, 3, &oldtype, 1);
    int ints[3] = {(int)v->count, (int)v->blocklength, (int)v->stride};
    MPI_Aint given = (MPI_Aint)v->stride;
    return record(call, newtype, ints, vec ? 3 : 2, &given, vec ? 0 : 1, &oldtype, 1);
}

/* Whether a vector's flattened blocks are sure to pass IBEX_DT_MAX_BLOCKS: refused before
 * building any (copies of a dense old type merge within a block, blocks apart do not). */
static bool vector_too_many_blocks(const ibex_dt_hvector_t *v, const ibex_dt_t *old,
                                   ptrdiff_t stride)
{
    bool dense = old->nblocks == 1 && (ptrdiff_t)old->blocks[0].len == old->extent;
    MPI_Count per = dense ? 1 : v->blocklength * (MPI_Count)old->nblocks;
    if (old->size == 0 || v->blocklength == 0 || (dense && stride == v->blocklength * old->extent))
        return false;
    return per > 0 && v->count > (MPI_Count)IBEX_DT_MAX_BLOCKS / per;
}

/* vector (stride in old extents) and hvector (stride in bytes). */
int ibex_dt_create_hvector(const char *call, const ibex_dt_hvector_t *v, MPI_Datatype oldtype,
                           MPI_Datatype *newtype)
{
    ibex_dt_t *old = NULL;
    ibex_dt_build_t b;
    int rc = create_begin(call, v->count, newtype, &b);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = check_blocklen(call, v->blocklength)) != MPI_SUCCESS ||
        (rc = check_record(call, v->count)) != MPI_SUCCESS ||
        (rc = ibex_dt_lookup(oldtype, call, false, &old)) != MPI_SUCCESS)
        return create_fail(&b, rc);
    ptrdiff_t stride = (ptrdiff_t)v->stride;
    if (v->combiner == IBEX_DT_COMBINER_VECTOR)
        stride *= old->extent;
    if (vector_too_many_blocks(v, old, stride))
        b.err = MPI_ERR_UNSUPPORTED_OPERATION; /* create_end reports it */
    for (MPI_Count i = 0; i < v->count && !b.err; i++)
        ibex_dt_build_add(&b, old, (ptrdiff_t)i * stride, (size_t)v->blocklength);
    IBEX_CHECK(create_end(call, &b, v->combiner, false, newtype));
    return record_hvector(call, v, oldtype, newtype);
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_vector);
    ibex_dt_hvector_t v = {count, blocklength, stride, IBEX_DT_COMBINER_VECTOR, false};
    return ibex_dt_create_hvector(call, &v, oldtype, newtype);
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_hvector);
    ibex_dt_hvector_t v = {count, blocklength, stride, IBEX_DT_COMBINER_HVECTOR, false};
    return ibex_dt_create_hvector(call, &v, oldtype, newtype);
}

static MPI_Count len_at(const ibex_dt_indexed_t *a, MPI_Count i)
{
    return a->block ? a->len : a->clens ? a->clens[i] : a->lens[i];
}

static ptrdiff_t disp_at(const ibex_dt_indexed_t *a, MPI_Count i, ptrdiff_t extent)
{
    if (a->adisps)
        return a->adisps[i];
    if (a->cdisps)
        return a->bytes ? (ptrdiff_t)a->cdisps[i] : (ptrdiff_t)a->cdisps[i] * extent;
    return (ptrdiff_t)a->idisps[i] * extent;
}

/* The int arguments of the indexed family: count, then the lengths (or the one length),
 * then the int displacements if any; NULL when out of memory. */
static int *indexed_ints(const ibex_dt_indexed_t *a, int *n_p)
{
    int count = (int)a->count, n = 1 + (a->block ? 1 : count) + (a->idisps ? count : 0), k = 0;
    int *v = malloc((size_t)n * sizeof(int));
    if (!v)
        return NULL;
    v[k++] = count;
    for (int i = 0; i < (a->block ? 1 : count); i++)
        v[k++] = (int)len_at(a, i);
    for (int i = 0; a->idisps && i < count; i++)
        v[k++] = a->idisps[i];
    *n_p = n;
    return v;
}

/* The large counts of an indexed _c form: count, the lengths (or the one length), the
 * displacements; NULL when out of memory. */
static MPI_Count *indexed_counts(const ibex_dt_indexed_t *a, int *n_p)
{
    MPI_Count n = 1 + (a->block ? 1 : a->count) + a->count, k = 0;
    MPI_Count *v = malloc((size_t)n * sizeof(MPI_Count));
    if (!v)
        return NULL;
    v[k++] = a->count;
    for (MPI_Count i = 0; i < (a->block ? 1 : a->count); i++)
        v[k++] = len_at(a, i);
    for (MPI_Count i = 0; i < a->count; i++)
        v[k++] = a->cdisps[i];
    *n_p = (int)n;
    return v;
}

static int record_indexed(const char *call, const ibex_dt_indexed_t *a, const MPI_Datatype *types,
                          int nd, MPI_Datatype *newtype)
{
    int n = 0, rc;
    if (a->large) {
        MPI_Count *counts = indexed_counts(a, &n);
        rc = counts ? record_large(call, newtype, counts, n, types, nd)
                    : ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory");
        free(counts);
    } else {
        int *ints = indexed_ints(a, &n);
        rc = ints ? record(call, newtype, ints, n, a->adisps, a->adisps ? (int)a->count : 0, types,
                           nd)
                  : ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory");
        free(ints);
    }
    if (rc != MPI_SUCCESS && *newtype != MPI_DATATYPE_NULL)
        PMPI_Type_free(newtype);
    return rc;
}

static int indexed_checks(const char *call, const ibex_dt_indexed_t *a, const void *types)
{
    const void *disps = a->idisps   ? (const void *)a->idisps
                        : a->adisps ? (const void *)a->adisps
                                    : (const void *)a->cdisps;
    const void *lens = a->lens ? (const void *)a->lens : (const void *)a->clens;
    int rc;
    if ((rc = check_record(call, 2 * a->count + 2)) != MPI_SUCCESS ||
        (rc = check_array(call, a->count, disps, "array_of_displacements")) != MPI_SUCCESS ||
        (a->block && (rc = check_blocklen(call, a->len)) != MPI_SUCCESS) ||
        (!a->block && (rc = check_array(call, a->count, lens, "array_of_blocklengths"))) ||
        (types && (rc = check_array(call, a->count, types, "array_of_types"))))
        return rc;
    return MPI_SUCCESS;
}

/* The indexed family and struct (types: one per block, or NULL for oldtype everywhere). */
int ibex_dt_create_indexed(const char *call, const ibex_dt_indexed_t *a, MPI_Datatype oldtype,
                           const MPI_Datatype *types, MPI_Datatype *newtype)
{
    ibex_dt_t *old = NULL;
    ibex_dt_build_t b;
    /* A struct has no oldtype, and with count 0 its array_of_types may be NULL. */
    bool per_block = types || a->combiner == IBEX_DT_COMBINER_STRUCT;
    int rc = create_begin(call, a->count, newtype, &b);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = indexed_checks(call, a, types)) != MPI_SUCCESS ||
        (!per_block && (rc = ibex_dt_lookup(oldtype, call, false, &old)) != MPI_SUCCESS))
        return create_fail(&b, rc);
    for (MPI_Count i = 0; i < a->count && !b.err; i++) {
        MPI_Count len = len_at(a, i);
        if ((rc = check_blocklen(call, len)) != MPI_SUCCESS ||
            (types && (rc = ibex_dt_lookup(types[i], call, false, &old)) != MPI_SUCCESS))
            return create_fail(&b, rc);
        ibex_dt_build_add(&b, old, disp_at(a, i, old->extent), (size_t)len);
    }
    IBEX_CHECK(create_end(call, &b, a->combiner, per_block, newtype));
    return per_block ? record_indexed(call, a, types, (int)a->count, newtype)
                     : record_indexed(call, a, &oldtype, 1, newtype);
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_indexed);
    ibex_dt_indexed_t a = {.count = count,
                           .lens = array_of_blocklengths,
                           .idisps = array_of_displacements,
                           .combiner = IBEX_DT_COMBINER_INDEXED};
    return ibex_dt_create_indexed(call, &a, oldtype, NULL, newtype);
}

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_hindexed);
    ibex_dt_indexed_t a = {.count = count,
                           .lens = array_of_blocklengths,
                           .adisps = array_of_displacements,
                           .combiner = IBEX_DT_COMBINER_HINDEXED};
    return ibex_dt_create_indexed(call, &a, oldtype, NULL, newtype);
}

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_indexed_block);
    ibex_dt_indexed_t a = {.count = count,
                           .block = true,
                           .len = blocklength,
                           .idisps = array_of_displacements,
                           .combiner = IBEX_DT_COMBINER_INDEXED_BLOCK};
    return ibex_dt_create_indexed(call, &a, oldtype, NULL, newtype);
}

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_hindexed_block);
    ibex_dt_indexed_t a = {.count = count,
                           .block = true,
                           .len = blocklength,
                           .adisps = array_of_displacements,
                           .combiner = IBEX_DT_COMBINER_HINDEXED_BLOCK};
    return ibex_dt_create_indexed(call, &a, oldtype, NULL, newtype);
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_struct);
    ibex_dt_indexed_t a = {.count = count,
                           .lens = array_of_blocklengths,
                           .adisps = array_of_displacements,
                           .combiner = IBEX_DT_COMBINER_STRUCT};
    if (count > 0 && !array_of_types)
        return IBEX_ERROR(MPI_ERR_ARG, "array_of_types is NULL");
    return ibex_dt_create_indexed(call, &a, MPI_DATATYPE_NULL, array_of_types, newtype);
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_resized);
    ibex_dt_t *old = NULL;
    ibex_dt_build_t b;
    int rc = create_begin(call, 0, newtype, &b);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = ibex_dt_lookup(oldtype, call, false, &old)) != MPI_SUCCESS)
        return create_fail(&b, rc);
    ibex_dt_build_add(&b, old, 0, 1);
    /* The new bounds are markers: they stick through later constructors. */
    b.bounded = b.sticky = true;
    b.lb = lb;
    b.ub = lb + extent;
    IBEX_CHECK(create_end(call, &b, IBEX_DT_COMBINER_RESIZED, false, newtype));
    MPI_Aint aints[2] = {lb, extent};
    return record(call, newtype, NULL, 0, aints, 2, &oldtype, 1);
}

/* A copy of old's layout with the given combiner (DUP, or old's own for a clone). */
static int dup_as(const char *call, ibex_dt_t *old, int combiner, MPI_Datatype *newtype)
{
    ibex_dt_build_t b;
    IBEX_CHECK(create_begin(call, 0, newtype, &b));
    ibex_dt_build_add(&b, old, 0, 1);
    b.dt->committed = old->committed;
    return create_end(call, &b, combiner, false, newtype);
}

int ibex_dt_record(const char *call, MPI_Datatype *newtype, int combiner, const int *ints, int ni,
                   const MPI_Aint *aints, int na, const MPI_Datatype *types, int nd)
{
    IBEX_CHECK(record(call, newtype, ints, ni, aints, na, types, nd));
    ibex_dt_priv(ibex_dt_get(*newtype))->combiner = combiner;
    return MPI_SUCCESS;
}

int ibex_dt_record_large(const char *call, MPI_Datatype *newtype, const int *ints, int ni,
                         const MPI_Count *counts, int nc)
{
    ibex_dt_t *dt = ibex_dt_get(*newtype);
    ibex_dt_contents_t *c = ibex_dt_priv(dt)->contents;
    ibex_dt_args_t a = {ints, ni, NULL, 0, counts, nc};
    if (ibex_dt_contents_set_args(dt, &a, c->types, c->nd))
        return MPI_SUCCESS;
    PMPI_Type_free(newtype);
    return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory for a datatype");
}

int ibex_dt_clone(const char *call, ibex_dt_t *old, MPI_Datatype *newtype)
{
    ibex_dt_contents_t *c = ibex_dt_priv(old)->contents;
    IBEX_CHECK(dup_as(call, old, ibex_dt_priv(old)->combiner, newtype));
    ibex_dt_t *dt = ibex_dt_get(*newtype);
    ibex_dt_args_t args = {c ? c->ints : NULL, c ? c->ni : 0,        c ? c->aints : NULL,
                           c ? c->na : 0,      c ? c->counts : NULL, c ? c->nc : 0};
    if (!c || ibex_dt_contents_set_args(dt, &args, c->types, c->nd))
        return MPI_SUCCESS;
    ibex_dt_unregister(dt);
    ibex_dt_release(dt);
    *newtype = MPI_DATATYPE_NULL;
    return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory for a datatype");
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_dup);
    ibex_dt_t *old = NULL;
    if (!newtype)
        return IBEX_ERROR(MPI_ERR_ARG, "newtype is NULL");
    IBEX_CHECK(ibex_dt_lookup(oldtype, call, false, &old));
    IBEX_CHECK(dup_as(call, old, IBEX_DT_COMBINER_DUP, newtype));
    IBEX_CHECK(record(call, newtype, NULL, 0, NULL, 0, &oldtype, 1));
    int rc = ibex_attr_type_copy(oldtype, *newtype); /* the copy callbacks */
    if (rc != MPI_SUCCESS) {
        PMPI_Type_free(newtype);
        return IBEX_ERROR(rc, "an attribute copy callback returned %d", rc);
    }
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(dt_create)
