/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The large-count forms of the same-count collectives (MPI_Bcast_c, Reduce_c, Allreduce_c,
 * Gather_c, Scatter_c, Allgather_c, Alltoall_c). A count that fits in an int is the int call.
 * A larger one is sent as one element of a contiguous type of `count` elements
 * (MPI_Type_contiguous_c: the datatype engine counts in MPI_Count), so the collectives, which
 * count in int, move it unchanged: the type signature is the same count of the same basic
 * elements, and every rank whose count is past an int wraps it the same way. Predefined ops
 * reduce a contiguous type element by element; a user op would see the wrapping type instead of
 * its own, so a user op with a count past an int stays MPI_ERR_COUNT. A count that is not
 * significant at a rank (a non-root's receive count, a send count beside MPI_IN_PLACE) is not
 * read. The v / w forms, the reduce-scatters and scans and the non-blocking and persistent
 * forms still count in int (MPI_ERR_COUNT past it).
 */
#include <limits.h>

#include "ibex_comm.h"
#include "ibex_err.h"
#include "ibex_op.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

/* One (buffer count, type) of a call as the int call takes it: as is, or wrapped. */
typedef struct large_arg {
    int count;
    MPI_Datatype type;
    bool wrapped;
} large_arg_t;

static int wrap(ibex_entry_t *e, const char *what, MPI_Count count, MPI_Datatype dt,
                large_arg_t *out)
{
    out->wrapped = false;
    out->type = dt;
    if (count <= INT_MAX) {
        out->count = count < INT_MIN ? -1 : (int)count; /* negative: the int call says so */
        return MPI_SUCCESS;
    }
    int rc = PMPI_Type_contiguous_c(count, dt, &out->type);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(&out->type);
    if (rc != MPI_SUCCESS)
        return ibex_mpi_error(e->comm, rc, e->call, "%s %lld: no type of that many elements", what,
                              (long long)count);
    out->count = 1;
    out->wrapped = true;
    return MPI_SUCCESS;
}

/* A pair that is not significant at this rank: passed on as count 0, never read. */
static void skip(MPI_Datatype dt, large_arg_t *out)
{
    *out = (large_arg_t){0, dt, false};
}

static int unwrap(int rc, large_arg_t *a, large_arg_t *b)
{
    if (a && a->wrapped)
        PMPI_Type_free(&a->type);
    if (b && b->wrapped)
        PMPI_Type_free(&b->type);
    return rc;
}

static int user_op_check(ibex_entry_t *e, MPI_Op op, MPI_Count count)
{
    ibex_op_t *o = ibex_op_get(op);
    if (count > INT_MAX && o && !o->predefined)
        return ibex_mpi_error(e->comm, MPI_ERR_COUNT, e->call,
                              "count %lld with a user op: Ibex's collectives give user ops int "
                              "counts (predefined ops take any count)",
                              (long long)count);
    return MPI_SUCCESS;
}

/* True where the root's arguments are significant: the root of an intracommunicator, MPI_ROOT
 * on an intercommunicator. */
static bool at_root(MPI_Comm comm, int root)
{
    ibex_comm_t *c = ibex_comm_get(comm);
    if (!c)
        return true; /* the int call reports the communicator */
    return ibex_comm_is_inter(c) ? root == MPI_ROOT : c->rank == root;
}

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    IBEX_ENTER(Bcast_c);
    ibex_e.comm = ibex_comm_get(comm);
    large_arg_t a;
    IBEX_CHECK(wrap(&ibex_e, "count", count, datatype, &a));
    return unwrap(PMPI_Bcast(buffer, a.count, a.type, root, comm), &a, NULL);
}

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm)
{
    IBEX_ENTER(Reduce_c);
    ibex_e.comm = ibex_comm_get(comm);
    large_arg_t a;
    IBEX_CHECK(user_op_check(&ibex_e, op, count));
    IBEX_CHECK(wrap(&ibex_e, "count", count, datatype, &a));
    return unwrap(PMPI_Reduce(sendbuf, recvbuf, a.count, a.type, op, root, comm), &a, NULL);
}

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm)
{
    IBEX_ENTER(Allreduce_c);
    ibex_e.comm = ibex_comm_get(comm);
    large_arg_t a;
    IBEX_CHECK(user_op_check(&ibex_e, op, count));
    IBEX_CHECK(wrap(&ibex_e, "count", count, datatype, &a));
    return unwrap(PMPI_Allreduce(sendbuf, recvbuf, a.count, a.type, op, comm), &a, NULL);
}

/* The send and receive pairs of a data-movement collective; send_sig / recv_sig say whether
 * each is significant here. */
static int wrap_pair(ibex_entry_t *e, MPI_Count sc, MPI_Datatype st, bool send_sig, MPI_Count rc_,
                     MPI_Datatype rt, bool recv_sig, large_arg_t *s, large_arg_t *r)
{
    if (send_sig)
        IBEX_CHECK(wrap(e, "sendcount", sc, st, s));
    else
        skip(st, s);
    if (!recv_sig) {
        skip(rt, r);
        return MPI_SUCCESS;
    }
    int rc = wrap(e, "recvcount", rc_, rt, r);
    return rc == MPI_SUCCESS ? rc : unwrap(rc, s, NULL);
}

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    IBEX_ENTER(Gather_c);
    ibex_e.comm = ibex_comm_get(comm);
    large_arg_t s, r;
    bool me = at_root(comm, root), inter = ibex_e.comm && ibex_comm_is_inter(ibex_e.comm);
    bool send_sig = inter ? root != MPI_ROOT && root != MPI_PROC_NULL : sendbuf != MPI_IN_PLACE;
    IBEX_CHECK(wrap_pair(&ibex_e, sendcount, sendtype, send_sig, recvcount, recvtype, me, &s, &r));
    return unwrap(PMPI_Gather(sendbuf, s.count, s.type, recvbuf, r.count, r.type, root, comm), &s,
                  &r);
}

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    IBEX_ENTER(Scatter_c);
    ibex_e.comm = ibex_comm_get(comm);
    large_arg_t s, r;
    bool me = at_root(comm, root), inter = ibex_e.comm && ibex_comm_is_inter(ibex_e.comm);
    bool recv_sig = inter ? root != MPI_ROOT && root != MPI_PROC_NULL : recvbuf != MPI_IN_PLACE;
    IBEX_CHECK(wrap_pair(&ibex_e, sendcount, sendtype, me, recvcount, recvtype, recv_sig, &s, &r));
    return unwrap(PMPI_Scatter(sendbuf, s.count, s.type, recvbuf, r.count, r.type, root, comm), &s,
                  &r);
}

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    IBEX_ENTER(Allgather_c);
    ibex_e.comm = ibex_comm_get(comm);
    large_arg_t s, r;
    IBEX_CHECK(wrap_pair(&ibex_e, sendcount, sendtype, sendbuf != MPI_IN_PLACE, recvcount, recvtype,
                         true, &s, &r));
    return unwrap(PMPI_Allgather(sendbuf, s.count, s.type, recvbuf, r.count, r.type, comm), &s, &r);
}

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    IBEX_ENTER(Alltoall_c);
    ibex_e.comm = ibex_comm_get(comm);
    large_arg_t s, r;
    IBEX_CHECK(wrap_pair(&ibex_e, sendcount, sendtype, sendbuf != MPI_IN_PLACE, recvcount, recvtype,
                         true, &s, &r));
    return unwrap(PMPI_Alltoall(sendbuf, s.count, s.type, recvbuf, r.count, r.type, comm), &s, &r);
}

IBEX_MPI_ALIASES(coll_large)
