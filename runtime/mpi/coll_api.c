/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI collective entry points: argument checks with MPI error classes, then the algorithm the
 * selection table picks (coll_select.c). Checks are local: an argument error on one rank
 * returns there (the program is erroneous and the other ranks may wait); the checks never
 * send anything.
 *
 * MPI_IN_PLACE is accepted where the standard allows it: sendbuf of Reduce (root), Allreduce,
 * Gather (root), Allgather and Alltoall; recvbuf of Scatter (root).
 */
#include "coll.h"
#include "coll_api.h"
#include "ibex_datatype.h"
#include "ibex_err.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

int ibex_coll_check_intra(ibex_comm_t *c, const char *call)
{
    if (!ibex_comm_is_inter(c))
        return MPI_SUCCESS;
    return ibex_mpi_error(c, MPI_ERR_COMM, call, "not supported on an intercommunicator yet");
}

static int check_root(ibex_comm_t *c, const char *call, int root)
{
    IBEX_CHECK(ibex_coll_check_intra(c, call));
    if (root < 0 || root >= c->size)
        return ibex_mpi_error(c, MPI_ERR_ROOT, call,
                              "root %d is not a rank of a communicator"
                              " of %d",
                              root, c->size);
    return MPI_SUCCESS;
}

/* A live op that is defined on dt (a predefined op is checked with an empty application; user
 * ops are defined on whatever the program says). */
static int check_op(ibex_comm_t *c, const char *call, MPI_Op op, MPI_Datatype dt,
                    const ibex_op_t **op_p)
{
    const ibex_op_t *o = ibex_op_get(op);
    if (!o)
        return ibex_mpi_error(c, MPI_ERR_OP, call, "invalid op handle 0x%x", op);
    if (o->predefined && ibex_op_apply(o, NULL, NULL, 0, dt) != MPI_SUCCESS)
        return ibex_mpi_error(c, MPI_ERR_OP, call, "op 0x%x is not defined on datatype %s", op,
                              ibex_dt_get(dt)->name);
    *op_p = o;
    return MPI_SUCCESS;
}

static size_t coll_bytes(MPI_Datatype dt, int count)
{
    return (size_t)count * ibex_dt_get(dt)->size;
}

static int coll_run(ibex_coll_kind_t kind, const ibex_coll_args_t *a, size_t bytes,
                    const char *call)
{
    IBEX_CHECK(ibex_coll_check_intra(a->comm, call));
    ibex_status_t st = ibex_coll_run(kind, a, bytes);
    if (st == IBEX_OK)
        return MPI_SUCCESS;
    return ibex_mpi_error(a->comm, ibex_err_class_of(st), call, "%s failed: %s",
                          ibex_coll_kind_name(kind), ibex_status_str(st));
}

int PMPI_Barrier(MPI_Comm comm)
{
    IBEX_ENTER_COMM(Barrier, comm, c);
    ibex_coll_args_t a = {.comm = c};
    return coll_run(IBEX_COLL_BARRIER, &a, 0, call);
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    IBEX_ENTER_COMM(Bcast, comm, c);
    IBEX_CHECK(check_root(c, call, root));
    IBEX_CHECK(ibex_check_triple(c, call, buffer, count, datatype));
    ibex_coll_args_t a = {
        .comm = c, .rbuf = buffer, .rcount = count, .rdt = datatype, .root = root};
    return coll_run(IBEX_COLL_BCAST, &a, coll_bytes(datatype, count), call);
}

/* Reduce and Allreduce: sendbuf may be MPI_IN_PLACE (Reduce: at the root only). */
static int reduce_common(ibex_coll_kind_t kind, const ibex_coll_args_t *in, MPI_Op op,
                         MPI_Comm comm, const char *call)
{
    ibex_coll_args_t a = *in;
    int rc = ibex_comm_enter(comm, call, &a.comm);
    if (rc == MPI_SUCCESS)
        rc = ibex_coll_check_intra(a.comm, call);
    if (rc == MPI_SUCCESS && kind == IBEX_COLL_REDUCE)
        rc = check_root(a.comm, call, a.root);
    bool is_root = kind == IBEX_COLL_ALLREDUCE || (a.comm && a.comm->rank == a.root);
    if (rc == MPI_SUCCESS && (a.sbuf != MPI_IN_PLACE || !is_root))
        rc = ibex_check_triple(a.comm, call, a.sbuf, a.rcount, a.rdt);
    if (rc == MPI_SUCCESS && is_root)
        rc = ibex_check_triple(a.comm, call, a.rbuf, a.rcount, a.rdt);
    if (rc == MPI_SUCCESS)
        rc = check_op(a.comm, call, op, a.rdt, &a.op);
    if (rc != MPI_SUCCESS)
        return rc;
    return coll_run(kind, &a, coll_bytes(a.rdt, a.rcount), call);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Reduce);
    ibex_coll_args_t a = {
        .sbuf = sendbuf, .rbuf = recvbuf, .rcount = count, .rdt = datatype, .root = root};
    return reduce_common(IBEX_COLL_REDUCE, &a, op, comm, call);
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    IBEX_ENTER_FAST(Allreduce);
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcount = count, .rdt = datatype};
    return reduce_common(IBEX_COLL_ALLREDUCE, &a, op, comm, call);
}

/* One (buffer, count, datatype) triple of a collective: count >= 0, a committed datatype, a buffer.
 */
int ibex_check_triple(ibex_comm_t *c, const char *call, const void *buf, int count, MPI_Datatype dt)
{
    ibex_dt_t *d;
    int rc = ibex_check_count(c, call, count);
    if (rc == MPI_SUCCESS)
        rc = ibex_dt_lookup_on(c, dt, call, true, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    if (buf == MPI_IN_PLACE)
        return ibex_mpi_error(c, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is not allowed here");
    /* MPI_BOTTOM (NULL) is a valid base for absolute displacements of derived types */
    return d->predefined ? ibex_check_buffer(c, call, buf, count) : MPI_SUCCESS;
}

IBEX_MPI_ALIASES(coll_api)
