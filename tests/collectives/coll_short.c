/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The short paths of MPI_Allreduce, MPI_Bcast and MPI_Alltoall (collectives/allreduce_shm.c,
 * bcast_shm.c, alltoall_shm.c;
 * collectives/base/coll_shm.h): a predefined op on at most 24 bytes of a predefined type, on a
 * communicator the table gave that size's inline shared-memory algorithm. Allreduce, checked
 * against references computed here:
 *   - every payload size from 1 to 24 bytes and past it (32, 40: the general path), of int,
 *     double, char, uint8, int64, float, short, long double, C bool (LAND / LOR) and MPI_2INT
 *     (MAXLOC / MINLOC), with SUM, PROD, MAX, MIN, BAND, BOR, BXOR, the type and op changing
 *     from call to call (the short path's one-pair cache), in place and not;
 *   - on MPI_COMM_WORLD, a duplicate and a Comm_split with reversed ranks;
 *   - which path ran (ibex_engine_stats.coll_short[IBEX_COLL_SHORT_ALLREDUCE]): the first call of a
 * size goes the general way (it teaches the size), the next ones the short way; a derived type, a
 * user op and a payload past 24 bytes never take it; a forced algorithm (ibex_coll_force, what
 *     IBEX_COLL_ALLREDUCE does) stops it at once, the table's choice brings it back after one
 *     call; the algorithm MPI_T reports (coll_algo) stays the one that ran;
 *   - bad arguments once the short path knows the size: count -1, MPI_OP_NULL, a freed type,
 *     send buffer = receive buffer, MPI_IN_PLACE as the receive buffer, NULL buffers give the
 *     general path's error classes and leave the result untouched.
 * Bcast: every size 1-40 bytes of every type from every root, in turn on the three
 * communicators, which path ran, forced algorithms and bad arguments the same way, and ranks
 * on the short path and ranks on the general one in the same call (MPI_INT x 2 on some, a
 * contiguous type of two ints on the others: the same signature) meet.
 * Alltoall: every block size 1-40 bytes of every type on the three communicators, which path
 * ran, ranks with a derived receive type (the general path) beside the short one, forced
 * algorithms and bad arguments.
 * Where the table does not choose the shared-memory Allreduce (one rank, no shared memory among
 * the transports) the short path must never run. Prints "coll_short: ok".
 */
#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "coll.h"
#include "coll_shm.h"
#include "comm_check.h"
#include "ibex_engine_stats.h"

static int wrank;

typedef enum { T_INT, T_DOUBLE, T_CHAR, T_U8, T_I64, T_FLOAT, T_SHORT, T_LDOUBLE, T_COUNT } tkind_t;

static MPI_Datatype mpi_of(tkind_t t)
{
    static const MPI_Datatype m[T_COUNT] = {MPI_INT,     MPI_DOUBLE, MPI_CHAR,  MPI_UINT8_T,
                                            MPI_INT64_T, MPI_FLOAT,  MPI_SHORT, MPI_LONG_DOUBLE};
    return m[t];
}

static size_t size_of(tkind_t t)
{
    static const size_t s[T_COUNT] = {sizeof(int),   sizeof(double),     1, 1, 8, sizeof(float),
                                      sizeof(short), sizeof(long double)};
    return s[t];
}

static bool int_kind(tkind_t t)
{
    return t != T_DOUBLE && t != T_FLOAT && t != T_LDOUBLE;
}

/* Rank r's element i: small, so that sums and products stay exact in every type. */
static long input(int r, int i, int op)
{
    return op == 1 ? 1 + (r + i) % 2 : (r * 5 + i * 3) % 7 + (op == 6 ? 8 * r : 0);
}

static long combine(long x, long y, int op)
{
    switch (op) {
    case 0:
        return x + y;
    case 1:
        return x * y;
    case 2:
        return x > y ? x : y;
    case 3:
        return x < y ? x : y;
    case 4:
        return x & y;
    case 5:
        return x | y;
    default:
        return x ^ y;
    }
}

static MPI_Op mpi_op(int op)
{
    static const MPI_Op m[7] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR, MPI_BXOR};
    return m[op];
}

static void put(void *buf, tkind_t t, int i, long v)
{
    switch (t) {
    case T_INT:
        ((int *)buf)[i] = (int)v;
        break;
    case T_DOUBLE:
        ((double *)buf)[i] = (double)v;
        break;
    case T_CHAR:
        ((char *)buf)[i] = (char)v;
        break;
    case T_U8:
        ((uint8_t *)buf)[i] = (uint8_t)v;
        break;
    case T_I64:
        ((int64_t *)buf)[i] = v;
        break;
    case T_FLOAT:
        ((float *)buf)[i] = (float)v;
        break;
    case T_SHORT:
        ((short *)buf)[i] = (short)v;
        break;
    default:
        ((long double *)buf)[i] = (long double)v;
        break;
    }
}

static long get(const void *buf, tkind_t t, int i)
{
    switch (t) {
    case T_INT:
        return ((const int *)buf)[i];
    case T_DOUBLE:
        return (long)((const double *)buf)[i];
    case T_CHAR:
        return ((const char *)buf)[i];
    case T_U8:
        return ((const uint8_t *)buf)[i];
    case T_I64:
        return (long)((const int64_t *)buf)[i];
    case T_FLOAT:
        return (long)((const float *)buf)[i];
    case T_SHORT:
        return ((const short *)buf)[i];
    default:
        return (long)((const long double *)buf)[i];
    }
}

/* One Allreduce of count elements of t with op (in place or not) on comm, checked; returns how
 * many times the short path ran for it (0 or 1). */
static unsigned long long one(MPI_Comm comm, tkind_t t, int count, int op, bool in_place)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    long double sb[8], rb[8]; /* 128 bytes each, aligned for every type */
    memset(sb, 0x5a, sizeof(sb));
    memset(rb, 0x5a, sizeof(rb));
    for (int i = 0; i < count; i++)
        put(in_place ? rb : sb, t, i, input(rank, i, op));
    unsigned long long before = ibex_engine_stats.coll_short[IBEX_COLL_SHORT_ALLREDUCE];
    CHECK_OK(MPI_Allreduce(in_place ? MPI_IN_PLACE : sb, rb, count, mpi_of(t), mpi_op(op), comm));
    for (int i = 0; i < count; i++) {
        long want = input(0, i, op);
        for (int r = 1; r < p; r++)
            want = combine(want, input(r, i, op), op);
        if (t == T_CHAR || t == T_U8)
            want = t == T_CHAR ? (char)want : (uint8_t)want;
        if (t == T_SHORT)
            want = (short)want;
        if (get(rb, t, i) != want) {
            fprintf(stderr, "rank %d: type %d count %d op %d%s: [%d] = %ld, want %ld\n", wrank,
                    (int)t, count, op, in_place ? " in place" : "", i, get(rb, t, i), want);
            CHECK(0);
        }
    }
    /* nothing written past the result */
    CHECK(((unsigned char *)rb)[(size_t)count * size_of(t)] == 0x5a);
    return ibex_engine_stats.coll_short[IBEX_COLL_SHORT_ALLREDUCE] - before;
}

/* Whether the table gives a 4-byte Allreduce on comm to the inline shared-memory one (not with
 * one rank, nor without shared memory among the transports). */
static bool shm_chosen(MPI_Comm comm)
{
    int v = 1, r = 0;
    CHECK_OK(MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, comm));
    const ibex_coll_algo_t *a = ibex_engine_stats.coll_algo[IBEX_COLL_ALLREDUCE];
    return a && strcmp(a->name, "shmem") == 0;
}

/* Every type, op and count up to 40 bytes: each (size, comm) pair's first call teaches the
 * size; from then on calls of at most 24 bytes run short, larger ones never. */
static void t_matrix(MPI_Comm comm)
{
    bool shm = shm_chosen(comm);
    for (int round = 0; round < 2; round++)
        for (int t = 0; t < T_COUNT; t++)
            for (int count = 1; (size_t)count * size_of((tkind_t)t) <= 40; count++)
                for (int op = 0; op < 7; op++) {
                    if (!int_kind((tkind_t)t) && op >= 4)
                        continue;
                    size_t bytes = (size_t)count * size_of((tkind_t)t);
                    unsigned long long s = one(comm, (tkind_t)t, count, op, (op + count) % 2);
                    if (bytes > IBEX_COLL_SHM_TINY || !shm)
                        CHECK(s == 0);
                    else if (round == 1)
                        CHECK(s == 1); /* every size was taught in round 0 */
                }
}

/* C bool with LAND / LOR and MPI_2INT with MAXLOC / MINLOC, changing pair every call. */
static void t_pairs(MPI_Comm comm)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    for (int k = 0; k < 6; k++) {
        bool b[3] = {true, rank != 1, rank == 0}, rb[3];
        CHECK_OK(MPI_Allreduce(b, rb, 3, MPI_C_BOOL, k % 2 ? MPI_LOR : MPI_LAND, comm));
        CHECK(rb[0] == true);
        CHECK(rb[1] == (k % 2 ? true : p < 2));
        CHECK(rb[2] == (k % 2 ? true : p == 1));
        struct {
            int v, i;
        } x[2] = {{rank % 3, rank}, {-rank, rank}}, y[2];
        MPI_Op op = k % 2 ? MPI_MINLOC : MPI_MAXLOC;
        CHECK_OK(MPI_Allreduce(x, y, 2, MPI_2INT, op, comm));
        int best = 0, besti = 0, best1 = 0, best1i = 0;
        for (int r = 0; r < p; r++) {
            int v = r % 3;
            if (k % 2 ? v < best : v > best)
                best = v, besti = r;
            if (k % 2 ? -r < best1 : 0)
                best1 = -r, best1i = r;
        }
        CHECK(y[0].v == best && y[0].i == besti);
        CHECK(y[1].v == best1 && y[1].i == best1i); /* MAXLOC ties: the lowest index, 0 */
    }
}

/* A committed contiguous type of two ints (8 bytes, not predefined: the general path). */
static MPI_Datatype two_ints(void)
{
    MPI_Datatype two;
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &two));
    CHECK_OK(MPI_Type_commit(&two));
    return two;
}

/* A call that must fail with class want (case i of what) without running a short path (its
 * count *n stays at before). */
static void check_bad(int rc, int want, const char *what, size_t i, const unsigned long long *n,
                      unsigned long long before)
{
    int cls = -1;
    CHECK(rc != MPI_SUCCESS);
    CHECK_OK(MPI_Error_class(rc, &cls));
    if (cls != want)
        fprintf(stderr, "rank %d: %s bad case %zu: class %d, want %d\n", wrank, what, i, cls, want);
    CHECK(cls == want);
    CHECK(*n == before);
}

/* Concatenation of decimal digits, (value, 10^digits) pairs: associative, not commutative. */
static void noncomm_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i + 1 < *len; i += 2) {
        b[i] = a[i] * b[i + 1] + b[i];
        b[i + 1] = a[i + 1] * b[i + 1];
    }
}

/* A derived type and a user op on 8 bytes never run short, and give the right result. */
static void t_general(MPI_Comm comm)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    MPI_Datatype two = two_ints();
    MPI_Op digits;
    CHECK_OK(MPI_Op_create(noncomm_fn, 0, &digits));
    for (int k = 0; k < 3; k++) {
        int s[2] = {rank, 2 * rank}, r[2] = {-1, -1};
        unsigned long long before = ibex_engine_stats.coll_short[IBEX_COLL_SHORT_ALLREDUCE];
        CHECK_OK(MPI_Allreduce(s, r, 1, two, MPI_SUM, comm));
        CHECK(r[0] == p * (p - 1) / 2 && r[1] == p * (p - 1));
        int d[2] = {rank + 1, 10}, got[2] = {-1, -1}, want = 0;
        CHECK_OK(MPI_Allreduce(d, got, 2, MPI_INT, digits, comm));
        for (int q = 0; q < p; q++)
            want = want * 10 + q + 1;
        CHECK(got[0] == want);
        CHECK(ibex_engine_stats.coll_short[IBEX_COLL_SHORT_ALLREDUCE] == before);
    }
    MPI_Op_free(&digits);
    MPI_Type_free(&two);
}

/* A forced algorithm stops the short path at once; back to the table, one call re-teaches. */
static void t_forced(MPI_Comm comm)
{
    int p, v = 3, s = 0;
    MPI_Comm_size(comm, &p);
    for (int k = 0; k < 3; k++)
        CHECK_OK(MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, comm));
    const ibex_coll_algo_t *before = ibex_engine_stats.coll_algo[IBEX_COLL_ALLREDUCE];
    CHECK(before && strcmp(before->name, "shmem") == 0);
    CHECK(ibex_coll_force(IBEX_COLL_ALLREDUCE, "recursive_doubling") == IBEX_OK);
    unsigned long long n0 = ibex_engine_stats.coll_short[IBEX_COLL_SHORT_ALLREDUCE];
    for (int k = 0; k < 3; k++) {
        s = 0;
        CHECK_OK(MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, comm));
        CHECK(s == 3 * p);
        const ibex_coll_algo_t *a = ibex_engine_stats.coll_algo[IBEX_COLL_ALLREDUCE];
        CHECK(a && strcmp(a->name, "recursive_doubling") == 0);
    }
    CHECK(ibex_engine_stats.coll_short[IBEX_COLL_SHORT_ALLREDUCE] == n0);
    CHECK(ibex_coll_force(IBEX_COLL_ALLREDUCE, "auto") == IBEX_OK);
    for (int k = 0; k < 3; k++) {
        s = 0;
        CHECK_OK(MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, comm));
        CHECK(s == 3 * p);
    }
    CHECK(ibex_engine_stats.coll_short[IBEX_COLL_SHORT_ALLREDUCE] ==
          n0 + 2); /* the first call taught the size */
    CHECK(ibex_engine_stats.coll_algo[IBEX_COLL_ALLREDUCE] == before);
}

/* Bad arguments after the size is known: the general path's classes, the result untouched. */
static void t_errors(MPI_Comm comm)
{
    int v = 1, r = 0;
    CHECK_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    for (int k = 0; k < 2; k++) /* teach 4 bytes of int SUM */
        CHECK_OK(MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, comm));
    r = -7;
    MPI_Datatype gone;
    CHECK_OK(MPI_Type_contiguous(1, MPI_INT, &gone));
    CHECK_OK(MPI_Type_commit(&gone));
    MPI_Datatype stale = gone;
    CHECK_OK(MPI_Type_free(&gone));
    struct {
        const void *s;
        void *r;
        int count;
        MPI_Datatype dt;
        MPI_Op op;
        int cls;
    } bad[] = {
        {&v, &r, -1, MPI_INT, MPI_SUM, MPI_ERR_COUNT},
        {&v, &r, 1, MPI_INT, MPI_OP_NULL, MPI_ERR_OP},
        {&v, &r, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_ERR_TYPE},
        {&v, &r, 1, stale, MPI_SUM, MPI_ERR_TYPE},
        {&r, &r, 1, MPI_INT, MPI_SUM, MPI_ERR_BUFFER},
        {&v, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_ERR_BUFFER},
        {&v, NULL, 1, MPI_INT, MPI_SUM, MPI_ERR_BUFFER},
        {NULL, &r, 1, MPI_INT, MPI_SUM, MPI_ERR_BUFFER},
    };
    const unsigned long long *n = &ibex_engine_stats.coll_short[IBEX_COLL_SHORT_ALLREDUCE];
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        unsigned long long before = *n;
        int rc = MPI_Allreduce(bad[i].s, bad[i].r, bad[i].count, bad[i].dt, bad[i].op, comm);
        check_bad(rc, bad[i].cls, "allreduce", i, n, before);
        CHECK(r == -7);
    }
    CHECK_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
}

/* Bcast: some ranks pass MPI_INT x 2, the others one element of a contiguous type of two ints
 * (the same signature): the short path on the first, the general one on the others, in one
 * call. Allreduce runs on both in turn (MPI asks the same datatype on every rank there). */
static void t_mixed(MPI_Comm comm)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    MPI_Datatype two = two_ints();
    for (int k = 0; k < 4; k++) {
        bool derived = (rank + k) % 2;
        int s[2] = {rank, 1}, r[2] = {-1, -1};
        bool two_all = k % 2; /* every rank the same type */
        CHECK_OK(MPI_Allreduce(s, r, two_all ? 1 : 2, two_all ? two : MPI_INT, MPI_SUM, comm));
        CHECK(r[0] == p * (p - 1) / 2 && r[1] == p);
        int root = k % p, b[2] = {-1, -1};
        if (rank == root)
            b[0] = 100 + k, b[1] = 200 + k;
        CHECK_OK(MPI_Bcast(b, derived ? 1 : 2, derived ? two : MPI_INT, root, comm));
        CHECK(b[0] == 100 + k && b[1] == 200 + k);
    }
    MPI_Type_free(&two);
}

/* Bcast of count elements of t from root, checked; returns how many times its short path ran. */
static unsigned long long one_bcast(MPI_Comm comm, tkind_t t, int count, int root)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    long double b[8];
    memset(b, 0x5a, sizeof(b));
    for (int i = 0; rank == root && i < count; i++)
        put(b, t, i, input(root, i, 0) + 3 * i);
    unsigned long long before = ibex_engine_stats.coll_short[IBEX_COLL_SHORT_BCAST];
    CHECK_OK(MPI_Bcast(b, count, mpi_of(t), root, comm));
    for (int i = 0; i < count; i++)
        CHECK(get(b, t, i) == input(root, i, 0) + 3 * i);
    CHECK(((unsigned char *)b)[(size_t)count * size_of(t)] == 0x5a);
    return ibex_engine_stats.coll_short[IBEX_COLL_SHORT_BCAST] - before;
}

static bool bcast_shm_chosen(MPI_Comm comm)
{
    int v = 1;
    CHECK_OK(MPI_Bcast(&v, 1, MPI_INT, 0, comm));
    const ibex_coll_algo_t *a = ibex_engine_stats.coll_algo[IBEX_COLL_BCAST];
    return a && strcmp(a->name, "shmem") == 0;
}

static void t_bcast(MPI_Comm comm)
{
    int p;
    MPI_Comm_size(comm, &p);
    bool shm = bcast_shm_chosen(comm);
    for (int round = 0; round < 2; round++)
        for (int t = 0; t < T_COUNT; t++)
            for (int count = 1; (size_t)count * size_of((tkind_t)t) <= 40; count++)
                for (int root = 0; root < p; root++) {
                    size_t bytes = (size_t)count * size_of((tkind_t)t);
                    unsigned long long n = one_bcast(comm, (tkind_t)t, count, root);
                    if (bytes > IBEX_COLL_SHM_TINY || !shm)
                        CHECK(n == 0);
                    else if (round == 1)
                        CHECK(n == 1);
                }
}

/* Bcast: a forced algorithm stops the short path; bad arguments keep their classes. */
static void t_bcast_forced_errors(MPI_Comm comm)
{
    int p, v = 0;
    MPI_Comm_size(comm, &p);
    unsigned long long *n = &ibex_engine_stats.coll_short[IBEX_COLL_SHORT_BCAST];
    for (int k = 0; k < 2; k++)
        CHECK_OK(MPI_Bcast(&v, 1, MPI_INT, 0, comm));
    CHECK(ibex_coll_force(IBEX_COLL_BCAST, "binomial") == IBEX_OK);
    unsigned long long n0 = *n;
    for (int k = 0; k < 3; k++) {
        int rank, x = -1;
        MPI_Comm_rank(comm, &rank);
        if (rank == k % p)
            x = 40 + k;
        CHECK_OK(MPI_Bcast(&x, 1, MPI_INT, k % p, comm));
        CHECK(x == 40 + k);
        const ibex_coll_algo_t *a = ibex_engine_stats.coll_algo[IBEX_COLL_BCAST];
        CHECK(a && strcmp(a->name, "binomial") == 0);
    }
    CHECK(*n == n0);
    CHECK(ibex_coll_force(IBEX_COLL_BCAST, "auto") == IBEX_OK);
    for (int k = 0; k < 3; k++)
        CHECK_OK(MPI_Bcast(&v, 1, MPI_INT, 0, comm));
    CHECK(*n == n0 + 2);
    CHECK_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    struct {
        void *buf;
        int count;
        MPI_Datatype dt;
        int root, cls;
    } bad[] = {
        {&v, 1, MPI_INT, -1, MPI_ERR_ROOT},    {&v, 1, MPI_INT, p, MPI_ERR_ROOT},
        {&v, -1, MPI_INT, 0, MPI_ERR_COUNT},   {&v, 1, MPI_DATATYPE_NULL, 0, MPI_ERR_TYPE},
        {NULL, 1, MPI_INT, 0, MPI_ERR_BUFFER},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        unsigned long long before = *n;
        int rc = MPI_Bcast(bad[i].buf, bad[i].count, bad[i].dt, bad[i].root, comm);
        check_bad(rc, bad[i].cls, "bcast", i, n, before);
    }
    CHECK_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
}

/* Alltoall of count elements of t per block, checked; returns how many times its short path
 * ran. Block j of rank r is input(r * 16 + j, i). */
static unsigned long long one_alltoall(MPI_Comm comm, tkind_t t, int count, bool derived_recv)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    size_t bytes = (size_t)count * size_of(t), total = bytes * (size_t)p;
    unsigned char *sb = malloc(total + 1), *rb = malloc(total + 1);
    CHECK(sb && rb);
    memset(rb, 0x5a, total + 1);
    for (int j = 0; j < p; j++)
        for (int i = 0; i < count; i++)
            put(sb + (size_t)j * bytes, t, i, input(rank * 16 + j, i, 0));
    MPI_Datatype rdt = mpi_of(t), blk = MPI_DATATYPE_NULL;
    int rcount = count;
    if (derived_recv) { /* the same signature through a contiguous type of the whole block */
        CHECK_OK(MPI_Type_contiguous(count, mpi_of(t), &blk));
        CHECK_OK(MPI_Type_commit(&blk));
        rdt = blk;
        rcount = 1;
    }
    unsigned long long before = ibex_engine_stats.coll_short[IBEX_COLL_SHORT_ALLTOALL];
    CHECK_OK(MPI_Alltoall(sb, count, mpi_of(t), rb, rcount, rdt, comm));
    for (int j = 0; j < p; j++)
        for (int i = 0; i < count; i++)
            CHECK(get(rb + (size_t)j * bytes, t, i) == input(j * 16 + rank, i, 0));
    CHECK(rb[total] == 0x5a);
    if (blk != MPI_DATATYPE_NULL)
        MPI_Type_free(&blk);
    free(sb);
    free(rb);
    return ibex_engine_stats.coll_short[IBEX_COLL_SHORT_ALLTOALL] - before;
}

static bool alltoall_shm_chosen(MPI_Comm comm)
{
    int p;
    MPI_Comm_size(comm, &p);
    int *s = calloc((size_t)p, sizeof(int)), *r = calloc((size_t)p, sizeof(int));
    CHECK(s && r);
    CHECK_OK(MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, comm));
    free(s);
    free(r);
    const ibex_coll_algo_t *a = ibex_engine_stats.coll_algo[IBEX_COLL_ALLTOALL];
    return a && strcmp(a->name, "shmem") == 0;
}

/* Every type and block size to 40 bytes, twice (the first round teaches the sizes), and ranks
 * on the general path (a derived receive type on odd ranks) beside the short one. */
static void t_alltoall(MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    bool shm = alltoall_shm_chosen(comm);
    for (int round = 0; round < 3; round++)
        for (int t = 0; t < T_COUNT; t++)
            for (int count = 1; (size_t)count * size_of((tkind_t)t) <= 40; count++) {
                size_t bytes = (size_t)count * size_of((tkind_t)t);
                bool derived = round == 2 && rank % 2;
                unsigned long long n = one_alltoall(comm, (tkind_t)t, count, derived);
                if (bytes > IBEX_COLL_SHM_TINY || !shm || derived)
                    CHECK(n == 0);
                else if (round >= 1)
                    CHECK(n == 1);
            }
}

/* Alltoall: a forced algorithm stops the short path; bad arguments keep their classes. */
static void t_alltoall_forced_errors(MPI_Comm comm)
{
    int p;
    MPI_Comm_size(comm, &p);
    const unsigned long long *n = &ibex_engine_stats.coll_short[IBEX_COLL_SHORT_ALLTOALL];
    for (int k = 0; k < 2; k++)
        one_alltoall(comm, T_INT, 1, false);
    CHECK(ibex_coll_force(IBEX_COLL_ALLTOALL, "pairwise") == IBEX_OK);
    unsigned long long n0 = *n;
    for (int k = 0; k < 3; k++) {
        CHECK(one_alltoall(comm, T_INT, 1, false) == 0);
        const ibex_coll_algo_t *a = ibex_engine_stats.coll_algo[IBEX_COLL_ALLTOALL];
        CHECK(a && strcmp(a->name, "pairwise") == 0);
    }
    CHECK(*n == n0);
    CHECK(ibex_coll_force(IBEX_COLL_ALLTOALL, "auto") == IBEX_OK);
    for (int k = 0; k < 3; k++)
        one_alltoall(comm, T_INT, 1, false);
    CHECK(*n == n0 + 2);
    CHECK_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    int *s = calloc((size_t)p, sizeof(int)), *r = calloc((size_t)p, sizeof(int));
    CHECK(s && r);
    struct {
        const void *s;
        void *r;
        int count;
        MPI_Datatype dt;
        int cls;
    } bad[] = {
        {s, r, -1, MPI_INT, MPI_ERR_COUNT},    {s, r, 1, MPI_DATATYPE_NULL, MPI_ERR_TYPE},
        {NULL, r, 1, MPI_INT, MPI_ERR_BUFFER}, {s, NULL, 1, MPI_INT, MPI_ERR_BUFFER},
        {r, r, 1, MPI_INT, MPI_ERR_BUFFER},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        unsigned long long before = *n;
        int rc = MPI_Alltoall(bad[i].s, bad[i].count, bad[i].dt, bad[i].r, bad[i].count, bad[i].dt,
                              comm);
        check_bad(rc, bad[i].cls, "alltoall", i, n, before);
    }
    free(s);
    free(r);
    CHECK_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm dup, rev;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, p - wrank, &rev));
    MPI_Comm comms[3] = {MPI_COMM_WORLD, dup, rev};
    for (int c = 0; c < 3; c++) {
        t_matrix(comms[c]);
        t_pairs(comms[c]);
        t_general(comms[c]);
        t_mixed(comms[c]);
        t_bcast(comms[c]);
        t_alltoall(comms[c]);
    }
    if (alltoall_shm_chosen(rev))
        t_alltoall_forced_errors(rev);
    if (bcast_shm_chosen(rev))
        t_bcast_forced_errors(rev);
    if (shm_chosen(rev))
        t_forced(rev);
    t_errors(dup);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&dup);
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0)
        printf("coll_short: ok\n");
    MPI_Finalize();
    return 0;
}
