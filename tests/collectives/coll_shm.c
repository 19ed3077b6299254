/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared-memory collectives (collectives/<kind>_shm.c) where coll_all.c does not reach:
 * sizes on both sides of the inline limit and past several single-copy chunks, every root, in
 * place, Gather / Allgather (also into a strided type), a non-commutative op on large vectors,
 * bcast with a different (non-contiguous) type at the root, Reduce_scatter(_block) with uneven
 * and empty blocks, sub-communicators from Comm_split with
 * reversed ranks, thousands of collectives back to back (flag and slot reuse), large Reduces back
 * to back on a send buffer poisoned as each returns, one rank late, communicators freed
 * and made again, and no segment name left in /dev/shm once a communicator has run one. Results
 * against references computed here. Runs the "shmem" algorithms forced, then the table's choice
 * ("auto"), then the root-only Reduce ("shmem_root"), then which algorithm the table chose
 * as the communicator and size change between calls. Any rank count >= 1. Prints "coll_shm: ok" on
 * rank 0.
 */
#include <dirent.h>
#include <string.h>
#include <unistd.h>

#include "coll.h"
#include "coll_shm.h"
#include "comm_check.h"
#include "ibex_engine_stats.h"

static int wrank, wsize;
/* Around the tiny limit (24 bytes), the default inline limit (64 KiB = 16384 ints) and past
 * several 64 KiB chunks. */
/* 2049 ints (8196 B): just past the pair limit (IBEX_COLL_SHM_PAIR_INLINE, 8 KiB: single copy
 * from there at 2 ranks with a core each); 6000 (24000 B): inline written in chunks at more
 * ranks; 16383 / 16384: the inline limit */
static const int counts[] = {0, 1, 6, 7, 2049, 6000, 8193, 16383, 16384, 16385, 300007};
#define NCOUNTS  ((int)(sizeof(counts) / sizeof(counts[0])))
#define MAXCOUNT 300007

static int val(int r, int i, int salt)
{
    return (r + 1) * 7919 + i * 3 + salt;
}

static void check_allreduce(MPI_Comm comm, int *a, int *b)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        for (int i = 0; i < n; i++)
            a[i] = val(rank, i, c);
        CHECK_OK(MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, comm));
        for (int i = 0; i < n; i++) {
            int want = 0;
            for (int r = 0; r < size; r++)
                want += val(r, i, c);
            CHECK(b[i] == want);
            a[i] = val(rank, i, c);
        }
        CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_INT, MPI_MAX, comm));
        for (int i = 0; i < n; i++)
            CHECK(a[i] == val(size - 1, i, c));
    }
}

static void check_reduce(MPI_Comm comm, int *a, int *b)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int c = 0; c < NCOUNTS; c++)
        for (int root = 0; root < size; root++) {
            int n = counts[c];
            for (int i = 0; i < n; i++)
                a[i] = b[i] = val(rank, i, root);
            bool inplace = rank == root && (c & 1);
            CHECK_OK(MPI_Reduce(inplace ? MPI_IN_PLACE : a, b, n, MPI_INT, MPI_SUM, root, comm));
            for (int i = 0; rank == root && i < n; i++) {
                int want = 0;
                for (int r = 0; r < size; r++)
                    want += val(r, i, root);
                CHECK(b[i] == want);
            }
        }
}

static void check_bcast(MPI_Comm comm, int *a)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int c = 0; c < NCOUNTS; c++)
        for (int root = 0; root < size; root++) {
            int n = counts[c];
            for (int i = 0; i < n; i++)
                a[i] = rank == root ? val(root, i, c) : -1;
            CHECK_OK(MPI_Bcast(a, n, MPI_INT, root, comm));
            for (int i = 0; i < n; i++)
                CHECK(a[i] == val(root, i, c));
        }
}

/* The root sends every other int of a buffer twice as long (a vector type), the others receive
 * dense ints: same type signature, different types. */
static void check_bcast_types(MPI_Comm comm, int *a)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int sizes[] = {5, 3000, 30000};
    for (int s = 0; s < 3; s++)
        for (int root = 0; root < size; root++) {
            int n = sizes[s];
            MPI_Datatype vec;
            CHECK_OK(MPI_Type_vector(n, 1, 2, MPI_INT, &vec));
            CHECK_OK(MPI_Type_commit(&vec));
            for (int i = 0; i < 2 * n; i++)
                a[i] = rank == root ? (i % 2 ? -7 : val(root, i / 2, s)) : -1;
            if (rank == root)
                CHECK_OK(MPI_Bcast(a, 1, vec, root, comm));
            else
                CHECK_OK(MPI_Bcast(a, n, MPI_INT, root, comm));
            for (int i = 0; i < n; i++)
                CHECK(a[rank == root ? 2 * i : i] == val(root, i, s));
            CHECK_OK(MPI_Type_free(&vec));
        }
}

/* Gather and Allgather of blocks on both sides of the inline limit, every root, in place, and a
 * strided receive type at the root (each block lands with a gap of one int). */
static void check_gathers(MPI_Comm comm, int *a, int *b)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int sizes[] = {0, 1, 2049, 16384, 16385, 40000};
    for (int s = 0; s < 6; s++) {
        int n = sizes[s];
        for (int i = 0; i < n; i++)
            a[i] = val(rank, i, s);
        for (int root = 0; root < size; root++) {
            memset(b, 0xff, sizeof(int) * (size_t)n * (size_t)size);
            bool inplace = rank == root && (root & 1);
            if (inplace)
                memcpy(b + (size_t)n * (size_t)rank, a, sizeof(int) * (size_t)n);
            CHECK_OK(MPI_Gather(inplace ? MPI_IN_PLACE : a, n, MPI_INT, b, n, MPI_INT, root, comm));
            for (int r = 0; rank == root && r < size; r++)
                for (int i = 0; i < n; i++)
                    CHECK(b[(size_t)r * (size_t)n + (size_t)i] == val(r, i, s));
        }
        memset(b, 0xff, sizeof(int) * (size_t)n * (size_t)size);
        CHECK_OK(MPI_Allgather(a, n, MPI_INT, b, n, MPI_INT, comm));
        for (int r = 0; r < size; r++)
            for (int i = 0; i < n; i++)
                CHECK(b[(size_t)r * (size_t)n + (size_t)i] == val(r, i, s));
        memset(b, 0xff, sizeof(int) * (size_t)n * (size_t)size);
        memcpy(b + (size_t)n * (size_t)rank, a, sizeof(int) * (size_t)n);
        CHECK_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, n, MPI_INT, comm));
        for (int r = 0; r < size; r++)
            for (int i = 0; i < n; i++)
                CHECK(b[(size_t)r * (size_t)n + (size_t)i] == val(r, i, s));
        if (n == 0 || n > 16385)
            continue;
        MPI_Datatype gap, block;
        CHECK_OK(MPI_Type_vector(n, 1, 2, MPI_INT, &gap));
        CHECK_OK(MPI_Type_create_resized(gap, 0, (MPI_Aint)(2 * n * sizeof(int)), &block));
        CHECK_OK(MPI_Type_commit(&block));
        memset(b, 0xff, sizeof(int) * 2 * (size_t)n * (size_t)size);
        CHECK_OK(MPI_Allgather(a, n, MPI_INT, b, 1, block, comm));
        for (int r = 0; r < size; r++)
            for (int i = 0; i < n; i++)
                CHECK(b[2 * ((size_t)r * (size_t)n + (size_t)i)] == val(r, i, s));
        CHECK_OK(MPI_Type_free(&block));
        CHECK_OK(MPI_Type_free(&gap));
    }
}

/* 2x2 matrix product over unsigned ints: associative, not commutative. */
static void matmul(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *x = invec, *y = inoutvec;
    for (int k = 0; k < *len; k++, x += 4, y += 4) {
        unsigned r[4] = {x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3],
                         x[2] * y[0] + x[3] * y[2], x[2] * y[1] + x[3] * y[3]};
        memcpy(y, r, sizeof(r));
    }
}

static void mat_of(int r, int k, unsigned m[4])
{
    m[0] = (unsigned)(r + 2);
    m[1] = (unsigned)(k % 5 + 1);
    m[2] = (unsigned)(r * 3 + 1);
    m[3] = (unsigned)(k % 3 + r);
}

/* A contiguous type of `words` unsigned and a non-commutative user op on it. */
static void type_op(int words, MPI_User_function *fn, MPI_Datatype *t, MPI_Op *op)
{
    CHECK_OK(MPI_Type_contiguous(words, MPI_UNSIGNED, t));
    CHECK_OK(MPI_Type_commit(t));
    CHECK_OK(MPI_Op_create(fn, 0, op));
}

static void check_noncommutative(MPI_Comm comm, unsigned *a, unsigned *b)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Datatype mat;
    MPI_Op op;
    type_op(4, matmul, &mat, &op);
    /* tiny, inline, inline written in chunks (from 16 KiB, while every rank has a core),
     * the same or single copy (past 32 KiB at 2 ranks), single copy, chunks per slice */
    int sizes[] = {1, 700, 1500, 3000, 5000, 30001};
    for (int s = 0; s < 6; s++) {
        int n = sizes[s];
        for (int k = 0; k < n; k++)
            mat_of(rank, k, &a[4 * k]);
        CHECK_OK(MPI_Allreduce(a, b, n, mat, op, comm));
        int root = s % size;
        CHECK_OK(MPI_Reduce(a, b + 4 * n, 0, mat, op, root, comm));
        CHECK_OK(MPI_Reduce(rank == root ? MPI_IN_PLACE : a, a, n, mat, op, root, comm));
        for (int k = 0; k < n; k++) {
            unsigned want[4];
            mat_of(size - 1, k, want);
            for (int r = size - 2; r >= 0; r--) {
                unsigned m[4];
                int one = 1;
                mat_of(r, k, m);
                matmul(m, want, &one, NULL);
            }
            CHECK(memcmp(&b[4 * k], want, sizeof(want)) == 0);
            CHECK(rank != root || memcmp(&a[4 * k], want, sizeof(want)) == 0);
        }
    }
    CHECK_OK(MPI_Op_free(&op));
    CHECK_OK(MPI_Type_free(&mat));
}

/* Affine maps x -> m x + c on unsigned (composition, non-commutative) with a third word summed:
 * a 12-byte element, so the chunks a Reduce root folds (whole elements) end where the 8 KiB
 * chunks its contributors publish do not. */
static void affine(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *x = invec, *y = inoutvec;
    for (int k = 0; k < *len; k++, x += 3, y += 3) {
        unsigned m = x[0] * y[0], c = x[0] * y[1] + x[1];
        y[0] = m, y[1] = c, y[2] += x[2];
    }
}

static void affine_of(int r, int k, unsigned e[3])
{
    e[0] = (unsigned)(2 * r + 3), e[1] = (unsigned)(k % 7 + r), e[2] = (unsigned)(k + r);
}

static void check_reduce_affine(MPI_Comm comm, unsigned *a, unsigned *b)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Datatype t;
    MPI_Op op;
    type_op(3, affine, &t, &op);
    /* 24000 and 60000 bytes: inline, in chunks where every rank has a core; the second single
     * copy at 2 ranks */
    for (int c = 0; c < 2; c++)
        for (int root = 0, n = c ? 5000 : 2000; root < size; root++) {
            for (int k = 0; k < n; k++)
                affine_of(rank, k, &a[3 * k]);
            bool inplace = rank == root && (root & 1);
            CHECK_OK(MPI_Reduce(inplace ? MPI_IN_PLACE : a, inplace ? a : b, n, t, op, root, comm));
            const unsigned *got = inplace ? a : b;
            for (int k = 0; rank == root && k < n; k++) {
                unsigned want[3];
                affine_of(size - 1, k, want);
                for (int r = size - 2; r >= 0; r--) {
                    unsigned e[3];
                    int one = 1;
                    affine_of(r, k, e);
                    affine(e, want, &one, NULL);
                }
                CHECK(memcmp(&got[3 * k], want, sizeof(want)) == 0);
            }
        }
    CHECK_OK(MPI_Op_free(&op));
    CHECK_OK(MPI_Type_free(&t));
}

/* Reduce_scatter(_block) on both sides of the inline limit (the whole vector's bytes decide),
 * blocks of different sizes with zeros, in place and not, and the non-commutative op. */
static void rs_counts(int size, int base, int *counts, int *total_p)
{
    *total_p = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = r % 3 == 1 ? 0 : base + r * 3;
        *total_p += counts[r];
    }
}

static void check_rs_sum(MPI_Comm comm, int *a, int *b, int base, bool inplace)
{
    int rank, size, total, counts[64], lo = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    rs_counts(size, base, counts, &total);
    for (int r = 0; r < rank; r++)
        lo += counts[r];
    for (int i = 0; i < total; i++)
        a[i] = val(rank, i, base);
    CHECK_OK(MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : a, inplace ? a : b, counts, MPI_INT,
                                MPI_SUM, comm));
    int *res = inplace ? a : b;
    for (int i = 0; i < counts[rank]; i++) {
        int want = 0;
        for (int r = 0; r < size; r++)
            want += val(r, lo + i, base);
        CHECK(res[i] == want);
    }
    for (int i = 0; i < base * size; i++)
        a[i] = val(rank, i, base + 1);
    CHECK_OK(MPI_Reduce_scatter_block(a, b, base, MPI_INT, MPI_MAX, comm));
    for (int i = 0; i < base; i++)
        CHECK(b[i] == val(size - 1, rank * base + i, base + 1));
}

static void check_rs_noncomm(MPI_Comm comm, unsigned *a, unsigned *b, int base)
{
    int rank, size, total, counts[64], lo = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    rs_counts(size, base, counts, &total);
    for (int r = 0; r < rank; r++)
        lo += counts[r];
    MPI_Datatype mat;
    MPI_Op op;
    CHECK_OK(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat));
    CHECK_OK(MPI_Type_commit(&mat));
    CHECK_OK(MPI_Op_create(matmul, 0, &op));
    for (int k = 0; k < total; k++)
        mat_of(rank, k, &a[4 * k]);
    CHECK_OK(MPI_Reduce_scatter(a, b, counts, mat, op, comm));
    for (int k = 0; k < counts[rank]; k++) {
        unsigned want[4];
        mat_of(size - 1, lo + k, want);
        for (int r = size - 2; r >= 0; r--) {
            unsigned m[4];
            int one = 1;
            mat_of(r, lo + k, m);
            matmul(m, want, &one, NULL);
        }
        CHECK(memcmp(&b[4 * k], want, sizeof(want)) == 0);
    }
    CHECK_OK(MPI_Op_free(&op));
    CHECK_OK(MPI_Type_free(&mat));
}

static void check_reduce_scatter(MPI_Comm comm, int *a, int *b)
{
    int size;
    MPI_Comm_size(comm, &size);
    const int bases[] = {7, 1500, 20000}; /* inline; inline or not by p; single copy */
    for (int i = 0; i < 3 && size <= 64; i++) {
        check_rs_sum(comm, a, b, bases[i], false);
        check_rs_sum(comm, a, b, bases[i], true);
        check_rs_noncomm(comm, (unsigned *)a, (unsigned *)b, bases[i] / 4 + 1);
    }
}

/* Collectives of every kind back to back, sizes alternating inline / single copy: a slot or flag
 * reused too early shows up as a wrong value. */
static void check_back_to_back(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static int big[4096], out[4096];
    for (int it = 0; it < 2000; it++) {
        int n = it % 7 == 0 ? 4096 : 3, root = it % size, x = rank + it, y = -1;
        CHECK_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, comm));
        CHECK(y == size * (size - 1) / 2 + size * it);
        for (int i = 0; i < n; i++)
            big[i] = rank == root ? it + i : -1;
        CHECK_OK(MPI_Bcast(big, n, MPI_INT, root, comm));
        CHECK(big[0] == it && big[n - 1] == it + n - 1);
        CHECK_OK(MPI_Reduce(big, out, n, MPI_INT, MPI_SUM, root, comm));
        CHECK(rank != root || (out[0] == size * it && out[n - 1] == size * (it + n - 1)));
        if (it % 3 == 0)
            CHECK_OK(MPI_Barrier(comm));
    }
}

/* Back-to-back single-copy Reduces (shared chunks, reduce_shm.c) on one send buffer, poisoned
 * as soon as each call returns, with one rank late by turns: a rank returns only once every
 * chunk is stored, so no chunk may ever fold a poisoned or next-round input. */
static void check_reduce_reuse(MPI_Comm comm)
{
    int rank, size, n = 70001;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *in = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
    CHECK(in && out);
    for (int it = 0; it < 12; it++) {
        int root = (it * 5) % size;
        for (int i = 0; i < n; i++)
            in[i] = val(rank, i, it);
        if (rank == (it + 1) % size)
            usleep(2000);
        CHECK_OK(MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, root, comm));
        for (int i = 0; i < n; i++)
            in[i] = -1000000; /* poison */
        for (int i = 0; rank == root && i < n; i++) {
            int want = 0;
            for (int r = 0; r < size; r++)
                want += val(r, i, it);
            CHECK(out[i] == want);
        }
    }
    free(in);
    free(out);
}

/* No "ibex-coll-*" name in /dev/shm: every segment was unlinked once mapped. */
static void check_no_segment_names(void)
{
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));)
        if (strncmp(e->d_name, "ibex-coll", 9) == 0) {
            fprintf(stderr, "coll_shm: rank %d: /dev/shm/%s left behind\n", wrank, e->d_name);
            CHECK(0);
        }
    closedir(d);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void suite(MPI_Comm comm, int *a, int *b)
{
    check_allreduce(comm, a, b);
    check_reduce(comm, a, b);
    check_bcast(comm, a);
    check_bcast_types(comm, a);
    check_gathers(comm, a, b);
    check_noncommutative(comm, (unsigned *)a, (unsigned *)b);
    check_reduce_affine(comm, (unsigned *)a, (unsigned *)b);
    check_reduce_scatter(comm, a, b);
    check_back_to_back(comm);
    check_reduce_reuse(comm);
}

/* Sub-communicators: halves with ranks in reverse order, then 20 made and freed again. */
static void check_split(int *a, int *b)
{
    MPI_Comm sub;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wsize - wrank, &sub));
    int srank, ssize;
    MPI_Comm_rank(sub, &srank);
    MPI_Comm_size(sub, &ssize);
    CHECK(srank == (ssize - 1) - wrank / 2);
    check_allreduce(sub, a, b);
    check_reduce(sub, a, b);
    check_bcast(sub, a);
    check_gathers(sub, a, b);
    check_no_segment_names();
    CHECK_OK(MPI_Comm_free(&sub));
    /* evens then odds: under IBEX_COLL_NODE_SIZE=2 the nodes interleave in rank order, so a
     * hierarchy must not fold a non-commutative op node by node */
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, (wrank % 2) * wsize + wrank, &sub));
    check_noncommutative(sub, (unsigned *)a, (unsigned *)b);
    check_reduce_affine(sub, (unsigned *)a, (unsigned *)b);
    check_reduce(sub, a, b);
    check_bcast(sub, a);
    CHECK_OK(MPI_Comm_free(&sub));
    for (int i = 0; i < 20; i++) {
        MPI_Comm dup;
        int x = wrank, sum = -1;
        CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        CHECK_OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, dup));
        CHECK(sum == wsize * (wsize - 1) / 2);
        CHECK_OK(MPI_Barrier(dup));
        CHECK_OK(MPI_Comm_free(&dup));
    }
}

static void force_all(const char *name)
{
    ibex_coll_kind_t kinds[] = {IBEX_COLL_BARRIER,        IBEX_COLL_BCAST,
                                IBEX_COLL_REDUCE,         IBEX_COLL_ALLREDUCE,
                                IBEX_COLL_GATHER,         IBEX_COLL_ALLGATHER,
                                IBEX_COLL_REDUCE_SCATTER, IBEX_COLL_REDUCE_SCATTER_BLOCK};
    for (int k = 0; k < 8; k++)
        CHECK(ibex_coll_force(kinds[k], name) == IBEX_OK);
}

/* The root-only single-copy Reduce (shmem_root: the table's choice past the inline limit on an
 * oversubscribed node), forced at every rank count: every root and size, in place, the
 * non-commutative op, back to back with the other kinds, and on a reversed communicator. */
static void check_reduce_root(int *a, int *b)
{
    force_all("shmem");
    CHECK(ibex_coll_force(IBEX_COLL_REDUCE, "shmem_root") == IBEX_OK);
    check_reduce(MPI_COMM_WORLD, a, b);
    check_noncommutative(MPI_COMM_WORLD, (unsigned *)a, (unsigned *)b);
    check_back_to_back(MPI_COMM_WORLD);
    MPI_Comm sub;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &sub));
    check_reduce(sub, a, b);
    check_noncommutative(sub, (unsigned *)a, (unsigned *)b);
    CHECK_OK(MPI_Comm_free(&sub));
}

/* The name of the algorithm the last collective of kind ran (MPI_T's record of it). */
static const char *last_algo(ibex_coll_kind_t kind)
{
    const ibex_coll_algo_t *algo = ibex_engine_stats.coll_algo[kind];
    return algo ? algo->name : "";
}

static void allreduce_ints(MPI_Comm comm, int *a, int *b, int n)
{
    CHECK_OK(MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, comm));
}

/* The Allgather through the staging slots (shmem_staged: coll_tuned.h's choice for large blocks
 * on an oversubscribed node), forced at every rank count: blocks on both sides of the inline
 * limit and of IBEX_COLL_SHM_STAGE (coll_shm.sh sets it below 40000 ints), in place, a strided
 * receive type, back to back with the other kinds, on a reversed communicator. The staged Bcast
 * (the shmem Bcast past the inline limit on an oversubscribed node) runs in every check_bcast at
 * 3 ranks and more. */
static void check_staged(int *a, int *b)
{
    force_all("shmem");
    CHECK(ibex_coll_force(IBEX_COLL_ALLGATHER, "shmem_staged") == IBEX_OK);
    check_gathers(MPI_COMM_WORLD, a, b);
    check_bcast(MPI_COMM_WORLD, a);
    check_back_to_back(MPI_COMM_WORLD);
    MPI_Comm sub;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &sub));
    check_gathers(sub, a, b);
    check_bcast_types(sub, a);
    CHECK_OK(MPI_Comm_free(&sub));
}

/* The table's choice as it moves between communicators and sizes (coll_select.c keeps the last
 * choice of each kind and must not hand it to a call with other arguments): on MPI_COMM_SELF
 * Allreduce is recursive doubling up to 2 KiB and Rabenseifner past it; on the world shmem on
 * one node (hier over faked nodes); the barrier of an oversubscribed node the fan-in
 * (coll_tuned.h). */
static void check_auto_choice(int *a, int *b)
{
    force_all("auto");
    allreduce_ints(MPI_COMM_SELF, a, b, 1);
    CHECK(strcmp(last_algo(IBEX_COLL_ALLREDUCE), "recursive_doubling") == 0);
    allreduce_ints(MPI_COMM_SELF, a, b, 1024);
    CHECK(strcmp(last_algo(IBEX_COLL_ALLREDUCE), "rabenseifner") == 0);
    allreduce_ints(MPI_COMM_SELF, a, b, 1);
    CHECK(strcmp(last_algo(IBEX_COLL_ALLREDUCE), "recursive_doubling") == 0);
    if (wsize < 2)
        return;
    ibex_comm_t *world = ibex_comm_get(MPI_COMM_WORLD);
    ibex_coll_span_t span = ibex_coll_comm_span(world);
    bool node = span == IBEX_COLL_SPAN_NODE;
    if (span == IBEX_COLL_SPAN_ANY)
        return; /* no shared memory among the transports: the point-to-point table */
    allreduce_ints(MPI_COMM_WORLD, a, b, 1);
    CHECK(strcmp(last_algo(IBEX_COLL_ALLREDUCE), node ? "shmem" : "hier") == 0);
    allreduce_ints(MPI_COMM_SELF, a, b, 1);
    CHECK(strcmp(last_algo(IBEX_COLL_ALLREDUCE), "recursive_doubling") == 0);
    allreduce_ints(MPI_COMM_WORLD, a, b, 1);
    CHECK(strcmp(last_algo(IBEX_COLL_ALLREDUCE), node ? "shmem" : "hier") == 0);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    const char *want = !node ? "hier" : ibex_coll_comm_oversub(world) ? "shmem_fanin" : "shmem";
    CHECK(strcmp(last_algo(IBEX_COLL_BARRIER), want) == 0);
}

int main(int argc, char **argv)
{
    alarm(170);
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
    int *a = malloc(sizeof(int) * 4 * (MAXCOUNT + 1)), *b = malloc(sizeof(int) * 4 * MAXCOUNT);
    CHECK(a && b);
    const char *modes[] = {"shmem", "auto"};
    for (int m = 0; m < 2; m++) {
        force_all(modes[m]);
        suite(MPI_COMM_WORLD, a, b);
        check_no_segment_names();
        check_split(a, b);
    }
    check_reduce_root(a, b);
    check_staged(a, b);
    check_auto_choice(a, b);
    free(a);
    free(b);
    CHECK_OK(MPI_Finalize());
    if (wrank == 0)
        printf("coll_shm: ok\n");
    return 0;
}
