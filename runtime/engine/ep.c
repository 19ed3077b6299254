/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one visible dispatch: which transport reaches which peer, endpoints connected on first use,
 * and the per-peer backlog of messages waiting for transport room (kept in order, so MPI's
 * non-overtaking rule holds even when a ring or the credits run out).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_boot.h"
#include "ibex_engine_cfg.h"
#include "ibex_am.h"
#include "ibex_engine.h"
#include "ibex_engine_stats.h"
#include "ibex_log.h"
#include "ibex_runtime.h"
#include "ibex_tl_fault.h"

#define MAX_TL 16

/* Open transports in the registry's priority order: the first one that is selected, open and
 * reaches a peer is used. */
static ibex_tl_inst_t tl_insts[MAX_TL];
static int tl_count;
ibex_ep_t *ibex_ep_table;
int ibex_ep_table_size;
static ibex_pending_t *pending_free;
static int eps_backlogged; /* endpoints with a backlog: progress skips the scan when 0 */

/* "auto" selects everything; otherwise a comma list of component names. */
static bool tl_selected(const char *name, bool *explicit_p)
{
    const char *list = ibex_engine_cfg.transports;
    *explicit_p = strcmp(list, "auto") != 0;
    if (!*explicit_p)
        return true;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

static ibex_status_t tl_check_names(void)
{
    const char *list = ibex_engine_cfg.transports;
    if (strcmp(list, "auto") == 0)
        return IBEX_OK;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        char name[64];
        snprintf(name, sizeof(name), "%.*s", (int)len, p);
        if (len >= sizeof(name) || !ibex_tl_component_find(name)) {
            char known[256];
            ibex_tl_component_names(known, sizeof(known));
            ibex_error(TL, "IBEX_TRANSPORTS='%s': unknown transport '%.*s' (known: %s)", list,
                       (int)len, p, known);
            return IBEX_ERR_INVALID;
        }
        p += len + (p[len] == ',');
    }
    return IBEX_OK;
}

static ibex_status_t tl_open_one(ibex_tl_component_t *comp, const ibex_tl_params_t *params,
                                 bool explicit)
{
    ibex_tl_inst_t *inst = &tl_insts[tl_count];
    ibex_tl_params_t mine = *params;
    mine.requested = explicit;
    ibex_tl_fill_stubs(&comp->ops);
    ibex_status_t st = comp->ops.open(&mine, &inst->tl, &inst->caps);
    if (st != IBEX_OK) {
        if (explicit) {
            ibex_error(TL, "transport %s was requested (IBEX_TRANSPORTS=%s) but cannot open: %s",
                       comp->name, ibex_engine_cfg.transports, ibex_status_str(st));
            return st;
        }
        ibex_debug(TL, "transport %s not available: %s", comp->name, ibex_status_str(st));
        return IBEX_OK;
    }
    inst->comp = comp;
    inst->eager_limit = ibex_proto_eager_limit(&inst->caps);
    inst->loopback = (comp->flags & IBEX_TL_COMP_LOOPBACK) != 0;
    inst->queued = 0;
    inst->count = ibex_stats_tl_slot(comp);
    tl_count++;

    char addr[65536];
    size_t len = sizeof(addr);
    char key[64];
    st = comp->ops.addr_pack(inst->tl, addr, &len);
    snprintf(key, sizeof(key), "ibex.tl.%s", comp->name);
    if (st == IBEX_OK && len > 0)
        st = ibex_boot_put(key, addr, len);
    ibex_debug(TL, "transport %s open: eager limit %zu, max eager %zu, flags 0x%x", comp->name,
               inst->eager_limit, inst->caps.max_eager, inst->caps.flags);
    return st;
}

ibex_status_t ibex_ep_open_transports(void)
{
    ibex_status_t st = tl_check_names();
    if (st == IBEX_OK)
        st = ibex_tl_fault_install(); /* IBEX_TL_FAULT: tests' fault injection */
    if (st != IBEX_OK)
        return st;
    ibex_boot_info_t *b = &ibex_rt.boot;
    ibex_tl_params_t params = {
        .rank = b->rank,
        .size = b->size,
        .local_rank = b->local_rank,
        .local_size = b->local_size,
        .local_peers = b->local_peers,
        .recv_cb = ibex_proto_recv_cb,
        .peer_failed_cb = ibex_proto_peer_failed,
        .cb_arg = NULL,
    };
    ibex_tl_component_t *comp;
    for (int i = 0; (comp = ibex_tl_component(i)) != NULL && tl_count < MAX_TL; i++) {
        bool explicit;
        if (!tl_selected(comp->name, &explicit))
            continue;
        st = tl_open_one(comp, &params, explicit);
        if (st != IBEX_OK)
            return st;
    }
    if (tl_count == 0) {
        ibex_error(TL, "no transport could be opened (IBEX_TRANSPORTS=%s)",
                   ibex_engine_cfg.transports);
        return IBEX_ERR_NO_DEVICE;
    }
    ibex_ep_table = calloc((size_t)b->size, sizeof(*ibex_ep_table));
    if (!ibex_ep_table)
        return IBEX_ERR_NO_MEMORY;
    ibex_ep_table_size = b->size;
    for (int i = 0; i < b->size; i++)
        ibex_ep_table[i].world_rank = i;
    return IBEX_OK;
}

static int ep_fail_drain(void);

void ibex_ep_close_transports(void)
{
    ibex_progress_hook_remove(ep_fail_drain); /* a failure not drained: nothing waits now */
    for (int i = 0; i < ibex_ep_table_size; i++)
        if (ibex_ep_table[i].connected)
            ibex_ep_table[i].tl->comp->ops.ep_destroy(ibex_ep_table[i].tl_ep);
    for (int i = tl_count - 1; i >= 0; i--) {
        ibex_stats_tl_closing(tl_insts[i].comp, tl_insts[i].tl);
        tl_insts[i].comp->ops.close(tl_insts[i].tl);
    }
    tl_count = 0;
    free(ibex_ep_table);
    ibex_ep_table = NULL;
    ibex_ep_table_size = 0;
    eps_backlogged = 0;
    while (pending_free) {
        ibex_pending_t *next = pending_free->next;
        free(pending_free);
        pending_free = next;
    }
}

int ibex_ep_num_transports(void)
{
    return tl_count;
}

ibex_tl_inst_t *ibex_ep_transport(int i)
{
    return i < tl_count ? &tl_insts[i] : NULL;
}

int ibex_ep_count(void)
{
    return ibex_ep_table_size;
}

/* The dispatch: the first open transport, in preference order, that reaches the peer. */
static ibex_tl_inst_t *ep_choose(int world_rank)
{
    for (int i = 0; i < tl_count; i++) {
        ibex_tl_inst_t *inst = &tl_insts[i];
        if (inst->comp->ops.reachable(inst->tl, world_rank))
            return inst;
    }
    return NULL;
}

/* "Same node" is the launcher's word (PMIx node ids, boot.c), never an assumption: an
 * endpoint to another node over a CPU-copy transport would mean shared memory across hosts. */
static void ep_count_offnode(const ibex_ep_t *ep, const ibex_tl_inst_t *inst)
{
    const int *node_of = ibex_rt.boot.node_of;
    if (!node_of || node_of[ep->world_rank] == ibex_rt.boot.node_id)
        return;
    ibex_engine_stats.eps_offnode++;
    if (inst->comp->flags & (IBEX_TL_COMP_NODE_MEMORY | IBEX_TL_COMP_LOOPBACK))
        ibex_engine_stats.eps_offnode_cpu_copy++;
}

static ibex_status_t ep_connect(ibex_ep_t *ep)
{
    ibex_tl_inst_t *inst = ep_choose(ep->world_rank);
    if (!inst) {
        ibex_error(TL, "no transport reaches rank %d on %s (IBEX_TRANSPORTS=%s)", ep->world_rank,
                   ibex_boot_peer_host(ep->world_rank), ibex_engine_cfg.transports);
        return IBEX_ERR_UNREACHABLE;
    }
    char key[64];
    void *addr = NULL;
    size_t len = 0;
    snprintf(key, sizeof(key), "ibex.tl.%s", inst->comp->name);
    ibex_status_t st = IBEX_OK;
    if (inst->caps.addr_size > 0) /* transports with no address (self) publish nothing */
        st = ibex_boot_get(ep->world_rank, key, &addr, &len);
    if (st != IBEX_OK) {
        ibex_error(TL, "cannot read the %s address of rank %d on %s: %s", inst->comp->name,
                   ep->world_rank, ibex_boot_peer_host(ep->world_rank), ibex_status_str(st));
        return st;
    }
    st = inst->comp->ops.ep_create(inst->tl, ep->world_rank, addr, len, &ep->tl_ep);
    free(addr);
    if (st != IBEX_OK) {
        ibex_error(TL, "cannot connect to rank %d on %s over %s: %s", ep->world_rank,
                   ibex_boot_peer_host(ep->world_rank), inst->comp->name, ibex_status_str(st));
        return st;
    }
    ep->tl = inst;
    ep->connected = true;
    ep_count_offnode(ep, inst);
    ibex_debug(TL, "rank %d reached over %s", ep->world_rank, inst->comp->name);
    return IBEX_OK;
}

ibex_status_t ibex_ep_connect_first(int world_rank, ibex_ep_t **ep_p)
{
    ibex_ep_t *ep = &ibex_ep_table[world_rank];
    if (ep->failed)
        return ep->fail_status;
    ibex_status_t st = ep_connect(ep);
    if (st != IBEX_OK) {
        /* as a failed peer: the receives posted for it (a collective's, behind this send)
         * fail at the next progress call instead of waiting for ever (IBEX_TRANSPORTS=self
         * at 2 ranks hung in the first Barrier) */
        ibex_ep_fail(ep, st);
        return st;
    }
    *ep_p = ep;
    return IBEX_OK;
}

static ibex_pending_t *pending_new(void)
{
    ibex_pending_t *p = pending_free;
    if (p) {
        pending_free = p->next;
        return p;
    }
    p = malloc(sizeof(*p));
    if (!p)
        ibex_error(PROTO, "out of memory for a message waiting for transport room");
    return p;
}

static void pending_push(ibex_ep_t *ep, ibex_pending_t *p)
{
    p->next = NULL;
    if (ep->pending_tail) {
        ep->pending_tail->next = p;
    } else {
        ep->pending_head = p;
        eps_backlogged++;
    }
    ep->pending_tail = p;
}

static size_t ctl_len(const ibex_ctl_hdr_t *ctl)
{
    return offsetof(ibex_ctl_hdr_t, rkey) + ctl->rkey_len;
}

ibex_status_t ibex_ep_send_ctl(ibex_ep_t *ep, const ibex_ctl_hdr_t *ctl)
{
    if (ep->failed)
        return ep->fail_status;
    size_t len = ctl_len(ctl);
    if (!ep->pending_head) {
        ibex_status_t st = ibex_ep_tl_send(ep, ctl, len, NULL, 0);
        if (st != IBEX_ERR_AGAIN)
            return st;
    }
    ibex_pending_t *p = pending_new();
    if (!p)
        return IBEX_ERR_NO_MEMORY;
    p->req = NULL;
    p->len = len;
    memcpy(&p->ctl, ctl, len);
    pending_push(ep, p);
    return IBEX_OK;
}

ibex_status_t ibex_ep_queue_req(ibex_ep_t *ep, ibex_req_t *req)
{
    if (ep->failed) /* a backlog that nothing would send or fail any more */
        return ep->fail_status;
    ibex_pending_t *p = pending_new();
    if (!p)
        return IBEX_ERR_NO_MEMORY;
    p->req = req;
    p->len = 0;
    pending_push(ep, p);
    return IBEX_OK;
}

/* Sends what waits for this peer, in order, until the transport is full again. A failed peer's
 * backlog is not sent: ep_fail_drain fails it. */
static int ep_flush(ibex_ep_t *ep)
{
    int sent = 0;
    while (ep->pending_head && !ep->failed) {
        ibex_pending_t *p = ep->pending_head;
        ibex_status_t st;
        if (p->req)
            st = ibex_proto_send_match(p->req);
        else
            st = ibex_ep_tl_send(ep, &p->ctl, p->len, NULL, 0);
        if (st == IBEX_ERR_AGAIN)
            break;
        ep->pending_head = p->next;
        if (!ep->pending_head) {
            ep->pending_tail = NULL;
            eps_backlogged--;
        }
        p->next = pending_free;
        pending_free = p;
        sent++;
    }
    return sent;
}

int ibex_ep_progress_pending(void)
{
    if (eps_backlogged == 0)
        return 0;
    int n = 0;
    for (int i = 0; i < ibex_ep_table_size; i++)
        if (ibex_ep_table[i].pending_head)
            n += ep_flush(&ibex_ep_table[i]);
    return n;
}

void ibex_ep_inflight_add(ibex_ep_t *ep, ibex_req_t *req)
{
    req->inflight_ep = ep;
    req->iprev = NULL;
    req->inext = ep->inflight;
    if (ep->inflight)
        ep->inflight->iprev = req;
    ep->inflight = req;
}

void ibex_ep_inflight_remove(ibex_req_t *req)
{
    ibex_ep_t *ep = req->inflight_ep;
    if (req->iprev)
        req->iprev->inext = req->inext;
    else
        ep->inflight = req->inext;
    if (req->inext)
        req->inext->iprev = req->iprev;
    req->inflight_ep = NULL;
}

/* Fails what waits for a failed peer: its backlog, what is in flight with it, the receives
 * posted for it. Run by ibex_progress (a hook while an endpoint is due), never inside a send. */
static void ep_fail_now(ibex_ep_t *ep)
{
    ibex_status_t why = ep->fail_status;
    while (ep->pending_head) {
        ibex_pending_t *p = ep->pending_head;
        ep->pending_head = p->next;
        if (p->req && !p->req->complete)
            ibex_req_complete(p->req, why);
        p->next = pending_free;
        pending_free = p;
    }
    if (ep->pending_tail)
        eps_backlogged--;
    ep->pending_tail = NULL;
    while (ep->inflight)
        ibex_proto_req_fail(ep->inflight, why); /* unlinks it */
    ibex_proto_fail_posted(ep->world_rank, why);
}

static int ep_fail_drain(void)
{
    int n = 0;
    ibex_progress_hook_remove(ep_fail_drain);
    for (int i = 0; i < ibex_ep_table_size; i++)
        if (ibex_ep_table[i].fail_due) {
            ibex_ep_table[i].fail_due = false;
            ep_fail_now(&ibex_ep_table[i]);
            n++;
        }
    return n;
}

/* Only the mark, at once: a transport says a peer is gone from inside a send as well as from
 * its progress (a full queue to a process that exited, a post on a broken connection), and the
 * send path on the stack still owns its request and completes it with the error the send
 * returns. Failing the backlog and what is in flight here completed that request a second time
 * (a blocking send from the backlog to a rank in MPI_Abort asserted in ibex_req_complete), so
 * that waits for the next progress call (ep_fail_drain). Until then nothing new is sent to the
 * peer (ep_flush, ibex_ep_send_ctl, ibex_ep_queue_req) and receives posted for it fail. */
void ibex_ep_fail(ibex_ep_t *ep, ibex_status_t why)
{
    ibex_ep_failed_count += !ep->failed; /* receives from MPI_ANY_SOURCE check (peer_fail.c) */
    ep->failed = true;
    ep->fail_status = why;
    ep->fail_due = true;
    if (ibex_progress_hook_add(ep_fail_drain) != IBEX_OK)
        ibex_error(PROTO, "no progress hook left to fail the communication with rank %d",
                   ep->world_rank);
}

bool ibex_ep_node_memory(void)
{
    for (int i = 0; i < tl_count; i++)
        if (tl_insts[i].comp->flags & IBEX_TL_COMP_NODE_MEMORY)
            return true;
    return false;
}

bool ibex_ep_busy(void)
{
    if (eps_backlogged > 0)
        return true;
    for (int i = 0; i < ibex_ep_table_size; i++)
        if (ibex_ep_table[i].inflight)
            return true;
    return false;
}

static ibex_progress_hook_t progress_hooks[IBEX_PROGRESS_HOOKS];
static int progress_hook_count;

ibex_status_t ibex_progress_hook_add(ibex_progress_hook_t fn)
{
    for (int i = 0; i < progress_hook_count; i++)
        if (progress_hooks[i] == fn)
            return IBEX_OK;
    if (progress_hook_count == IBEX_PROGRESS_HOOKS)
        return IBEX_ERR_AGAIN;
    progress_hooks[progress_hook_count++] = fn;
    return IBEX_OK;
}

void ibex_progress_hook_remove(ibex_progress_hook_t fn)
{
    for (int i = 0; i < progress_hook_count; i++)
        if (progress_hooks[i] == fn) {
            progress_hooks[i] = progress_hooks[--progress_hook_count];
            return;
        }
}

static int progress_hooks_run(void)
{
    int n = 0;
    for (int i = 0; i < progress_hook_count; i++)
        n += progress_hooks[i]();
    return n;
}

/* The rare parts of a progress call, out of line so that a poll of the transports alone saves
 * no registers for them. */
static __attribute__((noinline)) int progress_rest(void)
{
    int n = 0;
    if (eps_backlogged)
        n += ibex_ep_progress_pending();
    /* active-message handlers run here, outside every transport callback (ibex_am.h) */
    if (ibex_am_work)
        n += ibex_am_progress();
    return progress_hook_count == 0 ? n : n + progress_hooks_run();
}

/* The progress engine's one loop: every open transport, then the backlogs, then the hooks of
 * the layers above (none unless a non-blocking collective is under way). Here, next to the
 * transport table, because every wait spins on it. The loopback transport has nothing to deliver
 * unless this process sent to itself, so an idle poll skips it. */
int ibex_progress(void)
{
    int n = 0;
    for (int i = 0; i < tl_count; i++) {
        ibex_tl_inst_t *inst = &tl_insts[i];
        if (inst->loopback && inst->queued == 0)
            continue;
        int k = inst->comp->ops.progress(inst->tl);
        if (inst->loopback)
            inst->queued -= k;
        n += k;
    }
    if (__builtin_expect((eps_backlogged | ibex_am_work | progress_hook_count) == 0, 1))
        return n;
    return n + progress_rest();
}
