/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The persistent collectives of MPI 4.0 (MPI_Barrier_init .. MPI_Exscan_init): the blocking
 * call's argument checks, then a schedule built once and left inactive; MPI_Start / Startall
 * run it (p2p_persist.c), Wait / Test complete it, MPI_Request_free frees it.
 */
#include "coll_api.h"
#include "coll_nbc.h"
#include "ibex_entry.h"

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER_FAST(Barrier_init);
    ibex_coll_args_t a = {0};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_BARRIER, comm, MPI_OP_NULL, &a, true, request, call);
}

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER_FAST(Bcast_init);
    ibex_coll_args_t a = {.rbuf = buffer, .rcount = count, .rdt = datatype, .root = root};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_BCAST, comm, MPI_OP_NULL, &a, true, request, call);
}

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER_FAST(Reduce_init);
    ibex_coll_args_t a = {
        .sbuf = sendbuf, .rbuf = recvbuf, .rcount = count, .rdt = datatype, .root = root};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_REDUCE, comm, op, &a, true, request, call);
}

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER_FAST(Allreduce_init);
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcount = count, .rdt = datatype};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_ALLREDUCE, comm, op, &a, true, request, call);
}

int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    IBEX_ENTER_FAST(Gather_init);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype,
                          .root = root};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_GATHER, comm, MPI_OP_NULL, &a, true, request, call);
}

int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    IBEX_ENTER_FAST(Scatter_init);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype,
                          .root = root};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_SCATTER, comm, MPI_OP_NULL, &a, true, request, call);
}

int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    IBEX_ENTER_FAST(Allgather_init);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_ALLGATHER, comm, MPI_OP_NULL, &a, true, request, call);
}

int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    IBEX_ENTER_FAST(Alltoall_init);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_ALLTOALL, comm, MPI_OP_NULL, &a, true, request, call);
}

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER_FAST(Gatherv_init);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .rdispls = displs,
                          .rdt = recvtype,
                          .root = root};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_GATHERV, comm, MPI_OP_NULL, &a, true, request, call);
}

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER_FAST(Scatterv_init);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scounts = sendcounts,
                          .sdispls = displs,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype,
                          .root = root};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_SCATTERV, comm, MPI_OP_NULL, &a, true, request, call);
}

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER_FAST(Allgatherv_init);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .rdispls = displs,
                          .rdt = recvtype};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_ALLGATHERV, comm, MPI_OP_NULL, &a, true, request, call);
}

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    IBEX_ENTER_FAST(Alltoallv_init);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scounts = sendcounts,
                          .sdispls = sdispls,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .rdispls = rdispls,
                          .rdt = recvtype};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_ALLTOALLV, comm, MPI_OP_NULL, &a, true, request, call);
}

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER_FAST(Alltoallw_init);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scounts = sendcounts,
                          .sdispls = sdispls,
                          .sdts = sendtypes,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .rdispls = rdispls,
                          .rdts = recvtypes};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_ALLTOALLW, comm, MPI_OP_NULL, &a, true, request, call);
}

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    IBEX_ENTER_FAST(Reduce_scatter_init);
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcounts = recvcounts, .rdt = datatype};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_REDUCE_SCATTER, comm, op, &a, true, request, call);
}

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    IBEX_ENTER_FAST(Reduce_scatter_block_init);
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcount = recvcount, .rdt = datatype};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_REDUCE_SCATTER_BLOCK, comm, op, &a, true, request, call);
}

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER_FAST(Scan_init);
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcount = count, .rdt = datatype};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_SCAN, comm, op, &a, true, request, call);
}

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER_FAST(Exscan_init);
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcount = count, .rdt = datatype};
    (void)info; /* no hints are used yet */
    return ibex_nbc_post(IBEX_COLL_EXSCAN, comm, op, &a, true, request, call);
}

IBEX_MPI_ALIASES(coll_persist)
