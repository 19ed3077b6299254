/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbourhood collectives: MPI_Neighbor_allgather, allgatherv, alltoall,
 * alltoallv, alltoallw on Cartesian, graph and distributed-graph communicators, with their
 * non-blocking (MPI_Ineighbor_*) and persistent (MPI_Neighbor_*_init) forms. Each entry point
 * checks its arguments and describes one block per neighbour; the blocking form runs the
 * exchange of collectives/neighbor_linear.c, the others post it as a one-round schedule
 * (collectives/sched_neighbor.c) on a collective request (coll_nbc_req.c). Neighbours are in the
 * order MPI defines (Cart: per dimension the -1 then the +1 neighbour, MPI_PROC_NULL off a
 * non-periodic edge, whose block is left alone; graph: MPI_Graph_neighbors; distributed graph: the
 * sources and destinations as given). MPI_IN_PLACE is not allowed (MPI 4.1 section 8.6).
 */
#include <stdlib.h>

#include "coll_api.h"
#include "coll_nbc.h"
#include "coll_neighbor.h"
#include "coll_sched.h"
#include "ibex_datatype.h"
#include "ibex_err.h"
#include "ibex_entry.h"
#include "topo_internal.h"

/* One call's neighbours and blocks, in one allocation. */
typedef struct nbr_call {
    ibex_coll_nbr_args_t a;
    void *mem;
} nbr_call_t;

static int nbr_begin(ibex_comm_t *c, const char *call, nbr_call_t *n)
{
    const ibex_topo_t *t = ibex_topo_need(c, 0, call);
    if (!t)
        return MPI_ERR_TOPOLOGY;
    int nin, nout;
    ibex_topo_degrees(t, c->rank, &nin, &nout);
    size_t ranks = (size_t)(nin + nout) * sizeof(int);
    size_t blocks = (size_t)(nin + nout) * sizeof(ibex_coll_nbr_block_t);
    n->mem = malloc(blocks + ranks + 1);
    if (!n->mem)
        return ibex_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory for %d neighbours",
                              nin + nout);
    ibex_coll_nbr_block_t *b = n->mem;
    int *r = (int *)(b + nin + nout);
    n->a = (ibex_coll_nbr_args_t){.comm = c,
                                  .nin = nin,
                                  .nout = nout,
                                  .in = r,
                                  .out = r + nin,
                                  .recv = b,
                                  .send = b + nin,
                                  .cart_pairs = t->kind == MPI_CART};
    ibex_topo_neighbors(t, c->rank, r, r + nin);
    return MPI_SUCCESS;
}

static int nbr_run(nbr_call_t *n, const char *call)
{
    ibex_status_t st = ibex_coll_neighbor_linear(&n->a);
    free(n->mem);
    if (st == IBEX_OK)
        return MPI_SUCCESS;
    return ibex_mpi_error(n->a.comm, ibex_err_class_of(st), call,
                          "neighbourhood exchange failed: %s", ibex_status_str(st));
}

/* A block's count and datatype (checked), and its buffer at a displacement in bytes. */
static int nbr_block(ibex_comm_t *c, const char *call, ibex_coll_nbr_block_t *b, const void *buf,
                     ptrdiff_t byte_disp, int count, MPI_Datatype dt)
{
    if (buf == MPI_IN_PLACE)
        return ibex_mpi_error(c, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is not allowed here");
    int rc = ibex_check_count(c, call, count);
    if (rc == MPI_SUCCESS)
        rc = ibex_dt_lookup_on(c, dt, call, true, &b->dt);
    if (rc != MPI_SUCCESS)
        return rc;
    /* MPI_BOTTOM with absolute displacements (the w forms) is a NULL buffer and is fine */
    if (b->dt->predefined && count > 0 && !buf && byte_disp == 0)
        return ibex_mpi_error(c, MPI_ERR_BUFFER, call, "buffer is NULL with count %d", count);
    b->buf = (char *)buf + byte_disp;
    b->count = count;
    return MPI_SUCCESS;
}

static ptrdiff_t extent_of(MPI_Datatype dt)
{
    ibex_dt_t *d = ibex_dt_get(dt);
    return d ? d->extent : 0; /* a bad handle is reported by nbr_block */
}

/* Fills n blocks from (buf, counts[i] or count, displacement i-th) of one side. */
typedef struct side {
    const void *buf;
    int count;               /* when counts is NULL */
    const int *counts;       /* v and w forms */
    const int *displs;       /* v: in extents of dt */
    const MPI_Aint *bdispls; /* w: in bytes */
    MPI_Datatype dt;         /* when dts is NULL */
    const MPI_Datatype *dts;
    bool stride;    /* without displs: block i at i * count extents (alltoall), else all at buf */
    bool per_block; /* the v and w forms: counts and displacements per neighbour */
} side_t;

static int side_fill(ibex_comm_t *c, const char *call, const side_t *s, ibex_coll_nbr_block_t *b,
                     int n)
{
    if (s->per_block) {
        const void *displs = s->displs ? (const void *)s->displs : (const void *)s->bdispls;
        IBEX_CHECK(ibex_topo_check_array(c, call, s->counts, n, "a counts array"));
        IBEX_CHECK(ibex_topo_check_array(c, call, displs, n, "a displacements array"));
    }
    if (s->dts)
        IBEX_CHECK(ibex_topo_check_array(c, call, s->dts, n, "a datatypes array"));
    for (int i = 0; i < n; i++) {
        MPI_Datatype dt = s->dts ? s->dts[i] : s->dt;
        int count = s->counts ? s->counts[i] : s->count;
        ptrdiff_t ext = extent_of(dt), disp = 0;
        if (s->bdispls)
            disp = s->bdispls[i];
        else if (s->displs)
            disp = (ptrdiff_t)s->displs[i] * ext;
        else if (s->stride)
            disp = (ptrdiff_t)i * count * ext;
        IBEX_CHECK(nbr_block(c, call, &b[i], s->buf, disp, count, dt));
    }
    return MPI_SUCCESS;
}

/* How a call completes: now (blocking), through a started request, or through an inactive
 * persistent request. */
typedef struct nbr_mode {
    bool schedule, persistent;
    MPI_Request *request;
} nbr_mode_t;

static const nbr_mode_t NBR_BLOCKING = {false, false, NULL};

/* The non-blocking and persistent forms: the exchange as a schedule on its own tag. */
static int nbr_post(nbr_call_t *n, const nbr_mode_t *m, const char *call)
{
    ibex_comm_t *c = n->a.comm;
    if (!m->request) {
        free(n->mem);
        return ibex_mpi_error(c, MPI_ERR_ARG, call, "request pointer is NULL");
    }
    ibex_sched_t *s = ibex_sched_new(c, NULL);
    if (s)
        ibex_sched_neighbor(&n->a, s); /* the steps keep the buffers, not the block list */
    free(n->mem);
    return ibex_nbc_post_sched(c, s, m->persistent, m->request, call);
}

/* Every variant: check and describe both sides, then exchange or post. */
static int nbr_collective(MPI_Comm comm, const char *call, const side_t *send, const side_t *recv,
                          const nbr_mode_t *mode)
{
    ibex_comm_t *c;
    nbr_call_t n;
    IBEX_CHECK(ibex_comm_enter(comm, call, &c));
    /* checked before the blocks: a process with no neighbours on a side must refuse it too,
     * or it would enter the exchange its neighbours have refused */
    if (send->buf == MPI_IN_PLACE || recv->buf == MPI_IN_PLACE)
        return ibex_mpi_error(c, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is not allowed here");
    IBEX_CHECK(nbr_begin(c, call, &n));
    int rc = side_fill(c, call, send, n.a.send, n.a.nout);
    if (rc == MPI_SUCCESS)
        rc = side_fill(c, call, recv, n.a.recv, n.a.nin);
    if (rc != MPI_SUCCESS) {
        free(n.mem);
        return rc;
    }
    return mode->schedule ? nbr_post(&n, mode, call) : nbr_run(&n, call);
}

/* Each variant's two sides, described once for its blocking, non-blocking and persistent
 * entry points (which differ only in the mode). */

static int nbr_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char *call,
                         const nbr_mode_t *mode)
{
    side_t s = {.buf = sendbuf, .count = sendcount, .dt = sendtype};
    side_t r = {.buf = recvbuf, .count = recvcount, .dt = recvtype, .stride = true};
    return nbr_collective(comm, call, &s, &r, mode);
}

static int nbr_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                          MPI_Comm comm, const char *call, const nbr_mode_t *mode)
{
    side_t s = {.buf = sendbuf, .count = sendcount, .dt = sendtype};
    side_t r = {
        .buf = recvbuf, .counts = recvcounts, .displs = displs, .dt = recvtype, .per_block = true};
    return nbr_collective(comm, call, &s, &r, mode);
}

static int nbr_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char *call,
                        const nbr_mode_t *mode)
{
    side_t s = {.buf = sendbuf, .count = sendcount, .dt = sendtype, .stride = true};
    side_t r = {.buf = recvbuf, .count = recvcount, .dt = recvtype, .stride = true};
    return nbr_collective(comm, call, &s, &r, mode);
}

static int nbr_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                         MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                         const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                         const char *call, const nbr_mode_t *mode)
{
    side_t s = {
        .buf = sendbuf, .counts = sendcounts, .displs = sdispls, .dt = sendtype, .per_block = true};
    side_t r = {
        .buf = recvbuf, .counts = recvcounts, .displs = rdispls, .dt = recvtype, .per_block = true};
    return nbr_collective(comm, call, &s, &r, mode);
}

static int nbr_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                         const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                         const char *call, const nbr_mode_t *mode)
{
    side_t s = {.buf = sendbuf,
                .counts = sendcounts,
                .bdispls = sdispls,
                .dts = sendtypes,
                .per_block = true};
    side_t r = {.buf = recvbuf,
                .counts = recvcounts,
                .bdispls = rdispls,
                .dts = recvtypes,
                .per_block = true};
    return nbr_collective(comm, call, &s, &r, mode);
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Neighbor_allgather);
    return nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, call,
                         &NBR_BLOCKING);
}

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    IBEX_ENTER_FAST(Ineighbor_allgather);
    nbr_mode_t m = {true, false, request};
    return nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, call,
                         &m);
}

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER_FAST(Neighbor_allgather_init);
    nbr_mode_t m = {true, true, request};
    (void)info; /* no hints are honoured */
    return nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, call,
                         &m);
}

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Neighbor_allgatherv);
    return nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                          call, &NBR_BLOCKING);
}

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Ineighbor_allgatherv);
    nbr_mode_t m = {true, false, request};
    return nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                          call, &m);
}

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    IBEX_ENTER_FAST(Neighbor_allgatherv_init);
    nbr_mode_t m = {true, true, request};
    (void)info; /* no hints are honoured */
    return nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                          call, &m);
}

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Neighbor_alltoall);
    return nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, call,
                        &NBR_BLOCKING);
}

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    IBEX_ENTER_FAST(Ineighbor_alltoall);
    nbr_mode_t m = {true, false, request};
    return nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, call, &m);
}

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER_FAST(Neighbor_alltoall_init);
    nbr_mode_t m = {true, true, request};
    (void)info; /* no hints are honoured */
    return nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, call, &m);
}

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Neighbor_alltoallv);
    return nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm, call, &NBR_BLOCKING);
}

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    IBEX_ENTER_FAST(Ineighbor_alltoallv);
    nbr_mode_t m = {true, false, request};
    return nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm, call, &m);
}

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER_FAST(Neighbor_alltoallv_init);
    nbr_mode_t m = {true, true, request};
    (void)info; /* no hints are honoured */
    return nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm, call, &m);
}

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    IBEX_ENTER_FAST(Neighbor_alltoallw);
    return nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                         recvtypes, comm, call, &NBR_BLOCKING);
}

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_FAST(Ineighbor_alltoallw);
    nbr_mode_t m = {true, false, request};
    return nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                         recvtypes, comm, call, &m);
}

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    IBEX_ENTER_FAST(Neighbor_alltoallw_init);
    nbr_mode_t m = {true, true, request};
    (void)info; /* no hints are honoured */
    return nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                         recvtypes, comm, call, &m);
}

IBEX_MPI_ALIASES(topo_neighbor)
