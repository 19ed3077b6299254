/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Handle conversion between C and Fortran (MPI 4.1 section 19.3.4): MPI_X_c2f / MPI_X_f2c.
 * Ibex handles are ints already, and the same int is the Fortran handle, so each conversion is
 * the identity (an invalid handle stays invalid and is caught where it is used). They are
 * valid at any time.
 *
 * Status conversion (MPI 4.1 section 19.3.5): the Fortran status is MPI_F_STATUS_SIZE MPI_Fint
 * (source, tag, error, cancelled, the byte count's low and high 32 bits), the mpi_f08 one the
 * same values in MPI_F08_status; every form carries the whole status, so a round trip gives it
 * back unchanged. An ignore constant (NULL) on either side is MPI_ERR_ARG.
 */
#include <string.h>

#include "ibex_entry.h"

MPI_Fint PMPI_Comm_c2f(MPI_Comm h)
{
    return (MPI_Fint)h;
}

MPI_Comm PMPI_Comm_f2c(MPI_Fint h)
{
    return (MPI_Comm)h;
}

MPI_Fint PMPI_Type_c2f(MPI_Datatype h)
{
    return (MPI_Fint)h;
}

MPI_Datatype PMPI_Type_f2c(MPI_Fint h)
{
    return (MPI_Datatype)h;
}

MPI_Fint PMPI_Group_c2f(MPI_Group h)
{
    return (MPI_Fint)h;
}

MPI_Group PMPI_Group_f2c(MPI_Fint h)
{
    return (MPI_Group)h;
}

MPI_Fint PMPI_Request_c2f(MPI_Request h)
{
    return (MPI_Fint)h;
}

MPI_Request PMPI_Request_f2c(MPI_Fint h)
{
    return (MPI_Request)h;
}

MPI_Fint PMPI_Op_c2f(MPI_Op h)
{
    return (MPI_Fint)h;
}

MPI_Op PMPI_Op_f2c(MPI_Fint h)
{
    return (MPI_Op)h;
}

MPI_Fint PMPI_Info_c2f(MPI_Info h)
{
    return (MPI_Fint)h;
}

MPI_Info PMPI_Info_f2c(MPI_Fint h)
{
    return (MPI_Info)h;
}

MPI_Fint PMPI_Errhandler_c2f(MPI_Errhandler h)
{
    return (MPI_Fint)h;
}

MPI_Errhandler PMPI_Errhandler_f2c(MPI_Fint h)
{
    return (MPI_Errhandler)h;
}

MPI_Fint PMPI_Message_c2f(MPI_Message h)
{
    return (MPI_Fint)h;
}

MPI_Message PMPI_Message_f2c(MPI_Fint h)
{
    return (MPI_Message)h;
}

MPI_Fint PMPI_Win_c2f(MPI_Win h)
{
    return (MPI_Fint)h;
}

MPI_Win PMPI_Win_f2c(MPI_Fint h)
{
    return (MPI_Win)h;
}

static void status_to_f(const MPI_Status *c, MPI_Fint *f)
{
    unsigned long long n = (unsigned long long)c->ibex_count;
    f[MPI_F_SOURCE] = c->MPI_SOURCE;
    f[MPI_F_TAG] = c->MPI_TAG;
    f[MPI_F_ERROR] = c->MPI_ERROR;
    f[3] = c->ibex_cancelled;
    f[4] = (MPI_Fint)(unsigned)(n & 0xffffffffu);
    f[5] = (MPI_Fint)(unsigned)(n >> 32);
}

static void status_from_f(const MPI_Fint *f, MPI_Status *c)
{
    c->MPI_SOURCE = f[MPI_F_SOURCE];
    c->MPI_TAG = f[MPI_F_TAG];
    c->MPI_ERROR = f[MPI_F_ERROR];
    c->ibex_cancelled = f[3];
    c->ibex_count = (MPI_Count)((unsigned long long)(unsigned)f[5] << 32 | (unsigned)f[4]);
}

static int status_ptrs(const ibex_entry_t *e, const void *from, const void *to)
{
    if (!from || !to) /* every MPI_*STATUS*_IGNORE is NULL */
        return ibex_mpi_error(NULL, MPI_ERR_ARG, e->call, "%s status is NULL or an ignore constant",
                              from ? "output" : "input");
    return MPI_SUCCESS;
}

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    IBEX_ENTER_ANYTIME(Status_c2f);
    IBEX_CHECK(status_ptrs(&ibex_e, c_status, f_status));
    status_to_f(c_status, f_status);
    return MPI_SUCCESS;
}

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    IBEX_ENTER_ANYTIME(Status_f2c);
    IBEX_CHECK(status_ptrs(&ibex_e, f_status, c_status));
    status_from_f(f_status, c_status);
    return MPI_SUCCESS;
}

/* MPI_F08_status is the Fortran array's values as named fields, in the same order. */
_Static_assert(sizeof(MPI_F08_status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "MPI_F08_status is the Fortran status' MPI_Fint in order");

int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    IBEX_ENTER_ANYTIME(Status_c2f08);
    IBEX_CHECK(status_ptrs(&ibex_e, c_status, f08_status));
    MPI_Fint f[MPI_F_STATUS_SIZE];
    status_to_f(c_status, f);
    memcpy(f08_status, f, sizeof(f));
    return MPI_SUCCESS;
}

int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    IBEX_ENTER_ANYTIME(Status_f082c);
    IBEX_CHECK(status_ptrs(&ibex_e, f08_status, c_status));
    MPI_Fint f[MPI_F_STATUS_SIZE];
    memcpy(f, f08_status, sizeof(f));
    status_from_f(f, c_status);
    return MPI_SUCCESS;
}

int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
    IBEX_ENTER_ANYTIME(Status_f082f);
    IBEX_CHECK(status_ptrs(&ibex_e, f08_status, f_status));
    memcpy(f_status, f08_status, MPI_F_STATUS_SIZE * sizeof(MPI_Fint));
    return MPI_SUCCESS;
}

int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
    IBEX_ENTER_ANYTIME(Status_f2f08);
    IBEX_CHECK(status_ptrs(&ibex_e, f_status, f08_status));
    memcpy(f08_status, f_status, MPI_F_STATUS_SIZE * sizeof(MPI_Fint));
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(handle_conv)
