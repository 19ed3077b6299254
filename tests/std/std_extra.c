/* SPDX-License-Identifier: BSD-3-Clause */
/* Edges: large non-commutative collectives, Startall of persistent collectives, in-place scans,
   RMA op corners, communicator creation calls. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CHECK_RANK rank
#include "std_check.h"
static int rank, size;
/* non-commutative, associative: composition of affine maps x -> m x + c (m, c) mod 2^32 */
static void ncop(void *in, void *io, int *n, MPI_Datatype *t)
{
    unsigned *a = in, *b = io;
    (void)t;
    for (int i = 0; i < *n; i++) {
        b[2 * i + 1] = b[2 * i] * a[2 * i + 1] + b[2 * i + 1];
        b[2 * i] *= a[2 * i];
    }
}
static unsigned ref_fold(int lo, int hi, int i)
{
    unsigned v = 0;
    for (int r = lo; r <= hi; r++)
        v = v * 3u + (unsigned)(r * 7 + i);
    return v;
}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op op;
    MPI_Op_create(ncop, 0, &op);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &pair);
    MPI_Type_commit(&pair);
    int N = 1 << 17; /* 1 MiB of pairs */
    unsigned *a = malloc(N * 8), *b = malloc(N * 8);
    for (int i = 0; i < N; i++) {
        a[2 * i] = 3;
        a[2 * i + 1] = rank * 7 + i;
    }
    unsigned pw = 1;
    for (int r = 0; r < size; r++)
        pw *= 3u;
    MPI_Allreduce(a, b, N, pair, op, MPI_COMM_WORLD);
    for (int i = 0; i < N; i += 997)
        if (b[2 * i] != pw || b[2 * i + 1] != ref_fold(0, size - 1, i)) {
            CHECK(0, "big noncomm allreduce at %d got %u %u want %u %u", i, b[2 * i], b[2 * i + 1],
                  pw, ref_fold(0, size - 1, i));
            break;
        }
    memcpy(b, a, N * 8);
    MPI_Scan(MPI_IN_PLACE, b, N, pair, op, MPI_COMM_WORLD);
    for (int i = 0; i < N; i += 991)
        if (b[2 * i + 1] != ref_fold(0, rank, i)) {
            CHECK(0, "big inplace scan at %d got %u want %u", i, b[2 * i + 1],
                  ref_fold(0, rank, i));
            break;
        }
    memcpy(b, a, N * 8);
    MPI_Exscan(MPI_IN_PLACE, b, 4, pair, op, MPI_COMM_WORLD);
    if (rank)
        for (int i = 0; i < 4; i++)
            CHECK(b[2 * i + 1] == ref_fold(0, rank - 1, i), "inplace exscan");
    /* Startall of several persistent collectives */
    MPI_Request r[3];
    int x = rank, s1, s2[64], s3 = 0;
    MPI_Allreduce_init(&x, &s1, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Bcast_init(s2, 64, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]);
    for (int it = 0; it < 3; it++) {
        x = rank + it;
        if (rank == size - 1)
            for (int i = 0; i < 64; i++)
                s2[i] = it * 100 + i;
        MPI_Startall(3, r);
        MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
        CHECK(s1 == size * (size - 1) / 2 + size * it && s2[63] == it * 100 + 63, "startall it %d",
              it);
    }
    for (int i = 0; i < 3; i++)
        MPI_Request_free(&r[i]);
    (void)s3;
    /* Ireduce_scatter with derived type and noncomm op, large */
    int *rc = malloc(size * sizeof(int));
    for (int i = 0; i < size; i++)
        rc[i] = N / size;
    MPI_Request q;
    MPI_Ireduce_scatter(a, b, rc, pair, op, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    for (int i = 0; i < N / size; i += 101)
        CHECK(b[2 * i + 1] == ref_fold(0, size - 1, rank * (N / size) + i),
              "big reduce_scatter i %d got %u want %u first %u", i, b[2 * i + 1],
              ref_fold(0, size - 1, rank * (N / size) + i), b[2 * i]);
    /* communicators */
    MPI_Comm d;
    MPI_Comm_idup(MPI_COMM_WORLD, &d, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Group wg, eg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int rng[1][3] = {{size - 1, 0, -2}};
    MPI_Group_range_incl(wg, 1, rng, &eg);
    int gr;
    MPI_Group_rank(eg, &gr);
    if (gr != MPI_UNDEFINED) {
        MPI_Comm e;
        MPI_Comm_create_group(d, eg, 7, &e);
        int er, es;
        MPI_Comm_rank(e, &er);
        MPI_Comm_size(e, &es);
        CHECK(er == gr && es == (size + 1) / 2, "create_group");
        int v = rank, w = -1;
        MPI_Sendrecv_replace(&v, 1, MPI_INT, (er + 1) % es, 0, (er + es - 1) % es, 0, e,
                             MPI_STATUS_IGNORE);
        MPI_Comm_free(&e);
        (void)w;
    }
    int v = rank;
    MPI_Isendrecv_replace(&v, 1, MPI_INT, (rank + 1) % size, 1, (rank + size - 1) % size, 1, d, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    CHECK(v == (rank + size - 1) % size, "isendrecv_replace");
    int dims[3] = {0, 0, 0};
    MPI_Dims_create(size * 4, 3, dims);
    CHECK(dims[0] * dims[1] * dims[2] == size * 4 && dims[0] >= dims[1] && dims[1] >= dims[2],
          "dims");
    MPI_Group_free(&wg);
    MPI_Group_free(&eg);
    MPI_Comm_free(&d);
    /* RMA corners */
    long *base;
    MPI_Win win;
    MPI_Win_allocate(16 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 16; i++)
        base[i] = 0;
    MPI_Win_fence(0, win);
    long one = 1, old = -1, res[2];
    MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM, win);
    MPI_Win_fence(0, win);
    MPI_Win_lock_all(0, win);
    long mine = rank + 100;
    MPI_Fetch_and_op(&mine, &old, MPI_LONG, 0, 1, MPI_REPLACE, win);
    MPI_Win_flush(0, win);
    MPI_Fetch_and_op(NULL, &old, MPI_LONG, 0, 0, MPI_NO_OP, win);
    MPI_Win_flush(0, win);
    CHECK(old == size, "fao no_op %ld", old);
    MPI_Get_accumulate(NULL, 0, MPI_LONG, res, 2, MPI_LONG, 0, 0, 2, MPI_LONG, MPI_NO_OP, win);
    MPI_Win_flush(0, win);
    CHECK(res[0] == size && res[1] >= 100 && res[1] < 100 + size, "getacc no_op");
    int ml[2] = {rank % 2 ? 50 : rank, rank};
    MPI_Accumulate(ml, 1, MPI_2INT, 0, 4, 1, MPI_2INT, MPI_MAXLOC, win);
    MPI_Accumulate(&one, 1, MPI_LONG, 0, 8, 1, MPI_LONG, MPI_PROD, win);
    int m2[2] = {rank, rank};
    MPI_Accumulate(m2, 1, MPI_2INT, 0, 6, 1, MPI_2INT, MPI_MINLOC, win);
    long bx = 1L << rank;
    MPI_Accumulate(&bx, 1, MPI_LONG, 0, 9, 1, MPI_LONG, MPI_BOR, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        CHECK(base[9] == (1L << size) - 1, "bor %lx", base[9]);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    /* Win_allocate_shared noncontig + pscw with nocheck-free epochs over create */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Info inf;
    MPI_Info_create(&inf);
    MPI_Info_set(inf, "alloc_shared_noncontig", "true");
    int *sb;
    MPI_Win sw;
    MPI_Win_allocate_shared(rank == 0 ? 0 : 100 * sizeof(int), sizeof(int), inf, node, &sb, &sw);
    MPI_Info_free(&inf);
    MPI_Win_fence(0, sw);
    if (rank)
        for (int i = 0; i < 100; i++)
            sb[i] = rank * 1000 + i;
    MPI_Win_fence(0, sw);
    int nsz;
    MPI_Comm_size(node, &nsz);
    for (int t = 1; t < nsz; t++) {
        MPI_Aint q2;
        int du;
        int *p;
        MPI_Win_shared_query(sw, t, &q2, &du, &p);
        CHECK(p[99] == t * 1000 + 99, "noncontig shared");
    }
    MPI_Win_free(&sw);
    MPI_Comm_free(&node);
    MPI_Op_free(&op);
    MPI_Type_free(&pair);
    free(a);
    free(b);
    free(rc);
    int tot;
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return std_report("std_extra", tot, rank);
}
