/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI entry points on datatypes that are not constructors or packing: queries, names, commit,
 * free, and the status queries (Get_count, Get_elements) that depend on a datatype.
 * The datatype and op calls enter with IBEX_ENTER_ANYTIME: they never checked that MPI is
 * running (before MPI_Init no handle is valid, so they fail on the handle) and their unit tests
 * (tests/runtime/engine) call them without MPI_Init.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "dt_priv.h"
#include "ibex_attr.h"
#include "ibex_dt_api.h"
#include "ibex_err.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

int ibex_dt_lookup_on(struct ibex_comm *comm, MPI_Datatype handle, const char *call,
                      bool need_commit, ibex_dt_t **dt_p)
{
    ibex_dt_t *dt = ibex_dt_get(handle);
    if (!dt)
        return ibex_mpi_error(comm, MPI_ERR_TYPE, call, "invalid datatype handle 0x%x",
                              (unsigned)handle);
    if (need_commit && !dt->committed)
        return ibex_mpi_error(comm, MPI_ERR_TYPE, call,
                              "datatype %s is not committed (call MPI_Type_commit first)",
                              dt->name[0] ? dt->name : "(derived)");
    *dt_p = dt;
    return MPI_SUCCESS;
}

int ibex_dt_lookup(MPI_Datatype handle, const char *call, bool need_commit, ibex_dt_t **dt_p)
{
    return ibex_dt_lookup_on(NULL, handle, call, need_commit, dt_p);
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    IBEX_ENTER_ANYTIME(Type_size_x);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    IBEX_ARGS(Type_size_x, size);
    *size = (MPI_Count)dt->size;
    return MPI_SUCCESS;
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    IBEX_ENTER_ANYTIME(Type_size);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    IBEX_ARGS(Type_size, size);
    *size = dt->size > INT_MAX ? MPI_UNDEFINED : (int)dt->size;
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    IBEX_ENTER_ANYTIME(Type_get_extent);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    IBEX_ARGS(Type_get_extent, lb, extent);
    *lb = dt->lb;
    *extent = dt->extent;
    return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    IBEX_ENTER_ANYTIME(Type_get_true_extent);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    IBEX_ARGS(Type_get_true_extent, true_lb, true_extent);
    *true_lb = dt->true_lb;
    *true_extent = dt->true_extent;
    return MPI_SUCCESS;
}

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    IBEX_ENTER_ANYTIME(Type_get_name);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    IBEX_ARGS(Type_get_name, type_name, resultlen);
    *resultlen = snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", dt->name);
    return MPI_SUCCESS;
}

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    IBEX_ENTER_ANYTIME(Type_set_name);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    IBEX_ARGS(Type_set_name, type_name);
    /* Longer names are truncated, as the standard allows. */
    snprintf(dt->name, sizeof(dt->name), "%s", type_name);
    return MPI_SUCCESS;
}

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    IBEX_ENTER_ANYTIME(Type_commit);
    ibex_dt_t *dt = NULL;
    IBEX_ARGS(Type_commit, datatype);
    IBEX_CHECK(ibex_dt_lookup(*datatype, call, false, &dt));
    /* The constructors already flattened the layout: committing only permits communication. */
    dt->committed = true;
    return MPI_SUCCESS;
}

int PMPI_Type_free(MPI_Datatype *datatype)
{
    IBEX_ENTER_ANYTIME(Type_free);
    ibex_dt_t *dt = NULL;
    IBEX_ARGS(Type_free, datatype);
    IBEX_CHECK(ibex_dt_lookup(*datatype, call, false, &dt));
    if (dt->predefined || ibex_dt_is_f90(dt))
        return ibex_mpi_error(NULL, MPI_ERR_TYPE, call, "cannot free predefined datatype %s",
                              dt->name);
    int rc = ibex_attr_type_delete_all(*datatype); /* the delete callbacks, the last set first */
    if (rc != MPI_SUCCESS)
        return ibex_mpi_error(NULL, rc, call, "an attribute delete callback returned %d", rc);
    ibex_dt_unregister(dt);
    ibex_dt_release(dt);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

static int status_check(const char *call, const MPI_Status *status, MPI_Datatype datatype,
                        ibex_dt_t **dt_p)
{
    if (!status || status == MPI_STATUS_IGNORE)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "status is NULL or MPI_STATUS_IGNORE");
    return ibex_dt_lookup(datatype, call, false, dt_p);
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    IBEX_ENTER_ANYTIME(Get_count);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(status_check(call, status, datatype, &dt));
    IBEX_ARGS(Get_count, count);
    MPI_Count bytes = status->ibex_count, size = (MPI_Count)dt->size;
    if (size == 0)
        *count = 0; /* the standard's rule for zero-size types */
    else if (bytes % size || bytes / size > INT_MAX)
        *count = MPI_UNDEFINED;
    else
        *count = (int)(bytes / size);
    return MPI_SUCCESS;
}

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    IBEX_ENTER_ANYTIME(Get_elements_x);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(status_check(call, status, datatype, &dt));
    IBEX_ARGS(Get_elements_x, count);
    *count = ibex_dt_elements(dt, status->ibex_count);
    return MPI_SUCCESS;
}

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    IBEX_ENTER_ANYTIME(Get_elements);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(status_check(call, status, datatype, &dt));
    IBEX_ARGS(Get_elements, count);
    MPI_Count n = ibex_dt_elements(dt, status->ibex_count);
    *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    IBEX_ENTER_ANYTIME(Status_set_elements);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(status_check(call, status, datatype, &dt));
    if (count < 0)
        return ibex_mpi_error(NULL, MPI_ERR_COUNT, call, "negative count %d", count);
    status->ibex_count = ibex_dt_elements_bytes(dt, count);
    return MPI_SUCCESS;
}

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    IBEX_ENTER_ANYTIME(Status_set_cancelled);
    if (!status || status == MPI_STATUS_IGNORE)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "status is NULL or MPI_STATUS_IGNORE");
    status->ibex_cancelled = flag != 0;
    return MPI_SUCCESS;
}

/* MPI 4.1's accessors of the public status fields (for languages that cannot reach them). */
static int status_field_check(const ibex_entry_t *e, const MPI_Status *status)
{
    if (!status) /* MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE are NULL */
        return ibex_mpi_error(e->comm, MPI_ERR_ARG, e->call, "status is NULL or MPI_STATUS_IGNORE");
    return MPI_SUCCESS;
}

int PMPI_Status_get_source(MPI_Status *status, int *source)
{
    IBEX_ENTER_ANYTIME(Status_get_source);
    IBEX_CHECK(status_field_check(&ibex_e, status));
    IBEX_ARGS(Status_get_source, source);
    *source = status->MPI_SOURCE;
    return MPI_SUCCESS;
}

int PMPI_Status_set_source(MPI_Status *status, int source)
{
    IBEX_ENTER_ANYTIME(Status_set_source);
    IBEX_CHECK(status_field_check(&ibex_e, status));
    status->MPI_SOURCE = source;
    return MPI_SUCCESS;
}

int PMPI_Status_get_tag(MPI_Status *status, int *tag)
{
    IBEX_ENTER_ANYTIME(Status_get_tag);
    IBEX_CHECK(status_field_check(&ibex_e, status));
    IBEX_ARGS(Status_get_tag, tag);
    *tag = status->MPI_TAG;
    return MPI_SUCCESS;
}

int PMPI_Status_set_tag(MPI_Status *status, int tag)
{
    IBEX_ENTER_ANYTIME(Status_set_tag);
    IBEX_CHECK(status_field_check(&ibex_e, status));
    status->MPI_TAG = tag;
    return MPI_SUCCESS;
}

int PMPI_Status_get_error(MPI_Status *status, int *error)
{
    IBEX_ENTER_ANYTIME(Status_get_error);
    IBEX_CHECK(status_field_check(&ibex_e, status));
    IBEX_ARGS(Status_get_error, error);
    *error = status->MPI_ERROR;
    return MPI_SUCCESS;
}

int PMPI_Status_set_error(MPI_Status *status, int error)
{
    IBEX_ENTER_ANYTIME(Status_set_error);
    IBEX_CHECK(status_field_check(&ibex_e, status));
    status->MPI_ERROR = error;
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(dt_api)
