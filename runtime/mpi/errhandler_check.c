/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Argument checks shared by the MPI entry points (see ibex_err.h). Each one is a compare on the
 * fast path; the message is only formatted when the check fails.
 */
#include "ibex_comm.h"
#include "ibex_err.h"

/* MPI_TAG_UB: 2^30 - 1, so that tags fit in 31 bits of a header field with room to spare and
 * internal collective tags can live above it if ever needed. */
const int ibex_tag_ub = (1 << 30) - 1;

int ibex_check_count(struct ibex_comm *comm, const char *call, MPI_Count count)
{
    if (count >= 0)
        return MPI_SUCCESS;
    return ibex_mpi_error(comm, MPI_ERR_COUNT, call, "invalid count %lld (negative)",
                          (long long)count);
}

int ibex_check_tag(struct ibex_comm *comm, const char *call, int tag, int allow_any)
{
    if (tag >= 0 && tag <= ibex_tag_ub)
        return MPI_SUCCESS;
    if (tag == MPI_ANY_TAG && allow_any)
        return MPI_SUCCESS;
    return ibex_mpi_error(comm, MPI_ERR_TAG, call, "invalid tag %d (valid: 0..%d%s)", tag,
                          ibex_tag_ub, allow_any ? " or MPI_ANY_TAG" : "");
}

int ibex_check_rank(struct ibex_comm *comm, const char *call, int rank, int allow_any)
{
    /* point-to-point ranks: an intercommunicator's name its remote group */
    if ((rank >= 0 && rank < comm->peer_size) || rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank == MPI_ANY_SOURCE && allow_any)
        return MPI_SUCCESS;
    if (rank == MPI_ANY_SOURCE)
        return ibex_mpi_error(comm, MPI_ERR_RANK, call,
                              "MPI_ANY_SOURCE is not allowed here (communicator size %d)",
                              comm->peer_size);
    return ibex_mpi_error(comm, MPI_ERR_RANK, call, "invalid rank %d (%s size %d)", rank,
                          comm->local ? "remote group" : "communicator", comm->peer_size);
}

int ibex_check_buffer(struct ibex_comm *comm, const char *call, const void *buf, MPI_Count count)
{
    if (buf || count <= 0)
        return MPI_SUCCESS;
    return ibex_mpi_error(comm, MPI_ERR_BUFFER, call, "buffer is NULL with count %lld",
                          (long long)count);
}

struct ibex_comm *ibex_comm_lookup(MPI_Comm handle, const char *call)
{
    ibex_comm_t *comm = ibex_comm_get(handle);
    if (comm)
        return comm;
    ibex_mpi_error(NULL, MPI_ERR_COMM, call, "invalid communicator 0x%x%s", (unsigned)handle,
                   handle == MPI_COMM_NULL ? " (MPI_COMM_NULL)" : "");
    return NULL;
}

int ibex_comm_enter(MPI_Comm handle, const char *call, struct ibex_comm **comm_p)
{
    int rc = ibex_check_initialized(call);
    if (rc != MPI_SUCCESS)
        return rc;
    ibex_comm_t *comm = ibex_comm_lookup(handle, call);
    if (!comm)
        return MPI_ERR_COMM;
    *comm_p = comm;
    return MPI_SUCCESS;
}
