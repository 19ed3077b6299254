/* SPDX-License-Identifier: BSD-3-Clause */
/* ibex-bench's command line: the options of the common MPI micro-benchmark suites. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

static const struct bench *const *areas(void)
{
    static const struct bench *const all[] = {bench_p2p_list, bench_coll_list,   bench_nbc_list,
                                              bench_rma_list, bench_thread_list, NULL};
    return all;
}

/* list_names: the area's benchmarks, those not built marked with a `*`; 1 if any was. */
static int list_names(FILE *f, const char *area)
{
    int off = 0;
    for (const struct bench *const *a = areas(); *a != NULL; a++)
        for (const struct bench *b = *a; b->name != NULL; b++)
            if (strcmp(b->area, area) == 0) {
                fprintf(f, " %s%s", b->name, b->measure == NULL ? "*" : "");
                off |= b->measure == NULL;
            }
    return off;
}

static void usage(FILE *f)
{
    static const char *const names[] = {"pt2pt", "coll", "nbc", "rma", "thread"};
    int off = 0;
    fprintf(f, "usage: ibex-bench BENCHMARK|AREA|all [BENCHMARK ...] [options]\n");
    for (int i = 0; i < 5; i++) {
        fprintf(f, "  %-6s", names[i]);
        off |= list_names(f, names[i]);
        fprintf(f, "\n");
    }
    if (off)
        fprintf(f, "  (*: not built into this ibex-bench: the MPI library lacked it)\n");
    fprintf(
        f, "  -m [MIN:]MAX   message sizes in bytes, k/m suffixes (default 0:1m); 0, then\n"
           "                 powers of two from MIN up to MAX\n"
           "  --step F       sizes grow by F instead, a power of two (e.g. 4: 0, 1, 4, 16, ...)\n"
           "  -i N           timed iterations per size (default 1000, 100 past 8k; bandwidth\n"
           "                 tests 100, 20 past 8k)\n"
           "  -x N           warm-up iterations per size (default a tenth of -i)\n"
           "  -w N           window of messages in flight for the bandwidth tests (default 64)\n"
           "  -t N           non-blocking collectives: N MPI_Test calls spread over the\n"
           "                 computation (OSU's -t; default 0, OSU's default)\n"
           "  -f             full statistics: min / avg / max over ranks (collectives, one-sided,\n"
           "                 mbw_mr) or over 5 repetitions (latency, bw, bibw)\n"
           "  -c             validate the data against a reference computed locally (exit 1 on\n"
           "                 a mismatch)\n"
           "  -s SYNC        one-sided synchronisation: flush (default: one lock, MPI_Win_flush\n"
           "                 per operation or window), lock (lock / unlock each time) or fence\n"
           "  --win W        one-sided window: allocate (MPI_Win_allocate, default) or create\n"
           "                 (MPI_Win_create on malloc'd memory)\n"
           "  --thread L     MPI_Init_thread level: single (default), funneled, serialized or\n"
           "                 multiple (the calls stay on one thread: the cost of the level)\n"
           "  --threads T    threads per rank of mt_rate (default 2, at most 64); mt_rate asks\n"
           "                 for multiple; the thread area is not part of `all`\n"
           "  --block B      point-to-point benchmarks send and receive MPI_Type_vector(size/B,\n"
           "                 B bytes, stride 2B) (a strided halo); sizes that are not a multiple\n"
           "                 of B go contiguous\n"
           "  --format F     table (default), csv or json\n"
           "  -l             list the benchmarks built into this ibex-bench, one a line\n"
           "  -h             this help\n"
           "latency, bw and bibw run between ranks 0 and 1; bw, bibw, mbw_mr and the one-sided\n"
           "tests need an even number of ranks and pair rank i with i + size/2. Collectives run\n"
           "over all ranks; the i* ones report overlap %% = 100 * max(0, 1 - (overall -\n"
           "compute) / pure) as the OSU suite defines it.\n");
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
    if (*end != '\0' || v < 0 || v > BENCH_MAX_SIZE)
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

static const char *parse_range(const char *v, struct bench_opts *o)
{
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
        return "bad size range (want [MIN:]MAX, e.g. 0:64k, MIN <= MAX <= 1024m)";
    return NULL;
}

/* pick: v among names[0..n); its index, or -1. */
static int pick(const char *v, const char *const *names, int n)
{
    for (int i = 0; v != NULL && i < n; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    return -1;
}

const struct bench *bench_find(const char *name)
{
    for (const struct bench *const *a = areas(); *a != NULL; a++)
        for (const struct bench *b = *a; b->name != NULL; b++)
            if (strcmp(b->name, name) == 0)
                return b;
    return NULL;
}

static const char *add(struct bench_opts *o, const struct bench *b)
{
    if (b->measure == NULL)
        return b->off_why;
    if (o->nbench == (int)(sizeof o->list / sizeof o->list[0]))
        return "too many benchmarks";
    o->list[o->nbench++] = b;
    return NULL;
}

/* add_name: a benchmark, an area (its built benchmarks) or all. */
static const char *add_name(struct bench_opts *o, const char *name)
{
    const struct bench *b = bench_find(name);
    if (b != NULL)
        return add(o, b);
    int any = 0, built = 0;
    for (const struct bench *const *a = areas(); *a != NULL; a++)
        for (b = *a; b->name != NULL; b++) {
            if (strcmp(name, b->area) != 0 &&
                (strcmp(name, "all") != 0 || strcmp(b->area, "thread") == 0))
                continue;
            any = 1;
            const char *why = b->measure != NULL ? add(o, b) : NULL;
            if (why != NULL)
                return why;
            built |= b->measure != NULL;
        }
    if (!any)
        return "unknown benchmark (ibex-bench -h lists them)";
    return built ? NULL : "none of this area's benchmarks is built into this ibex-bench";
}

static const char *const thread_levels[] = {"single", "funneled", "serialized", "multiple"};

int bench_opts_thread(int argc, char **argv)
{
    static const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                 MPI_THREAD_MULTIPLE};
    for (int i = 1; i < argc; i++) {
        const char *v = strncmp(argv[i], "--thread=", 9) == 0              ? argv[i] + 9
                        : strcmp(argv[i], "--thread") == 0 && i + 1 < argc ? argv[i + 1]
                                                                           : NULL;
        int k = v ? pick(v, thread_levels, 4) : -1;
        if (k >= 0)
            return levels[k];
    }
    for (int i = 1; i < argc; i++) {
        const struct bench *b = bench_find(argv[i]);
        if (strcmp(argv[i], "thread") == 0 || (b != NULL && strcmp(b->name, "mt_rate") == 0))
            return MPI_THREAD_MULTIPLE;
    }
    return MPI_THREAD_SINGLE;
}

/* option: one option with its value v (NULL if none); *used is set when v was consumed. */
static const char *option(const char *a, const char *v, struct bench_opts *o, int *used)
{
    static const char *const formats[] = {"table", "csv", "json"};
    static const char *const syncs[] = {"flush", "lock", "fence"};
    static const char *const wins[] = {"allocate", "create"};
    int k;
    *used = 1;
    if (strcmp(a, "-m") == 0 && v != NULL)
        return parse_range(v, o);
    if (strcmp(a, "-i") == 0)
        return (o->iters = parse_count(v, 1)) < 0 ? "-i wants a count >= 1" : NULL;
    if (strcmp(a, "-x") == 0)
        return (o->warmup = parse_count(v, 0)) < 0 ? "-x wants a count >= 0" : NULL;
    if (strcmp(a, "-w") == 0)
        return (o->window = parse_count(v, 1)) < 0 || o->window > 100000
                   ? "-w wants a window between 1 and 100000"
                   : NULL;
    if (strcmp(a, "-t") == 0)
        return (o->probes = parse_count(v, 0)) < 0 || o->probes > 100000
                   ? "-t wants a count between 0 and 100000"
                   : NULL;
    if (strcmp(a, "--threads") == 0)
        return (o->threads = parse_count(v, 1)) < 0 || o->threads > 64
                   ? "--threads wants a count between 1 and 64"
                   : NULL;
    if (strcmp(a, "--step") == 0)
        return (o->step = parse_count(v, 2)) < 0 || o->step > 1024 || (o->step & (o->step - 1))
                   ? "--step wants a power of two between 2 and 1024"
                   : NULL;
    if (strcmp(a, "--block") == 0)
        return (o->block = v ? parse_size(v) : -1) < 1 ? "--block wants a size >= 1" : NULL;
    if (strcmp(a, "--format") == 0)
        return (k = pick(v, formats, 3)) < 0 ? "--format wants table, csv or json"
                                             : (o->format = (enum bench_format)k, NULL);
    if (strcmp(a, "-s") == 0)
        return (k = pick(v, syncs, 3)) < 0 ? "-s wants flush, lock or fence"
                                           : (o->sync = (enum bench_sync)k, NULL);
    if (strcmp(a, "--win") == 0)
        return (k = pick(v, wins, 2)) < 0 ? "--win wants allocate or create"
                                          : (o->win = (enum bench_win)k, NULL);
    if (strcmp(a, "--thread") == 0) /* used by bench_opts_thread, before MPI_Init */
        return pick(v, thread_levels, 4) < 0
                   ? "--thread wants single, funneled, serialized or multiple"
                   : NULL;
    *used = 0;
    if (strcmp(a, "-f") == 0)
        return o->full = 1, NULL;
    if (strcmp(a, "-c") == 0)
        return o->check = 1, NULL;
    return "unknown option or missing value";
}

static int special(const char *a)
{
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
        if (bench_rank == 0)
            usage(stdout);
        return 1;
    }
    if (strcmp(a, "-l") == 0 || strcmp(a, "--list") == 0) {
        for (const struct bench *const *l = areas(); bench_rank == 0 && *l != NULL; l++)
            for (const struct bench *b = *l; b->name != NULL; b++)
                if (b->measure != NULL)
                    printf("%s %s\n", b->name, b->area);
        return 1;
    }
    return 0;
}

int bench_opts_parse(int argc, char **argv, struct bench_opts *o)
{
    const char *why = NULL, *arg = "";
    *o = (struct bench_opts){
        .max_size = 1L << 20, .iters = -1, .warmup = -1, .window = 64, .step = 2, .threads = 2};
    for (int i = 1; i < argc && why == NULL; i++) {
        char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL, *eq;
        int used = 0;
        arg = a;
        if (special(a))
            return 1;
        if (strncmp(a, "--", 2) == 0 && (eq = strchr(a, '=')) != NULL) {
            char name[32];
            snprintf(name, sizeof name, "%.*s", (int)(eq - a), a);
            why = option(name, eq + 1, o, &used);
        } else if (a[0] == '-') {
            why = option(a, v, o, &used);
            i += used;
        } else {
            why = add_name(o, a);
        }
    }
    if (why == NULL && o->nbench == 0)
        why = "no benchmark given", arg = "";
    if (why == NULL)
        return 0;
    if (bench_rank == 0) {
        fprintf(stderr, "ibex-bench: %s%s%s\n", arg, *arg ? ": " : "", why);
        usage(stderr);
    }
    return 2;
}
