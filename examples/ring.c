/* SPDX-License-Identifier: BSD-3-Clause */
/* ring: a token goes around all ranks a few times; each rank adds its rank on every pass. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, token = 0, laps = 3;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int lap = 0; lap < laps; lap++) {
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank;
            MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) {
        int expect = laps * size * (size - 1) / 2;
        printf("ring: %d ranks, %d laps, token %d (expected %d): %s\n", size, laps, token, expect,
               token == expect ? "ok" : "WRONG");
        if (token != expect)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
