/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers for the softib conformance tests (see test_softib_util.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "test_softib_util.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define T_LIMIT_S 30

const struct t_conn t_conn_default = {.timeout = 8,
                                      .retry_cnt = 3,
                                      .rnr_retry = 7,
                                      .min_rnr_timer = 1,
                                      .access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                                                IBV_ACCESS_REMOTE_ATOMIC};

static char g_ns[32];

bool t_in_child;

void t_fail(const char *what, const char *file, int line)
{
    if (t_in_child) {
        fprintf(stderr, "peer %d: check failed: %s at %s:%d\n", (int)getpid(), what, file, line);
        _exit(99);
    }
    fail_msg("check failed: %s at %s:%d", what, file, line);
}

int t_setup(void **state)
{
    static int serial;

    (void)state;
    /* A namespace per test: a failed test's leftovers do not fail the next. */
    snprintf(g_ns, sizeof(g_ns), "t%dx%d", (int)getpid(), ++serial);
    setenv("SOFTIB_NAMESPACE", g_ns, 1);
    /* A hung test dies instead of blocking the suite; valgrind runs want longer. */
    alarm(getenv("SOFTIB_TEST_LIMIT_S") ? (unsigned)atoi(getenv("SOFTIB_TEST_LIMIT_S"))
                                        : T_LIMIT_S);
    return 0;
}

int t_teardown(void **state)
{
    (void)state;
    alarm(0);
    T_ASSERT((t_shm_leftovers()) == 0);
    return 0;
}

int t_shm_leftovers(void)
{
    char prefix[64];
    struct dirent *d;
    int n = 0;
    DIR *dir = opendir("/dev/shm");

    snprintf(prefix, sizeof(prefix), "softib-%u%s", (unsigned)geteuid(),
             getenv("SOFTIB_NAMESPACE") ? getenv("SOFTIB_NAMESPACE") : "");
    while (dir && (d = readdir(dir))) {
        if (!strncmp(d->d_name, prefix, strlen(prefix))) {
            fprintf(stderr, "leftover /dev/shm/%s\n", d->d_name);
            n++;
        }
    }
    if (dir)
        closedir(dir);
    return n;
}

void t_ep_open(struct t_ep *e, size_t len, unsigned int access, bool channel)
{
    struct ibv_device **l = ibv_get_device_list(NULL);
    struct ibv_port_attr pa;

    memset(e, 0, sizeof(*e));
    T_ASSERT(NULL != l);
    T_ASSERT(NULL != l[0]);
    e->ctx = ibv_open_device(l[0]);
    ibv_free_device_list(l);
    T_ASSERT(NULL != e->ctx);
    e->pd = ibv_alloc_pd(e->ctx);
    e->ch = channel ? ibv_create_comp_channel(e->ctx) : NULL;
    e->cq = ibv_create_cq(e->ctx, 256, e, e->ch, 0);
    e->len = len;
    e->buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    T_ASSERT(e->pd && e->cq && e->buf != MAP_FAILED);
    e->mr = ibv_reg_mr(e->pd, e->buf, len, (int)access);
    T_ASSERT(NULL != e->mr);
    T_ASSERT((ibv_query_port(e->ctx, 1, &pa)) == 0);
    e->lid = pa.lid;
}

struct ibv_qp *t_qp_create(struct t_ep *e, uint32_t depth, bool sig_all)
{
    struct ibv_qp_init_attr a = {.send_cq = e->cq,
                                 .recv_cq = e->cq,
                                 .srq = e->srq,
                                 .qp_type = IBV_QPT_RC,
                                 .sq_sig_all = sig_all,
                                 .cap = {.max_send_wr = depth,
                                         .max_recv_wr = depth,
                                         .max_send_sge = 4,
                                         .max_recv_sge = 4,
                                         .max_inline_data = 64}};
    struct ibv_qp *qp = ibv_create_qp(e->pd, &a);

    T_ASSERT(NULL != qp);
    if (!e->qp)
        e->qp = qp;
    return qp;
}

static void qp_init(struct ibv_qp *qp, unsigned int access)
{
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1, .qp_access_flags = access};

    T_ASSERT(
        (ibv_modify_qp(qp, &a,
                       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) == 0);
}

void t_qp_connect(struct ibv_qp *qp, uint32_t lid, uint32_t qpn, const struct t_conn *c)
{
    struct ibv_qp_attr a;

    if (!c)
        c = &t_conn_default;
    if (t_qp_state(qp) == IBV_QPS_RESET)
        qp_init(qp, c->access);
    a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTR,
                             .path_mtu = IBV_MTU_1024,
                             .dest_qp_num = qpn,
                             .max_dest_rd_atomic = 4,
                             .min_rnr_timer = c->min_rnr_timer,
                             .ah_attr = {.dlid = (uint16_t)lid, .port_num = 1}};
    T_ASSERT(
        (ibv_modify_qp(qp, &a,
                       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                           IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) == 0);
    a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTS,
                             .timeout = c->timeout,
                             .retry_cnt = c->retry_cnt,
                             .rnr_retry = c->rnr_retry,
                             .max_rd_atomic = 4};
    T_ASSERT((ibv_modify_qp(qp, &a,
                            IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) == 0);
}

void t_ep_close(struct t_ep *e)
{
    if (e->qp)
        T_ASSERT((ibv_destroy_qp(e->qp)) == 0);
    if (e->srq)
        T_ASSERT((ibv_destroy_srq(e->srq)) == 0);
    T_ASSERT((ibv_dereg_mr(e->mr)) == 0);
    T_ASSERT((ibv_destroy_cq(e->cq)) == 0);
    if (e->ch)
        T_ASSERT((ibv_destroy_comp_channel(e->ch)) == 0);
    T_ASSERT((ibv_dealloc_pd(e->pd)) == 0);
    T_ASSERT((ibv_close_device(e->ctx)) == 0);
    munmap(e->buf, e->len);
    memset(e, 0, sizeof(*e));
}

struct t_info t_ep_info(const struct t_ep *e)
{
    return (struct t_info){.lid = e->lid,
                           .qpn = e->qp ? e->qp->qp_num : 0,
                           .rkey = e->mr->rkey,
                           .addr = (uintptr_t)e->buf};
}

struct ibv_sge t_sge(const struct t_ep *e, size_t off, uint32_t len)
{
    return (struct ibv_sge){(uintptr_t)e->buf + off, len, e->mr->lkey};
}

int t_post_send(struct ibv_qp *qp, enum ibv_wr_opcode op, struct ibv_sge *sge, int nsge,
                uint64_t raddr, uint32_t rkey, unsigned int flags, uint64_t wr_id)
{
    struct ibv_send_wr wr = {.wr_id = wr_id,
                             .sg_list = sge,
                             .num_sge = nsge,
                             .opcode = op,
                             .send_flags = flags},
                       *bad = NULL;
    int rc;

    if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
        wr.wr.atomic.remote_addr = raddr;
        wr.wr.atomic.rkey = rkey;
        wr.wr.atomic.compare_add = 1; /* fetch-and-add adds 1; CAS compares with 1 */
    } else {
        wr.wr.rdma.remote_addr = raddr;
        wr.wr.rdma.rkey = rkey;
    }
    rc = ibv_post_send(qp, &wr, &bad);
    if (rc)
        T_ASSERT(bad == &wr);
    return rc;
}

int t_post_send_imm(struct ibv_qp *qp, enum ibv_wr_opcode op, struct ibv_sge *sge, uint64_t raddr,
                    uint32_t rkey, uint32_t imm, uint64_t wr_id)
{
    struct ibv_send_wr wr = {.wr_id = wr_id,
                             .sg_list = sge,
                             .num_sge = 1,
                             .opcode = op,
                             .send_flags = IBV_SEND_SIGNALED,
                             .imm_data = imm},
                       *bad;

    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = rkey;
    return ibv_post_send(qp, &wr, &bad);
}

int t_post_recv(struct ibv_qp *qp, struct ibv_sge *sge, int nsge, uint64_t wr_id)
{
    struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = sge, .num_sge = nsge}, *bad = NULL;
    int rc = ibv_post_recv(qp, &wr, &bad);

    if (rc)
        T_ASSERT(bad == &wr);
    return rc;
}

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int t_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms)
{
    double end = now_ms() + ms;
    int got = 0, r;

    while (got < n && now_ms() < end) {
        r = ibv_poll_cq(cq, n - got, wc + got);
        T_ASSERT(r >= 0);
        got += r;
        if (!r)
            usleep(10);
    }
    return got;
}

enum ibv_qp_state t_qp_state(struct ibv_qp *qp)
{
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr ia;

    T_ASSERT((ibv_query_qp(qp, &a, IBV_QP_STATE, &ia)) == 0);
    return a.qp_state;
}

struct t_peer t_fork(int (*fn)(int rfd, int wfd, void *arg), void *arg)
{
    int p2c[2], c2p[2];
    struct t_peer p;

    T_ASSERT((pipe(p2c)) == 0);
    T_ASSERT((pipe(c2p)) == 0);
    p.pid = fork();
    T_ASSERT(p.pid >= 0);
    if (p.pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* no stray peer if the test dies */
        t_in_child = true;
        close(p2c[1]);
        close(c2p[0]);
        _exit(fn(p2c[0], c2p[1], arg));
    }
    close(p2c[0]);
    close(c2p[1]);
    p.rfd = c2p[0];
    p.wfd = p2c[1];
    return p;
}

int t_wait(struct t_peer *p)
{
    int st = 0;

    T_ASSERT((waitpid(p->pid, &st, 0)) == p->pid);
    close(p->rfd);
    close(p->wfd);
    p->pid = 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void t_kill(struct t_peer *p)
{
    kill(p->pid, SIGKILL);
    t_wait(p);
}

void t_xwrite(int fd, const void *b, size_t n)
{
    if (write(fd, b, n) != (ssize_t)n)
        abort();
}

void t_xread(int fd, void *b, size_t n)
{
    size_t got = 0;
    ssize_t r;

    while (got < n) {
        r = read(fd, (char *)b + got, n - got);
        if (r <= 0)
            abort();
        got += (size_t)r;
    }
}
