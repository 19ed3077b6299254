/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the comm_* / coll_* MPI test programs: a check that names the program, rank and
 * line, and exits non-zero so ibexrun ends the job. */
#ifndef COMM_CHECK_H
#define COMM_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            int r_ = -1;                                                                           \
            MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                                    \
            fprintf(stderr, "%s: rank %d: check failed at line %d: %s\n", __FILE__, r_, __LINE__,  \
                    #cond);                                                                        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_OK(call) CHECK((call) == MPI_SUCCESS)

#endif
