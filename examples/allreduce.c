/* SPDX-License-Identifier: BSD-3-Clause */
/* allreduce: the sum of every rank's vector, checked against the closed form. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, n = 1 << 16, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *in = malloc(sizeof(double) * n), *out = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
        in[i] = rank + i;
    MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        bad += out[i] != (double)size * (size - 1) / 2 + (double)size * i;
    int total = 0; /* MPI_Reduce sets it on rank 0 only; the others return it too */
    MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("allreduce: %d ranks, %d doubles: %s\n", size, n, total ? "WRONG" : "ok");
    free(in);
    free(out);
    MPI_Finalize();
    return total ? 1 : 0;
}
