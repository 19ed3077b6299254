/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The window entry points' shared pieces (win_api.c, win_err.c, win_rma_api.c,
 * win_sync_api.c): the window handle table and errors raised on the window's handler.
 */
#ifndef IBEX_WIN_API_H
#define IBEX_WIN_API_H

#include <mpi.h>

#include "ibex_datatype.h"
#include "ibex_entry.h"
#include "ibex_handle.h"
#include "ibex_runtime.h"
#include "ibex_win.h"

/* The window handle table (win_api.c). */
extern ibex_handle_table_t ibex_win_table;
/* Raises MPI_ERR_WIN (default handler) for a bad handle; NULL. */
ibex_win_t *ibex_win_lookup_failed(MPI_Win handle, const char *call);
/* The window of a handle; on a bad handle raises MPI_ERR_WIN (default handler), NULL. Inline:
 * every one-sided call looks its window up (a call of 40 instructions per put + flush). */
static inline ibex_win_t *ibex_win_lookup(MPI_Win handle, const char *call)
{
    ibex_win_t *w = ibex_win_table.kind ? ibex_handle_get(&ibex_win_table, handle) : NULL;
    return w ? w : ibex_win_lookup_failed(handle, call);
}
/* Raises an error on the window's handler (MPI_ERRORS_ARE_FATAL unless set) and returns the
 * class. */
int ibex_win_error(ibex_win_t *win, int errclass, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* User window attributes (win_attr.c): MPI_Win_get_attr of a user keyval (MPI_ERR_KEYVAL,
 * raised on the window, when it is none); MPI_Win_free runs the delete callbacks first (the code of
 * the first that fails, which leaves the rest). */
int ibex_win_attr_get(ibex_win_t *w, const char *call, int keyval, void *attribute_val, int *flag);
int ibex_win_attr_delete_all(ibex_win_t *w);

#define IBEX_ENTER_WIN(name, handle, w)                                                            \
    IBEX_ENTER(name);                                                                              \
    ibex_win_t *w = ibex_win_lookup((handle), call);                                               \
    if (!w)                                                                                        \
    return MPI_ERR_WIN

/* IBEX_ENTER_WIN of the latency-bound calls (MPI_Put, MPI_Get, the one-element atomics,
 * MPI_Win_flush): that MPI is running and the window's handle are tested in one inline (a
 * hot handle: ibex_handle_get_k, a subtraction, a compare and a load), as the point-to-point
 * entry does; at the first doubt the initialisation check and the general lookup run, with
 * their errors, in IBEX_ENTER_WIN's order. Saves the call of the initialisation check and the
 * general lookup's kind test. */
static inline ibex_win_t *ibex_win_lookup_fast(MPI_Win handle, const char *call)
{
    ibex_win_t *w;
    if (__builtin_expect(ibex_rt.running, 1) && ibex_win_table.kind &&
        (w = ibex_handle_get_k(&ibex_win_table, IBEX_KIND_WIN, handle)) != NULL)
        return w;
    if (ibex_check_initialized(call) != MPI_SUCCESS)
        return NULL; /* not reached: it aborts */
    return ibex_win_lookup(handle, call);
}

#define IBEX_ENTER_WIN_FAST(name, handle, w)                                                       \
    IBEX_ENTER_FAST(name);                                                                         \
    ibex_win_t *w = ibex_win_lookup_fast((handle), call);                                          \
    if (!w)                                                                                        \
    return MPI_ERR_WIN

/* A datatype of the latency-bound calls' in-place checks: ibex_dt_get by the constant kind. */
static inline ibex_dt_t *ibex_win_dt(MPI_Datatype handle)
{
    return ibex_handle_get_k(&ibex_dt_handles, IBEX_KIND_DATATYPE, handle);
}

#define IBEX_WIN_ERROR(w, errclass, ...) ibex_win_error((w), (errclass), call, __VA_ARGS__)

/* A message-carrying result of runtime/win: raised on the window when not MPI_SUCCESS. */
#define IBEX_WIN_CHECK(w, expr)                                                                    \
    do {                                                                                           \
        char ibex_msg_[512]; /* only the first byte: zeroing 512 costs the flush loop */           \
        ibex_msg_[0] = '\0';                                                                       \
        int ibex_rc_ = (expr);                                                                     \
        if (ibex_rc_ != MPI_SUCCESS)                                                               \
            return ibex_win_error((w), ibex_rc_, call, "%s", ibex_msg_);                           \
    } while (0)

#endif
