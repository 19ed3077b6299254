/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The network direct path of windows (ibex_rma.h): when every member is reached by a transport
 * with RDMA WRITE / READ and remote atomics, the window memory and a lock word per rank
 * are registered once at creation, every rank's (address, key, size) is exchanged, and every
 * member's connection is brought up there (one 8-byte READ of each member's lock word, waited
 * for before the closing barrier), so that no later operation waits for a target's CPU:
 *
 *   contiguous Put / Get ..... one RDMA WRITE / READ (larger: fragments) into the target window
 *   Win_lock / unlock ......... remote atomics on the target's lock word
 *   accumulates on 8-byte types  remote atomics, element by element (fetch-and-add, or a
 *                                compare-and-swap loop)
 *   other accumulates .......... under the target's accumulate lock (a remote atomic on a
 *                                word beside the lock word): READ, compute here, WRITE, release
 *   everything else ........... the active-message path (win_rma.c)
 *
 * Completion: every transfer counts in win->pending[target] until its completion arrives, so
 * flush / unlock / fence / complete, which wait for pending to drain, wait for them.
 *
 * Atomicity: accumulates must be atomic with each other per location and basic type. A
 * location accessed with one basic type always takes one way here (a dense 8-byte type on an
 * 8-byte boundary: the device's atomics; anything else: under the target's accumulate lock),
 * never both; no accumulate needs the target's CPU. Under the lock only the operation's own
 * bytes are written back, so a store of the target's CPU to neighbouring bytes is never undone
 * (a compare-and-swap loop on the enclosing 8-byte word would undo it on a device whose
 * atomics are not atomic against the CPU, IBV_ATOMIC_HCA, softib's kind).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "ibex_blocked_rec.h"
#include "ibex_blocked_win.h"
#include "ibex_log.h"
#include "ibex_dt_ref.h"
#include "ibex_request.h"
#include "ibex_rma.h"
#include "ibex_win.h"
#include "win_wire.h"

#define RKEY_MAX  16
#define CTL_SLOTS 9 /* the lock word, scratch for atomics' old values, the accumulate lock */
#define LOCK_WORD 0
#define SCRATCH   1
/* where a short-path Accumulate's fetch-and-add writes the old value nobody reads (several may
 * be in flight); one of the slots the connection's READs use only during creation */
#define DISCARD    2
#define ACC_WORD   8 /* the target's accumulate lock (rdma_acc_locked) */
#define LOCK_EXCL  (1ull << 62)
#define LOCK_SHARE 1ull

/* What every rank publishes at creation. */
struct win_rkey {
    uint64_t base, ctl;
    uint8_t key[RKEY_MAX], ctl_key[RKEY_MAX];
};

/* One transfer in flight. */
typedef struct rdma_req {
    ibex_tl_comp_t comp; /* first */
    ibex_win_t *win;
    int target;
    /* one of several transfers (a non-contiguous target): the whole they make up, which holds
     * the rest of these fields and is finished by its last transfer */
    struct rdma_req *whole;
    int left;             /* a whole: transfers not complete, + 1 while they are started */
    ibex_status_t status; /* a whole: the first failure */
    ibex_req_t *user_req;
    char *tmp; /* a packed copy of a non-contiguous origin, freed at completion */
    /* a whole: one registration of its local bytes for every run (NULL: each run looks its
     * piece up in the transport's cache); own_mem: taken for this whole, dropped at the end */
    struct ibex_tl_mem *local_mem;
    bool own_mem;
    void *ubuf;
    MPI_Count ucount;
    ibex_dt_t *udt; /* Get into a non-contiguous origin: unpack tmp there */
    size_t bytes;
    volatile int *done; /* a blocking wait: 1 done, 2 failed */
    bool plain;         /* none of the above to do at completion (ibex_win_rdma_short) */
} rdma_req_t;

/* Keeps a finished record for the next transfer (a latency-bound loop allocates none), up to
 * RREQ_KEEP; chained through whole. */
#define RREQ_KEEP 64
static void rdma_req_put(rdma_req_t *r)
{
    ibex_win_t *win = r->win;
    if (win->rreq_nfree >= RREQ_KEEP) {
        free(r);
        return;
    }
    r->whole = win->rreq_free;
    win->rreq_free = r;
    win->rreq_nfree++;
}

/* The operation is complete: unpack a Get's bounce buffer, tell the program's request. */
static void rdma_finish(rdma_req_t *r, ibex_status_t st)
{
    if (r->udt) {
        if (st == IBEX_OK)
            ibex_dt_unpack(r->ubuf, r->ucount, r->udt, 0, r->tmp, r->bytes);
        ibex_dt_release(r->udt);
    }
    if (r->own_mem)
        ibex_rma_mem_dereg(r->win->rma, r->local_mem);
    if (r->tmp)
        free(r->tmp);
    if (r->user_req)
        ibex_req_complete(r->user_req, st);
    if (r->done)
        *r->done = st == IBEX_OK ? 1 : 2;
    rdma_req_put(r);
}

static void whole_drop(rdma_req_t *w, ibex_status_t st)
{
    if (st != IBEX_OK && w->status == IBEX_OK)
        w->status = st;
    if (--w->left == 0)
        rdma_finish(w, w->status);
}

static void rdma_done(ibex_tl_comp_t *c, ibex_status_t st)
{
    rdma_req_t *r = (rdma_req_t *)c;
    ibex_win_t *win = r->win;
    if (__builtin_expect(st == IBEX_OK && r->plain, 1)) { /* the short path's transfer */
        win->pending[r->target]--;
        win->outstanding--;
        rdma_req_put(r);
        return;
    }
    if (st != IBEX_OK)
        ibex_error(CORE, "window: rdma transfer with rank %d failed: %s", r->target,
                   ibex_status_str(st));
    r->win->pending[r->target]--;
    r->win->outstanding--;
    rdma_req_t *w = r->whole;
    if (!w) {
        rdma_finish(r, st);
        return;
    }
    rdma_req_put(r);
    whole_drop(w, st);
}

/* Accounts for a started transfer: IBEX_OK means it finished already. */
static ibex_status_t rdma_started(ibex_win_t *win, rdma_req_t *r, ibex_status_t st)
{
    if (st != IBEX_OK && st != IBEX_INPROGRESS) {
        if (r->udt)
            ibex_dt_release(r->udt);
        free(r->tmp);
        free(r);
        return st;
    }
    win->pending[r->target]++;
    win->outstanding++;
    if (st == IBEX_OK)
        rdma_done(&r->comp, IBEX_OK);
    return IBEX_OK;
}

/* A kept record or a new one, its contents undefined. */
static inline rdma_req_t *rdma_req_take(ibex_win_t *win)
{
    rdma_req_t *r = win->rreq_free;
    if (r) {
        win->rreq_free = r->whole;
        win->rreq_nfree--;
        return r;
    }
    return malloc(sizeof(*r));
}

static rdma_req_t *rdma_req_new(ibex_win_t *win, int t)
{
    rdma_req_t *r = rdma_req_take(win);
    if (r)
        *r = (rdma_req_t){.comp = {rdma_done}, .win = win, .target = t};
    return r;
}

/* The short path's record: only the fields its completion (rdma_done, and rdma_finish on a
 * failure or for a request) and a failed start (rdma_started) read; a whole's fields (left,
 * status), the registration (read when own_mem) and the unpack target (read when udt) stay
 * as they were, unread. Saves clearing the whole record per transfer. */
static inline rdma_req_t *rdma_req_short(ibex_win_t *win, int t, ibex_req_t *user_req)
{
    rdma_req_t *r = rdma_req_take(win);
    if (!r)
        return NULL;
    r->comp.cb = rdma_done;
    r->win = win;
    r->target = t;
    r->whole = NULL;
    r->user_req = user_req;
    r->tmp = NULL;
    r->own_mem = false;
    r->udt = NULL;
    r->done = NULL;
    r->plain = !user_req;
    return r;
}

/* Waits for a blocking transfer, driving progress (others' requests are served meanwhile):
 * the window's transport polled alone first (ibex_win_wait_done). */
static ibex_status_t wait_flag(ibex_win_t *win, volatile int *done)
{
    ibex_win_wait_done(win, done);
    return *done == 1 ? IBEX_OK : IBEX_ERR_IO;
}

/* ---- atomics ---- */

/* One remote atomic, waited for; *old_p is the value before. */
static ibex_status_t atomic_do(ibex_win_t *win, int t, const ibex_tl_atomic_t *a0, uint64_t *old_p)
{
    volatile int done = 0;
    rdma_req_t *r = rdma_req_new(win, t);
    if (!r)
        return IBEX_ERR_NO_MEMORY;
    r->done = &done;
    ibex_tl_atomic_t a = *a0;
    a.result = &win->rctl[SCRATCH];
    a.result_mem = win->rctl_mem;
    a.comp = &r->comp;
    ibex_status_t st = rdma_started(win, r, ibex_rma_atomic(win->rma, t, &a));
    if (st == IBEX_OK)
        st = wait_flag(win, &done);
    if (st == IBEX_OK)
        *old_p = win->rctl[SCRATCH];
    return st;
}

static ibex_status_t atomic_fadd(ibex_win_t *win, int t, uint64_t remote, const void *key,
                                 uint64_t add, uint64_t *old_p)
{
    ibex_tl_atomic_t a = {.op = IBEX_TL_ATOMIC_FADD, .operand = add, .remote = remote, .rkey = key};
    return atomic_do(win, t, &a, old_p);
}

static ibex_status_t atomic_cswap(ibex_win_t *win, int t, uint64_t remote, const void *key,
                                  uint64_t cmp, uint64_t swap, uint64_t *old_p)
{
    ibex_tl_atomic_t a = {
        .op = IBEX_TL_ATOMIC_CSWAP, .operand = cmp, .swap = swap, .remote = remote, .rkey = key};
    return atomic_do(win, t, &a, old_p);
}

/* ---- creation ---- */

static ibex_status_t rdma_local(ibex_win_t *win)
{
    int n = win->comm->size;
    int *world = malloc((size_t)n * sizeof(int));
    if (!world)
        return IBEX_ERR_NO_MEMORY;
    for (int r = 0; r < n; r++)
        world[r] = ibex_comm_world_rank(win->comm, r);
    ibex_status_t st = ibex_rma_open(world, n, &win->rma);
    if (st == IBEX_OK)
        win->rtl = ibex_rma_transport(win->rma); /* the waits poll it alone (win_sync.c) */
    free(world);
    if (st != IBEX_OK)
        return st;
    if (ibex_rma_rkey_size(win->rma) > RKEY_MAX)
        return IBEX_ERR_UNSUPPORTED;
    if (posix_memalign((void **)&win->rctl, 64, CTL_SLOTS * sizeof(uint64_t)) != 0)
        return IBEX_ERR_NO_MEMORY;
    memset(win->rctl, 0, CTL_SLOTS * sizeof(uint64_t));
    st = ibex_rma_mem_reg(win->rma, win->rctl, CTL_SLOTS * sizeof(uint64_t), &win->rctl_mem);
    if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC) { /* its table of regions, and the copy */
        size_t len = ibex_win_dyn_table_size();
        if (st == IBEX_OK)
            st = ibex_rma_mem_reg(win->rma, win->dyn, len, &win->rmem);
        return st == IBEX_OK ? ibex_rma_mem_reg(win->rma, win->dyn_copy, len, &win->dyn_copy_mem)
                             : st;
    }
    if (st == IBEX_OK && win->size > 0)
        st = ibex_rma_mem_reg(win->rma, win->base, (size_t)win->size, &win->rmem);
    return st;
}

static void rdma_release(ibex_win_t *win)
{
    if (win->rma) {
        ibex_rma_mem_dereg(win->rma, win->rmem);
        ibex_rma_mem_dereg(win->rma, win->rctl_mem);
        ibex_rma_mem_dereg(win->rma, win->dyn_copy_mem);
    }
    ibex_rma_close(win->rma);
    free(win->rctl);
    free(win->rkeys);
    win->rma = NULL;
    win->rmem = win->rctl_mem = win->dyn_copy_mem = NULL;
    win->rctl = NULL;
    win->rkeys = NULL;
    win->rtl = NULL;
    win->rdma = false;
}

static ibex_status_t rdma_exchange(ibex_win_t *win)
{
    /* a dynamic window publishes its table of regions in place of its memory */
    void *base = win->flavor == MPI_WIN_FLAVOR_DYNAMIC ? (void *)win->dyn : win->base;
    struct win_rkey mine = {.base = (uint64_t)(uintptr_t)base,
                            .ctl = (uint64_t)(uintptr_t)win->rctl};
    ibex_status_t st = IBEX_OK;
    if (win->rmem)
        st = ibex_rma_pack_rkey(win->rma, win->rmem, mine.key);
    if (st == IBEX_OK)
        st = ibex_rma_pack_rkey(win->rma, win->rctl_mem, mine.ctl_key);
    win->rkeys = calloc((size_t)win->comm->size, sizeof(struct win_rkey));
    if (!win->rkeys)
        return IBEX_ERR_NO_MEMORY;
    ibex_coll_args_t a = {.comm = win->comm,
                          .sbuf = &mine,
                          .scount = (int)sizeof(mine),
                          .sdt = MPI_BYTE,
                          .rbuf = win->rkeys,
                          .rcount = (int)sizeof(mine),
                          .rdt = MPI_BYTE};
    ibex_status_t cst = ibex_coll_run(IBEX_COLL_ALLGATHER, &a, sizeof(mine));
    return st != IBEX_OK ? st : cst;
}

/* Brings every member's connection up now, while every member is inside this collective call
 * (a peer answers a connection request only from its progress loop): one READ of each
 * member's lock word, all waited for. */
static ibex_status_t rdma_connect(ibex_win_t *win)
{
    for (int t = 0; t < win->comm->size; t++) {
        rdma_req_t *r = rdma_req_new(win, t);
        if (!r)
            return IBEX_ERR_NO_MEMORY;
        ibex_tl_rma_t d = {.local = &win->rctl[SCRATCH + 1 + t % (ACC_WORD - 2)],
                           .len = 8,
                           .local_mem = win->rctl_mem,
                           .remote = win->rkeys[t].ctl,
                           .rkey = win->rkeys[t].ctl_key,
                           .comp = &r->comp};
        ibex_status_t st = rdma_started(win, r, ibex_rma_get(win->rma, t, &d));
        if (st != IBEX_OK)
            return st;
    }
    ibex_win_wait_until(win, NULL, 0);
    return IBEX_OK;
}

static int allreduce_min(ibex_win_t *win, int v, ibex_status_t *st_p)
{
    ibex_coll_args_t a = {.comm = win->comm,
                          .sbuf = MPI_IN_PLACE,
                          .rbuf = &v,
                          .rcount = 1,
                          .rdt = MPI_INT,
                          .op = ibex_op_get(MPI_MIN)};
    *st_p = ibex_coll_run(IBEX_COLL_ALLREDUCE, &a, sizeof(int));
    return v;
}

ibex_status_t ibex_win_rdma_setup(ibex_win_t *win)
{
    ibex_status_t st;
    int ok = rdma_local(win) == IBEX_OK;
    ok = allreduce_min(win, ok, &st);
    if (st != IBEX_OK || !ok) { /* some member cannot: the whole window uses active messages */
        rdma_release(win);
        return st;
    }
    st = rdma_exchange(win);
    if (st == IBEX_OK)
        st = rdma_connect(win);
    if (st != IBEX_OK) {
        rdma_release(win);
        return st;
    }
    win->rdma = true;
    ibex_debug(CORE, "window: rdma direct path over %d members", win->comm->size);
    return IBEX_OK;
}

void ibex_win_rdma_free(ibex_win_t *win)
{
    while (win->rreq_free) {
        rdma_req_t *r = win->rreq_free;
        win->rreq_free = r->whole;
        free(r);
    }
    win->rreq_nfree = 0;
    ibex_rma_mem_dereg(win->rma, win->rmw_mem);
    free(win->rmw_buf);
    win->rmw_buf = NULL;
    win->rmw_mem = NULL;
    win->rmw_len = 0;
    rdma_release(win);
}

/* ---- put / get ---- */

/* Where target t's window starts (dynamic: addresses are absolute) and the key of addr. */
static uint64_t data_base(const ibex_win_t *win, int t)
{
    return win->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : win->rkeys[t].base;
}

static const void *data_key(const ibex_win_t *win, int t, uint64_t addr)
{
    if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return ibex_win_dyn_key(win, t, addr);
    return win->rkeys[t].key;
}

ibex_status_t ibex_win_rdma_read_ctl(ibex_win_t *win, int t, void *local, struct ibex_tl_mem *mem,
                                     size_t off, size_t len)
{
    volatile int done = 0;
    rdma_req_t *r = rdma_req_new(win, t);
    if (!r)
        return IBEX_ERR_NO_MEMORY;
    r->done = &done;
    ibex_tl_rma_t d = {.local = local,
                       .len = len,
                       .local_mem = mem,
                       .remote = win->rkeys[t].base + off,
                       .rkey = win->rkeys[t].key,
                       .comp = &r->comp};
    ibex_status_t st = rdma_started(win, r, ibex_rma_get(win->rma, t, &d));
    return st == IBEX_OK ? wait_flag(win, &done) : st;
}

/* The local side of a put / get: the origin's buffer, or for a non-contiguous origin a bounce
 * buffer (packed now for a put, unpacked at completion for a get); NULL when out of memory. */
static char *copy_local(const ibex_win_op_t *op, const win_hdr_t *h, rdma_req_t *r)
{
    if (ibex_dt_is_contig(op->odt, op->ocount))
        return (char *)op->origin + op->odt->true_lb;
    r->tmp = malloc(h->bytes);
    if (!r->tmp)
        return NULL;
    if (op->kind == IBEX_WIN_OP_PUT) {
        ibex_dt_pack(op->origin, op->ocount, op->odt, 0, r->tmp, h->bytes);
    } else {
        r->ubuf = op->result;
        r->ucount = op->ocount;
        r->udt = op->odt;
        r->bytes = h->bytes;
        ibex_dt_retain(op->odt); /* the program may free the type before the READ completes */
    }
    return r->tmp;
}

static ibex_status_t rdma_start(ibex_win_t *win, bool put, int t, const ibex_tl_rma_t *d)
{
    return put ? ibex_rma_put(win->rma, t, d) : ibex_rma_get(win->rma, t, d);
}

/* One transfer of a whole (several for a non-contiguous target), counted in its left. */
static ibex_status_t block_start(ibex_win_t *win, bool put, rdma_req_t *w, ibex_tl_rma_t *d)
{
    if (d->len == 0)
        return IBEX_OK;
    rdma_req_t *r = rdma_req_new(win, w->target);
    if (!r)
        return IBEX_ERR_NO_MEMORY;
    r->whole = w;
    d->comp = &r->comp;
    w->left++;
    ibex_status_t st = rdma_started(win, r, rdma_start(win, put, w->target, d));
    if (st != IBEX_OK)
        w->left--;
    return st;
}

/* A non-contiguous target: one WRITE / READ per run of the target layout (adjacent blocks
 * merged when one key covers both), from consecutive bytes of local; no target CPU. */
static ibex_status_t copy_blocks(ibex_win_t *win, const ibex_win_op_t *op, const win_hdr_t *h,
                                 rdma_req_t *w, char *local)
{
    const ibex_dt_t *tdt = op->tdt;
    bool put = op->kind == IBEX_WIN_OP_PUT;
    uint64_t base = data_base(win, w->target) + h->addr;
    ibex_tl_rma_t d = {.local = local, .local_mem = w->local_mem};
    ibex_status_t st = IBEX_OK;
    long n = (long)op->tcount * tdt->nblocks;
    for (long i = 0; i < n && st == IBEX_OK; i++) {
        const ibex_dt_block_t *b = &tdt->blocks[i % tdt->nblocks];
        uint64_t ra = base + (uint64_t)((i / tdt->nblocks) * tdt->extent + b->disp);
        const void *key = data_key(win, w->target, ra);
        if (d.len > 0 && ra == d.remote + d.len && key == d.rkey) {
            d.len += b->len;
            continue;
        }
        st = block_start(win, put, w, &d);
        d = (ibex_tl_rma_t){.local = (char *)d.local + d.len,
                            .len = b->len,
                            .local_mem = w->local_mem,
                            .remote = ra,
                            .rkey = key};
    }
    return st == IBEX_OK ? block_start(win, put, w, &d) : st;
}

/* A non-contiguous target as a whole of several transfers; the program's request and the
 * bounce buffer complete with the last. */
static ibex_status_t copy_whole(ibex_win_t *win, const ibex_win_op_t *op, const win_hdr_t *h,
                                rdma_req_t *w, char *local)
{
    w->left = 1;
    ibex_status_t st = copy_blocks(win, op, h, w, local);
    if (st != IBEX_OK) { /* the transfers started still complete: only the request is failed */
        w->user_req = NULL;
        if (w->udt)
            ibex_dt_release(w->udt);
        w->udt = NULL;
    }
    whole_drop(w, st);
    return st;
}

/* The registration of an origin buffer inside this rank's own window memory (registered at
 * creation, held until Win_free): the transport then needs no lookup in its cache. */
static struct ibex_tl_mem *own_window_mem(const ibex_win_t *win, const char *local, size_t len)
{
    const char *base = win->base;
    if (!win->rmem || win->flavor == MPI_WIN_FLAVOR_DYNAMIC || local < base ||
        len > (size_t)win->size || (size_t)(local - base) > (size_t)win->size - len)
        return NULL;
    return win->rmem;
}

/* The short path's transfer (win_rma.c's fast_ok held: a put / get of a created or allocated
 * window, both types contiguous, off + bytes inside the target's part): one WRITE / READ from
 * the origin's buffer, nothing else looked at. MPI_SUCCESS or MPI_ERR_NO_MEM / OTHER (the
 * message in msg: the caller tail-calls this, keeping nothing across it). */
int ibex_win_rdma_short(ibex_win_t *win, const ibex_win_op_t *op, uint64_t off, size_t bytes,
                        char *msg, size_t len)
{
    int t = op->target;
    rdma_req_t *r = rdma_req_short(win, t, op->user_req);
    if (!r) {
        snprintf(msg, len, "cannot start an rdma transfer with rank %d", t);
        return MPI_ERR_NO_MEM;
    }
    char *local = (char *)op->origin + op->odt->true_lb;
    ibex_tl_rma_t d = {.local = local,
                       .len = bytes,
                       .local_mem = own_window_mem(win, local, bytes),
                       .remote = win->rkeys[t].base + off + (uint64_t)op->tdt->true_lb,
                       .rkey = win->rkeys[t].key,
                       .comp = &r->comp};
    bool put = op->kind == IBEX_WIN_OP_PUT;
    ibex_status_t st = rdma_start(win, put, t, &d);
    if (__builtin_expect(st == IBEX_INPROGRESS, 1)) { /* rdma_started's usual case, inline */
        win->pending[t]++;
        win->outstanding++;
        return MPI_SUCCESS;
    }
    st = rdma_started(win, r, st);
    if (st == IBEX_OK)
        return MPI_SUCCESS;
    ibex_error(CORE, "window: cannot start an rdma %s to rank %d: %s", put ? "write" : "read", t,
               ibex_status_str(st));
    snprintf(msg, len, "cannot start an rdma transfer with rank %d", t);
    return MPI_ERR_OTHER;
}

/* The short path's remote atomic: what elem_remote posts for this one element in the general
 * way (CAS: compare-and-swap of the compare value for the origin's; SUM on an integer:
 * fetch-and-add of the origin's value; NO_OP: fetch-and-add of 0), so the window keeps its one
 * atomicity domain, but not waited for: the device writes the old value into the result
 * buffer (its window's registration, else the transport's cache; an Accumulate's into the
 * window's DISCARD slot) when it completes, and flush / unlock / fence wait for it as for a
 * Get. An element off its 8-byte boundary takes the general way (the accumulate lock): -1. */
int ibex_win_rdma_atomic_short(ibex_win_t *win, const ibex_win_op_t *op, uint64_t off, bool cas,
                               char *msg, size_t len)
{
    int t = op->target;
    uint64_t remote = win->rkeys[t].base + off;
    if (remote & 7u)
        return -1;
    rdma_req_t *r = rdma_req_short(win, t, op->user_req);
    if (!r) {
        snprintf(msg, len, "out of memory");
        return MPI_ERR_NO_MEM;
    }
    bool acc = op->kind == IBEX_WIN_OP_ACC;
    ibex_tl_atomic_t a = {.op = cas ? IBEX_TL_ATOMIC_CSWAP : IBEX_TL_ATOMIC_FADD,
                          .result = acc ? &win->rctl[DISCARD] : op->result,
                          .result_mem = acc ? win->rctl_mem : own_window_mem(win, op->result, 8),
                          .remote = remote,
                          .rkey = win->rkeys[t].key,
                          .comp = &r->comp};
    if (cas) {
        memcpy(&a.operand, op->compare, 8);
        memcpy(&a.swap, op->origin, 8);
    } else if (op->op_handle != MPI_NO_OP) {
        memcpy(&a.operand, op->origin, 8);
    }
    ibex_status_t st = rdma_started(win, r, ibex_rma_atomic(win->rma, t, &a));
    if (st == IBEX_OK)
        return MPI_SUCCESS;
    ibex_error(CORE, "window: cannot start a remote atomic at rank %d: %s", t, ibex_status_str(st));
    snprintf(msg, len, "remote atomic at rank %d failed", t);
    return MPI_ERR_OTHER;
}

/* One compare-and-swap of the short path's REPLACE, waited for: *old_p the value before. */
static ibex_status_t swap_try(ibex_win_t *win, int t, uint64_t remote, uint64_t cmp, uint64_t swap,
                              uint64_t *old_p)
{
    volatile int done = 0;
    rdma_req_t *r = rdma_req_short(win, t, NULL);
    if (!r)
        return IBEX_ERR_NO_MEMORY;
    r->done = &done;
    r->plain = false;
    ibex_tl_atomic_t a = {.op = IBEX_TL_ATOMIC_CSWAP,
                          .operand = cmp,
                          .swap = swap,
                          .result = &win->rctl[SCRATCH],
                          .result_mem = win->rctl_mem,
                          .remote = remote,
                          .rkey = win->rkeys[t].key,
                          .comp = &r->comp};
    ibex_status_t st = rdma_started(win, r, ibex_rma_atomic(win->rma, t, &a));
    if (st == IBEX_OK)
        st = wait_flag(win, &done);
    if (st == IBEX_OK)
        *old_p = win->rctl[SCRATCH];
    return st;
}

/* The short path's REPLACE: the general way's compare-and-swap loop (elem_remote) without its
 * first fetch-and-add of 0. A compare-and-swap that misses returns the word's value as that
 * read would, so the loop starts from a guess instead: the value the last REPLACE here left
 * at this word (a loop that swaps one word again and again: one atomic per REPLACE), else 0.
 * A wrong guess costs the atomic the read would have; each miss retries with the value it
 * returned, until one compares equal: the old value, swapped atomically for the origin's.
 * Waited for (the loop needs each answer), so complete on return, after the atomics posted
 * before it on the queue pair (executed in order). */
int ibex_win_rdma_swap_short(ibex_win_t *win, const ibex_win_op_t *op, uint64_t off, char *msg,
                             size_t len)
{
    int t = op->target;
    uint64_t remote = win->rkeys[t].base + off, in, old;
    if (remote & 7u)
        return -1;
    memcpy(&in, op->origin, 8);
    uint64_t guess =
        win->swap_seen.target == t && win->swap_seen.remote == remote ? win->swap_seen.value : 0;
    ibex_status_t st;
    while ((st = swap_try(win, t, remote, guess, in, &old)) == IBEX_OK && old != guess)
        guess = old;
    if (st != IBEX_OK) {
        ibex_error(CORE, "window: remote compare-and-swap at rank %d failed: %s", t,
                   ibex_status_str(st));
        snprintf(msg, len, "remote atomic at rank %d failed", t);
        return st == IBEX_ERR_NO_MEMORY ? MPI_ERR_NO_MEM : MPI_ERR_OTHER;
    }
    win->swap_seen.target = t;
    win->swap_seen.remote = remote;
    win->swap_seen.value = in;
    if (op->kind != IBEX_WIN_OP_ACC)
        memcpy(op->result, &old, 8);
    if (op->user_req)
        ibex_req_complete(op->user_req, IBEX_OK);
    return MPI_SUCCESS;
}

/* A contiguous target: one WRITE / READ from the origin's buffer (its window's registration
 * when it lies in this rank's window memory, else registered through the transport's cache) or
 * from a bounce buffer; a non-contiguous one: a WRITE / READ per run. */
bool ibex_win_rdma_copy(ibex_win_t *win, const ibex_win_op_t *op, const win_hdr_t *h, int *rc_p)
{
    bool put = op->kind == IBEX_WIN_OP_PUT;
    if (!put && op->kind != IBEX_WIN_OP_GET)
        return false;
    int t = op->target;
    rdma_req_t *r = rdma_req_new(win, t);
    char *local = r ? copy_local(op, h, r) : NULL;
    if (!local) {
        free(r);
        *rc_p = MPI_ERR_NO_MEM;
        return true;
    }
    r->user_req = op->user_req;
    ibex_status_t st;
    if (!ibex_dt_is_contig(op->tdt, op->tcount)) {
        /* one registration for all the runs (else one per run's pages: past the device's
         * table of regions for a large strided target) */
        r->own_mem = ibex_rma_mem_reg(win->rma, local, h->bytes, &r->local_mem) == IBEX_OK;
        if (!r->own_mem)
            r->local_mem = NULL;
        st = copy_whole(win, op, h, r, local);
    } else {
        uint64_t remote = data_base(win, t) + h->addr + (uint64_t)op->tdt->true_lb;
        ibex_tl_rma_t d = {.local = local,
                           .len = h->bytes,
                           .local_mem = own_window_mem(win, local, h->bytes),
                           .remote = remote,
                           .rkey = data_key(win, t, remote),
                           .comp = &r->comp};
        st = rdma_started(win, r, rdma_start(win, put, t, &d));
    }
    *rc_p = st == IBEX_OK ? MPI_SUCCESS : MPI_ERR_OTHER;
    if (st != IBEX_OK)
        ibex_error(CORE, "window: cannot start an rdma %s to rank %d: %s", put ? "write" : "read",
                   t, ibex_status_str(st));
    return true;
}

/* ---- accumulates by remote atomics ---- */

/* 8-byte integers: SUM is one fetch-and-add on them. */
static bool int8_type(int bt)
{
    switch (bt) {
    case MPI_LONG:
    case MPI_UNSIGNED_LONG:
    case MPI_LONG_LONG_INT:
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_INT64_T:
    case MPI_UINT64_T:
    case MPI_AINT:
    case MPI_OFFSET:
    case MPI_COUNT:
    case MPI_INTEGER8:
        return ibex_dt_get(bt)->size == 8;
    default:
        return false;
    }
}

/* Every accumulate on a dense 8-byte basic type (integers, double, MPI_2INT, float complex ...):
 * the checks made sure the op is defined on it. */
bool ibex_win_atomic_kind(const ibex_win_op_t *op)
{
    if (op->kind != IBEX_WIN_OP_ACC && op->kind != IBEX_WIN_OP_GACC && op->kind != IBEX_WIN_OP_CAS)
        return false;
    int bt = ibex_dt_op_type(op->tdt);
    const ibex_dt_t *b = bt >= 0 ? ibex_dt_get(bt) : NULL;
    return b && b->size == 8 && b->extent == 8 && b->contiguous;
}

/* One element's new value: old op in (REPLACE: in). */
uint64_t ibex_win_elem_new(const win_hdr_t *h, uint64_t old, uint64_t in)
{
    if (h->op == MPI_REPLACE)
        return in;
    if (h->op == MPI_NO_OP)
        return old;
    ibex_op_apply(ibex_op_get(h->op), &in, &old, 1, h->basic);
    return old;
}

/* SUM on an integer (and NO_OP) is one fetch-and-add; any other op a compare-and-swap loop. */
bool ibex_win_elem_fadd(const win_hdr_t *h)
{
    return h->type != WIN_CAS && (h->op == MPI_NO_OP || (h->op == MPI_SUM && int8_type(h->basic)));
}

/* Calls fn for each 8-byte element of the target layout (blocks from the request body), at its
 * displacement from the target's base + h->addr; stops at the first failure. */
int ibex_win_elems(const win_hdr_t *h, const char *body, ibex_win_elem_cb_t fn, void *arg)
{
    const ibex_dt_block_t *b = (const ibex_dt_block_t *)body;
    size_t i = 0;
    for (int64_t k = 0; k < h->tcount; k++)
        for (int j = 0; j < h->nblocks; j++)
            for (uint64_t off = 0; off + 8 <= b[j].len; off += 8) {
                int rc = fn(arg, (uint64_t)(k * h->extent + b[j].disp) + off, i++);
                if (rc)
                    return rc;
            }
    return 0;
}

static int elem_aligned(void *arg, uint64_t disp, size_t i)
{
    (void)i;
    return (int)((*(uint64_t *)arg + disp) & 7u);
}

/* The operation's elements all sit on 8-byte boundaries at the target (remote address base). */
bool ibex_win_elems_aligned(const win_hdr_t *h, const char *body, uint64_t base)
{
    uint64_t b = base + h->addr;
    return ibex_win_elems(h, body, elem_aligned, &b) == 0;
}

typedef struct elem_ctx {
    ibex_win_t *win;
    int t;
    const win_hdr_t *h;
    const uint64_t *data; /* the origin's values (CAS: value then compare) */
    uint64_t *old;        /* the values before, or NULL */
} elem_ctx_t;

/* One element by remote atomics: CSWAP for CAS, FADD for SUM on integers (0 for NO_OP), else
 * a CSWAP loop from the value a FADD of 0 read. */
static int elem_remote(void *arg, uint64_t disp, size_t i)
{
    elem_ctx_t *c = arg;
    uint64_t ra = data_base(c->win, c->t) + c->h->addr + disp, old = 0;
    const void *key = data_key(c->win, c->t, ra);
    ibex_win_t *win = c->win;
    ibex_status_t st;
    if (c->h->type == WIN_CAS) {
        st = atomic_cswap(win, c->t, ra, key, c->data[1], c->data[0], &old);
    } else if (ibex_win_elem_fadd(c->h)) {
        st = atomic_fadd(win, c->t, ra, key, c->h->op == MPI_SUM ? c->data[i] : 0, &old);
    } else {
        uint64_t seen, in = c->h->op == MPI_NO_OP ? 0 : c->data[i];
        st = atomic_fadd(win, c->t, ra, key, 0, &old);
        while (st == IBEX_OK &&
               (st = atomic_cswap(win, c->t, ra, key, old, ibex_win_elem_new(c->h, old, in),
                                  &seen)) == IBEX_OK &&
               seen != old)
            old = seen;
    }
    if (c->old)
        c->old[i] = old;
    return st == IBEX_OK ? 0 : -1;
}

/* The window's scratch for accumulates under the lock (the target's old contents, then the
 * fetched copy), at least len bytes, registered once: kept for the next one, so the pieces of
 * a large accumulate (win_rma.c, IBEX_WIN_RDMA_PIECE) reuse one buffer and one registration
 * instead of a malloc and a registration per run of its target layout. */
static char *rmw_scratch(ibex_win_t *win, size_t len)
{
    if (len <= win->rmw_len)
        return win->rmw_buf;
    ibex_rma_mem_dereg(win->rma, win->rmw_mem);
    free(win->rmw_buf);
    win->rmw_mem = NULL;
    win->rmw_len = 0;
    win->rmw_buf = malloc(len);
    if (win->rmw_buf && ibex_rma_mem_reg(win->rma, win->rmw_buf, len, &win->rmw_mem) == IBEX_OK) {
        win->rmw_len = len;
        return win->rmw_buf;
    }
    free(win->rmw_buf);
    win->rmw_buf = NULL;
    win->rmw_mem = NULL;
    return NULL;
}

/* A blocking READ (put: WRITE) of the operation's target layout from (into) tmp, packed. */
static ibex_status_t rmw_xfer(ibex_win_t *win, const ibex_win_op_t *op, const win_hdr_t *h,
                              char *tmp, bool put)
{
    int t = op->target;
    volatile int done = 0;
    rdma_req_t *r = rdma_req_new(win, t);
    if (!r)
        return IBEX_ERR_NO_MEMORY;
    r->done = &done;
    r->local_mem = win->rmw_mem; /* tmp is the window's registered scratch */
    if (!ibex_dt_is_contig(op->tdt, op->tcount)) {
        ibex_win_op_t g = *op;
        g.kind = put ? IBEX_WIN_OP_PUT : IBEX_WIN_OP_GET;
        ibex_status_t st = copy_whole(win, &g, h, r, tmp);
        ibex_status_t wst = wait_flag(win, &done); /* transfers started complete even on failure */
        return st != IBEX_OK ? st : wst;
    }
    uint64_t remote = data_base(win, t) + h->addr + (uint64_t)op->tdt->true_lb;
    ibex_tl_rma_t d = {.local = tmp,
                       .len = h->bytes,
                       .local_mem = win->rmw_mem,
                       .remote = remote,
                       .rkey = data_key(win, t, remote),
                       .comp = &r->comp};
    ibex_status_t st = rdma_started(win, r, rdma_start(win, put, t, &d));
    return st == IBEX_OK ? wait_flag(win, &done) : st;
}

/* The target's accumulate lock: swap 0 for 1, retried (driving progress) while held. */
static ibex_status_t acc_lock_take(ibex_win_t *win, int t)
{
    uint64_t ra = win->rkeys[t].ctl + ACC_WORD * 8, old;
    int idle = 0;
    for (;;) {
        ibex_status_t st = atomic_cswap(win, t, ra, win->rkeys[t].ctl_key, 0, 1, &old);
        if (st != IBEX_OK || old == 0)
            return st;
        ibex_wait_step(&idle);
    }
}

static ibex_status_t acc_lock_drop(ibex_win_t *win, int t)
{
    uint64_t ra = win->rkeys[t].ctl + ACC_WORD * 8, old;
    return atomic_fadd(win, t, ra, win->rkeys[t].ctl_key, (uint64_t)-1, &old);
}

/* Reads the target layout into tmp (old keeps a copy), applies the operation there and writes
 * it back (NO_OP, and a CAS whose compare value differs, write nothing). */
static ibex_status_t rmw_locked(ibex_win_t *win, const ibex_win_op_t *op, const win_hdr_t *h,
                                const char *data, char *tmp, char *old)
{
    ibex_status_t st = rmw_xfer(win, op, h, tmp, false);
    if (st != IBEX_OK)
        return st;
    if (old)
        memcpy(old, tmp, h->bytes);
    if (h->type == WIN_CAS ? memcmp(tmp, data + h->bytes, h->bytes) != 0 : h->op == MPI_NO_OP)
        return IBEX_OK;
    ibex_win_acc_packed(h, data, tmp);
    return rmw_xfer(win, op, h, tmp, true);
}

/* Any other accumulate (1-, 2-, 4-, 12-, 16-byte types, padded pairs, an 8-byte element off its
 * boundary) under the target's accumulate lock, complete on return; no target CPU. */
static int rdma_acc_locked(ibex_win_t *win, const ibex_win_op_t *op, const win_hdr_t *h,
                           const char *data)
{
    int t = op->target;
    bool fetch = op->kind != IBEX_WIN_OP_ACC;
    size_t room = (h->bytes + 63) & ~(size_t)63;
    char *tmp = rmw_scratch(win, fetch ? 2 * room : room), *old = fetch ? tmp + room : NULL;
    if (!tmp)
        return MPI_ERR_NO_MEM;
    ibex_status_t st = acc_lock_take(win, t);
    if (st == IBEX_OK) {
        st = rmw_locked(win, op, h, data, tmp, old);
        ibex_status_t ust = acc_lock_drop(win, t);
        st = st != IBEX_OK ? st : ust;
    }
    if (st == IBEX_OK && fetch)
        ibex_dt_unpack(op->result, op->rcount, op->rdt, 0, old, h->bytes);
    return st == IBEX_OK ? MPI_SUCCESS : MPI_ERR_OTHER;
}

/* Requests sent to the target's port before an accumulate by remote atomics are flushed first,
 * so accumulates from this origin stay ordered (accumulate_ordering) across the two paths. */
static int flush_am(ibex_win_t *win, int t)
{
    if (!win->touched[t])
        return MPI_SUCCESS;
    if (ibex_win_ctl(win, WIN_FLUSH, t, 0) != IBEX_OK)
        return MPI_ERR_OTHER;
    win->touched[t] = false;
    ibex_win_wait_until(win, NULL, 0);
    return MPI_SUCCESS;
}

/* An accumulate by remote atomics, complete on return: of ibex_win_atomic_kind with every
 * element on an 8-byte boundary at the target, element by element; any other under the
 * target's accumulate lock. */
int ibex_win_rdma_acc(ibex_win_t *win, const ibex_win_op_t *op, const win_hdr_t *h, char *body)
{
    int t = op->target;
    size_t blen = (size_t)h->nblocks * sizeof(ibex_dt_block_t);
    int rc = flush_am(win, t);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!ibex_win_atomic_kind(op) || !ibex_win_elems_aligned(h, body, data_base(win, t)))
        return rdma_acc_locked(win, op, h, body + blen);
    bool fetch = op->kind != IBEX_WIN_OP_ACC;
    uint64_t *old = fetch ? malloc(h->bytes) : NULL;
    elem_ctx_t c = {win, t, h, (const uint64_t *)(body + blen), old};
    if ((fetch && !old) || ((uintptr_t)c.data & 7u)) { /* malloc'd body: data is aligned */
        free(old);
        return MPI_ERR_NO_MEM;
    }
    rc = ibex_win_elems(h, body, elem_remote, &c);
    if (rc == 0 && fetch)
        ibex_dt_unpack(op->result, op->rcount, op->rdt, 0, old, h->bytes);
    free(old);
    return rc == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}

/* ---- passive-target locks on the lock words ---- */

/* Shared: add a reader, and take it back while a writer holds the word; exclusive: swap 0 for
 * the writer bit. Retries drive progress, so this rank keeps serving others. */
static ibex_status_t rdma_lock_take(ibex_win_t *win, int t, bool excl, bool *rec_p)
{
    uint64_t ra = win->rkeys[t].ctl + LOCK_WORD * 8, old;
    const void *key = win->rkeys[t].ctl_key;
    int idle = 0, spins = 0;
    for (;;) {
        ibex_status_t st = excl ? atomic_cswap(win, t, ra, key, 0, LOCK_EXCL, &old)
                                : atomic_fadd(win, t, ra, key, LOCK_SHARE, &old);
        if (st != IBEX_OK)
            return st;
        if (excl ? old == 0 : !(old & LOCK_EXCL))
            return IBEX_OK;
        if (!excl && (st = atomic_fadd(win, t, ra, key, (uint64_t)-LOCK_SHARE, &old)) != IBEX_OK)
            return st;
        ibex_wait_step(&idle);
        if (!*rec_p && ibex_blk_due(&spins))
            *rec_p = ibex_win_blk_wait(win, IBEX_WIN_BLK_TARGET, t);
    }
}

ibex_status_t ibex_win_rdma_lock(ibex_win_t *win, int t, bool excl)
{
    bool rec = false; /* the blocked-call record of a lock that waits (ibex_blocked_win.h) */
    ibex_status_t st = rdma_lock_take(win, t, excl, &rec);
    if (rec)
        ibex_blk_end();
    return st;
}

ibex_status_t ibex_win_rdma_unlock(ibex_win_t *win, int t, bool excl)
{
    uint64_t old;
    uint64_t ra = win->rkeys[t].ctl + LOCK_WORD * 8;
    return atomic_fadd(win, t, ra, win->rkeys[t].ctl_key, excl ? -LOCK_EXCL : -LOCK_SHARE, &old);
}
