/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Deliberate hangs for the hang reports (tests/reliability/hang.sh), standard MPI only:
 *   ssend     ranks 0 and 1 MPI_Ssend to each other (head to head), the others wait in a barrier
 *   ring      every rank MPI_Ssend to the next: a cycle through all ranks
 *   missing   rank 0 receives from rank 1 (tag 7), which never sends and goes to MPI_Finalize
 *   mismatch  the last rank calls MPI_Bcast, the others MPI_Allreduce, on MPI_COMM_WORLD
 *   anysrc    rank 0 receives from MPI_ANY_SOURCE; rank 1 computes (sleeps) ARG s, then sends;
 *             the others wait in MPI_Waitany for rank 0
 *   anyknot   rank 0 receives from MPI_ANY_SOURCE, every other rank receives from rank 0: an
 *             OR-wait in a knot (a deadlock)
 *   compute   rank 0 receives from rank 1 (tag 7), which computes (sleeps) ARG s, then sends:
 *             not a deadlock, the job ends well
 *   poll      as compute, but rank 0 polls for the message with MPI_Test
 *   testsome  rank 0 polls MPI_Testsome over receives from every other rank, which all receive
 *             from rank 0 first: an OR-wait in a knot (a deadlock); with ARG > 0 the last rank
 *             computes ARG s and sends instead: no deadlock, the job ends well
 *   iprobe    rank 0 polls MPI_Iprobe(MPI_ANY_SOURCE), every other rank receives from rank 0
 *   mixpoll   rank 0 loops over MPI_Test (a receive from rank 1) and MPI_Iprobe (from rank 2),
 *             ranks 1 and 2 receive from rank 0: a knot over the loop's two calls (an OR); with
 *             ARG > 0 rank 2 computes ARG s and sends instead: no deadlock
 *   winwait   one-sided: rank 0 posts to rank 1 and waits in MPI_Win_wait; rank 1 receives from
 *             rank 0 instead of MPI_Win_start / complete (a deadlock)
 *   winfence  every rank but the last calls MPI_Win_fence; the last receives from rank 0
 *   winlock   rank 0 holds an exclusive lock on rank 1 and receives from rank 1, which waits
 *             in MPI_Win_lock for the same lock (shown, but a lock's holder is not recorded)
 *   waitall   rank 0 waits in MPI_Waitall for a receive from rank 1 (tag 7), which computes
 *             (sleeps) ARG s, sends and finishes, and one from rank 2 (tag 8), which receives
 *             from rank 0 instead: once rank 1's message is in, the record names only rank 2
 *             (a deadlock between ranks 0 and 2)
 *   bcast0    on an intercommunicator of the even and the odd ranks, rank 1 waits in MPI_Bcast
 *             of 16 elements of an empty type (0 bytes) from rank 0, which receives from rank 1
 *             instead (on an intracommunicator such a Bcast returns at once)
 *   firstcoll every rank but 0 enters the first collective (MPI_Allreduce) of a new duplicate
 *             of MPI_COMM_WORLD, whose set-up (the communicator's shared segment) waits for rank
 *             0, which receives from rank 1 instead
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void hang_ssend(int rank, int size)
{
    int buf = rank, peer = rank ^ 1;
    if (rank < 2 && size >= 2)
        MPI_Ssend(&buf, 1, MPI_INT, peer, 7, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void hang_ring(int rank, int size)
{
    int buf = rank;
    MPI_Ssend(&buf, 1, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD);
}

static void hang_missing(int rank)
{
    int buf = 0;
    if (rank == 0)
        MPI_Recv(&buf, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void hang_mismatch(int rank, int size, int n)
{
    double *x = calloc((size_t)n, sizeof(double)), *y = calloc((size_t)n, sizeof(double));
    if (rank == size - 1)
        MPI_Bcast(x, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else
        MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    free(x);
    free(y);
}

static void hang_anyknot(int rank)
{
    int buf = 0;
    MPI_Recv(&buf, 1, MPI_INT, rank == 0 ? MPI_ANY_SOURCE : 0, 5, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
}

static void hang_poll(int rank, int secs)
{
    int buf = 42, got = 0, done = 0;
    if (rank == 1) {
        sleep((unsigned)secs);
        MPI_Send(&buf, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Request r;
        MPI_Irecv(&got, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &r);
        while (!done)
            MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        if (got != buf)
            MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* Rank 0's loop: Testsome over a receive from each other rank, until one arrives. */
static void testsome_loop(int size, int *got, MPI_Request *r)
{
    int n = 0, idx[64];
    for (int p = 1; p < size; p++)
        MPI_Irecv(&got[p], 1, MPI_INT, p, 5, MPI_COMM_WORLD, &r[p - 1]);
    while (n == 0)
        MPI_Testsome(size - 1, r, &n, idx, MPI_STATUSES_IGNORE);
    for (int i = 0; i < n; i++)
        if (got[idx[i] + 1] != 40 + idx[i] + 1)
            MPI_Abort(MPI_COMM_WORLD, 3);
}

static void hang_testsome(int rank, int size, int secs)
{
    int buf = 40 + rank, got[64] = {0};
    MPI_Request r[64];
    if (size > 64)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (rank == 0) {
        testsome_loop(size, got, r);
        for (int p = 1; p < size; p++)
            MPI_Send(&buf, 1, MPI_INT, p, 6, MPI_COMM_WORLD);
        for (int i = 0; i < size - 1; i++) {
            if (r[i] != MPI_REQUEST_NULL)
                MPI_Cancel(&r[i]);
            MPI_Wait(&r[i], MPI_STATUS_IGNORE);
        }
        return;
    }
    if (secs > 0 && rank == size - 1) {
        sleep((unsigned)secs); /* "compute" */
        MPI_Send(&buf, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    }
    MPI_Recv(&got[0], 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void hang_iprobe(int rank)
{
    int buf = 0, flag = 0;
    if (rank == 0)
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    else
        MPI_Recv(&buf, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void hang_win(int rank, int size, const char *mode)
{
    int mem[4] = {0}, buf = 0;
    MPI_Win win;
    MPI_Win_create(mem, sizeof(mem), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (strcmp(mode, "winwait") == 0 && rank == 0) {
        MPI_Group world, one;
        int r1 = 1;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, 1, &r1, &one);
        MPI_Win_post(one, 0, win);
        MPI_Win_wait(win);
    } else if (strcmp(mode, "winfence") == 0 && rank < size - 1) {
        MPI_Win_fence(0, win);
    } else if (strcmp(mode, "winlock") == 0 && rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&buf, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "winlock") == 0 && rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    } else if (strcmp(mode, "winlock") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (rank == size - 1 || rank == 1) {
        MPI_Recv(&buf, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Win_free(&win);
}

static void hang_mixpoll(int rank, int size, int secs)
{
    int buf = 7, got = 0, done = 0, flag = 0;
    if (rank == 0) {
        MPI_Request r;
        MPI_Irecv(&got, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &r);
        while (!done && !flag) {
            MPI_Test(&r, &done, MPI_STATUS_IGNORE);
            MPI_Iprobe(2, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        }
        if (flag)
            MPI_Recv(&got, 1, MPI_INT, 2, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int p = 1; p < size; p++)
            MPI_Send(&buf, 1, MPI_INT, p, 6, MPI_COMM_WORLD);
        if (!done)
            MPI_Cancel(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        return;
    }
    if (secs > 0 && rank == 2) {
        sleep((unsigned)secs); /* "compute" */
        MPI_Send(&buf, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    }
    MPI_Recv(&got, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Rank 0 waits for an MPI_Ibarrier that rank 1 never joins: rank 1 waits in a receive from 0.
 * The record names the barrier's receive in flight (from rank 1), not the communicator. */
static void hang_nbc(int rank)
{
    int buf = 0;
    MPI_Request r;
    if (rank == 0) {
        MPI_Ibarrier(MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Send(&buf, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&buf, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Ibarrier(MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
}

static void hang_bcast0(int rank)
{
    int buf[16] = {0};
    MPI_Comm half, inter;
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - rank % 2, 5, &inter);
    if (rank == 1)
        MPI_Bcast(buf, 16, empty, 0, inter);
    else if (rank == 0)
        MPI_Recv(buf, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void hang_firstcoll(int rank)
{
    int buf = rank, sum = 0;
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0)
        MPI_Recv(&buf, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Allreduce(&buf, &sum, 1, MPI_INT, MPI_SUM, dup);
}

static void hang_compute(int rank, int secs, int anysrc)
{
    int buf = 42, got = 0;
    if (rank == 1) {
        sleep((unsigned)secs); /* "compute" */
        MPI_Send(&buf, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Recv(&got, 1, MPI_INT, anysrc ? MPI_ANY_SOURCE : 1, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        if (got != buf) {
            fprintf(stderr, "hang_prog: got %d, expected %d\n", got, buf);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
    if (rank >= 2) { /* an OR-wait on rank 0 that ends when rank 0 is done */
        MPI_Request r;
        int idx;
        MPI_Irecv(&got, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &r);
        MPI_Waitany(1, &r, &idx, MPI_STATUS_IGNORE);
    } else if (rank == 0) {
        int size;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        for (int p = 2; p < size; p++)
            MPI_Send(&buf, 1, MPI_INT, p, 9, MPI_COMM_WORLD);
    }
}

static void hang_waitall(int rank, int secs)
{
    int buf = rank, got[2] = {0, 0};
    if (rank == 0) {
        MPI_Request r[2];
        MPI_Irecv(&got[0], 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&got[1], 1, MPI_INT, 2, 8, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    } else if (rank == 1) {
        sleep((unsigned)secs); /* "compute" */
        MPI_Send(&buf, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Recv(&got[0], 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    int secs = argc > 2 ? atoi(argv[2]) : 5;
    if (strcmp(mode, "ssend") == 0)
        hang_ssend(rank, size);
    else if (strcmp(mode, "ring") == 0)
        hang_ring(rank, size);
    else if (strcmp(mode, "missing") == 0)
        hang_missing(rank);
    else if (strcmp(mode, "mismatch") == 0)
        hang_mismatch(rank, size, secs);
    else if (strcmp(mode, "poll") == 0)
        hang_poll(rank, secs);
    else if (strcmp(mode, "anyknot") == 0)
        hang_anyknot(rank);
    else if (strcmp(mode, "testsome") == 0)
        hang_testsome(rank, size, secs);
    else if (strcmp(mode, "iprobe") == 0)
        hang_iprobe(rank);
    else if (strcmp(mode, "mixpoll") == 0 && size >= 3)
        hang_mixpoll(rank, size, secs);
    else if (strcmp(mode, "nbc") == 0)
        hang_nbc(rank);
    else if (strcmp(mode, "waitall") == 0 && size >= 3)
        hang_waitall(rank, secs);
    else if (strcmp(mode, "bcast0") == 0 && size >= 2)
        hang_bcast0(rank);
    else if (strcmp(mode, "firstcoll") == 0 && size >= 2)
        hang_firstcoll(rank);
    else if (strncmp(mode, "win", 3) == 0)
        hang_win(rank, size, mode);
    else if (strcmp(mode, "compute") == 0 || strcmp(mode, "anysrc") == 0)
        hang_compute(rank, secs, strcmp(mode, "anysrc") == 0);
    else {
        fprintf(stderr,
                "usage: hang_prog ssend|ring|missing|mismatch|anyknot|compute|anysrc|poll|testsome|"
                "iprobe|mixpoll|winwait|winfence|winlock|waitall|bcast0|firstcoll [SECS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    if (rank == 0)
        printf("hang_prog: ok\n");
    return 0;
}
