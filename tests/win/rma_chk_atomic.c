/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Independent checks of one-sided atomics, written from the MPI 4.1 standard in the manner of
 * MPICH's rma suite (fetchandadd, fetch_and_op, compare_and_swap, get_accumulate): every
 * predefined type with every op that applies to it, contended from every rank, and the
 * results against references computed here. Standard MPI only (also built with Open MPI and
 * MPICH to check the program itself).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, np, errs, verbose;

#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            if (errs++ < 20) {                                                                     \
                fprintf(stderr, "rank %d: %s:%d: ", me, __FILE__, __LINE__);                       \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fputc('\n', stderr);                                                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#define K 4 /* operations per rank per case */

/* Each type's values are held in a long double (exact for every integer used here) and
 * converted with the type's own C conversion. */
typedef struct {
    MPI_Datatype dt;
    const char *name;
    size_t size;
    int kind; /* 0 signed integer, 1 unsigned integer, 2 floating */
} type_t;

static const type_t types[] = {
    {MPI_SIGNED_CHAR, "signed char", 1, 0},
    {MPI_UNSIGNED_CHAR, "unsigned char", 1, 1},
    {MPI_SHORT, "short", 2, 0},
    {MPI_UNSIGNED_SHORT, "unsigned short", 2, 1},
    {MPI_INT, "int", 4, 0},
    {MPI_UNSIGNED, "unsigned", 4, 1},
    {MPI_LONG, "long", sizeof(long), 0},
    {MPI_UNSIGNED_LONG, "unsigned long", sizeof(long), 1},
    {MPI_LONG_LONG, "long long", 8, 0},
    {MPI_INT8_T, "int8_t", 1, 0},
    {MPI_UINT8_T, "uint8_t", 1, 1},
    {MPI_INT16_T, "int16_t", 2, 0},
    {MPI_UINT16_T, "uint16_t", 2, 1},
    {MPI_INT32_T, "int32_t", 4, 0},
    {MPI_UINT32_T, "uint32_t", 4, 1},
    {MPI_INT64_T, "int64_t", 8, 0},
    {MPI_UINT64_T, "uint64_t", 8, 1},
    {MPI_FLOAT, "float", 4, 2},
    {MPI_DOUBLE, "double", 8, 2},
};
#define NTYPES (int)(sizeof(types) / sizeof(types[0]))

typedef struct {
    MPI_Op op;
    const char *name;
    int ints_only; /* bitwise and logical ops are not defined on floating types */
} op_t;

static const op_t ops[] = {
    {MPI_SUM, "SUM", 0},   {MPI_PROD, "PROD", 0},       {MPI_MAX, "MAX", 0},
    {MPI_MIN, "MIN", 0},   {MPI_BAND, "BAND", 1},       {MPI_BOR, "BOR", 1},
    {MPI_BXOR, "BXOR", 1}, {MPI_LAND, "LAND", 1},       {MPI_LOR, "LOR", 1},
    {MPI_LXOR, "LXOR", 1}, {MPI_REPLACE, "REPLACE", 0}, {MPI_NO_OP, "NO_OP", 0},
};
#define NOPS (int)(sizeof(ops) / sizeof(ops[0]))

static void store(const type_t *t, void *p, long long v)
{
    switch (t->kind * 10 + (int)t->size) {
    case 1:
        *(signed char *)p = (signed char)v;
        break;
    case 2:
        *(short *)p = (short)v;
        break;
    case 4:
        *(int *)p = (int)v;
        break;
    case 8:
        *(long long *)p = v;
        break;
    case 11:
        *(unsigned char *)p = (unsigned char)v;
        break;
    case 12:
        *(unsigned short *)p = (unsigned short)v;
        break;
    case 14:
        *(unsigned *)p = (unsigned)v;
        break;
    case 18:
        *(unsigned long long *)p = (unsigned long long)v;
        break;
    case 24:
        *(float *)p = (float)v;
        break;
    case 28:
        *(double *)p = (double)v;
        break;
    default:
        abort();
    }
}

static long long load(const type_t *t, const void *p)
{
    switch (t->kind * 10 + (int)t->size) {
    case 1:
        return *(const signed char *)p;
    case 2:
        return *(const short *)p;
    case 4:
        return *(const int *)p;
    case 8:
        return *(const long long *)p;
    case 11:
        return *(const unsigned char *)p;
    case 12:
        return *(const unsigned short *)p;
    case 14:
        return *(const unsigned *)p;
    case 18:
        return (long long)*(const unsigned long long *)p;
    case 24:
        return (long long)*(const float *)p;
    case 28:
        return (long long)*(const double *)p;
    default:
        abort();
    }
}

/* The value rank r gives in its k-th operation: small, so that every reduction is exact in
 * every type (PROD of values 1 and 2 over at most 4 ranks x K stays within 16 bits). */
static long long contrib(int opi, int r, int k)
{
    MPI_Op op = ops[opi].op;
    if (op == MPI_PROD)
        return (r + k) % 3 == 0 ? 2 : 1;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return (r + k) % 2;
    if (op == MPI_BAND)
        return 0x7f & ~(1 << ((r + k) % 7));
    return 1 + (r * K + k) % 37 + (r == 1 ? 50 : 0);
}

/* The reduction of a and b by op, as the type holds it (integers wrap in the type). */
static long long reduce(const type_t *t, MPI_Op op, long long a, long long b)
{
    long long v;
    char tmp[8];
    if (op == MPI_SUM)
        v = a + b;
    else if (op == MPI_PROD)
        v = a * b;
    else if (op == MPI_MAX)
        v = a > b ? a : b;
    else if (op == MPI_MIN)
        v = a < b ? a : b;
    else if (op == MPI_BAND)
        v = a & b;
    else if (op == MPI_BOR)
        v = a | b;
    else if (op == MPI_BXOR)
        v = a ^ b;
    else if (op == MPI_LAND)
        v = a && b;
    else if (op == MPI_LOR)
        v = a || b;
    else if (op == MPI_LXOR)
        v = !a != !b;
    else
        v = b;
    store(t, tmp, v);
    return load(t, tmp);
}

static long long initial(MPI_Op op)
{
    return op == MPI_BAND ? 0x7f : op == MPI_PROD ? 1 : op == MPI_MIN ? 100 : 3;
}

/* Every rank applies K Fetch_and_ops to the target's element under a shared lock (so they
 * interleave); the final value is the reduction of all of them, whatever the order. */
static void fop_case(MPI_Win win, char *base, int ti, int opi, int target)
{
    const type_t *t = &types[ti];
    MPI_Op op = ops[opi].op;
    char in[8], out[8];
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    store(t, base, initial(op));
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
    for (int k = 0; k < K; k++) {
        store(t, in, contrib(opi, me, k));
        MPI_Fetch_and_op(in, out, t->dt, target, 0, op, win);
        MPI_Win_flush(target, win);
        if (op == MPI_NO_OP) /* nothing changes it */
            CHECK(load(t, out) == initial(op), "%s NO_OP fetched %lld", t->name, load(t, out));
    }
    MPI_Win_unlock(target, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me != target)
        return;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    long long got = load(t, base);
    MPI_Win_unlock(me, win);
    if (op == MPI_REPLACE) { /* the last replace applied: some rank's last value */
        int found = 0;
        for (int r = 0; r < np; r++)
            found |= got == reduce(t, op, 0, contrib(opi, r, K - 1));
        CHECK(found, "%s REPLACE left %lld", t->name, got);
        return;
    }
    long long want = initial(op);
    for (int r = 0; r < np; r++)
        for (int k = 0; k < K && op != MPI_NO_OP; k++)
            want = reduce(t, op, want, contrib(opi, r, k));
    CHECK(got == want, "%s %s to %d: %lld, want %lld", t->name, ops[opi].name, target, got, want);
}

/* fetchandadd: every rank adds 1 K times; the fetched values of all ranks together are each
 * value from 0 to np*K - 1 exactly once, and each rank's increase. */
static void fadd_case(MPI_Win win, char *base, int ti)
{
    const type_t *t = &types[ti];
    char one[8], out[8];
    long long mine[K], *all = malloc(sizeof(long long) * K * np);
    store(t, one, 1);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    store(t, base, 0);
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int k = 0; k < K; k++) {
        MPI_Fetch_and_op(one, out, t->dt, 0, 0, MPI_SUM, win);
        MPI_Win_flush(0, win);
        mine[k] = load(t, out);
        CHECK(k == 0 || mine[k] > mine[k - 1], "%s fetches not increasing", t->name);
    }
    MPI_Win_unlock_all(win);
    MPI_Gather(mine, K, MPI_LONG_LONG, all, K, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (me == 0) {
        char *seen = calloc((size_t)(np * K), 1);
        for (int i = 0; i < np * K; i++)
            if (all[i] >= 0 && all[i] < np * K)
                seen[all[i]]++;
        for (int i = 0; i < np * K; i++)
            CHECK(seen[i] == 1, "%s fetchandadd: value %d fetched %d times", t->name, i, seen[i]);
        CHECK(load(t, base) == np * K, "%s counter %lld", t->name, load(t, base));
        free(seen);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(all);
}

/* A spin lock by Compare_and_swap (lock word of the given type at element 0 of rank 0's
 * window) guarding a Get + Put increment of a counter at element 1: exact count. */
static void cas_lock_case(MPI_Win win, char *base, int ti, int iters)
{
    const type_t *t = &types[ti];
    char zero[8], mine[8], old[8], cnt[8];
    store(t, zero, 0);
    store(t, mine, me + 1);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    memset(base, 0, 16);
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < iters; i++) {
        do {
            MPI_Compare_and_swap(mine, zero, old, t->dt, 0, 0, win);
            MPI_Win_flush(0, win);
        } while (load(t, old) != 0);
        MPI_Get(cnt, 1, t->dt, 0, (MPI_Aint)t->size, 1, t->dt, win);
        MPI_Win_flush(0, win);
        store(t, cnt, load(t, cnt) + 1);
        MPI_Put(cnt, 1, t->dt, 0, (MPI_Aint)t->size, 1, t->dt, win);
        MPI_Win_flush(0, win);
        MPI_Compare_and_swap(zero, mine, old, t->dt, 0, 0, win);
        MPI_Win_flush(0, win);
        CHECK(load(t, old) == me + 1, "%s lock word %lld while held by %d", t->name, load(t, old),
              me + 1);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        CHECK(load(t, base + t->size) == (long long)np * iters, "%s CAS lock count %lld, want %d",
              t->name, load(t, base + t->size), np * iters);
        CHECK(load(t, base) == 0, "%s lock word left %lld", t->name, load(t, base));
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* (The window's displacement unit is 1: displacements are in bytes.)
 * Contended Accumulate SUM on neighbouring 4-byte elements: rank r adds to element r and to
 * element np (shared by all), so ranks update different halves of the same 8-byte words. */
static void acc_neighbours(MPI_Win win, char *base)
{
    int n = 200, one = 1, two = 2;
    int *w = (int *)base;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    for (int i = 0; i <= np; i++)
        w[i] = 0;
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < n; i++) {
        MPI_Accumulate(&one, 1, MPI_INT, 0, 4 * me, 1, MPI_INT, MPI_SUM, win);
        MPI_Accumulate(&two, 1, MPI_INT, 0, 4 * np, 1, MPI_INT, MPI_SUM, win);
        if (i % 50 == 0)
            MPI_Win_flush(0, win);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        for (int r = 0; r < np; r++)
            CHECK(w[r] == n, "int element %d: %d, want %d", r, w[r], n);
        CHECK(w[np] == 2 * n * np, "shared int element: %d, want %d", w[np], 2 * n * np);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Get_accumulate with MPI_REPLACE is an atomic swap and with MPI_NO_OP an atomic read: the
 * ranks take turns (a barrier between turns), each swapping in its values and reading back
 * the previous rank's. Also on a strided target (vector type) and in double. */
static void gacc_case(MPI_Win win, char *base)
{
    enum { N = 8 };
    int mine[N], old[N], now[N];
    double dm[N], dold[N];
    MPI_Datatype vec;
    MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    if (me == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        memset(base, 0, 4 * 2 * N + 8 * N);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int turn = 0; turn < np; turn++) {
        if (turn == me) {
            for (int i = 0; i < N; i++) {
                mine[i] = (me + 1) * 100 + i;
                dm[i] = (me + 1) * 0.5 + i;
            }
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
            MPI_Get_accumulate(mine, N, MPI_INT, old, N, MPI_INT, 0, 0, 1, vec, MPI_REPLACE, win);
            MPI_Get_accumulate(dm, N, MPI_DOUBLE, dold, N, MPI_DOUBLE, 0, 4 * 2 * N, N, MPI_DOUBLE,
                               MPI_REPLACE, win);
            MPI_Win_unlock(0, win);
            for (int i = 0; i < N; i++) {
                int want = me ? me * 100 + i : 0;
                double dwant = me ? me * 0.5 + i : 0;
                CHECK(old[i] == want, "Get_accumulate REPLACE old[%d] %d, want %d", i, old[i],
                      want);
                CHECK(dold[i] == dwant, "Get_accumulate REPLACE double old[%d] %g, want %g", i,
                      dold[i], dwant);
            }
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
            MPI_Get_accumulate(NULL, 0, MPI_INT, now, N, MPI_INT, 0, 0, 1, vec, MPI_NO_OP, win);
            MPI_Win_unlock(0, win);
            for (int i = 0; i < N; i++)
                CHECK(now[i] == mine[i], "Get_accumulate NO_OP [%d] %d, want %d", i, now[i],
                      mine[i]);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (me == 0) { /* the gaps of the vector are untouched */
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        for (int i = 0; i < N; i++)
            CHECK(((int *)base)[2 * i + 1] == 0, "gap %d written", 2 * i + 1);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Type_free(&vec);
}

static void run(MPI_Win win, char *base, const char *how)
{
    for (int ti = 0; ti < NTYPES; ti++)
        for (int opi = 0; opi < NOPS; opi++)
            if (!(ops[opi].ints_only && types[ti].kind == 2))
                fop_case(win, base, ti, opi, (ti + opi) % np);
    for (int ti = 0; ti < NTYPES; ti++)
        fadd_case(win, base, ti);
    for (int ti = 0; ti < NTYPES; ti++)
        if (types[ti].kind != 2)
            cas_lock_case(win, base, ti, types[ti].size == 1 ? 20 : 50);
    if (verbose && me == 0)
        printf("%s: fetch_and_op, fetchandadd, compare_and_swap done\n", how);
    acc_neighbours(win, base);
    gacc_case(win, base);
    if (me == 0 && errs)
        fprintf(stderr, "rank 0: %s window: errors\n", how);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    verbose = argc > 1;
    MPI_Aint bytes = 4096;
    char *base;
    MPI_Win win;
    MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    run(win, base, "allocated");
    MPI_Win_free(&win);
    MPI_Alloc_mem(bytes, MPI_INFO_NULL, &base);
    MPI_Win_create(base, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    run(win, base, "created");
    MPI_Win_free(&win);
    MPI_Free_mem(base);
    int all;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf(all ? "rma_chk_atomic: %d errors\n" : "rma_chk_atomic: ok\n", all);
    MPI_Finalize();
    return all != 0;
}
