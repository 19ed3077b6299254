/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The large-count forms of the blocking collectives (MPI_Bcast_c .. MPI_Exscan_c), on one
 * path: each call's (count, type) pairs and per-rank arrays are turned into the int arguments
 * of ibex_coll_args_t (collectives/ counts in int), then ibex_coll_call runs the collective as
 * the int form does (the same checks, errors naming the _c call).
 *
 * - A single count that fits in an int is passed as is. A larger one becomes one element of a
 *   contiguous type of `count` elements (MPI_Type_contiguous_c: the datatype engine counts in
 *   MPI_Count): the type signature is unchanged, so every rank wraps or not for itself.
 * - A per-rank array whose counts and displacements all fit is passed as ints. Otherwise the
 *   side takes a type per peer (coll.h, "Per-peer types"; displacements in bytes): a block that
 *   does not fit becomes one element of an hindexed type of one block at its displacement,
 *   count 1 and displacement 0. Again each rank chooses alone; the messages are the same.
 *   Intercommunicators take per-peer types the same way (their schedules, sched_inter.c);
 *   there Allgatherv is always that schedule, and a Reduce_scatter whose counts sum past an
 *   int is MPI_ERR_COUNT (Reduce_scatter_block wraps its one count as the others do).
 * - Allgatherv and Reduce_scatter, whose arrays every rank knows, decide together: past an int
 *   they run as Gatherv + Bcast and Reduce + Scatterv (root 0) of these same pieces.
 * - Predefined ops reduce a wrapped type element by element. A user op must see its own type:
 *   the wrapping type is marked (ibex_op_unwrap_type), so the engine calls an
 *   MPI_User_function on pieces of at most INT_MAX elements of the program's type, in order at
 *   their places, and an MPI_User_function_c (MPI_Op_create_c) once with the whole MPI_Count.
 * - What is not significant at a rank (a non-root's receive side, the send side beside
 *   MPI_IN_PLACE, a non-root's arrays) is not read.
 * The non-blocking and persistent `_c` forms (MPI_Ibcast_c .. MPI_Exscan_init_c) take the same
 * path and hand the int arguments to ibex_nbc_post instead of ibex_coll_call. The schedule is
 * built there, from the arguments as they are then: its steps hold their own references to the
 * types (coll_sched.h) and their counts, so the wrapping types and int arrays made here are freed
 * as the call returns, and the schedule keeps what it needs until the request is freed (a
 * persistent one across all its starts). Their schedules take per-peer types in Gatherv,
 * Scatterv, Allgatherv and Alltoallv, so a non-blocking Allgatherv passes its blocks past an int
 * that way (each rank alone); a non-blocking Reduce_scatter past an int is one schedule of a
 * Reduce to rank 0 and a Scatterv from it.
 */
#include <limits.h>
#include <stdlib.h>

#include "coll.h"
#include "coll_api.h"
#include "coll_nbc.h"
#include "coll_sched.h"
#include "ibex_comm.h"
#include "ibex_err.h"
#include "ibex_op.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

/* What one large-count call made (types, int arrays), freed when the int call returns. */
typedef struct lc {
    ibex_entry_t *e;
    ibex_comm_t *comm; /* NULL: bad handle, the int call reports it */
    MPI_Datatype *types;
    int ntypes, cap;
    void *mem[8];
    int nmem;
    MPI_Request *req; /* non-blocking / persistent: the request to give, else NULL */
    bool persistent;
} lc_t;

static void lc_init(lc_t *l, ibex_entry_t *e, MPI_Comm comm)
{
    *l = (lc_t){.e = e, .comm = ibex_comm_get(comm)};
    e->comm = l->comm;
}

/* The same for MPI_Ixxx_c (persistent false) and MPI_Xxx_init_c (true). */
static void lc_init_req(lc_t *l, ibex_entry_t *e, MPI_Comm comm, MPI_Request *req, bool persistent)
{
    lc_init(l, e, comm);
    l->req = req;
    l->persistent = persistent;
}

static int lc_done(lc_t *l, int rc)
{
    for (int i = 0; i < l->ntypes; i++)
        PMPI_Type_free(&l->types[i]);
    free(l->types);
    for (int i = 0; i < l->nmem; i++)
        free(l->mem[i]);
    return rc;
}

/* A failed step frees what was made; a successful one keeps it for the call. */
static int lc_fail(lc_t *l, int rc)
{
    return rc == MPI_SUCCESS ? rc : lc_done(l, rc);
}

static int lc_nomem(lc_t *l)
{
    return ibex_mpi_error(l->comm, MPI_ERR_NO_MEM, l->e->call, "out of memory");
}

static void *lc_alloc(lc_t *l, size_t bytes)
{
    void *p =
        l->nmem < (int)(sizeof(l->mem) / sizeof(l->mem[0])) ? malloc(bytes ? bytes : 1) : NULL;
    if (p)
        l->mem[l->nmem++] = p;
    return p;
}

/* Commits *t and keeps it to free at lc_done. */
static int lc_keep(lc_t *l, int rc, MPI_Datatype *t, const char *what, MPI_Count count)
{
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(t);
    if (rc == MPI_SUCCESS && l->ntypes == l->cap) {
        int cap = l->cap ? 2 * l->cap : 4;
        MPI_Datatype *n = realloc(l->types, sizeof(*n) * (size_t)cap);
        if (!n) {
            PMPI_Type_free(t);
            return lc_nomem(l);
        }
        l->types = n;
        l->cap = cap;
    }
    if (rc != MPI_SUCCESS)
        return ibex_mpi_error(l->comm, rc, l->e->call, "%s %lld: no type of that many elements",
                              what, (long long)count);
    l->types[l->ntypes++] = *t;
    return MPI_SUCCESS;
}

/* Whether count (past an int) elements of dt can be one block of a new type: the datatype
 * engine keeps types flattened, at most 2^26 separate blocks, and a constructor's refusal would
 * go to the default handler, not the communicator's. */
static int lc_dense(lc_t *l, const char *what, MPI_Count count, MPI_Datatype dt)
{
    const ibex_dt_t *d = ibex_dt_get(dt);
    if (!d)
        return ibex_mpi_error(l->comm, MPI_ERR_TYPE, l->e->call, "%s: invalid datatype", what);
    if (d->size == 0 || (d->nblocks == 1 && (MPI_Count)d->blocks[0].len == d->extent))
        return MPI_SUCCESS;
    return ibex_mpi_error(l->comm, MPI_ERR_UNSUPPORTED_OPERATION, l->e->call,
                          "%s %lld of a datatype with gaps or several blocks: past %d elements "
                          "Ibex takes dense datatypes only (one block, no gap)",
                          what, (long long)count, INT_MAX);
}

/* One (count, type) pair as the int call takes it: as is, or one element of a wrapping type. */
static int lc_one(lc_t *l, const char *what, MPI_Count count, MPI_Datatype dt, int *count_p,
                  MPI_Datatype *dt_p)
{
    *dt_p = dt;
    if (count <= INT_MAX) {
        *count_p = count < INT_MIN ? -1 : (int)count; /* negative: the int checks say so */
        return MPI_SUCCESS;
    }
    *count_p = 1;
    IBEX_CHECK(lc_dense(l, what, count, dt));
    IBEX_CHECK(lc_keep(l, PMPI_Type_contiguous_c(count, dt, dt_p), dt_p, what, count));
    ibex_op_unwrap_type(*dt_p); /* a user op sees pieces of dt (ibex_op.h) */
    return MPI_SUCCESS;
}

static bool fits(long long v)
{
    return v >= INT_MIN && v <= INT_MAX;
}

/* One side of a v / w collective: counts and displacements (in extents of dt, or bytes with
 * dts) as ints in *counts_p / *displs_p, and the per-peer types in *dts_p (dts as given when
 * everything fits, NULL for a v side; else a type per peer). NULL arrays stay NULL. */
static int lc_side(lc_t *l, const char *what, const MPI_Count counts[], const MPI_Aint displs[],
                   MPI_Datatype dt, const MPI_Datatype dts[], int **counts_p, int **displs_p,
                   const MPI_Datatype **dts_p)
{
    *counts_p = *displs_p = NULL;
    *dts_p = dts;
    if (!l->comm || !counts || !displs)
        return MPI_SUCCESS;
    int n = l->comm->peer_size;
    int *ic = lc_alloc(l, sizeof(int) * (size_t)n), *id = lc_alloc(l, sizeof(int) * (size_t)n);
    if (!ic || !id)
        return lc_nomem(l);
    *counts_p = ic;
    *displs_p = id;
    bool all_fit = true;
    for (int i = 0; i < n && all_fit; i++)
        all_fit = counts[i] <= INT_MAX && fits(displs[i]);
    if (all_fit) {
        for (int i = 0; i < n; i++) {
            ic[i] = counts[i] < 0 ? -1 : (int)counts[i];
            id[i] = (int)displs[i];
        }
        return MPI_SUCCESS;
    }
    MPI_Count lb = 0, extent = 1;
    if (!dts && PMPI_Type_get_extent_c(dt, &lb, &extent) != MPI_SUCCESS)
        return MPI_ERR_TYPE; /* raised by the query */
    MPI_Datatype *pt = lc_alloc(l, sizeof(*pt) * (size_t)n);
    if (!pt)
        return lc_nomem(l);
    *dts_p = pt;
    for (int i = 0; i < n; i++) {
        MPI_Count c = counts[i];
        MPI_Aint bytes = dts ? displs[i] : displs[i] * (MPI_Aint)extent;
        pt[i] = dts ? dts[i] : dt;
        if (c <= INT_MAX && fits(bytes)) {
            ic[i] = c < 0 ? -1 : (int)c;
            id[i] = c == 0 ? 0 : (int)bytes;
            continue;
        }
        MPI_Count at = bytes;
        IBEX_CHECK(c > INT_MAX ? lc_dense(l, what, c, pt[i]) : MPI_SUCCESS);
        int rc = PMPI_Type_create_hindexed_c(1, &c, &at, pt[i], &pt[i]);
        IBEX_CHECK(lc_keep(l, rc, &pt[i], what, c));
        ic[i] = 1;
        id[i] = 0;
    }
    return MPI_SUCCESS;
}

/* The int call, or its schedule posted on *l->req; either way what l made is freed here (a
 * schedule holds its own type references, and has read the arrays). */
static int lc_run(lc_t *l, ibex_coll_kind_t kind, MPI_Comm comm, MPI_Op op, ibex_coll_args_t *a)
{
    if (l->req)
        return lc_done(l, ibex_nbc_post(kind, comm, op, a, l->persistent, l->req, l->e->call));
    return lc_done(l, ibex_coll_call(kind, comm, op, l->e->call, a));
}

/* True where the root's arguments are significant: the root of an intracommunicator, MPI_ROOT
 * on an intercommunicator. */
static bool at_root(const lc_t *l, int root)
{
    if (!l->comm)
        return true; /* the int checks report the communicator */
    return ibex_comm_is_inter(l->comm) ? root == MPI_ROOT : l->comm->rank == root;
}

/* Whether a rooted call's non-root side (Gather's send, Scatter's receive) is significant:
 * everywhere but the root on an intracommunicator unless it is MPI_IN_PLACE there; on an
 * intercommunicator in the other group (root neither MPI_ROOT nor MPI_PROC_NULL). */
static bool leaf_side(const lc_t *l, int root, const void *buf)
{
    if (l->comm && ibex_comm_is_inter(l->comm))
        return root != MPI_ROOT && root != MPI_PROC_NULL;
    return buf != MPI_IN_PLACE;
}

/* The three large-count forms of one collective, MPI_X_c, MPI_IX_c and MPI_X_init_c: the same
 * parameters (plus the request, and the info, which no hint reads yet) and the same helper
 * call on l, which lc_init or lc_init_req prepared for the form. */
#define LC_PARAMS(...) __VA_ARGS__
#define LC_FORMS(x, ix, params, call)                                                              \
    int PMPI_##x##_c(LC_PARAMS params)                                                             \
    {                                                                                              \
        IBEX_ENTER(x##_c);                                                                         \
        lc_t l;                                                                                    \
        lc_init(&l, &ibex_e, comm);                                                                \
        return call;                                                                               \
    }                                                                                              \
    int PMPI_##ix##_c(LC_PARAMS params, MPI_Request *request)                                      \
    {                                                                                              \
        IBEX_ENTER(ix##_c);                                                                        \
        lc_t l;                                                                                    \
        lc_init_req(&l, &ibex_e, comm, request, false);                                            \
        return call;                                                                               \
    }                                                                                              \
    int PMPI_##x##_init_c(LC_PARAMS params, MPI_Info info, MPI_Request *request)                   \
    {                                                                                              \
        IBEX_ENTER(x##_init_c);                                                                    \
        (void)info;                                                                                \
        lc_t l;                                                                                    \
        lc_init_req(&l, &ibex_e, comm, request, true);                                             \
        return call;                                                                               \
    }

static int bcast_large(lc_t *l, void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                       MPI_Comm comm)
{
    ibex_coll_args_t a = {.rbuf = buffer, .root = root};
    IBEX_CHECK(lc_fail(l, lc_one(l, "count", count, datatype, &a.rcount, &a.rdt)));
    return lc_run(l, IBEX_COLL_BCAST, comm, MPI_OP_NULL, &a);
}

/* Reduce, Allreduce, Reduce_scatter_block, Scan, Exscan: (sbuf, rbuf, count, type, op). */
static int reduce_like(lc_t *l, ibex_coll_kind_t kind, const void *sendbuf, void *recvbuf,
                       MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .root = root};
    IBEX_CHECK(lc_fail(l, lc_one(l, "count", count, datatype, &a.rcount, &a.rdt)));
    return lc_run(l, kind, comm, op, &a);
}

LC_FORMS(Reduce, Ireduce,
         (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
          int root, MPI_Comm comm),
         reduce_like(&l, IBEX_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm))

LC_FORMS(Allreduce, Iallreduce,
         (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
          MPI_Comm comm),
         reduce_like(&l, IBEX_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm))

LC_FORMS(Reduce_scatter_block, Ireduce_scatter_block,
         (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op,
          MPI_Comm comm),
         reduce_like(&l, IBEX_COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, datatype, op,
                     0, comm))

LC_FORMS(Scan, Iscan,
         (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
          MPI_Comm comm),
         reduce_like(&l, IBEX_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm))

LC_FORMS(Exscan, Iexscan,
         (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
          MPI_Comm comm),
         reduce_like(&l, IBEX_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm))

/* Gather, Scatter, Allgather, Alltoall: both pairs, each wrapped where significant (a pair that
 * is not is passed as count 0 and never read). */
static int pair_like(lc_t *l, ibex_coll_kind_t kind, const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    bool send_sig = sendbuf != MPI_IN_PLACE, recv_sig = true;
    if (kind == IBEX_COLL_GATHER) {
        send_sig = leaf_side(l, root, sendbuf);
        recv_sig = at_root(l, root);
    } else if (kind == IBEX_COLL_SCATTER) {
        send_sig = at_root(l, root);
        recv_sig = leaf_side(l, root, recvbuf);
    }
    ibex_coll_args_t a = {
        .sbuf = sendbuf, .sdt = sendtype, .rbuf = recvbuf, .rdt = recvtype, .root = root};
    int rc = MPI_SUCCESS;
    if (send_sig)
        rc = lc_one(l, "sendcount", sendcount, sendtype, &a.scount, &a.sdt);
    if (rc == MPI_SUCCESS && recv_sig)
        rc = lc_one(l, "recvcount", recvcount, recvtype, &a.rcount, &a.rdt);
    IBEX_CHECK(lc_fail(l, rc));
    return lc_run(l, kind, comm, MPI_OP_NULL, &a);
}

LC_FORMS(Gather, Igather,
         (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
          MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
         pair_like(&l, IBEX_COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                   root, comm))

LC_FORMS(Scatter, Iscatter,
         (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
          MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
         pair_like(&l, IBEX_COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, root, comm))

LC_FORMS(Allgather, Iallgather,
         (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
          MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm),
         pair_like(&l, IBEX_COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, 0, comm))

LC_FORMS(Alltoall, Ialltoall,
         (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
          MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm),
         pair_like(&l, IBEX_COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, 0, comm))

/* Gatherv with MPI_Count / MPI_Aint arrays (l set up by the caller, done here). */
static int gatherv_large(lc_t *l, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                         MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    ibex_coll_args_t a = {
        .sbuf = sendbuf, .sdt = sendtype, .rbuf = recvbuf, .rdt = recvtype, .root = root};
    int rc = MPI_SUCCESS;
    if (leaf_side(l, root, sendbuf))
        rc = lc_one(l, "sendcount", sendcount, sendtype, &a.scount, &a.sdt);
    if (rc == MPI_SUCCESS && at_root(l, root)) {
        int *c, *d;
        rc = lc_side(l, "recvcounts", recvcounts, displs, recvtype, NULL, &c, &d, &a.rdts);
        a.rcounts = c;
        a.rdispls = d;
    }
    IBEX_CHECK(lc_fail(l, rc));
    return lc_run(l, IBEX_COLL_GATHERV, comm, MPI_OP_NULL, &a);
}

LC_FORMS(Gatherv, Igatherv,
         (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
          const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
          MPI_Comm comm),
         gatherv_large(&l, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                       root, comm))

static int scatterv_large(lc_t *l, const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    ibex_coll_args_t a = {
        .sbuf = sendbuf, .sdt = sendtype, .rbuf = recvbuf, .rdt = recvtype, .root = root};
    int rc = MPI_SUCCESS;
    if (at_root(l, root)) {
        int *c, *d;
        rc = lc_side(l, "sendcounts", sendcounts, displs, sendtype, NULL, &c, &d, &a.sdts);
        a.scounts = c;
        a.sdispls = d;
    }
    if (rc == MPI_SUCCESS && leaf_side(l, root, recvbuf))
        rc = lc_one(l, "recvcount", recvcount, recvtype, &a.rcount, &a.rdt);
    IBEX_CHECK(lc_fail(l, rc));
    return lc_run(l, IBEX_COLL_SCATTERV, comm, MPI_OP_NULL, &a);
}

LC_FORMS(Scatterv, Iscatterv,
         (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
          MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
          int root, MPI_Comm comm),
         scatterv_large(&l, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                        root, comm))

/* Alltoallv (dt, displacements in its extent) and Alltoallw (types, bytes). */
static int alltoallvw(lc_t *l, ibex_coll_kind_t kind, const void *sendbuf,
                      const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype,
                      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype,
                      const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    ibex_coll_args_t a = {.sbuf = sendbuf, .sdt = sendtype, .rbuf = recvbuf, .rdt = recvtype};
    int rc = MPI_SUCCESS, *c, *d;
    if (sendbuf != MPI_IN_PLACE) {
        rc = lc_side(l, "sendcounts", sendcounts, sdispls, sendtype, sendtypes, &c, &d, &a.sdts);
        a.scounts = c;
        a.sdispls = d;
    }
    if (rc == MPI_SUCCESS) {
        rc = lc_side(l, "recvcounts", recvcounts, rdispls, recvtype, recvtypes, &c, &d, &a.rdts);
        a.rcounts = c;
        a.rdispls = d;
    }
    IBEX_CHECK(lc_fail(l, rc));
    return lc_run(l, kind, comm, MPI_OP_NULL, &a);
}

LC_FORMS(Alltoallv, Ialltoallv,
         (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
          MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
          const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm),
         alltoallvw(&l, IBEX_COLL_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf,
                    recvcounts, rdispls, recvtype, NULL, comm))

LC_FORMS(Alltoallw, Ialltoallw,
         (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
          const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),
         alltoallvw(&l, IBEX_COLL_ALLTOALLW, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL,
                    sendtypes, recvbuf, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, comm))

/* Whether the counts of an Allgatherv / Reduce_scatter fit the int call: every rank has the
 * same counts (MPI's rule), so all decide alike; *total_p: their sum. */
static bool counts_fit(const lc_t *l, const MPI_Count counts[], MPI_Count *total_p)
{
    *total_p = 0;
    if (!l->comm || !counts)
        return true; /* the int call reports what is wrong */
    bool ok = true;
    for (int i = 0; i < l->comm->size; i++) {
        ok = ok && counts[i] <= INT_MAX;
        *total_p += counts[i] > 0 ? counts[i] : 0;
    }
    return ok && *total_p <= INT_MAX;
}

/* Allgatherv's displacements (this rank's own layout, which may differ from the others') as
 * ints from the lowest one, the buffer moved there (MPI_BOTTOM with addresses fits). */
static int rebase(lc_t *l, const MPI_Aint displs[], MPI_Datatype dt, void **buf_p, int **out_p)
{
    *out_p = NULL;
    if (!l->comm || !displs)
        return MPI_SUCCESS;
    int n = l->comm->peer_size, *out = lc_alloc(l, sizeof(int) * (size_t)n);
    if (!out)
        return lc_nomem(l);
    MPI_Aint low = 0;
    for (int i = 0; i < n; i++)
        low = i == 0 || displs[i] < low ? displs[i] : low;
    if (fits(low) || ibex_comm_is_inter(l->comm))
        low = 0;
    for (int i = 0; i < n; i++) {
        if (!fits(displs[i] - low))
            return ibex_mpi_error(l->comm, MPI_ERR_COUNT, l->e->call,
                                  "displs[%d] %lld: this rank's displacements span more than an "
                                  "int with counts that fit one (Ibex takes them within an int)",
                                  i, (long long)displs[i]);
        out[i] = (int)(displs[i] - low);
    }
    MPI_Count lb, extent = 0;
    if (low && PMPI_Type_get_extent_c(dt, &lb, &extent) != MPI_SUCCESS)
        return MPI_ERR_TYPE; /* raised by the query */
    *buf_p = (char *)*buf_p + low * (MPI_Aint)extent;
    *out_p = out;
    return MPI_SUCCESS;
}

/* Allgatherv, non-blocking / persistent: the schedule takes this rank's own per-peer types. */
static int allgatherv_sched(lc_t *l, const void *sendbuf, MPI_Count sendcount,
                            MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                            const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    ibex_coll_args_t a = {.sbuf = sendbuf, .sdt = sendtype, .rbuf = recvbuf, .rdt = recvtype};
    int rc = MPI_SUCCESS, *c, *d;
    if (sendbuf != MPI_IN_PLACE)
        rc = lc_one(l, "sendcount", sendcount, sendtype, &a.scount, &a.sdt);
    if (rc == MPI_SUCCESS) {
        rc = lc_side(l, "recvcounts", recvcounts, displs, recvtype, NULL, &c, &d, &a.rdts);
        a.rcounts = c;
        a.rdispls = d;
    }
    IBEX_CHECK(lc_fail(l, rc));
    return lc_run(l, IBEX_COLL_ALLGATHERV, comm, MPI_OP_NULL, &a);
}

static int allgatherv_large(lc_t *l, const void *sendbuf, MPI_Count sendcount,
                            MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                            const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (l->req || (l->comm && ibex_comm_is_inter(l->comm))) /* inter: always a schedule */
        return allgatherv_sched(l, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                recvtype, comm);
    MPI_Count total;
    if (counts_fit(l, recvcounts, &total) || !displs) {
        ibex_coll_args_t a = {.sbuf = sendbuf, .sdt = sendtype, .rbuf = recvbuf, .rdt = recvtype};
        int *c = NULL, *d = NULL, rc = MPI_SUCCESS;
        if (sendbuf != MPI_IN_PLACE)
            rc = lc_one(l, "sendcount", sendcount, sendtype, &a.scount, &a.sdt);
        if (rc == MPI_SUCCESS && l->comm && recvcounts) {
            c = lc_alloc(l, sizeof(int) * (size_t)l->comm->peer_size);
            rc = c ? rebase(l, displs, recvtype, &a.rbuf, &d) : lc_nomem(l);
            for (int i = 0; c && i < l->comm->peer_size; i++)
                c[i] = recvcounts[i] < 0 ? -1 : (int)recvcounts[i];
        }
        a.rcounts = c;
        a.rdispls = d;
        IBEX_CHECK(lc_fail(l, rc));
        return lc_run(l, IBEX_COLL_ALLGATHERV, comm, MPI_OP_NULL, &a);
    }
    /* Gatherv to rank 0 (a rank's own block in place where the program said so), then rank 0's
     * whole receive layout as one element of an hindexed type */
    int me = l->comm->rank;
    MPI_Count lb, extent;
    int rc = PMPI_Type_get_extent_c(recvtype, &lb, &extent);
    if (rc != MPI_SUCCESS)
        return lc_done(l, rc);
    const void *sb = sendbuf;
    if (sendbuf == MPI_IN_PLACE && me != 0) {
        sb = (char *)recvbuf + displs[me] * (MPI_Aint)extent;
        sendcount = recvcounts[me];
        sendtype = recvtype;
    }
    rc = gatherv_large(l, sb, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, 0, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    lc_init(l, l->e, comm);
    int n = l->comm->size;
    MPI_Count *bytes = lc_alloc(l, sizeof(*bytes) * (size_t)n);
    if (!bytes)
        return lc_done(l, lc_nomem(l));
    for (int i = 0; i < n; i++)
        bytes[i] = displs[i] * extent;
    MPI_Datatype all;
    IBEX_CHECK(lc_fail(l, lc_dense(l, "recvcounts", total, recvtype)));
    rc = PMPI_Type_create_hindexed_c(n, recvcounts, bytes, recvtype, &all);
    IBEX_CHECK(lc_fail(l, lc_keep(l, rc, &all, "recvcounts", total)));
    ibex_coll_args_t a = {.rbuf = recvbuf, .rcount = 1, .rdt = all, .root = 0};
    return lc_run(l, IBEX_COLL_BCAST, comm, MPI_OP_NULL, &a);
}

/* Block i of a Reduce_scatter's whole vector starts at displs[i] elements (n blocks). */
static MPI_Aint *rs_displs(lc_t *l, const MPI_Count recvcounts[], int n)
{
    MPI_Aint *displs = lc_alloc(l, sizeof(*displs) * (size_t)n);
    for (int i = 0; displs && i < n; i++)
        displs[i] = i ? displs[i - 1] + (MPI_Aint)recvcounts[i - 1] : 0;
    return displs;
}

/* Reduce_scatter past an int, non-blocking / persistent: one schedule of the Reduce of the whole
 * to rank 0 (into a temporary of the schedule, or recvbuf in place), a fence, and the Scatterv
 * of its blocks. Both share the schedule's tag: no rank sends to another in both (the Reduce
 * sends towards rank 0, which only sends in the Scatterv). */
static int reduce_scatter_sched(lc_t *l, const void *sendbuf, void *recvbuf,
                                const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op,
                                MPI_Count total, MPI_Comm comm)
{
    int me = l->comm->rank, n = l->comm->size;
    bool in_place = sendbuf == MPI_IN_PLACE;
    size_t bytes;
    if (!l->req)
        return lc_done(l, ibex_mpi_error(l->comm, MPI_ERR_ARG, l->e->call, "request is NULL"));
    ibex_coll_args_t r = {.sbuf = in_place ? (me == 0 ? MPI_IN_PLACE : recvbuf) : sendbuf,
                          .rbuf = recvbuf};
    IBEX_CHECK(lc_fail(l, lc_one(l, "recvcounts", total, datatype, &r.rcount, &r.rdt)));
    IBEX_CHECK(lc_fail(l, ibex_coll_prepare(IBEX_COLL_REDUCE, comm, op, l->e->call, &r, &bytes)));
    ibex_sched_t *s = ibex_sched_new(r.comm, r.op);
    MPI_Aint *displs = rs_displs(l, recvcounts, n);
    if (!s || !displs) {
        ibex_sched_free(s);
        return lc_done(l, lc_nomem(l));
    }
    if (me == 0 && !in_place)
        r.rbuf = ibex_sched_tmp(s, r.rdt, 1);
    ibex_sched_reduce_binomial(&r, s);
    ibex_sched_fence(s);
    ibex_coll_args_t v = {.sbuf = me == 0 ? r.rbuf : NULL,
                          .sdt = datatype,
                          .rbuf = me == 0 && in_place ? MPI_IN_PLACE : recvbuf,
                          .rdt = datatype};
    int rc = MPI_SUCCESS, *c, *d;
    if (me == 0) {
        rc = lc_side(l, "recvcounts", recvcounts, displs, datatype, NULL, &c, &d, &v.sdts);
        v.scounts = c;
        v.sdispls = d;
    }
    if (rc == MPI_SUCCESS && v.rbuf != MPI_IN_PLACE)
        rc = lc_one(l, "recvcounts", recvcounts[me], datatype, &v.rcount, &v.rdt);
    if (rc == MPI_SUCCESS)
        rc = ibex_coll_prepare(IBEX_COLL_SCATTERV, comm, MPI_OP_NULL, l->e->call, &v, &bytes);
    if (rc != MPI_SUCCESS) {
        ibex_sched_free(s);
        return lc_done(l, rc);
    }
    ibex_sched_scatterv_linear(&v, s);
    return lc_done(l, ibex_nbc_post_sched(r.comm, s, l->persistent, l->req, l->e->call));
}

static int reduce_scatter_large(lc_t *l, const void *sendbuf, void *recvbuf,
                                const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm)
{
    MPI_Count total;
    if (counts_fit(l, recvcounts, &total)) {
        ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rdt = datatype};
        int *c = NULL;
        if (l->comm && recvcounts) {
            c = lc_alloc(l, sizeof(int) * (size_t)l->comm->peer_size);
            if (!c)
                return lc_done(l, lc_nomem(l));
            for (int i = 0; i < l->comm->peer_size; i++)
                c[i] = recvcounts[i] < 0 ? -1 : (int)recvcounts[i];
        }
        a.rcounts = c;
        return lc_run(l, IBEX_COLL_REDUCE_SCATTER, comm, op, &a);
    }
    if (ibex_comm_is_inter(l->comm))
        return lc_done(l, ibex_mpi_error(l->comm, MPI_ERR_COUNT, l->e->call,
                                         "recvcounts: %lld elements in all, past an int, on an "
                                         "intercommunicator (Ibex takes them within an int there)",
                                         (long long)total));
    if (l->req)
        return reduce_scatter_sched(l, sendbuf, recvbuf, recvcounts, datatype, op, total, comm);
    /* Reduce of the whole to rank 0, then Scatterv of its blocks (in place: the data is in
     * recvbuf, and rank 0 keeps its block where it is) */
    int me = l->comm->rank, n = l->comm->size;
    MPI_Count lb, extent, tlb, textent;
    int rc = PMPI_Type_get_extent_c(datatype, &lb, &extent);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_true_extent_c(datatype, &tlb, &textent);
    if (rc != MPI_SUCCESS)
        return lc_done(l, rc);
    MPI_Aint *displs = rs_displs(l, recvcounts, n);
    char *tmp = NULL;
    if (displs && me == 0 && sendbuf != MPI_IN_PLACE)
        tmp = lc_alloc(l, (size_t)(textent + (total - 1) * extent));
    if (!displs || (me == 0 && sendbuf != MPI_IN_PLACE && !tmp))
        return lc_done(l, lc_nomem(l));
    bool in_place = sendbuf == MPI_IN_PLACE;
    const void *rsend = in_place ? (me == 0 ? MPI_IN_PLACE : recvbuf) : sendbuf;
    void *rrecv = me != 0 ? NULL : in_place ? recvbuf : tmp - tlb;
    lc_t r;
    lc_init(&r, l->e, comm);
    rc = reduce_like(&r, IBEX_COLL_REDUCE, rsend, rrecv, total, datatype, op, 0, comm);
    if (rc != MPI_SUCCESS)
        return lc_done(l, rc);
    const void *ssend = me != 0 ? NULL : in_place ? recvbuf : tmp - tlb;
    void *srecv = me == 0 && in_place ? MPI_IN_PLACE : recvbuf;
    lc_t s;
    lc_init(&s, l->e, comm);
    rc = scatterv_large(&s, ssend, recvcounts, displs, datatype, srecv, recvcounts[me], datatype, 0,
                        comm);
    return lc_done(l, rc);
}

LC_FORMS(Allgatherv, Iallgatherv,
         (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
          const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
          MPI_Comm comm),
         allgatherv_large(&l, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          comm))

LC_FORMS(Reduce_scatter, Ireduce_scatter,
         (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
          MPI_Op op, MPI_Comm comm),
         reduce_scatter_large(&l, sendbuf, recvbuf, recvcounts, datatype, op, comm))

LC_FORMS(Bcast, Ibcast,
         (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm),
         bcast_large(&l, buffer, count, datatype, root, comm))

/* ---- the non-blocking and persistent forms ---- */

IBEX_MPI_ALIASES(coll_large)
