/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-sided benchmarks, in pairs: rank i < size/2 is the origin, i + size/2 its target (at 2
 * ranks the OSU layout: 0 -> 1). The window is MPI_Win_allocate'd (--win create: malloc'd and
 * MPI_Win_create'd), one per run, max size bytes on every rank.
 *   put_latency get_latency acc_latency   one operation, then the synchronisation (-s):
 *                                         flush  MPI_Win_flush (one shared lock around the loop)
 *                                         lock   MPI_Win_lock / MPI_Win_unlock around each
 *                                         fence  MPI_Win_fence by all ranks
 *   put_bw get_bw                         a window (-w) of operations, then the same
 *   fop_latency cas_latency               MPI_Fetch_and_op (MPI_SUM) / MPI_Compare_and_swap of
 *                                         one MPI_UINT64_T
 *   swap_latency acc8_latency             MPI_Fetch_and_op (MPI_REPLACE) / MPI_Accumulate
 *                                         (MPI_SUM, one element) of one MPI_UINT64_T
 * acc_latency accumulates MPI_UNSIGNED with MPI_SUM (sizes multiple of 4). The operations of a
 * window all target displacement 0. The figure is the origin's time per operation (latency) or
 * bytes per second (bandwidth), averaged over the origins (-f: min / max over them). Under -c,
 * after each size one more epoch under the same synchronisation carries a patterned operation
 * whose result is checked, at the target (put, accumulate, fetch_and_op, compare_and_swap) and
 * at the origin (get, and what fetch_and_op / compare_and_swap returned).
 *
 * The floors, what no MPI can beat on one node, measured by the same program in the same run
 * (every rank pair on one node; they call no MPI while timed):
 *   floor_memcpy_bw   memcpy of n bytes into the peer's part of an MPI_Win_allocate_shared
 *                     window, a window (-w) of them per iteration: the floor of put_bw on a
 *                     shared window
 *   floor_cma_bw      process_vm_writev of n bytes into the peer's malloc'd memory: the floor
 *                     of put_bw on MPI_Win_create memory reached by cross-memory attach
 *   floor_ping        one 8-byte store to a cache line in the shared window, answered by the
 *                     peer's store to another: half the round trip, the floor of an 8-byte put
 *                     under flush (the line moves to the other core and back)
 */
#define _GNU_SOURCE /* process_vm_writev */
#include "bench.h"

enum rma_op {
    PUT_LAT,
    GET_LAT,
    PUT_BW,
    GET_BW,
    ACC_LAT,
    FOP_LAT,
    CAS_LAT,
    SWAP_LAT,
    ACC8_LAT,
    F_MEMCPY,
    F_CMA,
    F_PING
};

#if IBEX_BENCH_RMA
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct rma_ctx {
    MPI_Win win;
    unsigned char *base;        /* this rank's window memory */
    unsigned char *sbuf, *rbuf; /* origin data and results */
    int origin, peer;
    MPI_Comm origins; /* the origin ranks, for the figures */
    int created;      /* MPI_Win_create'd: base is ours to free */
};

static int rma_setup(const struct bench *b, const struct bench_opts *o, void **ctx)
{
    struct rma_ctx *c = bench_alloc(sizeof *c);
    int half = bench_nranks / 2;
    MPI_Aint bytes = o->max_size > 16 ? o->max_size : 16;
    c->origin = bench_rank < half;
    c->peer = c->origin ? bench_rank + half : bench_rank - half;
    c->sbuf = bench_alloc((size_t)bytes);
    c->rbuf = bench_alloc((size_t)bytes);
    memset(c->sbuf, 0, (size_t)bytes);
    memset(c->rbuf, 0, (size_t)bytes);
    c->created = o->win == BENCH_WIN_CREATE;
    if (c->created) {
        c->base = bench_alloc((size_t)bytes);
        MPI_Win_create(c->base, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c->win);
    } else {
        MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c->base, &c->win);
    }
    memset(c->base, 0, (size_t)bytes); /* before any epoch: no RMA can target it yet */
    MPI_Comm_split(MPI_COMM_WORLD, c->origin, 0, &c->origins);
    MPI_Barrier(MPI_COMM_WORLD);
    *ctx = c;
    return 0;
}

static void rma_teardown(void *ctx)
{
    struct rma_ctx *c = ctx;
    MPI_Win_free(&c->win);
    MPI_Comm_free(&c->origins);
    if (c->created)
        free(c->base);
    free(c->sbuf);
    free(c->rbuf);
    free(c);
}

/* One operation of n bytes on the peer's window at displacement 0. */
static void rma_issue(int op, struct rma_ctx *c, long n)
{
    int cnt = (int)n, peer = c->peer;
    switch (op) {
    case PUT_LAT:
    case PUT_BW:
        MPI_Put(c->sbuf, cnt, MPI_BYTE, peer, 0, cnt, MPI_BYTE, c->win);
        break;
    case GET_LAT:
    case GET_BW:
        MPI_Get(c->rbuf, cnt, MPI_BYTE, peer, 0, cnt, MPI_BYTE, c->win);
        break;
    case ACC_LAT:
        MPI_Accumulate(c->sbuf, cnt / 4, MPI_UNSIGNED, peer, 0, cnt / 4, MPI_UNSIGNED, MPI_SUM,
                       c->win);
        break;
    case FOP_LAT:
        MPI_Fetch_and_op(c->sbuf, c->rbuf, MPI_UINT64_T, peer, 0, MPI_SUM, c->win);
        break;
    case CAS_LAT:
        MPI_Compare_and_swap(c->sbuf, c->sbuf + 8, c->rbuf, MPI_UINT64_T, peer, 0, c->win);
        break;
    case SWAP_LAT:
        MPI_Fetch_and_op(c->sbuf, c->rbuf, MPI_UINT64_T, peer, 0, MPI_REPLACE, c->win);
        break;
    case ACC8_LAT:
        MPI_Accumulate(c->sbuf, 1, MPI_UINT64_T, peer, 0, 1, MPI_UINT64_T, MPI_SUM, c->win);
        break;
    }
}

/* `iters` epochs of `batch` operations under o->sync; returns the origin's seconds. */
static double rma_loop(const struct bench *b, const struct bench_opts *o, struct rma_ctx *c, long n,
                       int iters, int batch)
{
    int fence = o->sync == BENCH_SYNC_FENCE, lock = o->sync == BENCH_SYNC_LOCK;
    MPI_Barrier(MPI_COMM_WORLD);
    if (fence)
        MPI_Win_fence(0, c->win);
    else if (!lock && c->origin)
        MPI_Win_lock(MPI_LOCK_SHARED, c->peer, 0, c->win);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters && (fence || c->origin); i++) {
        if (lock)
            MPI_Win_lock(MPI_LOCK_SHARED, c->peer, 0, c->win);
        for (int k = 0; k < batch && c->origin; k++)
            rma_issue(b->op, c, n);
        if (fence)
            MPI_Win_fence(0, c->win);
        else if (lock)
            MPI_Win_unlock(c->peer, c->win);
        else
            MPI_Win_flush(c->peer, c->win);
    }
    double t = MPI_Wtime() - t0;
    if (!fence && !lock && c->origin)
        MPI_Win_unlock(c->peer, c->win);
    return t;
}

/* Local access to this rank's own window memory between epochs: under lock / flush inside an
 * exclusive lock of itself; under fence the fences already order it. */
static void self_lock(const struct bench_opts *o, struct rma_ctx *c, int on)
{
    if (o->sync == BENCH_SYNC_FENCE)
        return;
    if (on)
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, bench_rank, 0, c->win);
    else
        MPI_Win_unlock(bench_rank, c->win);
}

#define SEQ 7 /* the pattern's sequence number in the check epoch */

static uint64_t word(int src)
{
    return 0x0123456789abcdefULL ^ ((uint64_t)src << 32);
}

/* The check epoch's inputs: the target's memory, the origin's buffers. */
static void check_prepare(const struct bench *b, struct rma_ctx *c, long n)
{
    unsigned char *mem = c->origin ? c->sbuf : c->base;
    uint64_t w = word(bench_rank), *m = (uint64_t *)mem;
    unsigned *u = (unsigned *)mem;
    if (b->op == FOP_LAT || b->op == CAS_LAT || b->op == SWAP_LAT || b->op == ACC8_LAT) {
        m[0] = w;
        m[1] = c->origin ? word(c->peer) : 0; /* CAS compares with the target's word */
    } else if (b->op == ACC_LAT) {
        for (long j = 0; j < n / 4; j++)
            u[j] = (unsigned)(c->origin ? j * 3 + 1 : j);
    } else {
        bench_fill(mem, n, SEQ, bench_rank);
    }
    memset(c->rbuf, 0, (size_t)(n > 16 ? n : 16));
}

static void check_result(const struct bench *b, struct rma_ctx *c, long n)
{
    const uint64_t *m = (const uint64_t *)c->base, *got = (const uint64_t *)c->rbuf;
    const unsigned *u = (const unsigned *)c->base;
    int peer = c->peer;
    if (c->origin && (b->op == GET_LAT || b->op == GET_BW))
        bench_verify(c->rbuf, n, SEQ, peer);
    else if (c->origin && (b->op == FOP_LAT || b->op == CAS_LAT || b->op == SWAP_LAT))
        bench_errors += got[0] != word(peer);
    else if (!c->origin && (b->op == PUT_LAT || b->op == PUT_BW))
        bench_verify(c->base, n, SEQ, peer);
    else if (!c->origin && (b->op == FOP_LAT || b->op == ACC8_LAT))
        bench_errors += m[0] != word(bench_rank) + word(peer);
    else if (!c->origin && (b->op == CAS_LAT || b->op == SWAP_LAT))
        bench_errors += m[0] != word(peer);
    for (long j = 0; !c->origin && b->op == ACC_LAT && j < n / 4; j++)
        bench_errors += u[j] != (unsigned)(j + j * 3 + 1);
}

static void rma_check(const struct bench *b, const struct bench_opts *o, struct rma_ctx *c, long n)
{
    MPI_Barrier(MPI_COMM_WORLD); /* the timed epochs are over on every origin */
    self_lock(o, c, 1);
    check_prepare(b, c, n);
    self_lock(o, c, 0);
    rma_loop(b, o, c, n, 1, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    self_lock(o, c, 1);
    check_result(b, c, n);
    self_lock(o, c, 0);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void rma_measure(const struct bench *b, const struct bench_opts *o, void *ctx, long n,
                        struct bench_result *r)
{
    struct rma_ctx *c = ctx;
    int bw = b->op == PUT_BW || b->op == GET_BW, batch = bw ? o->window : 1;
    int iters = bw ? bench_iters(o, n, 100, 20) : bench_iters(o, n, 1000, 100);
    rma_loop(b, o, c, n, bench_warmup(o, iters), batch);
    double secs = rma_loop(b, o, c, n, iters, batch);
    double mine = bw ? (double)n * batch * iters / secs / 1e6 : secs * 1e6 / iters;
    if (c->origin)
        bench_over_ranks(mine, c->origins, r);
    if (o->check)
        rma_check(b, o, c, n);
}

/* ---- the floors ---- */

#include <sched.h>
#include <sys/uio.h>
#include <unistd.h>

struct floor_ctx {
    MPI_Win win;                      /* shared: each rank's part, two cache lines + max size */
    unsigned char *peer_part;         /* the peer's part, mapped here */
    unsigned char *mine, *sbuf, *cma; /* cma: malloc'd, for the peer's process_vm_writev */
    uint64_t peer_cma;
    long peer_pid;
    int origin, peer;
    MPI_Comm origins;
};

static int floor_setup(const struct bench *b, const struct bench_opts *o, void **ctx)
{
    (void)b;
    MPI_Comm node;
    int nsize;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    MPI_Comm_free(&node);
    if (nsize != bench_nranks) { /* the same answer on every rank */
        if (bench_rank == 0)
            fprintf(stderr, "the floors need every rank on one node\n");
        return 1;
    }
    struct floor_ctx *c = bench_alloc(sizeof *c);
    MPI_Aint bytes = 128 + (o->max_size > 16 ? o->max_size : 16);
    int half = bench_nranks / 2;
    c->origin = bench_rank < half;
    c->peer = c->origin ? bench_rank + half : bench_rank - half;
    MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c->mine, &c->win);
    MPI_Aint psize;
    int pdisp;
    MPI_Win_shared_query(c->win, c->peer, &psize, &pdisp, &c->peer_part);
    memset(c->mine, 0, (size_t)bytes);
    c->sbuf = bench_alloc((size_t)bytes);
    c->cma = bench_alloc((size_t)bytes);
    memset(c->sbuf, 1, (size_t)bytes);
    memset(c->cma, 0, (size_t)bytes);
    uint64_t me[2] = {(uint64_t)getpid(), (uint64_t)(uintptr_t)c->cma}, all[2];
    MPI_Sendrecv(me, 2, MPI_UINT64_T, c->peer, 0, all, 2, MPI_UINT64_T, c->peer, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    c->peer_pid = (long)all[0];
    c->peer_cma = all[1];
    MPI_Comm_split(MPI_COMM_WORLD, c->origin, 0, &c->origins);
    MPI_Win_fence(0, c->win); /* the segment's stores before anyone's access */
    *ctx = c;
    return 0;
}

static void floor_teardown(void *ctx)
{
    struct floor_ctx *c = ctx;
    MPI_Win_free(&c->win);
    MPI_Comm_free(&c->origins);
    free(c->sbuf);
    free(c->cma);
    free(c);
}

/* A window of n-byte copies into the peer's memory, iters times: seconds. */
static double floor_copy(const struct bench *b, struct floor_ctx *c, long n, int iters, int batch)
{
    struct iovec l = {c->sbuf, (size_t)n}, r = {(void *)(uintptr_t)c->peer_cma, (size_t)n};
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        for (int k = 0; k < batch; k++) {
            if (b->op == F_MEMCPY)
                memcpy(c->peer_part + 128, c->sbuf, (size_t)n);
            else if (process_vm_writev((pid_t)c->peer_pid, &l, 1, &r, 1, 0) != (ssize_t)n)
                bench_errors++; /* not permitted (ptrace scope) or the peer gone */
        }
    return MPI_Wtime() - t0;
}

/* Ping-pong of a sequence number: the origin stores to the first line of the peer's part and
 * spins on the first line of its own, the target answers. Seconds for iters round trips; base:
 * the word's value before, read before the barrier that starts the pass (after it, the peer's
 * first store may already be there). */
static double floor_ping(struct floor_ctx *c, int iters, uint64_t base)
{
    volatile uint64_t *out = (volatile uint64_t *)(void *)c->peer_part;
    volatile uint64_t *in = (volatile uint64_t *)(void *)c->mine;
    double t0 = MPI_Wtime();
    for (uint64_t i = 1; i <= (uint64_t)iters; i++) {
        if (c->origin)
            __atomic_store_n(out, base + i, __ATOMIC_RELEASE);
        for (int spins = 0; __atomic_load_n(in, __ATOMIC_ACQUIRE) != base + i; spins++)
            if (spins > 4096) /* the peer has no core (a loaded machine): let it run */
                sched_yield();
        if (!c->origin)
            __atomic_store_n(out, base + i, __ATOMIC_RELEASE);
    }
    return MPI_Wtime() - t0;
}

static void floor_measure(const struct bench *b, const struct bench_opts *o, void *ctx, long n,
                          struct bench_result *r)
{
    struct floor_ctx *c = ctx;
    int ping = b->op == F_PING, batch = ping ? 1 : o->window;
    int iters = ping ? bench_iters(o, n, 2000, 2000) : bench_iters(o, n, 100, 20);
    double secs = 0;
    for (int pass = 0; pass < 2; pass++) { /* a warm-up pass, then the timed one */
        int it = pass ? iters : bench_warmup(o, iters);
        uint64_t base = __atomic_load_n((uint64_t *)(void *)c->mine, __ATOMIC_ACQUIRE);
        MPI_Barrier(MPI_COMM_WORLD);
        if (ping)
            secs = floor_ping(c, it, base);
        else if (c->origin)
            secs = floor_copy(b, c, n, it, batch);
    }
    double mine = ping ? secs * 1e6 / iters / 2 : (double)n * batch * iters / secs / 1e6;
    if (c->origin)
        bench_over_ranks(mine, c->origins, r);
    MPI_Barrier(MPI_COMM_WORLD);
}

#define RMA_FN(f) f
#define RMA_WHY   NULL
#else
#define RMA_FN(f) NULL
#define RMA_WHY   "not built into this ibex-bench (the MPI library lacked it: IBEX_BENCH_RMA=0)"
#endif

#define FLOOR(name, col, op, flags)                                                                \
    {                                                                                              \
        name, "floor", {col}, op, BENCH_PAIRS | (flags), 1, 8, RMA_FN(floor_setup),                \
            RMA_FN(floor_measure), RMA_FN(floor_teardown), RMA_WHY                                 \
    }

#define RMA(name, col, op, flags, unit)                                                            \
    {                                                                                              \
        name, "rma", {col}, op, BENCH_PAIRS | (flags), unit, 8, RMA_FN(rma_setup),                 \
            RMA_FN(rma_measure), RMA_FN(rma_teardown), RMA_WHY                                     \
    }

const struct bench bench_rma_list[] = {
    RMA("put_latency", "latency_us", PUT_LAT, 0, 1),
    RMA("get_latency", "latency_us", GET_LAT, 0, 1),
    RMA("put_bw", "bw_MBps", PUT_BW, 0, 1),
    RMA("get_bw", "bw_MBps", GET_BW, 0, 1),
    RMA("acc_latency", "latency_us", ACC_LAT, 0, 4),
    RMA("fop_latency", "latency_us", FOP_LAT, BENCH_NOSIZE, 1),
    RMA("cas_latency", "latency_us", CAS_LAT, BENCH_NOSIZE, 1),
    RMA("swap_latency", "latency_us", SWAP_LAT, BENCH_NOSIZE, 1),
    RMA("acc8_latency", "latency_us", ACC8_LAT, BENCH_NOSIZE, 1),
    FLOOR("floor_memcpy_bw", "bw_MBps", F_MEMCPY, 0),
    FLOOR("floor_cma_bw", "bw_MBps", F_CMA, 0),
    FLOOR("floor_ping", "latency_us", F_PING, BENCH_NOSIZE),
    {NULL},
};
