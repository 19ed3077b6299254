/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-bench: MPI micro-benchmarks in the style of the common suites (standard MPI only, so the
 * same source builds with ibexcc, mpicc.openmpi and mpicc.mpich).
 *   pt2pt (bench_p2p.c)  latency, bw, bibw, mbw_mr
 *   coll  (bench_coll.c) the latency of every blocking collective
 *   nbc   (bench_nbc.c)  the non-blocking collectives: pure time and overlap with computation
 *   rma   (bench_rma.c)  put / get latency and bandwidth, accumulate, fetch_and_op,
 *                        compare_and_swap, under lock, flush or fence
 * Usage: ibex-bench BENCHMARK|AREA|all ... [options]   (ibex-bench -h lists them)
 * This file: main, the sweep over sizes and the helpers the areas share.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

int bench_rank, bench_nranks;
long bench_errors;

int bench_iters(const struct bench_opts *o, long n, int small, int large)
{
    return o->iters > 0 ? o->iters : n > BENCH_LARGE ? large : small;
}

int bench_warmup(const struct bench_opts *o, int iters)
{
    return o->warmup >= 0 ? o->warmup : iters / 10;
}

/* Cheap, and differs between consecutive messages, senders and neighbouring bytes. */
unsigned char bench_pattern(long seq, int src, long j)
{
    return (unsigned char)(seq * 31 + src * 7 + j + (j >> 8) + 1);
}

void bench_fill(unsigned char *buf, long n, long seq, int src)
{
    for (long j = 0; j < n; j++)
        buf[j] = bench_pattern(seq, src, j);
}

void bench_verify(const unsigned char *buf, long n, long seq, int src)
{
    for (long j = 0; j < n; j++)
        if (buf[j] != bench_pattern(seq, src, j))
            bench_errors++;
}

void bench_stats(const double *v, int n, double *avg, double *min, double *max)
{
    *min = *max = v[0];
    *avg = 0;
    for (int i = 0; i < n; i++) {
        *avg += v[i] / n;
        *min = v[i] < *min ? v[i] : *min;
        *max = v[i] > *max ? v[i] : *max;
    }
}

void bench_over_ranks(double mine, MPI_Comm comm, struct bench_result *r)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    double sum = 0, mn = 0, mx = 0;
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
    MPI_Reduce(&mine, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
    MPI_Reduce(&mine, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    if (me == 0)
        r->fig[0] = sum / size, r->min = mn, r->max = mx;
}

void *bench_alloc(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "ibex-bench: rank %d: out of memory for %zu bytes\n", bench_rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* The next size of the sweep after n: 0, then MIN (or 1) times powers of the step, those that
 * are multiples of the benchmark's unit. */
static long next_size(const struct bench_opts *o, const struct bench *b, long n)
{
    if (b->flags & BENCH_NOSIZE)
        return -1;
    do
        n = n == 0 ? (o->min_size > 0 ? o->min_size : 1) : n * o->step;
    while (n <= o->max_size && n % b->unit != 0);
    return n <= o->max_size ? n : -1;
}

static long first_size(const struct bench_opts *o, const struct bench *b)
{
    if (b->flags & BENCH_NOSIZE)
        return b->fixed;
    return o->min_size == 0 || o->min_size % b->unit == 0 ? o->min_size : next_size(o, b, 0);
}

/* one_size: measure n, print the row, report a validation failure; 1 if it failed. */
static int one_size(const struct bench_opts *o, const struct bench *b, void *ctx, long n, int first)
{
    struct bench_result r;
    memset(&r, 0, sizeof r);
    bench_errors = 0;
    b->measure(b, o, ctx, n, &r);
    long all_errors = 0;
    MPI_Reduce(&bench_errors, &all_errors, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (bench_rank != 0)
        return 0;
    bench_out_progress(b, n, -1, 0);
    bench_out_row(o, b, n, &r, first);
    if (all_errors == 0)
        return 0;
    fprintf(stderr, "ibex-bench: %s: validation failed at size %ld: %ld elements wrong\n", b->name,
            n, all_errors);
    return 1;
}

/* run: one benchmark over its sizes; 1 if validation failed (on rank 0). */
static int run(const struct bench_opts *o, const struct bench *b, const char *lib, int k)
{
    void *ctx = NULL;
    int bad = 0, count = 0, done = 0;
    if (b->setup != NULL && b->setup(b, o, &ctx) != 0)
        return 1;
    for (long n = first_size(o, b); n >= 0; n = next_size(o, b, n))
        count++;
    if (bench_rank == 0)
        bench_out_header(o, b, lib, k);
    /* One untimed pass at the first size: connections come up on first use. */
    struct bench_result unused;
    if (count > 0)
        b->measure(b, o, ctx, first_size(o, b), &unused);
    for (long n = first_size(o, b); n >= 0; n = next_size(o, b, n), done++) {
        bench_out_progress(b, n, done, count);
        bad |= one_size(o, b, ctx, n, done == 0);
    }
    if (bench_rank == 0)
        bench_out_end_bench(o, b, k == o->nbench - 1);
    if (b->teardown != NULL)
        b->teardown(ctx);
    return bad;
}

/* ranks_ok: every benchmark can run at this rank count (else the reason on rank 0). */
static int ranks_ok(const struct bench_opts *o)
{
    for (int k = 0; k < o->nbench; k++) {
        const struct bench *b = o->list[k];
        const char *why = bench_nranks < 2                                    ? "at least 2"
                          : (b->flags & BENCH_PAIRS) && bench_nranks % 2 != 0 ? "an even number of"
                                                                              : NULL;
        if (why != NULL) {
            if (bench_rank == 0)
                fprintf(stderr, "ibex-bench: %s needs %s ranks (got %d)\n", b->name, why,
                        bench_nranks);
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    int want = bench_opts_thread(argc, argv), provided;
    MPI_Init_thread(&argc, &argv, want, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &bench_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &bench_nranks);
    int rc = bench_opts_parse(argc, argv, &o);
    if (rc == 0 && provided < want) {
        if (bench_rank == 0)
            fprintf(stderr, "ibex-bench: --thread: the library provides only level %d\n", provided);
        rc = 2;
    }
    if (rc == 0 && !ranks_ok(&o))
        rc = 2;
    if (rc != 0) {
        MPI_Finalize();
        return rc == 1 ? 0 : rc;
    }
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    bench_out_library(lib, sizeof lib);
    int bad = 0;
    if (bench_rank == 0)
        bench_out_begin(&o, o.nbench);
    for (int k = 0; k < o.nbench; k++)
        bad |= run(&o, o.list[k], lib, k);
    fflush(stdout);
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return bad ? 1 : 0;
}
