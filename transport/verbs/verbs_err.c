/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion errors: one message per failed peer naming the rank, its host, the operation and the
 * likely cause, then the runtime's peer_failed callback. An RC QP that reports an error is in the
 * error state and flushes everything behind it, so the peer is unusable from then on.
 */
#include <stdio.h>

#include "ibex_boot.h"
#include "ibex_log.h"
#include "verbs.h"

typedef struct verbs_wc_cause {
    enum ibv_wc_status st;
    const char *name;
    const char *cause;
    ibex_status_t status;
} verbs_wc_cause_t;

/* clang-format off */
static const verbs_wc_cause_t wc_causes[] = {
    {IBV_WC_RETRY_EXC_ERR, "IBV_WC_RETRY_EXC_ERR",
     "stopped answering: retry count exceeded", IBEX_ERR_PEER_FAILED},
    {IBV_WC_RNR_RETRY_EXC_ERR, "IBV_WC_RNR_RETRY_EXC_ERR",
     "had no receive buffer posted: receiver-not-ready retries exceeded", IBEX_ERR_PEER_FAILED},
    {IBV_WC_REM_ACCESS_ERR, "IBV_WC_REM_ACCESS_ERR",
     "rejected the access: bad remote key, address range or permissions", IBEX_ERR_REMOTE},
    {IBV_WC_REM_INV_REQ_ERR, "IBV_WC_REM_INV_REQ_ERR",
     "rejected the request as invalid (message too long for its buffer?)", IBEX_ERR_REMOTE},
    {IBV_WC_REM_OP_ERR, "IBV_WC_REM_OP_ERR",
     "could not execute the operation", IBEX_ERR_REMOTE},
    {IBV_WC_LOC_PROT_ERR, "IBV_WC_LOC_PROT_ERR",
     "could not be served: local buffer not covered by its registration", IBEX_ERR_REMOTE},
    {IBV_WC_LOC_LEN_ERR, "IBV_WC_LOC_LEN_ERR",
     "sent a message longer than the receive buffer", IBEX_ERR_REMOTE},
    {IBV_WC_LOC_QP_OP_ERR, "IBV_WC_LOC_QP_OP_ERR",
     "could not be served: local queue pair error", IBEX_ERR_PEER_FAILED},
    {IBV_WC_WR_FLUSH_ERR, "IBV_WC_WR_FLUSH_ERR",
     "is unreachable: the connection went into the error state", IBEX_ERR_PEER_FAILED},
    {IBV_WC_REM_ABORT_ERR, "IBV_WC_REM_ABORT_ERR",
     "aborted the operation", IBEX_ERR_PEER_FAILED},
    {IBV_WC_FATAL_ERR, "IBV_WC_FATAL_ERR",
     "is unreachable: fatal adapter error", IBEX_ERR_PEER_FAILED},
};
/* clang-format on */

static const verbs_wc_cause_t *wc_cause(enum ibv_wc_status st)
{
    for (size_t i = 0; i < sizeof(wc_causes) / sizeof(wc_causes[0]); i++)
        if (wc_causes[i].st == st)
            return &wc_causes[i];
    return NULL;
}

ibex_status_t ibex_verbs_wc_status(enum ibv_wc_status st)
{
    if (st == IBV_WC_SUCCESS)
        return IBEX_OK;
    const verbs_wc_cause_t *c = wc_cause(st);
    return c ? c->status : IBEX_ERR_PEER_FAILED;
}

const char *ibex_verbs_mtu_str(enum ibv_mtu mtu)
{
    switch (mtu) {
    case IBV_MTU_256:
        return "256";
    case IBV_MTU_512:
        return "512";
    case IBV_MTU_1024:
        return "1024";
    case IBV_MTU_2048:
        return "2048";
    case IBV_MTU_4096:
        return "4096";
    }
    return "?";
}

/* Marks the endpoint failed, fails its queued work and tells the runtime. */
static void ep_mark_failed(ibex_tl_ep_t *ep, ibex_status_t status)
{
    ibex_tl_t *tl = ep->tl;
    ep->failed = true;
    ep->fail_status = status;
    /* the send queue is flushed: its slots no longer limit other peers */
    if (ep->state == VERBS_EP_CONNECTED)
        tl->cq_room += (int)(VERBS_SQ_DEPTH - ep->sq_avail);
    ep->sq_avail = 0;
    ep->credits = 0;
    ibex_verbs_rma_fail_queued(ep);
    ibex_verbs_cm_disconnect(ep);
    if (tl->params.peer_failed_cb)
        tl->params.peer_failed_cb(tl->params.cb_arg, ep->peer, ep->fail_status);
}

ibex_status_t ibex_verbs_ep_fail(ibex_tl_ep_t *ep, enum ibv_wc_status st, const char *op)
{
    if (ep->failed)
        return ep->fail_status;
    const verbs_wc_cause_t *c = wc_cause(st);
    if (c)
        ibex_error(TL, "peer rank %d on %s %s (%s) during %s", ep->peer,
                   ibex_boot_peer_host(ep->peer), c->cause, c->name, op);
    else
        ibex_error(TL, "peer rank %d on %s is unreachable: %s (status %d) during %s", ep->peer,
                   ibex_boot_peer_host(ep->peer), ibv_wc_status_str(st), (int)st, op);
    ep_mark_failed(ep, c ? c->status : IBEX_ERR_PEER_FAILED);
    return ep->fail_status;
}

void ibex_verbs_ep_unreachable(ibex_tl_ep_t *ep, const char *why)
{
    if (ep->failed)
        return;
    ibex_error(TL, "peer rank %d on %s %s", ep->peer, ibex_boot_peer_host(ep->peer), why);
    ep_mark_failed(ep, IBEX_ERR_PEER_FAILED);
}
