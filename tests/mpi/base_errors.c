/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Error classes under MPI_ERRORS_RETURN and user error handlers (runtime/errhandler*.c): a bad
 * MPI_Send returns MPI_ERR_RANK / TAG / COUNT / COMM / BUFFER and the job goes on; a user
 * handler is called with the communicator and the class; MPI_Reduce_local with MPI_IN_PLACE or
 * aliased buffers is MPI_ERR_BUFFER, and so are a collective's aliased send and receive
 * buffers; a program's own MPI_Error_class
 * replaces the library's (profiling interface). Prints "base_errors: ok" per rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "base_errors: check failed at line %d: %s\n", __LINE__, #cond);        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* The profiling interface: this definition replaces the library's weak MPI_Error_class. */
static int intercepted;
int MPI_Error_class(int errorcode, int *errorclass)
{
    intercepted++;
    return PMPI_Error_class(errorcode, errorclass);
}

static int handler_calls, handler_code;
static MPI_Comm handler_comm;

static void on_error(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_comm = *comm;
    handler_code = *code;
}

static void check_returned_classes(int size)
{
    int x = 7, cls = -1;
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD) == MPI_ERR_RANK);
    CHECK(MPI_Send(&x, 1, MPI_INT, -5, 0, MPI_COMM_WORLD) == MPI_ERR_RANK);
    CHECK(MPI_Send(&x, 1, MPI_INT, 0, -1, MPI_COMM_WORLD) == MPI_ERR_TAG);
    CHECK(MPI_Send(&x, 1, MPI_INT, 0, 1 << 30, MPI_COMM_WORLD) == MPI_ERR_TAG);
    CHECK(MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_COUNT);
    /* errors not tied to a communicator use MPI_COMM_WORLD's handler (SELF's is not set) */
    CHECK(MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL) == MPI_ERR_COMM);
    CHECK(MPI_Send(NULL, 1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
    CHECK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    /* MPI_Reduce_local has no in-place form and may not alias its buffers (MPICH's
     * errors/coll/reduce_local): MPI_ERR_BUFFER, inoutbuf left as it was */
    int in[2] = {1, 2}, io[2] = {10, 20};
    CHECK(MPI_Reduce_local(MPI_IN_PLACE, io, 2, MPI_INT, MPI_SUM) == MPI_ERR_BUFFER);
    CHECK(MPI_Reduce_local(in, MPI_IN_PLACE, 2, MPI_INT, MPI_SUM) == MPI_ERR_BUFFER);
    CHECK(MPI_Reduce_local(io, io, 2, MPI_INT, MPI_SUM) == MPI_ERR_BUFFER);
    CHECK(io[0] == 10 && io[1] == 20);
    CHECK(MPI_Reduce_local(in, io, 2, MPI_INT, MPI_SUM) == MPI_SUCCESS);
    CHECK(io[0] == 11 && io[1] == 22);
    /* a collective's send buffer that is its receive buffer (not MPI_IN_PLACE) where both are
     * significant (runtime/mpi/coll_check.c; MPICH's errors/coll noalias): MPI_ERR_BUFFER on
     * every rank, nothing sent, so the correct calls after it still match */
    MPI_Request req;
    CHECK(MPI_Allreduce(io, io, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
    CHECK(MPI_Iallreduce(io, io, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req) == MPI_ERR_BUFFER);
    CHECK(MPI_Allgather(io, 1, MPI_INT, io, 1, MPI_INT, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
    CHECK(MPI_Scan(io, io, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
    CHECK(MPI_Allreduce(MPI_IN_PLACE, io, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(io[0] == 11 && io[1] == 22);
    CHECK(MPI_Error_class(MPI_ERR_RANK, &cls) == MPI_SUCCESS && cls == MPI_ERR_RANK);
    CHECK(MPI_Error_class(1000, &cls) == MPI_ERR_ARG);
    CHECK(intercepted == 2);
    MPI_Errhandler eh = MPI_ERRORS_RETURN;
    CHECK(MPI_Errhandler_free(&eh) == MPI_ERR_ARG);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL) == MPI_ERR_ARG);
}

static void check_user_handler(int size)
{
    int x = 1;
    MPI_Errhandler eh, got;
    CHECK(MPI_Comm_create_errhandler(on_error, &eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got) == MPI_SUCCESS && got == eh);
    CHECK(MPI_Errhandler_free(&got) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS && eh == MPI_ERRHANDLER_NULL);
    /* still attached to MPI_COMM_WORLD after being freed */
    CHECK(MPI_Send(&x, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD) == MPI_ERR_RANK);
    CHECK(handler_calls == 1 && handler_code == MPI_ERR_RANK);
    CHECK(handler_comm == MPI_COMM_WORLD);
    CHECK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER) == MPI_SUCCESS);
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER);
    /* a handler set on MPI_COMM_SELF takes the errors not tied to a communicator */
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL) == MPI_ERR_COMM);
    CHECK(handler_calls == 2);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_returned_classes(size);
    /* MPI_Init a second time is an error of class MPI_ERR_OTHER (returned here) */
    CHECK(MPI_Init(&argc, &argv) == MPI_ERR_OTHER);
    check_user_handler(size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Finalize();
    printf("base_errors: ok rank %d\n", rank);
    return 0;
}
