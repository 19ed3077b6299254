/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib conformance: errors as hardware reports them (protection, remote
 * access, RNR, length, dead peer), flushing, one-sided progress against a
 * sleeping target, stale registrations and fault injection.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "test_softib_util.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define ALL_ACCESS                                                                                 \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |                   \
     IBV_ACCESS_REMOTE_ATOMIC)

static int setup(void **state)
{
    static const char *const vars[] = {"SOFTIB_STALE_CHECK", "SOFTIB_DROP_RATE",
                                       "SOFTIB_FAIL_AFTER", "SOFTIB_DELAY_US", "SOFTIB_SEED"};
    size_t i;

    for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        unsetenv(vars[i]);
    return t_setup(state);
}

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Two QPs of one context connected to each other, with connection c for a. */
static struct ibv_qp *loop_pair(struct t_ep *e, const struct t_conn *c, unsigned int access)
{
    struct ibv_qp *b;

    t_ep_open(e, 1 << 16, access, false);
    t_qp_create(e, 64, false);
    b = t_qp_create(e, 64, false);
    t_qp_connect(e->qp, e->lid, b->qp_num, c);
    t_qp_connect(b, e->lid, e->qp->qp_num, NULL);
    return b;
}

static void close_pair(struct t_ep *e, struct ibv_qp *b)
{
    assert_int_equal(ibv_destroy_qp(b), 0);
    t_ep_close(e);
}

static void test_local_protection(void **state)
{
    struct ibv_wc wc[4];
    struct ibv_sge s;
    struct t_ep e;
    struct ibv_qp *b = loop_pair(&e, NULL, ALL_ACCESS);

    (void)state;
    s = t_sge(&e, 0, 8);
    s.lkey ^= 0x100;
    assert_int_equal(
        t_post_send(e.qp, IBV_WR_RDMA_WRITE, &s, 1, (uintptr_t)e.buf, e.mr->rkey, 0, 1), 0);
    s = t_sge(&e, 0, 8);
    assert_int_equal(
        t_post_send(e.qp, IBV_WR_RDMA_WRITE, &s, 1, (uintptr_t)e.buf, e.mr->rkey, 0, 2), 0);
    /* Errors complete even unsignalled; what follows is flushed. */
    assert_int_equal(t_poll(e.cq, wc, 4, 1000), 2);
    assert_int_equal(wc[0].status, IBV_WC_LOC_PROT_ERR);
    assert_int_equal(wc[0].wr_id, 1);
    assert_true(wc[0].vendor_err != 0);
    assert_int_equal(wc[1].status, IBV_WC_WR_FLUSH_ERR);
    assert_int_equal(wc[1].wr_id, 2);
    assert_int_equal(t_qp_state(e.qp), IBV_QPS_ERR);
    assert_int_equal(t_qp_state(b), IBV_QPS_RTS); /* a local error stays local */
    close_pair(&e, b);
}

static void test_read_needs_local_write(void **state)
{
    struct ibv_mr *ro;
    struct ibv_wc wc;
    struct ibv_sge s;
    struct t_ep e;
    struct ibv_qp *b = loop_pair(&e, NULL, ALL_ACCESS);

    (void)state;
    ro = ibv_reg_mr(e.pd, e.buf + 4096, 4096, IBV_ACCESS_REMOTE_WRITE);
    assert_null(ro); /* remote write without local write is refused... */
    assert_int_equal(errno, EINVAL);
    ro = ibv_reg_mr(e.pd, e.buf + 4096, 4096, IBV_ACCESS_REMOTE_READ);
    assert_non_null(ro); /* ...but a read-only MR is fine, and no READ target */
    s = (struct ibv_sge){(uintptr_t)e.buf + 4096, 8, ro->lkey};
    assert_int_equal(t_post_send(e.qp, IBV_WR_RDMA_READ, &s, 1, (uintptr_t)e.buf, e.mr->rkey,
                                 IBV_SEND_SIGNALED, 1),
                     0);
    assert_int_equal(t_poll(e.cq, &wc, 1, 1000), 1);
    assert_int_equal(wc.status, IBV_WC_LOC_PROT_ERR);
    assert_int_equal(ibv_dereg_mr(ro), 0);
    close_pair(&e, b);
}

static void remote_err(unsigned int access, enum ibv_wr_opcode op, size_t off, uint32_t len,
                       int rkey_xor)
{
    struct ibv_wc wc[4];
    struct ibv_sge s, r;
    struct ibv_mr *m;
    struct t_ep e;
    struct ibv_qp *b = loop_pair(&e, NULL, ALL_ACCESS);

    m = ibv_reg_mr(e.pd, e.buf + 8192, 4096, (int)access);
    assert_non_null(m);
    r = t_sge(&e, 0, 8);
    assert_int_equal(t_post_recv(b, &r, 1, 42), 0);
    s = t_sge(&e, 0, len);
    assert_int_equal(t_post_send(e.qp, op, &s, 1, (uintptr_t)e.buf + 8192 + off,
                                 m->rkey ^ (uint32_t)rkey_xor, IBV_SEND_SIGNALED, 1),
                     0);
    assert_int_equal(t_poll(e.cq, wc, 2, 1000), 2);
    if (wc[0].wr_id == 42) { /* one CQ serves both QPs: either may come first */
        wc[2] = wc[0];
        wc[0] = wc[1];
        wc[1] = wc[2];
    }
    assert_int_equal(wc[0].status, IBV_WC_REM_ACCESS_ERR);
    /* The responder goes to error too and flushes its receive queue. */
    assert_int_equal(wc[1].status, IBV_WC_WR_FLUSH_ERR);
    assert_int_equal(wc[1].wr_id, 42);
    assert_int_equal(t_qp_state(b), IBV_QPS_ERR);
    assert_int_equal(ibv_dereg_mr(m), 0);
    close_pair(&e, b);
}

static void test_remote_access(void **state)
{
    (void)state;
    remote_err(IBV_ACCESS_REMOTE_READ, IBV_WR_RDMA_WRITE, 0, 8, 0); /* flag */
    remote_err(ALL_ACCESS, IBV_WR_RDMA_READ, 4090, 8, 0);           /* bounds */
    remote_err(ALL_ACCESS, IBV_WR_RDMA_WRITE, 0, 8, 0x100);         /* rkey */
    remote_err(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 8,
               0);
}

static void test_rnr(void **state)
{
    struct t_conn c = t_conn_default;
    struct ibv_wc wc[2];
    struct ibv_sge s;
    struct ibv_qp *b;
    struct t_ep e;
    double t0;

    (void)state;
    c.rnr_retry = 0;
    b = loop_pair(&e, &c, ALL_ACCESS);
    s = t_sge(&e, 0, 8);
    assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &s, 1, 0, 0, IBV_SEND_SIGNALED, 1), 0);
    assert_int_equal(t_poll(e.cq, wc, 1, 1000), 1);
    assert_int_equal(wc[0].status, IBV_WC_RNR_RETRY_EXC_ERR);
    close_pair(&e, b);
    /* rnr_retry 3 with 0.64 ms timers (min_rnr_timer 12 at the responder): ~2 ms. */
    c.rnr_retry = 3;
    t_ep_open(&e, 4096, ALL_ACCESS, false);
    t_qp_create(&e, 8, false);
    b = t_qp_create(&e, 8, false);
    t_qp_connect(e.qp, e.lid, b->qp_num, &c);
    c.min_rnr_timer = 12;
    t_qp_connect(b, e.lid, e.qp->qp_num, &c);
    s = t_sge(&e, 0, 8);
    t0 = now_ms();
    assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &s, 1, 0, 0, IBV_SEND_SIGNALED, 1), 0);
    assert_int_equal(t_poll(e.cq, wc, 1, 2000), 1);
    assert_int_equal(wc[0].status, IBV_WC_RNR_RETRY_EXC_ERR);
    assert_true(now_ms() - t0 >= 1.9);
    close_pair(&e, b);
    /* rnr_retry 7 retries forever: a receive posted late still gets the data. */
    b = loop_pair(&e, NULL, ALL_ACCESS);
    s = t_sge(&e, 0, 8);
    assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &s, 1, 0, 0, IBV_SEND_SIGNALED, 1), 0);
    assert_int_equal(t_poll(e.cq, wc, 1, 30), 0);
    assert_int_equal(t_post_recv(b, &s, 1, 2), 0);
    assert_int_equal(t_poll(e.cq, wc, 2, 1000), 2);
    assert_int_equal(wc[0].status | wc[1].status, IBV_WC_SUCCESS);
    close_pair(&e, b);
}

static void test_receive_too_small(void **state)
{
    struct ibv_wc wc[2];
    struct ibv_sge s, r;
    struct t_ep e;
    struct ibv_qp *b = loop_pair(&e, NULL, ALL_ACCESS);

    (void)state;
    r = t_sge(&e, 1024, 8);
    assert_int_equal(t_post_recv(b, &r, 1, 7), 0);
    s = t_sge(&e, 0, 64);
    assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &s, 1, 0, 0, IBV_SEND_SIGNALED, 8), 0);
    assert_int_equal(t_poll(e.cq, wc, 2, 1000), 2);
    assert_int_equal(wc[0].wr_id, 7);
    assert_int_equal(wc[0].status, IBV_WC_LOC_LEN_ERR);
    assert_int_equal(wc[1].wr_id, 8);
    assert_int_equal(wc[1].status, IBV_WC_REM_INV_REQ_ERR);
    assert_int_equal(t_qp_state(e.qp), IBV_QPS_ERR);
    assert_int_equal(t_qp_state(b), IBV_QPS_ERR);
    close_pair(&e, b);
}

static void test_flush_both_queues(void **state)
{
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};
    struct ibv_wc wc[16];
    struct ibv_sge s;
    struct t_ep e;
    struct ibv_qp *b = loop_pair(&e, NULL, ALL_ACCESS);
    int i, n;

    (void)state;
    s = t_sge(&e, 0, 8);
    for (i = 0; i < 5; i++)
        assert_int_equal(t_post_recv(e.qp, &s, 1, 100 + (uint64_t)i), 0);
    /* b has no receives: these wait on RNR (rnr_retry 7) in e's send queue. */
    for (i = 0; i < 3; i++)
        assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &s, 1, 0, 0, 0, 200 + (uint64_t)i), 0);
    assert_int_equal(ibv_modify_qp(e.qp, &a, IBV_QP_STATE), 0);
    n = t_poll(e.cq, wc, 16, 500);
    assert_int_equal(n, 8);
    for (i = 0; i < n; i++)
        assert_int_equal(wc[i].status, IBV_WC_WR_FLUSH_ERR);
    /* Posting to a QP in error completes at once with a flush error. */
    assert_int_equal(t_post_recv(e.qp, &s, 1, 300), 0);
    assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &s, 1, 0, 0, 0, 301), 0);
    assert_int_equal(t_poll(e.cq, wc, 2, 500), 2);
    assert_int_equal(wc[0].status | wc[1].status, IBV_WC_WR_FLUSH_ERR);
    close_pair(&e, b);
}

/* Target peer: registers, connects, then sleeps without calling verbs again. */
static int sleeping_target(int rfd, int wfd, void *arg)
{
    struct t_info me, peer;
    struct t_ep e;

    (void)arg;
    t_ep_open(&e, 1 << 16, ALL_ACCESS, false);
    t_qp_create(&e, 8, false);
    memcpy(e.buf, "target data", 12);
    me = t_ep_info(&e);
    t_xwrite(wfd, &me, sizeof(me));
    t_xread(rfd, &peer, sizeof(peer));
    t_qp_connect(e.qp, peer.lid, peer.qpn, NULL);
    t_xwrite(wfd, &me, sizeof(me));
    if (arg)
        munmap(e.buf, 4096); /* for the stale test: replace the first page */
    if (arg)
        mmap(e.buf, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (arg)
        t_xwrite(wfd, &me, sizeof(me));
    sleep(60); /* killed by the test */
    return 0;
}

static struct t_peer target_connect(struct t_ep *e, struct t_info *ti, void *arg)
{
    struct t_peer p = t_fork(sleeping_target, arg);
    struct t_info me;

    t_ep_open(e, 1 << 16, ALL_ACCESS, false);
    t_qp_create(e, 8, false);
    t_xread(p.rfd, ti, sizeof(*ti));
    me = t_ep_info(e);
    t_xwrite(p.wfd, &me, sizeof(me));
    t_qp_connect(e->qp, ti->lid, ti->qpn, NULL);
    t_xread(p.rfd, &me, sizeof(me));
    return p;
}

static void test_one_sided_sleeping_target(void **state)
{
    struct ibv_wc wc;
    struct t_info ti;
    struct ibv_sge s;
    struct t_ep e;
    struct t_peer p = target_connect(&e, &ti, NULL);

    (void)state;
    s = t_sge(&e, 0, 12);
    assert_int_equal(
        t_post_send(e.qp, IBV_WR_RDMA_READ, &s, 1, ti.addr, ti.rkey, IBV_SEND_SIGNALED, 1), 0);
    assert_int_equal(t_poll(e.cq, &wc, 1, 2000), 1);
    assert_int_equal(wc.status, IBV_WC_SUCCESS);
    assert_memory_equal(e.buf, "target data", 12);
    memcpy(e.buf, "written", 8);
    s = t_sge(&e, 0, 8);
    assert_int_equal(t_post_send(e.qp, IBV_WR_RDMA_WRITE, &s, 1, ti.addr + 100, ti.rkey, 0, 2), 0);
    s = t_sge(&e, 64, 8);
    assert_int_equal(
        t_post_send(e.qp, IBV_WR_RDMA_READ, &s, 1, ti.addr + 100, ti.rkey, IBV_SEND_SIGNALED, 3),
        0);
    assert_int_equal(t_poll(e.cq, &wc, 1, 2000), 1);
    assert_int_equal(wc.wr_id, 3);
    assert_memory_equal(e.buf + 64, "written", 8);
    t_kill(&p);
    t_ep_close(&e);
}

static void test_dead_peer(void **state)
{
    struct ibv_wc wc;
    struct t_info ti;
    struct ibv_sge s;
    struct t_ep e;
    struct t_peer p = target_connect(&e, &ti, NULL);
    double t0;

    (void)state;
    t_kill(&p);
    s = t_sge(&e, 0, 8);
    t0 = now_ms();
    /* timeout 8 (1 ms) x (retry_cnt 3 + 1): about 4 ms. */
    assert_int_equal(
        t_post_send(e.qp, IBV_WR_RDMA_WRITE, &s, 1, ti.addr, ti.rkey, IBV_SEND_SIGNALED, 1), 0);
    assert_int_equal(t_poll(e.cq, &wc, 1, 3000), 1);
    assert_int_equal(wc.status, IBV_WC_RETRY_EXC_ERR);
    assert_true(now_ms() - t0 < 1000);
    assert_int_equal(t_qp_state(e.qp), IBV_QPS_ERR);
    t_ep_close(&e);
}

/*
 * Runs fn with stderr captured; returns true if needle was printed. fn
 * returns a completion status (checks inside would leave stderr redirected).
 */
static bool stderr_has(const char *needle, int (*fn)(void *), void *arg, int *status)
{
    char buf[4096] = {0};
    int fds[2], saved;
    ssize_t n;

    assert_int_equal(pipe2(fds, O_NONBLOCK), 0);
    saved = dup(2);
    dup2(fds[1], 2);
    *status = fn(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fds[1]);
    n = read(fds[0], buf, sizeof(buf) - 1);
    close(fds[0]);
    return n > 0 && strstr(buf, needle);
}

/* PFNs read as 0 without CAP_SYS_ADMIN; softib's weaker fallback is not tested. */
static bool pfn_visible(void)
{
    static volatile uint64_t probe = 1;
    uint64_t e = 0;
    int fd = open("/proc/self/pagemap", O_RDONLY);

    if (fd < 0)
        return false;
    if (pread(fd, &e, 8, (off_t)((uintptr_t)&probe / 4096 * 8)) != 8)
        e = 0;
    close(fd);
    return (e & ((1ull << 55) - 1)) != 0;
}

static int stale_local(void *arg)
{
    struct t_ep *e = arg;
    struct ibv_sge s = t_sge(e, 0, 8);
    struct ibv_wc wc;
    void *p;

    munmap(e->buf, 4096);
    p = mmap(e->buf, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p != e->buf)
        return -1;
    memset(p, 1, 4096);
    if (t_post_send(e->qp, IBV_WR_RDMA_WRITE, &s, 1, (uintptr_t)e->buf + 8192, e->mr->rkey,
                    IBV_SEND_SIGNALED, 1))
        return -2;
    return t_poll(e->cq, &wc, 1, 1000) == 1 ? (int)wc.status : -3;
}

static void test_stale_registration_local(void **state)
{
    struct t_ep e;
    struct ibv_qp *b;
    int st;

    (void)state;
    if (!pfn_visible())
        skip();
    setenv("SOFTIB_STALE_CHECK", "1", 1);
    b = loop_pair(&e, NULL, ALL_ACCESS);
    assert_true(stderr_has("STALE REGISTRATION", stale_local, &e, &st));
    assert_int_equal(st, IBV_WC_LOC_PROT_ERR);
    close_pair(&e, b);
}

static int stale_remote(void *arg)
{
    void **a = arg;
    struct t_ep *e = a[0];
    struct t_info *ti = a[1];
    struct ibv_sge s = t_sge(e, 0, 8);
    struct ibv_wc wc;

    if (t_post_send(e->qp, IBV_WR_RDMA_WRITE, &s, 1, ti->addr, ti->rkey, IBV_SEND_SIGNALED, 1))
        return -2;
    return t_poll(e->cq, &wc, 1, 1000) == 1 ? (int)wc.status : -3;
}

static void test_stale_registration_remote(void **state)
{
    struct t_info ti, x;
    struct t_peer p;
    struct t_ep e;
    void *args[2] = {&e, &ti};
    int st;

    (void)state;
    if (!pfn_visible())
        skip();
    setenv("SOFTIB_STALE_CHECK", "1", 1);
    p = target_connect(&e, &ti, (void *)1);
    t_xread(p.rfd, &x, sizeof(x)); /* the target replaced its page */
    assert_true(stderr_has("STALE REGISTRATION", stale_remote, args, &st));
    assert_int_equal(st, IBV_WC_REM_ACCESS_ERR);
    t_kill(&p);
    t_ep_close(&e);
}

static void test_fault_drop_transparent(void **state)
{
    enum { N = 200 };
    struct ibv_wc wc[2 * N];
    struct ibv_sge s, r;
    struct ibv_qp *b;
    struct t_ep e;
    int i, n, rx = 0;

    (void)state;
    setenv("SOFTIB_DROP_RATE", "0.3", 1);
    setenv("SOFTIB_SEED", "42", 1);
    t_ep_open(&e, 1 << 16, ALL_ACCESS, false);
    t_qp_create(&e, N, false);
    b = t_qp_create(&e, N, false);
    t_qp_connect(e.qp, e.lid, b->qp_num, NULL);
    t_qp_connect(b, e.lid, e.qp->qp_num, NULL);
    for (i = 0; i < N; i++) {
        r = t_sge(&e, 4096 + 8 * (size_t)i, 8);
        assert_int_equal(t_post_recv(b, &r, 1, (uint64_t)i), 0);
    }
    for (i = 0; i < N; i++) {
        memcpy(e.buf + 8 * (size_t)i, &i, sizeof(i));
        s = t_sge(&e, 8 * (size_t)i, 8);
        assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &s, 1, 0, 0, 0, (uint64_t)i), 0);
    }
    n = t_poll(e.cq, wc, N, 10000);
    assert_int_equal(n, N); /* receives only: the sends were unsignalled */
    for (i = 0; i < n; i++) {
        assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
        assert_int_equal(wc[i].wr_id, (uint64_t)rx); /* in order, exactly once */
        assert_memory_equal(e.buf + 4096 + 8 * (size_t)rx, &rx, sizeof(rx));
        rx++;
    }
    assert_int_equal(t_poll(e.cq, wc, 1, 50), 0);
    close_pair(&e, b);
}

static void test_fault_fail_after(void **state)
{
    struct ibv_wc wc[16];
    struct ibv_sge s;
    struct ibv_qp *b;
    struct t_ep e;
    int i;

    (void)state;
    setenv("SOFTIB_FAIL_AFTER", "5", 1);
    b = loop_pair(&e, NULL, ALL_ACCESS);
    s = t_sge(&e, 0, 8);
    for (i = 0; i < 10; i++)
        assert_int_equal(t_post_send(e.qp, IBV_WR_RDMA_WRITE, &s, 1, (uintptr_t)e.buf + 64,
                                     e.mr->rkey, IBV_SEND_SIGNALED, (uint64_t)i),
                         0);
    assert_int_equal(t_poll(e.cq, wc, 16, 1000), 10);
    for (i = 0; i < 5; i++)
        assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
    assert_int_equal(wc[5].status, IBV_WC_RETRY_EXC_ERR);
    for (i = 6; i < 10; i++)
        assert_int_equal(wc[i].status, IBV_WC_WR_FLUSH_ERR);
    close_pair(&e, b);
}

static void test_fault_delay(void **state)
{
    struct ibv_wc wc;
    struct ibv_sge s;
    struct ibv_qp *b;
    struct t_ep e;
    double t0;

    (void)state;
    setenv("SOFTIB_DELAY_US", "20000", 1);
    b = loop_pair(&e, NULL, ALL_ACCESS);
    s = t_sge(&e, 0, 8);
    t0 = now_ms();
    assert_int_equal(t_post_send(e.qp, IBV_WR_RDMA_WRITE, &s, 1, (uintptr_t)e.buf + 64, e.mr->rkey,
                                 IBV_SEND_SIGNALED, 1),
                     0);
    assert_int_equal(t_poll(e.cq, &wc, 1, 1000), 1);
    assert_true(now_ms() - t0 >= 19.0);
    close_pair(&e, b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_local_protection, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_read_needs_local_write, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_remote_access, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_rnr, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_receive_too_small, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_flush_both_queues, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_one_sided_sleeping_target, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_dead_peer, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_stale_registration_local, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_stale_registration_remote, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_fault_drop_transparent, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_fault_fail_after, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_fault_delay, setup, t_teardown),
    };

    /* e.g. SOFTIB_TEST_FILTER='test_rnr' to run one test (under valgrind, gdb) */
    if (getenv("SOFTIB_TEST_FILTER"))
        cmocka_set_test_filter(getenv("SOFTIB_TEST_FILTER"));
    return cmocka_run_group_tests_name("softib_errors", tests, NULL, NULL);
}
