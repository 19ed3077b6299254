/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How the shm transport scales with the ranks of a node (not a test): N forked ranks open the
 * transport and connect to every rank, send WARM messages to every other rank (all-to-all, so
 * every path a busy node uses is set up), then all but rank 0 sleep while rank 0 times empty
 * progress() calls. Rank 0 prints its shared-memory mappings from /proc/self/smaps: Size
 * (mapped), Rss (pages it touched) and Pss (its share of them), and the segment it owns.
 * Usage: bench_shm_scale N [WARM]   (N <= 64; oversubscribing the cores is fine: the other ranks
 * sleep while rank 0 measures)
 */
#define _GNU_SOURCE
#include <string.h>
#include <time.h>

#include "ibex_config.h"
#include "tl_harness.h"

static _Atomic uint64_t got;
static int warm = 20;

static ibex_status_t scale_cb(void *arg, int src, const void *data, size_t len)
{
    (void)arg, (void)src, (void)data, (void)len;
    got++;
    return IBEX_OK;
}

static bool got_all(void *arg)
{
    return got >= *(uint64_t *)arg;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ns per empty progress() call: the median and the best of 101 short batches (on a loaded
 * machine the best batch is the one the scheduler left alone). */
static double empty_poll_ns(tl_proc_t *p, double *best_p)
{
    enum { NB = 101 };
    double v[NB];
    for (int r = 0; r < NB; r++) {
        int iters = 20000;
        double t0 = tlw_now();
        for (int i = 0; i < iters; i++)
            TLW_CHECK(p->ops.progress(p->tl) == 0);
        v[r] = (tlw_now() - t0) / iters * 1e9;
    }
    qsort(v, NB, sizeof(v[0]), cmp_double);
    *best_p = v[0];
    return v[NB / 2];
}

/* Sums the smaps fields of every mapping whose name contains "ibex-shm", in KiB. */
static void shm_maps_kib(long kib[3])
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    bool in = false;
    kib[0] = kib[1] = kib[2] = 0;
    while (f && fgets(line, sizeof(line), f)) {
        long v;
        if (strchr(line, '-') && strchr(line, ':') && line[0] != ' ' &&
            !(line[0] >= 'A' && line[0] <= 'Z'))
            in = strstr(line, "ibex-shm") != NULL;
        else if (in && sscanf(line, "Size: %ld", &v) == 1)
            kib[0] += v;
        else if (in && sscanf(line, "Rss: %ld", &v) == 1)
            kib[1] += v;
        else if (in && sscanf(line, "Pss: %ld", &v) == 1)
            kib[2] += v;
    }
    if (f)
        fclose(f);
}

static void scale_body(tl_proc_t *p)
{
    static unsigned char msg[64];
    int n = p->w->n;
    tlw_open(p, ibex_tl_component_find("shm"), scale_cb, NULL, false);
    for (int k = 0; k < warm; k++)
        for (int d = 1; d < n; d++)
            while (p->ops.send(p->ep[(p->rank + d) % n], msg, 8, msg, 8) != IBEX_OK)
                p->ops.progress(p->tl);
    uint64_t want = (uint64_t)warm * (uint64_t)(n - 1);
    tlw_progress_until(p, got_all, &want);
    tlw_barrier(p);
    if (p->rank == 0) {
        double best, ns = empty_poll_ns(p, &best);
        long kib[3];
        shm_maps_kib(kib);
        printf("ranks %2d  empty poll %6.1f ns (best %5.1f)  shm mapped %7ld KiB  rss %6ld KiB  "
               "pss %6ld KiB\n",
               n, ns, best, kib[0], kib[1], kib[2]);
        fflush(stdout);
        atomic_store(&p->w->scratch[0], 1);
    } else {
        while (!atomic_load(&p->w->scratch[0])) {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
    }
    tlw_close(p);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2;
    warm = argc > 2 ? atoi(argv[2]) : warm;
    if (n < 2 || n > TLW_MAX || warm < 1 || ibex_config_load() != IBEX_OK)
        return 2;
    return tlw_run(n, 300, scale_body, NULL) == 0 ? 0 : 1;
}
