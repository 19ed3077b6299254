/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI data-movement collectives: Gather, Scatter, Allgather, Alltoall. Argument checks, then
 * the selected algorithm. Only the root's root-side triple is checked (others may pass
 * anything there, as the standard says those arguments are significant only at the root).
 */
#include "coll.h"
#include "coll_api.h"
#include "ibex_datatype.h"
#include "ibex_err.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

static int data_run(ibex_coll_kind_t kind, const ibex_coll_args_t *a, MPI_Datatype dt, int count,
                    const char *call)
{
    IBEX_CHECK(ibex_coll_check_intra(a->comm, call));
    ibex_status_t st = ibex_coll_run(kind, a, (size_t)count * ibex_dt_get(dt)->size);
    if (st == IBEX_OK)
        return MPI_SUCCESS;
    return ibex_mpi_error(a->comm, ibex_err_class_of(st), call, "%s failed: %s",
                          ibex_coll_kind_name(kind), ibex_status_str(st));
}

/* Checks a rooted collective: the leaf triple everywhere (unless in place at the root), the
 * root triple at the root. leaf_is_send: Gather (send leaf) or Scatter (receive leaf). */
static int rooted_check(ibex_coll_args_t *a, bool leaf_is_send, const char *call)
{
    ibex_comm_t *c = a->comm;
    IBEX_CHECK(ibex_coll_check_intra(c, call));
    if (a->root < 0 || a->root >= c->size)
        return ibex_mpi_error(c, MPI_ERR_ROOT, call,
                              "root %d is not a rank of a communicator of %d", a->root, c->size);
    bool root = c->rank == a->root;
    const void *leaf = leaf_is_send ? a->sbuf : a->rbuf;
    int rc = MPI_SUCCESS;
    if (!(root && leaf == MPI_IN_PLACE))
        rc = leaf_is_send ? ibex_check_triple(c, call, a->sbuf, a->scount, a->sdt)
                          : ibex_check_triple(c, call, a->rbuf, a->rcount, a->rdt);
    if (rc == MPI_SUCCESS && root)
        rc = leaf_is_send ? ibex_check_triple(c, call, a->rbuf, a->rcount, a->rdt)
                          : ibex_check_triple(c, call, a->sbuf, a->scount, a->sdt);
    return rc;
}

/* Gather and Scatter mirror each other: at a leaf the data is the send side of a gather and the
 * receive side of a scatter; at the root MPI_IN_PLACE moves it to the other side. */
static int rooted(ibex_coll_kind_t kind, ibex_coll_args_t *a, MPI_Comm comm, const char *call)
{
    bool gather = kind == IBEX_COLL_GATHER;
    int rc = ibex_comm_enter(comm, call, &a->comm);
    if (rc == MPI_SUCCESS)
        rc = rooted_check(a, gather, call);
    if (rc != MPI_SUCCESS)
        return rc;
    bool leaf_data = (gather ? a->sbuf : a->rbuf) != MPI_IN_PLACE;
    bool use_send = gather == leaf_data;
    return data_run(kind, a, use_send ? a->sdt : a->rdt, use_send ? a->scount : a->rcount, call);
}

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
    return rooted(IBEX_COLL_GATHER, &a, comm, call);
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
    return rooted(IBEX_COLL_SCATTER, &a, comm, call);
}

/* Allgather / Alltoall: sendbuf may be MPI_IN_PLACE on every rank. */
static int all_common(ibex_coll_kind_t kind, ibex_coll_args_t *a, MPI_Comm comm, const char *call)
{
    int rc = ibex_comm_enter(comm, call, &a->comm);
    if (rc == MPI_SUCCESS && a->sbuf != MPI_IN_PLACE)
        rc = ibex_check_triple(a->comm, call, a->sbuf, a->scount, a->sdt);
    if (rc == MPI_SUCCESS)
        rc = ibex_check_triple(a->comm, call, a->rbuf, a->rcount, a->rdt);
    if (rc != MPI_SUCCESS)
        return rc;
    return data_run(kind, a, a->rdt, a->rcount, call);
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
    return all_common(IBEX_COLL_ALLGATHER, &a, comm, call);
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Alltoall);
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype};
    return all_common(IBEX_COLL_ALLTOALL, &a, comm, call);
}

IBEX_MPI_ALIASES(coll_api_data)
