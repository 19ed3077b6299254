/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI collectives with per-rank counts (Gatherv, Scatterv, Allgatherv, Alltoallv, Alltoallw),
 * the reduce-scatters and the scans. The checks are those of coll_check.c (MPI_IN_PLACE where
 * MPI 4.1 allows it: sendbuf of Gatherv at the root, Allgatherv, Alltoallv / w, Reduce_scatter
 * (_block), Scan, Exscan; recvbuf of Scatterv at the root), the run ibex_coll_call's.
 */
#include "coll.h"
#include "coll_api.h"
#include "ibex_entry.h"

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    IBEX_ENTER_FAST(Gatherv);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .rdispls = displs,
                          .rdt = recvtype,
                          .root = root};
    return ibex_coll_call(IBEX_COLL_GATHERV, comm, MPI_OP_NULL, call, &a);
}

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Scatterv);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scounts = sendcounts,
                          .sdispls = displs,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype,
                          .root = root};
    return ibex_coll_call(IBEX_COLL_SCATTERV, comm, MPI_OP_NULL, call, &a);
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    IBEX_ENTER_FAST(Allgatherv);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .rdispls = displs,
                          .rdt = recvtype};
    return ibex_coll_call(IBEX_COLL_ALLGATHERV, comm, MPI_OP_NULL, call, &a);
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Alltoallv);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scounts = sendcounts,
                          .sdispls = sdispls,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .rdispls = rdispls,
                          .rdt = recvtype};
    return ibex_coll_call(IBEX_COLL_ALLTOALLV, comm, MPI_OP_NULL, call, &a);
}

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    IBEX_ENTER_FAST(Alltoallw);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scounts = sendcounts,
                          .sdispls = sdispls,
                          .sdts = sendtypes,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .rdispls = rdispls,
                          .rdts = recvtypes};
    return ibex_coll_call(IBEX_COLL_ALLTOALLW, comm, MPI_OP_NULL, call, &a);
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Reduce_scatter);
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcounts = recvcounts, .rdt = datatype};
    return ibex_coll_call(IBEX_COLL_REDUCE_SCATTER, comm, op, call, &a);
}

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Reduce_scatter_block);
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcount = recvcount, .rdt = datatype};
    return ibex_coll_call(IBEX_COLL_REDUCE_SCATTER_BLOCK, comm, op, call, &a);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    IBEX_ENTER_FAST(Scan);
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcount = count, .rdt = datatype};
    return ibex_coll_call(IBEX_COLL_SCAN, comm, op, call, &a);
}

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    IBEX_ENTER_FAST(Exscan);
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcount = count, .rdt = datatype};
    return ibex_coll_call(IBEX_COLL_EXSCAN, comm, op, call, &a);
}

IBEX_MPI_ALIASES(coll_api_v)
