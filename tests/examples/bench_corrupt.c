/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A PMPI shim for tests/examples/bench.sh: linked into a copy of ibex-bench, it flips one bit of
 * what MPI_Recv and MPI_Allreduce deliver, so that ibex-bench -c must report the mismatch (and
 * exit 1) for latency and allreduce. Standard MPI profiling interface only.
 */
#include <mpi.h>

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    int rc = PMPI_Recv(buf, count, datatype, source, tag, comm, status);
    if (rc == MPI_SUCCESS && count > 0 && datatype == MPI_BYTE)
        ((unsigned char *)buf)[count - 1] ^= 0x10;
    return rc;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    int rc = PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    if (rc == MPI_SUCCESS && count > 0 && datatype == MPI_INT)
        ((int *)recvbuf)[0] += 1;
    return rc;
}
