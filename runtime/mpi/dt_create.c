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
static int create_begin(const char *call, int count, MPI_Datatype *newtype, ibex_dt_build_t *b)
{
    memset(b, 0, sizeof(*b));
    if (count < 0)
        return ibex_mpi_error(NULL, MPI_ERR_COUNT, call, "negative count %d", count);
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
static int record(const char *call, MPI_Datatype *out, const int *ints, int ni,
                  const MPI_Aint *aints, int na, const MPI_Datatype *types, int nd)
{
    ibex_dt_t *dt = ibex_dt_get(*out), *tv[nd > 0 ? nd : 1];
    for (int i = 0; i < nd; i++)
        tv[i] = ibex_dt_get(types[i]);
    if (ibex_dt_contents_set(dt, ints, ni, aints, na, tv, nd))
        return MPI_SUCCESS;
    ibex_dt_unregister(dt);
    ibex_dt_release(dt);
    *out = MPI_DATATYPE_NULL;
    return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory for a datatype");
}

/* The int arguments of the indexed family: count, then the lengths (or the one length),
 * then the int displacements if any; NULL when out of memory. */
static int *indexed_ints(int count, const int *lens, int len, const int *idisps, int *n_p)
{
    int n = 1 + (lens ? count : 1) + (idisps ? count : 0), k = 0;
    int *v = malloc((size_t)n * sizeof(int));
    if (!v)
        return NULL;
    v[k++] = count;
    if (lens)
        for (int i = 0; i < count; i++)
            v[k++] = lens[i];
    else
        v[k++] = len;
    for (int i = 0; idisps && i < count; i++)
        v[k++] = idisps[i];
    *n_p = n;
    return v;
}

static int check_blocklen(const char *call, int len)
{
    if (len < 0)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "negative blocklength %d", len);
    return MPI_SUCCESS;
}

static int check_array(const char *call, int count, const void *arr, const char *what)
{
    if (count > 0 && !arr)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "%s is NULL", what);
    return MPI_SUCCESS;
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_contiguous);
    ibex_dt_t *old = NULL;
    ibex_dt_build_t b;
    int rc = create_begin(call, count, newtype, &b);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = ibex_dt_lookup(oldtype, call, false, &old)) != MPI_SUCCESS)
        return create_fail(&b, rc);
    ibex_dt_build_add(&b, old, 0, (size_t)count);
    IBEX_CHECK(create_end(call, &b, IBEX_DT_COMBINER_CONTIGUOUS, false, newtype));
    return record(call, newtype, &count, 1, NULL, 0, &oldtype, 1);
}

/* vector and hvector: stride in bytes. */
static int create_hvector(const char *call, int count, int blocklength, MPI_Aint stride,
                          MPI_Datatype oldtype, int combiner, MPI_Datatype *newtype)
{
    ibex_dt_t *old = NULL;
    ibex_dt_build_t b;
    int rc = create_begin(call, count, newtype, &b);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = check_blocklen(call, blocklength)) != MPI_SUCCESS ||
        (rc = ibex_dt_lookup(oldtype, call, false, &old)) != MPI_SUCCESS)
        return create_fail(&b, rc);
    MPI_Aint given = stride;
    if (combiner == IBEX_DT_COMBINER_VECTOR)
        stride *= old->extent;
    for (int i = 0; i < count; i++)
        ibex_dt_build_add(&b, old, (ptrdiff_t)i * stride, (size_t)blocklength);
    IBEX_CHECK(create_end(call, &b, combiner, false, newtype));
    bool v = combiner == IBEX_DT_COMBINER_VECTOR;
    int ints[3] = {count, blocklength, (int)given};
    return record(call, newtype, ints, v ? 3 : 2, &given, v ? 0 : 1, &oldtype, 1);
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_vector);
    return create_hvector(call, count, blocklength, stride, oldtype, IBEX_DT_COMBINER_VECTOR,
                          newtype);
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_hvector);
    return create_hvector(call, count, blocklength, stride, oldtype, IBEX_DT_COMBINER_HVECTOR,
                          newtype);
}

/* The indexed family: blocklengths (or one constant blocklength for the _block variants) and
 * displacements in old extents (idisps) or bytes (adisps). */
typedef struct indexed_args {
    int count;
    bool block;
    const int *lens;
    int len;
    const int *idisps;
    const MPI_Aint *adisps;
    int combiner;
} indexed_args_t;

static int create_indexed(const char *call, const indexed_args_t *a, MPI_Datatype oldtype,
                          MPI_Datatype *newtype)
{
    ibex_dt_t *old = NULL;
    ibex_dt_build_t b;
    int rc = create_begin(call, a->count, newtype, &b);
    if (rc != MPI_SUCCESS)
        return rc;
    const void *disps = a->idisps ? (const void *)a->idisps : (const void *)a->adisps;
    if ((rc = check_array(call, a->count, disps, "array_of_displacements")) != MPI_SUCCESS ||
        (a->block && (rc = check_blocklen(call, a->len)) != MPI_SUCCESS) ||
        (!a->block && (rc = check_array(call, a->count, a->lens, "array_of_blocklengths"))) ||
        (rc = ibex_dt_lookup(oldtype, call, false, &old)) != MPI_SUCCESS)
        return create_fail(&b, rc);
    for (int i = 0; i < a->count; i++) {
        int len = a->block ? a->len : a->lens[i];
        if ((rc = check_blocklen(call, len)) != MPI_SUCCESS)
            return create_fail(&b, rc);
        ptrdiff_t d = a->idisps ? (ptrdiff_t)a->idisps[i] * old->extent : a->adisps[i];
        ibex_dt_build_add(&b, old, d, (size_t)len);
    }
    int ni = 0, *ints = indexed_ints(a->count, a->block ? NULL : a->lens, a->len, a->idisps, &ni);
    if (!ints)
        return create_fail(&b, ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory"));
    rc = create_end(call, &b, a->combiner, false, newtype);
    if (rc == MPI_SUCCESS)
        rc = record(call, newtype, ints, ni, a->adisps, a->adisps ? a->count : 0, &oldtype, 1);
    free(ints);
    return rc;
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_indexed);
    indexed_args_t a = {count,
                        false,
                        array_of_blocklengths,
                        0,
                        array_of_displacements,
                        NULL,
                        IBEX_DT_COMBINER_INDEXED};
    return create_indexed(call, &a, oldtype, newtype);
}

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_hindexed);
    indexed_args_t a = {count,
                        false,
                        array_of_blocklengths,
                        0,
                        NULL,
                        array_of_displacements,
                        IBEX_DT_COMBINER_HINDEXED};
    return create_indexed(call, &a, oldtype, newtype);
}

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_indexed_block);
    indexed_args_t a = {count,
                        true,
                        NULL,
                        blocklength,
                        array_of_displacements,
                        NULL,
                        IBEX_DT_COMBINER_INDEXED_BLOCK};
    return create_indexed(call, &a, oldtype, newtype);
}

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_hindexed_block);
    indexed_args_t a = {count,
                        true,
                        NULL,
                        blocklength,
                        NULL,
                        array_of_displacements,
                        IBEX_DT_COMBINER_HINDEXED_BLOCK};
    return create_indexed(call, &a, oldtype, newtype);
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_struct);
    ibex_dt_t *old = NULL;
    ibex_dt_build_t b;
    int rc = create_begin(call, count, newtype, &b);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = check_array(call, count, array_of_blocklengths, "array_of_blocklengths")) ||
        (rc = check_array(call, count, array_of_displacements, "array_of_displacements")) ||
        (rc = check_array(call, count, array_of_types, "array_of_types")))
        return create_fail(&b, rc);
    for (int i = 0; i < count; i++) {
        if ((rc = check_blocklen(call, array_of_blocklengths[i])) != MPI_SUCCESS ||
            (rc = ibex_dt_lookup(array_of_types[i], call, false, &old)) != MPI_SUCCESS)
            return create_fail(&b, rc);
        ibex_dt_build_add(&b, old, array_of_displacements[i], (size_t)array_of_blocklengths[i]);
    }
    int ni = 0, *ints = indexed_ints(count, array_of_blocklengths, 0, NULL, &ni);
    if (!ints)
        return create_fail(&b, ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory"));
    rc = create_end(call, &b, IBEX_DT_COMBINER_STRUCT, true, newtype);
    if (rc == MPI_SUCCESS)
        rc = record(call, newtype, ints, ni, array_of_displacements, count, array_of_types, count);
    free(ints);
    return rc;
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

int ibex_dt_clone(const char *call, ibex_dt_t *old, MPI_Datatype *newtype)
{
    ibex_dt_contents_t *c = ibex_dt_priv(old)->contents;
    IBEX_CHECK(dup_as(call, old, ibex_dt_priv(old)->combiner, newtype));
    ibex_dt_t *dt = ibex_dt_get(*newtype);
    if (!c || ibex_dt_contents_set(dt, c->ints, c->ni, c->aints, c->na, c->types, c->nd))
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
