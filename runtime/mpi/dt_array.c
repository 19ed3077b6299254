/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Array datatypes (MPI 4.1 sections 5.1.3, 5.1.4): MPI_Type_create_subarray and
 * MPI_Type_create_darray, in C (row-major) and Fortran (column-major) order.
 *
 * Both are built one dimension at a time, from the fastest-varying one, out of the other
 * constructors: each dimension is an hindexed type of blocks of the type built so far (whose
 * extent is one full row of the previous dimensions), resized to the dimension's full length.
 * The result has lb 0 and the extent of the whole global array, as the standard says, and
 * records the SUBARRAY / DARRAY combiner and its arguments for Type_get_contents. The
 * intermediate types are freed on the way.
 */
#include <limits.h>
#include <stdlib.h>

#include "dt_priv.h"
#include "ibex_dt_api.h"
#include "ibex_err.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

/* One dimension: n blocks (lens, disps in elements of the type so far) of *t, resized to
 * `full` elements; replaces *t (freed unless it is the program's, the first). */
static int dim_step(MPI_Datatype *t, MPI_Datatype first, MPI_Count elem, int n,
                    const MPI_Count *lens, const MPI_Count *disps, MPI_Count full)
{
    MPI_Count *bytes = malloc((size_t)(n > 0 ? n : 1) * sizeof(MPI_Count));
    if (!bytes)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        bytes[i] = disps[i] * elem;
    MPI_Datatype h, r;
    int rc = PMPI_Type_create_hindexed_c(n, lens, bytes, *t, &h);
    free(bytes);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Type_create_resized_c(h, 0, full * elem, &r);
    PMPI_Type_free(&h);
    if (rc != MPI_SUCCESS)
        return rc;
    if (*t != first)
        PMPI_Type_free(t);
    *t = r;
    return MPI_SUCCESS;
}

/* The dimension index of step k: the last first in C order, the first first in Fortran. */
static int dim_of(int k, int ndims, int order)
{
    return order == MPI_ORDER_C ? ndims - 1 - k : k;
}

static int check_order(const char *call, int order, int ndims)
{
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "order %d is neither C nor Fortran", order);
    if (ndims <= 0)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "ndims %d is not positive", ndims);
    return MPI_SUCCESS;
}

static int subarray_check(const char *call, int ndims, const MPI_Count *sizes,
                          const MPI_Count *subsizes, const MPI_Count *starts, int order)
{
    IBEX_CHECK(check_order(call, order, ndims));
    if (!sizes || !subsizes || !starts)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "an array argument is NULL");
    for (int i = 0; i < ndims; i++)
        if (sizes[i] < 1 || subsizes[i] < 1 || subsizes[i] > sizes[i] || starts[i] < 0 ||
            starts[i] > sizes[i] - subsizes[i])
            return ibex_mpi_error(NULL, MPI_ERR_ARG, call,
                                  "dimension %d: size %lld, subsize %lld, start %lld do not fit", i,
                                  (long long)sizes[i], (long long)subsizes[i],
                                  (long long)starts[i]);
    return MPI_SUCCESS;
}

/* The recorded arguments: ndims, sizes, subsizes, starts, order. */
static int subarray_record(const char *call, MPI_Datatype *t, int ndims, const int *sizes,
                           const int *subsizes, const int *starts, int order, MPI_Datatype old)
{
    int *ints = malloc((size_t)(3 * ndims + 2) * sizeof(int));
    if (!ints)
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    ints[0] = ndims;
    for (int i = 0; i < ndims; i++) {
        ints[1 + i] = sizes[i];
        ints[1 + ndims + i] = subsizes[i];
        ints[1 + 2 * ndims + i] = starts[i];
    }
    ints[1 + 3 * ndims] = order;
    int rc =
        ibex_dt_record(call, t, IBEX_DT_COMBINER_SUBARRAY, ints, 3 * ndims + 2, NULL, 0, &old, 1);
    free(ints);
    return rc;
}

int ibex_dt_subarray(const char *call, int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                     const MPI_Count *starts, int order, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    ibex_dt_t *old = NULL;
    IBEX_CHECK(ibex_dt_lookup(oldtype, call, false, &old));
    if (!newtype)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "newtype is NULL");
    IBEX_CHECK(subarray_check(call, ndims, sizes, subsizes, starts, order));
    MPI_Datatype t = oldtype;
    MPI_Count elem = old->extent;
    int rc = MPI_SUCCESS;
    for (int k = 0; k < ndims && rc == MPI_SUCCESS; k++) {
        int d = dim_of(k, ndims, order);
        rc = dim_step(&t, oldtype, elem, 1, &subsizes[d], &starts[d], sizes[d]);
        elem *= sizes[d];
    }
    if (rc != MPI_SUCCESS) {
        if (t != oldtype)
            PMPI_Type_free(&t);
        return ibex_mpi_error(NULL, rc, call, "cannot build the subarray type");
    }
    *newtype = t;
    return MPI_SUCCESS;
}

/* An int array as counts (NULL stays NULL); *out_p freed by the caller. */
static int widen(const char *call, const int *in, int n, MPI_Count **out_p)
{
    *out_p = NULL;
    if (!in)
        return MPI_SUCCESS;
    MPI_Count *out = malloc((size_t)(n > 0 ? n : 1) * sizeof(*out));
    if (!out)
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    for (int i = 0; i < n; i++)
        out[i] = in[i];
    *out_p = out;
    return MPI_SUCCESS;
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_subarray);
    IBEX_ARGS(Type_create_subarray, newtype);
    int n = ndims > 0 ? ndims : 0;
    MPI_Count *sz = NULL, *sub = NULL, *st = NULL;
    int rc = widen(call, array_of_sizes, n, &sz);
    if (rc == MPI_SUCCESS)
        rc = widen(call, array_of_subsizes, n, &sub);
    if (rc == MPI_SUCCESS)
        rc = widen(call, array_of_starts, n, &st);
    if (rc == MPI_SUCCESS)
        rc = ibex_dt_subarray(call, ndims, sz, sub, st, order, oldtype, newtype);
    free(sz);
    free(sub);
    free(st);
    IBEX_CHECK(rc);
    return subarray_record(call, newtype, ndims, array_of_sizes, array_of_subsizes, array_of_starts,
                           order, oldtype);
}

/* ---- darray ---- */

typedef struct darray_args {
    int size, rank, ndims;
    const MPI_Count *gsizes;
    const int *distribs, *dargs, *psizes;
    int order;
} darray_args_t;

static int darray_check(const char *call, const darray_args_t *a)
{
    IBEX_CHECK(check_order(call, a->order, a->ndims));
    if (!a->gsizes || !a->distribs || !a->dargs || !a->psizes)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "an array argument is NULL");
    long procs = 1;
    for (int i = 0; i < a->ndims; i++) {
        MPI_Count g = a->gsizes[i];
        int p = a->psizes[i], dist = a->distribs[i], darg = a->dargs[i];
        bool known = dist == MPI_DISTRIBUTE_BLOCK || dist == MPI_DISTRIBUTE_CYCLIC ||
                     dist == MPI_DISTRIBUTE_NONE;
        if (g < 1 || p < 1 || !known || (darg < 1 && darg != MPI_DISTRIBUTE_DFLT_DARG) ||
            (dist == MPI_DISTRIBUTE_NONE && p != 1) ||
            (dist == MPI_DISTRIBUTE_BLOCK && darg != MPI_DISTRIBUTE_DFLT_DARG &&
             (MPI_Count)darg * p < g))
            return ibex_mpi_error(NULL, MPI_ERR_ARG, call,
                                  "dimension %d: gsize %lld, distrib %d, darg %d, psize %d", i,
                                  (long long)g, dist, darg, p);
        procs *= p;
    }
    if (a->size < 1 || procs != a->size || a->rank < 0 || a->rank >= a->size)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call,
                              "the process grid has %ld processes: size %d, rank %d", procs,
                              a->size, a->rank);
    return MPI_SUCCESS;
}

/* This process's blocks in one dimension of g elements over p processes at coordinate c:
 * block size k (BLOCK: one block; CYCLIC: every p-th block; NONE: all). */
static MPI_Count dim_k(int dist, int darg, MPI_Count g, int p)
{
    return darg != MPI_DISTRIBUTE_DFLT_DARG ? darg
           : dist == MPI_DISTRIBUTE_BLOCK   ? (g + p - 1) / p
                                            : 1;
}

/* At most how many blocks dim_blocks gives. */
static MPI_Count dim_nmax(int dist, int darg, MPI_Count g, int p)
{
    return dist == MPI_DISTRIBUTE_NONE ? 1 : g / ((MPI_Count)p * dim_k(dist, darg, g, p)) + 1;
}

static MPI_Count dim_blocks(int dist, int darg, MPI_Count g, int p, int c, MPI_Count *lens,
                            MPI_Count *disps)
{
    if (dist == MPI_DISTRIBUTE_NONE) {
        lens[0] = g, disps[0] = 0;
        return 1;
    }
    MPI_Count k = dim_k(dist, darg, g, p), n = 0;
    for (MPI_Count start = c * k; start < g; start += (MPI_Count)p * k) {
        lens[n] = g - start < k ? g - start : k;
        disps[n++] = start;
        if (dist == MPI_DISTRIBUTE_BLOCK)
            break;
    }
    return n;
}

static int darray_build(const darray_args_t *a, MPI_Datatype old, MPI_Count elem, MPI_Datatype *t_p)
{
    int coords[64], r = a->rank, rc = MPI_SUCCESS;
    for (int i = a->ndims - 1; i >= 0; i--) { /* the process grid is row-major */
        coords[i] = r % a->psizes[i];
        r /= a->psizes[i];
    }
    MPI_Datatype t = old;
    for (int k = 0; k < a->ndims && rc == MPI_SUCCESS; k++) {
        int d = dim_of(k, a->ndims, a->order);
        MPI_Count g = a->gsizes[d], nmax = dim_nmax(a->distribs[d], a->dargs[d], g, a->psizes[d]);
        MPI_Count *lens = nmax <= INT_MAX ? malloc((size_t)nmax * sizeof(*lens)) : NULL;
        MPI_Count *disps = lens ? malloc((size_t)nmax * sizeof(*disps)) : NULL;
        rc = lens && disps ? MPI_SUCCESS : MPI_ERR_NO_MEM;
        if (rc == MPI_SUCCESS) {
            MPI_Count n =
                dim_blocks(a->distribs[d], a->dargs[d], g, a->psizes[d], coords[d], lens, disps);
            rc = dim_step(&t, old, elem, (int)n, lens, disps, g);
        }
        free(lens);
        free(disps);
        elem *= g;
    }
    if (rc != MPI_SUCCESS && t != old)
        PMPI_Type_free(&t);
    *t_p = t;
    return rc;
}

static int darray_record(const char *call, MPI_Datatype *t, const darray_args_t *a,
                         const int *gsizes, MPI_Datatype old)
{
    int n = a->ndims, *ints = malloc((size_t)(4 * n + 4) * sizeof(int));
    if (!ints)
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    ints[0] = a->size, ints[1] = a->rank, ints[2] = n;
    for (int i = 0; i < n; i++) {
        ints[3 + i] = gsizes[i];
        ints[3 + n + i] = a->distribs[i];
        ints[3 + 2 * n + i] = a->dargs[i];
        ints[3 + 3 * n + i] = a->psizes[i];
    }
    ints[3 + 4 * n] = a->order;
    int rc = ibex_dt_record(call, t, IBEX_DT_COMBINER_DARRAY, ints, 4 * n + 4, NULL, 0, &old, 1);
    free(ints);
    return rc;
}

int ibex_dt_darray(const char *call, int size, int rank, int ndims, const MPI_Count *gsizes,
                   const int *distribs, const int *dargs, const int *psizes, int order,
                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    ibex_dt_t *old = NULL;
    IBEX_CHECK(ibex_dt_lookup(oldtype, call, false, &old));
    if (!newtype)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "newtype is NULL");
    darray_args_t a = {size, rank, ndims, gsizes, distribs, dargs, psizes, order};
    IBEX_CHECK(darray_check(call, &a));
    if (ndims > 64)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "ndims %d: at most 64 dimensions", ndims);
    MPI_Datatype t;
    int rc = darray_build(&a, oldtype, old->extent, &t);
    if (rc != MPI_SUCCESS)
        return ibex_mpi_error(NULL, rc, call, "cannot build the darray type");
    *newtype = t;
    return MPI_SUCCESS;
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_darray);
    IBEX_ARGS(Type_create_darray, newtype);
    MPI_Count *gs = NULL;
    IBEX_CHECK(widen(call, array_of_gsizes, ndims > 0 ? ndims : 0, &gs));
    int rc = ibex_dt_darray(call, size, rank, ndims, gs, array_of_distribs, array_of_dargs,
                            array_of_psizes, order, oldtype, newtype);
    free(gs);
    IBEX_CHECK(rc);
    darray_args_t a = {size, rank, ndims, NULL, array_of_distribs, array_of_dargs, array_of_psizes,
                       order};
    return darray_record(call, newtype, &a, array_of_gsizes, oldtype);
}

IBEX_MPI_ALIASES(dt_array)
