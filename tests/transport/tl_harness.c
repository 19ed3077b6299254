/* SPDX-License-Identifier: BSD-3-Clause */
/* Multi-process harness for transport tests; see tl_harness.h. */
#define _GNU_SOURCE
#include "tl_harness.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "ibex_boot.h"

int tlw_self_rank = -1;

/* The tests run without a bootstrap: every peer is on this host, and every address comes
 * through ep_create (so a backend's lazy get of a peer's address never happens). */
const char *ibex_boot_peer_host(int rank)
{
    (void)rank;
    return "localhost";
}

ibex_status_t ibex_boot_get(int rank, const char *key, void **data_p, size_t *len_p)
{
    (void)rank, (void)key, (void)data_p, (void)len_p;
    return IBEX_ERR_BOOTSTRAP;
}

double tlw_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint32_t tlw_fnv(const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

int tlw_dev_shm_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int count = 0;
    while (f && fgets(line, sizeof(line), f))
        count += strstr(line, "/dev/shm/") != NULL &&
                 !strstr(line, "/dev/shm/softib-"); /* the device's own, under softib */
    if (f)
        fclose(f);
    return count;
}

void tlw_barrier(tl_proc_t *p)
{
    tl_world_t *w = p->w;
    int gen = atomic_load(&w->barrier_gen);
    if (atomic_fetch_add(&w->barrier_count, 1) == w->n - 1) {
        atomic_store(&w->barrier_count, 0);
        atomic_fetch_add(&w->barrier_gen, 1);
        return;
    }
    for (int spins = 0; atomic_load(&w->barrier_gen) == gen; spins++)
        if (spins > 100)
            usleep(50);
        else
            sched_yield();
}

static void tlw_peer_failed(void *arg, int peer, ibex_status_t why)
{
    tl_proc_t *p = arg;
    p->failed_peer = peer;
    p->failed_why = why;
}

void tlw_open(tl_proc_t *p, const ibex_tl_component_t *comp, ibex_tl_recv_cb_t cb, void *cb_arg,
              bool connect_self)
{
    tl_world_t *w = p->w;
    for (int i = 0; i < w->n; i++)
        p->local_peers[i] = i;
    ibex_tl_params_t params = {
        .rank = p->rank,
        .size = w->n,
        .local_rank = p->rank,
        .local_size = w->n,
        .local_peers = p->local_peers,
        .recv_cb = cb,
        .peer_failed_cb = tlw_peer_failed,
        .cb_arg = cb_arg ? cb_arg : p,
    };
    p->comp = comp;
    p->ops = comp->ops;
    ibex_tl_fill_stubs(&p->ops);
    TLW_CHECK(p->ops.open(&params, &p->tl, &p->caps) == IBEX_OK);
    TLW_CHECK(p->caps.addr_size <= TLW_ADDR_MAX);
    w->addr_len[p->rank] = TLW_ADDR_MAX; /* in: room in the buffer; out: the address's size */
    TLW_CHECK(p->ops.addr_pack(p->tl, w->addr[p->rank], &w->addr_len[p->rank]) == IBEX_OK);
    TLW_CHECK(w->addr_len[p->rank] == p->caps.addr_size);
    tlw_barrier(p);
    for (int i = 0; i < w->n; i++) {
        if ((i == p->rank && !connect_self) || p->no_connect)
            continue;
        TLW_CHECK(p->ops.reachable(p->tl, i));
        TLW_CHECK(p->ops.ep_create(p->tl, i, w->addr[i], w->addr_len[i], &p->ep[i]) == IBEX_OK);
    }
    TLW_CHECK(tlw_dev_shm_mappings() == 0);
    tlw_barrier(p);
}

void tlw_close(tl_proc_t *p)
{
    tlw_barrier(p);
    for (int i = 0; i < p->w->n; i++)
        if (p->ep[i])
            p->ops.ep_destroy(p->ep[i]);
    p->ops.close(p->tl);
    p->tl = NULL;
}

void tlw_progress_until(tl_proc_t *p, bool (*pred)(void *arg), void *arg)
{
    for (int idle = 0; !pred(arg);)
        if (p->ops.progress(p->tl) == 0 && ++idle % 1024 == 0)
            sched_yield(); /* two cores shared by everyone: let the peer run */
}

static void tlw_child(tl_world_t *w, int rank, int timeout_s, void (*body)(tl_proc_t *), void *arg)
{
    tl_proc_t p = {.w = w, .rank = rank, .arg = arg, .failed_peer = -1};
    tlw_self_rank = rank;
    w->pids[rank] = getpid();
    alarm((unsigned)timeout_s); /* default action: the child dies, the parent reports it */
    body(&p);
    _exit(0);
}

static bool tlw_killed_on_purpose(tl_world_t *w, const pid_t *pids, int n, pid_t pid, int status)
{
    for (int i = 0; i < n; i++)
        if (pids[i] == pid)
            return w->expect_kill[i] && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    return false;
}

static int tlw_reap(tl_world_t *w, pid_t *pids, int n, int timeout_s)
{
    double deadline = tlw_now() + timeout_s + 2;
    int left = n, failed = 0;
    while (left > 0) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid > 0) {
            left--;
            if (tlw_killed_on_purpose(w, pids, n, pid, status))
                continue;
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                fprintf(stderr, "child %d failed (status 0x%x)\n", (int)pid, status);
                failed = 1;
            }
            continue;
        }
        if (tlw_now() > deadline) {
            for (int i = 0; i < n; i++)
                kill(pids[i], SIGKILL);
            fprintf(stderr, "time limit: killing the ranks\n");
            failed = 1;
            deadline = tlw_now() + 1e9;
        }
        usleep(1000);
    }
    return failed;
}

int tlw_run(int n, int timeout_s, void (*body)(tl_proc_t *p), void *arg)
{
    tl_world_t *w =
        mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (w == MAP_FAILED || n > TLW_MAX)
        return -1;
    memset(w, 0, sizeof(*w));
    w->n = n;
    fflush(NULL);
    pid_t pids[TLW_MAX];
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] == 0)
            tlw_child(w, i, timeout_s, body, arg);
        if (pids[i] < 0) {
            n = i; /* reap what was started, then fail */
            break;
        }
    }
    int failed = tlw_reap(w, pids, n, timeout_s) || n != w->n;
    munmap(w, sizeof(*w));
    return failed;
}
