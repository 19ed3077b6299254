/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives that move no data return at once on every rank (collectives/README.md, "Calls
 * with nothing to move"): Bcast, Reduce, Allreduce, Gather, Scatter, Allgather, Alltoall,
 * Allgatherv and Reduce_scatter at count 0 (every count 0 for the v-forms), and again with three
 * elements of an empty datatype where no op is applied. The root enters each call only
 * after a message that every other rank sends once its own call has returned, so a call that
 * waited for the root would deadlock (the harness's time limit ends it). The buffers must come
 * back untouched.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define SENTINEL 0x5a

enum { BCAST, REDUCE, ALLREDUCE, GATHER, SCATTER, ALLGATHER, ALLTOALL, ALLGATHERV, RSCAT, NCALLS };
static const char *const names[NCALLS] = {"Bcast",    "Reduce",     "Allreduce",
                                          "Gather",   "Scatter",    "Allgather",
                                          "Alltoall", "Allgatherv", "Reduce_scatter"};
#define MAXRANKS 64
static int counts[MAXRANKS], displs[MAXRANKS]; /* every rank's count: the call's; displs 0 */

static int call(int which, int count, MPI_Datatype dt, char *sbuf, char *rbuf)
{
    switch (which) {
    case BCAST:
        return MPI_Bcast(rbuf, count, dt, 0, MPI_COMM_WORLD);
    case REDUCE:
        return MPI_Reduce(sbuf, rbuf, count, dt, MPI_BOR, 0, MPI_COMM_WORLD);
    case ALLREDUCE:
        return MPI_Allreduce(sbuf, rbuf, count, dt, MPI_BOR, MPI_COMM_WORLD);
    case GATHER:
        return MPI_Gather(sbuf, count, dt, rbuf, count, dt, 0, MPI_COMM_WORLD);
    case SCATTER:
        return MPI_Scatter(sbuf, count, dt, rbuf, count, dt, 0, MPI_COMM_WORLD);
    case ALLGATHER:
        return MPI_Allgather(sbuf, count, dt, rbuf, count, dt, MPI_COMM_WORLD);
    case ALLGATHERV:
        for (int i = 0; i < MAXRANKS; i++)
            counts[i] = count;
        return MPI_Allgatherv(sbuf, count, dt, rbuf, counts, displs, dt, MPI_COMM_WORLD);
    case RSCAT:
        for (int i = 0; i < MAXRANKS; i++)
            counts[i] = count;
        return MPI_Reduce_scatter(sbuf, rbuf, counts, dt, MPI_BOR, MPI_COMM_WORLD);
    default:
        return MPI_Alltoall(sbuf, count, dt, rbuf, count, dt, MPI_COMM_WORLD);
    }
}

/* One call at count elements of dt (no bytes either way); 0 if it returned and left the
 * buffers alone. */
static int one(int rank, int size, int which, int count, MPI_Datatype dt)
{
    char sbuf[64], rbuf[64];
    memset(sbuf, SENTINEL, sizeof sbuf);
    memset(rbuf, SENTINEL, sizeof rbuf);
    int token = which, rc;
    if (rank == 0) {
        for (int r = 1; r < size; r++)
            MPI_Recv(&token, 1, MPI_INT, r, which, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        rc = call(which, count, dt, sbuf, rbuf);
    } else {
        rc = call(which, count, dt, sbuf, rbuf);
        MPI_Send(&token, 1, MPI_INT, 0, which, MPI_COMM_WORLD);
    }
    for (size_t i = 0; i < sizeof rbuf; i++)
        if (rbuf[i] != SENTINEL || sbuf[i] != SENTINEL) {
            printf("coll_zero: rank %d: %s of %d elements wrote byte %zu\n", rank, names[which],
                   count, i);
            return 1;
        }
    if (rc != MPI_SUCCESS)
        printf("coll_zero: rank %d: %s of %d elements failed (%d)\n", rank, names[which], count,
               rc);
    return rc != MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXRANKS) {
        if (rank == 0)
            printf("coll_zero: at most %d ranks\n", MAXRANKS);
        MPI_Finalize();
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    for (int which = 0; which < NCALLS; which++) {
        bad |= one(rank, size, which, 0, MPI_INT);
        /* Reduce / Allreduce / Reduce_scatter apply ops to basic types only */
        if (which != REDUCE && which != ALLREDUCE && which != RSCAT)
            bad |= one(rank, size, which, 3, empty);
    }
    MPI_Type_free(&empty);
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !all)
        printf("coll_zero: ok\n");
    MPI_Finalize();
    return all;
}
