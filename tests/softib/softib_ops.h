/*
 * softib operations: the interface between the send queue (softib_post.c)
 * and the execution of one work request (softib_ops.c).
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

int sib_sges_iov(const struct sib_sgl *l, struct iovec *iov, int *niov, uint64_t *total);
int sib_exec(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res);

#pragma GCC visibility pop

#endif
