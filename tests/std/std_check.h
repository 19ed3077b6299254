/* SPDX-License-Identifier: BSD-3-Clause */
/* What every tests/std program shares, and nothing of Ibex: the error count, CHECK (a failed
 * condition, printed with the rank named by CHECK_RANK, which the program defines), and the
 * closing line. */
#ifndef STD_CHECK_H
#define STD_CHECK_H
#include <mpi.h>
#include <stdio.h>

static int errs = 0;

#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            errs++;                                                                                \
            if (errs < 15) {                                                                       \
                printf("[%d] line %d: ", CHECK_RANK, __LINE__);                                    \
                printf(__VA_ARGS__);                                                               \
                printf("\n");                                                                      \
                fflush(stdout);                                                                    \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* Rank 0 prints "NAME: ok" or "NAME: N errors" for the job's `tot` errors; the exit status. */
static int std_report(const char *name, int tot, int rank)
{
    if (rank == 0) {
        if (tot)
            printf("%s: %d errors\n", name, tot);
        else
            printf("%s: ok\n", name);
    }
    return tot != 0;
}
#endif
