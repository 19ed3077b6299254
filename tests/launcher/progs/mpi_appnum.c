/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPMD check (tests/launcher/hosts.sh): prints "rank R of N app A host H args ARGS" per rank.
 * Every rank checks, against MPI alone, that the MPI_APPNUM attribute is set, that the ranks of
 * one application are contiguous, and that splitting MPI_COMM_WORLD by application gives
 * groups whose sizes add up to the world's. Exit 1 with a message on any mismatch.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(int ok, const char *what, int rank)
{
    if (!ok)
        fprintf(stderr, "mpi_appnum: rank %d: %s\n", rank, what);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    int rank, size, flag = 0, *app = NULL, bad = 0;
    char host[MPI_MAX_PROCESSOR_NAME], args[256] = "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag);
    bad |= check(flag && app && *app >= 0, "MPI_APPNUM not set", rank);
    int mine = flag && app ? *app : -1, len;
    int *all = malloc(sizeof(int) * (size_t)size);
    MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 1; r < size; r++)
        bad |= check(all[r] >= all[r - 1], "application ranks not contiguous", rank);
    MPI_Comm sub;
    int subsize, total = 0;
    MPI_Comm_split(MPI_COMM_WORLD, mine, rank, &sub);
    MPI_Comm_size(sub, &subsize);
    int leader = 0;
    MPI_Comm_rank(sub, &leader);
    int contrib = leader == 0 ? subsize : 0;
    MPI_Allreduce(&contrib, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    bad |= check(total == size, "application sizes do not add up", rank);
    MPI_Get_processor_name(host, &len);
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "ibex-test-", 10) != 0)
            snprintf(args + strlen(args), sizeof(args) - strlen(args), "%s%s", i > 1 ? "," : "",
                     argv[i]);
    const char *base = strrchr(argv[0], '/');
    printf("rank %d of %d app %d prog %s host %s args %s\n", rank, size, mine,
           base ? base + 1 : argv[0], host, args);
    MPI_Comm_free(&sub);
    free(all);
    MPI_Finalize();
    return bad;
}
