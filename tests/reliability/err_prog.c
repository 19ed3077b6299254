/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Failures for the clear-errors table (tests/reliability/errors.sh), standard MPI only:
 *   coll N      1000 MPI_Allreduce of N doubles, each checked against its formula
 *   bigsend N   rank 0 sends N bytes to rank 1, which checks them
 *   kill        rank 1 kills itself with SIGKILL after a barrier
 *   sleep S     a barrier, then every rank sleeps S s
 *   nomem       MPI_Alloc_mem of 2^62 bytes: MPI_ERR_NO_MEM under MPI_ERRORS_RETURN, then
 *               again under the default MPI_ERRORS_ARE_FATAL
 *   abortsend N B  every rank but 0 MPI_Send N messages of B bytes to rank 0, which receives
 *               two from each and calls MPI_Abort(MPI_COMM_WORLD, 3) while they still send
 * Rank 0 prints "err_prog: ok" after MPI_Finalize.
 */
#include <mpi.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void fail(const char *what)
{
    fprintf(stderr, "err_prog: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static void do_coll(int rank, int size, int n)
{
    double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
    for (int it = 0; it < 1000; it++) {
        for (int i = 0; i < n; i++)
            x[i] = rank + i + it;
        MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) /* sum over ranks of (r + i + it) */
            if (y[i] != (double)size * (i + it) + (double)size * (size - 1) / 2)
                fail("wrong allreduce result");
    }
    free(x);
    free(y);
}

static void do_bigsend(int rank, int n)
{
    unsigned char *b = malloc((size_t)n);
    if (rank == 0) {
        for (int i = 0; i < n; i++)
            b[i] = (unsigned char)(i * 7);
        MPI_Send(b, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(b, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++)
            if (b[i] != (unsigned char)(i * 7))
                fail("wrong data");
    }
    free(b);
}

static void do_nomem(void)
{
    void *p = NULL;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Alloc_mem((MPI_Aint)1 << 62, MPI_INFO_NULL, &p), cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_NO_MEM)
        fail("MPI_Alloc_mem(2^62) is not MPI_ERR_NO_MEM");
    printf("err_prog: MPI_ERR_NO_MEM returned\n");
    fflush(stdout);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Alloc_mem((MPI_Aint)1 << 62, MPI_INFO_NULL, &p);
    fail("MPI_Alloc_mem(2^62) returned under MPI_ERRORS_ARE_FATAL");
}

/* Duplicates MPI_COMM_WORLD until the context ids run out, under MPI_ERRORS_ARE_FATAL (or
 * idups with idup set): the job must end with the reason, not hang or crash. */
static void do_ctxfull(bool idup)
{
    for (int i = 0; i < 100000; i++) {
        MPI_Comm c;
        MPI_Request r;
        if (!idup) {
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
            continue;
        }
        MPI_Comm_idup(MPI_COMM_WORLD, &c, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    fail("100000 duplicates of MPI_COMM_WORLD, none failed");
}

static void do_abortsend(int rank, int size, int n, int bytes)
{
    char *b = calloc((size_t)bytes + 1, 1);
    if (rank == 0) {
        for (int i = 0; i < 2 * (size - 1); i++)
            MPI_Recv(b, bytes, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (int i = 0; i < n; i++)
        MPI_Send(b, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    free(b);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    int n = argc > 2 ? atoi(argv[2]) : 1;
    if (strcmp(mode, "coll") == 0)
        do_coll(rank, size, n);
    else if (strcmp(mode, "bigsend") == 0)
        do_bigsend(rank, n);
    else if (strcmp(mode, "abortsend") == 0)
        do_abortsend(rank, size, n, argc > 3 ? atoi(argv[3]) : 8);
    else if (strcmp(mode, "nomem") == 0)
        do_nomem();
    else if (strcmp(mode, "ctxfull") == 0 || strcmp(mode, "ctxfull_idup") == 0)
        do_ctxfull(mode[7] == '_');
    else if (strcmp(mode, "kill") == 0 || strcmp(mode, "sleep") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (mode[0] == 'k' && rank == 1)
            raise(SIGKILL);
        sleep((unsigned)(mode[0] == 's' ? n : 30));
    } else
        fail("usage: err_prog coll N|bigsend N|kill|sleep S|nomem|ctxfull|ctxfull_idup|abortsend N "
             "B");
    MPI_Finalize();
    if (rank == 0)
        printf("err_prog: ok\n");
    return 0;
}
