/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The overhead baseline: a raw RC SEND / RECV ping-pong of 8 bytes between two forked processes on
 * the first verbs device (softib under LD_PRELOAD), the way rc_pingpong.c brings QPs up. The
 * transport's own ping-pong (verbs_tl_test latency) is compared against it.
 */
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEPTH 64

static int me, pipes[2][2];

static void fail(const char *what)
{
    fprintf(stderr, "FAIL (rank %d): %s\n", me, what);
    exit(1);
}

struct info {
    uint32_t qpn;
    uint16_t lid;
};

static void post_recv(struct ibv_qp *qp, struct ibv_mr *mr, char *buf)
{
    struct ibv_sge sge = {(uintptr_t)buf, 64, mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1}, *bad;
    if (ibv_post_recv(qp, &wr, &bad))
        fail("post_recv");
}

static void connect_qp(struct ibv_qp *qp, const struct info *peer, enum ibv_mtu mtu)
{
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_INIT, .port_num = 1, .qp_access_flags = IBV_ACCESS_LOCAL_WRITE};
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
        fail("INIT");
    a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTR,
                             .path_mtu = mtu,
                             .dest_qp_num = peer->qpn,
                             .max_dest_rd_atomic = 1,
                             .min_rnr_timer = 12,
                             .ah_attr = {.dlid = peer->lid, .port_num = 1}};
    if (ibv_modify_qp(qp, &a,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                          IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
        fail("RTR");
    a = (struct ibv_qp_attr){
        .qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 1};
    if (ibv_modify_qp(qp, &a,
                      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                          IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
        fail("RTS");
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Rank 0 sends then waits for the answer; rank 1 waits then answers. */
static void round_trip(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_mr *mr, char *buf,
                       struct ibv_send_wr *swr, long i)
{
    struct ibv_send_wr *bad;
    for (int turn = 0; turn < 2; turn++) {
        if (turn == me) {
            /* signal every 16th send so the send queue drains */
            swr->send_flags = IBV_SEND_INLINE | (i % 16 == 0 ? IBV_SEND_SIGNALED : 0);
            if (ibv_post_send(qp, swr, &bad))
                fail("post_send");
            continue;
        }
        struct ibv_wc wc;
        for (;;) {
            int k = ibv_poll_cq(cq, 1, &wc);
            if (k < 0 || (k == 1 && wc.status != IBV_WC_SUCCESS))
                fail("poll");
            if (k == 1 && (wc.opcode & IBV_WC_RECV))
                break;
        }
        post_recv(qp, mr, buf + (i % DEPTH) * 64);
    }
}

int main(void)
{
    if (pipe(pipes[0]) || pipe(pipes[1]))
        fail("pipe");
    pid_t pid = fork();
    me = pid == 0;
    if (me)
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the parent */
    alarm(60);
    int n;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (!list || n == 0)
        fail("no device");
    struct ibv_context *ctx = ibv_open_device(list[0]);
    struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
    struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 2 * DEPTH, NULL, NULL, 0) : NULL;
    if (!cq)
        fail("device setup");
    struct ibv_qp_init_attr qa = {.send_cq = cq,
                                  .recv_cq = cq,
                                  .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = DEPTH,
                                          .max_recv_wr = DEPTH,
                                          .max_send_sge = 1,
                                          .max_recv_sge = 1,
                                          .max_inline_data = 64}};
    struct ibv_qp *qp = ibv_create_qp(pd, &qa);
    char *buf = calloc(DEPTH, 64);
    struct ibv_mr *mr = ibv_reg_mr(pd, buf, DEPTH * 64, IBV_ACCESS_LOCAL_WRITE);
    struct ibv_port_attr pa;
    if (!qp || !mr || ibv_query_port(ctx, 1, &pa))
        fail("qp setup");
    struct info mine = {qp->qp_num, pa.lid}, peer;
    if (write(pipes[1 - me][1], &mine, sizeof(mine)) != sizeof(mine) ||
        read(pipes[me][0], &peer, sizeof(peer)) != sizeof(peer))
        fail("exchange");
    connect_qp(qp, &peer, pa.active_mtu);
    for (int i = 0; i < DEPTH; i++)
        post_recv(qp, mr, buf + i * 64);
    char c = 0;
    if (write(pipes[1 - me][1], &c, 1) != 1 || read(pipes[me][0], &c, 1) != 1)
        fail("barrier");

    enum { BATCHES = 11, PER = 1000 };
    double t[BATCHES];
    uint64_t v = 7;
    struct ibv_sge sge = {(uintptr_t)&v, 8, 0};
    struct ibv_send_wr swr = {
        .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_INLINE};
    long i = 0;
    for (int b = -1; b < BATCHES; b++) { /* batch -1 warms up */
        double t0 = now_s();
        for (int k = 0; k < PER; k++, i++)
            round_trip(qp, cq, mr, buf, &swr, i);
        if (b >= 0)
            t[b] = (now_s() - t0) / PER / 2 * 1e9;
    }
    qsort(t, BATCHES, sizeof(t[0]), cmp_double);
    if (me == 0)
        printf("raw rc send/recv 8-byte one-way latency: %.0f ns (median; min %.0f)\n",
               t[BATCHES / 2], t[0]);
    if (write(pipes[1 - me][1], &c, 1) != 1 || read(pipes[me][0], &c, 1) != 1)
        fail("barrier");
    ibv_destroy_qp(qp);
    ibv_dereg_mr(mr);
    ibv_destroy_cq(cq);
    ibv_dealloc_pd(pd);
    ibv_close_device(ctx);
    ibv_free_device_list(list);
    free(buf);
    if (me == 1)
        _exit(0);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
