/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib conformance for unreliable datagrams: the UD state machine and its
 * masks, address handles, SEND / SEND_WITH_IMM between processes with every
 * completion field, the 40-byte GRH area (IB, RoCE v1, RoCE v2), silent drops
 * (Q_Key, no receive, unknown or unready destination, dead peer, injected
 * loss), the MTU limit and the SQE state, receive buffers too small.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "test_softib_util.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define QKEY    0x11111111u
#define GRH     40
#define MTU     4096
#define BUF     (1 << 16)
#define RX_OFF  (BUF / 2)    /* receive buffers live in the upper half */
#define UD_HDRS (12 + 8 + 4) /* BTH, DETH, ICRC: what a GRH's PayLen counts */

static int setup(void **state)
{
    static const char *const vars[] = {"SOFTIB_ROCE",     "SOFTIB_DROP_RATE",
                                       "SOFTIB_SEED",     "SOFTIB_FAIL_AFTER",
                                       "SOFTIB_DELAY_US", "SOFTIB_STALE_CHECK"};
    size_t i;

    for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        unsetenv(vars[i]);
    return t_setup(state);
}

static struct ibv_qp *ud_create(struct t_ep *e, uint32_t depth)
{
    struct ibv_qp_init_attr a = {.send_cq = e->cq,
                                 .recv_cq = e->cq,
                                 .srq = e->srq,
                                 .qp_type = IBV_QPT_UD,
                                 .cap = {.max_send_wr = depth,
                                         .max_recv_wr = depth,
                                         .max_send_sge = 2,
                                         .max_recv_sge = 2,
                                         .max_inline_data = 64}};
    struct ibv_qp *qp = ibv_create_qp(e->pd, &a);

    T_ASSERT(NULL != qp);
    T_ASSERT(qp->qp_type == IBV_QPT_UD);
    return qp;
}

static void ud_init(struct ibv_qp *qp, uint32_t qkey)
{
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = qkey};

    T_ASSERT(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) ==
             0);
}

/* RESET -> INIT -> RTR -> RTS with the minimal masks of the UD table. */
static void ud_up(struct ibv_qp *qp, uint32_t qkey)
{
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR};

    ud_init(qp, qkey);
    T_ASSERT(ibv_modify_qp(qp, &a, IBV_QP_STATE) == 0);
    a.qp_state = IBV_QPS_RTS;
    T_ASSERT(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) == 0);
}

static struct ibv_qp *ud_qp(struct t_ep *e, uint32_t depth, uint32_t qkey)
{
    struct ibv_qp *qp = ud_create(e, depth);

    ud_up(qp, qkey);
    return qp;
}

static struct ibv_ah *ah_lid(struct t_ep *e, uint16_t lid, uint8_t sl)
{
    struct ibv_ah_attr a = {.dlid = lid, .sl = sl, .port_num = 1};

    return ibv_create_ah(e->pd, &a);
}

static struct ibv_ah *ah_gid(struct t_ep *e, int dst_index, uint8_t sgid_index)
{
    struct ibv_ah_attr a = {.dlid = e->lid, .is_global = 1, .port_num = 1};

    T_ASSERT(ibv_query_gid(e->ctx, 1, dst_index, &a.grh.dgid) == 0);
    a.grh.sgid_index = sgid_index;
    a.grh.hop_limit = 7;
    a.grh.traffic_class = 0x20;
    a.grh.flow_label = 0x12345;
    return ibv_create_ah(e->pd, &a);
}

static int ud_send(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey,
                   struct ibv_sge *s, enum ibv_wr_opcode op, unsigned int flags, uint64_t wr_id)
{
    struct ibv_send_wr wr = {.wr_id = wr_id,
                             .sg_list = s,
                             .num_sge = s ? 1 : 0,
                             .opcode = op,
                             .send_flags = IBV_SEND_SIGNALED | flags,
                             .imm_data = htonl(0xdeadbeef)},
                       *bad = NULL;
    int rc;

    wr.wr.ud.ah = ah;
    wr.wr.ud.remote_qpn = qpn;
    wr.wr.ud.remote_qkey = qkey;
    rc = ibv_post_send(qp, &wr, &bad);
    if (rc)
        T_ASSERT(bad == &wr);
    return rc;
}

static int ud_post_recv(struct t_ep *e, struct ibv_qp *qp, size_t off, uint32_t len, uint64_t id)
{
    struct ibv_sge s = t_sge(e, off, len);
    struct ibv_recv_wr wr = {.wr_id = id, .sg_list = &s, .num_sge = 1}, *bad;

    if (!qp)
        return ibv_post_srq_recv(e->srq, &wr, &bad);
    return t_post_recv(qp, &s, 1, id);
}

/* One successful send completion of wr_id, and nothing else within 30 ms. */
static void expect_send_ok(struct t_ep *e, uint64_t wr_id)
{
    struct ibv_wc wc[2];

    T_ASSERT(t_poll(e->cq, wc, 2, 30) == 1);
    T_ASSERT(wc[0].status == IBV_WC_SUCCESS);
    T_ASSERT(wc[0].opcode == IBV_WC_SEND);
    T_ASSERT(wc[0].wr_id == wr_id);
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
    size_t i;

    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(seed + i * 13);
}

static void test_ud_state_machine(void **state)
{
    int init = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY};
    struct ibv_qp_init_attr ia;
    struct ibv_sge s;
    struct ibv_ah *ah;
    struct ibv_qp *rc;
    struct t_ep e;

    (void)state;
    t_ep_open(&e, BUF, IBV_ACCESS_LOCAL_WRITE, false);
    e.qp = ud_create(&e, 8);
    ah = ah_lid(&e, e.lid, 0);
    assert_non_null(ah);
    s = t_sge(&e, 0, 8);
    assert_int_equal(t_qp_state(e.qp), IBV_QPS_RESET);
    assert_int_equal(t_post_recv(e.qp, &s, 1, 1), EINVAL); /* not in RESET */
    assert_int_equal(ibv_modify_qp(e.qp, &a, init & ~IBV_QP_QKEY), EINVAL);
    assert_int_equal(ibv_modify_qp(e.qp, &a, init & ~IBV_QP_PKEY_INDEX), EINVAL);
    assert_int_equal(ibv_modify_qp(e.qp, &a, init | IBV_QP_ACCESS_FLAGS), EINVAL); /* RC's bit */
    a.qkey = 0x80000001u;
    assert_int_equal(ibv_modify_qp(e.qp, &a, init), EPERM); /* controlled Q_Key */
    a.qkey = 0x2222;
    assert_int_equal(ibv_modify_qp(e.qp, &a, init), 0);
    a.qkey = QKEY;
    assert_int_equal(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_QKEY), 0); /* INIT -> INIT */
    assert_int_equal(ud_send(e.qp, ah, e.qp->qp_num, QKEY, &s, IBV_WR_SEND, 0, 1), EINVAL);
    a.qp_state = IBV_QPS_RTR;
    assert_int_equal(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN), EINVAL);
    assert_int_equal(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_DEST_QPN), EINVAL);
    assert_int_equal(ibv_modify_qp(e.qp, &a, IBV_QP_STATE), 0);
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = 0x123;
    assert_int_equal(ibv_modify_qp(e.qp, &a, IBV_QP_STATE), EINVAL); /* SQ_PSN required */
    assert_int_equal(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT),
                     EINVAL);
    assert_int_equal(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_QKEY), 0);
    a.cur_qp_state = IBV_QPS_RTR;
    assert_int_equal(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE), EINVAL);
    a.cur_qp_state = IBV_QPS_RTS;
    assert_int_equal(ibv_modify_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_QKEY), 0);
    a.qp_state = IBV_QPS_SQE; /* only the HCA enters SQE, and SQD is not emulated */
    assert_int_equal(ibv_modify_qp(e.qp, &a, IBV_QP_STATE), EINVAL);
    a.qp_state = IBV_QPS_SQD;
    assert_int_equal(ibv_modify_qp(e.qp, &a, IBV_QP_STATE), EINVAL);
    memset(&a, 0, sizeof(a));
    assert_int_equal(ibv_query_qp(e.qp, &a, IBV_QP_STATE | IBV_QP_QKEY | IBV_QP_SQ_PSN, &ia), 0);
    assert_int_equal(a.qp_state, IBV_QPS_RTS);
    assert_int_equal(a.qkey, QKEY);
    assert_int_equal(a.sq_psn, 0x123);
    assert_int_equal(a.port_num, 1);
    assert_int_equal(a.pkey_index, 0);
    assert_int_equal(ia.qp_type, IBV_QPT_UD);
    assert_int_equal(ia.cap.max_inline_data, 64);
    a.qp_state = IBV_QPS_ERR;
    assert_int_equal(ibv_modify_qp(e.qp, &a, IBV_QP_STATE), 0);
    a.qp_state = IBV_QPS_RESET;
    assert_int_equal(ibv_modify_qp(e.qp, &a, IBV_QP_STATE), 0);
    ud_init(e.qp, QKEY);
    /* The RC table stays RC: a Q_Key is no RC attribute. */
    rc = t_qp_create(&e, 4, false);
    a = (struct ibv_qp_attr){.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY};
    assert_int_equal(ibv_modify_qp(rc, &a, init), EINVAL);
    assert_int_equal(ibv_destroy_qp(rc), 0);
    assert_int_equal(ibv_destroy_ah(ah), 0);
    t_ep_close(&e);
}

static void test_ah_create_destroy(void **state)
{
    struct ibv_ah_attr a = {.dlid = 0, .port_num = 1};
    struct ibv_qp_init_attr qa = {.qp_type = IBV_QPT_UC};
    struct ibv_ah *ah, *g;
    struct ibv_pd *pd;
    struct t_ep e;

    (void)state;
    t_ep_open(&e, BUF, IBV_ACCESS_LOCAL_WRITE, false);
    qa.send_cq = qa.recv_cq = e.cq;
    errno = 0;
    assert_null(ibv_create_qp(e.pd, &qa));
    assert_int_equal(errno, EOPNOTSUPP); /* UC is not emulated */
    errno = 0;
    assert_null(ibv_create_ah(e.pd, &a)); /* LID 0 without a GRH */
    assert_int_equal(errno, EINVAL);
    a.dlid = e.lid;
    a.port_num = 2;
    errno = 0;
    assert_null(ibv_create_ah(e.pd, &a));
    assert_int_equal(errno, EINVAL);
    a.port_num = 1;
    a.is_global = 1;
    a.grh.sgid_index = 1; /* InfiniBand: one GID */
    errno = 0;
    assert_null(ibv_create_ah(e.pd, &a));
    assert_int_equal(errno, EINVAL);
    ah = ah_lid(&e, e.lid, 3);
    assert_non_null(ah);
    assert_ptr_equal(ah->pd, e.pd);
    assert_ptr_equal(ah->context, e.ctx);
    g = ah_gid(&e, 0, 0);
    assert_non_null(g);
    assert_int_equal(ibv_destroy_ah(ah), 0);
    assert_int_equal(ibv_destroy_ah(g), 0);
    /* A PD that holds an address handle is busy. */
    pd = ibv_alloc_pd(e.ctx);
    assert_non_null(pd);
    a = (struct ibv_ah_attr){.dlid = e.lid, .port_num = 1};
    ah = ibv_create_ah(pd, &a);
    assert_non_null(ah);
    assert_int_equal(ibv_dealloc_pd(pd), EBUSY);
    assert_int_equal(ibv_destroy_ah(ah), 0);
    assert_int_equal(ibv_dealloc_pd(pd), 0);
    t_ep_close(&e);
}

struct peer_arg {
    bool srq;
};

struct ud_info {
    uint32_t lid, qpn;
};

static void check_recv(const struct ibv_wc *wc, uint64_t id, uint32_t len,
                       const struct ud_info *src, uint32_t my_qpn)
{
    T_ASSERT(wc->status == IBV_WC_SUCCESS);
    T_ASSERT(wc->opcode == IBV_WC_RECV);
    T_ASSERT(wc->wr_id == id);
    T_ASSERT(wc->byte_len == GRH + len);
    T_ASSERT(wc->qp_num == my_qpn);
    T_ASSERT(wc->src_qp == src->qpn);
    T_ASSERT(wc->slid == src->lid);
    T_ASSERT(wc->sl == 5);
    T_ASSERT(wc->pkey_index == 0);
    T_ASSERT(wc->dlid_path_bits == 0);
    T_ASSERT(!(wc->wc_flags & IBV_WC_GRH));
}

/* Receiver: three datagrams from the test, each checked; answers through an AH from the wc. */
static int ud_peer(int rfd, int wfd, void *arg)
{
    static const uint32_t len[3] = {100, 8, MTU};
    struct peer_arg *pa = arg;
    struct ibv_srq_init_attr sa = {.attr = {.max_wr = 8, .max_sge = 1}};
    struct ud_info me, src;
    struct ibv_wc wc[3];
    struct ibv_sge s;
    struct ibv_ah *ah;
    struct t_ep e;
    uint8_t want[MTU];
    int i;

    t_ep_open(&e, BUF, IBV_ACCESS_LOCAL_WRITE, false);
    e.srq = pa->srq ? ibv_create_srq(e.pd, &sa) : NULL;
    T_ASSERT(!pa->srq || e.srq);
    e.qp = ud_qp(&e, 8, QKEY);
    memset(e.buf + RX_OFF, 0xaa, BUF - RX_OFF);
    for (i = 0; i < 3; i++)
        T_ASSERT(ud_post_recv(&e, e.srq ? NULL : e.qp, RX_OFF + (size_t)i * 8192, GRH + MTU,
                              10 + (uint64_t)i) == 0);
    me = (struct ud_info){e.lid, e.qp->qp_num};
    t_xwrite(wfd, &me, sizeof(me));
    t_xread(rfd, &src, sizeof(src));
    T_ASSERT(t_poll(e.cq, wc, 3, 5000) == 3);
    for (i = 0; i < 3; i++) {
        uint8_t *b = e.buf + RX_OFF + (size_t)i * 8192;

        check_recv(&wc[i], 10 + (uint64_t)i, len[i], &src, e.qp->qp_num);
        T_ASSERT(!!(wc[i].wc_flags & IBV_WC_WITH_IMM) == (i == 1));
        T_ASSERT(i != 1 || ntohl(wc[i].imm_data) == 0xdeadbeef);
        fill(want, len[i], (uint8_t)i);
        T_ASSERT(memcmp(b + GRH, want, len[i]) == 0);
        memset(want, 0xaa, GRH);
        T_ASSERT(memcmp(b, want, GRH) == 0); /* no GRH: the 40 bytes are left alone */
    }
    /* Answer the first sender as ibv_ud_pingpong's peers would, from the completion. */
    t_xread(rfd, &src, sizeof(src)); /* the test has seen its send completions */
    ah = ibv_create_ah_from_wc(e.pd, &wc[0], (struct ibv_grh *)(e.buf + RX_OFF), 1);
    T_ASSERT(ah != NULL);
    memcpy(e.buf, "pong", 4);
    s = t_sge(&e, 0, 4);
    T_ASSERT(ud_send(e.qp, ah, wc[0].src_qp, QKEY, &s, IBV_WR_SEND, 0, 99) == 0);
    T_ASSERT(t_poll(e.cq, wc, 1, 2000) == 1 && wc[0].status == IBV_WC_SUCCESS);
    t_xread(rfd, &src, sizeof(src)); /* the test got the answer */
    T_ASSERT(ibv_destroy_ah(ah) == 0);
    t_ep_close(&e);
    return 0;
}

static void send_recv_between(bool srq)
{
    struct peer_arg pa = {srq};
    struct t_peer p = t_fork(ud_peer, &pa);
    struct ud_info me, peer;
    struct ibv_wc wc;
    struct ibv_sge s;
    struct ibv_ah *ah;
    struct t_ep e;

    t_ep_open(&e, BUF, IBV_ACCESS_LOCAL_WRITE, false);
    e.qp = ud_qp(&e, 8, QKEY);
    t_xread(p.rfd, &peer, sizeof(peer));
    me = (struct ud_info){e.lid, e.qp->qp_num};
    t_xwrite(p.wfd, &me, sizeof(me));
    assert_int_equal(ud_post_recv(&e, e.qp, RX_OFF, GRH + 64, 7), 0);
    ah = ah_lid(&e, (uint16_t)peer.lid, 5);
    assert_non_null(ah);
    fill(e.buf, 100, 0);
    s = t_sge(&e, 0, 100);
    assert_int_equal(ud_send(e.qp, ah, peer.qpn, QKEY, &s, IBV_WR_SEND, 0, 1), 0);
    expect_send_ok(&e, 1);
    fill(e.buf, 8, 1);
    s = t_sge(&e, 0, 8);
    assert_int_equal(
        ud_send(e.qp, ah, peer.qpn, QKEY, &s, IBV_WR_SEND_WITH_IMM, IBV_SEND_INLINE, 2), 0);
    memset(e.buf, 0, 8); /* inline: copied at post time */
    expect_send_ok(&e, 2);
    fill(e.buf, MTU, 2);
    s = t_sge(&e, 0, MTU);
    assert_int_equal(ud_send(e.qp, ah, peer.qpn, QKEY, &s, IBV_WR_SEND, 0, 3), 0);
    expect_send_ok(&e, 3);
    t_xwrite(p.wfd, &me, sizeof(me));
    /* The peer's answer, addressed from its receive completion. */
    assert_int_equal(t_poll(e.cq, &wc, 1, 5000), 1);
    assert_int_equal(wc.status, IBV_WC_SUCCESS);
    assert_int_equal(wc.wr_id, 7);
    assert_int_equal(wc.byte_len, GRH + 4);
    assert_int_equal(wc.src_qp, peer.qpn);
    assert_int_equal(wc.slid, peer.lid);
    assert_memory_equal(e.buf + RX_OFF + GRH, "pong", 4);
    t_xwrite(p.wfd, &me, sizeof(me));
    assert_int_equal(t_wait(&p), 0);
    assert_int_equal(ibv_destroy_ah(ah), 0);
    t_ep_close(&e);
}

static void test_ud_send_recv(void **state)
{
    (void)state;
    send_recv_between(false);
}

static void test_ud_send_recv_srq(void **state)
{
    (void)state;
    send_recv_between(true);
}

/* The GRH of a received datagram, checked field by field. */
static void check_grh(const uint8_t *b, const union ibv_gid *sgid, const union ibv_gid *dgid,
                      uint32_t len)
{
    struct ibv_grh g;

    memcpy(&g, b, sizeof(g));
    assert_int_equal(be32toh(g.version_tclass_flow) >> 28, 6);
    assert_int_equal((be32toh(g.version_tclass_flow) >> 20) & 0xff, 0x20);
    assert_int_equal(be32toh(g.version_tclass_flow) & 0xfffff, 0x12345);
    assert_int_equal(be16toh(g.paylen), UD_HDRS + ((len + 3) & ~3u));
    assert_int_equal(g.next_hdr, 0x1b);
    assert_int_equal(g.hop_limit, 7);
    assert_memory_equal(&g.sgid, sgid, 16);
    assert_memory_equal(&g.dgid, dgid, 16);
}

/* Answers wc through ibv_init_ah_from_wc: the sender's GID, our GID index. */
static void check_reply_ah(struct t_ep *e, struct ibv_wc *wc, const uint8_t *grh,
                           const union ibv_gid *peer, int index)
{
    struct ibv_ah_attr r;

    assert_int_equal(ibv_init_ah_from_wc(e->ctx, 1, wc, (struct ibv_grh *)grh, &r), 0);
    assert_int_equal(r.is_global, 1);
    assert_memory_equal(&r.grh.dgid, peer, 16);
    assert_int_equal(r.grh.sgid_index, index);
    assert_int_equal(r.grh.hop_limit, 7);
    assert_int_equal(r.grh.traffic_class, 0x20);
    assert_int_equal(r.dlid, wc->slid);
    assert_int_equal(r.port_num, 1);
}

/* Sends len bytes from a to b through ah; returns b's completion. */
static struct ibv_wc one_datagram(struct t_ep *e, struct ibv_qp *a, struct ibv_qp *b,
                                  struct ibv_ah *ah, uint32_t len)
{
    struct ibv_wc wc[2];
    struct ibv_sge s = t_sge(e, 0, len);

    memset(e->buf + RX_OFF, 0x55, GRH + len);
    fill(e->buf, len, 9);
    assert_int_equal(ud_post_recv(e, b, RX_OFF, GRH + MTU, 5), 0);
    assert_int_equal(ud_send(a, ah, b->qp_num, QKEY, &s, IBV_WR_SEND, 0, 6), 0);
    assert_int_equal(t_poll(e->cq, wc, 2, 2000), 2);
    if (wc[0].wr_id == 6)
        wc[0] = wc[1];
    assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
    assert_int_equal(wc[0].wr_id, 5);
    assert_int_equal(wc[0].byte_len, GRH + len);
    assert_memory_equal(e->buf + RX_OFF + GRH, e->buf, len);
    return wc[0];
}

static void test_ud_grh_ib(void **state)
{
    union ibv_gid gid, other;
    struct ibv_qp *b;
    struct ibv_ah *ah;
    struct ibv_wc wc;
    struct t_ep e;

    (void)state;
    t_ep_open(&e, BUF, IBV_ACCESS_LOCAL_WRITE, false);
    e.qp = ud_qp(&e, 8, QKEY);
    b = ud_qp(&e, 8, QKEY);
    assert_int_equal(ibv_query_gid(e.ctx, 1, 0, &gid), 0);
    ah = ah_gid(&e, 0, 0);
    assert_non_null(ah);
    wc = one_datagram(&e, e.qp, b, ah, 21);
    assert_true(wc.wc_flags & IBV_WC_GRH);
    assert_int_equal(wc.slid, e.lid);
    check_grh(e.buf + RX_OFF, &gid, &gid, 21);
    check_reply_ah(&e, &wc, e.buf + RX_OFF, &gid, 0);
    assert_int_equal(ibv_destroy_ah(ah), 0);
    /* A DGID that is not the destination's: the receiving HCA drops the packet. */
    other = gid;
    other.raw[9] ^= 1;
    ah = ibv_create_ah(e.pd, &(struct ibv_ah_attr){.dlid = e.lid,
                                                   .is_global = 1,
                                                   .grh = {.dgid = other, .hop_limit = 1},
                                                   .port_num = 1});
    assert_non_null(ah);
    assert_int_equal(ud_post_recv(&e, b, RX_OFF, GRH + 8, 1), 0);
    assert_int_equal(ud_send(e.qp, ah, b->qp_num, QKEY, NULL, IBV_WR_SEND, 0, 2), 0);
    expect_send_ok(&e, 2);
    assert_int_equal(ibv_destroy_ah(ah), 0);
    assert_int_equal(ibv_destroy_qp(b), 0);
    t_ep_close(&e);
}

static uint16_t ip_csum(const uint8_t *h)
{
    uint32_t sum = 0;
    int i;

    for (i = 0; i < 20; i += 2)
        sum += (uint32_t)h[i] << 8 | h[i + 1];
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)sum;
}

static void check_ipv4(const uint8_t *b, const union ibv_gid *gid, uint32_t len)
{
    static const uint8_t zero[20];
    const uint8_t *ip = b + 20;

    assert_memory_equal(b, zero, 20);
    assert_int_equal(ip[0], 0x45);
    assert_int_equal(ip[1], 0x20); /* traffic class as TOS */
    assert_int_equal(ip[2] << 8 | ip[3], 20 + 8 + UD_HDRS + ((len + 3) & ~3u));
    assert_int_equal(ip[6] << 8 | ip[7], 0x4000); /* don't fragment, offset 0 */
    assert_int_equal(ip[8], 7);                   /* hop limit as TTL */
    assert_int_equal(ip[9], 17);                  /* UDP */
    assert_int_equal(ip_csum(ip), 0xffff);
    assert_memory_equal(ip + 12, gid->raw + 12, 4);
    assert_memory_equal(ip + 16, gid->raw + 12, 4);
}

static void test_ud_roce(void **state)
{
    struct ibv_ah_attr a = {.port_num = 1};
    union ibv_gid gid[2];
    struct ibv_qp *b;
    struct ibv_ah *ah;
    struct ibv_wc wc;
    struct t_ep e;

    (void)state;
    setenv("SOFTIB_ROCE", "1", 1);
    t_ep_open(&e, BUF, IBV_ACCESS_LOCAL_WRITE, false);
    assert_int_equal(e.lid, 0);
    e.qp = ud_qp(&e, 8, QKEY);
    b = ud_qp(&e, 8, QKEY);
    assert_int_equal(ibv_query_gid(e.ctx, 1, 0, &gid[0]), 0);
    assert_int_equal(ibv_query_gid(e.ctx, 1, 1, &gid[1]), 0);
    a.dlid = 1;
    errno = 0;
    assert_null(ibv_create_ah(e.pd, &a)); /* Ethernet needs a GRH */
    assert_int_equal(errno, EINVAL);
    a.is_global = 1;
    errno = 0;
    assert_null(ibv_create_ah(e.pd, &a)); /* :: resolves to no neighbour */
    assert_int_equal(errno, EINVAL);
    /* RoCE v1: a GRH. */
    ah = ah_gid(&e, 0, 0);
    assert_non_null(ah);
    wc = one_datagram(&e, e.qp, b, ah, 33);
    assert_true(wc.wc_flags & IBV_WC_GRH);
    assert_int_equal(wc.slid, 0);
    check_grh(e.buf + RX_OFF, &gid[0], &gid[0], 33);
    check_reply_ah(&e, &wc, e.buf + RX_OFF, &gid[0], 0);
    assert_int_equal(ibv_destroy_ah(ah), 0);
    /* RoCE v2 over IPv4: the IPv4 header fills the last 20 bytes. */
    ah = ah_gid(&e, 1, 1);
    assert_non_null(ah);
    wc = one_datagram(&e, e.qp, b, ah, 50);
    assert_true(wc.wc_flags & IBV_WC_GRH);
    check_ipv4(e.buf + RX_OFF, &gid[1], 50);
    check_reply_ah(&e, &wc, e.buf + RX_OFF, &gid[1], 1);
    assert_int_equal(ibv_destroy_ah(ah), 0);
    assert_int_equal(ibv_destroy_qp(b), 0);
    t_ep_close(&e);
}

/* A datagram from a to b with qkey: the send completes; returns whether b received it. */
static bool reaches(struct t_ep *e, struct ibv_qp *a, struct ibv_ah *ah, uint32_t qpn,
                    uint32_t qkey, uint64_t id)
{
    struct ibv_sge s = t_sge(e, 0, 16);
    struct ibv_wc wc[3];
    int n, i, sends = 0, recvs = 0;

    assert_int_equal(ud_send(a, ah, qpn, qkey, &s, IBV_WR_SEND, 0, id), 0);
    n = t_poll(e->cq, wc, 3, 50);
    for (i = 0; i < n; i++) {
        assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
        sends += wc[i].opcode == IBV_WC_SEND && wc[i].wr_id == id;
        recvs += wc[i].opcode == IBV_WC_RECV;
    }
    assert_int_equal(sends, 1); /* unreliable: the sender always succeeds */
    assert_int_equal(n, sends + recvs);
    return recvs == 1;
}

static void test_ud_silent_drops(void **state)
{
    struct ibv_qp *b, *c, *d, *rc;
    struct ibv_ah *ah, *nowhere;
    struct ibv_qp_attr rtr = {.qp_state = IBV_QPS_RTR};
    struct t_ep e;

    (void)state;
    t_ep_open(&e, BUF, IBV_ACCESS_LOCAL_WRITE, false);
    e.qp = ud_qp(&e, 16, QKEY);
    b = ud_qp(&e, 16, QKEY);
    c = ud_qp(&e, 16, QKEY);
    ah = ah_lid(&e, e.lid, 0);
    nowhere = ah_lid(&e, 0x7777, 0);
    assert_non_null(ah);
    assert_non_null(nowhere);
    assert_int_equal(ud_post_recv(&e, b, RX_OFF, GRH + 64, 1), 0);
    assert_false(reaches(&e, e.qp, ah, b->qp_num, QKEY + 1, 10));  /* wrong Q_Key */
    assert_false(reaches(&e, e.qp, ah, 0xabcde, QKEY, 11));        /* unknown QPN */
    assert_false(reaches(&e, e.qp, nowhere, b->qp_num, QKEY, 12)); /* unknown LID */
    assert_true(reaches(&e, e.qp, ah, b->qp_num, QKEY, 13));       /* the receive was kept */
    /* Bit 31 of remote_qkey: the sending QP's own Q_Key goes out. */
    assert_int_equal(ud_post_recv(&e, b, RX_OFF, GRH + 64, 2), 0);
    assert_true(reaches(&e, e.qp, ah, b->qp_num, 0x80000000u, 14));
    /* No receive posted: dropped, not retried when one is posted later. */
    assert_false(reaches(&e, e.qp, ah, c->qp_num, QKEY, 15));
    assert_int_equal(ud_post_recv(&e, c, RX_OFF, GRH + 64, 3), 0);
    assert_int_equal(t_poll(e.cq, (struct ibv_wc[1]){0}, 1, 30), 0);
    /* A QP in INIT does not receive; in RTR it does. */
    d = ud_create(&e, 4);
    ud_init(d, QKEY);
    assert_int_equal(ud_post_recv(&e, d, RX_OFF, GRH + 64, 4), 0);
    assert_false(reaches(&e, e.qp, ah, d->qp_num, QKEY, 16));
    assert_int_equal(ibv_modify_qp(d, &rtr, IBV_QP_STATE), 0);
    assert_true(reaches(&e, e.qp, ah, d->qp_num, QKEY, 17));
    /* An RC QP ready to receive takes no datagram. */
    rc = t_qp_create(&e, 4, false);
    t_qp_connect(rc, e.lid, b->qp_num, NULL);
    assert_int_equal(ud_post_recv(&e, rc, RX_OFF, GRH + 64, 5), 0);
    assert_false(reaches(&e, e.qp, ah, rc->qp_num, QKEY, 18));
    assert_int_equal(t_qp_state(e.qp), IBV_QPS_RTS);
    assert_int_equal(ibv_destroy_qp(rc), 0);
    assert_int_equal(t_poll(e.cq, (struct ibv_wc[2]){0}, 2, 30), 0); /* nothing was delivered */
    assert_int_equal(ibv_destroy_ah(ah), 0);
    assert_int_equal(ibv_destroy_ah(nowhere), 0);
    assert_int_equal(ibv_destroy_qp(b), 0);
    assert_int_equal(ibv_destroy_qp(c), 0);
    assert_int_equal(ibv_destroy_qp(d), 0);
    t_ep_close(&e);
}

/* Peer that brings up a UD QP with a receive posted, then only sleeps. */
static int sleeping_ud_peer(int rfd, int wfd, void *arg)
{
    struct ud_info me;
    struct t_ep e;

    (void)rfd;
    (void)arg;
    t_ep_open(&e, BUF, IBV_ACCESS_LOCAL_WRITE, false);
    e.qp = ud_qp(&e, 8, QKEY);
    T_ASSERT(ud_post_recv(&e, e.qp, RX_OFF, GRH + 4096, 1) == 0);
    T_ASSERT(ud_post_recv(&e, e.qp, RX_OFF, GRH + 4096, 2) == 0);
    me = (struct ud_info){e.lid, e.qp->qp_num};
    t_xwrite(wfd, &me, sizeof(me));
    sleep(60); /* killed by the test */
    return 0;
}

static void test_ud_dead_peer(void **state)
{
    struct t_peer p = t_fork(sleeping_ud_peer, NULL);
    struct ud_info peer;
    struct ibv_sge s;
    struct ibv_ah *ah;
    struct t_ep e;

    (void)state;
    t_ep_open(&e, BUF, IBV_ACCESS_LOCAL_WRITE, false);
    e.qp = ud_qp(&e, 8, QKEY);
    t_xread(p.rfd, &peer, sizeof(peer));
    ah = ah_lid(&e, (uint16_t)peer.lid, 0);
    s = t_sge(&e, 0, 1000);
    assert_int_equal(ud_send(e.qp, ah, peer.qpn, QKEY, &s, IBV_WR_SEND, 0, 1), 0);
    expect_send_ok(&e, 1);
    t_kill(&p);
    assert_int_equal(ud_send(e.qp, ah, peer.qpn, QKEY, &s, IBV_WR_SEND, 0, 2), 0);
    expect_send_ok(&e, 2); /* the datagram is lost, the send queue is fine */
    s = t_sge(&e, 0, 8);
    assert_int_equal(ud_send(e.qp, ah, peer.qpn, QKEY, &s, IBV_WR_SEND, 0, 3), 0);
    expect_send_ok(&e, 3);
    assert_int_equal(t_qp_state(e.qp), IBV_QPS_RTS);
    assert_int_equal(ibv_destroy_ah(ah), 0);
    t_ep_close(&e);
}

/* A local error completes the send in error and puts the QP in SQE; expects wr_id's status. */
static void expect_sqe(struct t_ep *e, uint64_t wr_id, enum ibv_wc_status st)
{
    struct ibv_wc wc[2];

    assert_int_equal(t_poll(e->cq, wc, 2, 30), 1);
    assert_int_equal(wc[0].wr_id, wr_id);
    assert_int_equal(wc[0].status, st);
    assert_int_not_equal(wc[0].vendor_err, 0);
    assert_int_equal(t_qp_state(e->qp), IBV_QPS_SQE);
}

static void sqe_to_rts(struct ibv_qp *qp)
{
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTS, .cur_qp_state = IBV_QPS_SQE};

    assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN), EINVAL);
    assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE), 0);
    assert_int_equal(t_qp_state(qp), IBV_QPS_RTS);
}

static void test_ud_mtu_and_sqe(void **state)
{
    struct ibv_port_attr pa;
    struct ibv_wc wc[2];
    struct ibv_sge s;
    struct ibv_qp *b;
    struct ibv_ah *ah;
    struct t_ep e;

    (void)state;
    t_ep_open(&e, BUF, IBV_ACCESS_LOCAL_WRITE, false);
    assert_int_equal(ibv_query_port(e.ctx, 1, &pa), 0);
    assert_int_equal(1 << (pa.active_mtu + 7), MTU);
    e.qp = ud_qp(&e, 8, QKEY);
    b = ud_qp(&e, 8, QKEY);
    ah = ah_lid(&e, e.lid, 0);
    assert_int_equal(ud_post_recv(&e, b, RX_OFF, GRH + 2 * MTU, 1), 0);
    /* One byte over the MTU: a local length error; what follows is flushed. */
    s = t_sge(&e, 0, MTU + 1);
    assert_int_equal(ud_send(e.qp, ah, b->qp_num, QKEY, &s, IBV_WR_SEND, 0, 2), 0);
    expect_sqe(&e, 2, IBV_WC_LOC_LEN_ERR);
    s = t_sge(&e, 0, 8);
    assert_int_equal(ud_send(e.qp, ah, b->qp_num, QKEY, &s, IBV_WR_SEND, 0, 3), 0);
    assert_int_equal(t_poll(e.cq, wc, 2, 30), 1);
    assert_int_equal(wc[0].wr_id, 3);
    assert_int_equal(wc[0].status, IBV_WC_WR_FLUSH_ERR);
    /* The receive side of a QP in SQE goes on. */
    assert_int_equal(ud_post_recv(&e, e.qp, RX_OFF + MTU, GRH + 8, 5), 0);
    assert_int_equal(ud_send(b, ah, e.qp->qp_num, QKEY, &s, IBV_WR_SEND, 0, 6), 0);
    assert_int_equal(t_poll(e.cq, wc, 2, 1000), 2);
    assert_int_equal(wc[0].status | wc[1].status, IBV_WC_SUCCESS);
    sqe_to_rts(e.qp);
    s = t_sge(&e, 0, MTU); /* exactly the MTU */
    assert_int_equal(ud_send(e.qp, ah, b->qp_num, QKEY, &s, IBV_WR_SEND, 0, 7), 0);
    assert_int_equal(t_poll(e.cq, wc, 2, 1000), 2);
    assert_int_equal(wc[0].status | wc[1].status, IBV_WC_SUCCESS);
    assert_int_equal(wc[0].wr_id == 1 ? wc[0].byte_len : wc[1].byte_len, GRH + MTU);
    /* UD sends only: an RDMA WRITE is posted, then fails as a local QP operation error. */
    assert_int_equal(ud_send(e.qp, ah, b->qp_num, QKEY, &s, IBV_WR_RDMA_WRITE, 0, 8), 0);
    expect_sqe(&e, 8, IBV_WC_LOC_QP_OP_ERR);
    sqe_to_rts(e.qp);
    s.lkey ^= 0x100; /* a bad lkey */
    assert_int_equal(ud_send(e.qp, ah, b->qp_num, QKEY, &s, IBV_WR_SEND, 0, 9), 0);
    expect_sqe(&e, 9, IBV_WC_LOC_PROT_ERR);
    assert_int_equal(ibv_destroy_ah(ah), 0);
    assert_int_equal(ibv_destroy_qp(b), 0);
    t_ep_close(&e);
}

static void test_ud_recv_too_small(void **state)
{
    struct ibv_wc wc[3];
    struct ibv_sge s;
    struct ibv_qp *b;
    struct ibv_ah *ah;
    struct t_ep e;
    int i;

    (void)state;
    t_ep_open(&e, BUF, IBV_ACCESS_LOCAL_WRITE, false);
    e.qp = ud_qp(&e, 8, QKEY);
    b = ud_qp(&e, 8, QKEY);
    ah = ah_lid(&e, e.lid, 0);
    /* 11 bytes need 51: the receive completes in error, the QP carries on. */
    assert_int_equal(ud_post_recv(&e, b, RX_OFF, GRH + 10, 1), 0);
    assert_int_equal(ud_post_recv(&e, b, RX_OFF + 4096, GRH + 11, 2), 0);
    s = t_sge(&e, 0, 11);
    for (i = 0; i < 2; i++)
        assert_int_equal(ud_send(e.qp, ah, b->qp_num, QKEY, &s, IBV_WR_SEND, 0, 10 + i), 0);
    assert_int_equal(t_poll(e.cq, wc, 3, 1000), 3);
    assert_int_equal(wc[0].wr_id, 1);
    assert_int_equal(wc[0].status, IBV_WC_LOC_LEN_ERR);
    assert_int_equal(wc[0].qp_num, b->qp_num);
    assert_int_equal(wc[1].wr_id, 10);
    assert_int_equal(wc[1].status, IBV_WC_SUCCESS); /* the sender never knows */
    assert_int_equal(wc[2].wr_id, 2);
    assert_int_equal(wc[2].status, IBV_WC_SUCCESS);
    assert_int_equal(wc[2].byte_len, GRH + 11);
    assert_int_equal(t_poll(e.cq, wc, 1, 1000), 1);
    assert_int_equal(wc[0].wr_id, 11);
    assert_int_equal(t_qp_state(b), IBV_QPS_RTS);
    /* Even an empty datagram needs the 40 bytes of the GRH. */
    assert_int_equal(ud_post_recv(&e, b, RX_OFF, GRH - 1, 3), 0);
    assert_int_equal(ud_send(e.qp, ah, b->qp_num, QKEY, NULL, IBV_WR_SEND, 0, 12), 0);
    assert_int_equal(t_poll(e.cq, wc, 2, 1000), 2);
    assert_int_equal(wc[0].status, IBV_WC_LOC_LEN_ERR);
    assert_int_equal(wc[1].status, IBV_WC_SUCCESS);
    assert_int_equal(ibv_destroy_ah(ah), 0);
    assert_int_equal(ibv_destroy_qp(b), 0);
    t_ep_close(&e);
}

static void test_ud_drop_rate(void **state)
{
    enum { N = 200 };
    struct ibv_wc wc[2 * N];
    struct ibv_sge s;
    struct ibv_qp *b;
    struct ibv_ah *ah;
    struct t_ep e;
    int i, n, sends = 0, recvs = 0, last = -1;

    (void)state;
    setenv("SOFTIB_DROP_RATE", "0.3", 1);
    setenv("SOFTIB_SEED", "7", 1);
    t_ep_open(&e, BUF, IBV_ACCESS_LOCAL_WRITE, false);
    e.qp = ud_qp(&e, N, QKEY);
    b = ud_qp(&e, N, QKEY);
    ah = ah_lid(&e, e.lid, 0);
    for (i = 0; i < N; i++)
        assert_int_equal(ud_post_recv(&e, b, RX_OFF + 64 * (size_t)i, 64, (uint64_t)i), 0);
    for (i = 0, n = 0; i < N; i++) {
        memcpy(e.buf + 8 * (size_t)i, &i, sizeof(i));
        s = t_sge(&e, 8 * (size_t)i, sizeof(i));
        assert_int_equal(ud_send(e.qp, ah, b->qp_num, QKEY, &s, IBV_WR_SEND, 0, 1000 + i), 0);
        n += ibv_poll_cq(e.cq, 2 * N - n, wc + n); /* the CQ holds 256 */
    }
    n += t_poll(e.cq, wc + n, 2 * N - n, 50);
    for (i = 0; i < n; i++) {
        int seq;

        assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
        if (wc[i].opcode == IBV_WC_SEND) {
            sends++;
            continue;
        }
        /* Receives are taken in order; each holds a distinct, increasing datagram. */
        assert_int_equal(wc[i].wr_id, (uint64_t)recvs);
        memcpy(&seq, e.buf + RX_OFF + 64 * wc[i].wr_id + GRH, sizeof(seq));
        assert_true(seq > last);
        last = seq;
        recvs++;
    }
    assert_int_equal(sends, N);                       /* every send succeeds, lost or not */
    assert_true(recvs > N / 2 && recvs < N - N / 10); /* ~70% arrive, nothing is retransmitted */
    assert_int_equal(ibv_destroy_ah(ah), 0);
    assert_int_equal(ibv_destroy_qp(b), 0);
    t_ep_close(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ud_state_machine, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_ah_create_destroy, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_ud_send_recv, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_ud_send_recv_srq, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_ud_grh_ib, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_ud_roce, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_ud_silent_drops, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_ud_dead_peer, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_ud_mtu_and_sqe, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_ud_recv_too_small, setup, t_teardown),
        cmocka_unit_test_setup_teardown(test_ud_drop_rate, setup, t_teardown),
    };

    /* e.g. SOFTIB_TEST_FILTER='test_ud_roce' to run one test (under valgrind, gdb) */
    if (getenv("SOFTIB_TEST_FILTER"))
        cmocka_set_test_filter(getenv("SOFTIB_TEST_FILTER"));
    return cmocka_run_group_tests_name("softib_ud", tests, NULL, NULL);
}
