/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The target side: the window port's handler (ibex_am.h calls it from progress, one request at
 * a time, in each origin's order). It applies data requests to the window memory, keeps the
 * lock (a FIFO of waiting requests: a request is granted when nothing incompatible holds the
 * lock and nothing waits before it), and answers flushes once everything before them is done,
 * which is at once, since requests are applied in order as they come.
 */
#include <stdlib.h>
#include <string.h>

#include "ibex_log.h"
#include "ibex_p2p.h"
#include "ibex_request.h"
#include "ibex_win.h"
#include "win_wire.h"

typedef struct win_layout {
    char *base; /* window base + displacement */
    int64_t tcount;
    int64_t extent;
    int nblocks;
    const ibex_dt_block_t *blocks;
} win_layout_t;

static bool region_ok(const ibex_win_t *win, uint64_t lo, uint64_t hi)
{
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return hi <= (uint64_t)win->size;
    for (int i = 0; i < win->nregions; i++)
        if (lo >= win->regions[i].base && hi <= win->regions[i].base + win->regions[i].len)
            return true;
    return false;
}

/* The bytes a layout touches lie inside the window (or one attached region). */
static bool layout_ok(const ibex_win_t *win, const win_hdr_t *h, const win_layout_t *l)
{
    if (h->bytes == 0)
        return true;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int i = 0; i < l->nblocks; i++) {
        if (l->blocks[i].len == 0)
            continue;
        int64_t b = l->blocks[i].disp, e = b + (int64_t)l->blocks[i].len;
        lo = b < lo ? b : lo;
        hi = e > hi ? e : hi;
    }
    if (lo > hi)
        return true;
    int64_t span = (int64_t)(l->tcount - 1) * l->extent;
    int64_t first = (int64_t)h->addr + lo + (span < 0 ? span : 0);
    int64_t last = (int64_t)h->addr + hi + (span > 0 ? span : 0);
    return first >= 0 && region_ok(win, (uint64_t)first, (uint64_t)last);
}

/* Packed stream <-> target layout. */
static void layout_copy(const win_layout_t *l, char *packed, bool to_window)
{
    for (int64_t k = 0; k < l->tcount; k++)
        for (int i = 0; i < l->nblocks; i++) {
            char *p = l->base + k * l->extent + l->blocks[i].disp;
            if (to_window)
                memcpy(p, packed, l->blocks[i].len);
            else
                memcpy(packed, p, l->blocks[i].len);
            packed += l->blocks[i].len;
        }
}

static bool layout_contig(const win_layout_t *l)
{
    return l->tcount == 1 && l->nblocks == 1;
}

static void reply(ibex_win_t *win, int src, int tag, void *data, size_t len)
{
    if (ibex_am_reply(win->port, src, tag, data, len) != IBEX_OK)
        ibex_error(CORE, "window: cannot answer rank %d", src);
}

static void reply_int(ibex_win_t *win, int src, int tag, int v)
{
    int *p = malloc(sizeof(int));
    if (p)
        *p = v;
    reply(win, src, tag, p, p ? sizeof(int) : 0);
}

/* in op= cur, elementwise, on packed streams of n elements (n fits in an int) of basic type bdt. */
static void acc_piece(const ibex_op_t *op, ibex_dt_t *bdt, const char *in, char *cur, int n)
{
    size_t bytes = (size_t)n * bdt->size;
    if (bdt->contiguous) {
        ibex_op_apply(op, in, cur, n, bdt->handle);
        return;
    }
    /* padded pairs (MPI_DOUBLE_INT): the op works on arrays laid out by extent */
    char *a = malloc((size_t)n * (size_t)bdt->extent), *b = malloc((size_t)n * (size_t)bdt->extent);
    if (a && b) {
        ibex_dt_unpack(a, n, bdt, 0, in, bytes);
        ibex_dt_unpack(b, n, bdt, 0, cur, bytes);
        ibex_op_apply(op, a, b, n, bdt->handle);
        ibex_dt_pack(b, n, bdt, 0, cur, bytes);
    } else {
        ibex_error(CORE, "window: out of memory for an accumulate of %zu bytes", bytes);
    }
    free(a);
    free(b);
}

/* Elements per piece of an accumulate (the op takes an int count; the _c calls pass more). */
#define ACC_PIECE (1 << 28)

/* in op= cur, elementwise, on packed streams of basic type bdt, bytes long. */
static void acc_apply(const ibex_op_t *op, MPI_Op oph, ibex_dt_t *bdt, const char *in, char *cur,
                      size_t bytes)
{
    if (oph == MPI_NO_OP)
        return;
    if (oph == MPI_REPLACE) {
        memcpy(cur, in, bytes);
        return;
    }
    for (size_t n = bytes / bdt->size, done = 0; done < n;) {
        int k = n - done > ACC_PIECE ? ACC_PIECE : (int)(n - done);
        size_t off = done * bdt->size;
        acc_piece(op, bdt, in + off, cur + off, k);
        done += (size_t)k;
    }
}

/* ACC / GACC / CAS: the old contents into out (GACC / CAS), then the new ones. */
static void apply_acc(const win_hdr_t *h, const win_layout_t *l, const char *data, char *out)
{
    ibex_dt_t *bdt = ibex_dt_get(h->basic);
    const ibex_op_t *op = ibex_op_get(h->op);
    if (!bdt || (h->type != WIN_CAS && !op))
        return;
    if (h->type == WIN_ACC && layout_contig(l) && bdt->contiguous) {
        acc_apply(op, h->op, bdt, data, l->base + l->blocks[0].disp, h->bytes);
        return;
    }
    if (out && h->type == WIN_GACC && h->op == MPI_NO_OP) { /* a read: straight into out */
        layout_copy(l, out, false);
        return;
    }
    char *cur = malloc(h->bytes ? h->bytes : 1);
    if (!cur) {
        ibex_error(CORE, "window: out of memory for an accumulate of %zu bytes", (size_t)h->bytes);
        return;
    }
    layout_copy(l, cur, false);
    if (out)
        memcpy(out, cur, h->bytes);
    if (h->type == WIN_CAS) {
        if (memcmp(cur, data + h->bytes, h->bytes) == 0)
            layout_copy(l, (char *)data, true);
    } else if (h->op != MPI_NO_OP) {
        acc_apply(op, h->op, bdt, data, cur, h->bytes);
        layout_copy(l, cur, true);
    }
    free(cur);
}

void ibex_win_acc_packed(const struct win_hdr *h, const char *data, char *cur)
{
    ibex_dt_t *bdt = ibex_dt_get(h->basic);
    const ibex_op_t *op = ibex_op_get(h->op);
    if (h->type == WIN_CAS) {
        if (memcmp(cur, data + h->bytes, h->bytes) == 0)
            memcpy(cur, data, h->bytes);
    } else if (bdt && op) {
        acc_apply(op, h->op, bdt, data, cur, h->bytes);
    }
}

static size_t data_len(const win_hdr_t *h)
{
    if (h->type == WIN_GET || (h->type == WIN_GACC && h->op == MPI_NO_OP))
        return 0;
    return h->type == WIN_CAS ? 2 * h->bytes : h->bytes;
}

static bool wants_reply(const win_hdr_t *h)
{
    return h->type != WIN_PUT && h->type != WIN_ACC;
}

void ibex_win_apply(const struct win_hdr *h, char *base, const char *body, char *out)
{
    win_layout_t l = {.base = base,
                      .tcount = h->tcount,
                      .extent = h->extent,
                      .nblocks = h->nblocks,
                      .blocks = (const ibex_dt_block_t *)body};
    const char *data = body + (size_t)h->nblocks * sizeof(ibex_dt_block_t);
    if (h->type == WIN_PUT)
        layout_copy(&l, (char *)data, true);
    else if (h->type == WIN_GET)
        layout_copy(&l, out, false);
    else
        apply_acc(h, &l, data, out);
}

/* Releases the direct Get replies that have completed (one walk when the list is full: with
 * many replies in flight, a walk per request would be quadratic in them). */
ibex_win_stats_t ibex_win_stats;

static void rsends_reap(ibex_win_t *win)
{
    int k = 0;
    ibex_win_stats.reply_steps += (unsigned long long)win->nrsends;
    for (int i = 0; i < win->nrsends; i++) {
        if (win->rsends[i]->complete)
            ibex_req_release(win->rsends[i]);
        else
            win->rsends[k++] = win->rsends[i];
    }
    win->nrsends = k;
}

/* The list is full: a walk, and twice the room unless it left half free (so a walk of n
 * entries comes at most once per n / 2 replies). */
static bool rsends_room(ibex_win_t *win)
{
    rsends_reap(win);
    if (2 * win->nrsends < win->rsends_cap)
        return true;
    int cap = win->rsends_cap ? 2 * win->rsends_cap : 16;
    ibex_req_t **r = realloc(win->rsends, (size_t)cap * sizeof(*r));
    if (!r)
        return false;
    win->rsends = r;
    win->rsends_cap = cap;
    return true;
}

void ibex_win_rsends_drain(ibex_win_t *win)
{
    for (int i = 0; i < win->nrsends; i++)
        ibex_p2p_wait(win->rsends[i], NULL);
    win->nrsends = 0;
    free(win->rsends);
    win->rsends = NULL;
    win->rsends_cap = 0;
}

/* A Get of one contiguous run of a created or allocated window: the reply is sent from the
 * window itself (no bounce copy, no malloc of its size), kept until it completes. Memory of a
 * dynamic window may be detached meanwhile: those take the copy. */
static bool reply_direct(ibex_win_t *win, int src, const win_hdr_t *h, const win_layout_t *l)
{
    if (h->type != WIN_GET || !layout_contig(l) || win->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return false;
    if (win->nrsends == win->rsends_cap && !rsends_room(win))
        return false;
    ibex_req_t *req;
    if (ibex_p2p_isend(l->base + l->blocks[0].disp, (MPI_Count)h->bytes, ibex_dt_get(MPI_BYTE), src,
                       h->tag, win->comm, false, &req) != IBEX_OK)
        return false;
    ibex_win_stats.direct_replies++;
    if (req->complete)
        ibex_req_release(req);
    else
        win->rsends[win->nrsends++] = req;
    return true;
}

static void do_data(ibex_win_t *win, int src, const win_hdr_t *h, const char *rest, size_t len)
{
    size_t blen = (size_t)h->nblocks * sizeof(ibex_dt_block_t);
    win_layout_t l = {.base = (char *)win->base + h->addr,
                      .tcount = h->tcount,
                      .extent = h->extent,
                      .nblocks = h->nblocks,
                      .blocks = (const ibex_dt_block_t *)rest};
    if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        l.base = (char *)(uintptr_t)h->addr;
    bool sized = len >= blen && len - blen >= data_len(h);
    if (!sized || !layout_ok(win, h, &l)) {
        ibex_warn(CORE, "window: rank %d accessed outside the window (detached?): dropped", src);
        if (wants_reply(h))
            reply(win, src, h->tag, NULL, 0);
        return;
    }
    if (reply_direct(win, src, h, &l))
        return;
    char *out = NULL;
    if (wants_reply(h) && !(out = malloc(h->bytes ? h->bytes : 1)))
        ibex_error(CORE, "window: out of memory for the answer to rank %d", src);
    if (!wants_reply(h) || out)
        ibex_win_apply(h, l.base, rest, out);
    if (wants_reply(h))
        reply(win, src, h->tag, out, out ? h->bytes : 0);
}

static bool lock_grantable(const ibex_win_t *win, int type)
{
    if (type == MPI_LOCK_EXCLUSIVE)
        return win->lock_excl < 0 && win->lock_shared == 0;
    return win->lock_excl < 0;
}

static void lock_take(ibex_win_t *win, int src, int type, int tag)
{
    if (type == MPI_LOCK_EXCLUSIVE)
        win->lock_excl = src;
    else
        win->lock_shared++;
    reply_int(win, src, tag, 1);
}

static void lock_grant_waiters(ibex_win_t *win)
{
    while (win->waiters && lock_grantable(win, win->waiters->type)) {
        ibex_win_waiter_t *w = win->waiters;
        win->waiters = w->next;
        if (!win->waiters)
            win->waiters_tail = NULL;
        lock_take(win, w->src, w->type, w->tag);
        free(w);
    }
}

static void do_lock(ibex_win_t *win, int src, const win_hdr_t *h)
{
    if (!win->waiters && lock_grantable(win, h->lock_type)) {
        lock_take(win, src, h->lock_type, h->tag);
        return;
    }
    ibex_win_waiter_t *w = malloc(sizeof(*w));
    if (!w) {
        ibex_error(CORE, "window: out of memory for the lock request of rank %d", src);
        return;
    }
    *w = (ibex_win_waiter_t){.src = src, .type = h->lock_type, .tag = h->tag};
    if (win->waiters_tail)
        win->waiters_tail->next = w;
    else
        win->waiters = w;
    win->waiters_tail = w;
}

static void do_unlock(ibex_win_t *win, int src, const win_hdr_t *h)
{
    if (h->lock_type == MPI_LOCK_EXCLUSIVE && win->lock_excl == src)
        win->lock_excl = -1;
    else if (h->lock_type == MPI_LOCK_SHARED && win->lock_shared > 0)
        win->lock_shared--;
    reply_int(win, src, h->tag, 1);
    lock_grant_waiters(win);
}

static void do_regions(ibex_win_t *win, int src, const win_hdr_t *h)
{
    int n = win->nregions < WIN_REGIONS_MAX ? win->nregions : WIN_REGIONS_MAX;
    size_t len = (size_t)n * sizeof(ibex_win_region_t);
    void *out = malloc(len ? len : 1);
    if (out && len)
        memcpy(out, win->regions, len);
    reply(win, src, h->tag, out, out ? len : 0);
}

void ibex_win_handle(void *arg, int src, void *msg, size_t len)
{
    ibex_win_t *win = arg;
    win_hdr_t h;
    if (len < sizeof(h))
        return;
    memcpy(&h, msg, sizeof(h));
    const char *rest = (const char *)msg + sizeof(h);
    len -= sizeof(h);
    switch (h.type) {
    case WIN_PUT:
    case WIN_GET:
    case WIN_ACC:
    case WIN_GACC:
    case WIN_CAS:
        do_data(win, src, &h, rest, len);
        break;
    case WIN_FLUSH:
        reply_int(win, src, h.tag, 1);
        break;
    case WIN_LOCK:
        do_lock(win, src, &h);
        break;
    case WIN_UNLOCK:
        do_unlock(win, src, &h);
        break;
    case WIN_REGIONS:
        do_regions(win, src, &h);
        break;
    case WIN_POST:
        win->post_seen[src]++;
        break;
    case WIN_COMPLETE:
        win->complete_seen++;
        break;
    default:
        ibex_warn(CORE, "window: unknown request %d from rank %d", h.type, src);
    }
}
