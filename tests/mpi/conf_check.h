/* SPDX-License-Identifier: BSD-3-Clause */
/* The check of the conformance programs (conf_*.c): standard MPI and C only, so they also build
 * with Open MPI's and MPICH's compilers. A failed check counts in the program's `errs` and names
 * its rank (`wrank`) and line; the program says "ok" only when errs stays 0. */
#ifndef CONF_CHECK_H
#define CONF_CHECK_H

#include <stdio.h>

#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            errs++;                                                                                \
            fprintf(stderr, "[%d] line %d: ", wrank, __LINE__);                                    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

#endif
