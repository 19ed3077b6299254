/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib conformance: device queries, the QP state machine and its masks,
 * every opcode with every completion field, queue depths, CQ events through
 * the channel fd, SRQ with its limit event, atomics, one-sided progress
 * against a target that never calls verbs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "softib_counters.h"
#include "test_softib_util.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ALL_ACCESS                                                                                 \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |                   \
     IBV_ACCESS_REMOTE_ATOMIC)

static void test_device_queries(void **state)
{
    struct ibv_device_attr da;
    struct ibv_port_attr pa;
    union ibv_gid gid;
    __be16 pkey;
    struct t_ep e;
    int n = 0;
    struct ibv_device **l = ibv_get_device_list(&n);

    (void)state;
    assert_int_equal(n, 1);
    assert_string_equal(ibv_get_device_name(l[0]), "softib0");
    ibv_free_device_list(l);
    t_ep_open(&e, 4096, IBV_ACCESS_LOCAL_WRITE, false);
    assert_int_equal(ibv_query_device(e.ctx, &da), 0);
    assert_int_equal(da.atomic_cap, IBV_ATOMIC_HCA);
    assert_true(da.max_qp_wr >= 1024 && da.max_sge >= 16 && da.max_qp_rd_atom > 0);
    assert_int_equal(da.phys_port_cnt, 1);
    assert_int_equal(ibv_query_port(e.ctx, 1, &pa), 0);
    assert_int_equal(pa.state, IBV_PORT_ACTIVE);
    assert_int_equal(pa.link_layer, IBV_LINK_LAYER_INFINIBAND);
    assert_true(pa.lid != 0);
    assert_int_equal(ibv_query_port(e.ctx, 2, &pa), EINVAL);
    assert_int_equal(ibv_query_gid(e.ctx, 1, 0, &gid), 0);
    assert_int_equal(gid.raw[0], 0xfe);
    assert_int_equal(ibv_query_pkey(e.ctx, 1, 0, &pkey), 0);
    assert_int_equal(ntohs(pkey), 0xffff);
    assert_string_equal(ibv_wc_status_str(IBV_WC_RNR_RETRY_EXC_ERR), "RNR retry counter exceeded");
    assert_string_equal(ibv_port_state_str(IBV_PORT_ACTIVE), "active");
    t_ep_close(&e);
}

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
    return ibv_modify_qp(qp, a, mask);
}

static void test_qp_state_machine(void **state)
{
    int init_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
    int rtr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    int rts_mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                   IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
    struct ibv_qp_attr a = {.port_num = 1,
                            .path_mtu = IBV_MTU_1024,
                            .dest_qp_num = 1,
                            .ah_attr = {.dlid = 1, .port_num = 1},
                            .timeout = 14,
                            .retry_cnt = 7,
                            .rnr_retry = 7};
    struct ibv_sge sge;
    struct t_ep e;

    (void)state;
    t_ep_open(&e, 4096, IBV_ACCESS_LOCAL_WRITE, false);
    t_qp_create(&e, 8, false);
    sge = t_sge(&e, 0, 8);
    assert_int_equal(t_qp_state(e.qp), IBV_QPS_RESET);
    assert_int_equal(t_post_recv(e.qp, &sge, 1, 1), EINVAL); /* not in RESET */
    a.qp_state = IBV_QPS_RTR;
    assert_int_equal(modify(e.qp, &a, rtr_mask), EINVAL); /* RESET -> RTR skips INIT */
    a.qp_state = IBV_QPS_INIT;
    assert_int_equal(modify(e.qp, &a, init_mask & ~IBV_QP_PORT), EINVAL);
    assert_int_equal(modify(e.qp, &a, init_mask | IBV_QP_DEST_QPN), EINVAL);
    a.port_num = 2;
    assert_int_equal(modify(e.qp, &a, init_mask), EINVAL);
    a.port_num = 1;
    assert_int_equal(modify(e.qp, &a, init_mask), 0);
    assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &sge, 1, 0, 0, 0, 1), EINVAL);
    a.qp_state = IBV_QPS_RTR;
    assert_int_equal(modify(e.qp, &a, rtr_mask & ~IBV_QP_MIN_RNR_TIMER), EINVAL);
    assert_int_equal(modify(e.qp, &a, rtr_mask | IBV_QP_SQ_PSN), EINVAL);
    assert_int_equal(modify(e.qp, &a, rtr_mask), 0);
    a.qp_state = IBV_QPS_RTS;
    assert_int_equal(modify(e.qp, &a, rts_mask & ~IBV_QP_RETRY_CNT), EINVAL);
    a.retry_cnt = 8;
    assert_int_equal(modify(e.qp, &a, rts_mask), EINVAL);
    a.retry_cnt = 7;
    assert_int_equal(modify(e.qp, &a, rts_mask), 0);
    assert_int_equal(t_qp_state(e.qp), IBV_QPS_RTS);
    a.qp_access_flags = IBV_ACCESS_REMOTE_READ;
    assert_int_equal(modify(e.qp, &a, IBV_QP_ACCESS_FLAGS), 0); /* RTS -> RTS */
    a.cur_qp_state = IBV_QPS_INIT;
    a.qp_state = IBV_QPS_ERR;
    assert_int_equal(modify(e.qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE), EINVAL);
    assert_int_equal(modify(e.qp, &a, IBV_QP_STATE), 0);
    a.qp_state = IBV_QPS_RESET;
    assert_int_equal(modify(e.qp, &a, IBV_QP_STATE), 0);
    a.qp_state = IBV_QPS_INIT;
    assert_int_equal(modify(e.qp, &a, init_mask), 0);
    t_ep_close(&e);
}

static void check_wc(const struct ibv_wc *wc, uint64_t wr_id, enum ibv_wc_opcode op, uint32_t len,
                     uint32_t qpn)
{
    assert_int_equal(wc->status, IBV_WC_SUCCESS);
    assert_int_equal(wc->wr_id, wr_id);
    assert_int_equal(wc->opcode, op);
    assert_int_equal(wc->qp_num, qpn);
    assert_int_equal(wc->vendor_err, 0);
    if (op & IBV_WC_RECV)
        assert_int_equal(wc->byte_len, len);
}

/* Two QPs of one context connected to each other. */
static void loop_pair(struct t_ep *e, struct ibv_qp **b)
{
    t_ep_open(e, 1 << 16, ALL_ACCESS, false);
    t_qp_create(e, 32, false);
    *b = t_qp_create(e, 32, false);
    t_qp_connect(e->qp, e->lid, (*b)->qp_num, NULL);
    t_qp_connect(*b, e->lid, e->qp->qp_num, NULL);
}

static void test_two_sided_opcodes(void **state)
{
    struct ibv_sge s[3], r[2];
    struct ibv_wc wc[2];
    struct ibv_qp *b;
    struct t_ep e;

    (void)state;
    loop_pair(&e, &b);
    memcpy(e.buf, "abcdefghijkl", 12);
    r[0] = t_sge(&e, 1000, 5);
    r[1] = t_sge(&e, 2000, 100);
    assert_int_equal(t_post_recv(b, r, 2, 77), 0);
    s[0] = t_sge(&e, 0, 4);
    s[1] = t_sge(&e, 4, 4);
    s[2] = t_sge(&e, 8, 4);
    assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, s, 3, 0, 0, IBV_SEND_SIGNALED, 5), 0);
    assert_int_equal(t_poll(e.cq, wc, 2, 2000), 2);
    check_wc(&wc[0], 77, IBV_WC_RECV, 12, b->qp_num);
    assert_int_equal(wc[0].src_qp, e.qp->qp_num);
    assert_int_equal(wc[0].wc_flags & IBV_WC_WITH_IMM, 0);
    check_wc(&wc[1], 5, IBV_WC_SEND, 0, e.qp->qp_num);
    assert_memory_equal(e.buf + 1000, "abcde", 5);
    assert_memory_equal(e.buf + 2000, "fghijkl", 7);
    /* SEND_WITH_IMM, inline: the buffer may change right after the post. */
    assert_int_equal(t_post_recv(b, r, 1, 78), 0);
    s[0] = t_sge(&e, 0, 3);
    assert_int_equal(
        t_post_send(e.qp, IBV_WR_SEND, s, 1, 0, 0, IBV_SEND_INLINE | IBV_SEND_SIGNALED, 6), 0);
    memset(e.buf, 'z', 3);
    assert_int_equal(t_poll(e.cq, wc, 2, 2000), 2);
    assert_memory_equal(e.buf + 1000, "abc", 3);
    assert_int_equal(t_post_recv(b, r, 1, 79), 0);
    assert_int_equal(t_post_send_imm(e.qp, IBV_WR_SEND_WITH_IMM, s, 0, 0, htonl(0x1234), 7), 0);
    assert_int_equal(t_poll(e.cq, wc, 2, 2000), 2);
    check_wc(&wc[0], 79, IBV_WC_RECV, 3, b->qp_num);
    assert_true(wc[0].wc_flags & IBV_WC_WITH_IMM);
    assert_int_equal(ntohl(wc[0].imm_data), 0x1234);
    assert_int_equal(ibv_destroy_qp(b), 0);
    t_ep_close(&e);
}

static void test_one_sided_opcodes(void **state)
{
    struct ibv_sge s, r;
    struct ibv_wc wc[2];
    struct ibv_qp *b;
    struct t_ep e;
    uint64_t *tgt;

    (void)state;
    loop_pair(&e, &b);
    memcpy(e.buf, "0123456789", 10);
    s = t_sge(&e, 0, 10);
    assert_int_equal(t_post_send(e.qp, IBV_WR_RDMA_WRITE, &s, 1, (uintptr_t)e.buf + 4096,
                                 e.mr->rkey, IBV_SEND_SIGNALED, 1),
                     0);
    assert_int_equal(t_poll(e.cq, wc, 1, 2000), 1);
    check_wc(&wc[0], 1, IBV_WC_RDMA_WRITE, 0, e.qp->qp_num);
    assert_memory_equal(e.buf + 4096, "0123456789", 10);
    s = t_sge(&e, 8192, 10);
    assert_int_equal(t_post_send(e.qp, IBV_WR_RDMA_READ, &s, 1, (uintptr_t)e.buf + 4096, e.mr->rkey,
                                 IBV_SEND_SIGNALED, 2),
                     0);
    assert_int_equal(t_poll(e.cq, wc, 1, 2000), 1);
    check_wc(&wc[0], 2, IBV_WC_RDMA_READ, 10, e.qp->qp_num);
    assert_int_equal(wc[0].byte_len, 10);
    assert_memory_equal(e.buf + 8192, "0123456789", 10);
    /* WRITE_WITH_IMM consumes a receive and reports the immediate. */
    r = t_sge(&e, 0, 0);
    assert_int_equal(t_post_recv(b, &r, 0, 50), 0);
    s = t_sge(&e, 0, 4);
    assert_int_equal(t_post_send_imm(e.qp, IBV_WR_RDMA_WRITE_WITH_IMM, &s, (uintptr_t)e.buf + 12288,
                                     e.mr->rkey, htonl(99), 3),
                     0);
    assert_int_equal(t_poll(e.cq, wc, 2, 2000), 2);
    check_wc(&wc[0], 50, IBV_WC_RECV_RDMA_WITH_IMM, 4, b->qp_num);
    assert_int_equal(ntohl(wc[0].imm_data), 99);
    check_wc(&wc[1], 3, IBV_WC_RDMA_WRITE, 0, e.qp->qp_num);
    assert_memory_equal(e.buf + 12288, "0123", 4);
    /* Atomics: the original value comes back in the local buffer. */
    tgt = (uint64_t *)(e.buf + 16384);
    *tgt = 40;
    s = t_sge(&e, 16392, 8);
    assert_int_equal(t_post_send(e.qp, IBV_WR_ATOMIC_FETCH_AND_ADD, &s, 1, (uintptr_t)tgt,
                                 e.mr->rkey, IBV_SEND_SIGNALED, 4),
                     0);
    assert_int_equal(t_poll(e.cq, wc, 1, 2000), 1);
    check_wc(&wc[0], 4, IBV_WC_FETCH_ADD, 0, e.qp->qp_num);
    assert_int_equal(wc[0].byte_len, 8);
    assert_int_equal(*(uint64_t *)(e.buf + 16392), 40);
    assert_int_equal(*tgt, 41);
    assert_int_equal(ibv_destroy_qp(b), 0);
    t_ep_close(&e);
}

struct poster {
    struct t_ep *e;
    uint64_t *tgt;
    _Atomic int *inflight;
    int id, n;
};

/* Posts n signalled fetch-and-adds of 1, at most 8 of all posters in flight (the queue holds 32).
 */
static void *poster_main(void *arg)
{
    struct poster *p = arg;
    struct ibv_sge s = t_sge(p->e, 16384 + 64 * (size_t)p->id, 8);
    int i;

    for (i = 0; i < p->n; i++) {
        while (atomic_fetch_add(p->inflight, 1) >= 8) {
            atomic_fetch_sub(p->inflight, 1);
            sched_yield();
        }
        T_ASSERT(t_post_send(p->e->qp, IBV_WR_ATOMIC_FETCH_AND_ADD, &s, 1, (uintptr_t)p->tgt,
                             p->e->mr->rkey, IBV_SEND_SIGNALED,
                             ((uint64_t)p->id << 32) | (uint64_t)i) == 0);
    }
    return NULL;
}

/* Two threads post to one QP at once (the send queue's lock): every request executes once, the
 * count is exact, and each thread's requests complete in its own order. */
static void test_post_threads(void **state)
{
    enum { N = 2000 };
    struct poster p[2];
    pthread_t th[2];
    _Atomic int inflight = 0;
    uint64_t next[2] = {0, 0};
    struct ibv_wc wc[8];
    struct ibv_qp *b;
    struct t_ep e;
    int i, k, done = 0;

    (void)state;
    loop_pair(&e, &b);
    *(uint64_t *)(e.buf + 8192) = 0;
    for (i = 0; i < 2; i++) {
        p[i] = (struct poster){&e, (uint64_t *)(e.buf + 8192), &inflight, i, N};
        assert_int_equal(pthread_create(&th[i], NULL, poster_main, &p[i]), 0);
    }
    while (done < 2 * N) {
        k = t_poll(e.cq, wc, 1, 5000);
        assert_true(k > 0);
        for (i = 0; i < k; i++) {
            uint64_t t = wc[i].wr_id >> 32;

            assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
            assert_true(t < 2);
            assert_int_equal(wc[i].wr_id & 0xffffffffu, next[t]++);
        }
        atomic_fetch_sub(&inflight, k);
        done += k;
    }
    for (i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(*(uint64_t *)(e.buf + 8192), 2 * N);
    assert_int_equal(ibv_destroy_qp(b), 0);
    t_ep_close(&e);
}

static void test_atomic_cas_and_unsignaled(void **state)
{
    struct ibv_send_wr wr[3], *bad;
    struct ibv_sge s[3];
    struct ibv_wc wc[4];
    struct ibv_qp *b;
    struct t_ep e;
    uint64_t *tgt;
    int i;

    (void)state;
    loop_pair(&e, &b);
    tgt = (uint64_t *)(e.buf + 4096);
    *tgt = 7;
    memset(wr, 0, sizeof(wr));
    for (i = 0; i < 3; i++) {
        s[i] = t_sge(&e, 8 * (size_t)i, 8);
        wr[i] = (struct ibv_send_wr){.wr_id = 10 + (uint64_t)i,
                                     .sg_list = &s[i],
                                     .num_sge = 1,
                                     .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
                                     .next = i < 2 ? &wr[i + 1] : NULL};
        wr[i].wr.atomic.remote_addr = (uintptr_t)tgt;
        wr[i].wr.atomic.rkey = e.mr->rkey;
        wr[i].wr.atomic.compare_add = 7 + (uint64_t)i;
        wr[i].wr.atomic.swap = 8 + (uint64_t)i;
    }
    wr[2].send_flags = IBV_SEND_SIGNALED; /* only the last completes visibly */
    assert_int_equal(ibv_post_send(e.qp, wr, &bad), 0);
    assert_int_equal(t_poll(e.cq, wc, 4, 300), 1);
    check_wc(&wc[0], 12, IBV_WC_COMP_SWAP, 0, e.qp->qp_num);
    assert_int_equal(*tgt, 10);
    assert_int_equal(*(uint64_t *)e.buf, 7);
    assert_int_equal(*(uint64_t *)(e.buf + 16), 9);
    assert_int_equal(ibv_destroy_qp(b), 0);
    t_ep_close(&e);
}

/* The operation counters (softib_counters.h) count each executed request once by kind, a
 * failed one not at all. */
static void test_counters(void **state)
{
    struct softib_counters c0, c1;
    struct ibv_sge s, r;
    struct ibv_wc wc[2];
    struct ibv_qp *b;
    struct t_ep e;
    uint64_t *tgt;

    (void)state;
    loop_pair(&e, &b);
    tgt = (uint64_t *)(e.buf + 4096);
    *tgt = 5;
    softib_counters_get(&c0);
    s = t_sge(&e, 0, 16);
    assert_int_equal(t_post_send(e.qp, IBV_WR_RDMA_WRITE, &s, 1, (uintptr_t)e.buf + 8192,
                                 e.mr->rkey, IBV_SEND_SIGNALED, 1),
                     0);
    assert_int_equal(t_post_send(e.qp, IBV_WR_RDMA_READ, &s, 1, (uintptr_t)e.buf + 8192, e.mr->rkey,
                                 IBV_SEND_SIGNALED, 2),
                     0);
    s = t_sge(&e, 64, 8);
    assert_int_equal(t_post_send(e.qp, IBV_WR_ATOMIC_FETCH_AND_ADD, &s, 1, (uintptr_t)tgt,
                                 e.mr->rkey, IBV_SEND_SIGNALED, 3),
                     0);
    assert_int_equal(t_poll(e.cq, wc, 2, 2000), 2);
    assert_int_equal(t_poll(e.cq, wc, 1, 2000), 1);
    assert_int_equal(*tgt, 6); /* fetch-and-add of 1 (t_post_send's compare_add) */
    r = t_sge(&e, 12288, 16);
    assert_int_equal(t_post_recv(b, &r, 1, 9), 0);
    s = t_sge(&e, 0, 16);
    assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &s, 1, 0, 0, IBV_SEND_SIGNALED, 4), 0);
    assert_int_equal(t_poll(e.cq, wc, 2, 2000), 2);
    softib_counters_get(&c1);
    assert_int_equal(c1.rdma_write - c0.rdma_write, 1);
    assert_int_equal(c1.rdma_read - c0.rdma_read, 1);
    assert_int_equal(c1.atomic - c0.atomic, 1);
    assert_int_equal(c1.send - c0.send, 1);
    /* a misaligned atomic fails (remote invalid request) and is not counted */
    s = t_sge(&e, 64, 8);
    assert_int_equal(t_post_send(e.qp, IBV_WR_ATOMIC_CMP_AND_SWP, &s, 1, (uintptr_t)tgt + 4,
                                 e.mr->rkey, IBV_SEND_SIGNALED, 5),
                     0);
    assert_int_equal(t_poll(e.cq, wc, 1, 2000), 1);
    assert_int_equal(wc[0].status, IBV_WC_REM_INV_REQ_ERR);
    softib_counters_get(&c0);
    assert_int_equal(c0.atomic, c1.atomic);
    assert_int_equal(*tgt, 6);
    assert_int_equal(ibv_destroy_qp(b), 0);
    t_ep_close(&e);
}

static void test_queue_depth(void **state)
{
    struct ibv_sge s;
    struct ibv_wc wc[8];
    struct ibv_qp *b;
    struct t_ep e;
    int i;

    (void)state;
    t_ep_open(&e, 4096, ALL_ACCESS, false);
    t_qp_create(&e, 4, false);
    b = t_qp_create(&e, 4, false);
    t_qp_connect(e.qp, e.lid, b->qp_num, NULL);
    t_qp_connect(b, e.lid, e.qp->qp_num, NULL);
    s = t_sge(&e, 0, 8);
    for (i = 0; i < 4; i++)
        assert_int_equal(t_post_recv(b, &s, 1, (uint64_t)i), 0);
    assert_int_equal(t_post_recv(b, &s, 1, 4), ENOMEM);
    /* A send slot is free again only once its completion has been polled. */
    for (i = 0; i < 4; i++)
        assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &s, 1, 0, 0, IBV_SEND_SIGNALED, 1), 0);
    assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &s, 1, 0, 0, IBV_SEND_SIGNALED, 1), ENOMEM);
    assert_int_equal(t_poll(e.cq, wc, 8, 500), 8);
    assert_int_equal(t_post_recv(b, &s, 1, 4), 0);
    assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &s, 1, 0, 0, IBV_SEND_SIGNALED, 1), 0);
    assert_int_equal(t_poll(e.cq, wc, 2, 500), 2);
    assert_int_equal(ibv_destroy_qp(b), 0);
    t_ep_close(&e);
}

/* Peer: echo SENDs back until told to stop by a zero-length message. */
static int echo_peer(int rfd, int wfd, void *arg)
{
    struct t_info me, peer;
    struct ibv_sge s;
    struct ibv_wc wc;
    struct t_ep e;
    size_t sz = (size_t)(uintptr_t)arg;

    t_ep_open(&e, 1 << 20, ALL_ACCESS, false);
    t_qp_create(&e, 16, false);
    me = t_ep_info(&e);
    t_xwrite(wfd, &me, sizeof(me));
    t_xread(rfd, &peer, sizeof(peer));
    t_qp_connect(e.qp, peer.lid, peer.qpn, NULL);
    s = t_sge(&e, 0, (uint32_t)sz);
    T_ASSERT(t_post_recv(e.qp, &s, 1, 1) == 0);
    t_xwrite(wfd, &me, sizeof(me)); /* ready */
    for (;;) {
        T_ASSERT(t_poll(e.cq, &wc, 1, 10000) == 1 && wc.status == IBV_WC_SUCCESS);
        if (wc.opcode != IBV_WC_RECV)
            continue;
        if (wc.byte_len == 0)
            break;
        T_ASSERT(t_post_recv(e.qp, &s, 1, 1) == 0);
        T_ASSERT(t_post_send(e.qp, IBV_WR_SEND, &s, 1, 0, 0, IBV_SEND_SIGNALED, 2) == 0);
    }
    t_xread(rfd, &peer, sizeof(peer));
    t_ep_close(&e);
    return 0;
}

static void echo_round(struct t_ep *e, size_t sz, uint8_t seed)
{
    struct ibv_sge s = t_sge(e, 0, (uint32_t)sz), r = t_sge(e, 1 << 20, (uint32_t)sz);
    struct ibv_wc wc[2];
    size_t i;

    for (i = 0; i < sz; i++)
        e->buf[i] = (uint8_t)(seed + i * 7);
    assert_int_equal(t_post_recv(e->qp, &r, 1, 9), 0);
    assert_int_equal(t_post_send(e->qp, IBV_WR_SEND, &s, 1, 0, 0, IBV_SEND_SIGNALED, 8), 0);
    assert_int_equal(t_poll(e->cq, wc, 2, 5000), 2);
    assert_int_equal(wc[0].status | wc[1].status, IBV_WC_SUCCESS);
    assert_memory_equal(e->buf, e->buf + (1 << 20), sz);
}

static void test_cross_process_sizes(void **state)
{
    static const size_t sizes[] = {1, 8, 64, 128, 129, 4096, 65536, 1 << 20};
    size_t i, j;

    (void)state;
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        struct t_peer p = t_fork(echo_peer, (void *)(uintptr_t)sizes[i]);
        struct t_info me, peer;
        struct ibv_sge z;
        struct t_ep e;

        t_ep_open(&e, 2 << 20, ALL_ACCESS, false);
        t_qp_create(&e, 16, false);
        t_xread(p.rfd, &peer, sizeof(peer));
        me = t_ep_info(&e);
        t_xwrite(p.wfd, &me, sizeof(me));
        t_qp_connect(e.qp, peer.lid, peer.qpn, NULL);
        t_xread(p.rfd, &peer, sizeof(peer));
        for (j = 0; j < 20; j++)
            echo_round(&e, sizes[i], (uint8_t)j);
        z = t_sge(&e, 0, 0);
        assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &z, 1, 0, 0, 0, 0), 0);
        t_xwrite(p.wfd, &me, sizeof(me));
        assert_int_equal(t_wait(&p), 0);
        t_ep_close(&e);
    }
}

static void test_cq_events(void **state)
{
    struct ibv_cq *cq;
    struct ibv_sge s;
    struct ibv_wc wc[2];
    struct ibv_qp *b;
    struct pollfd pfd;
    struct t_ep e;
    void *cctx;

    (void)state;
    t_ep_open(&e, 4096, ALL_ACCESS, true);
    t_qp_create(&e, 8, false);
    b = t_qp_create(&e, 8, false);
    t_qp_connect(e.qp, e.lid, b->qp_num, NULL);
    t_qp_connect(b, e.lid, e.qp->qp_num, NULL);
    pfd = (struct pollfd){.fd = e.ch->fd, .events = POLLIN};
    assert_int_equal(ibv_req_notify_cq(e.cq, 0), 0);
    assert_int_equal(poll(&pfd, 1, 50), 0);
    s = t_sge(&e, 0, 8);
    assert_int_equal(t_post_recv(b, &s, 1, 1), 0);
    assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &s, 1, 0, 0, IBV_SEND_SIGNALED, 2), 0);
    assert_int_equal(poll(&pfd, 1, 2000), 1);
    assert_int_equal(ibv_get_cq_event(e.ch, &cq, &cctx), 0);
    assert_ptr_equal(cq, e.cq);
    assert_ptr_equal(cctx, &e);
    ibv_ack_cq_events(cq, 1);
    assert_int_equal(t_poll(e.cq, wc, 2, 1000), 2);
    assert_int_equal(poll(&pfd, 1, 0), 0); /* one event per arming */
    /* solicited_only: an unsolicited SEND does not wake, a solicited one does. */
    assert_int_equal(ibv_req_notify_cq(e.cq, 1), 0);
    assert_int_equal(t_post_recv(b, &s, 1, 3), 0);
    assert_int_equal(t_post_recv(b, &s, 1, 4), 0);
    assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &s, 1, 0, 0, 0, 5), 0);
    assert_int_equal(poll(&pfd, 1, 50), 0);
    assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &s, 1, 0, 0, IBV_SEND_SOLICITED, 6), 0);
    assert_int_equal(poll(&pfd, 1, 2000), 1);
    assert_int_equal(ibv_get_cq_event(e.ch, &cq, &cctx), 0);
    ibv_ack_cq_events(cq, 1);
    assert_int_equal(t_poll(e.cq, wc, 2, 1000), 2);
    assert_int_equal(ibv_destroy_qp(b), 0);
    t_ep_close(&e);
}

static void test_srq_limit(void **state)
{
    struct ibv_srq_init_attr sa = {.attr = {.max_wr = 16, .max_sge = 1}};
    struct ibv_srq_attr q = {.srq_limit = 4};
    struct ibv_async_event ev;
    struct ibv_recv_wr rw, *bad;
    struct ibv_qp *x, *y, *b;
    struct ibv_wc wc[8];
    struct pollfd pfd;
    struct ibv_sge s;
    struct t_ep e;
    int i;

    (void)state;
    t_ep_open(&e, 4096, ALL_ACCESS, false);
    e.srq = ibv_create_srq(e.pd, &sa);
    assert_non_null(e.srq);
    assert_int_equal(ibv_modify_srq(e.srq, &q, IBV_SRQ_LIMIT), 0);
    q.max_wr = 32;
    assert_int_equal(ibv_modify_srq(e.srq, &q, IBV_SRQ_MAX_WR), EINVAL);
    x = t_qp_create(&e, 8, false); /* two QPs share the SRQ */
    y = t_qp_create(&e, 8, false);
    e.srq = NULL;
    b = t_qp_create(&e, 8, false);
    e.srq = x->srq;
    t_qp_connect(x, e.lid, b->qp_num, NULL);
    t_qp_connect(b, e.lid, x->qp_num, NULL);
    t_qp_connect(y, e.lid, b->qp_num, NULL);
    s = t_sge(&e, 0, 8);
    rw = (struct ibv_recv_wr){.sg_list = &s, .num_sge = 1};
    assert_int_equal(t_post_recv(x, &s, 1, 0), EINVAL); /* receives go to the SRQ */
    for (i = 0; i < 6; i++)
        assert_int_equal(ibv_post_srq_recv(e.srq, &rw, &bad), 0);
    pfd = (struct pollfd){.fd = e.ctx->async_fd, .events = POLLIN};
    for (i = 0; i < 2; i++)
        assert_int_equal(t_post_send(b, IBV_WR_SEND, &s, 1, 0, 0, 0, 1), 0);
    assert_int_equal(poll(&pfd, 1, 50), 0); /* 4 left: not below the limit */
    assert_int_equal(t_post_send(b, IBV_WR_SEND, &s, 1, 0, 0, 0, 1), 0);
    assert_int_equal(poll(&pfd, 1, 2000), 1);
    assert_int_equal(ibv_get_async_event(e.ctx, &ev), 0);
    assert_int_equal(ev.event_type, IBV_EVENT_SRQ_LIMIT_REACHED);
    assert_ptr_equal(ev.element.srq, e.srq);
    ibv_ack_async_event(&ev);
    assert_int_equal(ibv_query_srq(e.srq, &q), 0);
    assert_int_equal(q.srq_limit, 0); /* disarmed until set again */
    assert_int_equal(t_poll(e.cq, wc, 3, 1000), 3);
    assert_int_equal(ibv_destroy_srq(e.srq), EBUSY);
    assert_int_equal(ibv_destroy_qp(x), 0);
    assert_int_equal(ibv_destroy_qp(y), 0);
    e.qp = b;
    t_ep_close(&e);
}

/* Initiator peer: n fetch-and-adds on the target, reports the values fetched. */
static int faa_peer(int rfd, int wfd, void *arg)
{
    struct t_info me, tgt;
    struct ibv_sge s;
    struct ibv_wc wc;
    struct t_ep e;
    int i, n = (int)(uintptr_t)arg;

    t_ep_open(&e, 4096, ALL_ACCESS, false);
    t_qp_create(&e, 16, true);
    t_xread(rfd, &tgt, sizeof(tgt));
    me = t_ep_info(&e);
    t_xwrite(wfd, &me, sizeof(me));
    t_qp_connect(e.qp, tgt.lid, tgt.qpn, NULL);
    t_xread(rfd, &tgt, sizeof(tgt)); /* target is RTR */
    s = t_sge(&e, 0, 8);
    for (i = 0; i < n; i++) {
        T_ASSERT(t_post_send(e.qp, IBV_WR_ATOMIC_FETCH_AND_ADD, &s, 1, tgt.addr, tgt.rkey, 0,
                             (uint64_t)i) == 0);
        T_ASSERT(t_poll(e.cq, &wc, 1, 5000) == 1 && wc.status == IBV_WC_SUCCESS);
        t_xwrite(wfd, e.buf, 8);
    }
    t_ep_close(&e);
    return 0;
}

static void test_atomics_concurrent(void **state)
{
    enum { N = 300 };
    static uint8_t seen[2 * N];
    struct ibv_qp *qp[2];
    struct t_peer p[2];
    struct t_info pi;
    struct t_ep e;
    uint64_t v;
    int i, k;

    (void)state;
    memset(seen, 0, sizeof(seen));
    t_ep_open(&e, 4096, ALL_ACCESS, false);
    for (k = 0; k < 2; k++) {
        /* One target context, one QP per initiator process, one shared counter. */
        qp[k] = t_qp_create(&e, 8, false);
        p[k] = t_fork(faa_peer, (void *)(uintptr_t)N);
        pi = t_ep_info(&e);
        pi.qpn = qp[k]->qp_num;
        t_xwrite(p[k].wfd, &pi, sizeof(pi));
        t_xread(p[k].rfd, &pi, sizeof(pi));
        t_qp_connect(qp[k], pi.lid, pi.qpn, NULL);
    }
    for (k = 0; k < 2; k++) {
        pi = t_ep_info(&e);
        t_xwrite(p[k].wfd, &pi, sizeof(pi));
    }
    for (i = 0; i < 2 * N; i++) {
        t_xread(p[i % 2].rfd, &v, 8);
        assert_true(v < 2 * N);
        seen[v]++;
    }
    for (k = 0; k < 2; k++)
        assert_int_equal(t_wait(&p[k]), 0);
    assert_int_equal(*(uint64_t *)e.buf, 2 * N);
    for (i = 0; i < 2 * N; i++)
        assert_int_equal(seen[i], 1); /* every value fetched exactly once: atomic */
    assert_int_equal(ibv_destroy_qp(qp[1]), 0);
    t_ep_close(&e);
}

/* Peer in its own network namespace: another host, with its own LID. */
static int netns_peer(int rfd, int wfd, void *arg)
{
    uint32_t skip = 0;

    (void)arg;
    if (unshare(CLONE_NEWNET) != 0) {
        skip = 1; /* not root: nothing to test */
        t_xwrite(wfd, &skip, sizeof(skip));
        return 0;
    }
    t_xwrite(wfd, &skip, sizeof(skip));
    return echo_peer(rfd, wfd, (void *)(uintptr_t)64);
}

static void test_two_hosts_netns(void **state)
{
    struct t_peer p = t_fork(netns_peer, NULL);
    struct t_info me, peer;
    struct ibv_sge z;
    struct t_ep e;
    uint32_t skip;

    (void)state;
    t_xread(p.rfd, &skip, sizeof(skip));
    if (skip) {
        t_wait(&p);
        skip();
    }
    t_ep_open(&e, 2 << 20, ALL_ACCESS, false);
    t_qp_create(&e, 16, false);
    t_xread(p.rfd, &peer, sizeof(peer));
    assert_int_not_equal(peer.lid, e.lid); /* a namespace is a host */
    me = t_ep_info(&e);
    t_xwrite(p.wfd, &me, sizeof(me));
    t_qp_connect(e.qp, peer.lid, peer.qpn, NULL);
    t_xread(p.rfd, &peer, sizeof(peer));
    echo_round(&e, 64, 3);
    z = t_sge(&e, 0, 0);
    assert_int_equal(t_post_send(e.qp, IBV_WR_SEND, &z, 1, 0, 0, 0, 0), 0);
    t_xwrite(p.wfd, &me, sizeof(me));
    assert_int_equal(t_wait(&p), 0);
    t_ep_close(&e);
}

static void test_rereg_and_resize(void **state)
{
    struct ibv_wc wc[2];
    struct ibv_sge s;
    struct ibv_qp *b;
    struct t_ep e;

    (void)state;
    loop_pair(&e, &b);
    /* rereg_mr changes access in place: a WRITE works, then fails once it is taken away. */
    assert_int_equal(ibv_rereg_mr(e.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
                                  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE),
                     0);
    assert_int_equal(ibv_resize_cq(e.cq, 1024), 0);
    assert_int_equal(e.cq->cqe, 1024);
    s = t_sge(&e, 0, 8);
    assert_int_equal(t_post_send(e.qp, IBV_WR_RDMA_WRITE, &s, 1, (uintptr_t)e.buf + 64, e.mr->rkey,
                                 IBV_SEND_SIGNALED, 1),
                     0);
    assert_int_equal(t_poll(e.cq, wc, 1, 1000), 1);
    assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
    assert_int_equal(
        ibv_rereg_mr(e.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, IBV_ACCESS_LOCAL_WRITE), 0);
    assert_int_equal(t_post_send(e.qp, IBV_WR_RDMA_WRITE, &s, 1, (uintptr_t)e.buf + 64, e.mr->rkey,
                                 IBV_SEND_SIGNALED, 2),
                     0);
    assert_int_equal(t_poll(e.cq, wc, 1, 1000), 1);
    assert_int_equal(wc[0].status, IBV_WC_REM_ACCESS_ERR);
    assert_int_equal(ibv_destroy_qp(b), 0);
    t_ep_close(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_device_queries, t_setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_qp_state_machine, t_setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_two_sided_opcodes, t_setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_one_sided_opcodes, t_setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_atomic_cas_and_unsignaled, t_setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_post_threads, t_setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_counters, t_setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_queue_depth, t_setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_cross_process_sizes, t_setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_cq_events, t_setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_srq_limit, t_setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_atomics_concurrent, t_setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_two_hosts_netns, t_setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_rereg_and_resize, t_setup, t_teardown),
    };

    /* e.g. SOFTIB_TEST_FILTER='test_rnr' to run one test (under valgrind, gdb) */
    if (getenv("SOFTIB_TEST_FILTER"))
        cmocka_set_test_filter(getenv("SOFTIB_TEST_FILTER"));
    return cmocka_run_group_tests_name("softib_verbs", tests, NULL, NULL);
}
