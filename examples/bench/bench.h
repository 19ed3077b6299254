/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-bench's shared parts: the options, the benchmark table entry, the result of one size,
 * timing and the data pattern. Each area (bench_p2p.c, bench_coll.c, bench_nbc.c, bench_rma.c)
 * exports a table of benchmarks; ibex_bench.c runs the sweep, bench_out.c prints.
 *
 * Standard MPI only. The areas a library may lack are compile-time switches, ON unless the build
 * says otherwise (defined to 0 or 1):
 *   IBEX_BENCH_VCOLL  gatherv, scatterv, allgatherv, alltoallv, reduce_scatter(_block), (ex)scan
 *   IBEX_BENCH_NBC    the non-blocking collectives (overlap)
 *   IBEX_BENCH_RMA    one-sided communication
 * The thread area (bench_thread.c) needs MPI_THREAD_MULTIPLE and is skipped at run time without.
 * A switched-off benchmark stays in the table without a body: naming it exits 2 with a message.
 */
#ifndef IBEX_BENCH_H
#define IBEX_BENCH_H

#include <mpi.h>
#include <stdio.h>

#ifndef IBEX_BENCH_VCOLL
#define IBEX_BENCH_VCOLL 1
#endif
#ifndef IBEX_BENCH_NBC
#define IBEX_BENCH_NBC 1
#endif
#ifndef IBEX_BENCH_RMA
#define IBEX_BENCH_RMA 1
#endif

#define BENCH_MAX_SIZE (1L << 30)
#define BENCH_LARGE    8192 /* past this size the default iteration counts drop */
#define BENCH_MAX_COLS 8

enum bench_format { BENCH_TABLE, BENCH_CSV, BENCH_JSON };
enum bench_sync { BENCH_SYNC_FLUSH, BENCH_SYNC_LOCK, BENCH_SYNC_FENCE };
enum bench_win { BENCH_WIN_ALLOCATE, BENCH_WIN_CREATE };

/* Flags of a benchmark. */
#define BENCH_PAIRS  0x1 /* needs an even number of ranks */
#define BENCH_NOSIZE 0x2 /* one row only (barrier, fetch_and_op, compare_and_swap) */

struct bench;

struct bench_opts {
    const struct bench *list[64]; /* the benchmarks to run, in order */
    int nbench;
    enum bench_format format;
    long min_size, max_size;
    int iters, warmup, window; /* iters / warmup < 0: the benchmark's defaults by size */
    int step;                  /* sizes grow by this factor (a power of two) */
    int probes;                /* -t: MPI_Test calls inside the nbc computation (OSU's -t) */
    int full, check;
    long block; /* --block: point-to-point messages are strided vectors of this block size */
    enum bench_sync sync;
    enum bench_win win;
    int threads; /* --threads: threads per rank of the thread area */
};

/* One size: fig[0] is the headline figure (avg over ranks or repetitions), min / max its
 * spread (-f), fig[1..] the benchmark's further columns. */
struct bench_result {
    double fig[BENCH_MAX_COLS];
    double min, max;
};

/* measure: one size n, called by every rank; the result is meaningful on rank 0. setup /
 * teardown (may be NULL; called by every rank, may be collective) allocate what a run needs for
 * sizes up to max_size, *ctx is passed to measure; setup returns 0 (nonzero, the same on every
 * rank, skips the benchmark and makes ibex-bench exit 1). */
struct bench {
    const char *name;
    const char *area;                 /* pt2pt, coll, nbc, rma */
    const char *cols[BENCH_MAX_COLS]; /* figure columns after size_B, NULL-terminated */
    int op;     /* the area's own selector (which collective, which RMA call) */
    int flags;  /* BENCH_PAIRS, BENCH_NOSIZE */
    long unit;  /* sizes must be multiples of it (smaller ones skipped, except 0) */
    long fixed; /* BENCH_NOSIZE: the one size reported */
    int (*setup)(const struct bench *b, const struct bench_opts *o, void **ctx);
    void (*measure)(const struct bench *b, const struct bench_opts *o, void *ctx, long n,
                    struct bench_result *r);
    void (*teardown)(void *ctx);
    const char *off_why; /* measure == NULL: why it was not built */
};

/* The areas' tables, each ended by an entry without a name. */
extern const struct bench bench_p2p_list[], bench_coll_list[], bench_nbc_list[], bench_rma_list[];
extern const struct bench bench_thread_list[]; /* bench_thread.c: MPI_THREAD_MULTIPLE */

extern int bench_rank, bench_nranks;
extern long bench_errors; /* validation mismatches on this rank, reset per size */

/* Iterations for size n: -i / -x when given, else small / large defaults (warm-up a tenth). */
int bench_iters(const struct bench_opts *o, long n, int small, int large);
int bench_warmup(const struct bench_opts *o, int iters);

/* The data pattern of message `seq` from rank `src`, byte j. */
unsigned char bench_pattern(long seq, int src, long j);
void bench_fill(unsigned char *buf, long n, long seq, int src);
void bench_verify(const unsigned char *buf, long n, long seq, int src);

/* min / avg / max of v[0..n), avg into *avg. */
void bench_stats(const double *v, int n, double *avg, double *min, double *max);
/* The spread of a per-rank figure over all ranks of comm, onto rank 0's result. */
void bench_over_ranks(double mine, MPI_Comm comm, struct bench_result *r);

void *bench_alloc(size_t bytes); /* malloc or MPI_Abort with a message */

/* Options (bench_opts.c): 0 ok, 1 help / list printed, 2 bad (reason printed on rank 0). */
int bench_opts_parse(int argc, char **argv, struct bench_opts *o);
/* The MPI thread level --thread asks for (MPI_THREAD_SINGLE without it), read before MPI_Init. */
int bench_opts_thread(int argc, char **argv);
const struct bench *bench_find(const char *name);

/* Output (bench_out.c). */
void bench_out_begin(const struct bench_opts *o, int nruns);
void bench_out_header(const struct bench_opts *o, const struct bench *b, const char *lib, int k);
void bench_out_row(const struct bench_opts *o, const struct bench *b, long n,
                   const struct bench_result *r, int first);
void bench_out_end_bench(const struct bench_opts *o, const struct bench *b, int last);
void bench_out_library(char *out, size_t len);
void bench_out_progress(const struct bench *b, long n, int done, int count);

#endif
