/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Argument checks of every collective, one function per kind, shared by the blocking entry
 * points and the non-blocking / persistent ones (coll_api.h: ibex_coll_prepare). Checks are
 * local: an argument error on one rank returns there (the program is erroneous and the other
 * ranks may wait); nothing is sent.
 *
 * MPI_IN_PLACE is accepted exactly where MPI 4.1 allows it: sendbuf of Reduce (root),
 * Allreduce, Gather(v) (root), Allgather(v), Alltoall(v,w), Reduce_scatter(_block), Scan and
 * Exscan; recvbuf of Scatter(v) (root). Everywhere else it is MPI_ERR_BUFFER.
 */
#include <limits.h>

#include "coll.h"
#include "coll_api.h"
#include "coll_sched.h"
#include "ibex_comm_inter.h"
#include "ibex_datatype.h"
#include "ibex_err.h"
#include "ibex_log.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

typedef int (*prep_fn_t)(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p);

static size_t dt_bytes(MPI_Datatype dt, long long count)
{
    return (size_t)count * ibex_dt_get(dt)->size;
}

static int check_root(ibex_comm_t *c, const char *call, int root)
{
    if (root < 0 || root >= c->size)
        return ibex_mpi_error(c, MPI_ERR_ROOT, call,
                              "root %d is not a rank of a communicator"
                              " of %d",
                              root, c->size);
    return MPI_SUCCESS;
}

/* A live op that is defined on dt (user ops are defined on whatever the program says). */
static int check_op(ibex_comm_t *c, const char *call, MPI_Op op, MPI_Datatype dt,
                    const ibex_op_t **op_p)
{
    const ibex_op_t *o = ibex_op_get(op);
    if (!o)
        return ibex_mpi_error(c, MPI_ERR_OP, call, "invalid op handle 0x%x", op);
    const ibex_dt_t *d = ibex_dt_get(dt); /* looked up by the buffer checks before */
    if (o->predefined && (!d || !ibex_op_defined_on(o, d)))
        return ibex_mpi_error(c, MPI_ERR_OP, call, "op 0x%x is not defined on datatype %s", op,
                              d ? d->name : "(invalid)");
    *op_p = o;
    return MPI_SUCCESS;
}

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

/* A per-rank array of n entries, each >= 0 when it holds counts; *total_p their sum. */
static int check_array_n(ibex_comm_t *c, const char *call, const int *arr, const char *name,
                         bool counts, int n, long long *total_p)
{
    if (!arr)
        return ibex_mpi_error(c, MPI_ERR_ARG, call, "%s is NULL", name);
    long long total = 0;
    for (int i = 0; counts && i < n; i++) {
        if (arr[i] < 0)
            return ibex_mpi_error(c, MPI_ERR_COUNT, call, "%s[%d] is negative (%d)", name, i,
                                  arr[i]);
        total += arr[i];
    }
    if (total_p)
        *total_p = total;
    return MPI_SUCCESS;
}

/* One entry per rank of the group that point-to-point ranks name (the remote one on an
 * intercommunicator). */
static int check_array(ibex_comm_t *c, const char *call, const int *arr, const char *name,
                       bool counts, long long *total_p)
{
    return check_array_n(c, call, arr, name, counts, c->peer_size, total_p);
}

/* A buffer described by (counts[], displs[], dt) over the communicator's ranks. */
static int check_vbuf(ibex_comm_t *c, const char *call, const void *buf, const int *counts,
                      const int *displs, MPI_Datatype dt, const MPI_Datatype *dts,
                      const char *cname, const char *dname)
{
    long long total;
    int rc = check_array(c, call, counts, cname, true, &total);
    if (rc == MPI_SUCCESS)
        rc = check_array(c, call, displs, dname, false, NULL);
    if (rc != MPI_SUCCESS || buf)
        return rc == MPI_SUCCESS
                   ? ibex_check_triple(c, call, buf, total > INT_MAX ? INT_MAX : (int)total, dt)
                   : rc;
    /* MPI_BOTTOM: the blocks are at absolute displacements, with basic types too (MPI 4.1
     * section 4.1.12); only a block of a basic type at displacement 0 would be at address 0 */
    IBEX_CHECK(ibex_check_triple(c, call, buf, 0, dt));
    for (int i = 0; i < c->peer_size; i++) {
        const ibex_dt_t *d = ibex_dt_get(dts ? dts[i] : dt);
        if (counts[i] > 0 && displs[i] == 0 && d && d->predefined)
            return ibex_mpi_error(c, MPI_ERR_BUFFER, call,
                                  "buffer is MPI_BOTTOM (NULL) and block %d of %d elements of a "
                                  "basic type is at displacement 0",
                                  i, counts[i]);
    }
    return MPI_SUCCESS;
}

static int prep_barrier(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    (void)a, (void)op, (void)call;
    *bytes_p = 0;
    return MPI_SUCCESS;
}

static int prep_bcast(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    (void)op;
    IBEX_CHECK(check_root(a->comm, call, a->root));
    IBEX_CHECK(ibex_check_triple(a->comm, call, a->rbuf, a->rcount, a->rdt));
    *bytes_p = dt_bytes(a->rdt, a->rcount);
    return MPI_SUCCESS;
}

/* Who gets a result: the root (Reduce), everyone (Allreduce, Scan), everyone but rank 0
 * (Exscan: there recvbuf is not significant, unless it holds the data, in place). */
typedef enum { RESULT_AT_ROOT, RESULT_EVERYWHERE, RESULT_BUT_RANK0 } result_at_t;

/* Reduce, Allreduce, Scan, Exscan: sendbuf may be MPI_IN_PLACE (Reduce: at the root only). */
static int check_reduce(ibex_coll_args_t *a, MPI_Op op, const char *call, result_at_t at,
                        size_t *bytes_p)
{
    ibex_comm_t *c = a->comm;
    if (at == RESULT_AT_ROOT)
        IBEX_CHECK(check_root(c, call, a->root));
    bool gets_result = at == RESULT_EVERYWHERE || (at == RESULT_AT_ROOT && c->rank == a->root) ||
                       (at == RESULT_BUT_RANK0 && (c->rank > 0 || a->sbuf == MPI_IN_PLACE));
    bool in_place_ok = at != RESULT_AT_ROOT || c->rank == a->root;
    if (a->sbuf != MPI_IN_PLACE || !in_place_ok)
        IBEX_CHECK(ibex_check_triple(c, call, a->sbuf, a->rcount, a->rdt));
    if (gets_result)
        IBEX_CHECK(ibex_check_triple(c, call, a->rbuf, a->rcount, a->rdt));
    IBEX_CHECK(check_op(c, call, op, a->rdt, &a->op));
    *bytes_p = dt_bytes(a->rdt, a->rcount);
    return MPI_SUCCESS;
}

static int prep_reduce(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    return check_reduce(a, op, call, RESULT_AT_ROOT, bytes_p);
}

static int prep_allreduce(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    return check_reduce(a, op, call, RESULT_EVERYWHERE, bytes_p);
}

static int prep_exscan(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    return check_reduce(a, op, call, RESULT_BUT_RANK0, bytes_p);
}

/* Gather and Scatter mirror each other: at a leaf the data is the send side of a gather and the
 * receive side of a scatter; at the root MPI_IN_PLACE moves it to the other side. Only the
 * root's root-side triple is checked (elsewhere those arguments are not significant). */
static int prep_rooted(ibex_coll_args_t *a, bool gather, const char *call, size_t *bytes_p)
{
    ibex_comm_t *c = a->comm;
    IBEX_CHECK(check_root(c, call, a->root));
    bool root = c->rank == a->root;
    const void *leaf = gather ? a->sbuf : a->rbuf;
    if (!(root && leaf == MPI_IN_PLACE))
        IBEX_CHECK(gather ? ibex_check_triple(c, call, a->sbuf, a->scount, a->sdt)
                          : ibex_check_triple(c, call, a->rbuf, a->rcount, a->rdt));
    if (root)
        IBEX_CHECK(gather ? ibex_check_triple(c, call, a->rbuf, a->rcount, a->rdt)
                          : ibex_check_triple(c, call, a->sbuf, a->scount, a->sdt));
    bool use_send = gather == (leaf != MPI_IN_PLACE);
    *bytes_p = use_send ? dt_bytes(a->sdt, a->scount) : dt_bytes(a->rdt, a->rcount);
    return MPI_SUCCESS;
}

static int prep_gather(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    (void)op;
    return prep_rooted(a, true, call, bytes_p);
}

static int prep_scatter(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    (void)op;
    return prep_rooted(a, false, call, bytes_p);
}

/* Allgather / Alltoall: sendbuf may be MPI_IN_PLACE on every rank. */
static int prep_all(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    (void)op;
    if (a->sbuf != MPI_IN_PLACE)
        IBEX_CHECK(ibex_check_triple(a->comm, call, a->sbuf, a->scount, a->sdt));
    IBEX_CHECK(ibex_check_triple(a->comm, call, a->rbuf, a->rcount, a->rdt));
    *bytes_p = dt_bytes(a->rdt, a->rcount);
    return MPI_SUCCESS;
}

static int prep_gatherv(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    (void)op;
    ibex_comm_t *c = a->comm;
    IBEX_CHECK(check_root(c, call, a->root));
    bool root = c->rank == a->root;
    if (!(root && a->sbuf == MPI_IN_PLACE))
        IBEX_CHECK(ibex_check_triple(c, call, a->sbuf, a->scount, a->sdt));
    if (root)
        IBEX_CHECK(check_vbuf(c, call, a->rbuf, a->rcounts, a->rdispls, a->rdt, a->rdts,
                              "recvcounts", "displs"));
    *bytes_p = 0;
    return MPI_SUCCESS;
}

static int prep_scatterv(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    (void)op;
    ibex_comm_t *c = a->comm;
    IBEX_CHECK(check_root(c, call, a->root));
    bool root = c->rank == a->root;
    if (!(root && a->rbuf == MPI_IN_PLACE))
        IBEX_CHECK(ibex_check_triple(c, call, a->rbuf, a->rcount, a->rdt));
    if (root)
        IBEX_CHECK(check_vbuf(c, call, a->sbuf, a->scounts, a->sdispls, a->sdt, a->sdts,
                              "sendcounts", "displs"));
    *bytes_p = 0;
    return MPI_SUCCESS;
}

static int prep_allgatherv(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    (void)op;
    ibex_comm_t *c = a->comm;
    if (a->sbuf != MPI_IN_PLACE)
        IBEX_CHECK(ibex_check_triple(c, call, a->sbuf, a->scount, a->sdt));
    IBEX_CHECK(check_vbuf(c, call, a->rbuf, a->rcounts, a->rdispls, a->rdt, a->rdts, "recvcounts",
                          "displs"));
    long long total = 0;
    for (int i = 0; i < c->size; i++)
        total += a->rcounts[i];
    *bytes_p = dt_bytes(a->rdt, total / c->size);
    return MPI_SUCCESS;
}

static int prep_alltoallv(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    (void)op;
    ibex_comm_t *c = a->comm;
    if (a->sbuf != MPI_IN_PLACE)
        IBEX_CHECK(check_vbuf(c, call, a->sbuf, a->scounts, a->sdispls, a->sdt, a->sdts,
                              "sendcounts", "sdispls"));
    IBEX_CHECK(check_vbuf(c, call, a->rbuf, a->rcounts, a->rdispls, a->rdt, a->rdts, "recvcounts",
                          "rdispls"));
    *bytes_p = 0;
    return MPI_SUCCESS;
}

/* One side of an Alltoallw: counts, byte displacements and a type per peer. */
static int check_wside(ibex_comm_t *c, const char *call, const void *buf, const int *counts,
                       const int *displs, const MPI_Datatype *dts, bool send)
{
    IBEX_CHECK(check_array(c, call, counts, send ? "sendcounts" : "recvcounts", true, NULL));
    IBEX_CHECK(check_array(c, call, displs, send ? "sdispls" : "rdispls", false, NULL));
    if (!dts)
        return ibex_mpi_error(c, MPI_ERR_ARG, call, "%s is NULL", send ? "sendtypes" : "recvtypes");
    for (int i = 0; i < c->peer_size; i++) /* an empty block's type is not looked at (MPICH) */
        if (counts[i] > 0)
            IBEX_CHECK(ibex_check_triple(c, call, buf, counts[i], dts[i]));
    return MPI_SUCCESS;
}

static int prep_alltoallw(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    (void)op;
    if (a->sbuf != MPI_IN_PLACE)
        IBEX_CHECK(check_wside(a->comm, call, a->sbuf, a->scounts, a->sdispls, a->sdts, true));
    IBEX_CHECK(check_wside(a->comm, call, a->rbuf, a->rcounts, a->rdispls, a->rdts, false));
    *bytes_p = 0;
    return MPI_SUCCESS;
}

/* Reduce_scatter(_block): sbuf holds the whole vector (or is MPI_IN_PLACE: then rbuf does);
 * rbuf gets this rank's block. */
static int check_rs(ibex_coll_args_t *a, MPI_Op op, const char *call, long long total, int mine)
{
    ibex_comm_t *c = a->comm;
    if (total > INT_MAX)
        return ibex_mpi_error(c, MPI_ERR_COUNT, call, "%lld elements in all do not fit in an int",
                              total);
    if (a->sbuf != MPI_IN_PLACE)
        IBEX_CHECK(ibex_check_triple(c, call, a->sbuf, (int)total, a->rdt));
    IBEX_CHECK(
        ibex_check_triple(c, call, a->rbuf, a->sbuf == MPI_IN_PLACE ? (int)total : mine, a->rdt));
    return check_op(c, call, op, a->rdt, &a->op);
}

static int prep_reduce_scatter(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    ibex_comm_t *c = a->comm;
    ibex_dt_t *d;
    long long total;
    IBEX_CHECK(check_array(c, call, a->rcounts, "recvcounts", true, &total));
    IBEX_CHECK(ibex_dt_lookup_on(c, a->rdt, call, true, &d));
    IBEX_CHECK(check_rs(a, op, call, total, a->rcounts[c->rank]));
    *bytes_p = dt_bytes(a->rdt, total);
    return MPI_SUCCESS;
}

static int prep_reduce_scatter_block(ibex_coll_args_t *a, MPI_Op op, const char *call,
                                     size_t *bytes_p)
{
    ibex_comm_t *c = a->comm;
    ibex_dt_t *d;
    IBEX_CHECK(ibex_check_count(c, call, a->rcount));
    IBEX_CHECK(ibex_dt_lookup_on(c, a->rdt, call, true, &d));
    long long total = (long long)a->rcount * c->size;
    IBEX_CHECK(check_rs(a, op, call, total, a->rcount));
    *bytes_p = dt_bytes(a->rdt, total);
    return MPI_SUCCESS;
}

static const prep_fn_t preps[IBEX_COLL_KIND_COUNT] = {
    [IBEX_COLL_BARRIER] = prep_barrier,
    [IBEX_COLL_BCAST] = prep_bcast,
    [IBEX_COLL_REDUCE] = prep_reduce,
    [IBEX_COLL_ALLREDUCE] = prep_allreduce,
    [IBEX_COLL_GATHER] = prep_gather,
    [IBEX_COLL_SCATTER] = prep_scatter,
    [IBEX_COLL_ALLGATHER] = prep_all,
    [IBEX_COLL_ALLTOALL] = prep_all,
    [IBEX_COLL_GATHERV] = prep_gatherv,
    [IBEX_COLL_SCATTERV] = prep_scatterv,
    [IBEX_COLL_ALLGATHERV] = prep_allgatherv,
    [IBEX_COLL_ALLTOALLV] = prep_alltoallv,
    [IBEX_COLL_ALLTOALLW] = prep_alltoallw,
    [IBEX_COLL_REDUCE_SCATTER] = prep_reduce_scatter,
    [IBEX_COLL_REDUCE_SCATTER_BLOCK] = prep_reduce_scatter_block,
    [IBEX_COLL_SCAN] = prep_allreduce,
    [IBEX_COLL_EXSCAN] = prep_exscan,
};

/* ---- intercommunicators (MPI 4.1, 6.2.2): a rooted collective's root is MPI_ROOT (the
 * root), MPI_PROC_NULL (the rest of its group: nothing is significant there) or the root's rank
 * in the remote group; the per-rank arrays have the remote group's size (Reduce_scatter's
 * recvcounts the local group's); MPI_IN_PLACE is not defined on them (MPI_ERR_BUFFER, from
 * ibex_check_triple). ---- */

_Static_assert(IBEX_SCHED_INTER_RESERVED_TAG == IBEX_COMM_INTER_TAG,
               "intercommunicator schedules must skip the constructors' tag");

typedef enum { SIDE_NONE, SIDE_ROOT, SIDE_LEAF } inter_side_t;

static int inter_side(ibex_comm_t *c, const char *call, int root, inter_side_t *side_p)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL) {
        *side_p = root == MPI_ROOT ? SIDE_ROOT : SIDE_NONE;
        return MPI_SUCCESS;
    }
    if (root < 0 || root >= c->peer_size)
        return ibex_mpi_error(c, MPI_ERR_ROOT, call,
                              "root %d is neither MPI_ROOT, MPI_PROC_NULL nor a rank of the"
                              " remote group of %d",
                              root, c->peer_size);
    *side_p = SIDE_LEAF;
    return MPI_SUCCESS;
}

static int iprep_barrier(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    return prep_barrier(a, op, call, bytes_p);
}

static int iprep_bcast(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    (void)op;
    inter_side_t side = SIDE_NONE;
    *bytes_p = 0;
    IBEX_CHECK(inter_side(a->comm, call, a->root, &side));
    if (side == SIDE_NONE)
        return MPI_SUCCESS;
    return ibex_check_triple(a->comm, call, a->rbuf, a->rcount, a->rdt);
}

static int iprep_reduce(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    inter_side_t side = SIDE_NONE;
    *bytes_p = 0;
    IBEX_CHECK(inter_side(a->comm, call, a->root, &side));
    if (side == SIDE_NONE)
        return MPI_SUCCESS;
    IBEX_CHECK(side == SIDE_ROOT ? ibex_check_triple(a->comm, call, a->rbuf, a->rcount, a->rdt)
                                 : ibex_check_triple(a->comm, call, a->sbuf, a->rcount, a->rdt));
    return check_op(a->comm, call, op, a->rdt, &a->op);
}

static int iprep_allreduce(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    *bytes_p = 0;
    IBEX_CHECK(ibex_check_triple(a->comm, call, a->sbuf, a->rcount, a->rdt));
    IBEX_CHECK(ibex_check_triple(a->comm, call, a->rbuf, a->rcount, a->rdt));
    return check_op(a->comm, call, op, a->rdt, &a->op);
}

/* Gather(v) and Scatter(v): the root's side is the receive (gather) or send (scatter) one. */
static int iprep_rooted(ibex_coll_args_t *a, const char *call, bool gather, bool v)
{
    ibex_comm_t *c = a->comm;
    inter_side_t side = SIDE_NONE;
    IBEX_CHECK(inter_side(c, call, a->root, &side));
    if (side == SIDE_LEAF)
        return gather ? ibex_check_triple(c, call, a->sbuf, a->scount, a->sdt)
                      : ibex_check_triple(c, call, a->rbuf, a->rcount, a->rdt);
    if (side == SIDE_NONE)
        return MPI_SUCCESS;
    if (!v)
        return gather ? ibex_check_triple(c, call, a->rbuf, a->rcount, a->rdt)
                      : ibex_check_triple(c, call, a->sbuf, a->scount, a->sdt);
    return gather ? check_vbuf(c, call, a->rbuf, a->rcounts, a->rdispls, a->rdt, a->rdts,
                               "recvcounts", "displs")
                  : check_vbuf(c, call, a->sbuf, a->scounts, a->sdispls, a->sdt, a->sdts,
                               "sendcounts", "displs");
}

static int iprep_gather(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    (void)op;
    *bytes_p = 0;
    return iprep_rooted(a, call, true, false);
}

static int iprep_scatter(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    (void)op;
    *bytes_p = 0;
    return iprep_rooted(a, call, false, false);
}

static int iprep_gatherv(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    (void)op;
    *bytes_p = 0;
    return iprep_rooted(a, call, true, true);
}

static int iprep_scatterv(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    (void)op;
    *bytes_p = 0;
    return iprep_rooted(a, call, false, true);
}

static int iprep_all(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    IBEX_CHECK(ibex_check_triple(a->comm, call, a->sbuf, a->scount, a->sdt));
    IBEX_CHECK(prep_all(a, op, call, bytes_p));
    *bytes_p = 0;
    return MPI_SUCCESS;
}

static int iprep_allgatherv(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    (void)op;
    *bytes_p = 0;
    IBEX_CHECK(ibex_check_triple(a->comm, call, a->sbuf, a->scount, a->sdt));
    return check_vbuf(a->comm, call, a->rbuf, a->rcounts, a->rdispls, a->rdt, a->rdts, "recvcounts",
                      "displs");
}

static int iprep_alltoallv(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    if (a->sbuf == MPI_IN_PLACE)
        return ibex_mpi_error(a->comm, MPI_ERR_BUFFER, call,
                              "MPI_IN_PLACE is not allowed on an intercommunicator");
    return prep_alltoallv(a, op, call, bytes_p);
}

static int iprep_alltoallw(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    if (a->sbuf == MPI_IN_PLACE)
        return ibex_mpi_error(a->comm, MPI_ERR_BUFFER, call,
                              "MPI_IN_PLACE is not allowed on an intercommunicator");
    return prep_alltoallw(a, op, call, bytes_p);
}

static int iprep_reduce_scatter(ibex_coll_args_t *a, MPI_Op op, const char *call, size_t *bytes_p)
{
    ibex_comm_t *c = a->comm;
    long long total;
    IBEX_CHECK(check_array_n(c, call, a->rcounts, "recvcounts", true, c->size, &total));
    if (a->sbuf == MPI_IN_PLACE)
        return ibex_mpi_error(c, MPI_ERR_BUFFER, call,
                              "MPI_IN_PLACE is not allowed on an intercommunicator");
    IBEX_CHECK(check_rs(a, op, call, total, a->rcounts[c->rank]));
    *bytes_p = 0;
    return MPI_SUCCESS;
}

static int iprep_reduce_scatter_block(ibex_coll_args_t *a, MPI_Op op, const char *call,
                                      size_t *bytes_p)
{
    if (a->sbuf == MPI_IN_PLACE)
        return ibex_mpi_error(a->comm, MPI_ERR_BUFFER, call,
                              "MPI_IN_PLACE is not allowed on an intercommunicator");
    return prep_reduce_scatter_block(a, op, call, bytes_p);
}

static const prep_fn_t inter_preps[IBEX_COLL_KIND_COUNT] = {
    [IBEX_COLL_BARRIER] = iprep_barrier,
    [IBEX_COLL_BCAST] = iprep_bcast,
    [IBEX_COLL_REDUCE] = iprep_reduce,
    [IBEX_COLL_ALLREDUCE] = iprep_allreduce,
    [IBEX_COLL_GATHER] = iprep_gather,
    [IBEX_COLL_SCATTER] = iprep_scatter,
    [IBEX_COLL_ALLGATHER] = iprep_all,
    [IBEX_COLL_ALLTOALL] = iprep_all,
    [IBEX_COLL_GATHERV] = iprep_gatherv,
    [IBEX_COLL_SCATTERV] = iprep_scatterv,
    [IBEX_COLL_ALLGATHERV] = iprep_allgatherv,
    [IBEX_COLL_ALLTOALLV] = iprep_alltoallv,
    [IBEX_COLL_ALLTOALLW] = iprep_alltoallw,
    [IBEX_COLL_REDUCE_SCATTER] = iprep_reduce_scatter,
    [IBEX_COLL_REDUCE_SCATTER_BLOCK] = iprep_reduce_scatter_block,
};

/* MPI forbids aliasing a buffer the call writes with another argument (MPI 4.1 section 2.3):
 * a send buffer that is the receive buffer, where both are significant on this rank, is
 * MPI_ERR_BUFFER (MPI_IN_PLACE is the in-place form; MPI_BOTTOM, absolute addresses in the
 * types, is left alone). MPICH's errors/coll noalias*. */
static int check_alias(ibex_coll_kind_t kind, const ibex_coll_args_t *a, const char *call)
{
    bool root = a->comm->rank == a->root;
    bool rooted_recv =
        kind == IBEX_COLL_REDUCE || kind == IBEX_COLL_GATHER || kind == IBEX_COLL_GATHERV;
    bool rooted_send = kind == IBEX_COLL_SCATTER || kind == IBEX_COLL_SCATTERV;
    /* on an intercommunicator a rooted collective's ranks either send or receive */
    bool inter = ibex_comm_is_inter(a->comm);
    bool both = kind != IBEX_COLL_BARRIER && kind != IBEX_COLL_BCAST &&
                ((root && !inter) || (!rooted_recv && !rooted_send)) &&
                !(kind == IBEX_COLL_EXSCAN && a->comm->rank == 0);
    if (!both || !a->sbuf || a->sbuf == MPI_IN_PLACE || a->sbuf != a->rbuf)
        return MPI_SUCCESS;
    return ibex_mpi_error(a->comm, MPI_ERR_BUFFER, call,
                          "sendbuf and recvbuf are the same buffer %p (aliased arguments; the "
                          "in-place form is sendbuf = MPI_IN_PLACE)",
                          a->sbuf);
}

/* ---- the common case, each handle looked up once ----
 * Bcast, Reduce, Allreduce and Scan on an intracommunicator: the communicator, the datatype and
 * the op are each looked up once (the full path below looked the type up in each triple, in the
 * op check and for the size, and reached the communicator through three calls) and every check
 * of the full path is made on them in loads and compares. At the first doubt the full path runs
 * and raises the error, so the classes, their order and the messages are its own (the pattern
 * of ibex_p2p_args). */

/* A buffer the triple check of the full path accepts (count >= 0 and the type are known). */
static inline bool fast_buf(const void *buf, int count, const ibex_dt_t *d)
{
    return buf != MPI_IN_PLACE && (buf || count == 0 || !d->predefined);
}

/* check_reduce and check_alias of Reduce (result at the root), Allreduce and Scan. */
static inline bool fast_reduce(ibex_coll_kind_t kind, const ibex_coll_args_t *a, const ibex_dt_t *d)
{
    const ibex_comm_t *c = a->comm;
    bool gets = true; /* this rank's rbuf is significant, and sbuf may be MPI_IN_PLACE */
    if (kind == IBEX_COLL_REDUCE) {
        if ((unsigned)a->root >= (unsigned)c->size)
            return false;
        gets = c->rank == a->root;
    }
    if (!(gets && a->sbuf == MPI_IN_PLACE) && !fast_buf(a->sbuf, a->rcount, d))
        return false;
    if (gets && !fast_buf(a->rbuf, a->rcount, d))
        return false;
    return !(gets && a->sbuf && a->sbuf != MPI_IN_PLACE && a->sbuf == a->rbuf);
}

static inline bool fast_kind(ibex_coll_kind_t kind)
{
    return kind == IBEX_COLL_BARRIER || kind == IBEX_COLL_BCAST || kind == IBEX_COLL_REDUCE ||
           kind == IBEX_COLL_ALLREDUCE || kind == IBEX_COLL_SCAN;
}

/* True with a->comm, a->op and *bytes_p set when every check passes; false: run the full path. */
static bool prepare_fast(ibex_coll_kind_t kind, MPI_Comm comm, MPI_Op op, ibex_coll_args_t *a,
                         size_t *bytes_p)
{
    ibex_comm_t *c;
    ibex_dt_t *d;
    if (!(__builtin_expect(ibex_rt.running, 1) &&
          (c = ibex_handle_get(&ibex_comm_handles, comm)) != NULL && !ibex_comm_is_inter(c)))
        return false;
    a->comm = c;
    if (kind == IBEX_COLL_BARRIER) { /* nothing else to check (prep_barrier) */
        *bytes_p = 0;
        return true;
    }
    if (!(a->rcount >= 0 && (d = ibex_dt_get(a->rdt)) != NULL && d->committed))
        return false;
    if (kind == IBEX_COLL_BCAST) {
        if ((unsigned)a->root >= (unsigned)c->size || !fast_buf(a->rbuf, a->rcount, d))
            return false;
    } else {
        const ibex_op_t *o = ibex_op_get(op);
        ibex_op_fn_t *fn = o ? ibex_op_fn_of(o, d) : NULL;
        if (!o || !fast_reduce(kind, a, d) || (o->predefined && !fn && !ibex_op_defined_on(o, d)))
            return false;
        a->op = o;
        a->op_fn = fn; /* ibex_coll_fold */
        a->op_fn_dt = a->rdt;
    }
    *bytes_p = (size_t)a->rcount * d->size;
    return true;
}

/* Every check, one after the other, raising the first error. Out of line: inlined, its
 * registers were saved and restored by every call of the common case. */
static __attribute__((noinline)) int prepare_full(ibex_coll_kind_t kind, MPI_Comm comm, MPI_Op op,
                                                  const char *call, ibex_coll_args_t *a,
                                                  size_t *bytes_p)
{
    IBEX_CHECK(ibex_comm_enter(comm, call, &a->comm));
    if (!ibex_comm_is_inter(a->comm)) {
        IBEX_CHECK(preps[kind](a, op, call, bytes_p));
        return check_alias(kind, a, call);
    }
    if (!inter_preps[kind])
        return ibex_mpi_error(a->comm, MPI_ERR_COMM, call,
                              "%s is not defined on an"
                              " intercommunicator",
                              ibex_coll_kind_name(kind));
    IBEX_CHECK(inter_preps[kind](a, op, call, bytes_p));
    return check_alias(kind, a, call);
}

int ibex_coll_prepare(ibex_coll_kind_t kind, MPI_Comm comm, MPI_Op op, const char *call,
                      ibex_coll_args_t *a, size_t *bytes_p)
{
    ibex_assert((unsigned)kind < IBEX_COLL_KIND_COUNT && preps[kind]);
    if (fast_kind(kind) && prepare_fast(kind, comm, op, a, bytes_p))
        return MPI_SUCCESS;
    return prepare_full(kind, comm, op, call, a, bytes_p);
}

int ibex_coll_check_intra(ibex_comm_t *c, const char *call)
{
    if (!ibex_comm_is_inter(c))
        return MPI_SUCCESS;
    return ibex_mpi_error(c, MPI_ERR_COMM, call, "not defined on an intercommunicator");
}
