/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Handle conversion between C and Fortran (MPI 4.1 section 19.3.4): MPI_X_c2f / MPI_X_f2c.
 * Ibex handles are ints already, and the same int is the Fortran handle, so each conversion is
 * the identity (an invalid handle stays invalid and is caught where it is used). They are
 * valid at any time.
 */
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

IBEX_MPI_ALIASES(handle_conv)
