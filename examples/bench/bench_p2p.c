/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Point-to-point benchmarks:
 *   latency  ping-pong between ranks 0 and 1, half the round trip
 *   bw       ranks 0 -> 1: a window of non-blocking sends, then a one-int ack
 *   bibw     the same in both directions at once
 *   mbw_mr   every rank i paired with i + size/2: aggregate bandwidth and message rate
 * MB/s are 10^6 bytes per second. Under -c every message is filled with a pattern and checked
 * on receipt inside the timed loop, so the figures include that work. Under --block B a message
 * of n bytes is MPI_Type_vector(n / B, B, 2B) of MPI_BYTE on both sides (a strided halo), so
 * the buffers are twice n and the figures count the n bytes moved.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#define REPS 5 /* repetitions of a 2-rank measurement (-f: min / avg / max over them) */

enum p2p_op { LATENCY, BW, BIBW, MBW_MR };

struct p2p_ctx {
    unsigned char **sbufs, **rbufs; /* one per window slot under -c, else one */
    int slots;
    MPI_Request *reqs;
    MPI_Datatype dt; /* this size's message: n bytes, or the vector of --block */
    int cnt;
    long block; /* 0: contiguous */
};

/* The message of n bytes for this size: contiguous, or strided in blocks of --block. */
static void p2p_type(struct p2p_ctx *c, const struct bench_opts *o, long n)
{
    if (c->dt != MPI_BYTE)
        MPI_Type_free(&c->dt);
    c->dt = MPI_BYTE, c->cnt = (int)n, c->block = 0;
    if (o->block > 0 && n > 0 && n % o->block == 0) {
        MPI_Type_vector((int)(n / o->block), (int)o->block, (int)(2 * o->block), MPI_BYTE, &c->dt);
        MPI_Type_commit(&c->dt);
        c->cnt = 1, c->block = o->block;
    }
}

/* Byte j of the message lives at j, or (strided) at j + (j / B) * B. */
static long p2p_at(const struct p2p_ctx *c, long j)
{
    return c->block ? j + j / c->block * c->block : j;
}

static void p2p_fill(const struct p2p_ctx *c, unsigned char *buf, long n, long seq, int src)
{
    if (!c->block) {
        bench_fill(buf, n, seq, src);
        return;
    }
    for (long j = 0; j < n; j++)
        buf[p2p_at(c, j)] = bench_pattern(seq, src, j);
}

static void p2p_verify(const struct p2p_ctx *c, const unsigned char *buf, long n, long seq, int src)
{
    if (!c->block) {
        bench_verify(buf, n, seq, src);
        return;
    }
    for (long j = 0; j < n; j++)
        if (buf[p2p_at(c, j)] != bench_pattern(seq, src, j))
            bench_errors++;
}

static int p2p_setup(const struct bench *b, const struct bench_opts *o, void **ctx)
{
    struct p2p_ctx *c = bench_alloc(sizeof *c);
    long bytes = (o->max_size > 0 ? o->max_size : 1) * (o->block > 0 ? 2 : 1);
    c->dt = MPI_BYTE;
    c->slots = o->check && b->op != LATENCY ? o->window : 1;
    c->sbufs = bench_alloc(sizeof(void *) * (size_t)c->slots);
    c->rbufs = bench_alloc(sizeof(void *) * (size_t)c->slots);
    c->reqs = bench_alloc(sizeof(MPI_Request) * 2 * (size_t)o->window);
    for (int s = 0; s < c->slots; s++) {
        c->sbufs[s] = bench_alloc((size_t)bytes);
        c->rbufs[s] = bench_alloc((size_t)bytes);
        memset(c->sbufs[s], 'a', (size_t)bytes);
        memset(c->rbufs[s], 'b', (size_t)bytes);
    }
    *ctx = c;
    return 0;
}

static void p2p_teardown(void *ctx)
{
    struct p2p_ctx *c = ctx;
    if (c->dt != MPI_BYTE)
        MPI_Type_free(&c->dt);
    for (int s = 0; s < c->slots; s++)
        free(c->sbufs[s]), free(c->rbufs[s]);
    free(c->sbufs);
    free(c->rbufs);
    free(c->reqs);
    free(c);
}

/* One ping-pong repetition of `iters` round trips; returns seconds (rank 0 and 1). */
static double pingpong(const struct p2p_ctx *c, long n, int iters, int check)
{
    unsigned char *buf = c->sbufs[0];
    int peer = 1 - bench_rank, cnt = c->cnt;
    MPI_Datatype dt = c->dt;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters && bench_rank < 2; i++) {
        if (bench_rank == 0) {
            if (check)
                p2p_fill(c, buf, n, 2L * i, 0);
            MPI_Send(buf, cnt, dt, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, cnt, dt, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (check)
                p2p_verify(c, buf, n, 2L * i + 1, 1);
        } else {
            MPI_Recv(buf, cnt, dt, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (check) {
                p2p_verify(c, buf, n, 2L * i, 0);
                p2p_fill(c, buf, n, 2L * i + 1, 1);
            }
            MPI_Send(buf, cnt, dt, peer, 1, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

/* A windowed stream: this rank and its peer, which way (bibw: both). */
struct stream {
    long n;
    int window, peer, send, recv, check;
};

/* `iters` windows; returns seconds. Under -c slot w of the window uses its own buffer; else
 * every slot shares buffer 0. An ack of one int ends each window of a one-way stream. */
static double stream(struct p2p_ctx *c, const struct stream *s, int iters)
{
    int cnt = c->cnt, ack = 0, chk = s->check;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters && s->peer >= 0; i++) {
        int k = 0;
        long seq = (long)i * s->window;
        for (int w = 0; s->recv && w < s->window; w++)
            MPI_Irecv(c->rbufs[chk ? w : 0], cnt, c->dt, s->peer, 2, MPI_COMM_WORLD, &c->reqs[k++]);
        for (int w = 0; s->send && w < s->window; w++) {
            if (chk)
                p2p_fill(c, c->sbufs[w], s->n, seq + w, bench_rank);
            MPI_Isend(c->sbufs[chk ? w : 0], cnt, c->dt, s->peer, 2, MPI_COMM_WORLD, &c->reqs[k++]);
        }
        MPI_Waitall(k, c->reqs, MPI_STATUSES_IGNORE);
        for (int w = 0; chk && s->recv && w < s->window; w++)
            p2p_verify(c, c->rbufs[w], s->n, seq + w, s->peer);
        if (s->send && !s->recv)
            MPI_Recv(&ack, 1, MPI_INT, s->peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else if (s->recv && !s->send)
            MPI_Send(&ack, 1, MPI_INT, s->peer, 3, MPI_COMM_WORLD);
    }
    return MPI_Wtime() - t0;
}

static void mbw_mr(const struct bench_opts *o, struct p2p_ctx *c, long n, struct bench_result *r)
{
    int iters = bench_iters(o, n, 100, 20), half = bench_nranks / 2;
    int send = bench_rank < half, peer = send ? bench_rank + half : bench_rank - half;
    struct stream s = {n, o->window, peer, send, !send, o->check};
    stream(c, &s, bench_warmup(o, iters));
    double secs = stream(c, &s, iters), tmax = 0;
    double msgs = (double)iters * o->window, mine = n * msgs / secs / 1e6;
    MPI_Comm senders;
    MPI_Comm_split(MPI_COMM_WORLD, send, 0, &senders);
    if (send)
        bench_over_ranks(mine, senders, r);
    MPI_Comm_free(&senders);
    MPI_Reduce(&secs, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    r->fig[0] = n * msgs * half / tmax / 1e6; /* aggregate: all pairs' bytes */
    r->fig[1] = msgs * half / tmax;
}

static void p2p_measure(const struct bench *b, const struct bench_opts *o, void *ctx, long n,
                        struct bench_result *r)
{
    struct p2p_ctx *c = ctx;
    p2p_type(c, o, n);
    int lat = b->op == LATENCY,
        iters = lat ? bench_iters(o, n, 1000, 100) : bench_iters(o, n, 100, 20);
    if (b->op == MBW_MR) {
        mbw_mr(o, c, n, r);
        return;
    }
    int reps = o->full ? REPS : 1, per = reps > 1 ? (iters + reps - 1) / reps : iters;
    int peer = bench_rank < 2 ? 1 - bench_rank : -1, two = b->op == BIBW;
    struct stream s = {n,       o->window, peer, two || bench_rank == 0, two || bench_rank == 1,
                       o->check};
    double v[REPS];
    for (int k = 0; k < reps; k++) {
        if (lat) {
            if (k == 0)
                pingpong(c, n, bench_warmup(o, iters), o->check);
            v[k] = pingpong(c, n, per, o->check) * 1e6 / (2.0 * per);
        } else {
            if (k == 0)
                stream(c, &s, bench_warmup(o, iters));
            v[k] = (double)n * o->window * per * (two ? 2 : 1) / stream(c, &s, per) / 1e6;
        }
    }
    bench_stats(v, reps, &r->fig[0], &r->min, &r->max);
}

#define P2P(name, col, op, flags)                                                                  \
    {                                                                                              \
        name, "pt2pt", {col, op == MBW_MR ? "msg_rate_per_s" : NULL}, op, flags, 1, 0, p2p_setup,  \
            p2p_measure, p2p_teardown, NULL                                                        \
    }

const struct bench bench_p2p_list[] = {
    P2P("latency", "latency_us", LATENCY, 0),
    P2P("bw", "bw_MBps", BW, BENCH_PAIRS),
    P2P("bibw", "bw_MBps", BIBW, BENCH_PAIRS),
    P2P("mbw_mr", "bw_MBps", MBW_MR, BENCH_PAIRS),
    {NULL},
};
