/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Blocking collectives over all ranks of MPI_COMM_WORLD, as the OSU suite measures them: each
 * call timed alone, a barrier (untimed) between calls, the average time per call on each rank,
 * then the average over ranks (-f: min / avg / max over ranks). Sizes, as OSU counts them:
 *   bcast                          the buffer, from rank 0
 *   reduce, allreduce, scan, exscan the vector, MPI_INT with MPI_SUM (sizes multiple of 4)
 *   reduce_scatter(_block)         the whole vector; each rank gets 1/size of it (the first
 *                                  ranks one int more when it does not divide, for the v form)
 *   gather(v), scatter(v), allgather(v), alltoall(v)  each rank's block (MPI_BYTE); the v
 *                                  forms with the same counts and packed displacements
 * Under -c every call's data is filled with a pattern first and checked against a reference
 * computed locally, outside the timed part.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#include "bench_coll.h"

int bench_coll_setup(const struct bench *b, const struct bench_opts *o, void **ctx)
{
    struct coll_ctx *c = bench_alloc(sizeof *c);
    size_t bytes = (size_t)(o->max_size > 0 ? o->max_size : 1) * (size_t)bench_nranks;
    c->sbuf = bench_alloc(bytes);
    c->rbuf = bench_alloc(bytes);
    memset(c->sbuf, 'a', bytes);
    memset(c->rbuf, 'b', bytes);
    c->counts = bench_alloc(sizeof(int) * (size_t)bench_nranks);
    c->displs = bench_alloc(sizeof(int) * (size_t)bench_nranks);
    *ctx = c;
    return 0;
}

void bench_coll_teardown(void *ctx)
{
    struct coll_ctx *c = ctx;
    free(c->sbuf);
    free(c->rbuf);
    free(c->counts);
    free(c->displs);
    free(c);
}

/* n bytes per rank for the v forms; reduce_scatter splits n / 4 ints over the ranks. */
void bench_coll_counts(struct coll_ctx *c, int op, long n)
{
    n = op == REDUCE_SCATTER ? n / 4 : n;
    long per = n / bench_nranks, rem = n % bench_nranks, off = 0;
    for (int i = 0; i < bench_nranks; i++) {
        c->counts[i] = op == REDUCE_SCATTER ? (int)(per + (i < rem)) : (int)n;
        c->displs[i] = (int)off;
        off += c->counts[i];
    }
}

/* The reductions' element: small, so that a sum over ranks is exact. */
static int ival(long seq, int src, long j)
{
    return (int)((seq * 7 + src * 13 + j) % 1009);
}

static void fill_ints(int *v, long count, long seq)
{
    for (long j = 0; j < count; j++)
        v[j] = ival(seq, bench_rank, j);
}

/* Elements off .. off + count of the sum over ranks lo .. hi - 1 must be in v. */
static void check_sum(const int *v, long count, long off, long seq, int lo, int hi)
{
    for (long j = 0; j < count; j++) {
        long want = 0;
        for (int s = lo; s < hi; s++)
            want += ival(seq, s, off + j);
        bench_errors += v[j] != want;
    }
}

/* Byte blocks: block k of buf from sender id (alltoall: id = sender * ranks + receiver). */
static void fill_blocks(unsigned char *buf, long n, int nb, long seq, int id0, int step)
{
    for (int k = 0; k < nb; k++)
        bench_fill(buf + (size_t)k * n, n, seq, id0 + k * step);
}

static void check_blocks(const unsigned char *buf, long n, int nb, long seq, int id0, int step)
{
    for (int k = 0; k < nb; k++)
        bench_verify(buf + (size_t)k * n, n, seq, id0 + k * step);
}

void bench_coll_fill(int op, struct coll_ctx *c, long n, long seq)
{
    int np = bench_nranks, me = bench_rank;
    if (op == BCAST)
        fill_blocks(me == 0 ? c->sbuf : c->rbuf, n, 1, me == 0 ? seq : seq + 1, 0, 1);
    else if (op == REDUCE || op == ALLREDUCE || op == SCAN || op == EXSCAN ||
             op == REDUCE_SCATTER || op == REDUCE_SCATTER_BLOCK)
        fill_ints((int *)c->sbuf, n / 4, seq);
    else if (op == SCATTER || op == SCATTERV)
        fill_blocks(c->sbuf, n, me == 0 ? np : 0, seq, 0, 1);
    else if (op == ALLTOALL || op == ALLTOALLV)
        fill_blocks(c->sbuf, n, np, seq, me * np, 1);
    else if (op != BARRIER)
        fill_blocks(c->sbuf, n, 1, seq, me, 1);
}

void bench_coll_check(int op, struct coll_ctx *c, long n, long seq)
{
    int np = bench_nranks, me = bench_rank, *v = (int *)c->rbuf;
    long ints = n / 4, block = ints / np;
    if (op == BCAST)
        check_blocks(me == 0 ? c->sbuf : c->rbuf, n, 1, seq, 0, 1);
    else if (op == REDUCE || op == ALLREDUCE)
        check_sum(v, op == REDUCE && me != 0 ? 0 : ints, 0, seq, 0, np);
    else if (op == SCAN || op == EXSCAN)
        check_sum(v, op == EXSCAN && me == 0 ? 0 : ints, 0, seq, 0, me + (op == SCAN));
    else if (op == REDUCE_SCATTER)
        check_sum(v, c->counts[me], c->displs[me], seq, 0, np);
    else if (op == REDUCE_SCATTER_BLOCK)
        check_sum(v, block, block * me, seq, 0, np);
    else if (op == GATHER || op == GATHERV)
        check_blocks(c->rbuf, n, me == 0 ? np : 0, seq, 0, 1);
    else if (op == SCATTER || op == SCATTERV)
        check_blocks(c->rbuf, n, 1, seq, me, 1);
    else if (op == ALLGATHER || op == ALLGATHERV)
        check_blocks(c->rbuf, n, np, seq, 0, 1);
    else if (op == ALLTOALL || op == ALLTOALLV)
        check_blocks(c->rbuf, n, np, seq, me, np);
}

#if IBEX_BENCH_VCOLL
/* The collectives behind IBEX_BENCH_VCOLL; 1 if op is one of them. */
static int coll_call_more(int op, struct coll_ctx *c, long n)
{
    MPI_Comm w = MPI_COMM_WORLD;
    void *s = c->sbuf, *r = c->rbuf;
    int cnt = (int)n, ints = (int)(n / 4), *k = c->counts, *d = c->displs;
    switch (op) {
    case GATHERV:
        return MPI_Gatherv(s, cnt, MPI_BYTE, r, k, d, MPI_BYTE, 0, w), 1;
    case SCATTERV:
        return MPI_Scatterv(s, k, d, MPI_BYTE, r, cnt, MPI_BYTE, 0, w), 1;
    case ALLGATHERV:
        return MPI_Allgatherv(s, cnt, MPI_BYTE, r, k, d, MPI_BYTE, w), 1;
    case ALLTOALLV:
        return MPI_Alltoallv(s, k, d, MPI_BYTE, r, k, d, MPI_BYTE, w), 1;
    case REDUCE_SCATTER:
        return MPI_Reduce_scatter(s, r, k, MPI_INT, MPI_SUM, w), 1;
    case REDUCE_SCATTER_BLOCK:
        return MPI_Reduce_scatter_block(s, r, ints / bench_nranks, MPI_INT, MPI_SUM, w), 1;
    case SCAN:
        return MPI_Scan(s, r, ints, MPI_INT, MPI_SUM, w), 1;
    case EXSCAN:
        return MPI_Exscan(s, r, ints, MPI_INT, MPI_SUM, w), 1;
    }
    return 0;
}
#define COLL_MORE(f)  f
#define COLL_MORE_WHY NULL
#else
#define COLL_MORE(f) NULL
#define COLL_MORE_WHY                                                                              \
    "not built into this ibex-bench (the MPI library lacked it: IBEX_BENCH_VCOLL=0)"
#endif

static void coll_call(int op, struct coll_ctx *c, long n)
{
    MPI_Comm w = MPI_COMM_WORLD;
    void *s = c->sbuf, *r = c->rbuf;
    int cnt = (int)n, ints = (int)(n / 4);
    switch (op) {
    case BARRIER:
        MPI_Barrier(w);
        return;
    case BCAST:
        MPI_Bcast(bench_rank == 0 ? s : r, cnt, MPI_BYTE, 0, w);
        return;
    case REDUCE:
        MPI_Reduce(s, r, ints, MPI_INT, MPI_SUM, 0, w);
        return;
    case ALLREDUCE:
        MPI_Allreduce(s, r, ints, MPI_INT, MPI_SUM, w);
        return;
    case GATHER:
        MPI_Gather(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, 0, w);
        return;
    case SCATTER:
        MPI_Scatter(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, 0, w);
        return;
    case ALLGATHER:
        MPI_Allgather(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, w);
        return;
    case ALLTOALL:
        MPI_Alltoall(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, w);
        return;
    }
#if IBEX_BENCH_VCOLL
    coll_call_more(op, c, n);
#endif
}

static void coll_measure(const struct bench *b, const struct bench_opts *o, void *ctx, long n,
                         struct bench_result *r)
{
    struct coll_ctx *c = ctx;
    int iters = bench_iters(o, n, 1000, 100), warmup = bench_warmup(o, iters);
    double secs = 0;
    bench_coll_counts(c, b->op, n);
    for (int i = 0; i < warmup + iters; i++) {
        if (o->check)
            bench_coll_fill(b->op, c, n, i);
        double t0 = MPI_Wtime();
        coll_call(b->op, c, n);
        double t = MPI_Wtime() - t0;
        secs += i >= warmup ? t : 0;
        if (o->check)
            bench_coll_check(b->op, c, n, i);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    bench_over_ranks(secs * 1e6 / iters, MPI_COMM_WORLD, r);
}

#define COLL(name, op, unit)                                                                       \
    {                                                                                              \
        name, "coll", {"latency_us"}, op, op == BARRIER ? BENCH_NOSIZE : 0, unit, 0,               \
            bench_coll_setup, coll_measure, bench_coll_teardown, NULL                              \
    }
#define COLL2(name, op, unit)                                                                      \
    {                                                                                              \
        name, "coll", {"latency_us"}, op, 0, unit, 0, bench_coll_setup, COLL_MORE(coll_measure),   \
            bench_coll_teardown, COLL_MORE_WHY                                                     \
    }

const struct bench bench_coll_list[] = {
    COLL("barrier", BARRIER, 1),
    COLL("bcast", BCAST, 1),
    COLL("reduce", REDUCE, 4),
    COLL("allreduce", ALLREDUCE, 4),
    COLL("gather", GATHER, 1),
    COLL2("gatherv", GATHERV, 1),
    COLL("scatter", SCATTER, 1),
    COLL2("scatterv", SCATTERV, 1),
    COLL("allgather", ALLGATHER, 1),
    COLL2("allgatherv", ALLGATHERV, 1),
    COLL("alltoall", ALLTOALL, 1),
    COLL2("alltoallv", ALLTOALLV, 1),
    COLL2("reduce_scatter", REDUCE_SCATTER, 4),
    COLL2("reduce_scatter_block", REDUCE_SCATTER_BLOCK, 4),
    COLL2("scan", SCAN, 4),
    COLL2("exscan", EXSCAN, 4),
    {NULL},
};
