/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The non-blocking collectives (MPI_Ibarrier .. MPI_Iexscan): the blocking call's argument
 * checks (ibex_coll_prepare), then a schedule started at once (coll_nbc_req.c).
 */
#include "coll_api.h"
#include "coll_nbc.h"
#include "ibex_entry.h"

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Ibarrier);
    ibex_coll_args_t a = {0};
    return ibex_nbc_post(IBEX_COLL_BARRIER, comm, MPI_OP_NULL, &a, false, request, call);
}

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    IBEX_ENTER_FAST(Ibcast);
    ibex_coll_args_t a = {.rbuf = buffer, .rcount = count, .rdt = datatype, .root = root};
    return ibex_nbc_post(IBEX_COLL_BCAST, comm, MPI_OP_NULL, &a, false, request, call);
}

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Ireduce);
    ibex_coll_args_t a = {
        .sbuf = sendbuf, .rbuf = recvbuf, .rcount = count, .rdt = datatype, .root = root};
    return ibex_nbc_post(IBEX_COLL_REDUCE, comm, op, &a, false, request, call);
}

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Iallreduce);
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcount = count, .rdt = datatype};
    return ibex_nbc_post(IBEX_COLL_ALLREDUCE, comm, op, &a, false, request, call);
}

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    IBEX_ENTER_FAST(Igather);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype,
                          .root = root};
    return ibex_nbc_post(IBEX_COLL_GATHER, comm, MPI_OP_NULL, &a, false, request, call);
}

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    IBEX_ENTER_FAST(Iscatter);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype,
                          .root = root};
    return ibex_nbc_post(IBEX_COLL_SCATTER, comm, MPI_OP_NULL, &a, false, request, call);
}

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Iallgather);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype};
    return ibex_nbc_post(IBEX_COLL_ALLGATHER, comm, MPI_OP_NULL, &a, false, request, call);
}

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Ialltoall);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype};
    return ibex_nbc_post(IBEX_COLL_ALLTOALL, comm, MPI_OP_NULL, &a, false, request, call);
}

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Igatherv);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .rdispls = displs,
                          .rdt = recvtype,
                          .root = root};
    return ibex_nbc_post(IBEX_COLL_GATHERV, comm, MPI_OP_NULL, &a, false, request, call);
}

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Iscatterv);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scounts = sendcounts,
                          .sdispls = displs,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype,
                          .root = root};
    return ibex_nbc_post(IBEX_COLL_SCATTERV, comm, MPI_OP_NULL, &a, false, request, call);
}

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Iallgatherv);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .rdispls = displs,
                          .rdt = recvtype};
    return ibex_nbc_post(IBEX_COLL_ALLGATHERV, comm, MPI_OP_NULL, &a, false, request, call);
}

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Ialltoallv);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scounts = sendcounts,
                          .sdispls = sdispls,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .rdispls = rdispls,
                          .rdt = recvtype};
    return ibex_nbc_post(IBEX_COLL_ALLTOALLV, comm, MPI_OP_NULL, &a, false, request, call);
}

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    IBEX_ENTER_FAST(Ialltoallw);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scounts = sendcounts,
                          .sdispls = sdispls,
                          .sdts = sendtypes,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .rdispls = rdispls,
                          .rdts = recvtypes};
    return ibex_nbc_post(IBEX_COLL_ALLTOALLW, comm, MPI_OP_NULL, &a, false, request, call);
}

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Ireduce_scatter);
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcounts = recvcounts, .rdt = datatype};
    return ibex_nbc_post(IBEX_COLL_REDUCE_SCATTER, comm, op, &a, false, request, call);
}

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    IBEX_ENTER_FAST(Ireduce_scatter_block);
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcount = recvcount, .rdt = datatype};
    return ibex_nbc_post(IBEX_COLL_REDUCE_SCATTER_BLOCK, comm, op, &a, false, request, call);
}

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Iscan);
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcount = count, .rdt = datatype};
    return ibex_nbc_post(IBEX_COLL_SCAN, comm, op, &a, false, request, call);
}

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Iexscan);
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcount = count, .rdt = datatype};
    return ibex_nbc_post(IBEX_COLL_EXSCAN, comm, op, &a, false, request, call);
}

IBEX_MPI_ALIASES(coll_nbc)
