/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transport-level tests of the verbs backend: two forked processes (rank 0 = parent, rank 1 =
 * child) drive the transport API directly over softib (run by test_verbs_tl.sh with LD_PRELOAD).
 * Addresses are exchanged through pipes; ibex_boot_get / ibex_boot_peer_host are stubbed here.
 *
 * Connections come up on first use through the backend's UD handshake: setup() progresses until
 * the endpoint is connected (it reads the backend's internal state for that).
 *
 * usage: verbs_tl_test eager|order|flood|rma|stale|fail|kill|late|cm_timeout|latency|bw
 * Exits 0 on success; prints "FAIL: ..." and exits 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ibex_boot.h"
#include "ibex_config.h"
#include "ibex_log.h"
#include "transport.h"
#include "verbs.h"

static int me;
static int pipe_to[2][2]; /* pipe_to[r]: written by the other rank, read by rank r */
static ibex_tl_t *tl;
static ibex_tl_caps_t caps;
static ibex_tl_ep_t *ep;
static const ibex_tl_ops_t *ops; /* the registered verbs component's, stubs filled */
static int failed_peer = -1;
static ibex_status_t failed_why;

/* ---- stubs of the bootstrap ---- */
const char *ibex_boot_peer_host(int rank)
{
    return rank == 0 ? "host-zero" : "host-one";
}

ibex_status_t ibex_boot_get(int rank, const char *key, void **data_p, size_t *len_p)
{
    (void)rank, (void)key, (void)data_p, (void)len_p;
    return IBEX_ERR_BOOTSTRAP; /* every peer is connected through ep_create before progress */
}

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL (rank %d): ", me);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c))                                                                                  \
            die("%s:%d: %s", __FILE__, __LINE__, #c);                                              \
    } while (0)

static void xwrite(const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(pipe_to[1 - me][1], p, len);
        if (n <= 0)
            die("pipe write: %m");
        p += n;
        len -= (size_t)n;
    }
}

static void xread(void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = read(pipe_to[me][0], p, len);
        if (n <= 0)
            die("pipe read: %s", n ? strerror(errno) : "peer gone");
        p += n;
        len -= (size_t)n;
    }
}

/* A barrier that keeps progressing (the peer may need us to serve it). */
static void barrier(void)
{
    char c = 'b';
    xwrite(&c, 1);
    xread(&c, 1);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- receive side ---- */
typedef ibex_status_t (*handler_t)(const void *data, size_t len);
static handler_t handler;
static int expect_src = -1; /* -1: the peer */

static ibex_status_t recv_cb(void *arg, int src, const void *data, size_t len)
{
    (void)arg;
    CHECK(src == (expect_src < 0 ? 1 - me : expect_src));
    return handler(data, len);
}

static void peer_failed(void *arg, int peer, ibex_status_t why)
{
    (void)arg;
    failed_peer = peer;
    failed_why = why;
}

/* Progresses until the connection to the peer is up (both sides call it). */
static void wait_connected(void)
{
    double t0 = now_s();
    while (ep->state != VERBS_EP_CONNECTED && !ep->failed && now_s() - t0 < 20)
        ops->progress(tl);
    if (ep->state != VERBS_EP_CONNECTED)
        die("no connection to rank %d after 20 s (state %d)", 1 - me, (int)ep->state);
}

/* Opens the transport and creates the endpoint to the peer, without waiting for the handshake. */
static void setup_nowait(void)
{
    ibex_tl_params_t p = {.rank = me,
                          .size = 2,
                          .local_rank = me,
                          .local_size = 2,
                          .recv_cb = recv_cb,
                          .peer_failed_cb = peer_failed};
    ibex_status_t st = ops->open(&p, &tl, &caps);
    if (st != IBEX_OK)
        die("open: %s", ibex_status_str(st));
    char addr[4096];
    size_t len = sizeof(addr);
    CHECK(ops->addr_pack(tl, addr, &len) == IBEX_OK);
    CHECK(len == caps.addr_size);
    xwrite(&len, sizeof(len));
    xwrite(addr, len);
    char peer[4096];
    size_t plen;
    xread(&plen, sizeof(plen));
    CHECK(plen <= sizeof(peer));
    xread(peer, plen);
    CHECK(ops->reachable(tl, 1 - me) && ops->reachable(tl, me) && !ops->reachable(tl, 2));
    st = ops->ep_create(tl, 1 - me, peer, plen, &ep);
    if (st != IBEX_OK)
        die("ep_create: %s", ibex_status_str(st));
}

/* A barrier that progresses while it waits: the peer may still need our answers (a lost RTU
 * leaves it waiting for one after we are connected). */
static void barrier_progress(void)
{
    char c = 'p';
    xwrite(&c, 1);
    struct pollfd pfd = {.fd = pipe_to[me][0], .events = POLLIN};
    while (poll(&pfd, 1, 0) == 0)
        ops->progress(tl);
    xread(&c, 1);
}

static void setup(void)
{
    setup_nowait();
    wait_connected();
    barrier_progress();
}

static void teardown(void)
{
    barrier();
    ops->ep_destroy(ep);
    ops->close(tl);
}

/* Sends, progressing while the transport says AGAIN; returns how many AGAINs were seen. */
static long send_blocking(const void *hdr, size_t hl, const void *pl, size_t len)
{
    long again = 0;
    for (;;) {
        ibex_status_t st = ops->send(ep, hdr, hl, pl, len);
        if (st == IBEX_OK)
            return again;
        if (st != IBEX_ERR_AGAIN)
            die("send of %zu bytes: %s", hl + len, ibex_status_str(st));
        again++;
        ops->progress(tl);
    }
}

static void fill(unsigned char *p, size_t len, uint32_t seed)
{
    for (size_t i = 0; i < len; i++)
        p[i] = (unsigned char)((i * 131u + seed * 7u) >> 3);
}

static bool check_fill(const unsigned char *p, size_t len, uint32_t seed)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] != (unsigned char)((i * 131u + seed * 7u) >> 3))
            return false;
    return true;
}

/* ---- eager: sizes 0, 1, max_inline, max_inline + 1, max_eager ---- */
static long eager_got;
static ibex_status_t eager_handler(const void *data, size_t len)
{
    uint32_t hdr[2];
    CHECK(len >= sizeof(hdr) || len == 0);
    if (len == 0) {
        eager_got++;
        return IBEX_OK;
    }
    memcpy(hdr, data, sizeof(hdr));
    CHECK(hdr[0] == len);
    CHECK(check_fill((const unsigned char *)data + sizeof(hdr), len - sizeof(hdr), hdr[1]));
    eager_got++;
    return IBEX_OK;
}

static int test_eager(void)
{
    handler = eager_handler;
    setup();
    size_t sizes[] = {0,
                      8,
                      9,
                      caps.max_inline - 1,
                      caps.max_inline,
                      caps.max_inline + 1,
                      caps.max_eager - 1,
                      caps.max_eager};
    int n = (int)(sizeof(sizes) / sizeof(sizes[0]));
    unsigned char *buf = malloc(caps.max_eager);
    for (int i = 0; i < n; i++) {
        size_t total = sizes[i];
        uint32_t hdr[2] = {(uint32_t)total, (uint32_t)i};
        fill(buf, total, (uint32_t)i);
        if (total == 0)
            send_blocking(NULL, 0, NULL, 0);
        else /* header and payload as two pieces: the transport concatenates */
            send_blocking(hdr, sizeof(hdr), buf, total - sizeof(hdr));
    }
    CHECK(ops->send(ep, buf, caps.max_eager + 1, NULL, 0) == IBEX_ERR_INVALID);
    double t0 = now_s();
    while (eager_got < n && now_s() - t0 < 20)
        ops->progress(tl);
    CHECK(eager_got == n);
    /* loopback: a message to ourselves goes through our own QP */
    ibex_tl_ep_t *self_ep;
    CHECK(ops->ep_create(tl, me, NULL, 0, &self_ep) == IBEX_OK);
    uint32_t hdr[2] = {100, 7};
    fill(buf, 92, 7);
    barrier();
    expect_src = me;
    CHECK(ops->send(self_ep, hdr, sizeof(hdr), buf, 92) == IBEX_OK);
    t0 = now_s();
    while (eager_got < n + 1 && now_s() - t0 < 20)
        ops->progress(tl);
    CHECK(eager_got == n + 1);
    free(buf);
    teardown();
    printf("rank %d: eager ok (%d sizes, max_inline %zu, max_eager %zu)\n", me, n, caps.max_inline,
           caps.max_eager);
    return 0;
}

/* ---- order: 100k messages of varied sizes arrive in order ---- */
#define ORDER_N 100000
static uint32_t order_next;
static ibex_status_t order_handler(const void *data, size_t len)
{
    uint32_t seq;
    CHECK(len >= 4);
    memcpy(&seq, data, 4);
    if (seq != order_next)
        die("message %u arrived when %u was expected", seq, order_next);
    CHECK(len == 4 + (seq * 37u) % 300u);
    order_next++;
    return IBEX_OK;
}

static int test_order(void)
{
    handler = order_handler;
    setup();
    char pl[512];
    memset(pl, 'x', sizeof(pl));
    for (uint32_t s = 0; s < ORDER_N; s++) {
        send_blocking(&s, 4, pl, (s * 37u) % 300u);
        ops->progress(tl);
    }
    double t0 = now_s();
    while (order_next < ORDER_N && now_s() - t0 < 60)
        ops->progress(tl);
    CHECK(order_next == ORDER_N);
    teardown();
    printf("rank %d: order ok (%d messages each way)\n", me, ORDER_N);
    return 0;
}

/* ---- flood: the receiver refuses messages for a while; nothing lost, sender sees AGAIN ---- */
#define FLOOD_N 20000
static uint32_t flood_next;
static long flood_refused;
static bool flood_accept;
static ibex_status_t flood_handler(const void *data, size_t len)
{
    uint32_t seq;
    if (!flood_accept) {
        flood_refused++;
        return IBEX_ERR_AGAIN;
    }
    memcpy(&seq, data, 4);
    if (seq != flood_next)
        die("flood: message %u arrived when %u was expected", seq, flood_next);
    CHECK(len == 4 + seq % 2000u);
    flood_next++;
    /* refuse again now and then, in bursts */
    if (flood_next % 5000 == 0)
        flood_accept = false;
    return IBEX_OK;
}

static int test_flood(void)
{
    handler = flood_handler;
    setup();
    char pl[2048];
    memset(pl, 'f', sizeof(pl));
    if (me == 0) {
        long again = 0;
        for (uint32_t s = 0; s < FLOOD_N; s++)
            again += send_blocking(&s, 4, pl, s % 2000u);
        printf("rank 0: flood sent %d, saw IBEX_ERR_AGAIN %ld times\n", FLOOD_N, again);
        CHECK(again > 0);
    } else {
        double t0 = now_s(), last = t0;
        while (flood_next < FLOOD_N && now_s() - t0 < 60) {
            ops->progress(tl);
            if (!flood_accept && now_s() - last > 0.2) {
                flood_accept = true; /* 200 ms of refusal per burst */
                last = now_s();
            } else if (flood_accept) {
                last = now_s();
            }
        }
        printf("rank 1: flood received %u, refused %ld offers\n", flood_next, flood_refused);
        CHECK(flood_next == FLOOD_N && flood_refused > 0);
    }
    CHECK(failed_peer < 0);
    teardown();
    return 0;
}

/* ---- rma helpers: rank 1 exposes a buffer, rank 0 reads / writes it ---- */
typedef struct {
    uint64_t addr;
    uint64_t len;
    uint8_t rkey[8];
} expose_t;

typedef struct {
    ibex_tl_comp_t comp;
    int done;
    ibex_status_t status;
} waiter_t;

static void waiter_cb(ibex_tl_comp_t *comp, ibex_status_t st)
{
    waiter_t *w = (waiter_t *)comp;
    w->done = 1;
    w->status = st;
}

static ibex_status_t rma_wait(bool is_get, void *local, ibex_tl_mem_t *mem, const expose_t *x,
                              size_t len, double limit_s)
{
    waiter_t w = {.comp.cb = waiter_cb};
    ibex_tl_rma_t d = {.local = local,
                       .len = len,
                       .local_mem = mem,
                       .remote = x->addr,
                       .rkey = x->rkey,
                       .comp = &w.comp};
    ibex_status_t st = is_get ? ops->get(ep, &d) : ops->put(ep, &d);
    if (st != IBEX_INPROGRESS)
        return st;
    double t0 = now_s();
    while (!w.done && now_s() - t0 < limit_s)
        ops->progress(tl);
    return w.done ? w.status : IBEX_ERR_TIMEOUT;
}

static void expose(void *buf, size_t len, ibex_tl_mem_t **mem_p)
{
    expose_t x = {.addr = (uintptr_t)buf, .len = len};
    CHECK(ops->mem_reg(tl, buf, len, mem_p) == IBEX_OK);
    CHECK(caps.rkey_size <= sizeof(x.rkey));
    CHECK(ops->mem_pack_rkey(tl, *mem_p, x.rkey) == IBEX_OK);
    xwrite(&x, sizeof(x));
}

/* ---- rma: get and put, 1 B .. 64 MiB, with checksums ---- */
static int test_rma(void)
{
    setup();
    for (size_t len = 1; len <= (64u << 20); len = len < 4096 ? len * 4 : len * 8) {
        unsigned char *buf = malloc(len);
        ibex_tl_mem_t *mem;
        if (me == 1) {
            fill(buf, len, (uint32_t)len);
            expose(buf, len, &mem);
            barrier(); /* rank 0 has read it and written its pattern */
            CHECK(check_fill(buf, len, (uint32_t)len + 1));
            ops->mem_dereg(tl, mem);
        } else {
            expose_t x;
            xread(&x, sizeof(x));
            CHECK(x.len == len);
            memset(buf, 0, len);
            CHECK(ops->mem_reg(tl, buf, len, &mem) == IBEX_OK);
            ibex_status_t st = rma_wait(true, buf, mem, &x, len, 30);
            if (st != IBEX_OK)
                die("get of %zu bytes: %s", len, ibex_status_str(st));
            CHECK(check_fill(buf, len, (uint32_t)len));
            fill(buf, len, (uint32_t)len + 1);
            st = rma_wait(false, buf, mem, &x, len, 30);
            if (st != IBEX_OK)
                die("put of %zu bytes: %s", len, ibex_status_str(st));
            ops->mem_dereg(tl, mem);
            barrier();
        }
        free(buf);
    }
    teardown();
    printf("rank %d: rma ok (get and put, 1 B .. 64 MiB)\n", me);
    return 0;
}

/* ---- bw: get / put bandwidth at 1 MiB and 16 MiB ---- */
static int test_bw(void)
{
    setup();
    size_t sizes[] = {1u << 20, 16u << 20};
    for (int s = 0; s < 2; s++) {
        size_t len = sizes[s];
        unsigned char *buf = malloc(len);
        memset(buf, 1, len);
        ibex_tl_mem_t *mem;
        if (me == 1) {
            expose(buf, len, &mem);
            barrier();
        } else {
            expose_t x;
            xread(&x, sizeof(x));
            CHECK(ops->mem_reg(tl, buf, len, &mem) == IBEX_OK);
            for (int g = 1; g >= 0; g--) {
                int iters = len > (1u << 20) ? 20 : 200;
                CHECK(rma_wait(g, buf, mem, &x, len, 30) == IBEX_OK); /* warm up */
                double t0 = now_s();
                for (int i = 0; i < iters; i++)
                    CHECK(rma_wait(g, buf, mem, &x, len, 30) == IBEX_OK);
                double t = now_s() - t0;
                printf("verbs %s %zu MiB: %.0f MB/s\n", g ? "get" : "put", len >> 20,
                       (double)len * iters / t / 1e6);
            }
            barrier();
        }
        ops->mem_dereg(tl, mem);
        free(buf);
    }
    teardown();
    return 0;
}

/* ---- latency: 8-byte ping-pong through send / recv_cb ---- */
static volatile long pongs;
static ibex_status_t pong_handler(const void *data, size_t len)
{
    (void)data, (void)len;
    pongs++;
    return IBEX_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One-way latency: the median over 11 batches of 1000 round trips (the VM is noisy). */
static int test_latency(void)
{
    handler = pong_handler;
    setup();
    enum { BATCHES = 11, PER = 1000 };
    double t[BATCHES];
    uint64_t v = 42;
    long i = 0;
    for (int b = -1; b < BATCHES; b++) { /* batch -1 warms up */
        double t0 = now_s();
        for (int k = 0; k < PER; k++, i++) {
            if (me == 0) {
                send_blocking(&v, 8, NULL, 0);
                while (pongs <= i)
                    ops->progress(tl);
            } else {
                while (pongs <= i)
                    ops->progress(tl);
                send_blocking(&v, 8, NULL, 0);
            }
        }
        if (b >= 0)
            t[b] = (now_s() - t0) / PER / 2 * 1e9;
    }
    qsort(t, BATCHES, sizeof(t[0]), cmp_double);
    if (me == 0)
        printf("verbs transport 8-byte one-way latency: %.0f ns (median; min %.0f)\n",
               t[BATCHES / 2], t[0]);
    teardown();
    return 0;
}

int verbs_test_stale(void);
int verbs_test_fault(bool kill_peer);

/* ---- stale: free and reuse of registered buffers never moves stale data ---- */
static int stale_round(unsigned char *buf, size_t len, uint32_t seed)
{
    ibex_tl_mem_t *mem;
    if (me == 1) {
        fill(buf, len, seed);
        expose(buf, len, &mem);
        barrier();
        ops->mem_dereg(tl, mem);
    } else {
        expose_t x;
        xread(&x, sizeof(x));
        unsigned char *dst = malloc(len);
        memset(dst, 0, len);
        ibex_status_t st = rma_wait(true, dst, NULL, &x, len, 30);
        if (st != IBEX_OK)
            die("stale get: %s", ibex_status_str(st));
        if (!check_fill(dst, len, seed))
            die("stale data moved: %zu-byte buffer at %#" PRIx64 " round %u", len, x.addr, seed);
        free(dst);
        barrier();
    }
    return 0;
}

int verbs_test_stale(void)
{
    setup();
    size_t sizes[] = {64u << 10, 1u << 20, 40u << 20};
    for (int s = 0; s < 3; s++) {
        for (uint32_t r = 0; r < 3; r++) {
            unsigned char *buf = malloc(sizes[s]);
            stale_round(buf, sizes[s], r + 10u * (uint32_t)s);
            free(buf);
        }
    }
    /* explicit mmap / munmap / mmap at the same address */
    size_t len = 2u << 20;
    void *hint = NULL;
    for (uint32_t r = 0; r < 3; r++) {
        unsigned char *p =
            mmap(hint, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(p != MAP_FAILED);
        stale_round(p, len, 100 + r);
        hint = p;
        munmap(p, len);
    }
    teardown();
    printf("rank %d: stale ok\n", me);
    return 0;
}

/* ---- fault: forced QP error (SOFTIB_FAIL_AFTER) or a killed peer ---- */
int verbs_test_fault(bool kill_peer)
{
    handler = pong_handler;
    setup();
    if (me == 1) {
        unsigned char *buf = malloc(1 << 20);
        ibex_tl_mem_t *mem;
        expose(buf, 1 << 20, &mem);
        if (kill_peer)
            raise(SIGKILL); /* dies with its QP still connected */
        barrier();
        ops->mem_dereg(tl, mem);
        free(buf);
        ops->close(tl);
        return 0;
    }
    expose_t x;
    xread(&x, sizeof(x));
    if (kill_peer)
        waitpid(-1, NULL, 0);
    unsigned char *dst = malloc(1 << 20);
    ibex_status_t st = IBEX_OK;
    /* keep reading until the connection fails: at once for a dead peer, after
     * SOFTIB_FAIL_AFTER operations for a forced error */
    double t0 = now_s();
    for (int i = 0; i < 100000 && st == IBEX_OK; i++)
        st = rma_wait(true, dst, NULL, &x, 1 << 20, 30);
    double t = now_s() - t0;
    printf("rank 0: get completed with %s after %.2f s; peer_failed(%d, %s)\n", ibex_status_str(st),
           t, failed_peer, ibex_status_str(failed_why));
    CHECK(st == IBEX_ERR_PEER_FAILED);
    CHECK(failed_peer == 1 && failed_why == IBEX_ERR_PEER_FAILED);
    uint64_t v = 1;
    CHECK(ops->send(ep, &v, 8, NULL, 0) == IBEX_ERR_PEER_FAILED);
    CHECK(rma_wait(false, dst, NULL, &x, 64, 5) == IBEX_ERR_PEER_FAILED);
    if (!kill_peer)
        barrier();
    free(dst);
    ops->close(tl);
    return 0;
}

/* ---- late: the peer makes no call for a second after creating its endpoint; the handshake
 * waits for it (our sends see AGAIN meanwhile), then everything arrives in order ---- */
#define LATE_N 1000
static int test_late(void)
{
    handler = order_handler;
    setup_nowait();
    if (me == 1)
        sleep(1);
    char pl[512];
    memset(pl, 'y', sizeof(pl));
    double t0 = now_s();
    long again = 0;
    for (uint32_t s = 0; s < LATE_N; s++)
        again += send_blocking(&s, 4, pl, (s * 37u) % 300u);
    while (order_next < LATE_N && now_s() - t0 < 20)
        ops->progress(tl);
    CHECK(order_next == LATE_N);
    CHECK(ep->state == VERBS_EP_CONNECTED);
    if (me == 0)
        CHECK(again > 0); /* the first send had to wait for the sleeping peer */
    teardown();
    printf("rank %d: late ok (%ld AGAIN while connecting)\n", me, again);
    return 0;
}

/* ---- cm_timeout: the peer never answers; with IBEX_VERBS_CONNECT_TIMEOUT=1 the send fails
 * after about a second, the peer is reported failed, nothing hangs ---- */
static int test_cm_timeout(void)
{
    handler = order_handler;
    setup_nowait();
    if (me == 1) { /* silent until rank 0 is done */
        barrier();
        ops->close(tl);
        return 0;
    }
    double t0 = now_s();
    uint32_t s = 0;
    ibex_status_t st;
    while ((st = ops->send(ep, &s, 4, NULL, 0)) == IBEX_ERR_AGAIN && now_s() - t0 < 20)
        ops->progress(tl);
    double secs = now_s() - t0;
    CHECK(st == IBEX_ERR_PEER_FAILED);
    CHECK(failed_peer == 1 && failed_why == IBEX_ERR_PEER_FAILED);
    CHECK(secs >= 0.9 && secs < 5);
    ibex_tl_rma_t none = {0};
    CHECK(ops->put(ep, &none) == IBEX_ERR_PEER_FAILED);
    barrier();
    ops->close(tl);
    printf("rank 0: cm_timeout ok (failed after %.2f s)\n", secs);
    return 0;
}

static int run(const char *name)
{
    if (!strcmp(name, "late"))
        return test_late();
    if (!strcmp(name, "cm_timeout"))
        return test_cm_timeout();
    if (!strcmp(name, "eager"))
        return test_eager();
    if (!strcmp(name, "order"))
        return test_order();
    if (!strcmp(name, "flood"))
        return test_flood();
    if (!strcmp(name, "rma"))
        return test_rma();
    if (!strcmp(name, "bw"))
        return test_bw();
    if (!strcmp(name, "latency"))
        return test_latency();
    if (!strcmp(name, "stale"))
        return verbs_test_stale();
    if (!strcmp(name, "fail"))
        return verbs_test_fault(false);
    if (!strcmp(name, "kill"))
        return verbs_test_fault(true);
    die("unknown test %s", name);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr,
                "usage: %s eager|order|flood|rma|bw|latency|stale|fail|kill|late|cm_timeout\n",
                argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    ibex_tl_component_t *verbs = ibex_tl_component_find("verbs");
    if (ibex_config_load() != IBEX_OK || !verbs)
        return 1;
    ibex_tl_fill_stubs(&verbs->ops);
    ops = &verbs->ops;
    CHECK(pipe(pipe_to[0]) == 0 && pipe(pipe_to[1]) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    me = pid == 0 ? 1 : 0;
    if (me)
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive rank 0 */
    alarm(120); /* in both processes: a hung case fails instead of lingering */
    /* keep only our read end and the peer's write end, so a dead peer reads as EOF */
    close(pipe_to[me][1]);
    close(pipe_to[1 - me][0]);
    ibex_log_set_identity(me ? "rank 1" : "rank 0");
    int rc = run(argv[1]);
    if (me == 1)
        _exit(rc);
    int status = 0;
    if (strcmp(argv[1], "kill") != 0) {
        CHECK(waitpid(pid, &status, 0) == pid);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            die("rank 1 failed (status 0x%x)", status);
    }
    return rc;
}
