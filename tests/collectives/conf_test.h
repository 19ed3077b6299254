/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the conformance programs conf_*.c: standard MPI only (they also build with Open
 * MPI's and MPICH's mpicc), an error counter, the communicators every case runs on and the
 * final verdict. Each program prints "NAME: ok" at rank 0 when every rank found no error.
 */
#ifndef CONF_TEST_H
#define CONF_TEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Built with -DCONF_PEER for Open MPI 4.1 and MPICH 4.0, to check the programs themselves
 * against other implementations, these cases are left out, each a peer's own failure seen
 * here: MPICH 4.0 writes to the (insignificant) recvbuf of a non-root in MPI_Reduce (NULL there
 * crashes it) and crashes in an in-place MPI_Reduce of 700 ints at a root other than 0; both give
 * wrong MAX / MIN on some unsigned types (signed comparison: Open MPI on UNSIGNED_LONG and the
 * 64-bit ones, MPICH on UNSIGNED_CHAR ...) and Open MPI on MPI_OFFSET; MPICH calls two NULL
 * buffers aliased (Ialltoallv at zero counts); Open MPI answers MPI_ERR_ARG for an in-place Bcast
 * and crashes in Exscan on an intercommunicator. Not left out, failing there: Open MPI's
 * non-blocking in-place Alltoallv / w at 5 ranks (conf_data), MPICH's persistent restarts
 * (conf_nbc), its intercommunicator collectives at 4-5 ranks (conf_inter), its _c forms
 * (conf_nbc) and its MPI_LAND on one of conf_ops' types (an assertion in opland.c). Ibex runs
 * every case. */
#ifdef CONF_PEER
#define CONF_NONROOT_BUF(b) (b)
#define CONF_PEER_SKIP_UNSIGNED_MINMAX(tname, o)                                                   \
    ((strstr(tname, "UNSIGNED") || strstr(tname, "UINT") || strstr(tname, "OFFSET")) &&            \
     ((o) == 2 || (o) == 3))
#define CONF_PEER_INPLACE_ROOT0 1
#else
#define CONF_NONROOT_BUF(b)                      NULL
#define CONF_PEER_SKIP_UNSIGNED_MINMAX(tname, o) 0
#define CONF_PEER_INPLACE_ROOT0                  0
#endif

static int conf_errs;
static int conf_wrank;

static void conf_fail(int line, const char *fmt, ...)
{
    va_list ap;

    if (conf_errs++ >= 20)
        return;
    fprintf(stderr, "rank %d line %d: ", conf_wrank, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            conf_fail(__LINE__, __VA_ARGS__);                                                      \
    } while (0)

static void *conf_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);

    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void conf_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &conf_wrank);
}

/* The communicators of every case (MPICH's MTestGetIntracomm in spirit): the world, a split
 * with the ranks reversed, and the upper "half" (at least one rank, the lower ranks are left out
 * with MPI_UNDEFINED). Returns MPI_COMM_NULL past the last one or where this rank is not in. */
#define CONF_NCOMMS 3
static inline MPI_Comm conf_comm_get(int i, const char **name)
{
    int rank, size;
    MPI_Comm c = MPI_COMM_NULL;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (i == 0) {
        *name = "world";
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
    } else if (i == 1) {
        *name = "reversed";
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &c);
    } else {
        *name = "upper";
        MPI_Comm_split(MPI_COMM_WORLD, rank >= size / 2 ? 1 : MPI_UNDEFINED, rank, &c);
    }
    return c;
}

static int conf_finish(const char *prog)
{
    int all = 0;

    MPI_Allreduce(&conf_errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (conf_wrank == 0) {
        if (all == 0)
            printf("%s: ok\n", prog);
        else
            printf("%s: %d errors\n", prog, all);
        fflush(stdout);
    }
    MPI_Finalize();
    return all != 0;
}

#endif
