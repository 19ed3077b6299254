/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rest of MPI 4.1's large-count forms that the generator cannot make: MPI_Op_create_c and
 * the neighbourhood collectives (the window constructors' are runtime/mpi/win_api.c's) in all three
 * forms, whose per-neighbour arrays are as long as the topology's in- and out-degrees rather than
 * the communicator's size. Each converts to the int call, whose checks and errors then apply; a
 * count, displacement or unit past an int is MPI_ERR_COUNT, as in dt_large.c.
 */
#include <limits.h>
#include <stdlib.h>

#include "ibex_err.h"
#include "ibex_op.h"
#include "op_priv.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

/* ---- user ops with MPI_Count lengths ---- */

int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    IBEX_ENTER_ANYTIME(Op_create_c);
    if (!user_fn || !op)
        return IBEX_ERROR(MPI_ERR_ARG, "%s is NULL", op ? "user_fn" : "op");
    ibex_op_t *o = ibex_op_create(NULL, commute != 0);
    if (!o)
        return IBEX_ERROR(MPI_ERR_NO_MEM, "out of memory for an op");
    o->user_fn_c = user_fn;
    *op = o->handle;
    return MPI_SUCCESS;
}

/* ---- neighbourhood collectives ---- */

/* The in- and out-degree of comm's topology (0 and 0 without one: the int call then says
 * MPI_ERR_TOPOLOGY). */
static void degrees(MPI_Comm comm, int *in, int *out)
{
    int kind = MPI_UNDEFINED, n = 0, rank = 0, weighted;
    *in = *out = 0;
    if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS)
        return;
    if (kind == MPI_CART && PMPI_Cartdim_get(comm, &n) == MPI_SUCCESS)
        *in = *out = 2 * n;
    else if (kind == MPI_GRAPH && PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS &&
             PMPI_Graph_neighbors_count(comm, rank, &n) == MPI_SUCCESS)
        *in = *out = n;
    else if (kind == MPI_DIST_GRAPH)
        PMPI_Dist_graph_neighbors_count(comm, in, out, &weighted);
}

static int count_fits(ibex_entry_t *e, MPI_Count c)
{
    if (c > INT_MAX)
        return ibex_mpi_error(NULL, MPI_ERR_COUNT, e->call, "count %lld does not fit in an int",
                              (long long)c);
    return MPI_SUCCESS;
}

/* int copies of n counts and (when d) n displacements; NULL input arrays stay NULL. */
typedef struct side {
    int *counts, *displs;
} side_t;

static int side_make(ibex_entry_t *e, const MPI_Count *c, const MPI_Aint *d, int n, side_t *s)
{
    s->counts = c ? malloc((size_t)(n > 0 ? n : 1) * sizeof(int)) : NULL;
    s->displs = d ? malloc((size_t)(n > 0 ? n : 1) * sizeof(int)) : NULL;
    if ((c && !s->counts) || (d && !s->displs))
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, e->call, "out of memory");
    for (int i = 0; i < n; i++) {
        if (c && (c[i] > INT_MAX || c[i] < INT_MIN))
            return ibex_mpi_error(NULL, MPI_ERR_COUNT, e->call,
                                  "counts[%d] = %lld does not fit in an int", i, (long long)c[i]);
        if (d && (d[i] > INT_MAX || d[i] < INT_MIN))
            return ibex_mpi_error(NULL, MPI_ERR_COUNT, e->call,
                                  "displs[%d] = %lld does not fit in an int", i, (long long)d[i]);
        if (c)
            s->counts[i] = (int)c[i];
        if (d)
            s->displs[i] = (int)d[i];
    }
    return MPI_SUCCESS;
}

static void side_free(side_t *s)
{
    free(s->counts);
    free(s->displs);
}

/* The arguments of every form; `form`: 0 blocking, 1 non-blocking, 2 persistent. */
typedef struct nb_args {
    const void *sbuf;
    MPI_Count scount;
    const MPI_Count *scounts;
    const MPI_Aint *sdispls;
    MPI_Datatype stype;
    const MPI_Datatype *stypes;
    void *rbuf;
    MPI_Count rcount;
    const MPI_Count *rcounts;
    const MPI_Aint *rdispls;
    MPI_Datatype rtype;
    const MPI_Datatype *rtypes;
    MPI_Comm comm;
    MPI_Info info;
    MPI_Request *request;
    int form;
} nb_args_t;

static int nb_allgather(ibex_entry_t *e, const nb_args_t *a)
{
    IBEX_CHECK(count_fits(e, a->scount));
    IBEX_CHECK(count_fits(e, a->rcount));
    int sc = (int)a->scount, rc = (int)a->rcount;
    if (a->form == 0)
        return PMPI_Neighbor_allgather(a->sbuf, sc, a->stype, a->rbuf, rc, a->rtype, a->comm);
    if (a->form == 1)
        return PMPI_Ineighbor_allgather(a->sbuf, sc, a->stype, a->rbuf, rc, a->rtype, a->comm,
                                        a->request);
    return PMPI_Neighbor_allgather_init(a->sbuf, sc, a->stype, a->rbuf, rc, a->rtype, a->comm,
                                        a->info, a->request);
}

static int nb_alltoall(ibex_entry_t *e, const nb_args_t *a)
{
    IBEX_CHECK(count_fits(e, a->scount));
    IBEX_CHECK(count_fits(e, a->rcount));
    int sc = (int)a->scount, rc = (int)a->rcount;
    if (a->form == 0)
        return PMPI_Neighbor_alltoall(a->sbuf, sc, a->stype, a->rbuf, rc, a->rtype, a->comm);
    if (a->form == 1)
        return PMPI_Ineighbor_alltoall(a->sbuf, sc, a->stype, a->rbuf, rc, a->rtype, a->comm,
                                       a->request);
    return PMPI_Neighbor_alltoall_init(a->sbuf, sc, a->stype, a->rbuf, rc, a->rtype, a->comm,
                                       a->info, a->request);
}

static int nb_allgatherv(ibex_entry_t *e, const nb_args_t *a)
{
    int in, out, rc;
    side_t r = {0};
    IBEX_CHECK(count_fits(e, a->scount));
    degrees(a->comm, &in, &out);
    rc = side_make(e, a->rcounts, a->rdispls, in, &r);
    int sc = (int)a->scount;
    if (rc == MPI_SUCCESS && a->form == 0)
        rc = PMPI_Neighbor_allgatherv(a->sbuf, sc, a->stype, a->rbuf, r.counts, r.displs, a->rtype,
                                      a->comm);
    else if (rc == MPI_SUCCESS && a->form == 1)
        rc = PMPI_Ineighbor_allgatherv(a->sbuf, sc, a->stype, a->rbuf, r.counts, r.displs, a->rtype,
                                       a->comm, a->request);
    else if (rc == MPI_SUCCESS)
        rc = PMPI_Neighbor_allgatherv_init(a->sbuf, sc, a->stype, a->rbuf, r.counts, r.displs,
                                           a->rtype, a->comm, a->info, a->request);
    side_free(&r);
    return rc;
}

static int nb_alltoallv(ibex_entry_t *e, const nb_args_t *a)
{
    int in, out, rc;
    side_t s = {0}, r = {0};
    degrees(a->comm, &in, &out);
    rc = side_make(e, a->scounts, a->sdispls, out, &s);
    if (rc == MPI_SUCCESS)
        rc = side_make(e, a->rcounts, a->rdispls, in, &r);
    if (rc == MPI_SUCCESS && a->form == 0)
        rc = PMPI_Neighbor_alltoallv(a->sbuf, s.counts, s.displs, a->stype, a->rbuf, r.counts,
                                     r.displs, a->rtype, a->comm);
    else if (rc == MPI_SUCCESS && a->form == 1)
        rc = PMPI_Ineighbor_alltoallv(a->sbuf, s.counts, s.displs, a->stype, a->rbuf, r.counts,
                                      r.displs, a->rtype, a->comm, a->request);
    else if (rc == MPI_SUCCESS)
        rc = PMPI_Neighbor_alltoallv_init(a->sbuf, s.counts, s.displs, a->stype, a->rbuf, r.counts,
                                          r.displs, a->rtype, a->comm, a->info, a->request);
    side_free(&s);
    side_free(&r);
    return rc;
}

static int nb_alltoallw(ibex_entry_t *e, const nb_args_t *a)
{
    int in, out, rc;
    side_t s = {0}, r = {0};
    degrees(a->comm, &in, &out);
    rc = side_make(e, a->scounts, NULL, out, &s); /* byte displacements are MPI_Aint already */
    if (rc == MPI_SUCCESS)
        rc = side_make(e, a->rcounts, NULL, in, &r);
    if (rc == MPI_SUCCESS && a->form == 0)
        rc = PMPI_Neighbor_alltoallw(a->sbuf, s.counts, a->sdispls, a->stypes, a->rbuf, r.counts,
                                     a->rdispls, a->rtypes, a->comm);
    else if (rc == MPI_SUCCESS && a->form == 1)
        rc = PMPI_Ineighbor_alltoallw(a->sbuf, s.counts, a->sdispls, a->stypes, a->rbuf, r.counts,
                                      a->rdispls, a->rtypes, a->comm, a->request);
    else if (rc == MPI_SUCCESS)
        rc = PMPI_Neighbor_alltoallw_init(a->sbuf, s.counts, a->sdispls, a->stypes, a->rbuf,
                                          r.counts, a->rdispls, a->rtypes, a->comm, a->info,
                                          a->request);
    side_free(&s);
    side_free(&r);
    return rc;
}

/* MPI_X_c of the scalar-count forms, non-blocking and persistent (the blocking ones are
 * generated, mpi.def's `large`). */
#define NB_SCALAR(X, fn)                                                                           \
    int PMPI_Ineighbor_##X##_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,    \
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,          \
                               MPI_Comm comm, MPI_Request *request)                                \
    {                                                                                              \
        IBEX_ENTER(Ineighbor_##X##_c);                                                             \
        nb_args_t a = {.sbuf = sendbuf,                                                            \
                       .scount = sendcount,                                                        \
                       .stype = sendtype,                                                          \
                       .rbuf = recvbuf,                                                            \
                       .rcount = recvcount,                                                        \
                       .rtype = recvtype,                                                          \
                       .comm = comm,                                                               \
                       .request = request,                                                         \
                       .form = 1};                                                                 \
        return fn(&ibex_e, &a);                                                                    \
    }                                                                                              \
    int PMPI_Neighbor_##X##_init_c(const void *sendbuf, MPI_Count sendcount,                       \
                                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,      \
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,            \
                                   MPI_Request *request)                                           \
    {                                                                                              \
        IBEX_ENTER(Neighbor_##X##_init_c);                                                         \
        nb_args_t a = {.sbuf = sendbuf,                                                            \
                       .scount = sendcount,                                                        \
                       .stype = sendtype,                                                          \
                       .rbuf = recvbuf,                                                            \
                       .rcount = recvcount,                                                        \
                       .rtype = recvtype,                                                          \
                       .comm = comm,                                                               \
                       .info = info,                                                               \
                       .request = request,                                                         \
                       .form = 2};                                                                 \
        return fn(&ibex_e, &a);                                                                    \
    }

NB_SCALAR(allgather, nb_allgather)
NB_SCALAR(alltoall, nb_alltoall)

int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm)
{
    IBEX_ENTER(Neighbor_allgatherv_c);
    nb_args_t a = {.sbuf = sendbuf,
                   .scount = sendcount,
                   .stype = sendtype,
                   .rbuf = recvbuf,
                   .rcounts = recvcounts,
                   .rdispls = displs,
                   .rtype = recvtype,
                   .comm = comm};
    return nb_allgatherv(&ibex_e, &a);
}

int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *request)
{
    IBEX_ENTER(Ineighbor_allgatherv_c);
    nb_args_t a = {.sbuf = sendbuf,
                   .scount = sendcount,
                   .stype = sendtype,
                   .rbuf = recvbuf,
                   .rcounts = recvcounts,
                   .rdispls = displs,
                   .rtype = recvtype,
                   .comm = comm,
                   .request = request,
                   .form = 1};
    return nb_allgatherv(&ibex_e, &a);
}

int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER(Neighbor_allgatherv_init_c);
    nb_args_t a = {.sbuf = sendbuf,
                   .scount = sendcount,
                   .stype = sendtype,
                   .rbuf = recvbuf,
                   .rcounts = recvcounts,
                   .rdispls = displs,
                   .rtype = recvtype,
                   .comm = comm,
                   .info = info,
                   .request = request,
                   .form = 2};
    return nb_allgatherv(&ibex_e, &a);
}

#define NB_V_ARGS                                                                                  \
    .sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls, .stype = sendtype,                 \
    .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = rdispls, .rtype = recvtype, .comm = comm

int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm)
{
    IBEX_ENTER(Neighbor_alltoallv_c);
    nb_args_t a = {NB_V_ARGS};
    return nb_alltoallv(&ibex_e, &a);
}

int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER(Ineighbor_alltoallv_c);
    nb_args_t a = {NB_V_ARGS, .request = request, .form = 1};
    return nb_alltoallv(&ibex_e, &a);
}

int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    IBEX_ENTER(Neighbor_alltoallv_init_c);
    nb_args_t a = {NB_V_ARGS, .info = info, .request = request, .form = 2};
    return nb_alltoallv(&ibex_e, &a);
}

#define NB_W_ARGS                                                                                  \
    .sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls, .stypes = sendtypes,               \
    .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = rdispls, .rtypes = recvtypes, .comm = comm

int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    IBEX_ENTER(Neighbor_alltoallw_c);
    nb_args_t a = {NB_W_ARGS};
    return nb_alltoallw(&ibex_e, &a);
}

int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER(Ineighbor_alltoallw_c);
    nb_args_t a = {NB_W_ARGS, .request = request, .form = 1};
    return nb_alltoallw(&ibex_e, &a);
}

int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER(Neighbor_alltoallw_init_c);
    nb_args_t a = {NB_W_ARGS, .info = info, .request = request, .form = 2};
    return nb_alltoallw(&ibex_e, &a);
}

IBEX_MPI_ALIASES(large_more)
