/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A raw PMIx client for testing ibexrun without the MPI library: the same modes as mpi_fail.c,
 * spoken directly in PMIx (what MPI_Init / MPI_Finalize / MPI_Abort do underneath).
 *   pmix_client ok                 init, put/commit/fence/get every peer's key, print, finalize
 *   pmix_client exit CODE RANK     RANK exits with CODE after init; the others wait
 *   pmix_client abort CODE RANK    RANK calls PMIx_Abort(CODE); the others wait
 *   pmix_client nofinalize RANK    RANK exits 0 after init without finalize
 *   pmix_client segv RANK          RANK raises SIGSEGV after init
 *   pmix_client noinit RANK        RANK exits 0 before init; the others init and fence
 *   pmix_client cascade CODE RANK  RANK exits with CODE after init while the others are in a
 *                                  fence, which then fails: they exit 11 right after it
 *   pmix_client killfence RANK     RANK kills itself with SIGKILL after init while the others
 *                                  are in a fence, which then fails: they exit 11
 *   pmix_client sleep              every rank inits, prints "ready", then sleeps
 *   pmix_client dmodex             put/commit, then get every peer's key with no fence before
 *                                  (the lazy one-peer get: a remote peer's data comes by the
 *                                  server's direct modex), a fence without data, finalize
 *   pmix_client timing             rank 0 prints "fence_us F dmodex_us D": the mean of 20
 *                                  fences without data, and the time to get one key of every
 *                                  peer lazily (for docs/SCALING.md's tree measurements)
 * "The others wait" in pause(), not in a fence: a fence fails in every rank once one client
 * vanishes, and which failure ibexrun reaps first would then be a race (see the README).
 */
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pmix_proc_t me;

static int job_size(void)
{
    pmix_proc_t wild;
    pmix_value_t *val = NULL;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val) != PMIX_SUCCESS || !val) {
        fprintf(stderr, "rank %u: PMIx_Get(JOB_SIZE) failed\n", me.rank);
        exit(10);
    }
    int n = (int)val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    return n;
}

static void fence_collect(bool collect)
{
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    if (PMIx_Fence(NULL, 0, &info, 1) != PMIX_SUCCESS) {
        fprintf(stderr, "rank %u: PMIx_Fence failed\n", me.rank);
        exit(11);
    }
}

static void fence(void)
{
    fence_collect(true);
}

/* Every rank publishes "key" = its rank * 10 and reads every peer's after the fence (or,
 * lazily, without one). */
static void exchange(int size, bool lazy)
{
    pmix_value_t v;
    int mine = (int)me.rank * 10;
    PMIX_VALUE_LOAD(&v, &mine, PMIX_INT);
    if (PMIx_Put(PMIX_GLOBAL, "ibex.test", &v) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS)
        exit(12);
    if (!lazy)
        fence();
    for (int r = 0; r < size; r++) {
        pmix_proc_t peer;
        pmix_value_t *val = NULL;
        PMIX_LOAD_PROCID(&peer, me.nspace, (pmix_rank_t)r);
        if (PMIx_Get(&peer, "ibex.test", NULL, 0, &val) != PMIX_SUCCESS || !val ||
            val->data.integer != r * 10) {
            fprintf(stderr, "rank %u: wrong key of rank %d\n", me.rank, r);
            exit(13);
        }
        PMIX_VALUE_RELEASE(val);
    }
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Fences first (every rank is up after the first), then rank 0's lazy gets. */
static void timing(int size)
{
    fence_collect(false);
    double t0 = now_us();
    for (int i = 0; i < 20; i++)
        fence_collect(false);
    double fence_us = (now_us() - t0) / 20;
    pmix_value_t v;
    int mine = (int)me.rank * 10;
    PMIX_VALUE_LOAD(&v, &mine, PMIX_INT);
    if (PMIx_Put(PMIX_GLOBAL, "ibex.time", &v) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS)
        exit(12);
    fence_collect(false); /* committed everywhere: the gets below measure the path, not waits */
    t0 = now_us();
    for (int r = 0; me.rank == 0 && r < size; r++) {
        pmix_proc_t peer;
        pmix_value_t *val = NULL;
        PMIX_LOAD_PROCID(&peer, me.nspace, (pmix_rank_t)r);
        if (PMIx_Get(&peer, "ibex.time", NULL, 0, &val) != PMIX_SUCCESS || !val ||
            val->data.integer != r * 10)
            exit(13);
        PMIX_VALUE_RELEASE(val);
    }
    if (me.rank == 0)
        printf("fence_us %.0f dmodex_us %.0f\n", fence_us, now_us() - t0);
    fence_collect(false);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    /* exit and abort take CODE RANK, the other modes RANK; later words are ignored. */
    int two =
        strcmp(mode, "exit") == 0 || strcmp(mode, "abort") == 0 || strcmp(mode, "cascade") == 0;
    int code = two && argc > 2 ? atoi(argv[2]) : 0;
    int target = argc > 2 + two ? atoi(argv[2 + two]) : 0;
    const char *envrank = getenv("PMIX_RANK");
    if (strcmp(mode, "noinit") == 0 && envrank && atoi(envrank) == target)
        return 0;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_Init failed\n");
        return 20;
    }
    int size = job_size();
    bool is_target = (int)me.rank == target;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(mode, "ok") == 0) {
        exchange(size, false);
        printf("pmix rank %u of %d ok\n", me.rank, size);
    } else if (strcmp(mode, "timing") == 0) {
        timing(size);
    } else if (strcmp(mode, "dmodex") == 0) {
        exchange(size, true);
        fence_collect(false); /* nobody leaves while a peer may still ask for its data */
        printf("pmix rank %u of %d dmodex ok\n", me.rank, size);
    } else if (strcmp(mode, "sleep") == 0) {
        printf("rank %u ready\n", me.rank);
        for (;;)
            pause();
    } else if (is_target && (strcmp(mode, "exit") == 0 || strcmp(mode, "cascade") == 0)) {
        exit(code);
    } else if (is_target && strcmp(mode, "abort") == 0) {
        PMIx_Abort(code, "test abort", NULL, 0);
        exit(code);
    } else if (is_target && strcmp(mode, "nofinalize") == 0) {
        exit(0);
    } else if (is_target && strcmp(mode, "segv") == 0) {
        raise(SIGSEGV);
    } else if (is_target && strcmp(mode, "killfence") == 0) {
        kill(getpid(), SIGKILL);
    } else if (strcmp(mode, "noinit") == 0 || strcmp(mode, "cascade") == 0 ||
               strcmp(mode, "killfence") == 0) {
        fence(); /* waits for a rank that never comes */
    } else {
        for (;;) /* the others: stuck until the launcher stops them */
            pause();
    }
    PMIx_Finalize(NULL, 0);
    return 0;
}
