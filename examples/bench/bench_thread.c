/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-threaded benchmarks (MPI_THREAD_MULTIPLE; ibex-bench asks for it when one of these is
 * named, and skips them when the library grants less):
 *   mt_rate  rank i paired with i + size/2; on each of --threads T threads of a pair a window of
 *            non-blocking sends, then a one-int ack, as mbw_mr, each thread on its own duplicate
 *            of MPI_COMM_WORLD: the aggregate message rate (millions of messages per second
 *            over all pairs and threads) and bandwidth. Threads that do not serialise inside
 *            the library scale it with T, up to the cores they get.
 *   call_cost the time of one cheap MPI call on one thread (MPI_Comm_rank, then MPI_Test on
 *            MPI_REQUEST_NULL), rank 0 alone, the fastest of 9 repetitions of -i calls (a
 *            minimum, so a loaded machine's preemptions drop out): run it with --thread single
 *            and --thread multiple to see what the level costs a program that calls MPI from
 *            one thread (it is the only benchmark here that takes any level).
 * mt_rate's threads are started once per size, warm up, meet at a barrier, and the time from
 * there to the barrier after the last ack is the figure (the slowest thread's).
 */
#include "bench.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MT_MAX_THREADS 64

struct mt_thread {
    MPI_Comm comm;
    unsigned char *sbuf, *rbuf;
    MPI_Request *reqs;
};

struct mt_ctx {
    int nthreads, window, iters, warmup;
    long n;
    pthread_barrier_t start, stop;
    double t0, t1;
    struct mt_thread th[MT_MAX_THREADS];
};

struct mt_arg {
    struct mt_ctx *c;
    int t;
};

static int mt_setup(const struct bench *b, const struct bench_opts *o, void **ctx)
{
    (void)b;
    int level;
    MPI_Query_thread(&level);
    if (level < MPI_THREAD_MULTIPLE) {
        if (bench_rank == 0)
            fprintf(stderr, "ibex-bench: mt_rate needs MPI_THREAD_MULTIPLE (got level %d)\n",
                    level);
        return 1;
    }
    struct mt_ctx *c = bench_alloc(sizeof *c);
    memset(c, 0, sizeof *c);
    c->nthreads = o->threads;
    c->window = o->window;
    long bytes = o->max_size > 0 ? o->max_size : 1;
    for (int t = 0; t < c->nthreads; t++) {
        struct mt_thread *th = &c->th[t];
        MPI_Comm_dup(MPI_COMM_WORLD, &th->comm);
        th->sbuf = bench_alloc((size_t)bytes);
        th->rbuf = bench_alloc((size_t)bytes);
        memset(th->sbuf, 'a', (size_t)bytes);
        th->reqs = bench_alloc(sizeof(MPI_Request) * (size_t)c->window);
    }
    *ctx = c;
    return 0;
}

static void mt_teardown(void *ctx)
{
    struct mt_ctx *c = ctx;
    for (int t = 0; t < c->nthreads; t++) {
        MPI_Comm_free(&c->th[t].comm);
        free(c->th[t].sbuf), free(c->th[t].rbuf), free(c->th[t].reqs);
    }
    free(c);
}

/* One window from the sender half to the receiver half, then the ack back. */
static void mt_window(struct mt_ctx *c, struct mt_thread *th)
{
    int half = bench_nranks / 2, cnt = (int)c->n, ack = 0;
    int sender = bench_rank < half, peer = sender ? bench_rank + half : bench_rank - half;
    for (int w = 0; w < c->window; w++) {
        if (sender)
            MPI_Isend(th->sbuf, cnt, MPI_BYTE, peer, 1, th->comm, &th->reqs[w]);
        else
            MPI_Irecv(th->rbuf, cnt, MPI_BYTE, peer, 1, th->comm, &th->reqs[w]);
    }
    MPI_Waitall(c->window, th->reqs, MPI_STATUSES_IGNORE);
    if (sender)
        MPI_Recv(&ack, 1, MPI_INT, peer, 2, th->comm, MPI_STATUS_IGNORE);
    else
        MPI_Send(&ack, 1, MPI_INT, peer, 2, th->comm);
}

static void *mt_main(void *arg)
{
    struct mt_arg *a = arg;
    struct mt_ctx *c = a->c;
    for (int i = 0; i < c->warmup; i++)
        mt_window(c, &c->th[a->t]);
    pthread_barrier_wait(&c->start);
    if (a->t == 0)
        c->t0 = MPI_Wtime();
    for (int i = 0; i < c->iters; i++)
        mt_window(c, &c->th[a->t]);
    pthread_barrier_wait(&c->stop);
    if (a->t == 0)
        c->t1 = MPI_Wtime();
    return NULL;
}

static void mt_measure(const struct bench *b, const struct bench_opts *o, void *ctx, long n,
                       struct bench_result *r)
{
    (void)b;
    struct mt_ctx *c = ctx;
    pthread_t tid[MT_MAX_THREADS];
    struct mt_arg args[MT_MAX_THREADS];
    c->n = n;
    c->iters = bench_iters(o, n, 100, 20);
    c->warmup = bench_warmup(o, c->iters);
    pthread_barrier_init(&c->start, NULL, (unsigned)c->nthreads);
    pthread_barrier_init(&c->stop, NULL, (unsigned)c->nthreads);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < c->nthreads; t++) {
        args[t] = (struct mt_arg){c, t};
        pthread_create(&tid[t], NULL, mt_main, &args[t]);
    }
    for (int t = 0; t < c->nthreads; t++)
        pthread_join(tid[t], NULL);
    pthread_barrier_destroy(&c->start);
    pthread_barrier_destroy(&c->stop);
    /* the senders' rates add up; receivers contribute 0 */
    double msgs = (double)c->nthreads * c->iters * c->window;
    double rate = bench_rank < bench_nranks / 2 ? msgs / (c->t1 - c->t0) : 0;
    double sum = 0;
    MPI_Reduce(&rate, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    r->fig[0] = sum / 1e6;
    r->fig[1] = sum * (double)n / 1e6;
    r->min = r->max = r->fig[0];
}

enum { COST_REPS = 9 };

static double cost_loop(int iters, int test)
{
    int r;
    MPI_Request req = MPI_REQUEST_NULL;
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (test)
            MPI_Test(&req, &r, MPI_STATUS_IGNORE);
        else
            MPI_Comm_rank(MPI_COMM_WORLD, &r);
    }
    return (MPI_Wtime() - t0) / iters * 1e9;
}

static void cost_measure(const struct bench *b, const struct bench_opts *o, void *ctx, long n,
                         struct bench_result *r)
{
    (void)b, (void)ctx, (void)n;
    int iters = o->iters > 0 ? o->iters : 1000000;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int test = 0; bench_rank == 0 && test < 2; test++) {
        double best = 1e30;
        for (int k = 0; k < COST_REPS; k++) {
            double ns = cost_loop(iters, test);
            best = ns < best ? ns : best;
        }
        r->fig[test] = best;
    }
    r->min = r->max = r->fig[0];
    MPI_Barrier(MPI_COMM_WORLD);
}

const struct bench bench_thread_list[] = {
    {"call_cost",
     "thread",
     {"comm_rank_ns", "test_null_ns", NULL},
     0,
     BENCH_NOSIZE,
     1,
     0,
     NULL,
     cost_measure,
     NULL,
     NULL},
    {"mt_rate",
     "thread",
     {"rate_Mmsgps", "bw_MBps", NULL},
     0,
     BENCH_PAIRS,
     1,
     0,
     mt_setup,
     mt_measure,
     mt_teardown,
     NULL},
    {NULL, NULL, {NULL}, 0, 0, 0, 0, NULL, NULL, NULL, NULL},
};
