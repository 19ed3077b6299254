/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Pack, MPI_Unpack, MPI_Pack_size: the packed stream of runtime/engine/dt_pack.c.
 * The datatype and op calls enter with IBEX_ENTER_ANYTIME: they never checked that MPI is
 * running (before MPI_Init no handle is valid, so they fail on the handle) and their unit tests
 * (tests/runtime/engine) call them without MPI_Init.
 */
#include "dt_priv.h"
#include "ibex_err.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

/* Checks shared by MPI_Pack and MPI_Unpack; gives the packed size of the message. */
static int pack_check(const char *call, int count, MPI_Datatype datatype, const int *position,
                      ibex_dt_t **dt_p, size_t *bytes_p)
{
    int rc;
    if (count < 0)
        return ibex_mpi_error(NULL, MPI_ERR_COUNT, call, "negative count %d", count);
    if ((rc = ibex_dt_lookup(datatype, call, true, dt_p)) != MPI_SUCCESS)
        return rc;
    if (!position)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "position is NULL");
    *bytes_p = (size_t)count * (*dt_p)->size;
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    IBEX_ENTER_ANYTIME(Pack);
    ibex_dt_t *dt = NULL;
    size_t bytes = 0;
    int rc = pack_check(call, incount, datatype, position, &dt, &bytes);
    if (rc != MPI_SUCCESS)
        return rc;
    if (*position < 0 || *position > outsize || bytes > (size_t)(outsize - *position))
        return ibex_mpi_error(NULL, MPI_ERR_TRUNCATE, call,
                              "%zu bytes do not fit at position %d of a %d-byte buffer", bytes,
                              *position, outsize);
    ibex_dt_pack(inbuf, incount, dt, 0, (char *)outbuf + *position, bytes);
    *position += (int)bytes;
    return MPI_SUCCESS;
}

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    IBEX_ENTER_ANYTIME(Unpack);
    ibex_dt_t *dt = NULL;
    size_t bytes = 0;
    int rc = pack_check(call, outcount, datatype, position, &dt, &bytes);
    if (rc != MPI_SUCCESS)
        return rc;
    if (*position < 0 || *position > insize || bytes > (size_t)(insize - *position))
        return ibex_mpi_error(NULL, MPI_ERR_TRUNCATE, call,
                              "%zu bytes wanted at position %d of a %d-byte buffer", bytes,
                              *position, insize);
    ibex_dt_unpack(outbuf, outcount, dt, 0, (const char *)inbuf + *position, bytes);
    *position += (int)bytes;
    return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    IBEX_ENTER_ANYTIME(Pack_size);
    ibex_dt_t *dt = NULL;
    int rc;
    if (incount < 0)
        return ibex_mpi_error(NULL, MPI_ERR_COUNT, call, "negative count %d", incount);
    if ((rc = ibex_dt_lookup(datatype, call, false, &dt)) != MPI_SUCCESS)
        return rc;
    if (!size)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "size is NULL");
    size_t bytes = (size_t)incount * dt->size;
    if (bytes > (size_t)INT32_MAX)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "%zu bytes do not fit an int", bytes);
    *size = (int)bytes;
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(dt_pack_api)
