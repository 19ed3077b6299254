/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The blocked-call record of one-sided synchronisation (runtime/engine/ibex_blocked_rec.h): what
 * a wait of win_sync.c / win_rdma.c waits for, written once when it lasts. Two kinds of item:
 *   - a call of the peer's program (IBEX_BLK_OP_SYNC): MPI_Win_start waits for the target's
 *     MPI_Win_post, MPI_Win_wait for the origins' MPI_Win_complete; these make deadlocks;
 *   - work the peer's progress engine does whatever its program is blocked in (IBEX_BLK_OP_RMA):
 *     a flush, an unlock, a lock request or a reply at the target; only a target that has left
 *     MPI cannot serve it, so these never make a knot (a lock held by a third rank that never
 *     unlocks is shown, not claimed as a deadlock: the holder is not known here).
 * The fence's barrier is a collective and records itself (collectives/base).
 */
#include <stdio.h>

#include "ibex_blocked_win.h"

#include "ibex_blocked_rec.h"

static int blk_win_rank(const ibex_win_t *win, int world)
{
    for (int r = 0; r < win->comm->size; r++)
        if (ibex_comm_world_rank(win->comm, r) == world)
            return r;
    return -1;
}

/* MPI_Win_wait: every origin of the post group that has not completed. Only a count of the
 * completes is kept, so once some have come the wait is an OR over the group (any one of them
 * may be the one still to come: never a deadlock claimed that is not one). */
static void blk_win_completes(const ibex_win_t *win)
{
    const ibex_group_t *g = win->post_group;
    for (int i = 0; g && i < g->size; i++) {
        int r = blk_win_rank(win, g->world_ranks[i]);
        if (r >= 0)
            ibex_blk_add(win->comm, IBEX_BLK_OP_SYNC, r, IBEX_BLK_NO_TAG, 0);
    }
}

/* Every target with replies still to come (a fence's flush, MPI_Win_complete, unlock_all). */
static void blk_win_pending(const ibex_win_t *win)
{
    for (int t = 0; t < win->comm->size; t++)
        if (win->pending && win->pending[t] > 0)
            ibex_blk_add(win->comm, IBEX_BLK_OP_RMA, t, IBEX_BLK_NO_TAG, 0);
}

/* The window, in the communicator's place: "win 0x3 (comm 0x5)", or the window's name. */
static void blk_win_name(const ibex_win_t *win)
{
    ibex_blk_page_t *pg = ibex_blk.page;
    if (win->name[0])
        snprintf(pg->comm_name, sizeof(pg->comm_name), "%.31s", win->name);
    else
        snprintf(pg->comm_name, sizeof(pg->comm_name), "win 0x%x (comm 0x%x)",
                 (unsigned)win->handle, (unsigned)win->comm->context_id);
    pg->ctx = win->comm->context_id;
    pg->comm_size = win->comm->size;
}

bool ibex_win_blk_wait(const ibex_win_t *win, ibex_win_blk_t kind, int rank)
{
    ibex_blk_begin(kind == IBEX_WIN_BLK_COMPLETES && win->complete_seen > 0);
    switch (kind) {
    case IBEX_WIN_BLK_COMPLETES:
        blk_win_completes(win);
        break;
    case IBEX_WIN_BLK_POST:
        ibex_blk_add(win->comm, IBEX_BLK_OP_SYNC, rank, IBEX_BLK_NO_TAG, 0);
        break;
    case IBEX_WIN_BLK_TARGET:
        ibex_blk_add(win->comm, IBEX_BLK_OP_RMA, rank, IBEX_BLK_NO_TAG, 0);
        break;
    case IBEX_WIN_BLK_ALL:
        blk_win_pending(win);
        break;
    }
    blk_win_name(win);
    ibex_blk_commit();
    return true;
}

void ibex_win_blk_poll(const ibex_win_t *win)
{
    if (!ibex_blk_poll_wanted())
        return;
    ibex_blk_poll_begin(win->complete_seen > 0);
    const ibex_group_t *g = win->post_group;
    for (int i = 0; g && i < g->size; i++) {
        int r = blk_win_rank(win, g->world_ranks[i]);
        if (r >= 0)
            ibex_blk_poll_add(win->comm, IBEX_BLK_OP_SYNC, r, IBEX_BLK_NO_TAG);
    }
    ibex_blk_poll_commit();
}
