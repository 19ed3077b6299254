/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared accumulator of the shared-memory Reduce and Allreduce
 * (collectives/base/coll_shm_acc.c): a commutative op past the inline limit and within the
 * staging slots, on 3 to 16 ranks. Checks, against references computed here:
 *   - sizes just past the inline limit, odd ones over several chunks, exactly the staging slot
 *     (1 MiB) and past it (in pieces of a slot, a generation each), every root, in place at the
 * root and in the Allreduce, predefined ops on int / double / unsigned long, MINLOC on MPI_2INT and
 * a commutative user op;
 *   - which path ran (ibex_engine_stats.coll_acc, the ibex_reduce_acc counter): once per call
 *     where it applies (3 ranks or more, shared accumulator on), never for a non-commutative
 *     user op (rank order kept), or with IBEX_COLL_SHM_ACC=0;
 *   - generations back to back without barriers: Reduce (moving root), Allreduce and a 1 MiB
 *     Bcast (the staged one on an oversubscribed node) alternating, every input poisoned as
 *     soon as its call returns, one rank late by turns;
 *   - Reduce_scatter with uneven and empty blocks, some across pieces (not in place and in
 *     place), and
 *     Reduce_scatter_block: each rank copies only its block out;
 *   - a sub-communicator from Comm_split with reversed ranks (the accumulator is its rank 0's).
 * Any rank count >= 1; prints "coll_acc: ok" on rank 0.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll.h"
#include "comm_check.h"
#include "ibex_engine_stats.h"

#define STAGE_INTS (1048576 / 4) /* the default staging slot, IBEX_COLL_SHM_STAGE */
/* around the Allreduce's start (IBEX_COLL_SHM_ACC_MIN, 1 KiB = 256 ints) and the Reduce's (the
 * inline limit, 64 KiB = 16384 ints), odd over several chunks, one staging slot, two and a bit
 * (3 pieces) */
static const int counts[] = {256, 257, 2049, 16384, 16385, 100003, STAGE_INTS, 2 * STAGE_INTS + 5};
#define MAXCOUNT (2 * STAGE_INTS + 5)
#define NCOUNTS  ((int)(sizeof(counts) / sizeof(counts[0])))

static int wrank;
static bool acc_on;

static int val(int r, int i, int salt)
{
    return (r + 1) * 7919 + i * 3 + salt;
}

/* How many accumulator runs a call on count ints should count on comm: one where it applies
 * (a Reduce: `rooted`). */
static unsigned long long expect(MPI_Comm comm, bool commutative, int count, bool rooted)
{
    int p;
    MPI_Comm_size(comm, &p);
    return acc_on && commutative && p >= 3 && p <= 16 && count > (rooted ? 16384 : 256);
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

/* a op b = a (associative, not commutative): the result is rank 0's input, in rank order */
static void user_ordered(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    memcpy(inout, in, (size_t)*len * sizeof(int));
}

static void check_int_ops(MPI_Comm comm, int *a, int *b, MPI_Op usum, MPI_Op uord)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    for (int c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        unsigned long long before;
        for (int root = 0; root < p; root += (p > 3 ? p - 1 : 1)) {
            for (int i = 0; i < n; i++)
                a[i] = val(rank, i, c + root);
            before = ibex_engine_stats.coll_acc;
            CHECK_OK(MPI_Reduce(a, b, n, MPI_INT, MPI_SUM, root, comm));
            CHECK(ibex_engine_stats.coll_acc - before == expect(comm, true, n, true));
            for (int i = 0; rank == root && i < n; i++) {
                int want = 0;
                for (int r = 0; r < p; r++)
                    want += val(r, i, c + root);
                CHECK(b[i] == want);
            }
            /* in place at the root, the user's commutative op */
            for (int i = 0; i < n; i++)
                (rank == root ? b : a)[i] = val(rank, i, c);
            CHECK_OK(MPI_Reduce(rank == root ? MPI_IN_PLACE : a, b, n, MPI_INT, usum, root, comm));
            for (int i = 0; rank == root && i < n; i++) {
                int want = 0;
                for (int r = 0; r < p; r++)
                    want += val(r, i, c);
                CHECK(b[i] == want);
            }
        }
        /* Allreduce in place, MPI_MAX; then the non-commutative op: rank order, no accumulator */
        for (int i = 0; i < n; i++)
            a[i] = val(rank, i, c) * (rank % 2 ? -1 : 1);
        before = ibex_engine_stats.coll_acc;
        CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_INT, MPI_MAX, comm));
        CHECK(ibex_engine_stats.coll_acc - before == expect(comm, true, n, false));
        for (int i = 0; i < n; i++)
            CHECK(a[i] == val(p > 1 ? (p - 1) / 2 * 2 : 0, i, c));
        for (int i = 0; i < n; i++)
            a[i] = (rank + 1) * (i % 7 + 1);
        before = ibex_engine_stats.coll_acc;
        CHECK_OK(MPI_Allreduce(a, b, n, MPI_INT, uord, comm));
        CHECK(ibex_engine_stats.coll_acc == before);
        for (int i = 0; i < n; i++)
            CHECK(b[i] == i % 7 + 1);
    }
}

static void check_other_types(MPI_Comm comm)
{
    int rank, p, n = 100003;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    double *d = malloc(n * sizeof(double)), *e = malloc(n * sizeof(double));
    unsigned long *u = malloc(n * sizeof(long)), *v = malloc(n * sizeof(long));
    int *pa = malloc(2 * n * sizeof(int)), *pb = malloc(2 * n * sizeof(int));
    CHECK(d && e && u && v && pa && pb);
    for (int i = 0; i < n; i++) {
        d[i] = (double)val(rank, i, 1) / 8.0;
        u[i] = (unsigned long)val(rank, i, 2) << (rank % 5);
        pa[2 * i] = (i + rank * 13) % p; /* every value once per position: ties broken by rank */
        pa[2 * i + 1] = rank;
    }
    unsigned long long before = ibex_engine_stats.coll_acc;
    CHECK_OK(MPI_Allreduce(d, e, n, MPI_DOUBLE, MPI_MIN, comm));
    CHECK_OK(MPI_Allreduce(u, v, n, MPI_UNSIGNED_LONG, MPI_BXOR, comm));
    CHECK_OK(MPI_Reduce(pa, pb, n, MPI_2INT, MPI_MINLOC, p - 1, comm));
    CHECK(ibex_engine_stats.coll_acc - before ==
          2 * expect(comm, true, n, false) + expect(comm, true, n, true));
    for (int i = 0; i < n; i++) {
        unsigned long want = 0;
        for (int r = 0; r < p; r++)
            want ^= (unsigned long)val(r, i, 2) << (r % 5);
        CHECK(e[i] == (double)val(0, i, 1) / 8.0);
        CHECK(v[i] == want);
        if (rank == p - 1) {
            int lo = 0;
            for (int r = 0; r < p; r++)
                if ((i + r * 13) % p < (i + lo * 13) % p)
                    lo = r;
            CHECK(pb[2 * i] == (i + lo * 13) % p && pb[2 * i + 1] == lo);
        }
    }
    /* one element past the staging slot: two pieces, one call */
    int m = STAGE_INTS + 1, *a = malloc(m * sizeof(int)), *b = malloc(m * sizeof(int));
    CHECK(a && b);
    for (int i = 0; i < m; i++)
        a[i] = val(rank, i, 3);
    before = ibex_engine_stats.coll_acc;
    CHECK_OK(MPI_Allreduce(a, b, m, MPI_INT, MPI_SUM, comm));
    CHECK(ibex_engine_stats.coll_acc - before == expect(comm, true, m, false));
    for (int i = 0; i < m; i++) {
        int want = 0;
        for (int r = 0; r < p; r++)
            want += val(r, i, 3);
        CHECK(b[i] == want);
    }
    free(a), free(b), free(d), free(e), free(u), free(v), free(pa), free(pb);
}

/* Reduce_scatter: block r has (r % 3 == 1 ? 0 : base + r) ints (uneven, some empty; with a large
 * base the blocks straddle the pieces), then in place; Reduce_scatter_block of 20000 ints each. */
static void check_reduce_scatter(MPI_Comm comm, int base)
{
    int rank, p, total = 0, lo = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int *rc = malloc(p * sizeof(int));
    CHECK(rc);
    for (int r = 0; r < p; r++) {
        rc[r] = r % 3 == 1 ? 0 : base + r;
        lo += r < rank ? rc[r] : 0;
        total += rc[r];
    }
    int blk = 20000, n = total > blk * p ? total : blk * p;
    int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int));
    CHECK(a && b);
    for (int inplace = 0; inplace < 2; inplace++) {
        for (int i = 0; i < total; i++)
            a[i] = val(rank, i, inplace);
        unsigned long long before = ibex_engine_stats.coll_acc;
        CHECK_OK(MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : a, inplace ? a : b, rc, MPI_INT,
                                    MPI_SUM, comm));
        CHECK(ibex_engine_stats.coll_acc - before == expect(comm, true, total, false));
        const int *got = inplace ? a : b;
        for (int i = 0; i < rc[rank]; i++) {
            int want = 0;
            for (int r = 0; r < p; r++)
                want += val(r, lo + i, inplace);
            CHECK(got[i] == want);
        }
    }
    for (int i = 0; i < blk * p; i++)
        a[i] = val(rank, i, 7);
    unsigned long long before = ibex_engine_stats.coll_acc;
    CHECK_OK(MPI_Reduce_scatter_block(a, b, blk, MPI_INT, MPI_SUM, comm));
    CHECK(ibex_engine_stats.coll_acc - before == expect(comm, true, blk * p, false));
    for (int i = 0; i < blk; i++) {
        int want = 0;
        for (int r = 0; r < p; r++)
            want += val(r, rank * blk + i, 7);
        CHECK(b[i] == want);
    }
    free(a), free(b), free(rc);
}

/* Reduce, Allreduce and Bcast of the staging slot's size back to back, no barrier between:
 * every generation's accumulator and chunk words are reused two calls later. */
static void check_back_to_back(MPI_Comm comm)
{
    int rank, p, n = STAGE_INTS * 3 / 2 + 1; /* two pieces */
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int *in = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
    CHECK(in && out);
    for (int it = 0; it < 9; it++) {
        int root = (it * 5) % p, kind = it % 3;
        for (int i = 0; i < n; i++)
            in[i] = kind == 2 && rank != root ? -1 : val(rank, i, it);
        if (rank == (it + 1) % p)
            usleep(2000);
        if (kind == 0)
            CHECK_OK(MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, root, comm));
        else if (kind == 1)
            CHECK_OK(MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, comm));
        else
            CHECK_OK(MPI_Bcast(in, n, MPI_INT, root, comm));
        int *got = kind == 2 ? in : out;
        for (int i = 0; i < n && (kind != 0 || rank == root); i++) {
            int want = 0;
            for (int r = 0; r < p; r++)
                want += kind == 2 ? (r == root ? val(r, i, it) : 0) : val(r, i, it);
            CHECK(got[i] == want);
        }
        for (int i = 0; i < n; i++)
            in[i] = -1000000; /* poison: a late fold of this input would show */
    }
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const char *env = getenv("IBEX_COLL_SHM_ACC");
    acc_on = !env || strcmp(env, "0") != 0;
    MPI_Op usum, uord;
    CHECK_OK(MPI_Op_create(user_sum, 1, &usum));
    CHECK_OK(MPI_Op_create(user_ordered, 0, &uord));
    int *a = malloc(MAXCOUNT * sizeof(int)), *b = malloc(MAXCOUNT * sizeof(int));
    CHECK(a && b);
    MPI_Comm rev;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &rev));
    MPI_Comm comms[2] = {MPI_COMM_WORLD, rev};
    for (int k = 0; k < 2; k++) {
        check_int_ops(comms[k], a, b, usum, uord);
        check_other_types(comms[k]);
        check_reduce_scatter(comms[k], 30001);
        check_reduce_scatter(comms[k], 200001);
        check_back_to_back(comms[k]);
    }
    CHECK_OK(MPI_Comm_free(&rev));
    CHECK_OK(MPI_Op_free(&usum));
    CHECK_OK(MPI_Op_free(&uord));
    free(a);
    free(b);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (wrank == 0)
        printf("coll_acc: ok\n");
    MPI_Finalize();
    return 0;
}
