/*
 * MPI data-movement collectives: Gather, Scatter, Allgather, Alltoall. Argument checks, then
 * the selected algorithm. Only the root's root-side triple is checked (others may pass
 * anything there, as the standard says those arguments are significant only at the root).
 */
#include "coll.h"
#include "ibex_datatype.h"
#include "ibex_err.h"
#include "ibex_runtime.h"

/* The same checks as coll_api.c's, for the two-triple collectives. */
static int data_enter(MPI_Comm handle, const char *call, ibex_comm_t **comm_p)
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

static int data_triple(ibex_comm_t *c, const char *call, const void *buf, int count,
                       MPI_Datatype dt)
{
    int rc = ibex_check_count(c, call, count);
    if (rc != MPI_SUCCESS)
        return rc;
    const ibex_dt_t *d = ibex_dt_get(dt);
    if (!d)
        return ibex_mpi_error(c, MPI_ERR_TYPE, call, "invalid datatype handle 0x%x", dt);
    if (!d->committed)
        return ibex_mpi_error(c, MPI_ERR_TYPE, call, "datatype %s is not committed", d->name);
    if (buf == MPI_IN_PLACE)
        return ibex_mpi_error(c, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is not allowed here");
    return ibex_check_buffer(c, call, buf, count);
}

static int data_run(ibex_coll_kind_t kind, const ibex_coll_args_t *a, MPI_Datatype dt, int count,
                    const char *call)
{
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
    if (a->root < 0 || a->root >= c->size)
        return ibex_mpi_error(c, MPI_ERR_ROOT, call,
                              "root %d is not a rank of a communicator of %d", a->root, c->size);
    bool root = c->rank == a->root;
    const void *leaf = leaf_is_send ? a->sbuf : a->rbuf;
    int rc = MPI_SUCCESS;
    if (!(root && leaf == MPI_IN_PLACE))
        rc = leaf_is_send ? data_triple(c, call, a->sbuf, a->scount, a->sdt)
                          : data_triple(c, call, a->rbuf, a->rcount, a->rdt);
    if (rc == MPI_SUCCESS && root)
        rc = leaf_is_send ? data_triple(c, call, a->rbuf, a->rcount, a->rdt)
                          : data_triple(c, call, a->sbuf, a->scount, a->sdt);
    return rc;
}

IBEX_WEAK_ALIAS(Gather)
int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    const char *call = "MPI_Gather";
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype,
                          .root = root};
    int rc = data_enter(comm, call, &a.comm);
    if (rc == MPI_SUCCESS)
        rc = rooted_check(&a, true, call);
    if (rc != MPI_SUCCESS)
        return rc;
    bool leaf_data = sendbuf != MPI_IN_PLACE;
    return data_run(IBEX_COLL_GATHER, &a, leaf_data ? sendtype : recvtype,
                    leaf_data ? sendcount : recvcount, call);
}

IBEX_WEAK_ALIAS(Scatter)
int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    const char *call = "MPI_Scatter";
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype,
                          .root = root};
    int rc = data_enter(comm, call, &a.comm);
    if (rc == MPI_SUCCESS)
        rc = rooted_check(&a, false, call);
    if (rc != MPI_SUCCESS)
        return rc;
    bool leaf_data = recvbuf != MPI_IN_PLACE;
    return data_run(IBEX_COLL_SCATTER, &a, leaf_data ? recvtype : sendtype,
                    leaf_data ? recvcount : sendcount, call);
}

/* Allgather / Alltoall: sendbuf may be MPI_IN_PLACE on every rank. */
static int all_common(ibex_coll_kind_t kind, ibex_coll_args_t *a, MPI_Comm comm, const char *call)
{
    int rc = data_enter(comm, call, &a->comm);
    if (rc == MPI_SUCCESS && a->sbuf != MPI_IN_PLACE)
        rc = data_triple(a->comm, call, a->sbuf, a->scount, a->sdt);
    if (rc == MPI_SUCCESS)
        rc = data_triple(a->comm, call, a->rbuf, a->rcount, a->rdt);
    if (rc != MPI_SUCCESS)
        return rc;
    return data_run(kind, a, a->rdt, a->rcount, call);
}

IBEX_WEAK_ALIAS(Allgather)
int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype};
    return all_common(IBEX_COLL_ALLGATHER, &a, comm, "MPI_Allgather");
}

IBEX_WEAK_ALIAS(Alltoall)
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    ibex_coll_args_t a = {.sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype};
    return all_common(IBEX_COLL_ALLTOALL, &a, comm, "MPI_Alltoall");
}
