/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Files' handle table and errors. A file's error handler is the one MPI_FILE_NULL had when it
 * was opened; MPI_FILE_NULL's is MPI_ERRORS_RETURN until the program sets another (MPI 4.1,
 * 9.3: the default for files). Errors of calls with no file yet (File_open, File_delete) and
 * of bad file handles go to MPI_FILE_NULL's handler. User handlers share the error handler
 * table of communicators (the function types differ only in the handle they are given).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ibex_err_internal.h"
#include "ibex_handle.h"
#include "ibex_io.h"

static ibex_handle_table_t files;
static bool files_ready;
static MPI_Errhandler null_errhandler = MPI_ERRORS_RETURN;

static ibex_handle_table_t *table(void)
{
    if (!files_ready) {
        ibex_handle_table_init(&files, IBEX_KIND_FILE, 1);
        files_ready = true;
    }
    return &files;
}

ibex_file_t *ibex_file_new(void)
{
    ibex_file_t *f = calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    f->handle = ibex_handle_alloc(table(), f);
    if (f->handle == -1) {
        free(f);
        return NULL;
    }
    f->fd = -1;
    f->errhandler = null_errhandler;
    f->comm = MPI_COMM_NULL;
    f->info = MPI_INFO_NULL;
    f->shared = MPI_WIN_NULL;
    return f;
}

void ibex_file_free(ibex_file_t *f)
{
    ibex_handle_release(table(), f->handle);
    free(f->name);
    free(f);
}

static int raise_v(MPI_Errhandler eh, MPI_File handle, const char *name, int errclass,
                   const char *call, const char *fmt, va_list ap)
{
    char cause[1024], what[600];
    vsnprintf(cause, sizeof(cause), fmt, ap);
    if (name)
        snprintf(what, sizeof(what), "the file '%s'", name);
    else
        snprintf(what, sizeof(what), "MPI_FILE_NULL");
    return ibex_mpi_error_obj(eh, handle, what, errclass, call, cause);
}

int ibex_file_error(ibex_file_t *f, int errclass, const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = raise_v(f->errhandler, f->handle, f->name, errclass, call, fmt, ap);
    va_end(ap);
    return rc;
}

int ibex_file_raise(MPI_File fh, int errclass, const char *call, const char *fmt, ...)
{
    ibex_file_t *f = fh == MPI_FILE_NULL ? NULL : ibex_handle_get(table(), fh);
    va_list ap;
    va_start(ap, fmt);
    int rc = f ? raise_v(f->errhandler, f->handle, f->name, errclass, call, fmt, ap)
               : raise_v(null_errhandler, MPI_FILE_NULL, NULL, errclass, call, fmt, ap);
    va_end(ap);
    return rc;
}

ibex_file_t *ibex_file_lookup(MPI_File handle, const char *call)
{
    ibex_file_t *f = handle == MPI_FILE_NULL ? NULL : ibex_handle_get(table(), handle);
    if (!f)
        ibex_file_raise(MPI_FILE_NULL, MPI_ERR_FILE, call, "invalid file handle 0x%x%s",
                        (unsigned)handle, handle == MPI_FILE_NULL ? " (MPI_FILE_NULL)" : "");
    return f;
}

int ibex_io_errno_class(int err)
{
    switch (err) {
    case ENOENT:
        return MPI_ERR_NO_SUCH_FILE;
    case EEXIST:
        return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM:
        return MPI_ERR_ACCESS;
    case EROFS:
        return MPI_ERR_READ_ONLY;
    case ENOSPC:
        return MPI_ERR_NO_SPACE;
    case EDQUOT:
        return MPI_ERR_QUOTA;
    case EISDIR:
    case ENOTDIR:
    case ENAMETOOLONG:
    case ELOOP:
        return MPI_ERR_BAD_FILE;
    case ETXTBSY:
        return MPI_ERR_FILE_IN_USE;
    default:
        return MPI_ERR_IO;
    }
}

int PMPI_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    IBEX_ENTER(File_create_errhandler);
    return PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)fn, errhandler);
}

/* On MPI_FILE_NULL these set and get the default handler of files opened later. */
int PMPI_File_set_errhandler(MPI_File fh, MPI_Errhandler errhandler)
{
    IBEX_ENTER(File_set_errhandler);
    ibex_file_t *f = fh == MPI_FILE_NULL ? NULL : ibex_file_lookup(fh, call);
    if (!f && fh != MPI_FILE_NULL)
        return MPI_ERR_FILE;
    if (!ibex_errhandler_valid(errhandler))
        return ibex_file_raise(fh, MPI_ERR_ARG, call, "invalid error handler 0x%x",
                               (unsigned)errhandler);
    if (f)
        f->errhandler = errhandler;
    else
        null_errhandler = errhandler;
    return MPI_SUCCESS;
}

int PMPI_File_get_errhandler(MPI_File fh, MPI_Errhandler *errhandler)
{
    IBEX_ENTER(File_get_errhandler);
    ibex_file_t *f = fh == MPI_FILE_NULL ? NULL : ibex_file_lookup(fh, call);
    if (!f && fh != MPI_FILE_NULL)
        return MPI_ERR_FILE;
    IBEX_ARGS(File_get_errhandler, fh, errhandler);
    *errhandler = f ? f->errhandler : null_errhandler;
    ibex_errhandler_ref(*errhandler); /* a new reference the program frees */
    return MPI_SUCCESS;
}

int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    IBEX_ENTER(File_call_errhandler);
    if (fh != MPI_FILE_NULL && !ibex_file_lookup(fh, call))
        return MPI_ERR_FILE;
    ibex_file_raise(fh, errorcode, call, "error code %d raised by the program", errorcode);
    return MPI_SUCCESS;
}

int PMPI_File_c2f(MPI_File fh)
{
    return fh;
}

int PMPI_File_f2c(MPI_Fint fh)
{
    return fh;
}

IBEX_MPI_ALIASES(file_err)
