/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A receive from MPI_ANY_SOURCE when a rank that could send it has failed (tests/reliability/
 * errors.sh, over verbs on softib with every connection forced into the error state after some
 * work: SOFTIB_FAULT_QP_ERR_AFTER). Standard MPI only, under MPI_ERRORS_RETURN:
 *   the other ranks send rank 0 numbered messages (tag 1) until a send fails, then stop;
 *   rank 0 takes them with MODE from MPI_ANY_SOURCE, checking each one's number against the
 *   count it got from that source, until the call fails: it must fail (not hang), with an error
 *   class other than MPI_SUCCESS and a message naming the failed rank.
 * MODE: recv (MPI_Recv), irecv (MPI_Irecv + MPI_Wait), probe (MPI_Probe, then MPI_Recv),
 * iprobe (an MPI_Iprobe loop). Rank 0 prints "anysrc_fail: failed as it must: CLASS: TEXT".
 * A second argument "fatal" leaves rank 0 under MPI_ERRORS_ARE_FATAL: the job must end with the
 * message naming the failed rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int take_one(const char *mode, int *val, MPI_Status *st)
{
    if (strcmp(mode, "irecv") == 0) {
        MPI_Request r;
        int rc = MPI_Irecv(val, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &r);
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&r, st);
    }
    if (strcmp(mode, "probe") == 0 || strcmp(mode, "iprobe") == 0) {
        int flag = 0, rc = MPI_SUCCESS;
        while (!flag && rc == MPI_SUCCESS) {
            if (mode[0] == 'p')
                rc = MPI_Probe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, st), flag = 1;
            else
                rc = MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, st);
        }
        if (rc != MPI_SUCCESS)
            return rc;
        return MPI_Recv(val, 1, MPI_INT, st->MPI_SOURCE, 1, MPI_COMM_WORLD, st);
    }
    return MPI_Recv(val, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, st);
}

static void receiver(const char *mode, int size)
{
    int *next = calloc((size_t)size, sizeof(int)), val, rc;
    MPI_Status st;
    long got = 0;
    while ((rc = take_one(mode, &val, &st)) == MPI_SUCCESS) {
        if (st.MPI_SOURCE < 1 || st.MPI_SOURCE >= size || val != next[st.MPI_SOURCE]++) {
            fprintf(stderr, "anysrc_fail: CORRUPT: %d from %d\n", val, st.MPI_SOURCE);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        got++;
    }
    int cls, len;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Error_class(rc, &cls);
    MPI_Error_string(cls, text, &len);
    printf("anysrc_fail: failed as it must after %ld messages: %s\n", got, text);
    free(next);
}

int main(int argc, char **argv)
{
    int rank, size;
    const char *mode = argc > 1 ? argv[1] : "recv";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank != 0 || argc < 3 || strcmp(argv[2], "fatal") != 0)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0) {
        receiver(mode, size);
    } else { /* until the connection breaks (at most a million: the fault must come first) */
        for (int i = 0; i < 1000000; i++)
            if (MPI_Send(&i, 1, MPI_INT, 0, 1, MPI_COMM_WORLD) != MPI_SUCCESS)
                break;
    }
    MPI_Finalize();
    return 0;
}
