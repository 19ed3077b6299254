/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI data-movement collectives: Gather, Scatter, Allgather, Alltoall. The checks are those of
 * coll_check.c, the run ibex_coll_call's (coll_api.c).
 */
#include "coll.h"
#include "coll_api.h"
#include "ibex_entry.h"

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Gather);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype,
                          .root = root};
    return ibex_coll_call(IBEX_COLL_GATHER, comm, MPI_OP_NULL, call, &a);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Scatter);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype,
                          .root = root};
    return ibex_coll_call(IBEX_COLL_SCATTER, comm, MPI_OP_NULL, call, &a);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Allgather);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype};
    return ibex_coll_call(IBEX_COLL_ALLGATHER, comm, MPI_OP_NULL, call, &a);
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Alltoall);
    if (ibex_coll_alltoall_tiny(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
        return MPI_SUCCESS;
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype};
    return ibex_coll_call(IBEX_COLL_ALLTOALL, comm, MPI_OP_NULL, call, &a);
}

IBEX_MPI_ALIASES(coll_api_data)
