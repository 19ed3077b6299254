/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The blocked-call record, writing side (ibex_blocked_rec.h; the format: ibex_blocked.h). The
 * page is written only by this rank and read by the launcher at any moment, so a wait's
 * description is bracketed by a sequence number (odd while it changes) that the reader checks.
 * Only waits that actually wait come here; the fast path of a call is ibex_blk_enter's two
 * stores.
 */
#include "ibex_blocked_rec.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ibex_config.h"
#include "ibex_engine.h"
#include "ibex_log.h"
#include "ibex_request.h"
#include "ibex_runtime.h"

static int blk_fd = -1;

static const ibex_cfg_entry_t blocked_table[] = {
    {"BLOCKED_FD", IBEX_CFG_INT, "-1", NULL, &blk_fd,
     "set by ibexrun, not by hand: the descriptor of the job's blocked-call record (a memfd) "
     "whose page this rank keeps up to date for hang reports; -1: none (a private page)"},
};
IBEX_CFG_MODULE(blocked, "blocked", IBEX_CFG_LAYER_ENGINE, blocked_table);

static void blk_page_fill(ibex_blk_page_t *pg)
{
    pg->rank = ibex_rt.boot.rank;
    pg->pid = (int32_t)getpid();
    pg->world_size = ibex_rt.boot.size;
    pg->version = IBEX_BLK_VERSION;
    pg->state = IBEX_BLK_STATE_RUNNING;
    __atomic_store_n(&pg->magic, IBEX_BLK_MAGIC, __ATOMIC_RELEASE);
}

/* The descriptor is the record of the job this rank belongs to: made by its parent (ibexrun)
 * for this many ranks. A program started by a rank inherits the variable but not that parent,
 * and its descriptor N may be any file of its own, which must never be mapped and written. */
static bool blk_fd_ours(int fd)
{
    struct {
        uint32_t magic, version;
        int32_t nranks, launcher_pid;
    } head; /* the start of ibex_blk_head_t */
    _Static_assert(offsetof(ibex_blk_head_t, launcher_pid) == 12, "the head's layout");
    if (pread(fd, &head, sizeof(head), 0) != (ssize_t)sizeof(head))
        return false;
    return head.magic == IBEX_BLK_MAGIC && head.version == IBEX_BLK_VERSION &&
           head.nranks == ibex_rt.boot.size && head.launcher_pid == (int32_t)getppid() &&
           ibex_rt.boot.rank < head.nranks;
}

ibex_status_t ibex_blk_init(void)
{
    if (blk_fd < 0 || ibex_rt.boot.rank >= IBEX_BLK_MAX_RANKS || !blk_fd_ours(blk_fd)) {
        blk_fd = -1;
        blk_page_fill(ibex_blk.page);
        return IBEX_OK;
    }
    void *p = mmap(NULL, IBEX_BLK_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, blk_fd,
                   IBEX_BLK_OFFSET(ibex_rt.boot.rank));
    /* The descriptor must not reach what the program starts. */
    close(blk_fd);
    blk_fd = -1;
    if (p == MAP_FAILED) { /* no hang report for this rank; the job itself is fine */
        ibex_warn(CORE, "cannot map the blocked-call record: %s", strerror(errno));
        blk_page_fill(ibex_blk.page);
        return IBEX_OK;
    }
    ibex_blk_page_t *pg = p;
    pg->ncalls = ibex_blk.page->ncalls;
    ibex_blk.page = pg;
    blk_page_fill(pg);
    return IBEX_OK;
}

void ibex_blk_finalize(void)
{
    ibex_blk.page->waiting = 0;
    ibex_blk.page->state = IBEX_BLK_STATE_FINALIZED;
}

static int64_t blk_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Copies at most len - 1 bytes: names longer than the page's fields are cut. */
static void blk_copy(char *dst, size_t len, const char *src)
{
    size_t n = strnlen(src, len - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The seqlock's writer side: the reader (launcher/lib/run_hang.c) copies the page between two
 * reads of seq and keeps the copy only if seq was even and unchanged. Release ordering is
 * enough (free on x86): an odd seq is visible before the stores that follow it, and the data
 * before the even seq that ends them. */
static void blk_seq_bump(ibex_blk_page_t *pg)
{
    uint32_t s = pg->seq + 1;
    if (s & 1) {
        __atomic_store_n(&pg->seq, s, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_RELEASE);
    } else {
        __atomic_store_n(&pg->seq, s, __ATOMIC_RELEASE);
    }
}

void ibex_blk_begin(bool or_wait)
{
    ibex_blk_page_t *pg = ibex_blk.page;
    blk_seq_bump(pg); /* odd: being written */
    pg->waiting = 0;
    pg->or_wait = or_wait;
    pg->nitems = pg->nmore = 0;
    pg->ctx = 0;
    pg->comm_size = 0;
    pg->comm_name[0] = '\0';
    pg->coll = ibex_blk.algo != NULL;
    pg->step = ibex_blk.step;
    blk_copy(pg->call, sizeof(pg->call), ibex_blk.call);
    blk_copy(pg->algo, sizeof(pg->algo), ibex_blk.algo ? ibex_blk.algo : "");
    memset(pg->members, 0, sizeof(pg->members));
    pg->since_ns = blk_now_ns();
}

void ibex_blk_begin_again(bool or_wait)
{
    int64_t since = ibex_blk.page->since_ns;
    ibex_blk_begin(or_wait);
    ibex_blk.page->since_ns = since; /* before the commit's even seq */
}

/* The communicator of the first item names the wait; ANY and COLL items need its members. */
static void blk_comm_note(ibex_blk_page_t *pg, const ibex_comm_t *comm, bool members)
{
    if (!pg->comm_name[0]) {
        pg->ctx = comm->context_id;
        pg->comm_size = comm->size;
        if (comm->name[0])
            blk_copy(pg->comm_name, sizeof(pg->comm_name), comm->name);
        else
            snprintf(pg->comm_name, sizeof(pg->comm_name), "comm 0x%x", comm->context_id);
    }
    for (int i = 0; members && i < comm->peer_size; i++) {
        int w = comm->peers->world_ranks[i];
        if (w >= 0 && w < IBEX_BLK_MAX_RANKS)
            pg->members[w / 8] |= (uint8_t)(1u << (w % 8));
    }
}

void ibex_blk_add(const ibex_comm_t *comm, ibex_blk_op_t op, int rank, int tag, size_t bytes)
{
    ibex_blk_page_t *pg = ibex_blk.page;
    if (pg->nitems == IBEX_BLK_MAX_ITEMS) {
        pg->nmore++;
        return;
    }
    ibex_blk_item_t *it = &pg->items[pg->nitems++];
    bool one = rank >= 0 && rank < comm->peer_size;
    it->kind = one ? IBEX_BLK_PEER : rank == MPI_ANY_SOURCE ? IBEX_BLK_ANY : IBEX_BLK_COLL;
    it->op = (uint8_t)op;
    it->rank = rank;
    it->peer = one ? ibex_comm_world_rank(comm, rank) : -1;
    it->tag = tag;
    it->bytes = bytes;
    blk_comm_note(pg, comm, !one);
}

void ibex_blk_commit(void)
{
    ibex_blk_page_t *pg = ibex_blk.page;
    pg->waiting = 1;
    blk_seq_bump(pg); /* even: complete */
}

void ibex_blk_end(void)
{
    ibex_blk_page_t *pg = ibex_blk.page;
    ibex_blk.poll_window = 0;
    blk_seq_bump(pg);
    pg->waiting = 0;
    blk_seq_bump(pg);
}

void ibex_blk_polling(void)
{
    ibex_blk_page_t *pg = ibex_blk.page;
    ibex_blk_begin(false);
    pg->waiting = 2;
    ibex_blk.poll_described = 0;
    blk_seq_bump(pg);
}

/* Something the record cannot show is waited for too: an item "more" (an OR-wait with one is
 * never taken for a deadlock; an AND-wait still needs its known items). */
static void blk_unknown(ibex_blk_page_t *pg)
{
    pg->nmore++;
}

/* The empty poll `idle` of a streak (>= IBEX_BLK_POLL_AFTER): opens the window of calls that
 * describe themselves at its start and every IBEX_BLK_POLL_REFRESH polls; a call of the window
 * that said nothing is an unknown item. */
void ibex_blk_poll_tick(int idle)
{
    int k = idle - IBEX_BLK_POLL_AFTER;
    if (ibex_blk.poll_window > 0) {
        if (!ibex_blk.poll_noted && ibex_blk.page->waiting == 2) {
            blk_seq_bump(ibex_blk.page);
            ibex_blk.page->or_wait = 1; /* the loop also polls for what the record lacks */
            blk_unknown(ibex_blk.page);
            blk_seq_bump(ibex_blk.page);
        }
        ibex_blk.poll_window--;
    }
    if (k == 0)
        ibex_blk_polling();
    if (k % IBEX_BLK_POLL_REFRESH == 0 && ibex_blk.page->waiting == 2)
        ibex_blk.poll_window = IBEX_BLK_POLL_WINDOW;
    ibex_blk.poll_noted = 0;
}

static int blk_poll_base; /* items before this call's (ibex_blk_poll_begin) */

/* "MPI_Test/MPI_Iprobe": whether call is one of the '/'-separated names of list. */
static bool blk_call_listed(const char *list, const char *call)
{
    size_t n = strlen(call);
    for (const char *p = list; *p; p += strcspn(p, "/"), p += *p == '/')
        if (strncmp(p, call, n) == 0 && (p[n] == '/' || p[n] == '\0'))
            return true;
    return false;
}

/* The record names every call of the loop, as far as the field holds them. */
static void blk_call_add(ibex_blk_page_t *pg, const char *call)
{
    size_t k = strlen(pg->call);
    if (!blk_call_listed(pg->call, call) && k + 1 + strlen(call) < sizeof(pg->call))
        snprintf(pg->call + k, sizeof(pg->call) - k, "/%s", call);
}

void ibex_blk_poll_begin(bool or_wait)
{
    ibex_blk_page_t *pg = ibex_blk.page;
    ibex_blk.poll_noted = 1;
    blk_seq_bump(pg); /* odd */
    blk_poll_base = pg->nitems;
    if (!ibex_blk.poll_described) {
        pg->or_wait = or_wait;
        blk_copy(pg->call, sizeof(pg->call), ibex_blk.call);
    } else if (pg->or_wait != (int32_t)or_wait || strcmp(pg->call, ibex_blk.call) != 0) {
        pg->or_wait = 1; /* another call of the loop: any of them lets it go on */
        blk_call_add(pg, ibex_blk.call);
    }
}

static bool blk_item_same(const ibex_blk_item_t *a, const ibex_blk_item_t *b)
{
    return a->kind == b->kind && a->op == b->op && a->peer == b->peer && a->tag == b->tag &&
           a->rank == b->rank && a->bytes == b->bytes;
}

/* The item just added, unless the record has it already. */
static void blk_poll_dedup(ibex_blk_page_t *pg)
{
    if (pg->nitems == 0)
        return;
    const ibex_blk_item_t *it = &pg->items[pg->nitems - 1];
    for (int k = 0; k < pg->nitems - 1; k++)
        if (blk_item_same(&pg->items[k], it)) {
            pg->nitems--;
            return;
        }
}

void ibex_blk_poll_add(const ibex_comm_t *comm, ibex_blk_op_t op, int rank, int tag)
{
    ibex_blk_add(comm, op, rank, tag, 0);
    blk_poll_dedup(ibex_blk.page);
}

void ibex_blk_poll_add_req(const struct ibex_req *r)
{
    ibex_blk_add_req(r);
    blk_poll_dedup(ibex_blk.page);
}

void ibex_blk_poll_commit(void)
{
    ibex_blk_page_t *pg = ibex_blk.page;
    if (ibex_blk.poll_described && pg->nitems > blk_poll_base)
        pg->or_wait = 1; /* a call that polls for something new: an OR over the loop */
    ibex_blk.poll_described = 1;
    blk_seq_bump(pg); /* even */
}

void ibex_blk_poll_note_reqs(struct ibex_req *const *reqs, int n, bool or_wait)
{
    ibex_blk_poll_begin(or_wait);
    for (int i = 0; i < n; i++)
        if (reqs[i])
            ibex_blk_poll_add_req(reqs[i]);
    ibex_blk_poll_commit();
}

static ibex_blk_coll_items_fn blk_coll_items; /* set once by runtime/mpi (coll_nbc_req.c) */

void ibex_blk_set_coll_items(ibex_blk_coll_items_fn fn)
{
    blk_coll_items = fn;
}

void ibex_blk_add_req(const struct ibex_req *r)
{
    if (r->complete)
        return;
    if (!r->comm || r->ext) { /* generalized: completed by whom the record cannot say */
        blk_unknown(ibex_blk.page);
        return;
    }
    if (r->kind == IBEX_REQ_COLL) {
        if (blk_coll_items && blk_coll_items(r))
            return; /* the peers of the schedule's step, not the whole communicator */
        ibex_blk_add(r->comm, IBEX_BLK_OP_SYNC, IBEX_BLK_RANK_COLL, -1, 0);
        return;
    }
    ibex_blk_op_t op = r->kind == IBEX_REQ_SEND ? IBEX_BLK_OP_SEND : IBEX_BLK_OP_RECV;
    ibex_blk_add(r->comm, op, r->peer, r->coll ? IBEX_BLK_NO_TAG : r->tag, r->bytes);
}

bool ibex_blk_wait_reqs(struct ibex_req *const *reqs, int n, bool or_wait)
{
    ibex_blk_begin(or_wait);
    for (int i = 0; i < n; i++)
        if (reqs[i])
            ibex_blk_add_req(reqs[i]);
    ibex_blk_commit();
    return true;
}

bool ibex_blk_wait_coll(void)
{
    ibex_blk_begin(false);
    if (ibex_blk.coll_comm)
        ibex_blk_add(ibex_blk.coll_comm, IBEX_BLK_OP_SYNC, IBEX_BLK_RANK_COLL, -1, 0);
    ibex_blk_commit();
    return true;
}

/* A drain of sends (MPI_Finalize, a buffer detach or flush): the peers with messages in the
 * backlog or transfers in flight. */
bool ibex_blk_wait_sends(bool or_wait)
{
    ibex_blk_begin(or_wait);
    for (int w = 0; w < ibex_ep_table_size; w++) {
        const ibex_ep_t *ep = &ibex_ep_table[w];
        if ((ep->pending_head || ep->inflight) && w < ibex_comm_world->size)
            ibex_blk_add(ibex_comm_world, IBEX_BLK_OP_SEND, w, IBEX_BLK_NO_TAG, 0);
    }
    if (ibex_blk.page->nitems == 0) /* nothing the endpoints show: whatever it is, unknown */
        blk_unknown(ibex_blk.page);
    ibex_blk_commit();
    return true;
}
