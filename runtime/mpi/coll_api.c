/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI collective entry points Barrier, Bcast, Reduce, Allreduce, and the blocking run they all
 * share: the argument checks of coll_check.c, then the algorithm the selection table picks
 * (coll_select.c).
 */
#include "coll.h"
#include "coll_api.h"
#include "coll_nbc.h"
#include "ibex_err.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

/* Whether counts[0 .. size - 1] of dt move no byte. */
static bool no_vbytes(const ibex_comm_t *c, const int *counts, MPI_Datatype dt)
{
    if (ibex_dt_get(dt)->size == 0)
        return true;
    for (int i = 0; i < c->size; i++)
        if (counts[i] != 0)
            return false;
    return true;
}

/* A call that moves no data anywhere: a data-moving collective whose per-rank block (bytes,
 * from the checks: the count times the type's size, the same on every rank since type
 * signatures must match) is empty, and the reductions at count 0 (a user op is still called on
 * elements of an empty type). MPI asks no synchronisation of them, so every rank returns at
 * once, as Open MPI and MPICH do. On an intercommunicator, where a root side has no block of
 * its own, only counts of 0 say it. Of the v-forms only Allgatherv and Reduce_scatter, whose
 * counts every rank holds: a Gatherv / Scatterv / Alltoallv rank knows only its own counts,
 * and the algorithms count on every rank taking part. */
static bool coll_nothing_to_do(ibex_coll_kind_t kind, const ibex_coll_args_t *a, size_t bytes)
{
    bool inter = ibex_comm_is_inter(a->comm);
    switch (kind) {
    case IBEX_COLL_BCAST:
        return inter ? a->rcount == 0 : bytes == 0;
    case IBEX_COLL_REDUCE:
    case IBEX_COLL_ALLREDUCE:
    case IBEX_COLL_SCAN:
    case IBEX_COLL_EXSCAN:
    case IBEX_COLL_REDUCE_SCATTER_BLOCK:
        return a->rcount == 0;
    case IBEX_COLL_ALLGATHER:
    case IBEX_COLL_ALLTOALL:
        return inter ? a->rcount == 0 && (a->sbuf == MPI_IN_PLACE || a->scount == 0) : bytes == 0;
    case IBEX_COLL_GATHER:
    case IBEX_COLL_SCATTER:
        return !inter && bytes == 0;
    case IBEX_COLL_ALLGATHERV: /* every rank sees every count: the same answer everywhere */
        return !inter && no_vbytes(a->comm, a->rcounts, a->rdt);
    case IBEX_COLL_REDUCE_SCATTER: /* bytes: of every count; an empty type still calls the op */
        return !inter && bytes == 0 && ibex_dt_get(a->rdt)->size > 0;
    default:
        return false;
    }
}

/* Out of line and cold: its variadic call made every collective save registers. */
static __attribute__((noinline, cold)) int
coll_failed(ibex_coll_kind_t kind, const ibex_coll_args_t *a, const char *call, ibex_status_t st)
{
    return ibex_mpi_error(a->comm, ibex_err_class_of(st), call, "%s failed: %s",
                          ibex_coll_kind_name(kind), ibex_status_str(st));
}

int ibex_coll_call(ibex_coll_kind_t kind, MPI_Comm comm, MPI_Op op, const char *call,
                   ibex_coll_args_t *a)
{
    size_t bytes = 0;
    IBEX_CHECK(ibex_coll_prepare(kind, comm, op, call, a, &bytes));
    if (coll_nothing_to_do(kind, a, bytes))
        return MPI_SUCCESS;
    ibex_status_t st =
        ibex_comm_is_inter(a->comm) ? ibex_nbc_run(kind, a, bytes) : ibex_coll_run(kind, a, bytes);
    if (__builtin_expect(st == IBEX_OK, 1))
        return MPI_SUCCESS;
    return coll_failed(kind, a, call, st);
}

int PMPI_Barrier(MPI_Comm comm)
{
    IBEX_ENTER_FAST(Barrier);
    ibex_coll_args_t a = {.root = 0};
    return ibex_coll_call(IBEX_COLL_BARRIER, comm, MPI_OP_NULL, call, &a);
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Bcast);
    if (ibex_coll_bcast_tiny(buffer, count, datatype, root, comm))
        return MPI_SUCCESS;
    ibex_coll_args_t a = {.rbuf = buffer, .rcount = count, .rdt = datatype, .root = root};
    return ibex_coll_call(IBEX_COLL_BCAST, comm, MPI_OP_NULL, call, &a);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    IBEX_ENTER_FAST(Reduce);
    ibex_coll_args_t a = {
        .sbuf = sendbuf, .rbuf = recvbuf, .rcount = count, .rdt = datatype, .root = root};
    return ibex_coll_call(IBEX_COLL_REDUCE, comm, op, call, &a);
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    IBEX_ENTER_FAST(Allreduce);
    if (ibex_coll_allreduce_tiny(sendbuf, recvbuf, count, datatype, op, comm))
        return MPI_SUCCESS;
    ibex_coll_args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcount = count, .rdt = datatype};
    return ibex_coll_call(IBEX_COLL_ALLREDUCE, comm, op, call, &a);
}

IBEX_MPI_ALIASES(coll_api)
