/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scaffolding of the one-sided short-path tests (win_cas.c, win_fop.c): the run's window modes
 * (MT_WIN_AM / MT_WIN_RDMA: the library was told IBEX_WIN_DIRECT=0; MT_SOFTIB: softib's
 * counters, found with dlsym), Ibex's short-path counters (MPI_T performance variables, checked
 * per section: exactly the operations expected took each; under another MPI they are off and
 * only the data is checked) and the three window flavours each test runs on. Standard MPI only.
 */
#ifndef WIN_SHORT_H
#define WIN_SHORT_H

#include <dlfcn.h>
#include <stdbool.h>

#include "mpitest.h"
#include "softib_counters.h"

#define WS_MAX 4 /* counters of one test */

static int rank, size;
static bool on_map;     /* windows of allocate / allocate_shared are on the shared mapping */
static bool win_mapped; /* the current window is */
static bool on_rdma;    /* allocate / create windows are on the network direct path */
static bool win_rdma;   /* the current window is */
static softib_counters_get_fn counters; /* MT_SOFTIB: softib's (softib_counters.h) */
static const char *win_name;

static struct {
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h[WS_MAX];
    bool on;
    int n;
    const char *const *what; /* per counter, for messages: "CASes" */
    unsigned long long base[WS_MAX],
        want[WS_MAX]; /* the counts at the section's start; expected since */
} sc;

static unsigned long long short_read(int k)
{
    unsigned long long v = 0;
    if (sc.on)
        CHECK_RC(MPI_T_pvar_read(sc.s, sc.h[k], &v));
    return v;
}

/* The counters names[0 .. n) (all present, else off). */
static void short_start(const char *const names[], const char *const what[], int n)
{
    int idx[WS_MAX], count;
    CHECK(n <= WS_MAX);
    sc.n = n;
    sc.what = what;
    sc.on = true;
    for (int k = 0; k < n; k++)
        sc.on = (idx[k] = mt_pvar_index(names[k])) >= 0 && sc.on;
    if (!sc.on)
        return;
    CHECK_RC(MPI_T_pvar_session_create(&sc.s));
    for (int k = 0; k < n; k++) {
        CHECK_RC(MPI_T_pvar_handle_alloc(sc.s, idx[k], NULL, &sc.h[k], &count));
        CHECK(count == 1);
        CHECK_RC(MPI_T_pvar_start(sc.s, sc.h[k]));
    }
}

static void section(void)
{
    for (int k = 0; k < sc.n; k++) {
        sc.base[k] = short_read(k);
        sc.want[k] = 0;
    }
}

/* The operations of this rank since section() that took each short path: exactly those. */
static void short_check(const char *what)
{
    for (int k = 0; sc.on && k < sc.n; k++) {
        unsigned long long got = short_read(k) - sc.base[k];
        if (got != sc.want[k])
            fprintf(stderr, "rank %d %s %s: %llu short-path %s, expected %llu\n", rank, win_name,
                    what, got, sc.what[k], sc.want[k]);
        CHECK(got == sc.want[k]);
    }
}

/* Whether every rank of the world is on this node (Win_allocate_shared can run). */
static bool shared_node(void)
{
    MPI_Comm node;
    int n;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &n);
    MPI_Comm_free(&node);
    return n == size;
}

/* One section of a test on one window: mapped / rdma say whether the flavour can be on the
 * shared mapping / the network direct path. */
typedef void ws_run_fn(MPI_Win win, bool mapped, bool rdma, const char *name);

static void ws_run(ws_run_fn *run, MPI_Win win, bool mapped, bool rdma, const char *name)
{
    win_mapped = mapped && on_map;
    win_rdma = rdma && on_rdma;
    win_name = name;
    run(win, mapped, rdma, name);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* MPI and MPI_T up, the modes, the counters names[0 .. n); then run on a Win_allocate, a
 * Win_allocate_shared (every rank on one node) and a Win_create window of `bytes` with
 * displacement unit 1; then the totals (rank 0) and everything down. */
static void ws_main(int *argc, char ***argv, const char *prog, const char *const names[],
                    const char *const what[], int n, MPI_Aint bytes, ws_run_fn *run)
{
    int provided;
    MPI_Init(argc, argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bool node = shared_node();
    on_map = node && !getenv("MT_WIN_AM") && !getenv("MT_WIN_RDMA");
    on_rdma = getenv("MT_WIN_RDMA") != NULL;
    if (on_rdma && getenv("MT_SOFTIB")) {
        counters = (softib_counters_get_fn)dlsym(RTLD_DEFAULT, "softib_counters_get");
        CHECK(counters); /* the script preloaded softib */
    }
    short_start(names, what, n);
    void *base;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    ws_run(run, win, true, true, "allocate");
    CHECK_RC(MPI_Win_free(&win));
    if (node) {
        CHECK_RC(MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
        ws_run(run, win, true, false, "allocate_shared");
        CHECK_RC(MPI_Win_free(&win));
    }
    void *mem = calloc(1, (size_t)bytes);
    CHECK(mem);
    CHECK_RC(MPI_Win_create(mem, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    ws_run(run, win, false, true, "create");
    CHECK_RC(MPI_Win_free(&win));
    free(mem);
    if (sc.on) {
        for (int k = 0; k < n && rank == 0; k++)
            printf("%s: rank 0: %llu short-path %s\n", prog, short_read(k), what[k]);
        for (int k = 0; k < n; k++)
            MPI_T_pvar_handle_free(sc.s, &sc.h[k]);
        MPI_T_pvar_session_free(&sc.s);
    }
    mt_done(prog);
    MPI_T_finalize();
    MPI_Finalize();
}

#endif
