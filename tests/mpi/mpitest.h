/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers for MPI test programs: written against the MPI standard only (they must pass under any
 * MPI). A failed check prints the rank, file, line and the condition, then aborts the job.
 */
#ifndef MPITEST_H
#define MPITEST_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            int r_ = -1;                                                                           \
            MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                                    \
            fprintf(stderr, "FAIL rank %d %s:%d: %s\n", r_, __FILE__, __LINE__, #cond);            \
            fflush(stderr);                                                                        \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

#define CHECK_RC(call) CHECK((call) == MPI_SUCCESS)

/* A deterministic byte pattern per (seed, index), so corruption and misplacement both show. */
static inline unsigned char mt_pattern(unsigned seed, size_t i)
{
    uint64_t x = (uint64_t)seed * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return (unsigned char)(x ^ (x >> 17));
}

static inline void mt_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        p[i] = mt_pattern(seed, i);
}

/* Index of the first wrong byte, or (size_t)-1 when all are right. */
static inline size_t mt_verify(const void *buf, size_t n, unsigned seed)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != mt_pattern(seed, i))
            return i;
    return (size_t)-1;
}

static inline void mt_done(const char *name)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("%s: ok\n", name);
        fflush(stdout);
    }
}

/* A barrier from point-to-point only, so these tests do not depend on collectives. */
static inline void mt_barrier(MPI_Comm comm)
{
    int rank, size, token = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size == 1)
        return;
    if (rank == 0) {
        for (int i = 1; i < size; i++)
            MPI_Recv(&token, 1, MPI_INT, i, 32000, comm, MPI_STATUS_IGNORE);
        for (int i = 1; i < size; i++)
            MPI_Send(&token, 1, MPI_INT, i, 32001, comm);
    } else {
        MPI_Send(&token, 1, MPI_INT, 0, 32000, comm);
        MPI_Recv(&token, 1, MPI_INT, 0, 32001, comm, MPI_STATUS_IGNORE);
    }
}

/* Index of the MPI_T performance variable called name, or -1 (another MPI: the count guards
 * of Ibex's own variables then check the data only). MPI_T must be initialised. */
static inline int mt_pvar_index(const char *name)
{
    int n = 0;
    MPI_T_pvar_get_num(&n);
    for (int i = 0; i < n; i++) {
        char nm[128], desc[256];
        int nl = sizeof(nm), dl = sizeof(desc), verb, cls, bind, ro, cont, atom;
        MPI_Datatype dt;
        MPI_T_enum e;
        if (MPI_T_pvar_get_info(i, nm, &nl, &verb, &cls, &dt, &e, desc, &dl, &bind, &ro, &cont,
                                &atom) == MPI_SUCCESS &&
            strcmp(nm, name) == 0)
            return i;
    }
    return -1;
}

#endif
