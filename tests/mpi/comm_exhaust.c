/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running out of context ids: MPI_Comm_dup of MPI_COMM_WORLD until it fails, then
 * MPI_Comm_idup until its request fails, under MPI_ERRORS_RETURN. Every rank must fail at the
 * same call (the agreement is collective, so a rank that got a communicator its peers did not
 * would hang or mismatch later), with an error (not a crash, not a hang), and the communicators
 * made before the failure must still work. After all are freed, duplicates work again: the ids
 * come back. Ibex's error class here is MPI_ERR_OTHER (the standard names none); under another
 * MPI only "an error" is checked, and the loops stop at EXHAUST_CAP calls if nothing runs out.
 */
#include <stdbool.h>

#include "mpitest.h"

#define EXHAUST_CAP 20000

static MPI_Comm made[EXHAUST_CAP];
static int rank;

/* Every rank made the same number n: the minimum and maximum over the world agree. */
static void check_same(int n)
{
    int lo = -1, hi = -1;
    CHECK_RC(MPI_Allreduce(&n, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    CHECK_RC(MPI_Allreduce(&n, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    if (lo != hi)
        fprintf(stderr, "comm_exhaust: rank %d made %d, others between %d and %d\n", rank, n, lo,
                hi);
    CHECK(lo == hi);
}

static void check_failed(int rc)
{
    int cls = -1;
    CHECK(rc != MPI_SUCCESS);
    CHECK_RC(MPI_Error_class(rc, &cls));
#ifdef IBEX_VERSION_STRING
    CHECK(cls == MPI_ERR_OTHER);
#endif
}

/* c still carries traffic: a sum over it and a ring shift. */
static void check_works(MPI_Comm c, int mark)
{
    int size, sum = -1, v = rank + mark, got = -1;
    CHECK_RC(MPI_Comm_size(c, &size));
    CHECK_RC(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size * (size - 1) / 2 + size * mark);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    CHECK_RC(MPI_Sendrecv(&v, 1, MPI_INT, to, 7, &got, 1, MPI_INT, from, 7, c, MPI_STATUS_IGNORE));
    CHECK(got == from + mark);
}

static int dup_all(int start)
{
    int n = start, rc = MPI_SUCCESS;
    while (n < EXHAUST_CAP && (rc = MPI_Comm_dup(MPI_COMM_WORLD, &made[n])) == MPI_SUCCESS)
        n++;
    if (n < EXHAUST_CAP)
        check_failed(rc);
    return n;
}

static int idup_all(int start)
{
    int n = start, rc = MPI_SUCCESS;
    while (n < EXHAUST_CAP) {
        MPI_Request r = MPI_REQUEST_NULL;
        rc = MPI_Comm_idup(MPI_COMM_WORLD, &made[n], &r);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            break;
        CHECK(made[n] != MPI_COMM_NULL);
        n++;
    }
    if (n < EXHAUST_CAP)
        check_failed(rc);
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int ndup = dup_all(0);
    check_same(ndup);
    CHECK(ndup > 100);
    check_works(made[0], 1);
    check_works(made[ndup - 1], 2);
    int n = idup_all(ndup);
    check_same(n);
    if (n > ndup)
        check_works(made[n - 1], 3);
    for (int i = 0; i < n; i++)
        CHECK_RC(MPI_Comm_free(&made[i]));
    /* the ids are back: as many blocking duplicates as the first time */
    int again = dup_all(0);
    check_same(again);
    CHECK(again == ndup);
    check_works(made[again - 1], 4);
    for (int i = 0; i < again; i++)
        CHECK_RC(MPI_Comm_free(&made[i]));
    MPI_Barrier(MPI_COMM_WORLD);
    mt_done("comm_exhaust");
    MPI_Finalize();
    return 0;
}
