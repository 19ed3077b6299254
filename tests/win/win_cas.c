/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Compare_and_swap on MPI_Win_allocate, MPI_Win_allocate_shared (when every rank is on one
 * node) and MPI_Win_create windows, each of WIN_BYTES bytes with displacement unit 1:
 * - the old value comes back when the compare fails (the target unchanged) and when it
 *   succeeds (the target swapped), on MPI_INT64_T, MPI_UINT64_T, MPI_LONG and MPI_INT, with
 *   every bit of the word used, under Win_lock_all + flush, Win_lock + flush and fence;
 * - a contended CAS spin lock at rank 0 guards a critical section counter read with MPI_Get
 *   and written with MPI_Put (not atomic): its final value is exact;
 * - on one word of rank 0, every rank mixes CAS increment loops, Fetch_and_op SUM and
 *   Accumulate SUM of the same type (the standard's atomicity: same op or CAS, same basic
 *   type; the 8-byte Accumulates take a short path on the shared mapping and on the network
 *   direct path, counted in win_fop): the final value is exact; for MPI_INT every rank also
 *   adds to the int beside it, which must not be touched by the 4-byte CAS;
 * - an 8-byte element off its 8-byte boundary, and the last 8 bytes of the window;
 * - CAS to MPI_PROC_NULL (succeeds, result untouched); CAS with no epoch open
 *   (MPI_ERR_RMA_SYNC) and out of the window (MPI_ERR_RMA_RANGE) under MPI_ERRORS_RETURN,
 *   neither changing anything.
 * With Ibex's MPI_T counter ibex_win_short_cas (another MPI: the data checks only), every
 * section checks exactly how many CASes took the shared mapping's short path: every 8-byte
 * aligned one in an epoch and in range on a window on the shared mapping (allocate and
 * allocate_shared when every rank is on one node, unless MT_WIN_AM or MT_WIN_RDMA says the
 * library was told IBEX_WIN_DIRECT=0), none for MPI_INT, unaligned elements, MPI_PROC_NULL,
 * errors or Win_create memory. With MT_WIN_RDMA (IBEX_WIN_DIRECT=0, the network direct path)
 * ibex_win_short_rcas counts likewise the CASes of the network direct path's short path on
 * allocate and create windows (one remote compare-and-swap each): every 8-byte aligned one
 * in an epoch and in range, so the spin lock and the mixed words run on it, mixed there with
 * the one-element Accumulate SUM's posted fetch-and-add on the same word; with MT_SOFTIB
 * softib's counters show one atomic per CAS of the spin lock, one READ per Get and one WRITE
 * per Put.
 */
#include "win_short.h"

#define WIN_BYTES   132 /* 16 words and 4 bytes: the last 8 bytes are off the boundary */
#define OFF_LOCK    0   /* the spin lock (MPI_INT64_T) at rank 0 */
#define OFF_COUNT   8   /* the critical section's counter */
#define OFF_MIX     16  /* the mixed CAS / Fetch_and_op word (8-byte types) */
#define OFF_INT     24  /* the mixed int (MPI_INT) and ... */
#define OFF_BESIDE  28  /* ... the int beside it */
#define OFF_OLD     32  /* the old-value checks (each rank at its right neighbour) */
#define OFF_ODD     44  /* an 8-byte element off its boundary */
#define OFF_ERR     64  /* the error checks' word */
#define LOCK_ITERS  100
#define MIX_OPS     150 /* per rank and type; MIX_OPS_MAP on the shared mapping (cheap there) */
#define MIX_OPS_MAP 1000

typedef struct {
    MPI_Datatype dt;
    const char *name;
    int bytes;
} ty_t;

static ty_t types[4];
/* ibex_win_short_cas, ibex_win_short_rcas (win_short.h) */
enum { K_CAS, K_RCAS, NK };
static const char *const k_names[NK] = {"ibex_win_short_cas", "ibex_win_short_rcas"};
static const char *const k_what[NK] = {"CASes", "CASes on the network direct path's"};

static void snap(struct softib_counters *c)
{
    if (counters)
        counters(c);
}

/* ---- typed values: the low t->bytes bytes of a uint64_t ---- */

static uint64_t mask(const ty_t *t)
{
    return t->bytes == 8 ? ~0ull : (1ull << (8 * t->bytes)) - 1;
}

static void put_val(const ty_t *t, void *p, uint64_t v)
{
    if (t->bytes == 8) {
        memcpy(p, &v, 8);
    } else {
        uint32_t w = (uint32_t)v;
        memcpy(p, &w, 4);
    }
}

static uint64_t get_val(const ty_t *t, const void *p)
{
    if (t->bytes == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

#define SENTINEL 0xa5a5a5a5a5a5a5a5ull

static bool will_short(const ty_t *t, int target, MPI_Aint disp)
{
    return win_mapped && target != MPI_PROC_NULL && t->bytes == 8 && disp % 8 == 0 && disp >= 0 &&
           disp + 8 <= WIN_BYTES;
}

static bool will_rshort(const ty_t *t, int target, MPI_Aint disp)
{
    return win_rdma && target != MPI_PROC_NULL && t->bytes == 8 && disp % 8 == 0 && disp >= 0 &&
           disp + 8 <= WIN_BYTES;
}

/* One CAS, counted when it should take the short path (the caller has an epoch open); the
 * result (valid after the epoch's flush or fence) in *res. */
static int cas_rc(MPI_Win win, const ty_t *t, uint64_t value, uint64_t compare, uint64_t *res,
                  int target, MPI_Aint disp)
{
    unsigned char o[8], c[8];
    put_val(t, o, value);
    put_val(t, c, compare);
    int rc = MPI_Compare_and_swap(o, c, res, t->dt, target, disp, win);
    if (rc == MPI_SUCCESS && will_short(t, target, disp))
        sc.want[K_CAS]++;
    if (rc == MPI_SUCCESS && will_rshort(t, target, disp))
        sc.want[K_RCAS]++;
    return rc;
}

/* CAS then flush (a passive epoch is open): the old value. */
static uint64_t cas_flush(MPI_Win win, const ty_t *t, uint64_t value, uint64_t compare, int target,
                          MPI_Aint disp)
{
    uint64_t res = SENTINEL;
    CHECK_RC(cas_rc(win, t, value, compare, &res, target, disp));
    CHECK_RC(MPI_Win_flush(target, win));
    return get_val(t, &res);
}

/* Fetch_and_op then flush: the old value. */
static uint64_t fop_flush(MPI_Win win, const ty_t *t, uint64_t in, MPI_Op op, int target,
                          MPI_Aint disp)
{
    unsigned char o[8];
    uint64_t res = SENTINEL;
    put_val(t, o, in);
    CHECK_RC(MPI_Fetch_and_op(o, &res, t->dt, target, disp, op, win));
    CHECK_RC(MPI_Win_flush(target, win));
    return get_val(t, &res);
}

static uint64_t word_of(const ty_t *t, int r)
{
    return (0x8123456789abcdefull ^ ((uint64_t)r << 40) ^ (uint64_t)t->bytes) & mask(t);
}

/* The old value on a failed and on a successful compare, at the right neighbour, in the
 * passive epoch the caller opened (lock_all, or a lock of that neighbour). */
static void old_value_one(MPI_Win win, const ty_t *t, MPI_Aint disp)
{
    int right = (rank + 1) % size;
    uint64_t v0 = word_of(t, rank), m = mask(t), nv = ~v0 & m;
    fop_flush(win, t, v0, MPI_REPLACE, right, disp);
    CHECK(cas_flush(win, t, nv, v0 ^ 1, right, disp) == v0); /* compare fails */
    CHECK(fop_flush(win, t, 0, MPI_NO_OP, right, disp) == v0);
    CHECK(cas_flush(win, t, nv, v0, right, disp) == v0); /* compare succeeds */
    CHECK(fop_flush(win, t, 0, MPI_NO_OP, right, disp) == nv);
    CHECK(cas_flush(win, t, v0, nv, right, disp) == nv);
    CHECK(fop_flush(win, t, 0, MPI_NO_OP, right, disp) == v0);
}

static void old_values(MPI_Win win)
{
    for (int i = 0; i < 4; i++) {
        const ty_t *t = &types[i];
        section();
        CHECK_RC(MPI_Win_lock_all(0, win));
        old_value_one(win, t, OFF_OLD);
        old_value_one(win, t, OFF_ODD);              /* off its boundary: the general path */
        old_value_one(win, t, WIN_BYTES - t->bytes); /* the last element (8: off boundary) */
        old_value_one(win, t, 120);                  /* the last aligned word */
        CHECK_RC(MPI_Win_unlock_all(win));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, (rank + 1) % size, 0, win));
        old_value_one(win, t, OFF_OLD);
        CHECK_RC(MPI_Win_unlock((rank + 1) % size, win));
        MPI_Barrier(MPI_COMM_WORLD);
        short_check(t->name);
        if (t->bytes != 8 && sc.on) /* MPI_INT: never the short path */
            CHECK(short_read(K_CAS) == sc.base[K_CAS]);
    }
    /* under fence: the results are there after the closing fence */
    const ty_t *t = &types[0];
    int right = (rank + 1) % size;
    uint64_t v0 = word_of(t, rank + 7), nv = ~v0, r1 = SENTINEL, r2 = SENTINEL, r3 = SENTINEL;
    section();
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Fetch_and_op(&v0, &r1, t->dt, right, OFF_OLD, MPI_REPLACE, win));
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(cas_rc(win, t, nv, v0 + 1, &r1, right, OFF_OLD));
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(cas_rc(win, t, nv, v0, &r2, right, OFF_OLD));
    CHECK_RC(MPI_Win_fence(0, win));
    CHECK_RC(MPI_Fetch_and_op(&v0, &r3, t->dt, right, OFF_OLD, MPI_NO_OP, win));
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win)); /* no epoch after it (errors() needs none) */
    CHECK(r1 == v0 && r2 == v0 && r3 == nv);
    short_check("fence");
}

/* A CAS spin lock at rank 0 guarding a counter read and written with Get / Put. */
static void spin_lock(MPI_Win win)
{
    const ty_t *t = &types[0];
    int64_t zero = 0, c;
    section();
    CHECK_RC(MPI_Win_lock_all(0, win));
    if (rank == 0) {
        fop_flush(win, t, 0, MPI_REPLACE, 0, OFF_LOCK);
        CHECK_RC(MPI_Put(&zero, 1, MPI_INT64_T, 0, OFF_COUNT, 1, MPI_INT64_T, win));
        CHECK_RC(MPI_Win_flush(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    struct softib_counters c0 = {0}, c1 = {0};
    uint64_t ncas = 0;
    snap(&c0);
    for (int i = 0; i < LOCK_ITERS; i++) {
        for (ncas++; cas_flush(win, t, (uint64_t)rank + 1, 0, 0, OFF_LOCK) != 0; ncas++)
            ;
        ncas++; /* the release */
        CHECK_RC(MPI_Get(&c, 1, MPI_INT64_T, 0, OFF_COUNT, 1, MPI_INT64_T, win));
        CHECK_RC(MPI_Win_flush(0, win));
        c++;
        CHECK_RC(MPI_Put(&c, 1, MPI_INT64_T, 0, OFF_COUNT, 1, MPI_INT64_T, win));
        CHECK_RC(MPI_Win_flush(0, win));
        /* the release finds this rank's mark: nobody else held the lock meanwhile */
        CHECK(cas_flush(win, t, 0, (uint64_t)rank + 1, 0, OFF_LOCK) == (uint64_t)rank + 1);
    }
    snap(&c1);
    if (counters && win_rdma) { /* one compare-and-swap per CAS, a READ per Get, a WRITE per Put */
        if (c1.atomic - c0.atomic != ncas || c1.rdma_read - c0.rdma_read != LOCK_ITERS ||
            c1.rdma_write - c0.rdma_write != LOCK_ITERS)
            fprintf(stderr,
                    "rank %d %s spin lock: %llu atomics for %llu CASes, %llu READs, %llu "
                    "WRITEs for %d\n",
                    rank, win_name, (unsigned long long)(c1.atomic - c0.atomic),
                    (unsigned long long)ncas, (unsigned long long)(c1.rdma_read - c0.rdma_read),
                    (unsigned long long)(c1.rdma_write - c0.rdma_write), LOCK_ITERS);
        CHECK(c1.atomic - c0.atomic == ncas);
        CHECK(c1.rdma_read - c0.rdma_read == LOCK_ITERS);
        CHECK(c1.rdma_write - c0.rdma_write == LOCK_ITERS);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Get(&c, 1, MPI_INT64_T, 0, OFF_COUNT, 1, MPI_INT64_T, win));
    CHECK_RC(MPI_Win_flush(0, win));
    CHECK(c == (int64_t)LOCK_ITERS * size);
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    short_check("spin lock");
}

/* Every rank adds rank + 1 MIX_OPS times to one word of rank 0, in turn by Fetch_and_op SUM, a
 * CAS loop and Accumulate SUM; for MPI_INT also 1 to the int beside it by Fetch_and_op. */
static void mixed(MPI_Win win, const ty_t *t, uint64_t start)
{
    bool is_int = t->bytes != 8;
    MPI_Aint disp = is_int ? OFF_INT : OFF_MIX;
    uint64_t m = mask(t), inc = (uint64_t)rank + 1, guess = start;
    int ops = win_mapped ? MIX_OPS_MAP : MIX_OPS;
    section();
    CHECK_RC(MPI_Win_lock_all(0, win));
    if (rank == 0) {
        fop_flush(win, t, start, MPI_REPLACE, 0, disp);
        if (is_int)
            fop_flush(win, t, 0, MPI_REPLACE, 0, OFF_BESIDE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < ops; i++) {
        if ((i + rank) % 3 == 0) {
            fop_flush(win, t, inc, MPI_SUM, 0, disp);
        } else if ((i + rank) % 3 == 1) {
            unsigned char o[8];
            put_val(t, o, inc);
            CHECK_RC(MPI_Accumulate(o, 1, t->dt, 0, disp, 1, t->dt, MPI_SUM, win));
            CHECK_RC(MPI_Win_flush(0, win));
        } else {
            uint64_t got;
            while ((got = cas_flush(win, t, (guess + inc) & m, guess, 0, disp)) != guess)
                guess = got;
            guess = (guess + inc) & m;
        }
        if (is_int)
            fop_flush(win, t, 1, MPI_SUM, 0, OFF_BESIDE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t total = (uint64_t)ops * (uint64_t)size * (uint64_t)(size + 1) / 2;
    uint64_t got = fop_flush(win, t, 0, MPI_NO_OP, 0, disp);
    if (got != ((start + total) & m))
        fprintf(stderr, "rank %d %s %s: mixed word 0x%llx, expected 0x%llx\n", rank, win_name,
                t->name, (unsigned long long)got, (unsigned long long)((start + total) & m));
    CHECK(got == ((start + total) & m));
    if (is_int)
        CHECK(fop_flush(win, t, 0, MPI_NO_OP, 0, OFF_BESIDE) == (uint64_t)ops * size);
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    short_check(t->name);
    if (is_int && sc.on)
        CHECK(short_read(K_CAS) == sc.base[K_CAS]);
}

/* MPI_PROC_NULL, no epoch, out of range: nothing changes, nothing takes the short path. */
static void errors(MPI_Win win)
{
    const ty_t *t = &types[0];
    int right = (rank + 1) % size;
    uint64_t v0 = word_of(t, rank + 3), res;
    section();
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Win_lock_all(0, win));
    fop_flush(win, t, v0, MPI_REPLACE, right, OFF_ERR);
    fop_flush(win, t, v0, MPI_REPLACE, right, 120);
    res = SENTINEL;
    CHECK_RC(cas_rc(win, t, 1, 2, &res, MPI_PROC_NULL, OFF_ERR));
    CHECK_RC(cas_rc(win, t, 1, v0, &res, MPI_PROC_NULL, OFF_ERR));
    CHECK_RC(MPI_Win_flush_all(win));
    CHECK(res == SENTINEL);
    MPI_Aint bad[] = {WIN_BYTES, WIN_BYTES - 4, -8, 1 << 20};
    for (int i = 0; i < 4; i++) {
        int rc = cas_rc(win, t, ~v0, v0, &res, right, bad[i]), cls = -1;
        CHECK(rc != MPI_SUCCESS);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_RMA_RANGE);
        CHECK(res == SENTINEL);
    }
    CHECK(fop_flush(win, t, 0, MPI_NO_OP, right, 120) == v0);
    CHECK_RC(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    /* no epoch: the types every other CAS here took, the error each time */
    for (int i = 0; i < 4; i++) {
        int rc = cas_rc(win, &types[i], 0, word_of(&types[i], rank + 3), &res, right, OFF_ERR),
            cls = -1;
        CHECK(rc != MPI_SUCCESS);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_RMA_SYNC);
        CHECK(res == SENTINEL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_lock_all(0, win));
    CHECK(fop_flush(win, t, 0, MPI_NO_OP, right, OFF_ERR) == v0);
    CHECK_RC(MPI_Win_unlock_all(win));
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL));
    MPI_Barrier(MPI_COMM_WORLD);
    short_check("errors");
}

static void run(MPI_Win win, bool mapped, bool rdma, const char *name)
{
    old_values(win);
    spin_lock(win);
    mixed(win, &types[0], (uint64_t)-1000);
    mixed(win, &types[1], ~0ull - 500);
    mixed(win, &types[2], 1ull << 40);
    mixed(win, &types[3], (uint64_t)(uint32_t)-300);
    errors(win);
}

int main(int argc, char **argv)
{
    ty_t ts[4] = {{MPI_INT64_T, "MPI_INT64_T", 8},
                  {MPI_UINT64_T, "MPI_UINT64_T", 8},
                  {MPI_LONG, "MPI_LONG", (int)sizeof(long)},
                  {MPI_INT, "MPI_INT", (int)sizeof(int)}};
    memcpy(types, ts, sizeof(ts));
    ws_main(&argc, &argv, "win_cas", k_names, k_what, NK, WIN_BYTES, run);
    return 0;
}
