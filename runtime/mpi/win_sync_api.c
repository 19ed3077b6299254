/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Window synchronisation entry points: fence, lock / unlock, lock_all / unlock_all, the
 * flushes, sync, post / start / complete / wait / test. The rules and the waiting are in
 * runtime/win/win_sync.c; errors (MPI_ERR_RMA_SYNC for a call out of its epoch) are raised on
 * the window's handler.
 */
#include "ibex_request.h"
#include "ibex_win_api.h"

#define WIN_CALL(w, fn, ...) IBEX_WIN_CHECK(w, fn(w, __VA_ARGS__, ibex_msg_, sizeof(ibex_msg_)))

static int rank_check(ibex_win_t *w, const char *call, int rank)
{
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->comm->size))
        return IBEX_WIN_ERROR(w, MPI_ERR_RANK, "invalid rank %d (window of %d ranks)", rank,
                              w->comm->size);
    return MPI_SUCCESS;
}

static int group_of(ibex_win_t *w, const char *call, MPI_Group handle, ibex_group_t **g_p)
{
    *g_p = ibex_group_get(handle);
    if (!*g_p)
        return IBEX_WIN_ERROR(w, MPI_ERR_GROUP, "invalid group 0x%x", (unsigned)handle);
    return MPI_SUCCESS;
}

int PMPI_Win_fence(int assert, MPI_Win win)
{
    IBEX_ENTER_WIN(Win_fence, win, w);
    WIN_CALL(w, ibex_win_fence, assert);
    return MPI_SUCCESS;
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    IBEX_ENTER_WIN(Win_lock, win, w);
    IBEX_CHECK(rank_check(w, call, rank));
    WIN_CALL(w, ibex_win_lock, lock_type, rank, assert);
    return MPI_SUCCESS;
}

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    IBEX_ENTER_WIN(Win_unlock, win, w);
    IBEX_CHECK(rank_check(w, call, rank));
    WIN_CALL(w, ibex_win_unlock, rank);
    return MPI_SUCCESS;
}

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    IBEX_ENTER_WIN(Win_lock_all, win, w);
    WIN_CALL(w, ibex_win_lock_all, assert);
    return MPI_SUCCESS;
}

int PMPI_Win_unlock_all(MPI_Win win)
{
    IBEX_ENTER_WIN(Win_unlock_all, win, w);
    IBEX_WIN_CHECK(w, ibex_win_unlock_all(w, ibex_msg_, sizeof(ibex_msg_)));
    return MPI_SUCCESS;
}

static int flush(ibex_win_t *w, const char *call, int rank, bool local)
{
    if (rank != IBEX_WIN_ALL)
        IBEX_CHECK(rank_check(w, call, rank));
    WIN_CALL(w, ibex_win_flush, rank, local);
    return MPI_SUCCESS;
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
    IBEX_ENTER_WIN_FAST(Win_flush, win, w);
    if ((unsigned)rank < (unsigned)w->comm->size && ibex_win_flush_short(w, rank))
        return MPI_SUCCESS; /* the latency-bound loop: no frame of the general flush */
    return flush(w, call, rank, false);
}

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    IBEX_ENTER_WIN(Win_flush_local, win, w);
    return flush(w, call, rank, true);
}

int PMPI_Win_flush_all(MPI_Win win)
{
    IBEX_ENTER_WIN(Win_flush_all, win, w);
    return flush(w, call, IBEX_WIN_ALL, false);
}

int PMPI_Win_flush_local_all(MPI_Win win)
{
    IBEX_ENTER_WIN(Win_flush_local_all, win, w);
    return flush(w, call, IBEX_WIN_ALL, true);
}

int PMPI_Win_sync(MPI_Win win)
{
    IBEX_ENTER_WIN(Win_sync, win, w);
    (void)w;
    /* one copy of the window (MPI_WIN_UNIFIED): only the processor's ordering to enforce */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    ibex_progress();
    return MPI_SUCCESS;
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    IBEX_ENTER_WIN(Win_post, win, w);
    ibex_group_t *g;
    IBEX_CHECK(group_of(w, call, group, &g));
    WIN_CALL(w, ibex_win_post, g, assert);
    return MPI_SUCCESS;
}

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    IBEX_ENTER_WIN(Win_start, win, w);
    ibex_group_t *g;
    IBEX_CHECK(group_of(w, call, group, &g));
    WIN_CALL(w, ibex_win_start, g, assert);
    return MPI_SUCCESS;
}

int PMPI_Win_complete(MPI_Win win)
{
    IBEX_ENTER_WIN(Win_complete, win, w);
    IBEX_WIN_CHECK(w, ibex_win_complete(w, ibex_msg_, sizeof(ibex_msg_)));
    return MPI_SUCCESS;
}

int PMPI_Win_wait(MPI_Win win)
{
    IBEX_ENTER_WIN(Win_wait, win, w);
    int flag;
    WIN_CALL(w, ibex_win_wait, false, &flag);
    return MPI_SUCCESS;
}

int PMPI_Win_test(MPI_Win win, int *flag)
{
    IBEX_ENTER_WIN(Win_test, win, w);
    if (!flag)
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "flag is NULL");
    WIN_CALL(w, ibex_win_wait, true, flag);
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(win_sync_api)
