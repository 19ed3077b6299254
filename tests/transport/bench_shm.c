/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shm transport micro-benchmark (not a test): two processes pinned to cores 0 and 1, addresses
 * exchanged through pipes, the transport API used directly.
 *   the raw floor: one cache line bounced between the two pinned processes (each spins on a
 *   shared word and answers with a store), the least any one-way message can cost here
 *   ping-pong one-way latency (8 B, 4 KiB; payload copied out on receipt, as the runtime does)
 *   eager vs emulated rendezvous READ (RTS, get, FIN) round trips, to place eager_limit_hint
 *   get bandwidth (1 MiB, 16 MiB) against a raw process_vm_readv loop
 * Usage: bench_shm [repeats] [sizes]   (median and best of the repeats are printed: on a shared
 * VM the best run approaches the quiet-machine figure; "sizes": only the floor and the ping-pong
 * at 8 B, 256 B, 1 KiB and 4 KiB, for interleaving settings such as IBEX_SHM_OWN_NEXT)
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ibex_config.h"
#include "tl_harness.h"

typedef struct bench {
    int rank, peer_pid;
    _Atomic uint64_t *line; /* one cache line shared by the two processes (the raw floor) */
    int rfd, wfd;           /* pipe to and from the other process */
    ibex_tl_ops_t ops;
    ibex_tl_t *tl;
    ibex_tl_caps_t caps;
    ibex_tl_ep_t *ep;
    unsigned char *big; /* 16 MiB exposed for get */
    uint64_t peer_big;
    unsigned char sink[1 << 16];
    volatile uint64_t got; /* messages received */
    uint64_t last_addr;    /* RTS: address to read from */
    size_t last_len;
} bench_t;

static ibex_status_t bench_cb(void *arg, int src, const void *data, size_t len)
{
    bench_t *b = arg;
    memcpy(b->sink, data, len); /* the runtime copies eager data out */
    if (len == 1 + 2 * sizeof(uint64_t) && ((const char *)data)[0] == 'R') {
        memcpy(&b->last_addr, (const char *)data + 1, 8);
        memcpy(&b->last_len, (const char *)data + 9, 8);
    }
    b->got++;
    return IBEX_OK;
}

static void pipe_xchg(bench_t *b, const void *out, void *in, size_t len)
{
    if (write(b->wfd, out, len) != (ssize_t)len || read(b->rfd, in, len) != (ssize_t)len)
        _exit(3);
}

static void sync_peer(bench_t *b)
{
    char x = 0, y;
    pipe_xchg(b, &x, &y, 1);
}

static void bench_send(bench_t *b, const void *hdr, size_t hlen, const void *pl, size_t len)
{
    while (b->ops.send(b->ep, hdr, hlen, pl, len) != IBEX_OK)
        b->ops.progress(b->tl);
}

static void wait_msgs(bench_t *b, uint64_t n)
{
    while (b->got < n)
        b->ops.progress(b->tl);
}

static int cmp_double(const void *a, const void *c)
{
    double x = *(const double *)a, y = *(const double *)c;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return v[n / 2];
}

/* Half the round trip, in microseconds, of `fwd` bytes from rank 0 and `back` bytes back. */
static double pingpong2(bench_t *b, size_t fwd, size_t back, int iters)
{
    static unsigned char msg[1 << 16];
    sync_peer(b);
    b->got = 0;
    double t0 = tlw_now();
    for (int i = 0; i < iters; i++) {
        if (b->rank == 0) {
            bench_send(b, msg, 8 < fwd ? 8 : fwd, msg + 8, fwd > 8 ? fwd - 8 : 0);
            wait_msgs(b, (uint64_t)i + 1);
        } else {
            wait_msgs(b, (uint64_t)i + 1);
            bench_send(b, msg, 8 < back ? 8 : back, msg + 8, back > 8 ? back - 8 : 0);
        }
    }
    return (tlw_now() - t0) / iters / 2 * 1e6;
}

static double pingpong(bench_t *b, size_t size, int iters)
{
    return pingpong2(b, size, size, iters);
}

/* The raw floor: one-way time of a store seen by the other process spinning on the line. */
static double raw_pingpong(bench_t *b, int iters)
{
    sync_peer(b);
    atomic_store(b->line, 0);
    sync_peer(b);
    double t0 = tlw_now();
    for (uint64_t i = 0; i < (uint64_t)iters; i++) {
        uint64_t ping = 2 * i + 1, pong = 2 * i + 2;
        if (b->rank == 0) {
            atomic_store_explicit(b->line, ping, memory_order_release);
            while (atomic_load_explicit(b->line, memory_order_acquire) != pong)
                ;
        } else {
            while (atomic_load_explicit(b->line, memory_order_acquire) != ping)
                ;
            atomic_store_explicit(b->line, pong, memory_order_release);
        }
    }
    return (tlw_now() - t0) / iters / 2 * 1e6;
}

/* Round trip of an emulated rendezvous READ: RTS, the receiver gets `size` bytes, FIN. */
static double rndv_rtt(bench_t *b, size_t size, int iters)
{
    char rts[17] = "R", fin[8] = "F";
    uint64_t addr = (uintptr_t)b->big;
    memcpy(rts + 1, &addr, 8);
    memcpy(rts + 9, &(uint64_t){size}, 8);
    sync_peer(b);
    b->got = 0;
    double t0 = tlw_now();
    for (int i = 0; i < iters; i++) {
        if (b->rank == 0) {
            bench_send(b, rts, sizeof(rts), NULL, 0);
            wait_msgs(b, (uint64_t)i + 1);
        } else {
            wait_msgs(b, (uint64_t)i + 1);
            ibex_tl_rma_t get = {.local = b->sink, .len = b->last_len, .remote = b->last_addr};
            if (b->ops.get(b->ep, &get) != IBEX_OK)
                _exit(4);
            bench_send(b, fin, sizeof(fin), NULL, 0);
        }
    }
    return (tlw_now() - t0) / iters * 1e6;
}

static void get_once(bench_t *b, void *dst, size_t size, bool raw)
{
    if (raw) {
        struct iovec l = {dst, size}, r = {(void *)(uintptr_t)b->peer_big, size};
        if (process_vm_readv(b->peer_pid, &l, 1, &r, 1, 0) != (ssize_t)size)
            _exit(5);
    } else {
        ibex_tl_rma_t get = {.local = dst, .len = size, .remote = b->peer_big};
        if (b->ops.get(b->ep, &get) != IBEX_OK)
            _exit(5);
    }
}

/* Rank 0 pulls `size` bytes from rank 1, alternating the transport's get and a raw
 * process_vm_readv so that both see the same machine; GB/s of each in gbs[0], gbs[1]. */
static void get_bw(bench_t *b, size_t size, int iters, double gbs[2])
{
    static unsigned char *dst;
    if (!dst)
        dst = calloc(1, 16 << 20);
    double t[2] = {0, 0};
    sync_peer(b);
    for (int i = 0; b->rank == 0 && i < 2 * iters; i++) {
        double t0 = tlw_now();
        get_once(b, dst, size, i % 2);
        t[i % 2] += tlw_now() - t0;
    }
    sync_peer(b);
    for (int k = 0; k < 2; k++)
        gbs[k] = b->rank == 0 ? (double)size * iters / t[k] / 1e9 : 0;
}

static void bench_open(bench_t *b, int rfd, int wfd)
{
    static int peers[2] = {0, 1};
    b->rfd = rfd, b->wfd = wfd;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(b->rank, &set);
    sched_setaffinity(0, sizeof(set), &set);
    ibex_tl_params_t params = {.rank = b->rank,
                               .size = 2,
                               .local_rank = b->rank,
                               .local_size = 2,
                               .local_peers = peers,
                               .recv_cb = bench_cb,
                               .cb_arg = b};
    b->ops = ibex_tl_component_find("shm")->ops;
    ibex_tl_fill_stubs(&b->ops);
    if (b->ops.open(&params, &b->tl, &b->caps) != IBEX_OK)
        _exit(2);
    unsigned char mine[TLW_ADDR_MAX], theirs[TLW_ADDR_MAX];
    size_t len;
    b->ops.addr_pack(b->tl, mine, &len);
    pipe_xchg(b, mine, theirs, len);
    if (b->ops.ep_create(b->tl, 1 - b->rank, theirs, len, &b->ep) != IBEX_OK)
        _exit(2);
    b->big = malloc(16 << 20);
    memset(b->big, 1, 16 << 20);
    uint64_t info[2] = {(uintptr_t)b->big, (uint64_t)getpid()}, peer[2];
    pipe_xchg(b, info, peer, sizeof(info));
    b->peer_big = peer[0];
    b->peer_pid = (int)peer[1];
}

/* The floor and the one-way ping-pong by size (issue 18: the step from 8 B to 256 B). */
static void bench_sizes(bench_t *b, int repeats)
{
    enum { NV = 5 };
    static const size_t sizes[NV - 1] = {8, 256, 1024, 4096};
    double v[NV][64];
    for (int r = 0; r < repeats; r++) {
        v[0][r] = raw_pingpong(b, 20000);
        for (int i = 1; i < NV; i++)
            v[i][r] = pingpong(b, sizes[i - 1], 5000);
    }
    if (b->rank != 0)
        return;
    printf("%-32s %8s %8s\n", "one way (us)", "median", "best");
    for (int i = 0; i < NV; i++) {
        double m = median(v[i], repeats);
        if (i == 0)
            printf("%-32s %8.3f %8.3f\n", "raw cache-line ping-pong", m, v[i][0]);
        else
            printf("latency %-24zu %8.3f %8.3f\n", sizes[i - 1], m, v[i][0]);
    }
}

static void bench_run(bench_t *b, int repeats)
{
    enum { NV = 10 };
    double v[NV][64];
    const char *names[NV] = {"raw cache-line ping-pong (us)", "latency 8 B (us, one way)",
                             "latency 4 KiB (us, one way)",   "eager 4 KiB + reply (us rtt)",
                             "rndv 4 KiB get (us rtt)",       "eager 8 KiB + reply (us rtt)",
                             "rndv 8 KiB get (us rtt)",       "get 1 MiB (GB/s)",
                             "raw readv 1 MiB (GB/s)",        "get 16 MiB (GB/s)"};
    size_t max = b->caps.max_eager;
    for (int r = 0; r < repeats; r++) {
        v[0][r] = raw_pingpong(b, 20000);
        v[1][r] = pingpong(b, 8, 5000);
        v[2][r] = pingpong(b, 4096, 3000);
        v[3][r] = 2 * pingpong2(b, 4096, 8, 2000);
        v[4][r] = rndv_rtt(b, 4096, 2000);
        v[5][r] = 2 * pingpong2(b, max, 8, 2000);
        v[6][r] = rndv_rtt(b, max, 2000);
        double gbs[2];
        get_bw(b, 1 << 20, 300, gbs);
        v[7][r] = gbs[0], v[8][r] = gbs[1];
        get_bw(b, 16 << 20, 20, gbs);
        v[9][r] = gbs[0];
    }
    if (b->rank != 0)
        return;
    printf("%-32s %8s %8s\n", "", "median", "best");
    for (int i = 0; i < NV; i++) {
        double m = median(v[i], repeats); /* sorts v[i] */
        printf("%-32s %8.3f %8.3f\n", names[i], m, i >= 7 ? v[i][repeats - 1] : v[i][0]);
    }
    printf("(max_eager %zu; slots %d x %lld)\n", max,
           *(const int *)ibex_config_find("SHM_RING_SLOTS")->addr,
           *(const long long *)ibex_config_find("SHM_SLOT_SIZE")->addr);
}

int main(int argc, char **argv)
{
    int repeats = argc > 1 ? atoi(argv[1]) : 5;
    int p01[2], p10[2];
    if (repeats < 1 || repeats > 64 || ibex_config_load() != IBEX_OK || pipe(p01) || pipe(p10))
        return 1;
    _Atomic uint64_t *line =
        mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (line == MAP_FAILED)
        return 1;
    fflush(NULL);
    pid_t pid = fork();
    bench_t *b = calloc(1, sizeof(*b));
    b->line = line;
    b->rank = pid == 0;
    alarm(600);
    if (b->rank == 0)
        bench_open(b, p10[0], p01[1]);
    else
        bench_open(b, p01[0], p10[1]);
    if (argc > 2 && strcmp(argv[2], "sizes") == 0)
        bench_sizes(b, repeats);
    else
        bench_run(b, repeats);
    sync_peer(b);
    b->ops.ep_destroy(b->ep);
    b->ops.close(b->tl);
    if (pid == 0)
        _exit(0);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
