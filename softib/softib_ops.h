/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib operations: the interface between the send queue (softib_post.c)
 * and the execution of one work request (softib_ops.c for RC, softib_ud.c
 * for UD).
 */
#ifndef SOFTIB_OPS_H
#define SOFTIB_OPS_H

#include "softib.h"

#pragma GCC visibility push(hidden)

#define SIB_X_DONE 0 /* finished: res->status says how */
#define SIB_X_WAIT 1 /* stays at the head of the send queue until w->not_before */

/* Outcome and local buffers of one work request. */
struct sib_res {
    enum ibv_wc_status status;
    uint32_t byte_len;
    uint64_t len; /* bytes described by liov */
    struct iovec liov[SIB_MAX_SGE];
    int nl;
};

/* A scatter/gather list to check against the MR table of seg (owned by pid). */
struct sib_sgl {
    struct sib_seg *seg;
    pid_t pid;
    uint32_t pd;
    const struct ibv_sge *sge;
    uint32_t n;
    uint32_t access;
    uint64_t limit;
};

/* The peer QP a request goes to: its context and its shared state. */
struct sib_peer {
    struct sib_rctx *r;
    struct sib_qp_shm *q;
};

/* softib_post.c */
int sib_local_iov(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res);
bool sib_fault_drop(struct sib_qp *qp, struct sib_swqe *w);

/* softib_ops.c */
int sib_sges_iov(const struct sib_sgl *l, struct iovec *iov, int *niov, uint64_t *total);
int sib_exec(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res);
bool sib_wq_take(const struct sib_peer *p, struct sib_rwqe *rw, struct ibv_sge *sge);
struct sib_wq_shm *sib_peer_wq(const struct sib_peer *p);
void sib_recv_fail(const struct sib_peer *p, struct sib_cqe *e, enum ibv_wc_status st, bool qp_err);
/* counts a UD SEND for softib_counters_get */
void sib_count_ud_send(void);
int sib_place(const struct sib_peer *p, const struct iovec *liov, int nl, uint64_t len,
              const struct iovec *riov, int nr, struct sib_cqe *e);

/* softib_fault.c */
int sib_fault_inject(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res);
int sib_fault_exec(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res);

/* softib_ud.c */
int sib_ud_exec(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res);

#pragma GCC visibility pop

#endif
