/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the MPI-IO tests: CHECK aborts the job naming the rank and line; path() is a file
 * name in the private directory the runner gives as argv[1]. */
#ifndef IO_CHECK_H
#define IO_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            int r_;                                                                                \
            MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                                    \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", r_, __FILE__, __LINE__, #cond);  \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

#define OK(call) CHECK((call) == MPI_SUCCESS)

static char io_dir[4096];
static char io_path_buf[4200];

static inline const char *io_path(const char *name)
{
    snprintf(io_path_buf, sizeof(io_path_buf), "%s/%s", io_dir, name);
    return io_path_buf;
}

static inline void io_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    CHECK(*argc > 1);
    snprintf(io_dir, sizeof(io_dir), "%s", (*argv)[1]);
}

static inline int io_class(int rc)
{
    int cls = rc;
    MPI_Error_class(rc, &cls);
    return cls;
}

#endif
