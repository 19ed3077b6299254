/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI programs that fail in each way ibexrun must supervise (same modes as pmix_client.c):
 *   mpi_fail exit CODE RANK     RANK exits with CODE after MPI_Init; the others wait in a barrier
 *   mpi_fail abort CODE RANK    RANK calls MPI_Abort(MPI_COMM_WORLD, CODE)
 *   mpi_fail nofinalize RANK    RANK returns 0 from main without MPI_Finalize
 *   mpi_fail segv RANK          RANK raises SIGSEGV after MPI_Init
 *   mpi_fail noinit RANK        RANK exits 0 before MPI_Init (rank taken from PMIX_RANK)
 *   mpi_fail sleep              every rank prints "ready" after MPI_Init, then sleeps
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
