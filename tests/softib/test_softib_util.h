/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers for the softib conformance tests: contexts, QP bring-up, polling
 * with a deadline, peer processes over pipes, and the leftovers check.
 */
#ifndef TEST_SOFTIB_UTIL_H
#define TEST_SOFTIB_UTIL_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct t_ep {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_comp_channel *ch;
    struct ibv_cq *cq;
    struct ibv_srq *srq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    uint8_t *buf;
    size_t len;
    uint16_t lid;
};

/* What a peer needs to reach an endpoint. */
struct t_info {
    uint32_t lid, qpn, rkey, pad;
    uint64_t addr;
};

/* RC connection parameters; zero fields take the defaults in t_conn_default. */
struct t_conn {
    uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
    unsigned int access;
};

struct t_peer {
    pid_t pid;
    int rfd, wfd;
};

extern const struct t_conn t_conn_default;

/* Checks usable in the test and in forked peers (which must not enter cmocka). */
extern bool t_in_child;
void t_fail(const char *what, const char *file, int line);
#define T_ASSERT(x)                                                                                \
    do {                                                                                           \
        if (!(x))                                                                                  \
            t_fail(#x, __FILE__, __LINE__);                                                        \
    } while (0)

/* Per-test setup: a private softib namespace and a time limit. */
int t_setup(void **state);
int t_teardown(void **state);

void t_ep_open(struct t_ep *e, size_t len, unsigned int access, bool channel);
struct ibv_qp *t_qp_create(struct t_ep *e, uint32_t depth, bool sig_all);
void t_qp_connect(struct ibv_qp *qp, uint32_t lid, uint32_t qpn, const struct t_conn *c);
void t_ep_close(struct t_ep *e);
struct t_info t_ep_info(const struct t_ep *e);

int t_post_send(struct ibv_qp *qp, enum ibv_wr_opcode op, struct ibv_sge *sge, int nsge,
                uint64_t raddr, uint32_t rkey, unsigned int flags, uint64_t wr_id);
int t_post_recv(struct ibv_qp *qp, struct ibv_sge *sge, int nsge, uint64_t wr_id);
int t_post_send_imm(struct ibv_qp *qp, enum ibv_wr_opcode op, struct ibv_sge *sge, uint64_t raddr,
                    uint32_t rkey, uint32_t imm, uint64_t wr_id);
struct ibv_sge t_sge(const struct t_ep *e, size_t off, uint32_t len);

/* Waits up to ms for n completions; returns how many arrived. */
int t_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms);
enum ibv_qp_state t_qp_state(struct ibv_qp *qp);

/* A forked peer running fn(peer side pipes, arg); exits with fn's return value. */
struct t_peer t_fork(int (*fn)(int rfd, int wfd, void *arg), void *arg);
int t_wait(struct t_peer *p);
void t_kill(struct t_peer *p);
void t_xwrite(int fd, const void *b, size_t n);
void t_xread(int fd, void *b, size_t n);

/* Number of softib shared-memory files left in this test's namespace. */
int t_shm_leftovers(void);

#endif
