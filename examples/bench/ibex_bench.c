/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-bench: point-to-point micro-benchmarks in the style of the common MPI suites (standard
 * MPI only, so the same source builds with ibexcc, mpicc.openmpi and mpicc.mpich).
 *   latency  ping-pong between ranks 0 and 1, half the round trip
 *   bw       ranks 0 -> 1: a window of non-blocking sends, then a one-int ack
 *   bibw     the same in both directions at once
 *   mbw_mr   every rank i paired with i + size/2: aggregate bandwidth and message rate
 * Usage: ibex-bench BENCHMARK [options]   (ibex-bench -h lists them)
 * MB/s are 10^6 bytes per second. Under -c every message is filled with a pattern and checked
 * on receipt inside the timed loop, so the figures include that work.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum bench { LATENCY, BW, BIBW, MBW_MR };
enum format { TABLE, CSV, JSON };
static const char *const bench_names[] = {"latency", "bw", "bibw", "mbw_mr"};

#define REPS     5    /* repetitions of a 2-rank measurement (-f: min / avg / max over them) */
#define LARGE    8192 /* past this size the default iteration counts drop */
#define MAX_SIZE (1L << 30)

struct opts {
    enum bench bench;
    enum format format;
    long min_size, max_size;
    int iters, warmup, window; /* iters / warmup < 0: defaults by size */
    int full, check;
};

struct result {
    double avg, min, max; /* latency in us or bandwidth in MB/s */
    double rate;          /* mbw_mr: messages per second */
};

static int rank, nranks;
static long errors; /* validation mismatches on this rank */

static void usage(FILE *f)
{
    fprintf(f, "usage: ibex-bench latency|bw|bibw|mbw_mr [options]\n"
               "  -m [MIN:]MAX   message sizes in bytes, k/m suffixes (default 0:1m); 0, then\n"
               "                 powers of two from MIN up to MAX\n"
               "  -i N           timed iterations per size (default 1000, 100 past 8k; bandwidth\n"
               "                 tests 100, 20 past 8k)\n"
               "  -x N           warm-up iterations per size (default a tenth of -i)\n"
               "  -w N           window of messages in flight for bw, bibw, mbw_mr (default 64)\n"
               "  -f             full statistics: min / avg / max over repetitions (2-rank "
               "tests)\n"
               "                 or over ranks (mbw_mr)\n"
               "  -c             validate the data: fill a pattern, check it on receipt\n"
               "  --format F     table (default), csv or json\n"
               "  -h             this help\n"
               "latency runs between ranks 0 and 1; bw, bibw and mbw_mr need an even number of\n"
               "ranks (bw and bibw use ranks 0 and 1, mbw_mr pairs rank i with i + size/2).\n");
}

/* parse_size: "64", "4k", "1m"; -1 if malformed or out of range. */
static long parse_size(const char *s)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    long v = strtol(s, &end, 10);
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    if (*end != '\0' || v < 0 || v > MAX_SIZE)
        return -1;
    return v;
}

static int parse_count(const char *s, int min)
{
    char *end;
    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    long v = strtol(s, &end, 10);
    return (*end != '\0' || v < min || v > 100000000) ? -1 : (int)v;
}

/* parse_args: 0 on success, else prints the reason (rank 0) and returns 2. */
static int parse_args(int argc, char **argv, struct opts *o)
{
    const char *why = NULL, *arg = "";
    *o = (struct opts){LATENCY, TABLE, 0, 1L << 20, -1, -1, 64, 0, 0};
    int i = 1, have_bench = 0;
    for (; i < argc && why == NULL; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        arg = a;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            if (rank == 0)
                usage(stdout);
            return 1;
        } else if (strcmp(a, "-m") == 0 && v != NULL) {
            char buf[64];
            snprintf(buf, sizeof buf, "%s", v);
            char *colon = strchr(buf, ':');
            if (colon != NULL) {
                *colon = '\0';
                o->min_size = parse_size(buf);
                o->max_size = parse_size(colon + 1);
            } else {
                o->max_size = parse_size(buf);
            }
            if (o->min_size < 0 || o->max_size < 0 || o->min_size > o->max_size)
                why = "bad size range (want [MIN:]MAX, e.g. 0:64k, MIN <= MAX <= 1024m)";
            i++;
        } else if (strcmp(a, "-i") == 0) {
            if ((o->iters = parse_count(v, 1)) < 0)
                why = "-i wants a count >= 1";
            i++;
        } else if (strcmp(a, "-x") == 0) {
            if ((o->warmup = parse_count(v, 0)) < 0)
                why = "-x wants a count >= 0";
            i++;
        } else if (strcmp(a, "-w") == 0) {
            if ((o->window = parse_count(v, 1)) < 0 || o->window > 100000)
                why = "-w wants a window between 1 and 100000";
            i++;
        } else if (strcmp(a, "-f") == 0) {
            o->full = 1;
        } else if (strcmp(a, "-c") == 0) {
            o->check = 1;
        } else if (strcmp(a, "--format") == 0 || strncmp(a, "--format=", 9) == 0) {
            const char *f = a[8] == '=' ? a + 9 : v;
            if (a[8] != '=')
                i++;
            if (f != NULL && strcmp(f, "table") == 0)
                o->format = TABLE;
            else if (f != NULL && strcmp(f, "csv") == 0)
                o->format = CSV;
            else if (f != NULL && strcmp(f, "json") == 0)
                o->format = JSON;
            else
                why = "--format wants table, csv or json";
        } else if (a[0] != '-' && !have_bench) {
            int b;
            for (b = 0; b < 4 && strcmp(a, bench_names[b]) != 0; b++)
                ;
            if (b == 4)
                why = "unknown benchmark (latency, bw, bibw or mbw_mr)";
            o->bench = (enum bench)b;
            have_bench = 1;
        } else {
            why = v == NULL && a[0] == '-' ? "unknown option or missing value"
                                           : "unexpected argument";
        }
    }
    if (why == NULL && !have_bench)
        why = "no benchmark given", arg = "";
    if (why == NULL)
        return 0;
    if (rank == 0) {
        fprintf(stderr, "ibex-bench: %s%s%s\n", arg, *arg ? ": " : "", why);
        usage(stderr);
    }
    return 2;
}

/* The pattern of message `seq` of `size` bytes from rank `src`: cheap, and differs between
 * consecutive messages and between neighbouring bytes. */
static unsigned char pattern(long seq, int src, long j)
{
    return (unsigned char)(seq * 31 + src * 7 + j + (j >> 8) + 1);
}

static void fill(unsigned char *buf, long n, long seq, int src)
{
    for (long j = 0; j < n; j++)
        buf[j] = pattern(seq, src, j);
}

static void verify(const unsigned char *buf, long n, long seq, int src)
{
    for (long j = 0; j < n; j++)
        if (buf[j] != pattern(seq, src, j))
            errors++;
}

/* One ping-pong repetition of `iters` round trips; returns seconds (rank 0 and 1). */
static double pingpong(unsigned char *buf, long n, int iters, int check)
{
    int peer = 1 - rank, cnt = (int)n;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters && rank < 2; i++) {
        if (rank == 0) {
            if (check)
                fill(buf, n, 2L * i, 0);
            MPI_Send(buf, cnt, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, cnt, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (check)
                verify(buf, n, 2L * i + 1, 1);
        } else {
            MPI_Recv(buf, cnt, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (check) {
                verify(buf, n, 2L * i, 0);
                fill(buf, n, 2L * i + 1, 1);
            }
            MPI_Send(buf, cnt, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

/* Windowed streaming between this rank and `peer`, `iters` windows; returns seconds.
 * send / recv: whether this rank sends, receives (bibw: both). Under `check` slot w of the
 * window uses its own buffer, bufs[w]; else every slot shares bufs[0]. An ack of one int ends
 * each window of a one-way stream. */
static double stream(unsigned char **sbufs, unsigned char **rbufs, long n, int iters, int window,
                     int peer, int send, int recv, int check, MPI_Request *reqs)
{
    int cnt = (int)n, ack = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters && peer >= 0; i++) {
        int k = 0;
        for (int w = 0; recv && w < window; w++)
            MPI_Irecv(rbufs[check ? w : 0], cnt, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &reqs[k++]);
        for (int w = 0; send && w < window; w++) {
            if (check)
                fill(sbufs[w], n, (long)i * window + w, rank);
            MPI_Isend(sbufs[check ? w : 0], cnt, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &reqs[k++]);
        }
        MPI_Waitall(k, reqs, MPI_STATUSES_IGNORE);
        for (int w = 0; check && recv && w < window; w++)
            verify(rbufs[w], n, (long)i * window + w, peer);
        if (send && !recv)
            MPI_Recv(&ack, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else if (recv && !send)
            MPI_Send(&ack, 1, MPI_INT, peer, 3, MPI_COMM_WORLD);
    }
    return MPI_Wtime() - t0;
}

static void stats(const double *v, int n, struct result *r)
{
    r->min = r->max = v[0];
    r->avg = 0;
    for (int i = 0; i < n; i++) {
        r->avg += v[i] / n;
        r->min = v[i] < r->min ? v[i] : r->min;
        r->max = v[i] > r->max ? v[i] : r->max;
    }
}

/* measure: one size; the result is meaningful on rank 0. */
static void measure(const struct opts *o, long n, unsigned char **sbufs, unsigned char **rbufs,
                    MPI_Request *reqs, struct result *r)
{
    int large = n > LARGE, lat = o->bench == LATENCY;
    int iters = o->iters > 0 ? o->iters : lat ? (large ? 100 : 1000) : (large ? 20 : 100);
    int warmup = o->warmup >= 0 ? o->warmup : iters / 10;
    int half = nranks / 2;
    double v[REPS];
    memset(r, 0, sizeof *r);
    if (o->bench == MBW_MR) {
        int peer = rank < half ? rank + half : rank - half, send = rank < half;
        stream(sbufs, rbufs, n, warmup, o->window, peer, send, !send, o->check, reqs);
        double secs = stream(sbufs, rbufs, n, iters, o->window, peer, send, !send, o->check, reqs);
        double msgs = (double)iters * o->window, mine = send ? n * msgs / secs / 1e6 : 0;
        double *all = rank == 0 ? malloc(sizeof(double) * (size_t)nranks) : NULL;
        double tmax;
        MPI_Gather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Reduce(&secs, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            stats(all, half, r);
            r->avg = n * msgs * half / tmax / 1e6; /* aggregate: all pairs' bytes */
            r->rate = msgs * half / tmax;
            free(all);
        }
        return;
    }
    int reps = o->full ? REPS : 1, per = reps > 1 ? (iters + reps - 1) / reps : iters;
    int in_pair = rank < 2, peer = in_pair ? 1 - rank : -1;
    for (int k = 0; k < reps; k++) {
        double secs, bytes = (double)n * o->window * per;
        if (lat) {
            if (k == 0)
                pingpong(sbufs[0], n, warmup, o->check);
            secs = pingpong(sbufs[0], n, per, o->check);
            v[k] = secs * 1e6 / (2.0 * per);
        } else {
            int send = o->bench == BIBW || rank == 0, recv = o->bench == BIBW || rank == 1;
            if (k == 0)
                stream(sbufs, rbufs, n, warmup, o->window, peer, send, recv, o->check, reqs);
            secs = stream(sbufs, rbufs, n, per, o->window, peer, send, recv, o->check, reqs);
            v[k] = bytes * (o->bench == BIBW ? 2 : 1) / secs / 1e6;
        }
    }
    stats(v, reps, r);
}

/* The library's name: the first line of MPI_Get_library_version, trimmed. */
static void library(char *out, size_t len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(v, &n);
    v[n < (int)sizeof v ? n : (int)sizeof v - 1] = '\0';
    v[strcspn(v, "\r\n")] = '\0';
    for (char *c = v; *c; c++)
        if (*c == '"' || *c == '\\' || (unsigned char)*c < 32)
            *c = ' ';
    while (n > 0 && strlen(v) > 0 && (v[strlen(v) - 1] == ' ' || v[strlen(v) - 1] == ','))
        v[strlen(v) - 1] = '\0';
    snprintf(out, len, "%s", v);
}

/* Column names: size, then the figure (avg), [min, max], [message rate]. */
static int columns(const struct opts *o, const char **names)
{
    int k = 0;
    const char *unit = o->bench == LATENCY ? "us" : "MBps";
    static char avg[32], mn[40], mx[40];
    snprintf(avg, sizeof avg, "%s_%s", o->bench == LATENCY ? "latency" : "bw", unit);
    snprintf(mn, sizeof mn, "min_%s", avg);
    snprintf(mx, sizeof mx, "max_%s", avg);
    names[k++] = "size_B";
    names[k++] = avg;
    if (o->full) {
        names[k++] = mn;
        names[k++] = mx;
    }
    if (o->bench == MBW_MR)
        names[k++] = "msg_rate_per_s";
    return k;
}

static void header(const struct opts *o, const char *lib)
{
    const char *names[5];
    int k = columns(o, names);
    if (o->format == TABLE) {
        printf("# ibex-bench %s (%s)\n", bench_names[o->bench], lib);
        printf("# %d ranks, window %d, %s%s\n", nranks, o->window,
               o->full ? (o->bench == MBW_MR ? "min/max over sending ranks"
                                             : "min/avg/max over 5 repetitions")
                       : "average",
               o->check ? ", data validated" : "");
        for (int i = 0; i < k; i++)
            printf(i ? " %16s" : "%-12s", names[i]);
        printf("\n");
    } else if (o->format == CSV) {
        for (int i = 0; i < k; i++)
            printf(i ? ",%s" : "%s", names[i]);
        printf("\n");
    } else {
        printf("{\n  \"benchmark\": \"%s\",\n  \"library\": \"%s\",\n  \"ranks\": %d,\n"
               "  \"window\": %d,\n  \"validated\": %s,\n  \"results\": [",
               bench_names[o->bench], lib, nranks, o->window, o->check ? "true" : "false");
    }
}

static void row(const struct opts *o, long n, const struct result *r, int first)
{
    const char *names[5];
    int k = columns(o, names);
    double v[5] = {(double)n, r->avg, 0, 0, 0};
    int j = 2;
    if (o->full)
        v[j++] = r->min, v[j++] = r->max;
    if (o->bench == MBW_MR)
        v[j++] = r->rate;
    if (o->format == JSON)
        printf("%s\n    {", first ? "" : ",");
    for (int i = 0; i < k; i++) {
        int prec = o->bench == LATENCY ? 3 : 2;
        if (o->format == TABLE)
            i ? printf(" %16.*f", prec, v[i]) : printf("%-12ld", n);
        else if (o->format == CSV)
            i ? printf(",%.*f", prec, v[i]) : printf("%ld", n);
        else
            i ? printf(", \"%s\": %.*f", names[i], prec, v[i]) : printf("\"size_B\": %ld", n);
    }
    printf(o->format == JSON ? "}" : "\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    struct opts o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int rc = parse_args(argc, argv, &o);
    if (rc == 0 && nranks < 2) {
        if (rank == 0)
            fprintf(stderr, "ibex-bench: %s needs at least 2 ranks (got %d)\n",
                    bench_names[o.bench], nranks);
        rc = 2;
    } else if (rc == 0 && o.bench != LATENCY && nranks % 2 != 0) {
        if (rank == 0)
            fprintf(stderr, "ibex-bench: %s needs an even number of ranks (got %d)\n",
                    bench_names[o.bench], nranks);
        rc = 2;
    }
    if (rc != 0) {
        MPI_Finalize();
        return rc == 1 ? 0 : rc;
    }

    int slots = o.check && o.bench != LATENCY ? o.window : 1;
    long bytes = o.max_size > 0 ? o.max_size : 1;
    unsigned char **sbufs = malloc(sizeof(void *) * (size_t)slots);
    unsigned char **rbufs = malloc(sizeof(void *) * (size_t)slots);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)o.window);
    for (int s = 0; s < slots; s++) {
        sbufs[s] = malloc((size_t)bytes);
        rbufs[s] = malloc((size_t)bytes);
        if (sbufs[s] == NULL || rbufs[s] == NULL) {
            fprintf(stderr, "ibex-bench: rank %d: out of memory for %d x %ld bytes\n", rank, slots,
                    bytes);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memset(sbufs[s], 'a', (size_t)bytes);
        memset(rbufs[s], 'b', (size_t)bytes);
    }

    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    library(lib, sizeof lib);
    int progress = rank == 0 && isatty(2), count = 0, done = 0, bad = 0;
    for (long n = o.min_size; n <= o.max_size; n = n ? n * 2 : 1)
        count++;
    if (rank == 0)
        header(&o, lib);
    /* One untimed pass at the first size: connections come up on first use. */
    struct result unused;
    measure(&o, o.min_size, sbufs, rbufs, reqs, &unused);
    for (long n = o.min_size; n <= o.max_size; n = n ? n * 2 : 1) {
        struct result r;
        if (progress)
            fprintf(stderr, "\r\033[Kibex-bench %s: size %ld (%d of %d)", bench_names[o.bench], n,
                    done + 1, count);
        errors = 0;
        measure(&o, n, sbufs, rbufs, reqs, &r);
        long all_errors = 0;
        MPI_Reduce(&errors, &all_errors, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            if (progress)
                fprintf(stderr, "\r\033[K");
            row(&o, n, &r, done == 0);
            if (all_errors > 0) {
                fprintf(stderr, "ibex-bench: %s: validation failed at size %ld: %ld bytes wrong\n",
                        bench_names[o.bench], n, all_errors);
                bad = 1;
            }
        }
        done++;
    }
    if (rank == 0 && o.format == JSON)
        printf("\n  ]\n}\n");
    fflush(stdout);
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int s = 0; s < slots; s++)
        free(sbufs[s]), free(rbufs[s]);
    free(sbufs);
    free(rbufs);
    free(reqs);
    MPI_Finalize();
    return bad ? 1 : 0;
}
