/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the collective test programs (coll_v.c, coll_red.c): the communicator under test
 * (MPI_COMM_WORLD, then a Comm_split of it with reversed ranks), values no two (rank, index)
 * pairs share, and the rounds that force every algorithm of a list of kinds in turn. */
#ifndef COLL_TEST_H
#define COLL_TEST_H

#include <string.h>

#include "coll.h"
#include "comm_check.h"

static MPI_Comm comm; /* the communicator under test, and this rank's place in it */
static int rank, size;

static inline int val(int r, int i)
{
    return r * 1000003 + i * 7 + 1;
}

static inline void coll_use(MPI_Comm c)
{
    comm = c;
    CHECK_OK(MPI_Comm_rank(c, &rank));
    CHECK_OK(MPI_Comm_size(c, &size));
}

/* World ranks in reverse order; from 4 ranks on, two halves (even and odd world ranks). */
static inline MPI_Comm coll_reordered(void)
{
    int wrank, wsize;
    MPI_Comm c;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, wsize >= 4 ? wrank % 2 : 0, wsize - wrank, &c));
    CHECK_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    return c;
}

/* How many rounds it takes to run every algorithm of kinds[0..n-1] once. */
static inline int coll_rounds(const ibex_coll_kind_t *kinds, int n)
{
    int rounds = 1;
    for (int k = 0; k < n; k++)
        rounds = ibex_coll_algo_count(kinds[k]) > rounds ? ibex_coll_algo_count(kinds[k]) : rounds;
    return rounds;
}

/* Round v forces the v-th algorithm of each kind (as IBEX_COLL_<KIND> would); prints the
 * choice on rank 0 of the world so a failure can be told apart. */
static inline void coll_force_round(const ibex_coll_kind_t *kinds, int n, int v, const char *prog)
{
    int wrank;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    for (int k = 0; k < n; k++) {
        const ibex_coll_algo_t *a = ibex_coll_algo_at(kinds[k], v % ibex_coll_algo_count(kinds[k]));
        CHECK(a && ibex_coll_force(kinds[k], a->name) == IBEX_OK);
        if (wrank == 0 && getenv("COLL_VERBOSE"))
            printf("%s: round %d: %s %s\n", prog, v, ibex_coll_kind_name(kinds[k]), a->name);
    }
}

/* every element of buf[0..n) set to v */
static inline void fill(int *buf, size_t n, int v)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = v;
}

#endif
