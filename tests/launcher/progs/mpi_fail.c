/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI programs that fail in each way ibexrun must supervise (same modes as pmix_client.c):
 *   mpi_fail exit CODE RANK     RANK exits with CODE after MPI_Init; the others wait in a barrier
 *   mpi_fail abort CODE RANK    RANK calls MPI_Abort(MPI_COMM_WORLD, CODE)
 *   mpi_fail nofinalize RANK    RANK returns 0 from main without MPI_Finalize
 *   mpi_fail segv RANK          RANK raises SIGSEGV after MPI_Init
 *   mpi_fail noinit RANK        RANK exits 0 before MPI_Init (rank taken from PMIX_RANK)
 *   mpi_fail sleep              every rank prints "ready" after MPI_Init, then sleeps
 *   mpi_fail killall            every rank talks to the others (messages, collectives on a
 *                               dup of MPI_COMM_WORLD, so the transports and the collective
 *                               segments are set up), then rank 0 SIGKILLs every rank, itself
 *                               last: no rank's cleanup runs
 * The others wait in MPI_Recv from the target, which never sends: they are stuck until
 * ibexrun stops them (no collective is needed for that).
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "sleep";
    /* exit and abort take CODE RANK, the other modes RANK; later words are ignored. */
    int two = strcmp(mode, "exit") == 0 || strcmp(mode, "abort") == 0;
    int code = two && argc > 2 ? atoi(argv[2]) : 0;
    int target = argc > 2 + two ? atoi(argv[2 + two]) : 0;
    const char *envrank = getenv("PMIX_RANK");
    if (strcmp(mode, "noinit") == 0 && envrank && atoi(envrank) == target)
        return 0;
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(mode, "sleep") == 0) {
        printf("rank %d ready\n", rank);
        for (;;)
            pause();
    }
    if (strcmp(mode, "killall") == 0) {
        MPI_Comm dup;
        int size, sum = 0, token = rank, me = (int)getpid(), pids[1024];
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
        MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 0, (rank + size - 1) % size, 0,
                             dup, MPI_STATUS_IGNORE);
        MPI_Allgather(&me, 1, MPI_INT, pids, 1, MPI_INT, dup);
        MPI_Barrier(dup);
        if (rank == 0) { /* every rank at once, rank 0 last */
            for (int i = size - 1; i >= 0 && size <= 1024; i--)
                kill((pid_t)pids[i], SIGKILL);
        }
        for (;;)
            pause();
    }
    if (rank == target) {
        if (strcmp(mode, "exit") == 0)
            exit(code);
        if (strcmp(mode, "abort") == 0)
            MPI_Abort(MPI_COMM_WORLD, code);
        if (strcmp(mode, "nofinalize") == 0)
            return 0;
        if (strcmp(mode, "segv") == 0)
            raise(SIGSEGV);
    } else {
        /* Blocks until the launcher stops this rank. */
        for (;;)
            pause();
    }
    MPI_Finalize();
    return 0;
}
