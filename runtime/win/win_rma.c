/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The origin side of Put, Get, Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap and
 * their request forms: checks (epoch, type signatures, op, range) before anything goes on the
 * wire, then the shared mapping, cross-memory attach, the network direct path (win_rdma.c) or
 * one request to the target's port (win_wire.h). The origin's data is packed into
 * the request, so every operation is locally complete once started except those that return
 * data, which complete when their reply has been unpacked into the origin's buffer.
 */
#define _GNU_SOURCE /* process_vm_readv / writev */
#include <sched.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "ibex_log.h"
#include "ibex_p2p.h"
#include "ibex_request.h"
#include "ibex_win.h"
#include "win_wire.h"

/* A reply the origin waits for. */
/* The replies of an operation sent in pieces (op_am): its request completes with the last. */
typedef struct win_pieces {
    ibex_req_t *user_req;
    int left;
    ibex_status_t st;
} win_pieces_t;

typedef struct win_wait {
    ibex_win_t *win;
    int target;
    ibex_req_t *user_req;
    win_pieces_t *pieces; /* or NULL */
    int value;            /* the int of a control reply */
} win_wait_t;

static void pieces_done(win_pieces_t *g, ibex_status_t st)
{
    if (st != IBEX_OK)
        g->st = st;
    if (--g->left > 0)
        return;
    if (g->user_req)
        ibex_req_complete(g->user_req, g->st);
    free(g);
}

static void reply_done(void *arg, ibex_status_t st)
{
    win_wait_t *w = arg;
    if (st != IBEX_OK)
        ibex_error(CORE, "window: reply from rank %d failed: %s", w->target, ibex_status_str(st));
    w->win->pending[w->target]--;
    w->win->outstanding--;
    if (w->pieces)
        pieces_done(w->pieces, st);
    else if (w->user_req)
        ibex_req_complete(w->user_req, st);
    free(w);
}

/* Posts the receive of a reply into (buf, count, dt) and returns its tag (or -1). */
static int reply_expect(ibex_win_t *win, int target, void *buf, int count, ibex_dt_t *dt,
                        ibex_req_t *user_req, win_pieces_t *pieces)
{
    win_wait_t *w = calloc(1, sizeof(*w));
    if (!w)
        return -1;
    *w = (win_wait_t){.win = win, .target = target, .user_req = user_req, .pieces = pieces};
    int tag = ibex_am_tag(win->port);
    if (!buf) {
        buf = &w->value;
        count = (int)sizeof(int);
        dt = ibex_dt_get(MPI_BYTE);
    }
    if (ibex_am_recv(win->port, buf, count, dt, target, tag, reply_done, w) != IBEX_OK) {
        free(w);
        return -1;
    }
    win->pending[target]++;
    win->outstanding++;
    return tag;
}

ibex_status_t ibex_win_ctl(ibex_win_t *win, int type, int rank, int lock_type)
{
    win_hdr_t h = {.type = (uint8_t)type, .lock_type = (uint8_t)lock_type};
    if (type != WIN_POST && type != WIN_COMPLETE) {
        h.tag = reply_expect(win, rank, NULL, 0, NULL, NULL, NULL);
        if (h.tag < 0)
            return IBEX_ERR_NO_MEMORY;
    }
    return ibex_am_send(win->port, rank, &h, sizeof(h), NULL, 0);
}

static bool access_ok(const ibex_win_t *win, int t)
{
    if (win->epoch & (IBEX_WIN_EPOCH_FENCE | IBEX_WIN_EPOCH_LOCK_ALL))
        return true;
    if (win->locked[t])
        return true;
    if ((win->epoch & IBEX_WIN_EPOCH_START) && win->start_group) {
        int w = ibex_comm_world_rank(win->comm, t);
        for (int i = 0; i < win->start_group->size; i++)
            if (win->start_group->world_ranks[i] == w)
                return true;
    }
    return false;
}

/* The byte range [lo, hi) of the target layout, from the displacement. */
static void target_span(const ibex_win_t *win, const ibex_win_op_t *op, int64_t *lo, int64_t *hi)
{
    const ibex_dt_t *t = op->tdt;
    int64_t base = win->flavor == MPI_WIN_FLAVOR_DYNAMIC
                       ? (int64_t)op->disp
                       : (int64_t)op->disp * win->disp_units[op->target];
    int64_t span = (int64_t)(op->tcount - 1) * t->extent;
    *lo = base + t->true_lb + (span < 0 ? span : 0);
    *hi = base + t->true_lb + t->true_extent + (span > 0 ? span : 0);
}

static bool regions_cover(ibex_win_region_t *r, int n, int64_t lo, int64_t hi)
{
    for (int i = 0; i < n; i++)
        if (lo >= (int64_t)r[i].base && hi <= (int64_t)(r[i].base + r[i].len))
            return true;
    return false;
}

/* Fetches target t's attached regions into the cache (a round trip). */
static ibex_status_t regions_fetch(ibex_win_t *win, int t)
{
    ibex_win_region_t *r = malloc(WIN_REGIONS_MAX * sizeof(*r));
    ibex_req_t *req;
    if (!r)
        return IBEX_ERR_NO_MEMORY;
    int tag = ibex_am_tag(win->port);
    ibex_status_t st = ibex_p2p_irecv(r, (int)(WIN_REGIONS_MAX * sizeof(*r)), ibex_dt_get(MPI_BYTE),
                                      t, tag, win->comm, false, &req);
    win_hdr_t h = {.type = WIN_REGIONS, .tag = tag};
    if (st == IBEX_OK)
        st = ibex_am_send(win->port, t, &h, sizeof(h), NULL, 0);
    MPI_Status status;
    if (st == IBEX_OK)
        st = ibex_p2p_wait(req, &status);
    if (st != IBEX_OK) {
        free(r);
        return st;
    }
    free(win->rcache[t]);
    win->rcache[t] = r;
    win->rcache_n[t] = (int)(status.ibex_count / (MPI_Count)sizeof(*r));
    return IBEX_OK;
}

static int range_check(ibex_win_t *win, const ibex_win_op_t *op, char *msg, size_t len)
{
    int64_t lo, hi;
    int t = op->target;
    target_span(win, op, &lo, &hi);
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        if (lo >= 0 && hi <= (int64_t)win->sizes[t])
            return MPI_SUCCESS;
        snprintf(msg, len, "access to bytes [%lld, %lld) of rank %d's window, which has %lld bytes",
                 (long long)lo, (long long)hi, t, (long long)win->sizes[t]);
        return MPI_ERR_RMA_RANGE;
    }
    if (regions_cover(win->rcache[t], win->rcache_n[t], lo, hi))
        return MPI_SUCCESS;
    /* on the direct paths the origin reads the target's table itself (win_dyn.c) */
    bool own = win->cma || win->rdma;
    if ((own ? ibex_win_dyn_fetch(win, t) : regions_fetch(win, t)) != IBEX_OK) {
        snprintf(msg, len, "cannot fetch the attached regions of rank %d", t);
        return MPI_ERR_OTHER;
    }
    if (regions_cover(win->rcache[t], win->rcache_n[t], lo, hi))
        return MPI_SUCCESS;
    snprintf(msg, len, "address range [0x%llx, 0x%llx) is not attached to rank %d's dynamic window",
             (unsigned long long)lo, (unsigned long long)hi, t);
    return MPI_ERR_RMA_RANGE;
}

static size_t dt_bytes(const ibex_dt_t *dt, MPI_Count count)
{
    return (size_t)count * dt->size;
}

/* ACC / GACC / CAS: predefined op defined on one predefined element type on every side. */
/* The predefined type an accumulate computes on. MPI_CHAR is not among MPI's integer types
 * for reductions, but OSU's osu_acc_latency and osu_get_acc_latency accumulate MPI_CHAR with
 * MPI_SUM and Open MPI and MPICH accept it: computed as the C char it is. */
static int acc_type(const ibex_dt_t *dt)
{
    int bt = ibex_dt_op_type(dt);
    if (bt == MPI_CHAR)
        return CHAR_MIN < 0 ? MPI_SIGNED_CHAR : MPI_UNSIGNED_CHAR;
    return bt;
}

/* Compare_and_swap takes the C and Fortran integer, logical, multi-language and byte types
 * (MPI 4.1, section 12.3.4): exactly those on which BXOR or LXOR is defined. */
static int cas_type_check(int bt, char *msg, size_t len)
{
    _Alignas(16) char a[64] = {0}, b[64] = {0};
    if (ibex_op_apply(ibex_op_get(MPI_BXOR), a, b, 1, bt) == MPI_SUCCESS ||
        ibex_op_apply(ibex_op_get(MPI_LXOR), a, b, 1, bt) == MPI_SUCCESS)
        return MPI_SUCCESS;
    snprintf(msg, len,
             "Compare_and_swap takes an integer, logical, multi-language or byte type, not a "
             "floating-point or complex one");
    return MPI_ERR_TYPE;
}

static int acc_check(const ibex_win_op_t *op, char *msg, size_t len)
{
    int bt = acc_type(op->tdt);
    bool origin_used = op->op_handle != MPI_NO_OP || op->kind == IBEX_WIN_OP_ACC;
    if (bt < 0 || (origin_used && acc_type(op->odt) != bt) ||
        (op->rdt && acc_type(op->rdt) != bt)) {
        snprintf(msg, len,
                 "origin, result and target types must be built of one and the same "
                 "predefined type");
        return MPI_ERR_TYPE;
    }
    if (op->kind == IBEX_WIN_OP_CAS)
        return cas_type_check(bt, msg, len);
    if (op->op_handle == MPI_REPLACE || op->op_handle == MPI_NO_OP)
        return MPI_SUCCESS;
    if (!op->op->predefined) {
        snprintf(msg, len, "user-defined operations are not allowed in one-sided accumulates");
        return MPI_ERR_OP;
    }
    _Alignas(16) char a[64] = {0}, b[64] = {0};
    if (ibex_op_apply(op->op, a, b, 1, bt) != MPI_SUCCESS) {
        snprintf(msg, len, "the operation is not defined on the target's element type");
        return MPI_ERR_OP;
    }
    return MPI_SUCCESS;
}

static int sizes_check(const ibex_win_op_t *op, char *msg, size_t len)
{
    size_t tb = dt_bytes(op->tdt, op->tcount);
    bool origin_used = !(op->kind == IBEX_WIN_OP_GACC && op->op_handle == MPI_NO_OP);
    size_t ob = origin_used ? dt_bytes(op->odt, op->ocount) : tb;
    size_t rb = op->rdt ? dt_bytes(op->rdt, op->rcount) : tb;
    if (ob == tb && rb == tb)
        return MPI_SUCCESS;
    snprintf(msg, len, "type signatures differ: origin %zu bytes, target %zu bytes%s", ob, tb,
             op->rdt ? ", or result" : "");
    return MPI_ERR_TYPE;
}

static const uint8_t op_wire[] = {
    [IBEX_WIN_OP_PUT] = WIN_PUT,   [IBEX_WIN_OP_GET] = WIN_GET, [IBEX_WIN_OP_ACC] = WIN_ACC,
    [IBEX_WIN_OP_GACC] = WIN_GACC, [IBEX_WIN_OP_CAS] = WIN_CAS,
};

/* The request's body: the target layout, then the origin's data (CAS: value, compare). */
/* The request body of target elements [first, first + n) of op (all of them: 0, tcount): the
 * target layout of those elements (h->addr moved to the first; h->bytes their data bytes) and,
 * but for GET and NO_OP, the matching bytes of the origin's packed data. */
static char *op_body_piece(const ibex_win_op_t *op, win_hdr_t *h, MPI_Count first, MPI_Count n,
                           size_t *len_p)
{
    const ibex_dt_t *t = op->tdt;
    bool contig = ibex_dt_is_contig(t, op->tcount);
    h->bytes = dt_bytes(t, n);
    h->addr += (uint64_t)(first * (contig ? (MPI_Count)t->size : (MPI_Count)t->extent));
    ibex_dt_block_t one = {t->true_lb, h->bytes};
    h->nblocks = contig ? 1 : t->nblocks;
    h->tcount = contig ? 1 : n;
    h->extent = contig ? 0 : t->extent;
    bool data = op->kind != IBEX_WIN_OP_GET &&
                !(op->kind == IBEX_WIN_OP_GACC && op->op_handle == MPI_NO_OP);
    size_t blen = (size_t)h->nblocks * sizeof(ibex_dt_block_t);
    size_t len = blen + (data ? h->bytes : 0) + (op->kind == IBEX_WIN_OP_CAS ? h->bytes : 0);
    char *body = malloc(len ? len : 1);
    if (!body)
        return NULL;
    memcpy(body, contig ? &one : t->blocks, blen);
    if (data)
        ibex_dt_pack(op->origin, op->ocount, op->odt, dt_bytes(t, first), body + blen, h->bytes);
    if (op->kind == IBEX_WIN_OP_CAS)
        memcpy(body + blen + h->bytes, op->compare, h->bytes);
    *len_p = len;
    return body;
}

static char *op_body(const ibex_win_op_t *op, win_hdr_t *h, size_t *len_p)
{
    return op_body_piece(op, h, 0, op->tcount, len_p);
}

/* The accumulate lock of a target on the shared segment: held for one accumulate only. */
static void acc_lock(uint32_t *word)
{
    for (int spins = 0; __atomic_exchange_n(word, 1, __ATOMIC_ACQUIRE); spins++)
        if (spins > 64) /* its holder may have no core: let it run */
            sched_yield();
}

static void acc_unlock(uint32_t *word)
{
    __atomic_store_n(word, 0, __ATOMIC_RELEASE);
}

static bool op_is_acc(const ibex_win_op_t *op)
{
    return op->kind == IBEX_WIN_OP_ACC || op->kind == IBEX_WIN_OP_GACC ||
           op->kind == IBEX_WIN_OP_CAS;
}

/* A contiguous put or get on the shared segment: one memcpy. */
static bool op_direct_copy(ibex_win_t *win, const ibex_win_op_t *op, const win_hdr_t *h)
{
    if (op->kind != IBEX_WIN_OP_PUT && op->kind != IBEX_WIN_OP_GET)
        return false;
    if (!ibex_dt_is_contig(op->odt, op->ocount) || !ibex_dt_is_contig(op->tdt, op->tcount))
        return false;
    char *t = (char *)win->seg + win->seg_offs[op->target] + h->addr + op->tdt->true_lb;
    char *o = (char *)op->origin + op->odt->true_lb;
    if (op->kind == IBEX_WIN_OP_PUT)
        memcpy(t, o, h->bytes);
    else
        memcpy(o, t, h->bytes);
    return true;
}

typedef struct cpu_ctx {
    char *base;
    const win_hdr_t *h;
    const uint64_t *data; /* the origin's values (CAS: value then compare) */
    uint64_t *old;
} cpu_ctx_t;

/* One 8-byte element by a CPU atomic on the shared mapping (ibex_win_atomic_kind): what remote
 * atomics do (win_rdma.c), with exchange for REPLACE. */
static int elem_cpu(void *arg, uint64_t disp, size_t i)
{
    cpu_ctx_t *c = arg;
    uint64_t *p = (uint64_t *)(void *)(c->base + disp), old;
    if (c->h->type == WIN_CAS) {
        old = c->data[1];
        __atomic_compare_exchange_n(p, &old, c->data[0], false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    } else if (c->h->op == MPI_NO_OP) {
        old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    } else if (ibex_win_elem_fadd(c->h)) {
        old = __atomic_fetch_add(p, c->data[i], __ATOMIC_SEQ_CST);
    } else if (c->h->op == MPI_REPLACE) {
        old = __atomic_exchange_n(p, c->data[i], __ATOMIC_SEQ_CST);
    } else {
        old = __atomic_load_n(p, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(p, &old, ibex_win_elem_new(c->h, old, c->data[i]),
                                            false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
            ;
    }
    if (c->old)
        c->old[i] = old;
    return 0;
}

/* Applies an accumulate on the shared mapping: on 8-byte basic types by CPU atomics, element by
 * element (each basic type always one way, like the remote atomics of win_rdma.c), the others
 * under the target's accumulate lock word. */
static void direct_acc(ibex_win_t *win, const ibex_win_op_t *op, const win_hdr_t *h,
                       const char *body, char *out)
{
    int t = op->target;
    char *part = (char *)win->seg + win->seg_offs[t];
    if (ibex_win_atomic_kind(op) && ibex_win_elems_aligned(h, body, (uint64_t)(uintptr_t)part)) {
        size_t blen = (size_t)h->nblocks * sizeof(ibex_dt_block_t);
        cpu_ctx_t c = {part + h->addr, h, (const uint64_t *)(const void *)(body + blen),
                       (uint64_t *)(void *)out};
        ibex_win_elems(h, body, elem_cpu, &c);
        return;
    }
    acc_lock(&win->ctrl[t].acc);
    ibex_win_apply(h, part + h->addr, body, out);
    acc_unlock(&win->ctrl[t].acc);
}

/* Every operation on the shared segment is done here by this CPU: no target action, complete
 * (locally and at the target) on return. Accumulates are atomic with each other (the one
 * atomicity domain of this window): by CPU atomics or under the accumulate lock. */
static int op_direct(ibex_win_t *win, const ibex_win_op_t *op, win_hdr_t *h, char *body)
{
    int t = op->target;
    char *base = (char *)win->seg + win->seg_offs[t] + h->addr;
    bool result = op->kind != IBEX_WIN_OP_PUT && op->kind != IBEX_WIN_OP_ACC;
    char *out = result ? malloc(h->bytes) : NULL;
    if (result && !out) {
        free(body);
        return MPI_ERR_NO_MEM;
    }
    if (op_is_acc(op))
        direct_acc(win, op, h, body, out);
    else
        ibex_win_apply(h, base, body, out);
    if (out) {
        bool get = op->kind == IBEX_WIN_OP_GET;
        ibex_dt_unpack(op->result, get ? op->ocount : op->rcount, get ? op->odt : op->rdt, 0, out,
                       h->bytes);
        free(out);
    }
    free(body);
    return MPI_SUCCESS;
}

/* One process_vm_writev / readv of chunk bytes at buf to / from the n blocks rv, resumed
 * after a partial transfer (the kernel moves at most about 2 GiB per call). */
static bool cma_rw(pid_t pid, char *buf, size_t chunk, struct iovec *rv, int n, bool write)
{
    int i = 0;
    while (chunk > 0) {
        struct iovec lv = {buf, chunk};
        ssize_t got = write ? process_vm_writev(pid, &lv, 1, rv + i, (unsigned long)(n - i), 0)
                            : process_vm_readv(pid, &lv, 1, rv + i, (unsigned long)(n - i), 0);
        if (got <= 0)
            return false;
        buf += got;
        chunk -= (size_t)got;
        for (size_t left = (size_t)got; left > 0 && i < n;) {
            size_t take = left < rv[i].iov_len ? left : rv[i].iov_len;
            rv[i].iov_base = (char *)rv[i].iov_base + take;
            rv[i].iov_len -= take;
            left -= take;
            if (rv[i].iov_len == 0)
                i++;
        }
    }
    return true;
}

/* Cross-memory attach of the target layout of h (blocks in body) in target t, to or from the
 * packed stream in buf. */
static bool cma_move(ibex_win_t *win, int t, const win_hdr_t *h, const char *body, char *buf,
                     bool write)
{
    const ibex_dt_block_t *b = (const ibex_dt_block_t *)body;
    struct iovec rv[64];
    int n = 0;
    uint64_t base = win->bases[t] + h->addr;
    size_t chunk = 0;
    for (int64_t k = 0; k < h->tcount; k++)
        for (int i = 0; i < h->nblocks; i++) {
            if (b[i].len == 0)
                continue;
            rv[n].iov_base = (void *)(uintptr_t)(base + k * h->extent + b[i].disp);
            rv[n++].iov_len = b[i].len;
            chunk += b[i].len;
            bool last = k == h->tcount - 1 && i == h->nblocks - 1;
            if (n < 64 && !last)
                continue;
            if (!cma_rw(win->pids[t], buf, chunk, rv, n, write)) {
                ibex_error(CORE, "window: cross-memory attach to rank %d failed: %m", t);
                return false;
            }
            buf += chunk;
            chunk = 0;
            n = 0;
        }
    return true;
}

/* MPI_Win_create memory on this node, by cross-memory attach: no target CPU. Accumulates are
 * read, computed here and written back under the target's accumulate lock word (the window's
 * one atomicity domain: every accumulate to it goes this way). */
static int op_cma(ibex_win_t *win, const ibex_win_op_t *op, win_hdr_t *h, char *body)
{
    int t = op->target;
    const char *data = body + (size_t)h->nblocks * sizeof(ibex_dt_block_t);
    bool ok = true;
    char *cur = op->kind == IBEX_WIN_OP_PUT ? NULL : malloc(h->bytes);
    char *old =
        op->kind == IBEX_WIN_OP_GACC || op->kind == IBEX_WIN_OP_CAS ? malloc(h->bytes) : NULL;
    if ((op->kind != IBEX_WIN_OP_PUT && !cur) || (old == NULL && op->rdt)) {
        free(cur);
        free(body);
        return MPI_ERR_NO_MEM;
    }
    if (op_is_acc(op))
        acc_lock(&win->ctrl[t].acc);
    if (op->kind == IBEX_WIN_OP_PUT) {
        ok = cma_move(win, t, h, body, (char *)data, true);
    } else {
        ok = cma_move(win, t, h, body, cur, false);
        if (ok && old)
            memcpy(old, cur, h->bytes);
        if (ok && op_is_acc(op) && !(h->type == WIN_GACC && h->op == MPI_NO_OP)) {
            ibex_win_acc_packed(h, data, cur);
            ok = cma_move(win, t, h, body, cur, true);
        }
    }
    if (op_is_acc(op))
        acc_unlock(&win->ctrl[t].acc);
    if (ok && op->kind == IBEX_WIN_OP_GET)
        ibex_dt_unpack(op->result, op->ocount, op->odt, 0, cur, h->bytes);
    else if (ok && old)
        ibex_dt_unpack(op->result, op->rcount, op->rdt, 0, old, h->bytes);
    free(cur);
    free(old);
    free(body);
    return ok ? MPI_SUCCESS : MPI_ERR_OTHER;
}

/* The network direct path (win_rdma.c): a contiguous target is one RDMA WRITE / READ, an
 * accumulate goes by remote atomics (element by element, or under the target's accumulate
 * lock); -1 when the operation takes the active-message
 * path instead. */
static int rdma_acc_pieces(ibex_win_t *win, const ibex_win_op_t *op, const win_hdr_t *h);

static int op_rdma(ibex_win_t *win, const ibex_win_op_t *op, win_hdr_t *h, char *msg, size_t len)
{
    int rc;
    if (ibex_win_rdma_copy(win, op, h, &rc)) {
        if (rc != MPI_SUCCESS)
            snprintf(msg, len, "cannot start an rdma transfer with rank %d", op->target);
        win->fence_ops = true;
        return rc;
    }
    if (op->kind != IBEX_WIN_OP_ACC && op->kind != IBEX_WIN_OP_GACC && op->kind != IBEX_WIN_OP_CAS)
        return -1;
    rc = rdma_acc_pieces(win, op, h);
    if (rc == MPI_ERR_NO_MEM)
        snprintf(msg, len, "out of memory");
    else if (rc > 0)
        snprintf(msg, len, "remote atomic at rank %d failed", op->target);
    if (rc == MPI_SUCCESS && op->user_req)
        ibex_req_complete(op->user_req, IBEX_OK);
    win->fence_ops = win->fence_ops || rc == MPI_SUCCESS;
    return rc;
}

/* IBEX_WIN_AM_PIECE within [1, 2^30] (room for the layout beside the data in an int). */
static MPI_Count am_piece_bytes(void)
{
    int v = ibex_win_cfg_am_piece;
    return v < 1 ? 1 : v > (1 << 30) ? (1 << 30) : v;
}

static MPI_Count gcd_count(MPI_Count a, MPI_Count b)
{
    while (b) {
        MPI_Count r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Where the reply of a piece whose data starts at byte off of the packed stream lands:
 * (buf, count, dt) of the origin's (GET) or result (GACC, CAS) buffer. A contiguous buffer
 * takes any byte range; a non-contiguous one whole elements of its type (piece_elems keeps
 * every piece boundary on one). */
typedef struct win_reply_to {
    char *buf;
    MPI_Count count;
    ibex_dt_t *dt;
} win_reply_to_t;

static win_reply_to_t reply_to(const ibex_win_op_t *op, size_t off, size_t bytes)
{
    ibex_dt_t *rdt = op->kind == IBEX_WIN_OP_GET ? op->odt : op->rdt;
    MPI_Count rcount = op->kind == IBEX_WIN_OP_GET ? op->ocount : op->rcount;
    char *buf = op->result;
    if (off == 0 && bytes == dt_bytes(rdt, rcount))
        return (win_reply_to_t){buf, rcount, rdt};
    if (ibex_dt_is_contig(rdt, rcount))
        return (win_reply_to_t){buf + rdt->true_lb + off, (MPI_Count)bytes, ibex_dt_get(MPI_BYTE)};
    return (win_reply_to_t){buf + (MPI_Count)(off / rdt->size) * rdt->extent,
                            (MPI_Count)(bytes / rdt->size), rdt};
}

/* Target elements per piece of an operation: at most cap data bytes (active messages:
 * ibex_win_cfg_am_piece (the port's bodies and receives count in int), a multiple of the reply
 * buffer's element when that is not contiguous; 0 when no such piece exists. */
static MPI_Count piece_elems(const ibex_win_op_t *op, MPI_Count cap)
{
    MPI_Count ts = (MPI_Count)op->tdt->size, k = cap / ts;
    bool reply = op->kind != IBEX_WIN_OP_PUT && op->kind != IBEX_WIN_OP_ACC;
    ibex_dt_t *rdt = op->kind == IBEX_WIN_OP_GET ? op->odt : op->rdt;
    MPI_Count rcount = op->kind == IBEX_WIN_OP_GET ? op->ocount : op->rcount;
    if (reply && !ibex_dt_is_contig(rdt, rcount)) {
        MPI_Count q = (MPI_Count)rdt->size / gcd_count(ts, (MPI_Count)rdt->size);
        k -= k % q;
    }
    return k;
}

/* An accumulate on the network direct path, in pieces of whole target elements of at most
 * IBEX_WIN_RDMA_PIECE data bytes (one piece when no such piece exists): each piece's packed
 * data, the target's old contents and the fetched copy are piece-sized, so one operation's
 * memory is bounded whatever its count. Each element is still applied whole and atomically
 * (MPI's atomicity is per basic element); complete on return. */
static int rdma_acc_pieces(ibex_win_t *win, const ibex_win_op_t *op, const win_hdr_t *h)
{
    MPI_Count n = op->tcount, k = n;
    if (h->bytes > (uint64_t)ibex_win_cfg_rdma_piece && ibex_win_cfg_rdma_piece > 0)
        k = piece_elems(op, (MPI_Count)ibex_win_cfg_rdma_piece);
    k = k > 0 ? k : n;
    bool fetch = op->kind != IBEX_WIN_OP_ACC;
    int rc = MPI_SUCCESS;
    for (MPI_Count first = 0; first < n && rc == MPI_SUCCESS; first += k) {
        win_hdr_t ph = *h;
        ibex_win_op_t p = *op;
        size_t blen;
        p.tcount = n - first < k ? n - first : k;
        char *body = op_body_piece(op, &ph, first, p.tcount, &blen);
        if (!body)
            return MPI_ERR_NO_MEM;
        if (fetch) {
            win_reply_to_t r = reply_to(op, dt_bytes(op->tdt, first), ph.bytes);
            p.result = r.buf;
            p.rcount = r.count;
            p.rdt = r.dt;
        }
        rc = ibex_win_rdma_acc(win, &p, &ph, body);
        free(body);
    }
    return rc;
}

/* One request of target elements [first, first + n) to the target's port (its reply posted
 * first, counted in pieces when there are several). */
static int am_piece(ibex_win_t *win, const ibex_win_op_t *op, win_hdr_t h, MPI_Count first,
                    MPI_Count n, win_pieces_t *pieces, char *msg, size_t len, int *posted)
{
    size_t blen;
    char *body = op_body_piece(op, &h, first, n, &blen);
    if (!body) {
        snprintf(msg, len, "out of memory");
        return MPI_ERR_NO_MEM;
    }
    if (op->kind != IBEX_WIN_OP_PUT && op->kind != IBEX_WIN_OP_ACC) {
        win_reply_to_t r = reply_to(op, dt_bytes(op->tdt, first), h.bytes);
        h.tag = reply_expect(win, op->target, r.buf, (int)r.count, r.dt,
                             pieces ? NULL : op->user_req, pieces);
        if (h.tag < 0) {
            free(body);
            snprintf(msg, len, "out of memory");
            return MPI_ERR_NO_MEM;
        }
        (*posted)++;
    }
    ibex_status_t st = ibex_am_send(win->port, op->target, &h, sizeof(h), body, blen);
    if (st != IBEX_OK) {
        snprintf(msg, len, "cannot send to rank %d: %s", op->target, ibex_status_str(st));
        return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}

/* The active-message path: one request, or past ibex_win_cfg_am_piece data bytes one per
 * piece of whole target elements (each element is applied whole, and requests from one origin
 * are applied in order: the same result and atomicity as one request). An Rget / Rget_accumulate
 * request completes with the last reply; puts and accumulates are locally complete at once. */
static int op_am(ibex_win_t *win, const ibex_win_op_t *op, win_hdr_t *h, char *msg, size_t len)
{
    bool reply = op->kind != IBEX_WIN_OP_PUT && op->kind != IBEX_WIN_OP_ACC;
    MPI_Count n = op->tcount, k = n;
    win_pieces_t *pieces = NULL;
    if (h->bytes > (uint64_t)am_piece_bytes()) {
        k = piece_elems(op, am_piece_bytes());
        if (k <= 0) {
            snprintf(msg, len,
                     "%llu bytes to rank %d: a piece of whole elements of the target type (%zu "
                     "bytes) and of the reply's type does not fit the active-message path's %d "
                     "bytes",
                     (unsigned long long)h->bytes, op->target, (size_t)op->tdt->size,
                     (int)am_piece_bytes());
            return MPI_ERR_COUNT;
        }
        if (reply && !(pieces = calloc(1, sizeof(*pieces)))) {
            snprintf(msg, len, "out of memory");
            return MPI_ERR_NO_MEM;
        }
        if (pieces)
            *pieces = (win_pieces_t){op->user_req, (int)((n + k - 1) / k) + 1, IBEX_OK};
    }
    int rc = MPI_SUCCESS, posted = 0, npieces = (int)((n + k - 1) / k);
    for (MPI_Count first = 0; first < n && rc == MPI_SUCCESS; first += k)
        rc = am_piece(win, op, *h, first, n - first < k ? n - first : k, pieces, msg, len, &posted);
    if (pieces) { /* the sender's own count and the pieces never posted (after an error) */
        pieces->left -= npieces - posted;
        if (rc != MPI_SUCCESS) /* the caller releases the request of a failed call */
            pieces->user_req = NULL;
        pieces_done(pieces, rc == MPI_SUCCESS ? IBEX_OK : IBEX_ERR_INTERNAL);
    } else if (!reply && op->user_req)
        ibex_req_complete(op->user_req, IBEX_OK);
    win->touched[op->target] = true;
    win->fence_ops = true;
    if (ibex_win_cfg_am_poll) /* the handshakes of replies and of requests waiting for room */
        ibex_progress();
    return rc;
}

static int op_send(ibex_win_t *win, const ibex_win_op_t *op, char *msg, size_t len)
{
    win_hdr_t h = {.type = op_wire[op->kind],
                   .op = op->op_handle,
                   .basic = acc_type(op->tdt),
                   .bytes = dt_bytes(op->tdt, op->tcount)};
    h.addr = win->flavor == MPI_WIN_FLAVOR_DYNAMIC
                 ? (uint64_t)op->disp
                 : (uint64_t)(op->disp * win->disp_units[op->target]);
    if (win->direct && op_direct_copy(win, op, &h)) {
        if (op->user_req)
            ibex_req_complete(op->user_req, IBEX_OK);
        return MPI_SUCCESS;
    }
    int rrc = win->rdma ? op_rdma(win, op, &h, msg, len) : -1;
    if (rrc >= 0)
        return rrc;
    if (!win->direct && !win->cma)
        return op_am(win, op, &h, msg, len);
    size_t blen;
    char *body = op_body(op, &h, &blen);
    if (!body) {
        snprintf(msg, len, "out of memory");
        return MPI_ERR_NO_MEM;
    }
    int rc = win->direct ? op_direct(win, op, &h, body) : op_cma(win, op, &h, body);
    if (rc != MPI_SUCCESS)
        snprintf(msg, len,
                 rc == MPI_ERR_NO_MEM ? "out of memory" : "cross-memory attach to rank %d failed",
                 op->target);
    else if (op->user_req)
        ibex_req_complete(op->user_req, IBEX_OK);
    return rc;
}

/* The latency-bound case: a put / get with both types contiguous, in an open epoch, in range,
 * on the shared mapping (one memcpy) or on the network direct path of a created or allocated
 * window (one RDMA WRITE / READ): the checks such an operation needs, no request header, no
 * element type, no second round of the general checks. fast_ok: those checks (the epoch test
 * is access_ok's first two; a start group goes the general way), giving the bytes and the
 * offset in the target's part. */
static inline bool fast_ok(const ibex_win_t *win, const ibex_win_op_t *op, size_t *bytes_p,
                           int64_t *off_p)
{
    if ((op->kind != IBEX_WIN_OP_PUT && op->kind != IBEX_WIN_OP_GET) ||
        op->target == MPI_PROC_NULL || !op->odt->contiguous || !op->tdt->contiguous)
        return false;
    int t = op->target;
    size_t bytes = dt_bytes(op->tdt, op->tcount);
    int64_t off = (int64_t)op->disp * win->disp_units[t], lo = off + op->tdt->true_lb;
    if (bytes == 0 || bytes != dt_bytes(op->odt, op->ocount) || lo < 0 ||
        (uint64_t)lo + bytes > (uint64_t)win->sizes[t])
        return false;
    if (!(win->epoch & (IBEX_WIN_EPOCH_FENCE | IBEX_WIN_EPOCH_LOCK_ALL)) && !win->locked[t])
        return false;
    *bytes_p = bytes;
    *off_p = off;
    return true;
}

/* Every operation the short path does not take, and every error. */
static __attribute__((noinline)) int op_start(ibex_win_t *win, ibex_win_op_t *op, char *msg,
                                              size_t len)
{
    bool acc =
        op->kind == IBEX_WIN_OP_ACC || op->kind == IBEX_WIN_OP_GACC || op->kind == IBEX_WIN_OP_CAS;
    if (op->target == MPI_PROC_NULL || dt_bytes(op->tdt, op->tcount) == 0) {
        if (op->target != MPI_PROC_NULL && !access_ok(win, op->target))
            goto sync_error;
        if (op->user_req)
            ibex_req_complete(op->user_req, IBEX_OK);
        return MPI_SUCCESS;
    }
    if (!access_ok(win, op->target))
        goto sync_error;
    int rc = sizes_check(op, msg, len);
    if (rc == MPI_SUCCESS && acc)
        rc = acc_check(op, msg, len);
    if (rc == MPI_SUCCESS)
        rc = range_check(win, op, msg, len);
    return rc == MPI_SUCCESS ? op_send(win, op, msg, len) : rc;
sync_error:
    snprintf(msg, len, "no access epoch is open to rank %d (fence, lock, lock_all or start)",
             op->target);
    return MPI_ERR_RMA_SYNC;
}

static int op_start_ratomic(ibex_win_t *win, ibex_win_op_t *op, char *msg, size_t len);

/* Off the shared mapping: the network direct path's short cases, one WRITE / READ of a
 * created or allocated window, or one remote atomic (op_start_ratomic), else the general
 * path; all tail calls (no frame kept). */
static __attribute__((noinline)) int op_start_rdma(ibex_win_t *win, ibex_win_op_t *op, char *msg,
                                                   size_t len)
{
    size_t bytes;
    int64_t off;
    if (!win->rdma || win->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return op_start(win, op, msg, len);
    if (!fast_ok(win, op, &bytes, &off))
        return op_start_ratomic(win, op, msg, len);
    win->fence_ops = true; /* as before the transfer's start, failed or not */
    return ibex_win_rdma_short(win, op, (uint64_t)off, bytes, msg, len);
}

/* A Compare_and_swap type the short path takes: one predefined type on every side, 8 bytes
 * dense, one element each (what MPI_Compare_and_swap gives), of the kinds the general path
 * applies by a CPU atomic on the shared mapping (ibex_win_atomic_kind) and that
 * Compare_and_swap accepts (acc_check). The checks run once per type: the type accepted last
 * is kept in win->cas_type_seen. A message written to msg is the general path's to replace. */
static __attribute__((noinline)) bool cas_type_learn(ibex_win_t *win, const ibex_win_op_t *op,
                                                     char *msg, size_t len)
{
    const ibex_dt_t *dt = op->tdt;
    if (!dt->predefined || dt->size != 8 || dt->true_lb != 0 || !ibex_win_atomic_kind(op) ||
        acc_check(op, msg, len) != MPI_SUCCESS)
        return false;
    win->cas_type_seen = dt;
    return true;
}

static inline bool cas_type_ok(ibex_win_t *win, const ibex_win_op_t *op, char *msg, size_t len)
{
    const ibex_dt_t *dt = op->tdt;
    if (op->odt != dt || op->rdt != dt || op->tcount != 1 || op->ocount != 1 || op->rcount != 1)
        return false;
    return dt == win->cas_type_seen || cas_type_learn(win, op, msg, len);
}

/* The target element of a short-path atomic on the shared mapping (op_start_cas,
 * op_start_fop): a target in an open epoch (fast_ok's test), the 8 bytes in range and 8-byte
 * aligned there; NULL otherwise (the general way). */
static inline uint64_t *short_elem(ibex_win_t *win, const ibex_win_op_t *op)
{
    int t = op->target;
    int64_t off = (int64_t)op->disp * win->disp_units[t];
    if (off < 0 || (uint64_t)off + 8 > (uint64_t)win->sizes[t] ||
        (!(win->epoch & (IBEX_WIN_EPOCH_FENCE | IBEX_WIN_EPOCH_LOCK_ALL)) && !win->locked[t]))
        return NULL;
    char *p = (char *)win->seg + win->seg_offs[t] + off;
    return (uintptr_t)p & 7u ? NULL : (uint64_t *)(void *)p;
}

/* Compare_and_swap's short case on the shared mapping: an accepted 8-byte type (cas_type_ok)
 * on an element short_elem gives. Then what elem_cpu does for that element in the general
 * path (direct_acc), so it stays atomic with every other accumulate of the window (one
 * atomicity domain): one CPU compare-exchange, the old value to the result. Anything else,
 * and every error, goes the general way. */
static __attribute__((noinline)) int op_start_cas(ibex_win_t *win, ibex_win_op_t *op, char *msg,
                                                  size_t len)
{
    uint64_t *p;
    if (op->target == MPI_PROC_NULL || !cas_type_ok(win, op, msg, len) ||
        !(p = short_elem(win, op)))
        return op_start(win, op, msg, len);
    uint64_t old, value;
    memcpy(&old, op->compare, sizeof(old));
    memcpy(&value, op->origin, sizeof(value));
    __atomic_compare_exchange_n(p, &old, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    memcpy(op->result, &old, sizeof(old));
    ibex_win_stats.short_cas++;
    if (op->user_req)
        ibex_req_complete(op->user_req, IBEX_OK);
    return MPI_SUCCESS;
}

/* How elem_cpu applies one element of an accepted (type, op) pair, in its order. */
typedef enum { FOP_LOAD, FOP_FADD, FOP_XCHG, FOP_LOOP } fop_how_t;

/* A Fetch_and_op / Accumulate pair the short path takes: one predefined type on every side, 8
 * bytes dense, one element each, of the kinds the general path applies by a CPU atomic on the
 * shared mapping (ibex_win_atomic_kind) with an op acc_check accepts. The checks run once per
 * pair: the pair accepted last is kept in win->fop_seen with elem_cpu's choice for it (the
 * same tests on the header the general path builds). A message written to msg is the general
 * path's to replace. */
static __attribute__((noinline)) bool fop_type_learn(ibex_win_t *win, const ibex_win_op_t *op,
                                                     char *msg, size_t len)
{
    const ibex_dt_t *dt = op->tdt;
    if (!dt->predefined || dt->size != 8 || dt->true_lb != 0 || !ibex_win_atomic_kind(op) ||
        acc_check(op, msg, len) != MPI_SUCCESS)
        return false;
    win_hdr_t h = {.type = op_wire[op->kind], .op = op->op_handle, .basic = acc_type(dt)};
    const ibex_dt_t *basic = ibex_dt_get(h.basic);
    if (!basic)
        return false;
    win->fop_seen.how = h.op == MPI_NO_OP        ? FOP_LOAD
                        : ibex_win_elem_fadd(&h) ? FOP_FADD
                        : h.op == MPI_REPLACE    ? FOP_XCHG
                                                 : FOP_LOOP;
    win->fop_seen.basic = basic;
    win->fop_seen.op = op->op_handle;
    win->fop_seen.type = dt;
    return true;
}

static inline bool fop_type_ok(ibex_win_t *win, const ibex_win_op_t *op, char *msg, size_t len)
{
    const ibex_dt_t *dt = op->tdt;
    if (op->odt != dt || op->tcount != 1 || op->ocount != 1 ||
        (op->kind == IBEX_WIN_OP_GACC && (op->rdt != dt || op->rcount != 1)))
        return false;
    return (dt == win->fop_seen.type && op->op_handle == win->fop_seen.op) ||
           fop_type_learn(win, op, msg, len);
}

/* elem_cpu on one element by the pair's cached choice: the old value. */
static inline uint64_t fop_apply(const ibex_win_t *win, const ibex_win_op_t *op, uint64_t *p,
                                 uint64_t in)
{
    uint64_t old;
    switch (win->fop_seen.how) {
    case FOP_LOAD:
        return __atomic_load_n(p, __ATOMIC_SEQ_CST);
    case FOP_FADD:
        return __atomic_fetch_add(p, in, __ATOMIC_SEQ_CST);
    case FOP_XCHG:
        return __atomic_exchange_n(p, in, __ATOMIC_SEQ_CST);
    default:
        old = __atomic_load_n(p, __ATOMIC_RELAXED);
        for (;;) { /* ibex_win_elem_new: old = in op old */
            uint64_t v = old;
            ibex_op_apply_dt(op->op, &in, &v, 1, win->fop_seen.basic);
            if (__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
                return old;
        }
    }
}

/* Fetch_and_op's (a one-element Get_accumulate's) and a one-element Accumulate's short case on
 * the shared mapping: an accepted pair (fop_type_ok) on an element short_elem gives, then
 * what elem_cpu does for it in the general path (one atomicity domain, as op_start_cas), the
 * old value to the result of a Fetch_and_op. Anything else, and every error, goes the general
 * way. */
static __attribute__((noinline)) int op_start_fop(ibex_win_t *win, ibex_win_op_t *op, char *msg,
                                                  size_t len)
{
    uint64_t *p;
    if (op->target == MPI_PROC_NULL || !fop_type_ok(win, op, msg, len) ||
        !(p = short_elem(win, op)))
        return op_start(win, op, msg, len);
    uint64_t in = 0;
    if (op->op_handle != MPI_NO_OP)
        memcpy(&in, op->origin, sizeof(in));
    uint64_t old = fop_apply(win, op, p, in);
    if (op->kind == IBEX_WIN_OP_GACC) {
        memcpy(op->result, &old, sizeof(old));
        ibex_win_stats.short_fop++;
    } else {
        ibex_win_stats.short_acc++;
    }
    if (op->user_req)
        ibex_req_complete(op->user_req, IBEX_OK);
    return MPI_SUCCESS;
}

/* Compare_and_swap's, Fetch_and_op's (a one-element Get_accumulate's) and a one-element
 * Accumulate's short case on the network direct path of a created or allocated window: an
 * accepted 8-byte type (cas_type_ok) or (type, op) pair (fop_type_ok) whose element the
 * general path updates by the NIC's atomics (ibex_win_rdma_acc's elem_remote), taken here by
 * exactly the atomics it would take there or fewer, so the window keeps its one atomicity
 * domain: CAS one compare-and-swap, SUM on an integer (FOP_FADD) and NO_OP (FOP_LOAD) one
 * fetch-and-add (an Accumulate's result discarded), REPLACE (FOP_XCHG) the compare-and-swap
 * loop (ibex_win_rdma_swap_short); the other ops (a compare-and-swap loop computing the op)
 * go the general way. The element in range in an open fence, lock or lock_all epoch, with no
 * active-message request in flight to the target (which the general path flushes first).
 * win_rdma.c tests the target's alignment (misaligned: the accumulate lock, the general way)
 * and posts the atomic; a posted one's old value reaches the result at completion (flush
 * waits for it). Anything else, and every error, goes the general way unchanged. */
static __attribute__((noinline)) int op_start_ratomic(ibex_win_t *win, ibex_win_op_t *op, char *msg,
                                                      size_t len)
{
    int t = op->target;
    bool cas = op->kind == IBEX_WIN_OP_CAS;
    if (t == MPI_PROC_NULL ||
        !(cas ? cas_type_ok(win, op, msg, len)
              : (op->kind == IBEX_WIN_OP_GACC || op->kind == IBEX_WIN_OP_ACC) &&
                    fop_type_ok(win, op, msg, len) && win->fop_seen.how != FOP_LOOP))
        return op_start(win, op, msg, len);
    int64_t off = (int64_t)op->disp * win->disp_units[t];
    if (off < 0 || (uint64_t)off + 8 > (uint64_t)win->sizes[t] || win->touched[t] ||
        (!(win->epoch & (IBEX_WIN_EPOCH_FENCE | IBEX_WIN_EPOCH_LOCK_ALL)) && !win->locked[t]))
        return op_start(win, op, msg, len);
    int rc = !cas && win->fop_seen.how == FOP_XCHG
                 ? ibex_win_rdma_swap_short(win, op, (uint64_t)off, msg, len)
                 : ibex_win_rdma_atomic_short(win, op, (uint64_t)off, cas, msg, len);
    if (rc < 0)
        return op_start(win, op, msg, len);
    if (rc == MPI_SUCCESS) { /* fence_ops as the general path's op_rdma sets it */
        win->fence_ops = true;
        if (cas)
            ibex_win_stats.short_rcas++;
        else if (op->kind == IBEX_WIN_OP_GACC)
            ibex_win_stats.short_rfop++;
        else
            ibex_win_stats.short_racc++;
    }
    return rc;
}

/* The short paths off put / get on the shared mapping: Compare_and_swap's, and Fetch_and_op's
 * for one-element accumulates; the general path for the rest. */
static inline int op_start_other(ibex_win_t *win, ibex_win_op_t *op, char *msg, size_t len)
{
    if (op->kind == IBEX_WIN_OP_CAS)
        return op_start_cas(win, op, msg, len);
    if (op->kind == IBEX_WIN_OP_GACC || op->kind == IBEX_WIN_OP_ACC)
        return op_start_fop(win, op, msg, len);
    return op_start(win, op, msg, len);
}

/* The shared mapping's short cases, the put / get inline (a tail call to the general path or
 * the atomics' short paths otherwise, so nothing is kept across it), the network direct
 * path's in its own frame. */
int ibex_win_op_start(ibex_win_t *win, ibex_win_op_t *op, char *msg, size_t len)
{
    if (!win->direct)
        return op_start_rdma(win, op, msg, len);
    size_t bytes;
    int64_t off;
    if (!fast_ok(win, op, &bytes, &off))
        return op_start_other(win, op, msg, len);
    char *tp = (char *)win->seg + win->seg_offs[op->target] + off + op->tdt->true_lb;
    char *o = (char *)op->origin + op->odt->true_lb;
    if (op->kind == IBEX_WIN_OP_PUT)
        memcpy(tp, o, bytes);
    else
        memcpy(o, tp, bytes);
    if (op->user_req)
        ibex_req_complete(op->user_req, IBEX_OK);
    return MPI_SUCCESS;
}
