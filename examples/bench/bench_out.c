/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-bench's output: an aligned table, CSV or JSON, one block per benchmark. With more than
 * one benchmark, CSV gains a leading `benchmark` column (each block its own header line) and
 * JSON becomes an array of the single-benchmark objects. The progress line goes to a terminal
 * only.
 */
#include "bench.h"

#include <string.h>
#include <unistd.h>

static int multi; /* more than one benchmark in this run */

static const char *const sync_names[] = {"flush", "lock", "fence"};
static const char *const win_names[] = {"allocate", "create"};

/* Column names: size, the headline figure, [its min, max], the further figures. */
static int columns(const struct bench_opts *o, const struct bench *b, const char **names)
{
    static char mn[64], mx[64];
    int k = 0;
    names[k++] = "size_B";
    names[k++] = b->cols[0];
    if (o->full) {
        snprintf(mn, sizeof mn, "min_%s", b->cols[0]);
        snprintf(mx, sizeof mx, "max_%s", b->cols[0]);
        names[k++] = mn;
        names[k++] = mx;
    }
    for (int i = 1; b->cols[i] != NULL && k < BENCH_MAX_COLS + 2; i++)
        names[k++] = b->cols[i];
    return k;
}

static const char *spread(const struct bench_opts *o, const struct bench *b)
{
    if (!o->full)
        return strcmp(b->area, "pt2pt") == 0 ? "average" : "average over ranks";
    if (strcmp(b->area, "pt2pt") == 0 && strcmp(b->name, "mbw_mr") != 0)
        return "min/avg/max over 5 repetitions";
    if (strcmp(b->area, "pt2pt") == 0 || strcmp(b->area, "rma") == 0)
        return "min/avg/max over origin (sending) ranks";
    return "min/avg/max over ranks";
}

void bench_out_begin(const struct bench_opts *o, int nruns)
{
    multi = nruns > 1;
    if (multi && o->format == BENCH_JSON)
        printf("[\n");
}

static void header_table(const struct bench_opts *o, const struct bench *b, const char *lib)
{
    printf("# ibex-bench %s (%s)\n# %d ranks", b->name, lib, bench_nranks);
    if (strcmp(b->area, "rma") == 0)
        printf(", sync %s, window from MPI_Win_%s", sync_names[o->sync], win_names[o->win]);
    if ((strcmp(b->area, "pt2pt") == 0 && strcmp(b->name, "latency") != 0) ||
        strstr(b->name, "_bw") != NULL)
        printf(", window %d", o->window);
    printf(", %s%s\n", spread(o, b), o->check ? ", data validated" : "");
}

void bench_out_header(const struct bench_opts *o, const struct bench *b, const char *lib, int k)
{
    const char *names[BENCH_MAX_COLS + 3];
    int n = columns(o, b, names);
    if (o->format == BENCH_TABLE) {
        printf(k > 0 ? "\n" : "");
        header_table(o, b, lib);
        for (int i = 0; i < n; i++)
            printf(i ? " %16s" : "%-12s", names[i]);
        printf("\n");
    } else if (o->format == BENCH_CSV) {
        printf(multi ? "benchmark," : "");
        for (int i = 0; i < n; i++)
            printf(i ? ",%s" : "%s", names[i]);
        printf("\n");
    } else {
        printf("%s{\n  \"benchmark\": \"%s\",\n  \"library\": \"%s\",\n  \"ranks\": %d,\n"
               "  \"window\": %d,\n  \"validated\": %s,\n",
               k > 0 ? ",\n" : "", b->name, lib, bench_nranks, o->window,
               o->check ? "true" : "false");
        if (strcmp(b->area, "rma") == 0)
            printf("  \"sync\": \"%s\",\n  \"win\": \"%s\",\n", sync_names[o->sync],
                   win_names[o->win]);
        printf("  \"results\": [");
    }
}

/* Decimals for v: prec, or more for a small value so that it keeps three significant digits
 * (a message rate of 0.004 Mmsg/s under load printed as 0.00 read as no traffic at all). */
static int decimals(double v, int prec)
{
    double a = v < 0 ? -v : v, floor = 100;
    for (int i = 0; i < prec; i++)
        floor /= 10;
    while (a > 0 && a < floor && prec < 9)
        floor /= 10, prec++;
    return prec;
}

void bench_out_row(const struct bench_opts *o, const struct bench *b, long n,
                   const struct bench_result *r, int first)
{
    const char *names[BENCH_MAX_COLS + 3];
    double v[BENCH_MAX_COLS + 3] = {(double)n, r->fig[0]};
    int k = columns(o, b, names), j = 2;
    if (o->full)
        v[j++] = r->min, v[j++] = r->max;
    for (int i = 1; j < k; i++)
        v[j++] = r->fig[i];
    if (o->format == BENCH_JSON)
        printf("%s\n    {", first ? "" : ",");
    if (o->format == BENCH_CSV && multi)
        printf("%s,", b->name);
    for (int i = 0; i < k; i++) {
        size_t len = strlen(names[i]);
        int prec = decimals(v[i], len > 3 && strcmp(names[i] + len - 3, "_us") == 0 ? 3 : 2);
        if (o->format == BENCH_TABLE)
            i ? printf(" %16.*f", prec, v[i]) : printf("%-12ld", n);
        else if (o->format == BENCH_CSV)
            i ? printf(",%.*f", prec, v[i]) : printf("%ld", n);
        else
            i ? printf(", \"%s\": %.*f", names[i], prec, v[i]) : printf("\"size_B\": %ld", n);
    }
    printf(o->format == BENCH_JSON ? "}" : "\n");
    fflush(stdout);
}

void bench_out_end_bench(const struct bench_opts *o, const struct bench *b, int last)
{
    if (o->format == BENCH_JSON)
        printf("\n  ]\n}%s", multi ? (last ? "\n]\n" : "") : "\n");
    fflush(stdout);
}

/* The library's name: the first line of MPI_Get_library_version, trimmed. */
void bench_out_library(char *out, size_t len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(v, &n);
    v[n < (int)sizeof v ? n : (int)sizeof v - 1] = '\0';
    v[strcspn(v, "\r\n")] = '\0';
    for (char *c = v; *c; c++)
        if (*c == '"' || *c == '\\' || (unsigned char)*c < 32)
            *c = ' ';
    while (strlen(v) > 0 && (v[strlen(v) - 1] == ' ' || v[strlen(v) - 1] == ','))
        v[strlen(v) - 1] = '\0';
    snprintf(out, len, "%s", v);
}

/* A live line on a terminal (rank 0's stderr); nothing on a pipe. done < 0 clears it. */
void bench_out_progress(const struct bench *b, long n, int done, int count)
{
    static int tty = -1;
    if (tty < 0)
        tty = bench_rank == 0 && isatty(2);
    if (!tty)
        return;
    if (done < 0)
        fprintf(stderr, "\r\033[K");
    else
        fprintf(stderr, "\r\033[Kibex-bench %s: size %ld (%d of %d)", b->name, n, done + 1, count);
}
