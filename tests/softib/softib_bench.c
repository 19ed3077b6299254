/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib_bench: one-way latency of an 8-byte RC SEND between two processes,
 * half of a ping-pong round trip, median of several runs. Plain verbs: run it
 * with LD_PRELOAD=libsoftib.so (or on real hardware without).
 *
 *   softib_bench [iterations] [size]
 */
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNS 7

struct ep {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    char buf[4096];
    uint16_t lid;
};

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void ep_open(struct ep *e)
{
    struct ibv_device **l = ibv_get_device_list(NULL);
    struct ibv_qp_init_attr qa = {.qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 64,
                                          .max_recv_wr = 64,
                                          .max_send_sge = 1,
                                          .max_recv_sge = 1,
                                          .max_inline_data = 64}};
    struct ibv_port_attr pa;

    if (!l || !l[0] || !(e->ctx = ibv_open_device(l[0])))
        die("open device");
    ibv_free_device_list(l);
    e->pd = ibv_alloc_pd(e->ctx);
    e->cq = ibv_create_cq(e->ctx, 128, NULL, NULL, 0);
    e->mr = ibv_reg_mr(e->pd, e->buf, sizeof(e->buf), IBV_ACCESS_LOCAL_WRITE);
    qa.send_cq = qa.recv_cq = e->cq;
    e->qp = ibv_create_qp(e->pd, &qa);
    if (!e->pd || !e->cq || !e->mr || !e->qp || ibv_query_port(e->ctx, 1, &pa))
        die("setup");
    e->lid = pa.lid;
}

static void post_recv(struct ep *e, size_t size);

static void ep_connect(struct ep *e, uint16_t lid, uint32_t qpn, size_t size)
{
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1};

    if (ibv_modify_qp(e->qp, &a,
                      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
        die("init");
    post_recv(e, size); /* allowed from INIT on, and needed before the peer's first SEND */
    a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTR,
                             .path_mtu = IBV_MTU_4096,
                             .dest_qp_num = qpn,
                             .max_dest_rd_atomic = 1,
                             .min_rnr_timer = 1,
                             .ah_attr = {.dlid = lid, .port_num = 1}};
    if (ibv_modify_qp(e->qp, &a,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                          IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
        die("rtr");
    a = (struct ibv_qp_attr){
        .qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 1};
    if (ibv_modify_qp(e->qp, &a,
                      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                          IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
        die("rts");
}

static void post_recv(struct ep *e, size_t size)
{
    struct ibv_sge s = {(uintptr_t)e->buf + 2048, (uint32_t)size, e->mr->lkey};
    struct ibv_recv_wr wr = {.sg_list = &s, .num_sge = 1}, *bad;

    if (ibv_post_recv(e->qp, &wr, &bad))
        die("post_recv");
}

static void send_one(struct ep *e, size_t size)
{
    struct ibv_sge s = {(uintptr_t)e->buf, (uint32_t)size, e->mr->lkey};
    struct ibv_send_wr wr = {.sg_list = &s,
                             .num_sge = 1,
                             .opcode = IBV_WR_SEND,
                             .send_flags = IBV_SEND_SIGNALED | (size <= 64 ? IBV_SEND_INLINE : 0)};
    struct ibv_send_wr *bad;

    if (ibv_post_send(e->qp, &wr, &bad))
        die("post_send");
}

/* Waits for one receive completion, consuming send completions on the way. */
static void wait_recv(struct ep *e)
{
    struct ibv_wc wc[4];
    int n, i;

    for (;;) {
        n = ibv_poll_cq(e->cq, 4, wc);
        for (i = 0; i < n; i++) {
            if (wc[i].status != IBV_WC_SUCCESS) {
                fprintf(stderr, "completion error: %s\n", ibv_wc_status_str(wc[i].status));
                exit(1);
            }
            if (wc[i].opcode == IBV_WC_RECV)
                return;
        }
    }
}

static void pin(int cpu)
{
    cpu_set_t s;

    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    sched_setaffinity(0, sizeof(s), &s);
}

static double now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static void pingpong(struct ep *e, int iters, size_t size, bool initiator)
{
    int i;

    /* One receive is always posted ahead, so no SEND meets an empty queue (RNR). */
    for (i = 0; i < iters; i++) {
        if (initiator) {
            send_one(e, size);
            wait_recv(e);
            post_recv(e, size);
        } else {
            wait_recv(e);
            post_recv(e, size);
            send_one(e, size);
        }
    }
}

static void run(struct ep *e, int iters, size_t size, bool initiator)
{
    double lat[RUNS], t;
    int r;

    for (r = 0; r < RUNS; r++) {
        t = now_us();
        pingpong(e, iters, size, initiator);
        lat[r] = (now_us() - t) / iters / 2;
    }
    if (!initiator)
        return;
    qsort(lat, RUNS, sizeof(lat[0]), cmp_d);
    printf("softib_bench: %zu-byte RC SEND one-way latency: median %.3f us (min %.3f, max %.3f)"
           " over %d x %d round trips\n",
           size, lat[RUNS / 2], lat[0], lat[RUNS - 1], RUNS, iters);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 20000;
    size_t size = argc > 2 ? (size_t)atoi(argv[2]) : 8;
    int p2c[2], c2p[2], st;
    uint32_t info[2], peer[2];
    struct ep e;
    pid_t pid;

    if (size < 1 || size > 2048 || pipe(p2c) || pipe(c2p))
        die("args");
    pid = fork();
    pin(pid == 0 ? 1 : 0);
    memset(&e, 0, sizeof(e));
    ep_open(&e);
    info[0] = e.lid;
    info[1] = e.qp->qp_num;
    if (write(pid ? p2c[1] : c2p[1], info, sizeof(info)) != sizeof(info) ||
        read(pid ? c2p[0] : p2c[0], peer, sizeof(peer)) != sizeof(peer))
        die("exchange");
    ep_connect(&e, (uint16_t)peer[0], peer[1], size);
    run(&e, iters, size, pid != 0);
    ibv_destroy_qp(e.qp);
    ibv_dereg_mr(e.mr);
    ibv_destroy_cq(e.cq);
    ibv_dealloc_pd(e.pd);
    ibv_close_device(e.ctx);
    if (pid == 0)
        _exit(0);
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
