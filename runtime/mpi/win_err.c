/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Window error handlers. A window's handler is MPI_ERRORS_ARE_FATAL until the program sets
 * one (MPI 4.1, 12.6); user handlers share the error handler table of communicators (the
 * function types differ only in the handle they are given, an int in both).
 */
#include <stdarg.h>
#include <stdio.h>

#include "ibex_err_internal.h"
#include "ibex_handle.h"
#include "ibex_win_api.h"

int ibex_win_error(ibex_win_t *win, int errclass, const char *call, const char *fmt, ...)
{
    char cause[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cause, sizeof(cause), fmt, ap);
    va_end(ap);
    const char *name = win->name[0] ? win->name : "the window";
    return ibex_mpi_error_obj(win->errhandler, win->handle, name, errclass, call, cause);
}

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    IBEX_ENTER(Win_create_errhandler);
    return PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)fn, errhandler);
}

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    IBEX_ENTER_WIN(Win_set_errhandler, win, w);
    if (!ibex_errhandler_valid(errhandler))
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "invalid error handler 0x%x", (unsigned)errhandler);
    w->errhandler = errhandler;
    return MPI_SUCCESS;
}

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    IBEX_ENTER_WIN(Win_get_errhandler, win, w);
    if (!errhandler)
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "errhandler is NULL");
    ibex_errhandler_ref(w->errhandler); /* a new reference the program frees */
    *errhandler = w->errhandler;
    return MPI_SUCCESS;
}

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    IBEX_ENTER_WIN(Win_call_errhandler, win, w);
    IBEX_WIN_ERROR(w, errorcode, "error code %d raised by the program", errorcode);
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(win_err)
