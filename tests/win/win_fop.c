/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Fetch_and_op and one-element MPI_Accumulate on MPI_Win_allocate, MPI_Win_allocate_shared
 * (when every rank is on one node) and MPI_Win_create windows of WIN_BYTES bytes with
 * displacement unit 1:
 * - a contended ticket counter at rank 0: every rank takes TICKETS tickets by Fetch_and_op
 *   MPI_SUM of 1, each flushed; every fetched value is distinct, together they are exactly
 *   start .. start + TICKETS * size - 1, each rank's increase, and the final value is exact;
 * - every op on MPI_INT64_T and MPI_UINT64_T (SUM, PROD, MAX, MIN, BAND, BOR, BXOR, LAND, LOR,
 *   LXOR, REPLACE, NO_OP) and on MPI_DOUBLE (SUM, PROD, MAX, MIN, REPLACE, NO_OP), at the right
 *   neighbour, with values where the sign matters: the old value comes back and the new one is
 *   the reference's, by Fetch_and_op, by a one-element Get_accumulate and by Accumulate, under
 *   Win_lock_all + flush, Win_lock + flush and fence;
 * - on one word of rank 0, every rank mixes Fetch_and_op SUM, Accumulate SUM, Get_accumulate
 *   SUM and Compare_and_swap increment loops (MPI_INT64_T), and Fetch_and_op / Accumulate SUM
 *   of integral doubles (MPI_DOUBLE): the final values are exact;
 * - on one word of rank 0, every rank swaps in values of its own by Fetch_and_op and
 *   Get_accumulate REPLACE and adds by Fetch_and_op SUM: every value the word took is
 *   distinct, so the (returned, installed) pairs of all ranks must chain from the first value
 *   to the final one, each used once (a lost update leaves two pairs from one value); then
 *   each rank alone REPLACEs and Accumulates SUM / REPLACE on a word of its own;
 * - MPI_INT (4 bytes) Fetch_and_op and Accumulate SUM from every rank, the int beside it
 *   untouched; an 8-byte element off its 8-byte boundary, the last aligned word;
 * - MPI_PROC_NULL (succeeds, result untouched); no epoch open (MPI_ERR_RMA_SYNC) and out of
 *   the window (MPI_ERR_RMA_RANGE) under MPI_ERRORS_RETURN, neither changing anything.
 * With Ibex's MPI_T counters ibex_win_short_fop and ibex_win_short_acc (another MPI: the data
 * checks only), every section checks exactly how many Fetch_and_ops (and one-element
 * Get_accumulates) and Accumulates took the shared mapping's short path: every 8-byte aligned
 * one in an epoch and in range on a window on the shared mapping (allocate and
 * allocate_shared when every rank is on one node, unless MT_WIN_AM or MT_WIN_RDMA says the
 * library was told IBEX_WIN_DIRECT=0), none for MPI_INT, unaligned elements, MPI_PROC_NULL,
 * errors or Win_create memory. With MT_WIN_RDMA (IBEX_WIN_DIRECT=0, the network direct path)
 * ibex_win_short_rfop and ibex_win_short_racc count likewise the Fetch_and_ops (and
 * one-element Get_accumulates) and the one-element Accumulates of the network direct path's
 * short path on allocate and create windows: exactly the 8-byte aligned ones of MPI_SUM on an
 * integer or of MPI_NO_OP (one remote fetch-and-add; an Accumulate's result discarded) and
 * of MPI_REPLACE on any 8-byte type (a remote compare-and-swap loop); the other ops (a
 * compare-and-swap loop computing the op) go the general way, so the mixed section runs the
 * short path's fetch-and-adds, the general path's loops on the double and the short path's
 * CAS on one word; with MT_SOFTIB softib's counters show one atomic per ticket (the ticket
 * loop posts nothing else, and no READ or WRITE), one per REPLACE of a rank's own word (the
 * loop's guess, the value it left there, is right) and one per Accumulate SUM.
 */
#include "win_short.h"

#define WIN_BYTES   132 /* 16 words and 4 bytes: the last 8 bytes are off the boundary */
#define OFF_TICKET  0   /* the ticket counter at rank 0 */
#define OFF_MIX     8   /* the mixed MPI_INT64_T word at rank 0 */
#define OFF_DMIX    16  /* the mixed MPI_DOUBLE word at rank 0 */
#define OFF_INT     24  /* the mixed int (MPI_INT) and ... */
#define OFF_BESIDE  28  /* ... the int beside it, untouched */
#define OFF_OPS     32  /* the op checks (each rank at its right neighbour) */
#define OFF_ODD     44  /* an 8-byte element off its boundary */
#define OFF_ERR     64  /* the error checks' word */
#define OFF_SWAP    72  /* the contended REPLACE / SUM word at rank 0 */
#define OFF_OWN     80  /* each rank's own word at its right neighbour */
#define OFF_LAST    120 /* the last aligned word */
#define TICKETS     200 /* per rank; TICKETS_MAP on the shared mapping (cheap there) */
#define TICKETS_MAP 2000
#define MIX_OPS     120
#define MIX_OPS_MAP 1000
#define SWAPS       150 /* per rank; SWAPS_MAP on the shared mapping */
#define SWAPS_MAP   1000
#define SENTINEL    0xa5a5a5a5a5a5a5a5ull

enum { K_FOP, K_ACC, K_RFOP, K_RACC, NK }; /* the counters */

typedef enum { T_I64, T_U64, T_DBL } tk_t;

/* ibex_win_short_fop, _acc, _rfop, _racc (win_short.h) */
static const char *const k_names[NK] = {"ibex_win_short_fop", "ibex_win_short_acc",
                                        "ibex_win_short_rfop", "ibex_win_short_racc"};
static const char *const k_what[NK] = {"Fetch_and_ops", "Accumulates",
                                       "Fetch_and_ops on the network direct path's",
                                       "Accumulates on the network direct path's"};

static bool will_short(int bytes, int target, MPI_Aint disp)
{
    return win_mapped && target != MPI_PROC_NULL && bytes == 8 && disp % 8 == 0 && disp >= 0 &&
           disp + 8 <= WIN_BYTES;
}

/* The network direct path's short path: what the general path sends as one fetch-and-add, and
 * REPLACE (its compare-and-swap loop) */
static bool will_rshort(MPI_Datatype dt, MPI_Op op, int target, MPI_Aint disp)
{
    bool fadd = op == MPI_NO_OP || op == MPI_REPLACE ||
                (op == MPI_SUM && (dt == MPI_INT64_T || dt == MPI_UINT64_T));
    int bytes;
    MPI_Type_size(dt, &bytes);
    return win_rdma && fadd && target != MPI_PROC_NULL && bytes == 8 && disp % 8 == 0 &&
           disp >= 0 && disp + 8 <= WIN_BYTES;
}

/* ---- the operations, counted when they should take the short path (an epoch is open) ---- */

static int fop_rc(MPI_Win win, MPI_Datatype dt, const void *in, void *res, MPI_Op op, int target,
                  MPI_Aint disp)
{
    int bytes;
    MPI_Type_size(dt, &bytes);
    int rc = MPI_Fetch_and_op(in, res, dt, target, disp, op, win);
    if (rc == MPI_SUCCESS && will_short(bytes, target, disp))
        sc.want[K_FOP]++;
    if (rc == MPI_SUCCESS && will_rshort(dt, op, target, disp))
        sc.want[K_RFOP]++;
    return rc;
}

static int gacc_rc(MPI_Win win, MPI_Datatype dt, const void *in, void *res, MPI_Op op, int target,
                   MPI_Aint disp)
{
    int rc = MPI_Get_accumulate(in, 1, dt, res, 1, dt, target, disp, 1, dt, op, win);
    if (rc == MPI_SUCCESS && will_short(8, target, disp))
        sc.want[K_FOP]++;
    if (rc == MPI_SUCCESS && will_rshort(dt, op, target, disp))
        sc.want[K_RFOP]++;
    return rc;
}

static int acc_rc(MPI_Win win, MPI_Datatype dt, const void *in, MPI_Op op, int target,
                  MPI_Aint disp)
{
    int bytes;
    MPI_Type_size(dt, &bytes);
    int rc = MPI_Accumulate(in, 1, dt, target, disp, 1, dt, op, win);
    if (rc == MPI_SUCCESS && will_short(bytes, target, disp))
        sc.want[K_ACC]++;
    if (rc == MPI_SUCCESS && will_rshort(dt, op, target, disp))
        sc.want[K_RACC]++;
    return rc;
}

/* Fetch_and_op of an 8-byte type then flush: the old value's bits. */
static uint64_t fop8(MPI_Win win, MPI_Datatype dt, uint64_t in, MPI_Op op, int target,
                     MPI_Aint disp)
{
    uint64_t res = SENTINEL;
    CHECK_RC(fop_rc(win, dt, &in, &res, op, target, disp));
    CHECK_RC(MPI_Win_flush(target, win));
    return res;
}

static uint64_t read8(MPI_Win win, MPI_Datatype dt, int target, MPI_Aint disp)
{
    return fop8(win, dt, 0, MPI_NO_OP, target, disp);
}

static uint64_t dbits(double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    return v;
}

static double dval(uint64_t v)
{
    double d;
    memcpy(&d, &v, 8);
    return d;
}

/* ---- the reference: old op in, on the bits of an 8-byte type ---- */

static uint64_t ref_int(tk_t k, MPI_Op op, uint64_t old, uint64_t in)
{
    int64_t so = (int64_t)old, si = (int64_t)in;
    bool lt = k == T_I64 ? si < so : in < old; /* in < old in the type's order */
    if (op == MPI_SUM)
        return old + in;
    if (op == MPI_PROD)
        return old * in; /* the values chosen never overflow int64_t */
    if (op == MPI_MAX)
        return lt ? old : in;
    if (op == MPI_MIN)
        return lt ? in : old;
    if (op == MPI_BAND)
        return old & in;
    if (op == MPI_BOR)
        return old | in;
    if (op == MPI_BXOR)
        return old ^ in;
    if (op == MPI_LAND)
        return (old != 0) && (in != 0);
    if (op == MPI_LOR)
        return (old != 0) || (in != 0);
    if (op == MPI_LXOR)
        return (old != 0) != (in != 0);
    if (op == MPI_REPLACE)
        return in;
    return old; /* NO_OP */
}

static uint64_t ref_dbl(MPI_Op op, uint64_t old, uint64_t in)
{
    double o = dval(old), i = dval(in);
    if (op == MPI_SUM)
        return dbits(o + i);
    if (op == MPI_PROD)
        return dbits(o * i);
    if (op == MPI_MAX)
        return dbits(i > o ? i : o);
    if (op == MPI_MIN)
        return dbits(i < o ? i : o);
    if (op == MPI_REPLACE)
        return in;
    return old;
}

static uint64_t ref(tk_t k, MPI_Op op, uint64_t old, uint64_t in)
{
    return k == T_DBL ? ref_dbl(op, old, in) : ref_int(k, op, old, in);
}

/* ---- sections ---- */

/* Every rank takes tickets at rank 0 by Fetch_and_op SUM 1: all distinct, exactly a range. */
static void tickets(MPI_Win win)
{
    const uint64_t start = 1ull << 33;
    int n = win_mapped ? TICKETS_MAP : TICKETS;
    uint64_t *mine = malloc(sizeof(uint64_t) * n), *all = malloc(sizeof(uint64_t) * n * size);
    CHECK(mine && all);
    section();
    CHECK_RC(MPI_Win_lock_all(0, win));
    if (rank == 0)
        fop8(win, MPI_UINT64_T, start, MPI_REPLACE, 0, OFF_TICKET);
    MPI_Barrier(MPI_COMM_WORLD);
    struct softib_counters c0 = {0}, c1 = {0};
    if (counters)
        counters(&c0);
    for (int i = 0; i < n; i++) {
        mine[i] = fop8(win, MPI_UINT64_T, 1, MPI_SUM, 0, OFF_TICKET);
        CHECK(mine[i] >= start && mine[i] < start + (uint64_t)n * size);
        CHECK(i == 0 || mine[i] > mine[i - 1]); /* each flushed before the next */
    }
    if (counters && win_rdma) { /* one remote fetch-and-add per ticket */
        counters(&c1);
        if (c1.atomic - c0.atomic != (uint64_t)n || c1.rdma_read != c0.rdma_read ||
            c1.rdma_write != c0.rdma_write)
            fprintf(stderr, "rank %d %s tickets: %llu atomics, %llu READs, %llu WRITEs for %d\n",
                    rank, win_name, (unsigned long long)(c1.atomic - c0.atomic),
                    (unsigned long long)(c1.rdma_read - c0.rdma_read),
                    (unsigned long long)(c1.rdma_write - c0.rdma_write), n);
        CHECK(c1.atomic - c0.atomic == (uint64_t)n);
        CHECK(c1.rdma_read == c0.rdma_read && c1.rdma_write == c0.rdma_write);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(read8(win, MPI_UINT64_T, 0, OFF_TICKET) == start + (uint64_t)n * size);
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Allgather(mine, n, MPI_UINT64_T, all, n, MPI_UINT64_T, MPI_COMM_WORLD);
    /* every value of the range exactly once */
    unsigned char *seen = calloc((size_t)n * size, 1);
    CHECK(seen);
    for (int i = 0; i < n * size; i++) {
        uint64_t v = all[i] - start;
        CHECK(v < (uint64_t)n * size && !seen[v]);
        seen[v] = 1;
    }
    free(seen);
    free(all);
    free(mine);
    MPI_Barrier(MPI_COMM_WORLD);
    short_check("tickets");
}

typedef struct {
    MPI_Datatype dt;
    tk_t k;
    const char *name;
} ty_t;

static const MPI_Op int_ops[] = {MPI_SUM,  MPI_PROD, MPI_MAX, MPI_MIN,  MPI_BAND,    MPI_BOR,
                                 MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_REPLACE, MPI_NO_OP};
static const MPI_Op dbl_ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_REPLACE, MPI_NO_OP};
#define NINT_OPS ((int)(sizeof(int_ops) / sizeof(int_ops[0])))
#define NDBL_OPS ((int)(sizeof(dbl_ops) / sizeof(dbl_ops[0])))

/* (old, in) pairs of each type: signs, high bits, zero. */
static void pairs(tk_t k, int i, uint64_t *old, uint64_t *in)
{
    static const int64_t io[] = {-7, 123456789, 0, -(1ll << 40), 5, (int64_t)0x7ff0f0f012345678};
    static const int64_t ii[] = {3, -1000, 77, -3, 0, 1};
    static const double d_o[] = {-2.5, 1e300, 0.0, -1e-3, 7.0, 3.0};
    static const double di[] = {4.25, 1e300, -8.0, -2e-3, -7.0, 0.5};
    if (k == T_DBL) {
        *old = dbits(d_o[i]);
        *in = dbits(di[i]);
    } else {
        *old = (uint64_t)io[i];
        *in = (uint64_t)ii[i];
    }
}
#define NPAIRS 6

/* One op at the right neighbour's disp by way w (0 Fetch_and_op, 1 Get_accumulate, 2
 * Accumulate), then flush: the old value came back, the new one is the reference's. */
static void op_one(MPI_Win win, const ty_t *t, MPI_Op op, int w, uint64_t old, uint64_t in,
                   MPI_Aint disp)
{
    int right = (rank + 1) % size;
    fop8(win, t->dt, old, MPI_REPLACE, right, disp);
    uint64_t res = SENTINEL;
    if (w == 0)
        CHECK_RC(fop_rc(win, t->dt, &in, &res, op, right, disp));
    else if (w == 1)
        CHECK_RC(gacc_rc(win, t->dt, &in, &res, op, right, disp));
    else
        CHECK_RC(acc_rc(win, t->dt, &in, op, right, disp));
    CHECK_RC(MPI_Win_flush(right, win));
    uint64_t now = read8(win, t->dt, right, disp), want = ref(t->k, op, old, in);
    if ((w < 2 && res != old) || now != want)
        fprintf(stderr,
                "rank %d %s %s op 0x%x way %d disp %ld: old 0x%llx (want 0x%llx), "
                "new 0x%llx (want 0x%llx)\n",
                rank, win_name, t->name, (unsigned)op, w, (long)disp, (unsigned long long)res,
                (unsigned long long)old, (unsigned long long)now, (unsigned long long)want);
    CHECK(w == 2 || res == old);
    CHECK(now == want);
}

static void ops_type(MPI_Win win, const ty_t *t, MPI_Aint disp)
{
    const MPI_Op *ops = t->k == T_DBL ? dbl_ops : int_ops;
    int nops = t->k == T_DBL ? NDBL_OPS : NINT_OPS;
    for (int o = 0; o < nops; o++)
        for (int i = 0; i < NPAIRS; i++) {
            uint64_t old, in;
            pairs(t->k, i, &old, &in);
            op_one(win, t, ops[o], (o + i) % 3, old, in, disp);
        }
}

static void ops(MPI_Win win)
{
    static const ty_t types[] = {{MPI_INT64_T, T_I64, "MPI_INT64_T"},
                                 {MPI_UINT64_T, T_U64, "MPI_UINT64_T"},
                                 {MPI_DOUBLE, T_DBL, "MPI_DOUBLE"}};
    int right = (rank + 1) % size;
    for (int j = 0; j < 3; j++) {
        const ty_t *t = &types[j];
        section();
        CHECK_RC(MPI_Win_lock_all(0, win));
        ops_type(win, t, OFF_OPS);
        ops_type(win, t, OFF_ODD);  /* off its boundary: the general path */
        ops_type(win, t, OFF_LAST); /* the last aligned word */
        CHECK_RC(MPI_Win_unlock_all(win));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
        ops_type(win, t, OFF_OPS);
        CHECK_RC(MPI_Win_unlock(right, win));
        MPI_Barrier(MPI_COMM_WORLD);
        short_check(t->name);
    }
    /* under fence: the results are there after the closing fence */
    section();
    int64_t a = -40, b = 2, r1 = (int64_t)SENTINEL, r2 = (int64_t)SENTINEL;
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(fop_rc(win, MPI_INT64_T, &a, &r1, MPI_REPLACE, right, OFF_OPS));
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(acc_rc(win, MPI_INT64_T, &b, MPI_PROD, right, OFF_OPS));
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(fop_rc(win, MPI_INT64_T, &b, &r2, MPI_MAX, right, OFF_OPS));
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK(r2 == -80);
    CHECK_RC(fop_rc(win, MPI_INT64_T, &b, &r2, MPI_NO_OP, right, OFF_OPS));
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK(r2 == 2);
    short_check("fence");
}

/* One operation on the contended word: returned the old value, installed the new one. */
typedef struct {
    uint64_t from, to;
} edge_t;

static int edge_cmp(const void *a, const void *b)
{
    uint64_t x = ((const edge_t *)a)->from, y = ((const edge_t *)b)->from;
    return x < y ? -1 : x > y;
}

/* The edges chain from start to last, each used once (sorted by from; every from distinct). */
static void chain_check(edge_t *e, int n, uint64_t start, uint64_t last)
{
    qsort(e, (size_t)n, sizeof(*e), edge_cmp);
    for (int i = 1; i < n; i++)
        if (e[i].from == e[i - 1].from)
            fprintf(stderr, "%s swaps: two operations returned 0x%llx\n", win_name,
                    (unsigned long long)e[i].from);
    uint64_t cur = start;
    for (int k = 0; k < n; k++) {
        int lo = 0, hi = n - 1;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (e[mid].from < cur)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (e[lo].from != cur)
            fprintf(stderr, "%s swaps: step %d: no operation returned 0x%llx\n", win_name, k,
                    (unsigned long long)cur);
        CHECK(e[lo].from == cur && (lo == 0 || e[lo - 1].from != cur));
        cur = e[lo].to;
    }
    CHECK(cur == last);
}

/* Every rank on one word of rank 0, in turn: Fetch_and_op REPLACE with a value of its own
 * (rank + 1 in the top 16 bits, the step in the next 24, the low 20 zero), Fetch_and_op SUM of
 * 1, Get_accumulate REPLACE. Every value the word takes is distinct (a swapped-in value, or
 * one plus fewer than 2^20 sums), so rank 0 checks that the (returned, installed) pairs of
 * all ranks chain from the start to the final value. Then each rank alone, on a word of its
 * own at its right neighbour: REPLACEs, then Accumulate SUMs flushed once, then Accumulate
 * REPLACE and SUM, the values exact; softib's counters one atomic per operation (and the
 * read). */
static void swaps(MPI_Win win)
{
    const uint64_t start = 0xffffull << 48;
    int n = win_mapped ? SWAPS_MAP : SWAPS, right = (rank + 1) % size;
    edge_t *mine = malloc(sizeof(edge_t) * n), *all = malloc(sizeof(edge_t) * n * size);
    CHECK(mine && all);
    section();
    CHECK_RC(MPI_Win_lock_all(0, win));
    if (rank == 0)
        fop8(win, MPI_UINT64_T, start, MPI_REPLACE, 0, OFF_SWAP);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) {
        uint64_t v = ((uint64_t)(rank + 1) << 48) | ((uint64_t)i << 20), res = SENTINEL;
        switch ((i + rank) % 3) {
        case 0:
            mine[i] = (edge_t){fop8(win, MPI_UINT64_T, v, MPI_REPLACE, 0, OFF_SWAP), v};
            break;
        case 1:
            res = fop8(win, MPI_UINT64_T, 1, MPI_SUM, 0, OFF_SWAP);
            mine[i] = (edge_t){res, res + 1};
            break;
        default:
            CHECK_RC(gacc_rc(win, MPI_UINT64_T, &v, &res, MPI_REPLACE, 0, OFF_SWAP));
            CHECK_RC(MPI_Win_flush(0, win));
            mine[i] = (edge_t){res, v};
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t last = read8(win, MPI_UINT64_T, 0, OFF_SWAP);
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Gather(mine, 2 * n, MPI_UINT64_T, all, 2 * n, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0)
        chain_check(all, n * size, start, last);
    free(all);
    free(mine);
    /* alone on a word of its own: the REPLACE loop's guess is right after the first; then the
     * Accumulates, not waited for one by one */
    CHECK_RC(MPI_Win_lock_all(0, win));
    fop8(win, MPI_UINT64_T, 5, MPI_REPLACE, right, OFF_OWN);
    struct softib_counters c0 = {0}, c1 = {0};
    if (counters)
        counters(&c0);
    uint64_t want = 5, one = 1;
    for (int i = 0; i < n; i++) {
        uint64_t v = (uint64_t)rank << 40 | (uint64_t)i;
        CHECK(fop8(win, MPI_UINT64_T, v, MPI_REPLACE, right, OFF_OWN) == want);
        want = v;
    }
    for (int i = 0; i < n; i++)
        CHECK_RC(acc_rc(win, MPI_UINT64_T, &one, MPI_SUM, right, OFF_OWN));
    CHECK_RC(MPI_Win_flush(right, win));
    CHECK(read8(win, MPI_UINT64_T, right, OFF_OWN) == want + (uint64_t)n);
    if (counters && win_rdma) { /* each REPLACE and Accumulate one atomic, the read one */
        counters(&c1);
        if (c1.atomic - c0.atomic != 2 * (uint64_t)n + 1 || c1.rdma_read != c0.rdma_read ||
            c1.rdma_write != c0.rdma_write)
            fprintf(stderr, "rank %d %s swaps: %llu atomics, %llu READs, %llu WRITEs for %d\n",
                    rank, win_name, (unsigned long long)(c1.atomic - c0.atomic),
                    (unsigned long long)(c1.rdma_read - c0.rdma_read),
                    (unsigned long long)(c1.rdma_write - c0.rdma_write), 2 * n + 1);
        CHECK(c1.atomic - c0.atomic == 2 * (uint64_t)n + 1);
        CHECK(c1.rdma_read == c0.rdma_read && c1.rdma_write == c0.rdma_write);
    }
    uint64_t seven = 7;
    CHECK_RC(acc_rc(win, MPI_UINT64_T, &seven, MPI_REPLACE, right, OFF_OWN));
    CHECK_RC(acc_rc(win, MPI_UINT64_T, &one, MPI_SUM, right, OFF_OWN));
    CHECK_RC(MPI_Win_flush(right, win));
    CHECK(read8(win, MPI_UINT64_T, right, OFF_OWN) == 8);
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    short_check("swaps");
}

/* Every rank adds rank + 1 MIX_OPS times to one MPI_INT64_T word of rank 0 by Fetch_and_op,
 * Accumulate, Get_accumulate and CAS loops in turn, and to one MPI_DOUBLE word by Fetch_and_op
 * and Accumulate; to an MPI_INT by Fetch_and_op and Accumulate (the int beside untouched). */
static void mixed(MPI_Win win)
{
    const int64_t start = -(1ll << 35);
    int64_t inc = rank + 1, guess = start, res;
    int32_t iinc = rank + 1, ires;
    double dinc = rank + 1, dres;
    int ops = win_mapped ? MIX_OPS_MAP : MIX_OPS;
    section();
    CHECK_RC(MPI_Win_lock_all(0, win));
    if (rank == 0) {
        fop8(win, MPI_INT64_T, (uint64_t)start, MPI_REPLACE, 0, OFF_MIX);
        fop8(win, MPI_DOUBLE, dbits(0.5), MPI_REPLACE, 0, OFF_DMIX);
        int32_t z[2] = {-5, 0x5a5a5a5a};
        CHECK_RC(MPI_Put(z, 2, MPI_INT32_T, 0, OFF_INT, 2, MPI_INT32_T, win));
        CHECK_RC(MPI_Win_flush(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < ops; i++) {
        switch ((i + rank) % 4) {
        case 0:
            CHECK_RC(fop_rc(win, MPI_INT64_T, &inc, &res, MPI_SUM, 0, OFF_MIX));
            break;
        case 1:
            CHECK_RC(acc_rc(win, MPI_INT64_T, &inc, MPI_SUM, 0, OFF_MIX));
            break;
        case 2:
            CHECK_RC(gacc_rc(win, MPI_INT64_T, &inc, &res, MPI_SUM, 0, OFF_MIX));
            break;
        default:
            for (;;) {
                int64_t nv = guess + inc;
                CHECK_RC(MPI_Compare_and_swap(&nv, &guess, &res, MPI_INT64_T, 0, OFF_MIX, win));
                CHECK_RC(MPI_Win_flush(0, win));
                if (res == guess)
                    break;
                guess = res;
            }
            guess += inc;
        }
        if (i % 2)
            CHECK_RC(fop_rc(win, MPI_DOUBLE, &dinc, &dres, MPI_SUM, 0, OFF_DMIX));
        else
            CHECK_RC(acc_rc(win, MPI_DOUBLE, &dinc, MPI_SUM, 0, OFF_DMIX));
        if (i % 2)
            CHECK_RC(fop_rc(win, MPI_INT, &iinc, &ires, MPI_SUM, 0, OFF_INT));
        else
            CHECK_RC(acc_rc(win, MPI_INT, &iinc, MPI_SUM, 0, OFF_INT));
        CHECK_RC(MPI_Win_flush(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t total = (int64_t)ops * size * (size + 1) / 2;
    int64_t got = (int64_t)read8(win, MPI_INT64_T, 0, OFF_MIX);
    double dgot = dval(read8(win, MPI_DOUBLE, 0, OFF_DMIX));
    int32_t ints[2];
    CHECK_RC(MPI_Get(ints, 2, MPI_INT32_T, 0, OFF_INT, 2, MPI_INT32_T, win));
    CHECK_RC(MPI_Win_flush(0, win));
    if (got != start + total || dgot != 0.5 + (double)total || ints[0] != -5 + (int32_t)total ||
        ints[1] != 0x5a5a5a5a)
        fprintf(stderr, "rank %d %s mixed: %lld %g %d %x, expected %lld %g %d 5a5a5a5a\n", rank,
                win_name, (long long)got, dgot, ints[0], (unsigned)ints[1],
                (long long)(start + total), 0.5 + (double)total, -5 + (int)total);
    CHECK(got == start + total);
    CHECK(dgot == 0.5 + (double)total);
    CHECK(ints[0] == -5 + (int32_t)total && ints[1] == 0x5a5a5a5a);
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    short_check("mixed");
}

static void expect_class(int rc, int want)
{
    int cls = -1;
    CHECK(rc != MPI_SUCCESS);
    MPI_Error_class(rc, &cls);
    CHECK(cls == want);
}

/* MPI_PROC_NULL, out of range, no epoch: nothing changes, nothing takes the short path. */
static void errors(MPI_Win win)
{
    int right = (rank + 1) % size;
    uint64_t v0 = 0x1122334455667788ull ^ (uint64_t)rank, one = 1, res;
    section();
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Win_lock_all(0, win));
    fop8(win, MPI_UINT64_T, v0, MPI_REPLACE, right, OFF_ERR);
    res = SENTINEL;
    CHECK_RC(fop_rc(win, MPI_UINT64_T, &one, &res, MPI_SUM, MPI_PROC_NULL, OFF_ERR));
    CHECK_RC(fop_rc(win, MPI_UINT64_T, &one, &res, MPI_NO_OP, MPI_PROC_NULL, OFF_ERR));
    CHECK_RC(acc_rc(win, MPI_UINT64_T, &one, MPI_SUM, MPI_PROC_NULL, OFF_ERR));
    CHECK_RC(MPI_Win_flush_all(win));
    CHECK(res == SENTINEL);
    MPI_Aint bad[] = {WIN_BYTES, WIN_BYTES - 4, -8, 1 << 20};
    for (int i = 0; i < 4; i++) {
        expect_class(fop_rc(win, MPI_UINT64_T, &one, &res, MPI_SUM, right, bad[i]),
                     MPI_ERR_RMA_RANGE);
        expect_class(acc_rc(win, MPI_UINT64_T, &one, MPI_SUM, right, bad[i]), MPI_ERR_RMA_RANGE);
        CHECK(res == SENTINEL);
    }
    CHECK(read8(win, MPI_UINT64_T, right, OFF_ERR) == v0);
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    /* no epoch: the pairs every other call here took, the error each time */
    MPI_Op nops[] = {MPI_SUM, MPI_NO_OP, MPI_REPLACE, MPI_MAX};
    for (int i = 0; i < 4; i++) {
        expect_class(fop_rc(win, MPI_UINT64_T, &one, &res, nops[i], right, OFF_ERR),
                     MPI_ERR_RMA_SYNC);
        expect_class(acc_rc(win, MPI_UINT64_T, &one, nops[i], right, OFF_ERR), MPI_ERR_RMA_SYNC);
        CHECK(res == SENTINEL);
    }
    double d = 1.0;
    expect_class(fop_rc(win, MPI_DOUBLE, &d, &res, MPI_SUM, right, OFF_ERR), MPI_ERR_RMA_SYNC);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_lock_all(0, win));
    CHECK(read8(win, MPI_UINT64_T, right, OFF_ERR) == v0);
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL));
    MPI_Barrier(MPI_COMM_WORLD);
    short_check("errors");
}

static void run(MPI_Win win, bool mapped, bool rdma, const char *name)
{
    tickets(win);
    ops(win);
    swaps(win);
    mixed(win);
    errors(win);
}

int main(int argc, char **argv)
{
    ws_main(&argc, &argv, "win_fop", k_names, k_what, NK, WIN_BYTES, run);
    return 0;
}
