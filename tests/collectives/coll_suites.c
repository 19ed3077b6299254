/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The call sequences of the public collective benchmarks, with every result checked.
 *
 * OSU micro-benchmarks (osu_allreduce, osu_bcast, osu_reduce, osu_alltoall(v), osu_allgather(v),
 * osu_gather(v), osu_scatter(v), osu_reduce_scatter, osu_barrier and their i-forms): on
 * MPI_COMM_WORLD and on a Comm_dup of it, sizes 1 B (4 B for the float reductions) to MAX by
 * powers of two, MPI_CHAR data and MPI_FLOAT with MPI_SUM, root 0; every timed call between
 * MPI_Wtime reads with an MPI_Barrier after it; the non-blocking forms first started and waited
 * for (the pure time), then started, computed for that long with MPI_Test probes in between
 * (OSU's -t), MPI_Wait; the v-forms' count arrays only at the root (NULL elsewhere), the
 * reduce-scatter counts as OSU spreads the remainder; -f full statistics: MPI_Reduce of the
 * latency with MPI_MIN, MPI_MAX and MPI_SUM and of the overlap figures, checked against the
 * ranks' values gathered by point-to-point.
 *
 * IMB-MPI1 (Barrier, Bcast, Reduce, Allreduce, Gather(v), Scatter(v), Allgather(v),
 * Alltoall(v), Reduce_scatter, Reduce_scatter_block): groups of 2 .. size ranks made by
 * MPI_Comm_split (ranks outside a group pass MPI_UNDEFINED and get MPI_COMM_NULL), then the
 * -multi layout (several groups of the same size at once, the rest undefined), sizes 0 B and 1 B
 * to MAX, the root moving on every call (root_shift), MPI_FLOAT / MPI_SUM reductions with
 * IMB's recvcounts, the defects agreed by MPI_Allreduce, the groups freed.
 *
 * Usage: coll_suites [MAX_BYTES] (default 65536). Standard MPI only: it builds with any MPI.
 */
#define _POSIX_C_SOURCE 200809L
#include "mpitest.h"

enum kind {
    BARRIER,
    BCAST,
    REDUCE,
    ALLREDUCE,
    GATHER,
    GATHERV,
    SCATTER,
    SCATTERV,
    ALLGATHER,
    ALLGATHERV,
    ALLTOALL,
    ALLTOALLV,
    REDUCE_SCATTER,
    REDUCE_SCATTER_BLOCK,
    NKINDS
};

static const char *const kind_name[NKINDS] = {
    "barrier",  "bcast",     "reduce",         "allreduce",           "gather",
    "gatherv",  "scatter",   "scatterv",       "allgather",           "allgatherv",
    "alltoall", "alltoallv", "reduce_scatter", "reduce_scatter_block"};

/* One benchmark's state on one communicator. */
struct ctx {
    MPI_Comm comm;
    int rank, size, root;
    enum kind kind;
    size_t bytes;         /* the benchmark's message size */
    unsigned char *s, *r; /* max * size bytes each */
    int *counts, *displs; /* per rank; NULL at non-roots of the rooted v-forms */
    int osu;              /* OSU's layouts (else IMB's) */
};

static size_t max_bytes = 65536;

static int is_float(enum kind k)
{
    return k == REDUCE || k == ALLREDUCE || k == REDUCE_SCATTER || k == REDUCE_SCATTER_BLOCK;
}

static int is_rooted(enum kind k)
{
    return k == BCAST || k == REDUCE || k == GATHER || k == GATHERV || k == SCATTER ||
           k == SCATTERV;
}

/* The byte rank `from` contributes at index i for the receiver `to` in call `it`. */
static unsigned char bval(int from, int to, int it, size_t i)
{
    return (unsigned char)(from * 31 + to * 17 + it * 7 + (int)(i % 251) * 13 + 1);
}

/* Small integers, so a float sum over a few ranks is exact in any order. */
static float fval(int rank, int it, size_t i)
{
    return (float)((rank * 7 + it * 3 + (int)(i % 1009)) % 17);
}

static float fsum(int size, int it, size_t i)
{
    float t = 0;
    for (int r = 0; r < size; r++)
        t += fval(r, it, i);
    return t;
}

static int nfloats(const struct ctx *c)
{
    return (int)(c->bytes / sizeof(float));
}

/* Per-rank counts and displacements of the v-forms and reduce-scatter (a new array each call,
 * as the benchmarks fill theirs before the loop). */
static void layout(struct ctx *c)
{
    int p = c->size, n = nfloats(c);
    for (int j = 0; j < p; j++) {
        c->counts[j] = (int)c->bytes;
        c->displs[j] = j * (int)c->bytes;
    }
    if (c->kind == REDUCE_SCATTER) {
        /* OSU: portion = n / p, the remainder one more each to the first ranks; IMB: the
         * same portion, the remainder all to the last rank */
        int portion = n / p, rem = n % p;
        for (int j = 0; j < p; j++)
            c->counts[j] = portion + (c->osu ? (j < rem) : (j == p - 1) * rem);
    }
}

static int *rooted_array(const struct ctx *c, int *a)
{
    /* OSU allocates the count arrays of Gatherv / Scatterv only at the root */
    return c->osu && c->rank != c->root ? NULL : a;
}

static void fill(struct ctx *c, int it)
{
    size_t n = c->bytes;
    int p = c->size;
    memset(c->r, 0xA5, max_bytes * (size_t)p);
    if (is_float(c->kind)) {
        float *f = (float *)c->s;
        for (size_t i = 0; i < (size_t)nfloats(c); i++)
            f[i] = fval(c->rank, it, i);
        return;
    }
    if (c->kind == BCAST) {
        for (size_t i = 0; i < n; i++)
            c->r[i] = c->rank == c->root ? bval(c->root, 0, it, i) : 0x5A;
        return;
    }
    for (int to = 0; to < p; to++)
        for (size_t i = 0; i < n; i++)
            c->s[(size_t)to * n + i] = bval(c->rank, to, it, i);
}

static MPI_Request start_v(struct ctx *c, int nb)
{
    MPI_Request q = MPI_REQUEST_NULL;
    MPI_Comm w = c->comm;
    int n = (int)c->bytes, rt = c->root, *k = c->counts, *d = c->displs;
    unsigned char *own = c->s + (size_t)c->rank * c->bytes;
    switch (c->kind) {
    case GATHERV:
        nb ? MPI_Igatherv(c->s, n, MPI_CHAR, c->r, rooted_array(c, k), rooted_array(c, d), MPI_CHAR,
                          rt, w, &q)
           : MPI_Gatherv(c->s, n, MPI_CHAR, c->r, rooted_array(c, k), rooted_array(c, d), MPI_CHAR,
                         rt, w);
        break;
    case SCATTERV:
        nb ? MPI_Iscatterv(c->s, rooted_array(c, k), rooted_array(c, d), MPI_CHAR, c->r, n,
                           MPI_CHAR, rt, w, &q)
           : MPI_Scatterv(c->s, rooted_array(c, k), rooted_array(c, d), MPI_CHAR, c->r, n, MPI_CHAR,
                          rt, w);
        break;
    case ALLGATHERV:
        nb ? MPI_Iallgatherv(own, n, MPI_CHAR, c->r, k, d, MPI_CHAR, w, &q)
           : MPI_Allgatherv(own, n, MPI_CHAR, c->r, k, d, MPI_CHAR, w);
        break;
    case ALLTOALLV:
        nb ? MPI_Ialltoallv(c->s, k, d, MPI_CHAR, c->r, k, d, MPI_CHAR, w, &q)
           : MPI_Alltoallv(c->s, k, d, MPI_CHAR, c->r, k, d, MPI_CHAR, w);
        break;
    case REDUCE_SCATTER:
        nb ? MPI_Ireduce_scatter(c->s, c->r, k, MPI_FLOAT, MPI_SUM, w, &q)
           : MPI_Reduce_scatter(c->s, c->r, k, MPI_FLOAT, MPI_SUM, w);
        break;
    case REDUCE_SCATTER_BLOCK:
        nb ? MPI_Ireduce_scatter_block(c->s, c->r, nfloats(c) / c->size, MPI_FLOAT, MPI_SUM, w, &q)
           : MPI_Reduce_scatter_block(c->s, c->r, nfloats(c) / c->size, MPI_FLOAT, MPI_SUM, w);
        break;
    default:
        break;
    }
    return q;
}

/* Starts (nb) or runs the benchmark's call, with the arguments the suites pass. */
static MPI_Request start(struct ctx *c, int nb)
{
    MPI_Request q = MPI_REQUEST_NULL;
    MPI_Comm w = c->comm;
    int n = (int)c->bytes, nf = nfloats(c), rt = c->root;
    /* Gather / Allgather send the rank's own block: what fill() made for receiver 0 */
    switch (c->kind) {
    case BARRIER:
        nb ? MPI_Ibarrier(w, &q) : MPI_Barrier(w);
        break;
    case BCAST:
        nb ? MPI_Ibcast(c->r, n, MPI_CHAR, rt, w, &q) : MPI_Bcast(c->r, n, MPI_CHAR, rt, w);
        break;
    case REDUCE:
        nb ? MPI_Ireduce(c->s, c->r, nf, MPI_FLOAT, MPI_SUM, rt, w, &q)
           : MPI_Reduce(c->s, c->r, nf, MPI_FLOAT, MPI_SUM, rt, w);
        break;
    case ALLREDUCE:
        nb ? MPI_Iallreduce(c->s, c->r, nf, MPI_FLOAT, MPI_SUM, w, &q)
           : MPI_Allreduce(c->s, c->r, nf, MPI_FLOAT, MPI_SUM, w);
        break;
    case GATHER:
        nb ? MPI_Igather(c->s, n, MPI_CHAR, c->r, n, MPI_CHAR, rt, w, &q)
           : MPI_Gather(c->s, n, MPI_CHAR, c->r, n, MPI_CHAR, rt, w);
        break;
    case SCATTER:
        nb ? MPI_Iscatter(c->s, n, MPI_CHAR, c->r, n, MPI_CHAR, rt, w, &q)
           : MPI_Scatter(c->s, n, MPI_CHAR, c->r, n, MPI_CHAR, rt, w);
        break;
    case ALLGATHER:
        nb ? MPI_Iallgather(c->s, n, MPI_CHAR, c->r, n, MPI_CHAR, w, &q)
           : MPI_Allgather(c->s, n, MPI_CHAR, c->r, n, MPI_CHAR, w);
        break;
    case ALLTOALL:
        nb ? MPI_Ialltoall(c->s, n, MPI_CHAR, c->r, n, MPI_CHAR, w, &q)
           : MPI_Alltoall(c->s, n, MPI_CHAR, c->r, n, MPI_CHAR, w);
        break;
    default:
        q = start_v(c, nb);
    }
    return q;
}

/* Block `from`'s bytes as this rank must have received them at offset `at` of rbuf. */
static int block_ok(const struct ctx *c, size_t at, int from, int to, int it)
{
    for (size_t i = 0; i < c->bytes; i++)
        if (c->r[at + i] != bval(from, to, it, i))
            return 0;
    return 1;
}

static int floats_ok(const struct ctx *c, int n, size_t first, int it)
{
    const float *f = (const float *)c->r;
    for (int i = 0; i < n; i++)
        if (f[i] != fsum(c->size, it, first + (size_t)i))
            return 0;
    return 1;
}

/* Offset of this rank's reduce-scatter block in the full vector. */
static size_t rs_first(const struct ctx *c)
{
    size_t first = 0;
    for (int j = 0; j < c->rank; j++)
        first += c->kind == REDUCE_SCATTER ? (size_t)c->counts[j] : (size_t)(nfloats(c) / c->size);
    return first;
}

/* 1 if this rank's results of call `it` are right. */
static int check(const struct ctx *c, int it)
{
    int p = c->size, me = c->rank, root = me == c->root;
    size_t n = c->bytes;
    switch (c->kind) {
    case BARRIER:
        return 1;
    case BCAST:
        return block_ok(c, 0, c->root, 0, it);
    case REDUCE:
        return !root || floats_ok(c, nfloats(c), 0, it);
    case ALLREDUCE:
        return floats_ok(c, nfloats(c), 0, it);
    case SCATTER:
    case SCATTERV:
        return block_ok(c, 0, c->root, me, it);
    case REDUCE_SCATTER:
        return floats_ok(c, c->counts[me], rs_first(c), it);
    case REDUCE_SCATTER_BLOCK:
        return floats_ok(c, nfloats(c) / p, rs_first(c), it);
    default:
        break;
    }
    if ((c->kind == GATHER || c->kind == GATHERV) && !root)
        return 1;
    for (int j = 0; j < p; j++) {
        int to = c->kind == ALLTOALL || c->kind == ALLTOALLV ? me : 0;
        if (c->kind == ALLGATHERV)
            to = j; /* each rank sends its block for receiver == its own rank */
        if (!block_ok(c, (size_t)j * n, j, to, it))
            return 0;
    }
    return 1;
}

static void fail(const struct ctx *c, int it, const char *how)
{
    int wr;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    fprintf(stderr, "FAIL rank %d (%d of %d): %s %s%s, %zu bytes, root %d, call %d\n", wr, c->rank,
            c->size, c->osu ? "osu" : "imb", kind_name[c->kind], how, c->bytes, c->root, it);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* OSU's -f statistics and IMB's timing output: n doubles per rank reduced with MPI_MIN,
 * MPI_MAX and MPI_SUM and gathered to rank 0, against copies sent by point-to-point. */
static void stats_check(MPI_Comm comm, const double *mine, int n)
{
    enum { MAXV = 8 };
    int me, p;
    double mn[MAXV], mx[MAXV], sum[MAXV], want[MAXV];
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    double *all = malloc(sizeof(double) * (size_t)(n * p)), *peer = malloc(sizeof(double) * n);
    CHECK(all && peer && n <= MAXV);
    CHECK_RC(MPI_Reduce(mine, mn, n, MPI_DOUBLE, MPI_MIN, 0, comm));
    CHECK_RC(MPI_Reduce(mine, mx, n, MPI_DOUBLE, MPI_MAX, 0, comm));
    CHECK_RC(MPI_Reduce(mine, sum, n, MPI_DOUBLE, MPI_SUM, 0, comm));
    CHECK_RC(MPI_Gather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, comm));
    if (me != 0) {
        MPI_Send(mine, n, MPI_DOUBLE, 0, 777, comm);
    } else {
        for (int v = 0; v < n; v++)
            want[v] = 0;
        for (int r = 0; r < p; r++) {
            if (r == 0)
                memcpy(peer, mine, sizeof(double) * n);
            else
                MPI_Recv(peer, n, MPI_DOUBLE, r, 777, comm, MPI_STATUS_IGNORE);
            for (int v = 0; v < n; v++) {
                CHECK(all[r * n + v] == peer[v]);
                CHECK(mn[v] <= peer[v] && mx[v] >= peer[v]);
                want[v] += peer[v];
            }
        }
        for (int v = 0; v < n; v++) {
            int hit_min = 0, hit_max = 0;
            for (int r = 0; r < p; r++)
                hit_min |= all[r * n + v] == mn[v], hit_max |= all[r * n + v] == mx[v];
            CHECK(hit_min && hit_max);
            double d = sum[v] - want[v];
            CHECK((d < 0 ? -d : d) <= 1e-9 * (want[v] < 0 ? -want[v] : want[v]) + 1e-300);
        }
    }
    free(all);
    free(peer);
}

static volatile double sink; /* the computation's result, so the compiler keeps it */

static double now(void)
{
    return MPI_Wtime();
}

/* OSU's dummy computation with probes: busy for `secs` in all, MPI_Test after each of
 * `probes` equal parts (OSU's -t); returns the time spent in MPI_Test. */
static double compute_probe(double secs, int probes, MPI_Request *q)
{
    double test = 0, x = 1;
    for (int k = 0; k < probes; k++) {
        double end = now() + secs / probes;
        while (now() < end)
            for (int i = 0; i < 200; i++)
                x = x * 1.0000001 + 1e-9;
        double t = now();
        int flag;
        CHECK_RC(MPI_Test(q, &flag, MPI_STATUS_IGNORE));
        test += now() - t;
    }
    sink = x;
    return test;
}

static int iters_for(const struct ctx *c)
{
    return c->bytes > 8192 ? 2 : 4;
}

/* OSU's timed loop: each call between two MPI_Wtime reads, an MPI_Barrier after it. */
static double osu_pure(struct ctx *c, int nb)
{
    int iters = iters_for(c), skip = 1;
    double timer = 0;
    for (int i = 0; i < iters + skip; i++) {
        fill(c, i);
        double t0 = now();
        MPI_Request q = start(c, nb);
        if (nb)
            CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
        double t1 = now();
        if (!check(c, i))
            fail(c, i, nb ? " (pure)" : "");
        if (i >= skip)
            timer += t1 - t0;
        CHECK_RC(MPI_Barrier(c->comm));
    }
    return timer / iters;
}

/* OSU's overlap loop: start, compute for the pure time with probes, wait. out[] = overall,
 * compute, test, wait, init per call (as calculate_and_print_stats reduces them). */
static void osu_overlap(struct ctx *c, double pure, double *out)
{
    int iters = iters_for(c), skip = 1;
    double work = pure < 0.02 ? pure : 0.02; /* bounded: a test, not a benchmark */
    for (int v = 0; v < 5; v++)
        out[v] = 0;
    for (int i = 0; i < iters + skip; i++) {
        fill(c, 100 + i);
        double t0 = now(), init = now();
        MPI_Request q = start(c, 1);
        init = now() - init;
        double tc = now();
        double test = compute_probe(work, 3, &q);
        tc = now() - tc;
        double tw = now();
        CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK(q == MPI_REQUEST_NULL);
        tw = now() - tw;
        double t1 = now();
        if (!check(c, 100 + i))
            fail(c, 100 + i, " (overlapped)");
        if (i >= skip) {
            double d[5] = {t1 - t0, tc, test, tw, init};
            for (int v = 0; v < 5; v++)
                out[v] += d[v] / iters;
        }
        CHECK_RC(MPI_Barrier(c->comm));
    }
}

static void ctx_init(struct ctx *c, MPI_Comm comm, enum kind k, int osu)
{
    memset(c, 0, sizeof(*c));
    c->comm = comm;
    c->kind = k;
    c->osu = osu;
    MPI_Comm_rank(comm, &c->rank);
    MPI_Comm_size(comm, &c->size);
    size_t all = max_bytes * (size_t)c->size + 64;
    c->s = malloc(all);
    c->r = malloc(all);
    c->counts = malloc(sizeof(int) * (size_t)c->size);
    c->displs = malloc(sizeof(int) * (size_t)c->size);
    CHECK(c->s && c->r && c->counts && c->displs);
}

static void ctx_free(struct ctx *c)
{
    free(c->s);
    free(c->r);
    free(c->counts);
    free(c->displs);
}

/* One OSU benchmark (osu_<kind>, or osu_i<kind> with nb) over its sizes on comm. */
static void osu_bench(MPI_Comm comm, enum kind k, int nb)
{
    struct ctx c;
    ctx_init(&c, comm, k, 1);
    size_t first = k == BARRIER ? 0 : is_float(k) ? sizeof(float) : 1;
    for (size_t n = first; n <= max_bytes; n *= 2) {
        c.bytes = n;
        layout(&c);
        CHECK_RC(MPI_Barrier(comm));
        double pure = osu_pure(&c, nb);
        if (!nb) {
            stats_check(comm, &pure, 1);
        } else {
            double v[6];
            osu_overlap(&c, pure, v);
            v[5] = pure;
            stats_check(comm, v, 6);
        }
        if (n == 0)
            break;
    }
    ctx_free(&c);
}

/* One IMB-MPI1 benchmark on a group: msglen 0, 1, 2, ... max; n_sample calls back to back
 * between one barrier and the clock, the root moving on every call. */
static void imb_bench(MPI_Comm g, enum kind k)
{
    struct ctx c;
    ctx_init(&c, g, k, 0);
    for (size_t n = 0; n <= max_bytes; n = n ? n * 2 : 1) {
        int samples = n > 8192 ? 2 : 5;
        c.bytes = n;
        c.root = 0;
        layout(&c);
        CHECK_RC(MPI_Barrier(g));
        double t0 = now();
        for (int i = 0; i < samples; i++) {
            if (is_rooted(k))
                c.root = i % c.size;
            fill(&c, i);
            start(&c, 0);
            if (!check(&c, i))
                fail(&c, i, "");
        }
        double t[2] = {(now() - t0) / samples, (double)n};
        stats_check(g, t, 2);
        if (k == BARRIER)
            break;
    }
    ctx_free(&c);
}

/* IMB's groups: the first np ranks (the rest MPI_UNDEFINED), then with -multi every full
 * block of np ranks at once. */
static void imb_groups(int world_rank, int world)
{
    for (int np = 2; np <= world; np++)
        for (int multi = 0; multi <= (world / np > 1); multi++) {
            int color = multi ? (world_rank / np < world / np ? world_rank / np : MPI_UNDEFINED)
                              : (world_rank < np ? 0 : MPI_UNDEFINED);
            MPI_Comm g;
            CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, color, world_rank, &g));
            CHECK((color == MPI_UNDEFINED) == (g == MPI_COMM_NULL));
            if (g != MPI_COMM_NULL) {
                int gs;
                MPI_Comm_size(g, &gs);
                CHECK(gs == np);
                for (int k = 0; k < NKINDS; k++)
                    imb_bench(g, (enum kind)k);
                CHECK_RC(MPI_Comm_free(&g));
            }
            int defects = 0, total = -1;
            CHECK_RC(MPI_Allreduce(&defects, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            CHECK(total == 0);
        }
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_RC(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        max_bytes = (size_t)strtoul(argv[1], NULL, 0);
    CHECK(max_bytes >= 4);
    /* OSU 7 runs on a duplicate of the world communicator; older ones on the world itself */
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    for (int pass = 0; pass < 2; pass++)
        for (int nb = 0; nb < 2; nb++)
            for (int k = 0; k < NKINDS; k++)
                osu_bench(pass ? dup : MPI_COMM_WORLD, (enum kind)k, nb);
    CHECK_RC(MPI_Comm_free(&dup));
    imb_groups(rank, size);
    mt_done("coll_suites");
    CHECK_RC(MPI_Finalize());
    return 0;
}
