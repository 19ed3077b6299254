/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fatal paths, one per run (the mode is argv[1]); base.sh checks the exit code and message.
 *   rank        rank 1 sends to an invalid rank under MPI_ERRORS_ARE_FATAL: exit code 6
 *   abort N     rank 1 calls MPI_Abort(MPI_COMM_WORLD, N): the job exits with N
 *   before      MPI_Send before MPI_Init
 *   after       MPI_Send after MPI_Finalize
 *   init        MPI_Init only (base.sh sets a bad IBEX_* value)
 * Ranks that are not the one failing wait in MPI_Recv, so the job must be ended for them.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int rank = 0, size = 1, x = 0;
    if (strcmp(mode, "before") == 0)
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "rank") == 0 || strcmp(mode, "abort") == 0) {
        if (rank == 1 % size) {
            if (strcmp(mode, "rank") == 0)
                MPI_Send(&x, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD);
            else
                MPI_Abort(MPI_COMM_WORLD, argc > 2 ? atoi(argv[2]) : 1);
            fprintf(stderr, "base_fatal: rank %d survived a fatal error\n", rank);
            return 0;
        }
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    if (strcmp(mode, "after") == 0)
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    printf("base_fatal: rank %d finished\n", rank);
    return 0;
}
