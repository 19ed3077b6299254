/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI 4.0 large-count (_c) calls generated from mpi.def, in a singleton: counts that fit in
 * an int behave as the int calls (data moves, types are built), a non-blocking collective
 * past INT_MAX is posted and completes, a count below INT_MIN is MPI_ERR_COUNT under
 * MPI_ERRORS_RETURN, and the job goes on. Prints "large_count: ok".
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

static int failures;

static void expect(int cond, const char *what)
{
    if (!cond) {
        printf("large_count: FAIL %s\n", what);
        failures++;
    }
}

static void fitting_counts(void)
{
    int out[4] = {1, 2, 3, 4}, in[4] = {0};
    MPI_Status st;
    expect(MPI_Sendrecv_c(out, 4, MPI_INT, 0, 7, in, 4, MPI_INT, 0, 7, MPI_COMM_WORLD, &st) ==
               MPI_SUCCESS,
           "Sendrecv_c to self");
    expect(memcmp(in, out, sizeof(in)) == 0, "Sendrecv_c data");
    MPI_Request req;
    int one = 0;
    expect(MPI_Irecv_c(&one, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, &req) == MPI_SUCCESS, "Irecv_c");
    expect(MPI_Send_c(&out[3], 1, MPI_INT, 0, 8, MPI_COMM_WORLD) == MPI_SUCCESS, "Send_c");
    expect(MPI_Wait(&req, &st) == MPI_SUCCESS && one == 4, "Send_c / Irecv_c data");
    MPI_Datatype t;
    int size = 0;
    expect(MPI_Type_contiguous_c(3, MPI_INT, &t) == MPI_SUCCESS, "Type_contiguous_c");
    expect(MPI_Type_size(t, &size) == MPI_SUCCESS && size == 3 * (int)sizeof(int),
           "Type_contiguous_c size");
    MPI_Type_free(&t);
    int sum[2] = {10, 20};
    expect(MPI_Reduce_local_c(out, sum, 2, MPI_INT, MPI_SUM) == MPI_SUCCESS && sum[0] == 11 &&
               sum[1] == 22,
           "Reduce_local_c");
    expect(MPI_Allreduce_c(out, in, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS &&
               in[3] == 4,
           "Allreduce_c");
}

static void too_large_counts(void)
{
    MPI_Count big = (MPI_Count)INT_MAX + 1;
    char c = 0;
    /* every collective's _c form takes such counts (tests/mpi/large_coll.c): a non-blocking
     * one of INT_MAX + 1 elements of an empty type is posted and completes */
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_Ibcast_c(&c, big, empty, 0, MPI_COMM_WORLD, &req);
    expect(rc == MPI_SUCCESS && req != MPI_REQUEST_NULL, "Ibcast_c with INT_MAX + 1 is posted");
    expect(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS && req == MPI_REQUEST_NULL,
           "Ibcast_c with INT_MAX + 1 completes");
    MPI_Type_free(&empty);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    rc = MPI_Type_contiguous_c(-(MPI_Count)INT_MAX - 2, MPI_INT, &t);
    expect(rc == MPI_ERR_COUNT && t == MPI_DATATYPE_NULL, "Type_contiguous_c below INT_MIN");
    /* negative counts that fit go to the int call, which says they are negative */
    rc = MPI_Send_c(&c, -1, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    expect(rc == MPI_ERR_COUNT, "Send_c with -1");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    fitting_counts();
    too_large_counts();
    MPI_Finalize();
    if (failures)
        return 1;
    printf("large_count: ok\n");
    return 0;
}
