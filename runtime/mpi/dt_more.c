/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * More datatype calls: MPI_Type_get_extent_x / get_true_extent_x, MPI_Status_set_elements_x,
 * MPI_Type_match_size,
 * MPI_Type_create_f90_integer / real / complex and MPI_Type_get_value_index (MPI 4.1).
 *
 * The f90 types are the predefined types of the matching size (INTEGER1..8, REAL4 / REAL8 /
 * LONG_DOUBLE and their complex forms) seen through a derived type that records the
 * F90_INTEGER / REAL / COMPLEX combiner and (p, r) for Type_get_contents. The standard makes
 * them predefined for the program: one per distinct (combiner, p, r), made on first use, never
 * freed (MPI_Type_free on one is MPI_ERR_TYPE).
 */
#include <float.h>
#include <limits.h>

#include "dt_priv.h"
#include "ibex_dt_api.h"
#include "ibex_err.h"
#include "ibex_entry.h"

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    IBEX_ENTER_ANYTIME(Type_get_extent_x);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    IBEX_ARGS(Type_get_extent_x, lb, extent);
    *lb = dt->lb;
    *extent = dt->extent;
    return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    IBEX_ENTER_ANYTIME(Type_get_true_extent_x);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    IBEX_ARGS(Type_get_true_extent_x, true_lb, true_extent);
    *true_lb = dt->true_lb;
    *true_extent = dt->true_extent;
    return MPI_SUCCESS;
}

/* MPI 3.0's name for MPI_Status_set_elements_c: the status keeps an MPI_Count of bytes, so any
 * count whose bytes fit in one works. */
int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    IBEX_ENTER_ANYTIME(Status_set_elements_x);
    ibex_dt_t *dt = NULL;
    if (!status || status == MPI_STATUS_IGNORE)
        return IBEX_ERROR(MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    if (count < 0)
        return IBEX_ERROR(MPI_ERR_COUNT, "negative count %lld", (long long)count);
    MPI_Count per = (MPI_Count)ibex_dt_priv(dt)->nelems;
    if (per > 0 && dt->size > 0 && count / per + 1 > LLONG_MAX / (MPI_Count)dt->size)
        return IBEX_ERROR(MPI_ERR_COUNT, "%lld elements are more bytes than an MPI_Count holds",
                          (long long)count);
    status->ibex_count = ibex_dt_elements_bytes(dt, count);
    return MPI_SUCCESS;
}

static MPI_Datatype match(int typeclass, int size)
{
    static const struct {
        int cls, size;
        MPI_Datatype dt;
    } table[] = {
        {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},
        {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},
        {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},
        {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
        {MPI_TYPECLASS_REAL, 4, MPI_REAL4},
        {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
        {MPI_TYPECLASS_REAL, sizeof(long double), MPI_LONG_DOUBLE},
        {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX},
        {MPI_TYPECLASS_COMPLEX, 16, MPI_DOUBLE_COMPLEX},
        {MPI_TYPECLASS_COMPLEX, 2 * sizeof(long double), MPI_C_LONG_DOUBLE_COMPLEX},
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (table[i].cls == typeclass && table[i].size == size)
            return table[i].dt;
    return MPI_DATATYPE_NULL;
}

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    IBEX_ENTER_ANYTIME(Type_match_size);
    IBEX_ARGS(Type_match_size, datatype);
    MPI_Datatype dt = match(typeclass, size);
    if (dt == MPI_DATATYPE_NULL)
        return IBEX_ERROR(MPI_ERR_ARG, "no type of class %d and size %d", typeclass, size);
    *datatype = dt;
    return MPI_SUCCESS;
}

/* ---- f90 types ---- */

#define F90_MAX 64
static struct {
    int combiner, p, r;
    MPI_Datatype dt;
} f90_cache[F90_MAX];
static int f90_n;

bool ibex_dt_is_f90(const ibex_dt_t *dt)
{
    int c = ibex_dt_priv(dt)->combiner;
    return c == IBEX_DT_COMBINER_F90_INTEGER || c == IBEX_DT_COMBINER_F90_REAL ||
           c == IBEX_DT_COMBINER_F90_COMPLEX;
}

/* The cached type for (combiner, p, r) over base, made on first use. */
static int f90_type(const char *call, int combiner, int p, int r, MPI_Datatype base,
                    MPI_Datatype *out)
{
    for (int i = 0; i < f90_n; i++)
        if (f90_cache[i].combiner == combiner && f90_cache[i].p == p && f90_cache[i].r == r) {
            *out = f90_cache[i].dt;
            return MPI_SUCCESS;
        }
    if (f90_n == F90_MAX)
        return ibex_mpi_error(NULL, MPI_ERR_INTERN, call, "more than %d distinct f90 types",
                              F90_MAX);
    MPI_Datatype t;
    IBEX_CHECK(PMPI_Type_contiguous(1, base, &t));
    int ints[2] = {p, r}, ni = combiner == IBEX_DT_COMBINER_F90_INTEGER ? 1 : 2;
    if (ni == 1)
        ints[0] = r;
    IBEX_CHECK(ibex_dt_record(call, &t, combiner, ints, ni, NULL, 0, NULL, 0));
    ibex_dt_get(t)->committed = true;
    f90_cache[f90_n].combiner = combiner, f90_cache[f90_n].p = p, f90_cache[f90_n].r = r;
    f90_cache[f90_n++].dt = t;
    *out = t;
    return MPI_SUCCESS;
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_f90_integer);
    IBEX_ARGS(Type_create_f90_integer, newtype);
    MPI_Datatype base = r < 0     ? MPI_DATATYPE_NULL
                        : r <= 2  ? MPI_INTEGER1
                        : r <= 4  ? MPI_INTEGER2
                        : r <= 9  ? MPI_INTEGER4
                        : r <= 18 ? MPI_INTEGER8
                                  : MPI_DATATYPE_NULL;
    if (base == MPI_DATATYPE_NULL)
        return IBEX_ERROR(MPI_ERR_ARG, "no integer type has a decimal range of %d", r);
    return f90_type(call, IBEX_DT_COMBINER_F90_INTEGER, 0, r, base, newtype);
}

/* The real kind for precision p and range r (either MPI_UNDEFINED): 0 float, 1 double, 2
 * long double, -1 none. */
static int real_kind(int p, int r)
{
    if ((p == MPI_UNDEFINED && r == MPI_UNDEFINED) || (p != MPI_UNDEFINED && p < 0) ||
        (r != MPI_UNDEFINED && r < 0))
        return -1;
    const int digits[3] = {FLT_DIG, DBL_DIG, LDBL_DIG};
    const int range[3] = {FLT_MAX_10_EXP, DBL_MAX_10_EXP, LDBL_MAX_10_EXP};
    for (int k = 0; k < 3; k++)
        if ((p == MPI_UNDEFINED || p <= digits[k]) && (r == MPI_UNDEFINED || r <= range[k]))
            return k;
    return -1;
}

static int f90_float(const char *call, int p, int r, bool complex, MPI_Datatype *newtype)
{
    static const MPI_Datatype reals[3] = {MPI_REAL4, MPI_REAL8, MPI_LONG_DOUBLE};
    static const MPI_Datatype complexes[3] = {MPI_COMPLEX, MPI_DOUBLE_COMPLEX,
                                              MPI_C_LONG_DOUBLE_COMPLEX};
    int k = real_kind(p, r);
    if (k < 0)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "no %s type has precision %d, range %d",
                              complex ? "complex" : "real", p, r);
    return f90_type(call, complex ? IBEX_DT_COMBINER_F90_COMPLEX : IBEX_DT_COMBINER_F90_REAL, p, r,
                    complex ? complexes[k] : reals[k], newtype);
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_f90_real);
    IBEX_ARGS(Type_create_f90_real, newtype);
    return f90_float(call, p, r, false, newtype);
}

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_f90_complex);
    IBEX_ARGS(Type_create_f90_complex, newtype);
    return f90_float(call, p, r, true, newtype);
}

/* MPI 4.1: the predefined pair type of (value, index) for MINLOC / MAXLOC, or
 * MPI_DATATYPE_NULL when there is none. */
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                              MPI_Datatype *pair_type)
{
    IBEX_ENTER_ANYTIME(Type_get_value_index);
    ibex_dt_t *v = NULL, *x = NULL;
    IBEX_CHECK(ibex_dt_lookup(value_type, call, false, &v));
    IBEX_CHECK(ibex_dt_lookup(index_type, call, false, &x));
    IBEX_ARGS(Type_get_value_index, pair_type);
    static const MPI_Datatype pairs[][3] = {
        {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
        {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
        {MPI_LONG, MPI_INT, MPI_LONG_INT},
        {MPI_INT, MPI_INT, MPI_2INT},
        {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
        {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
        {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
        {MPI_REAL, MPI_REAL, MPI_2REAL},
        {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
    };
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
        if (pairs[i][0] == value_type && pairs[i][1] == index_type)
            *pair_type = pairs[i][2];
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(dt_more)
