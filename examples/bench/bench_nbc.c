/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Non-blocking collectives: how much of the collective hides behind computation, as the OSU
 * suite measures it. Per size, on each rank:
 *   pure     start + MPI_Wait alone, timed per call (a barrier between calls, untimed)
 *   overall  start, compute for `pure` (a busy loop that calls no MPI, reading the clock
 *            between calibrated chunks of work; with -t N, as OSU's -t, it stops N times at
 *            equal intervals for an MPI_Test), MPI_Test once, MPI_Wait; compute is the time
 *            the loop actually took, less its MPI_Test calls (OSU's cpu - test time)
 *   overlap  100 * max(0, 1 - (overall - compute) / pure) %
 * computed as OSU's calculate_and_print_stats does: from pure, overall and compute averaged
 * over the ranks first (OSU's default of no MPI_Test inside the computation; the one after it
 * counts as communication, as OSU's test time does); -f: min / max of each rank's own overlap.
 * Sizes and data as for the blocking collectives (bench_coll.c); under -c every call's result
 * is checked.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "bench_coll.h"

#include <time.h>

#if IBEX_BENCH_NBC

/* Start the reductions, barrier and broadcast; 0 if op is none of them. */
static int nbc_start_reduce(int op, struct coll_ctx *c, long n, MPI_Request *q)
{
    MPI_Comm w = MPI_COMM_WORLD;
    void *s = c->sbuf, *r = c->rbuf;
    int ints = (int)(n / 4);
    switch (op) {
    case BARRIER:
        return MPI_Ibarrier(w, q), 1;
    case BCAST:
        return MPI_Ibcast(bench_rank == 0 ? s : r, (int)n, MPI_BYTE, 0, w, q), 1;
    case REDUCE:
        return MPI_Ireduce(s, r, ints, MPI_INT, MPI_SUM, 0, w, q), 1;
    case ALLREDUCE:
        return MPI_Iallreduce(s, r, ints, MPI_INT, MPI_SUM, w, q), 1;
    case REDUCE_SCATTER:
        return MPI_Ireduce_scatter(s, r, c->counts, MPI_INT, MPI_SUM, w, q), 1;
    case REDUCE_SCATTER_BLOCK:
        return MPI_Ireduce_scatter_block(s, r, ints / bench_nranks, MPI_INT, MPI_SUM, w, q), 1;
    case SCAN:
        return MPI_Iscan(s, r, ints, MPI_INT, MPI_SUM, w, q), 1;
    case EXSCAN:
        return MPI_Iexscan(s, r, ints, MPI_INT, MPI_SUM, w, q), 1;
    }
    return 0;
}

static void nbc_start(int op, struct coll_ctx *c, long n, MPI_Request *q)
{
    MPI_Comm w = MPI_COMM_WORLD;
    void *s = c->sbuf, *r = c->rbuf;
    int cnt = (int)n, *k = c->counts, *d = c->displs;
    if (nbc_start_reduce(op, c, n, q))
        return;
    if (op == GATHER)
        MPI_Igather(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, 0, w, q);
    else if (op == GATHERV)
        MPI_Igatherv(s, cnt, MPI_BYTE, r, k, d, MPI_BYTE, 0, w, q);
    else if (op == SCATTER)
        MPI_Iscatter(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, 0, w, q);
    else if (op == SCATTERV)
        MPI_Iscatterv(s, k, d, MPI_BYTE, r, cnt, MPI_BYTE, 0, w, q);
    else if (op == ALLGATHER)
        MPI_Iallgather(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, w, q);
    else if (op == ALLGATHERV)
        MPI_Iallgatherv(s, cnt, MPI_BYTE, r, k, d, MPI_BYTE, w, q);
    else if (op == ALLTOALL)
        MPI_Ialltoall(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, w, q);
    else if (op == ALLTOALLV)
        MPI_Ialltoallv(s, k, d, MPI_BYTE, r, k, d, MPI_BYTE, w, q);
}

static volatile double sink;

/* `k` steps of dependent floating-point work: no memory traffic, no MPI. */
static void busy(long k)
{
    double x = 1.0;
    for (long i = 0; i < k; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Busy-loop steps per second: the fastest of 3 runs of at least 2 ms each, once. */
static double steps_per_second(void)
{
    static double rate;
    for (int run = 0; run < 3 && rate == 0; run++)
        for (long k = 1000;; k *= 2) {
            double t0 = now();
            busy(k);
            double t = now() - t0;
            if (t >= 2e-3) {
                rate = k / t > rate ? k / t : rate;
                break;
            }
        }
    return rate;
}

/* The computation: busy for `secs` of wall time. The clock is read between chunks of about
 * 0.1 us of work (calibrated), so a rank the scheduler interrupts still stops on time. */
static void compute(double secs)
{
    long chunk = (long)(steps_per_second() * 1e-7) + 1;
    double end = now() + secs;
    do
        busy(chunk);
    while (now() < end);
}

/* The computation in `probes` equal parts with an MPI_Test after each (none: one part, no
 * test); returns the seconds spent in MPI_Test. */
static double compute_probe(double secs, int probes, MPI_Request *q)
{
    int flag, parts = probes > 0 ? probes : 1;
    double test = 0;
    for (int i = 0; i < parts; i++) {
        compute(secs / parts);
        if (probes > 0) {
            double t = now();
            MPI_Test(q, &flag, MPI_STATUS_IGNORE);
            test += now() - t;
        }
    }
    return test;
}

/* One timed call: with work > 0 the busy loop runs between the start and the wait; the
 * loop's own time is added to *cpu. Returns the call's seconds. */
static double nbc_once(const struct bench *b, const struct bench_opts *o, struct coll_ctx *c,
                       long n, long seq, double work, double *cpu)
{
    MPI_Request q;
    int flag;
    if (o->check)
        bench_coll_fill(b->op, c, n, seq);
    double t0 = MPI_Wtime();
    nbc_start(b->op, c, n, &q);
    if (work > 0) {
        double t1 = MPI_Wtime();
        double test = compute_probe(work, o->probes, &q);
        *cpu += MPI_Wtime() - t1 - test;
        MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
    }
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    double t = MPI_Wtime() - t0;
    if (o->check)
        bench_coll_check(b->op, c, n, seq);
    MPI_Barrier(MPI_COMM_WORLD);
    return t;
}

/* `iters` timed calls after `warmup`; returns the seconds per call, *cpu the compute per call. */
static double nbc_loop(const struct bench *b, const struct bench_opts *o, struct coll_ctx *c,
                       long n, double work, double *cpu)
{
    int iters = bench_iters(o, n, 1000, 100), warmup = bench_warmup(o, iters);
    double secs = 0, unused = 0;
    *cpu = 0;
    for (int i = 0; i < warmup; i++)
        nbc_once(b, o, c, n, i, work, &unused);
    for (int i = 0; i < iters; i++)
        secs += nbc_once(b, o, c, n, warmup + i, work, cpu);
    *cpu /= iters;
    return secs / iters;
}

static void nbc_measure(const struct bench *b, const struct bench_opts *o, void *ctx, long n,
                        struct bench_result *r)
{
    struct coll_ctx *c = ctx;
    double cpu, sum[3] = {0, 0, 0};
    bench_coll_counts(c, b->op, n);
    steps_per_second(); /* calibrated once, before anything is timed */
    double pure = nbc_loop(b, o, c, n, 0, &cpu);
    double overall = nbc_loop(b, o, c, n, pure, &cpu);
    double lost = pure > 0 ? (overall - cpu) / pure : 1;
    double mine[3] = {pure * 1e6, overall * 1e6, cpu * 1e6};
    bench_over_ranks(100 * (lost < 1 ? 1 - lost : 0), MPI_COMM_WORLD, r);
    MPI_Reduce(mine, sum, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++)
        r->fig[1 + i] = sum[i] / bench_nranks;
    if (bench_rank == 0 && sum[0] > 0) {
        double avg_lost = (sum[1] - sum[2]) / sum[0];
        r->fig[0] = 100 * (avg_lost < 1 ? 1 - avg_lost : 0);
    }
}

#define NBC_FN(f) f
#define NBC_WHY   NULL
#else
#define NBC_FN(f) NULL
#define NBC_WHY   "not built into this ibex-bench (the MPI library lacked it: IBEX_BENCH_NBC=0)"
#endif

#define NBC(name, op, unit)                                                                        \
    {                                                                                              \
        name, "nbc", {"overlap_pct", "pure_us", "overall_us", "compute_us"}, op,                   \
            op == BARRIER ? BENCH_NOSIZE : 0, unit, 0, bench_coll_setup, NBC_FN(nbc_measure),      \
            bench_coll_teardown, NBC_WHY                                                           \
    }

const struct bench bench_nbc_list[] = {
    NBC("ibarrier", BARRIER, 1),
    NBC("ibcast", BCAST, 1),
    NBC("ireduce", REDUCE, 4),
    NBC("iallreduce", ALLREDUCE, 4),
    NBC("igather", GATHER, 1),
    NBC("igatherv", GATHERV, 1),
    NBC("iscatter", SCATTER, 1),
    NBC("iscatterv", SCATTERV, 1),
    NBC("iallgather", ALLGATHER, 1),
    NBC("iallgatherv", ALLGATHERV, 1),
    NBC("ialltoall", ALLTOALL, 1),
    NBC("ialltoallv", ALLTOALLV, 1),
    NBC("ireduce_scatter", REDUCE_SCATTER, 4),
    NBC("ireduce_scatter_block", REDUCE_SCATTER_BLOCK, 4),
    NBC("iscan", SCAN, 4),
    NBC("iexscan", EXSCAN, 4),
    {NULL},
};
