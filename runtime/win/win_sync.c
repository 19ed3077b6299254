/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Synchronisation: fence, passive target (lock / unlock, lock_all, flush), general active target
 * (post / start / complete / wait / test), and the epoch rules whose misuse is MPI_ERR_RMA_SYNC.
 *
 * Completion rests on one fact: a target applies an origin's requests in the order they were
 * sent, so the answer to a FLUSH or UNLOCK means everything before it is done at the target.
 * fence = flush every target touched since the last fence, then a barrier; unlock = UNLOCK and
 * its answer; complete = a COMPLETE notice after the operations (the target's wait counts them).
 * MPI_Win_lock waits for the grant: the target queues lock requests in arrival order.
 */
#include <stdio.h>

#include "coll.h"
#include "ibex_blocked_rec.h"
#include "ibex_blocked_win.h"
#include "ibex_engine.h"
#include "ibex_request.h"
#include "ibex_win.h"
#include "win_wire.h"

#define IBEX_CHECK_RC(expr)                                                                        \
    do {                                                                                           \
        int rc_ = (expr);                                                                          \
        if (rc_ != MPI_SUCCESS)                                                                    \
            return rc_;                                                                            \
    } while (0)

#define VALID_ASSERTS                                                                              \
    (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)

static bool all_done(const ibex_win_t *win, int rank)
{
    (void)rank;
    return win->outstanding == 0;
}

static bool target_done(const ibex_win_t *win, int rank)
{
    return win->pending[rank] == 0;
}

static ibex_win_blk_t blk_kind(bool (*cond)(const ibex_win_t *win, int rank));

/* One poll of the network direct path's transport alone (a flush's READ / WRITE completion
 * is there), skipping the engine's whole step; false when it found nothing, or every
 * WIN_POLL_ENGINE polls, so that the engine's step (every transport, the work it keeps, the
 * back-off) runs then and the rest of the process progresses during a loop of flushes. */
#define WIN_POLL_ENGINE 64
static inline bool poll_own(ibex_win_t *win)
{
    ibex_tl_inst_t *inst = win->rtl;
    return inst && ++win->rpolls % WIN_POLL_ENGINE != 0 && inst->comp->ops.progress(inst->tl) > 0;
}

void ibex_win_wait_until(ibex_win_t *win, bool (*cond)(const ibex_win_t *win, int rank), int rank)
{
    int idle = 0, spins = 0;
    bool rec = false;
    if (!cond)
        cond = all_done;
    while (!cond(win, rank)) {
        if (poll_own(win))
            continue;
        ibex_wait_step(&idle);
        if (!rec && ibex_blk_due(&spins)) /* it has to wait: say for whom (ibex_blocked_win.h) */
            rec = ibex_win_blk_wait(win, blk_kind(cond), rank);
    }
    if (rec)
        ibex_blk_end();
}

void ibex_win_wait_done(ibex_win_t *win, volatile int *done)
{
    int idle = 0;
    while (!*done)
        if (!poll_own(win))
            ibex_wait_step(&idle);
}

/* A dynamic window's cached regions of other ranks may be stale once the program has
 * synchronised (a detach on the target is ordered before an epoch that follows it): each epoch
 * fetches them again on first use. */
static void rcache_drop(ibex_win_t *win)
{
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return;
    for (int r = 0; r < win->comm->size; r++)
        win->rcache_n[r] = 0;
}

static int fail(char *msg, size_t len, int cls, const char *what)
{
    snprintf(msg, len, "%s", what);
    return cls;
}

static int assert_check(int assert, char *msg, size_t len)
{
    if (assert & ~VALID_ASSERTS) {
        snprintf(msg, len, "invalid assertion 0x%x", (unsigned)assert);
        return MPI_ERR_ASSERT;
    }
    return MPI_SUCCESS;
}

/* Flushes every target in touched[] (or just rank: one look, not a walk over the window's
 * ranks), then waits for the answers. On the shared segment every operation completed when it
 * returned: only the processor's order is left. */
static __attribute__((noinline)) int flush_targets(ibex_win_t *win, int rank, char *msg, size_t len)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    int first = rank == IBEX_WIN_ALL ? 0 : rank;
    int last = rank == IBEX_WIN_ALL ? win->comm->size : rank + 1;
    for (int t = first; t < last; t++) {
        if (!win->touched[t])
            continue;
        if (ibex_win_ctl(win, WIN_FLUSH, t, 0) != IBEX_OK)
            return fail(msg, len, MPI_ERR_OTHER, "cannot send a flush");
        win->touched[t] = false;
    }
    if (rank == IBEX_WIN_ALL)
        ibex_win_wait_until(win, NULL, 0);
    else
        ibex_win_wait_until(win, target_done, rank);
    return MPI_SUCCESS;
}

int ibex_win_fence(ibex_win_t *win, int assert, char *msg, size_t len)
{
    IBEX_CHECK_RC(assert_check(assert, msg, len));
    if (ibex_win_busy(win))
        return fail(msg, len, MPI_ERR_RMA_SYNC,
                    "a lock, lock_all, start or post epoch is open on the window");
    IBEX_CHECK_RC(flush_targets(win, IBEX_WIN_ALL, msg, len));
    ibex_coll_args_t a = {.comm = win->comm};
    if (ibex_coll_run(IBEX_COLL_BARRIER, &a, 0) != IBEX_OK)
        return fail(msg, len, MPI_ERR_OTHER, "the fence's barrier failed");
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* stores on the shared segment before it */
    win->fence_ops = false;
    rcache_drop(win);
    if (assert & MPI_MODE_NOSUCCEED)
        win->epoch &= ~(unsigned)IBEX_WIN_EPOCH_FENCE;
    else
        win->epoch |= IBEX_WIN_EPOCH_FENCE;
    return MPI_SUCCESS;
}

/* A fence epoch with no operation yet gives way to another kind (as MPI's fence does: the
 * epoch it opens starts only with an operation); one with operations may not. */
static int leave_idle_fence(ibex_win_t *win, char *msg, size_t len)
{
    if (!(win->epoch & IBEX_WIN_EPOCH_FENCE))
        return MPI_SUCCESS;
    if (win->fence_ops)
        return fail(msg, len, MPI_ERR_RMA_SYNC,
                    "operations of a fence epoch are pending (call MPI_Win_fence first)");
    win->epoch &= ~(unsigned)IBEX_WIN_EPOCH_FENCE;
    return MPI_SUCCESS;
}

static int wait_grants(ibex_win_t *win, char *msg, size_t len)
{
    ibex_win_wait_until(win, NULL, 0);
    (void)msg;
    (void)len;
    return MPI_SUCCESS;
}

/* win->locked[]: what this origin holds on each target. */
enum { LOCK_SHARED = 1, LOCK_EXCL = 2, LOCK_NOCHECK = 4 };

static uint8_t lock_code(int type, bool nocheck)
{
    return (uint8_t)((type == MPI_LOCK_EXCLUSIVE ? LOCK_EXCL : LOCK_SHARED) |
                     (nocheck ? LOCK_NOCHECK : 0));
}

/* The lock word of target t on the shared segment (ibex_win_ctrl_t): taken by this CPU with no
 * action of the target; while it waits, progress serves what others ask of this rank. */
static void word_lock(ibex_win_t *win, int t, bool excl)
{
    uint32_t *w = &win->ctrl[t].lock;
    int idle = 0, spins = 0;
    bool rec = false;
    for (;;) {
        uint32_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
        bool free_now = excl ? v == 0 : !(v & IBEX_WIN_LOCK_EXCL);
        uint32_t nv = excl ? IBEX_WIN_LOCK_EXCL : v + 1;
        if (free_now &&
            __atomic_compare_exchange_n(w, &v, nv, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            break;
        if (!free_now)
            ibex_wait_step(&idle);
        if (!rec && ibex_blk_due(&spins))
            rec = ibex_win_blk_wait(win, IBEX_WIN_BLK_TARGET, t);
    }
    if (rec)
        ibex_blk_end();
}

static void word_unlock(ibex_win_t *win, int t, bool excl)
{
    uint32_t *w = &win->ctrl[t].lock;
    if (excl)
        __atomic_store_n(w, 0, __ATOMIC_RELEASE);
    else
        __atomic_fetch_sub(w, 1, __ATOMIC_RELEASE);
}

/* Takes the lock of target t: its lock word, or a request to its lock queue. */
static ibex_status_t lock_take(ibex_win_t *win, int t, int type)
{
    if (win->rdma)
        return ibex_win_rdma_lock(win, t, type == MPI_LOCK_EXCLUSIVE);
    if (win->ctrl) {
        word_lock(win, t, type == MPI_LOCK_EXCLUSIVE);
        return IBEX_OK;
    }
    return ibex_win_ctl(win, WIN_LOCK, t, type);
}

int ibex_win_lock(ibex_win_t *win, int type, int rank, int assert, char *msg, size_t len)
{
    IBEX_CHECK_RC(assert_check(assert, msg, len));
    if (type != MPI_LOCK_SHARED && type != MPI_LOCK_EXCLUSIVE) {
        snprintf(msg, len, "invalid lock type %d", type);
        return MPI_ERR_LOCKTYPE;
    }
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (win->locked[rank] || (win->epoch & (IBEX_WIN_EPOCH_LOCK_ALL | IBEX_WIN_EPOCH_START)))
        return fail(msg, len, MPI_ERR_RMA_SYNC,
                    "the target is already locked, or a lock_all / start epoch is open");
    IBEX_CHECK_RC(leave_idle_fence(win, msg, len));
    if (!(assert &MPI_MODE_NOCHECK)) {
        if (lock_take(win, rank, type) != IBEX_OK)
            return fail(msg, len, MPI_ERR_OTHER, "cannot send the lock request");
        ibex_win_wait_until(win, target_done, rank);
    }
    rcache_drop(win);
    win->locked[rank] = lock_code(type, assert &MPI_MODE_NOCHECK);
    win->nlocked++;
    return MPI_SUCCESS;
}

/* On the network direct path: every transfer and request to rank completes, then the lock
 * word is released by a remote atomic. */
static ibex_status_t rdma_unlock_one(ibex_win_t *win, int rank, int held, bool touched)
{
    if (touched && ibex_win_ctl(win, WIN_FLUSH, rank, 0) != IBEX_OK)
        return IBEX_ERR_NO_MEMORY;
    ibex_win_wait_until(win, target_done, rank);
    if (held & LOCK_NOCHECK)
        return IBEX_OK;
    return ibex_win_rdma_unlock(win, rank, held & LOCK_EXCL);
}

static ibex_status_t unlock_one(ibex_win_t *win, int rank)
{
    int held = win->locked[rank];
    bool touched = win->touched[rank];
    win->locked[rank] = 0;
    win->touched[rank] = false;
    if (win->rdma)
        return rdma_unlock_one(win, rank, held, touched);
    if (win->ctrl) { /* every operation is complete already */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (!(held & LOCK_NOCHECK))
            word_unlock(win, rank, held & LOCK_EXCL);
        return IBEX_OK;
    }
    if (held & LOCK_NOCHECK) /* no lock was taken: completion only */
        return ibex_win_ctl(win, WIN_FLUSH, rank, 0);
    return ibex_win_ctl(win, WIN_UNLOCK, rank,
                        (held & LOCK_EXCL) ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED);
}

int ibex_win_unlock(ibex_win_t *win, int rank, char *msg, size_t len)
{
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (!win->locked[rank])
        return fail(msg, len, MPI_ERR_RMA_SYNC, "the target is not locked by this process");
    if (unlock_one(win, rank) != IBEX_OK)
        return fail(msg, len, MPI_ERR_OTHER, "cannot send the unlock request");
    win->nlocked--;
    ibex_win_wait_until(win, target_done, rank);
    return MPI_SUCCESS;
}

int ibex_win_lock_all(ibex_win_t *win, int assert, char *msg, size_t len)
{
    IBEX_CHECK_RC(assert_check(assert, msg, len));
    if (win->nlocked || (win->epoch & (IBEX_WIN_EPOCH_LOCK_ALL | IBEX_WIN_EPOCH_START)))
        return fail(msg, len, MPI_ERR_RMA_SYNC,
                    "a lock, lock_all or start epoch is already open on the window");
    IBEX_CHECK_RC(leave_idle_fence(win, msg, len));
    for (int t = 0; t < win->comm->size; t++) {
        bool nocheck = assert &MPI_MODE_NOCHECK;
        if (!nocheck && lock_take(win, t, MPI_LOCK_SHARED) != IBEX_OK)
            return fail(msg, len, MPI_ERR_OTHER, "cannot send the lock requests");
        win->locked[t] = lock_code(MPI_LOCK_SHARED, nocheck);
    }
    win->epoch |= IBEX_WIN_EPOCH_LOCK_ALL;
    rcache_drop(win);
    return wait_grants(win, msg, len);
}

int ibex_win_unlock_all(ibex_win_t *win, char *msg, size_t len)
{
    if (!(win->epoch & IBEX_WIN_EPOCH_LOCK_ALL))
        return fail(msg, len, MPI_ERR_RMA_SYNC, "no lock_all epoch is open on the window");
    for (int t = 0; t < win->comm->size; t++)
        if (unlock_one(win, t) != IBEX_OK)
            return fail(msg, len, MPI_ERR_OTHER, "cannot send the unlock requests");
    win->epoch &= ~(unsigned)IBEX_WIN_EPOCH_LOCK_ALL;
    ibex_win_wait_until(win, NULL, 0);
    return MPI_SUCCESS;
}

bool ibex_win_flush_short(ibex_win_t *win, int rank)
{
    if (!(win->locked[rank] || (win->epoch & IBEX_WIN_EPOCH_LOCK_ALL)) || win->touched[rank])
        return false;
    /* nothing sent to the target but direct transfers: on the shared mapping none is in flight
       (the put + flush loop: only the processor's order is left), on the network direct path
       their completions are polled on its transport alone; the general flush (the engine's
       step, the hang record) only when a poll finds nothing */
    while (win->pending[rank] > 0 && poll_own(win))
        ;
    if (win->pending[rank] != 0)
        return false;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return true;
}

int ibex_win_flush(ibex_win_t *win, int rank, bool local, char *msg, size_t len)
{
    (void)local; /* local completion is no cheaper here: the data went with the request */
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank != IBEX_WIN_ALL && ibex_win_flush_short(win, rank))
        return MPI_SUCCESS;
    bool passive = (win->epoch & IBEX_WIN_EPOCH_LOCK_ALL) ||
                   (rank == IBEX_WIN_ALL ? win->nlocked > 0 : win->locked[rank] != 0);
    if (!passive)
        return fail(msg, len, MPI_ERR_RMA_SYNC, "no passive target epoch (lock) is open");
    return flush_targets(win, rank, msg, len);
}

/* Window ranks of a group's members; -1 for a process not in the window. */
static int group_check(const ibex_win_t *win, const ibex_group_t *g, char *msg, size_t len)
{
    for (int i = 0; i < g->size; i++) {
        bool found = false;
        for (int r = 0; r < win->comm->size && !found; r++)
            found = ibex_comm_world_rank(win->comm, r) == g->world_ranks[i];
        if (!found) {
            snprintf(msg, len, "member %d of the group is not in the window", i);
            return MPI_ERR_GROUP;
        }
    }
    return MPI_SUCCESS;
}

static int win_rank_of(const ibex_win_t *win, int world)
{
    for (int r = 0; r < win->comm->size; r++)
        if (ibex_comm_world_rank(win->comm, r) == world)
            return r;
    return -1;
}

int ibex_win_post(ibex_win_t *win, ibex_group_t *group, int assert, char *msg, size_t len)
{
    IBEX_CHECK_RC(assert_check(assert, msg, len));
    if (win->epoch & IBEX_WIN_EPOCH_POST)
        return fail(msg, len, MPI_ERR_RMA_SYNC, "an exposure epoch (post) is already open");
    IBEX_CHECK_RC(group_check(win, group, msg, len));
    IBEX_CHECK_RC(leave_idle_fence(win, msg, len));
    for (int i = 0; i < group->size; i++)
        if (ibex_win_ctl(win, WIN_POST, win_rank_of(win, group->world_ranks[i]), 0) != IBEX_OK)
            return fail(msg, len, MPI_ERR_OTHER, "cannot send the post notices");
    group->refcount++;
    win->post_group = group;
    win->epoch |= IBEX_WIN_EPOCH_POST;
    return MPI_SUCCESS;
}

static bool post_seen(const ibex_win_t *win, int rank)
{
    return win->post_seen[rank] > 0;
}

int ibex_win_start(ibex_win_t *win, ibex_group_t *group, int assert, char *msg, size_t len)
{
    IBEX_CHECK_RC(assert_check(assert, msg, len));
    if ((win->epoch & (IBEX_WIN_EPOCH_START | IBEX_WIN_EPOCH_LOCK_ALL)) || win->nlocked)
        return fail(msg, len, MPI_ERR_RMA_SYNC,
                    "an access epoch (start, lock or lock_all) is already open");
    IBEX_CHECK_RC(group_check(win, group, msg, len));
    IBEX_CHECK_RC(leave_idle_fence(win, msg, len));
    for (int i = 0; i < group->size && !(assert &MPI_MODE_NOCHECK); i++) {
        int r = win_rank_of(win, group->world_ranks[i]);
        ibex_win_wait_until(win, post_seen, r);
        win->post_seen[r]--;
    }
    group->refcount++;
    win->start_group = group;
    win->epoch |= IBEX_WIN_EPOCH_START;
    rcache_drop(win);
    return MPI_SUCCESS;
}

int ibex_win_complete(ibex_win_t *win, char *msg, size_t len)
{
    if (!(win->epoch & IBEX_WIN_EPOCH_START))
        return fail(msg, len, MPI_ERR_RMA_SYNC, "no access epoch (start) is open");
    ibex_group_t *g = win->start_group;
    ibex_win_wait_until(win, NULL, 0); /* replies of gets into the origin's buffers */
    for (int i = 0; i < g->size; i++) {
        int r = win_rank_of(win, g->world_ranks[i]);
        win->touched[r] = false;
        if (ibex_win_ctl(win, WIN_COMPLETE, r, 0) != IBEX_OK)
            return fail(msg, len, MPI_ERR_OTHER, "cannot send the complete notices");
    }
    ibex_group_release(g);
    win->start_group = NULL;
    win->epoch &= ~(unsigned)IBEX_WIN_EPOCH_START;
    return MPI_SUCCESS;
}

static bool completes_seen(const ibex_win_t *win, int rank)
{
    (void)rank;
    return win->complete_seen >= win->post_group->size;
}

int ibex_win_wait(ibex_win_t *win, bool test, int *flag, char *msg, size_t len)
{
    if (!(win->epoch & IBEX_WIN_EPOCH_POST))
        return fail(msg, len, MPI_ERR_RMA_SYNC, "no exposure epoch (post) is open");
    if (test) {
        if (!completes_seen(win, 0))
            ibex_poll_step();
        *flag = completes_seen(win, 0);
        if (!*flag) {
            ibex_win_blk_poll(win); /* a Win_test loop waits too (ibex_blocked_win.h) */
            return MPI_SUCCESS;
        }
    } else {
        ibex_win_wait_until(win, completes_seen, 0);
    }
    win->complete_seen -= win->post_group->size;
    ibex_group_release(win->post_group);
    win->post_group = NULL;
    win->epoch &= ~(unsigned)IBEX_WIN_EPOCH_POST;
    return MPI_SUCCESS;
}

/* Which one-sided wait a condition of ibex_win_wait_until is, for the blocked-call record. */
static ibex_win_blk_t blk_kind(bool (*cond)(const ibex_win_t *win, int rank))
{
    if (cond == completes_seen)
        return IBEX_WIN_BLK_COMPLETES;
    if (cond == post_seen)
        return IBEX_WIN_BLK_POST;
    if (cond == target_done)
        return IBEX_WIN_BLK_TARGET;
    return IBEX_WIN_BLK_ALL;
}
