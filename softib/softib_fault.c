/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib fault injection for chaos tests: error completions, delays, duplicates, a QP forced
 * into the error state and a process that vanishes mid-transfer, on RC READ / WRITE / SEND,
 * each drawn from the QP's generator seeded by SOFTIB_SEED.
 *
 * The faults model what a real RC QP can show its user, nothing more:
 * - a lost packet is retransmitted by the HCA; the user sees a late completion (a delay), or,
 *   once retry_cnt retransmissions have failed, IBV_WC_RETRY_EXC_ERR (an error);
 * - a duplicated packet is filtered by its PSN at the responder for SEND and WRITE (only the
 *   ACK is repeated); a duplicated READ request is executed again (IB spec 9.7.5.1.4), which
 *   here re-reads the source, as an HCA does;
 * - an error completion comes with the responder-side effects a real responder has: a remote
 *   access error moves the responder QP to ERR as well; a remote operation (invalid request)
 *   error consumes the receive and completes it with IBV_WC_LOC_PROT_ERR (LOC_LEN_ERR).
 * Variables are read with the others (sib_config_load), see softib/README.md.
 */
#include "softib_ops.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define FAULT_SEND  1u
#define FAULT_WRITE 2u
#define FAULT_READ  4u

struct fault_cfg {
    double err_rate, delay_rate, dup_rate;
    uint64_t delay_max_us;
    uint64_t qp_err_after;
    uint64_t err_skip; /* no error on the first n work requests of a QP */
    uint64_t vanish_after;
    uint32_t ops; /* FAULT_* the faults apply to */
    int status;   /* forced error status, or -1: one a real HCA gives for the opcode */
    bool any;     /* some fault configured: the hooks do nothing otherwise */
};

static struct fault_cfg g_fault;
static uint64_t g_rdma_count; /* READs and WRITEs this process started, for vanish_after */

static double env_rate(const char *name)
{
    const char *v = getenv(name);
    double d = v ? strtod(v, NULL) : 0.0;

    return d < 0 ? 0 : d > 1 ? 1 : d;
}

static uint64_t env_num(const char *name)
{
    const char *v = getenv(name);

    return v ? strtoull(v, NULL, 0) : 0;
}

static uint32_t ops_parse(const char *v)
{
    uint32_t m = 0;

    if (!v || !*v)
        return FAULT_SEND | FAULT_WRITE | FAULT_READ;
    if (strstr(v, "send"))
        m |= FAULT_SEND;
    if (strstr(v, "write"))
        m |= FAULT_WRITE;
    if (strstr(v, "read"))
        m |= FAULT_READ;
    return m;
}

static const struct {
    const char *name;
    enum ibv_wc_status st;
} g_status_names[] = {
    {"retry_exc", IBV_WC_RETRY_EXC_ERR},
    {"rnr_retry_exc", IBV_WC_RNR_RETRY_EXC_ERR},
    {"rem_access", IBV_WC_REM_ACCESS_ERR},
    {"rem_op", IBV_WC_REM_OP_ERR},
    {"rem_inv_req", IBV_WC_REM_INV_REQ_ERR},
    {"loc_prot", IBV_WC_LOC_PROT_ERR},
    {"fatal", IBV_WC_FATAL_ERR},
};

static int status_parse(const char *v)
{
    size_t i;

    for (i = 0; v && i < sizeof(g_status_names) / sizeof(g_status_names[0]); i++)
        if (!strcasecmp(v, g_status_names[i].name))
            return (int)g_status_names[i].st;
    return -1;
}

void sib_fault_config_load(void)
{
    struct fault_cfg *f = &g_fault;

    f->err_rate = env_rate("SOFTIB_FAULT_ERR_RATE");
    f->delay_rate = env_rate("SOFTIB_FAULT_DELAY_RATE");
    f->dup_rate = env_rate("SOFTIB_FAULT_DUP_RATE");
    f->delay_max_us = env_num("SOFTIB_FAULT_DELAY_MAX_US");
    if (!f->delay_max_us)
        f->delay_max_us = 2000;
    f->qp_err_after = env_num("SOFTIB_FAULT_QP_ERR_AFTER");
    f->err_skip = env_num("SOFTIB_FAULT_ERR_SKIP");
    f->vanish_after = env_num("SOFTIB_FAULT_VANISH_AFTER");
    f->ops = ops_parse(getenv("SOFTIB_FAULT_OPS"));
    f->status = status_parse(getenv("SOFTIB_FAULT_STATUS"));
    f->any = f->err_rate > 0 || f->delay_rate > 0 || f->dup_rate > 0 || f->qp_err_after ||
             f->vanish_after;
}

bool sib_fault_active(void)
{
    return g_fault.any;
}

static uint32_t op_class(uint32_t opcode)
{
    switch (opcode) {
    case IBV_WR_SEND:
    case IBV_WR_SEND_WITH_IMM:
        return FAULT_SEND;
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM:
        return FAULT_WRITE;
    case IBV_WR_RDMA_READ:
        return FAULT_READ;
    default:
        return 0; /* atomics: not injected */
    }
}

static bool roll(struct sib_qp *qp, double p)
{
    return p > 0 && (double)(sib_rand(&qp->rng) >> 11) / 9007199254740992.0 < p;
}

/* An error status a real HCA reports for this opcode, drawn when none is forced. */
static enum ibv_wc_status pick_status(struct sib_qp *qp, uint32_t cls)
{
    static const enum ibv_wc_status send_st[] = {IBV_WC_RETRY_EXC_ERR, IBV_WC_RNR_RETRY_EXC_ERR,
                                                 IBV_WC_REM_OP_ERR, IBV_WC_REM_INV_REQ_ERR};
    static const enum ibv_wc_status rdma_st[] = {IBV_WC_RETRY_EXC_ERR, IBV_WC_REM_ACCESS_ERR};
    uint64_t r = sib_rand(&qp->rng) >> 33;

    if (g_fault.status >= 0)
        return (enum ibv_wc_status)g_fault.status;
    return cls == FAULT_SEND ? send_st[r % 4] : rdma_st[r % 2];
}

/* The responder QP, if it is known and alive; NULL otherwise. */
static bool responder(struct sib_qp *qp, struct sib_peer *p)
{
    uint64_t off;

    p->r = sib_qp_lookup(qp->lid, qp->attr.dest_qp_num, &off);
    if (!p->r || !sib_rctx_alive(p->r, false))
        return false;
    p->q = sib_at(p->r->seg, off);
    return p->q->qpn == qp->attr.dest_qp_num && p->q->type == IBV_QPT_RC;
}

/* What a real responder does when it answers with this error. */
static void responder_effect(struct sib_qp *qp, enum ibv_wc_status st)
{
    struct ibv_sge sge[SIB_MAX_SGE];
    struct sib_rwqe rw;
    struct sib_peer p;
    struct sib_cqe e;

    if ((st != IBV_WC_REM_ACCESS_ERR && st != IBV_WC_REM_OP_ERR && st != IBV_WC_REM_INV_REQ_ERR) ||
        !responder(qp, &p))
        return;
    if (st != IBV_WC_REM_ACCESS_ERR && sib_wq_take(&p, &rw, sge)) {
        memset(&e, 0, sizeof(e));
        e.wc.wr_id = rw.wr_id;
        e.wc.qp_num = p.q->qpn;
        e.wc.src_qp = qp->ibv.qp_num;
        e.wc.opcode = IBV_WC_RECV;
        sib_recv_fail(&p, &e, st == IBV_WC_REM_OP_ERR ? IBV_WC_LOC_PROT_ERR : IBV_WC_LOC_LEN_ERR,
                      true);
        return;
    }
    sib_qp_set_err(p.r, p.q);
}

static int inject_error(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res, uint32_t cls)
{
    enum ibv_wc_status st = pick_status(qp, cls);

    sib_log_write("qp 0x%x: injected %s on wr_id 0x%llx (opcode %u)", qp->ibv.qp_num,
                  ibv_wc_status_str(st), (unsigned long long)w->wr_id, w->opcode);
    responder_effect(qp, st);
    res->status = st;
    return SIB_X_DONE;
}

/* The process disappears as a real one killed mid-transfer would: no destructor, no goodbye. */
static void vanish(struct sib_qp *qp, struct sib_swqe *w)
{
    sib_log_write("qp 0x%x: injected vanish before wr_id 0x%llx (opcode %u)", qp->ibv.qp_num,
                  (unsigned long long)w->wr_id, w->opcode);
    kill(getpid(), SIGKILL);
    _exit(137);
}

static int inject_qp_err(struct sib_qp *qp, struct sib_res *res)
{
    sib_log_write("qp 0x%x: injected transition to the error state after %llu operations",
                  qp->ibv.qp_num, (unsigned long long)qp->ops);
    sib_qp_set_err(sib_ctx_of(qp->ibv.context)->self, qp->sh);
    res->status = IBV_WC_WR_FLUSH_ERR;
    return SIB_X_DONE;
}

/*
 * Called before a RC work request executes (and again at each retry of one that waits).
 * Returns SIB_X_DONE (res->status set) or SIB_X_WAIT when a fault decides the attempt, else -1.
 */
int sib_fault_inject(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res)
{
    uint32_t cls = op_class(w->opcode);

    if (!g_fault.any || !cls)
        return -1;
    if (g_fault.qp_err_after && qp->ops >= g_fault.qp_err_after)
        return inject_qp_err(qp, res);
    if (cls != FAULT_SEND && !w->not_before && g_fault.vanish_after &&
        ++g_rdma_count >= g_fault.vanish_after)
        vanish(qp, w);
    if (!(g_fault.ops & cls))
        return -1;
    if (qp->ops >= g_fault.err_skip && roll(qp, g_fault.err_rate))
        return inject_error(qp, w, res, cls);
    if (!w->not_before && roll(qp, g_fault.delay_rate)) { /* once per request: it does end */
        sib_log("qp 0x%x: injected delay of wr_id 0x%llx", qp->ibv.qp_num,
                (unsigned long long)w->wr_id);
        w->not_before = sib_now_ns() + (sib_rand(&qp->rng) % g_fault.delay_max_us + 1) * 1000;
        return SIB_X_WAIT;
    }
    return -1;
}

/* Executes w; a duplicated READ request is executed twice, as a responder does. */
int sib_fault_exec(struct sib_qp *qp, struct sib_swqe *w, struct sib_res *res)
{
    int rc = sib_exec(qp, w, res);
    struct sib_res again;

    if (!g_fault.any || w->opcode != IBV_WR_RDMA_READ || !(g_fault.ops & FAULT_READ) ||
        rc != SIB_X_DONE || res->status != IBV_WC_SUCCESS || !roll(qp, g_fault.dup_rate))
        return rc;
    sib_log("qp 0x%x: duplicated READ request wr_id 0x%llx", qp->ibv.qp_num,
            (unsigned long long)w->wr_id);
    memcpy(&again, res, sizeof(again));
    if (sib_exec(qp, w, &again) == SIB_X_DONE && again.status != IBV_WC_SUCCESS)
        memcpy(res, &again, sizeof(again));
    return SIB_X_DONE;
}
