/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The blocking collectives' large-count forms with per-rank counts past INT_MAX (MPI 4.0):
 * MPI_Bcast_c, Reduce_c, Allreduce_c (MPI_MAX, and user ops of both kinds), Reduce_local_c,
 * Gather_c (MPI_IN_PLACE at the root), Gatherv_c, every byte against a reference computed
 * here. Argument: the count in MiB (default: just past INT_MAX elements of one byte); a
 * small count runs the same-count calls through the int path (the make check slice).
 * Displacements past INT_MAX at any count: the v / w forms (Gatherv_c, Scatterv_c,
 * Allgatherv_c in place, Alltoallv_c, Alltoallw_c) on MPI_BOTTOM with the blocks' absolute
 * addresses as displacements (past an int on x86-64 Linux), which the int forms cannot take,
 * of MPI_BYTE (Alltoallw: a derived type); MPI_BOTTOM's block at displacement 0 of a basic type
 * is MPI_ERR_BUFFER;
 * Reduce_scatter_c, Reduce_scatter_block_c, Scan_c and Exscan_c with MPI_MAX.
 * Each of these runs blocking, non-blocking (MPI_Ixxx_c) and persistent (MPI_Xxx_init_c, started
 * twice); counts past INT_MAX of an empty type (no memory) check that every form takes them,
 * with predefined ops and with user ops (MPI_Op_create's given pieces of at most INT_MAX
 * elements of the program's type, MPI_Op_create_c's the whole count).
 */
#include <limits.h>
#include <stdbool.h>

#include "mpitest.h"

static int rank, size;
static int mode; /* 0 blocking, 1 non-blocking, 2 persistent */
static const char *const mode_name[] = {"blocking", "non-blocking", "persistent"};

/* One collective in the current mode: blk(args), nb(args, &req) and Wait, or init(args,
 * MPI_INFO_NULL, &req) and Start + Wait twice (the second start on the same buffers: every call
 * here gives the same result twice, in place or not), then Request_free. */
#define COLL(blk, nb, init, ...)                                                                   \
    do {                                                                                           \
        MPI_Request q_;                                                                            \
        if (mode == 0)                                                                             \
            CHECK_RC(blk(__VA_ARGS__));                                                            \
        else if (mode == 1) {                                                                      \
            CHECK_RC(nb(__VA_ARGS__, &q_));                                                        \
            CHECK_RC(MPI_Wait(&q_, MPI_STATUS_IGNORE));                                            \
        } else {                                                                                   \
            CHECK_RC(init(__VA_ARGS__, MPI_INFO_NULL, &q_));                                       \
            for (int k_ = 0; k_ < 2; k_++) {                                                       \
                CHECK_RC(MPI_Start(&q_));                                                          \
                CHECK_RC(MPI_Wait(&q_, MPI_STATUS_IGNORE));                                        \
            }                                                                                      \
            CHECK_RC(MPI_Request_free(&q_));                                                       \
        }                                                                                          \
    } while (0)

/* User ops: a MAX of unsigned char with int and MPI_Count lengths (non-commutative as
 * created, so the algorithms keep rank order), recording what they are given. */
static long long op_calls, op_total, op_max;
static int op_bad_type;
static MPI_Datatype op_want = MPI_UNSIGNED_CHAR;

static void op_seen(long long len, MPI_Datatype dt)
{
    op_calls++;
    op_total += len;
    op_max = len > op_max ? len : op_max;
    op_bad_type += dt != op_want;
}

static void umax_bytes(const unsigned char *in, unsigned char *io, MPI_Count len, MPI_Datatype dt)
{
    if (dt == MPI_UNSIGNED_CHAR)
        for (MPI_Count i = 0; i < len; i++)
            io[i] = in[i] > io[i] ? in[i] : io[i];
}

static void umax(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    op_seen(*len, *dt);
    umax_bytes(in, inout, *len, *dt);
}

static void umax_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    op_seen(*len, *dt);
    umax_bytes(in, inout, *len, *dt);
}

static void op_reset(MPI_Datatype want)
{
    op_calls = op_total = op_max = 0;
    op_bad_type = 0;
    op_want = want;
}

static void bcast(MPI_Count n)
{
    unsigned char *b = malloc((size_t)n);
    CHECK(b);
    if (rank == 0)
        mt_fill(b, (size_t)n, 11);
    else
        memset(b, 0, (size_t)n);
    COLL(MPI_Bcast_c, MPI_Ibcast_c, MPI_Bcast_init_c, b, n, MPI_UNSIGNED_CHAR, 0, MPI_COMM_WORLD);
    for (size_t i = 0; i < (size_t)n; i++)
        if (b[i] != mt_pattern(11, i))
            CHECK(!"Bcast_c: byte differs");
    free(b);
}

/* Rank r's contribution at i, and the MAX over all ranks. */
static unsigned char part(int r, size_t i)
{
    return mt_pattern(20 + r, i);
}

static unsigned char max_part(size_t i)
{
    unsigned char m = 0;
    for (int k = 0; k < size; k++)
        m = part(k, i) > m ? part(k, i) : m;
    return m;
}

/* Allreduce_c and Reduce_c with MPI_MAX, then Allreduce_c with the int user op and Reduce_c
 * with the MPI_Count one (past INT_MAX: called on pieces of at most INT_MAX bytes, and once
 * with the whole count), then Reduce_local_c with both; user_only: the user ops' collectives. */
static void reductions(MPI_Count n, bool user_only)
{
    unsigned char *s = malloc((size_t)n), *r = malloc((size_t)n);
    CHECK(s && r);
    MPI_Op ops[3] = {MPI_MAX, MPI_MAX, MPI_MAX};
    CHECK_RC(MPI_Op_create(umax, 0, &ops[1]));
    CHECK_RC(MPI_Op_create_c(umax_c, 0, &ops[2]));
    for (size_t i = 0; i < (size_t)n; i++)
        s[i] = part(rank, i);
    for (int u = user_only; u < 2; u++) { /* predefined, then user ops (int: Allreduce) */
        op_reset(MPI_UNSIGNED_CHAR);
        COLL(MPI_Allreduce_c, MPI_Iallreduce_c, MPI_Allreduce_init_c, s, r, n, MPI_UNSIGNED_CHAR,
             ops[u], MPI_COMM_WORLD);
        for (size_t i = 0; i < (size_t)n; i++)
            if (r[i] != max_part(i))
                CHECK(!"Allreduce_c: byte differs");
        CHECK(op_bad_type == 0 && op_max <= INT_MAX);
        memset(r, 0, (size_t)n);
        COLL(MPI_Reduce_c, MPI_Ireduce_c, MPI_Reduce_init_c, s, r, n, MPI_UNSIGNED_CHAR, ops[2 * u],
             size - 1, MPI_COMM_WORLD);
        if (rank == size - 1)
            for (size_t i = 0; i < (size_t)n; i++)
                if (r[i] != max_part(i))
                    CHECK(!"Reduce_c: byte differs");
        CHECK(op_bad_type == 0);
    }
    if (rank == 0 && !user_only) /* Reduce_local_c: r = max(s, 0) = s, each kind of user op */
        for (int o = 1; o < 3; o++) {
            memset(r, 0, (size_t)n);
            op_reset(MPI_UNSIGNED_CHAR);
            CHECK_RC(MPI_Reduce_local_c(s, r, n, MPI_UNSIGNED_CHAR, ops[o]));
            CHECK(op_total == n && op_bad_type == 0);
            CHECK(o == 1 ? op_max <= INT_MAX : op_calls == 1);
            if (memcmp(r, s, (size_t)n) != 0)
                CHECK(!"Reduce_local_c: byte differs");
        }
    CHECK_RC(MPI_Op_free(&ops[1]));
    CHECK_RC(MPI_Op_free(&ops[2]));
    free(s);
    free(r);
}

static void gathers(MPI_Count n)
{
    size_t all = (size_t)n * (size_t)size;
    unsigned char *g = malloc(rank == 0 ? all : (size_t)n);
    CHECK(g);
    mt_fill(g, (size_t)n, 30 + rank); /* the root's own block: in place at offset 0 */
    COLL(MPI_Gather_c, MPI_Igather_c, MPI_Gather_init_c, rank == 0 ? MPI_IN_PLACE : g, n, MPI_BYTE,
         g, n, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int k = 0; k < size; k++)
            for (size_t i = 0; i < (size_t)n; i++)
                if (g[(size_t)k * (size_t)n + i] != mt_pattern(30 + k, i))
                    CHECK(!"Gather_c: byte differs");
    free(g);
}

/* Absolute address of p: a displacement from MPI_BOTTOM. */
static MPI_Aint addr(const void *p)
{
    MPI_Aint a;
    CHECK_RC(MPI_Get_address(p, &a));
    return a;
}

static bool same(const unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != mt_pattern(seed, i))
            return false;
    return true;
}

/* Block k of n bytes of each side (np of them), as MPI_BOTTOM displacements. */
static void blocks_of(unsigned char *buf, size_t n, MPI_Count *counts, MPI_Aint *displs, int np)
{
    for (int k = 0; k < np; k++) {
        counts[k] = (MPI_Count)n;
        displs[k] = addr(buf + (size_t)k * n);
    }
}

static void blocks(unsigned char *buf, size_t n, MPI_Count *counts, MPI_Aint *displs)
{
    blocks_of(buf, n, counts, displs, size);
}

/* The blocks at MPI_BOTTOM are of MPI_BYTE (a basic type at absolute displacements, MPI 4.1
 * section 4.1.12), Alltoallw's of this one-byte derived type. */
static MPI_Datatype byte1;

static void vforms(size_t n, bool big)
{
    CHECK_RC(MPI_Type_contiguous(1, MPI_BYTE, &byte1));
    CHECK_RC(MPI_Type_commit(&byte1));
    size_t all = n * (size_t)size;
    MPI_Count *sc = malloc(sizeof(*sc) * (size_t)size), *rc = malloc(sizeof(*rc) * (size_t)size);
    MPI_Aint *sd = malloc(sizeof(*sd) * (size_t)size), *rd = malloc(sizeof(*rd) * (size_t)size);
    unsigned char *a = malloc(rank == 0 || !big ? all : n), *b = big ? NULL : malloc(all);
    CHECK(sc && rc && sd && rd && a && (big || b));
    CHECK(addr(a) > INT_MAX); /* else this test would not leave the int path */
    /* Gatherv_c: every rank's n bytes to the root at MPI_BOTTOM + address (the root's own
     * block in place) */
    mt_fill(a, n, 40 + rank);
    if (rank == 0)
        blocks(a, n, rc, rd);
    COLL(MPI_Gatherv_c, MPI_Igatherv_c, MPI_Gatherv_init_c, rank == 0 ? MPI_IN_PLACE : a,
         (MPI_Count)n, MPI_BYTE, MPI_BOTTOM, rc, rd, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (int k = 0; rank == 0 && k < size; k++)
        CHECK(same(a + (size_t)k * n, n, 40 + k));
    if (big) {
        free(a);
        free(sc), free(rc), free(sd), free(rd);
        MPI_Type_free(&byte1);
        return;
    }
    /* Scatterv_c: the root's blocks from MPI_BOTTOM + address */
    if (rank == 0)
        for (int k = 0; k < size; k++)
            mt_fill(a + (size_t)k * n, n, 50 + k);
    blocks(a, n, sc, sd);
    memset(b, 0, n);
    COLL(MPI_Scatterv_c, MPI_Iscatterv_c, MPI_Scatterv_init_c, MPI_BOTTOM, sc, sd, MPI_BYTE, b,
         (MPI_Count)n, MPI_BYTE, 0, MPI_COMM_WORLD);
    CHECK(same(b, n, 50 + rank));
    /* Allgatherv_c in place: each rank's own block, then everyone's */
    memset(a, 0, all);
    mt_fill(a + (size_t)rank * n, n, 60 + rank);
    blocks(a, n, rc, rd);
    COLL(MPI_Allgatherv_c, MPI_Iallgatherv_c, MPI_Allgatherv_init_c, MPI_IN_PLACE, 0,
         MPI_DATATYPE_NULL, MPI_BOTTOM, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
    for (int k = 0; k < size; k++)
        CHECK(same(a + (size_t)k * n, n, 60 + k));
    /* Alltoallv_c and Alltoallw_c: block k of rank r, seeded 70 + 8 r + k, to rank k */
    for (int w = 0; w < 2; w++) {
        for (int k = 0; k < size; k++)
            mt_fill(a + (size_t)k * n, n, 70 + 8 * rank + k + w);
        memset(b, 0, all);
        blocks(a, n, sc, sd);
        blocks(b, n, rc, rd);
        if (w) {
            MPI_Datatype *t = malloc(sizeof(*t) * (size_t)size);
            CHECK(t);
            for (int k = 0; k < size; k++)
                t[k] = byte1;
            COLL(MPI_Alltoallw_c, MPI_Ialltoallw_c, MPI_Alltoallw_init_c, MPI_BOTTOM, sc, sd, t,
                 MPI_BOTTOM, rc, rd, t, MPI_COMM_WORLD);
            free(t);
        } else
            COLL(MPI_Alltoallv_c, MPI_Ialltoallv_c, MPI_Alltoallv_init_c, MPI_BOTTOM, sc, sd,
                 MPI_BYTE, MPI_BOTTOM, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
        for (int k = 0; k < size; k++)
            CHECK(same(b + (size_t)k * n, n, 70 + 8 * k + rank + w));
    }
    /* the reduce-scatters and scans, MPI_MAX of part(k, i) */
    for (size_t i = 0; i < all; i++)
        a[i] = part(rank, i);
    for (int k = 0; k < size; k++)
        rc[k] = (MPI_Count)n;
    COLL(MPI_Reduce_scatter_c, MPI_Ireduce_scatter_c, MPI_Reduce_scatter_init_c, a, b, rc,
         MPI_UNSIGNED_CHAR, MPI_MAX, MPI_COMM_WORLD);
    unsigned char *c = malloc(all);
    CHECK(c);
    COLL(MPI_Reduce_scatter_block_c, MPI_Ireduce_scatter_block_c, MPI_Reduce_scatter_block_init_c,
         a, c, (MPI_Count)n, MPI_UNSIGNED_CHAR, MPI_MAX, MPI_COMM_WORLD);
    for (size_t i = 0; i < n; i++) {
        size_t at = (size_t)rank * n + i;
        unsigned char m = 0;
        for (int k = 0; k < size; k++)
            m = part(k, at) > m ? part(k, at) : m;
        CHECK(b[i] == m && c[i] == m);
    }
    COLL(MPI_Scan_c, MPI_Iscan_c, MPI_Scan_init_c, a, b, (MPI_Count)all, MPI_UNSIGNED_CHAR, MPI_MAX,
         MPI_COMM_WORLD);
    COLL(MPI_Exscan_c, MPI_Iexscan_c, MPI_Exscan_init_c, a, c, (MPI_Count)all, MPI_UNSIGNED_CHAR,
         MPI_MAX, MPI_COMM_WORLD);
    for (size_t i = 0; i < all; i++) {
        unsigned char m = 0, x = 0;
        for (int k = 0; k <= rank; k++) {
            x = k == rank ? m : x;
            m = part(k, i) > m ? part(k, i) : m;
        }
        CHECK(b[i] == m && (rank == 0 || c[i] == x));
    }
    free(a), free(b), free(c);
    free(sc), free(rc), free(sd), free(rd);
    MPI_Type_free(&byte1);
}

/* Counts past INT_MAX of an empty type (contiguous, 0 ints): every form takes them, no byte
 * moves (the buffers keep their values). Reduce_scatter_c's blocks sum past an int: the
 * Reduce + Scatterv path. */
static void empty_counts(void)
{
    MPI_Datatype e;
    CHECK_RC(MPI_Type_contiguous(0, MPI_INT, &e));
    CHECK_RC(MPI_Type_commit(&e));
    MPI_Count big = (MPI_Count)INT_MAX + 9, *cs = malloc(sizeof(*cs) * (size_t)size);
    MPI_Aint *ds = calloc((size_t)size, sizeof(*ds));
    CHECK(cs && ds);
    for (int k = 0; k < size; k++)
        cs[k] = big;
    int x = 5, y = 7;
    COLL(MPI_Bcast_c, MPI_Ibcast_c, MPI_Bcast_init_c, &x, big, e, 0, MPI_COMM_WORLD);
    COLL(MPI_Allreduce_c, MPI_Iallreduce_c, MPI_Allreduce_init_c, &x, &y, big, e, MPI_SUM,
         MPI_COMM_WORLD);
    COLL(MPI_Gather_c, MPI_Igather_c, MPI_Gather_init_c, &x, big, e, &y, big, e, 0, MPI_COMM_WORLD);
    COLL(MPI_Alltoallv_c, MPI_Ialltoallv_c, MPI_Alltoallv_init_c, &x, cs, ds, e, &y, cs, ds, e,
         MPI_COMM_WORLD);
    COLL(MPI_Allgatherv_c, MPI_Iallgatherv_c, MPI_Allgatherv_init_c, &x, big, e, &y, cs, ds, e,
         MPI_COMM_WORLD);
    COLL(MPI_Reduce_scatter_c, MPI_Ireduce_scatter_c, MPI_Reduce_scatter_init_c, &x, &y, cs, e,
         MPI_SUM, MPI_COMM_WORLD);
    COLL(MPI_Reduce_scatter_c, MPI_Ireduce_scatter_c, MPI_Reduce_scatter_init_c, MPI_IN_PLACE, &y,
         cs, e, MPI_SUM, MPI_COMM_WORLD);
    COLL(MPI_Exscan_c, MPI_Iexscan_c, MPI_Exscan_init_c, &x, &y, big, e, MPI_SUM, MPI_COMM_WORLD);
    CHECK(x == 5 && y == 7);
    CHECK_RC(MPI_Type_free(&e));
    free(cs), free(ds);
}

/* User ops on counts past INT_MAX of an empty type: every reduction in this mode calls the int
 * function on pieces of at most INT_MAX elements of the program's type, the MPI_Count one on
 * whole multiples of the count (never MPI_ERR_COUNT); summed over the ranks, the lengths are
 * whole multiples of the count. Reduce_local_c the same with a 1-byte type of extent 0. */
static void user_op_counts(void)
{
    MPI_Datatype e, z;
    CHECK_RC(MPI_Type_contiguous(0, MPI_INT, &e));
    CHECK_RC(MPI_Type_commit(&e));
    MPI_Count big = (MPI_Count)INT_MAX + 9, *cs = malloc(sizeof(*cs) * (size_t)size);
    CHECK(cs);
    for (int k = 0; k < size; k++)
        cs[k] = big;
    MPI_Op ops[2];
    CHECK_RC(MPI_Op_create(umax, 0, &ops[0]));
    CHECK_RC(MPI_Op_create_c(umax_c, 1, &ops[1]));
    int x = 5, y = 7;
    for (int u = 0; u < 2; u++) {
        op_reset(e);
        COLL(MPI_Allreduce_c, MPI_Iallreduce_c, MPI_Allreduce_init_c, &x, &y, big, e, ops[u],
             MPI_COMM_WORLD);
        COLL(MPI_Reduce_c, MPI_Ireduce_c, MPI_Reduce_init_c, &x, &y, big, e, ops[u], 0,
             MPI_COMM_WORLD);
        COLL(MPI_Reduce_scatter_block_c, MPI_Ireduce_scatter_block_c,
             MPI_Reduce_scatter_block_init_c, &x, &y, big, e, ops[u], MPI_COMM_WORLD);
        COLL(MPI_Reduce_scatter_c, MPI_Ireduce_scatter_c, MPI_Reduce_scatter_init_c, &x, &y, cs, e,
             ops[u], MPI_COMM_WORLD);
        COLL(MPI_Scan_c, MPI_Iscan_c, MPI_Scan_init_c, &x, &y, big, e, ops[u], MPI_COMM_WORLD);
        COLL(MPI_Exscan_c, MPI_Iexscan_c, MPI_Exscan_init_c, &x, &y, big, e, ops[u],
             MPI_COMM_WORLD);
        long long total = 0;
        CHECK_RC(MPI_Allreduce(&op_total, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
        /* the schedules skip a type of no bytes: the op is called in blocking mode only (and
         * one process combines nothing) */
        CHECK(op_bad_type == 0 && (total > 0 || mode > 0 || size == 1) && total % big == 0);
        CHECK(u == 0 ? op_max <= INT_MAX : op_total % big == 0);
    }
    CHECK(x == 5 && y == 7);
    CHECK_RC(MPI_Type_create_resized(MPI_UNSIGNED_CHAR, 0, 0, &z));
    CHECK_RC(MPI_Type_commit(&z));
    unsigned char a = 3, b = 1;
    for (int u = 0; u < 2; u++) {
        op_reset(z);
        CHECK_RC(MPI_Reduce_local_c(&a, &b, big, z, ops[u]));
        CHECK(op_bad_type == 0 && op_total == big && op_calls == (u == 0 ? 2 : 1));
    }
    CHECK_RC(MPI_Op_free(&ops[0]));
    CHECK_RC(MPI_Op_free(&ops[1]));
    CHECK_RC(MPI_Type_free(&e));
    CHECK_RC(MPI_Type_free(&z));
    free(cs);
}

/* Intercommunicators (two groups of a split world, even and odd ranks): blocks past an int
 * take per-peer types there too. Gatherv_c / Scatterv_c rooted at the first group's rank 0,
 * Allgatherv_c and Alltoallv_c of MPI_BYTE at MPI_BOTTOM with absolute addresses (past an int)
 * as displacements, every byte checked; counts past INT_MAX of an empty type through Gatherv_c,
 * Allgatherv_c, Alltoallw_c and Reduce_scatter_block_c (with a user op); a Reduce_scatter_c
 * whose counts sum past an int is MPI_ERR_COUNT there. */
static void inter_counts(void)
{
    MPI_Comm half, inter;
    int color = rank % 2, lrank, rsize;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half));
    CHECK_RC(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, !color, 33, &inter));
    CHECK_RC(MPI_Comm_rank(half, &lrank));
    CHECK_RC(MPI_Comm_remote_size(inter, &rsize));
    const size_t n = 1000;
    unsigned char *a = malloc(n * (size_t)rsize), *b = malloc(n * (size_t)rsize);
    MPI_Count *cs = malloc(sizeof(*cs) * (size_t)rsize), *rs = malloc(sizeof(*rs) * (size_t)rsize);
    MPI_Aint *sd = malloc(sizeof(*sd) * (size_t)rsize), *rd = malloc(sizeof(*rd) * (size_t)rsize);
    CHECK(a && b && cs && rs && sd && rd && addr(a) > INT_MAX);
    /* Gatherv_c: the second group's blocks to the first group's rank 0, at MPI_BOTTOM */
    int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    mt_fill(a, n, 90 + lrank);
    if (root == MPI_ROOT)
        blocks_of(a, n, rs, rd, rsize);
    COLL(MPI_Gatherv_c, MPI_Igatherv_c, MPI_Gatherv_init_c, a, (MPI_Count)n, MPI_BYTE, MPI_BOTTOM,
         rs, rd, MPI_BYTE, root, inter);
    for (int k = 0; root == MPI_ROOT && k < rsize; k++)
        CHECK(same(a + (size_t)k * n, n, 90 + k));
    /* Scatterv_c back from there */
    if (root == MPI_ROOT)
        for (int k = 0; k < rsize; k++)
            mt_fill(a + (size_t)k * n, n, 100 + k);
    blocks_of(a, n, cs, sd, rsize);
    memset(b, 0, n);
    COLL(MPI_Scatterv_c, MPI_Iscatterv_c, MPI_Scatterv_init_c, MPI_BOTTOM, cs, sd, MPI_BYTE, b,
         (MPI_Count)n, MPI_BYTE, root, inter);
    if (color == 1)
        CHECK(same(b, n, 100 + lrank));
    /* Allgatherv_c: each remote process's block at its address */
    mt_fill(b, n, 110 + 16 * color + lrank);
    blocks_of(a, n, rs, rd, rsize);
    COLL(MPI_Allgatherv_c, MPI_Iallgatherv_c, MPI_Allgatherv_init_c, b, (MPI_Count)n, MPI_BYTE,
         MPI_BOTTOM, rs, rd, MPI_BYTE, inter);
    for (int k = 0; k < rsize; k++)
        CHECK(same(a + (size_t)k * n, n, 110 + 16 * !color + k));
    /* Alltoallv_c: block k of local rank r, seeded 130 + 16 color + 4 r + k, to remote rank k */
    for (int k = 0; k < rsize; k++)
        mt_fill(a + (size_t)k * n, n, 130 + 16 * color + 4 * lrank + k);
    blocks_of(a, n, cs, sd, rsize);
    blocks_of(b, n, rs, rd, rsize);
    COLL(MPI_Alltoallv_c, MPI_Ialltoallv_c, MPI_Alltoallv_init_c, MPI_BOTTOM, cs, sd, MPI_BYTE,
         MPI_BOTTOM, rs, rd, MPI_BYTE, inter);
    for (int k = 0; k < rsize; k++)
        CHECK(same(b + (size_t)k * n, n, 130 + 16 * !color + 4 * k + lrank));
    /* counts past INT_MAX of an empty type */
    MPI_Datatype e, *ts = malloc(sizeof(*ts) * (size_t)rsize);
    CHECK(ts);
    CHECK_RC(MPI_Type_contiguous(0, MPI_INT, &e));
    CHECK_RC(MPI_Type_commit(&e));
    MPI_Count big = (MPI_Count)INT_MAX + 9;
    for (int k = 0; k < rsize; k++)
        cs[k] = big, sd[k] = 0, ts[k] = e;
    int x = 5, y = 7;
    COLL(MPI_Gatherv_c, MPI_Igatherv_c, MPI_Gatherv_init_c, &x, big, e, &y, cs, sd, e, root, inter);
    COLL(MPI_Allgatherv_c, MPI_Iallgatherv_c, MPI_Allgatherv_init_c, &x, big, e, &y, cs, sd, e,
         inter);
    COLL(MPI_Alltoallw_c, MPI_Ialltoallw_c, MPI_Alltoallw_init_c, &x, cs, sd, ts, &y, cs, sd, ts,
         inter);
    MPI_Op op;
    CHECK_RC(MPI_Op_create(umax, 0, &op));
    COLL(MPI_Reduce_scatter_block_c, MPI_Ireduce_scatter_block_c, MPI_Reduce_scatter_block_init_c,
         &x, &y, big, e, op, inter);
    CHECK(x == 5 && y == 7);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int lsize, cls;
    CHECK_RC(MPI_Comm_size(half, &lsize));
    MPI_Count *ls = malloc(sizeof(*ls) * (size_t)lsize);
    CHECK(ls);
    for (int k = 0; k < lsize; k++)
        ls[k] = big;
    MPI_Error_class(MPI_Reduce_scatter_c(&x, &y, ls, e, MPI_SUM, inter), &cls);
    CHECK(cls == MPI_ERR_COUNT);
    CHECK_RC(MPI_Op_free(&op));
    CHECK_RC(MPI_Type_free(&e));
    CHECK_RC(MPI_Comm_free(&inter));
    CHECK_RC(MPI_Comm_free(&half));
    free(a), free(b), free(cs), free(rs), free(sd), free(rd), free(ts), free(ls);
}

/* A derived type freed while its non-blocking reduction runs (MPI allows it): the schedule's
 * step keeps its own reference and applies the op on it, not on the freed handle (which the
 * next type may take). Before, the reduction failed or used the other type. */
static void freed_type(void)
{
    MPI_Datatype t, other;
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_RC(MPI_Type_commit(&t));
    int s[4] = {rank, 1, rank + 2, 3}, r[4] = {0};
    MPI_Request q;
    CHECK_RC(MPI_Iallreduce(s, r, 2, t, MPI_SUM, MPI_COMM_WORLD, &q));
    CHECK_RC(MPI_Type_free(&t));
    CHECK_RC(MPI_Type_contiguous(3, MPI_CHAR, &other)); /* may take the freed handle */
    CHECK_RC(MPI_Type_commit(&other));
    CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
    int ranks = size * (size - 1) / 2;
    CHECK(r[0] == ranks && r[1] == size && r[2] == ranks + 2 * size && r[3] == 3 * size);
    CHECK_RC(MPI_Type_free(&other));
}

static void errors(void)
{
    int rc, cls;
    /* MPI_BOTTOM with a basic type: a block at displacement 0 would be at address 0 */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Count one = 1;
    MPI_Aint zero = 0;
    rc = MPI_Gatherv_c(MPI_IN_PLACE, 0, MPI_BYTE, MPI_BOTTOM, &one, &zero, MPI_BYTE, 0,
                       MPI_COMM_SELF);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER);
    int ione = 1, izero = 0;
    rc = MPI_Scatterv(MPI_BOTTOM, &ione, &izero, MPI_BYTE, MPI_IN_PLACE, 0, MPI_BYTE, 0,
                      MPI_COMM_SELF);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER);
    /* past INT_MAX elements of a type with gaps: refused on MPI_COMM_SELF's handler (returns),
     * not on MPI_COMM_WORLD's (fatal), before any byte is read */
    MPI_Datatype g;
    CHECK_RC(MPI_Type_create_resized(MPI_BYTE, 0, 2, &g));
    CHECK_RC(MPI_Type_commit(&g));
    MPI_Count gbig = (MPI_Count)INT_MAX + 9;
    rc = MPI_Bcast_c(&ione, gbig, g, 0, MPI_COMM_SELF);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION);
    rc = MPI_Gatherv_c(&ione, 0, g, &izero, &gbig, &zero, g, 0, MPI_COMM_SELF);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_RC(MPI_Type_free(&g));
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Count n = argc > 1 ? (MPI_Count)atoll(argv[1]) << 20 : (MPI_Count)INT_MAX + 9;
    /* past INT_MAX (make check-large): every form of Bcast_c, Gatherv_c and the user ops'
     * Allreduce_c / Reduce_c, the rest blocking */
    bool big = n > INT_MAX;
    errors();
    freed_type();
    for (mode = 0; mode < 3; mode++) {
        empty_counts();
        user_op_counts();
        if (size > 1)
            inter_counts();
        bcast(n);
        reductions(n, big && mode > 0);
        if (!big || mode == 0)
            gathers(n);
        vforms(big ? (size_t)n : (size_t)n / 4, big);
        if (rank == 0)
            printf("large_coll: %s forms ok\n", mode_name[mode]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("large_coll: ok\n");
    MPI_Finalize();
    return 0;
}
