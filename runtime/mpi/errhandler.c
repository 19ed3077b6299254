/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Error handlers: ibex_mpi_error() and the MPI_Comm_*_errhandler / MPI_Errhandler_* calls.
 *
 * Errors are raised on the communicator's handler. Errors not tied to a communicator (bad
 * communicator handle, MPI_Error_class on a bad code, MPI_Alloc_mem, ...) go to MPI_COMM_SELF's
 * handler if the program set one there explicitly, else to MPI_COMM_WORLD's. MPI-4 names
 * MPI_COMM_SELF, but nearly every program that wants errors returned sets MPI_ERRORS_RETURN on
 * MPI_COMM_WORLD only and expects it to cover such errors too (as Open MPI and MPICH do).
 *
 * MPI_ERRORS_ARE_FATAL and MPI_ERRORS_ABORT print one message naming the rank, host, call and
 * cause, then end the whole job through PMIx with the error class as exit status (see
 * ibex_err_exit_code). MPI_ERRORS_ABORT would only need to end the communicator's processes,
 * but the launcher can only end a whole job, which MPI allows.
 *
 * User handlers are never deallocated while the process runs: a communicator keeps using its
 * handler after MPI_Errhandler_free, as MPI requires, without the communicator code having to
 * count references. A freed handle can no longer be attached to a communicator.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ibex_comm.h"
#include "ibex_err.h"
#include "ibex_err_internal.h"
#include "ibex_handle.h"
#include "ibex_log.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

typedef struct ibex_errhandler {
    MPI_Comm_errhandler_function *fn;
    int refs; /* handles the program holds (create, get); 0 once freed */
} ibex_errhandler_t;

#define ERRHANDLER_FIRST_DYNAMIC 4

static ibex_handle_table_t errhandler_table;
static ibex_errhandler_t predefined[ERRHANDLER_FIRST_DYNAMIC];

/* Created on first use: errors may be raised before MPI_Init. */
static ibex_handle_table_t *errhandler_table_get(void)
{
    if (errhandler_table.kind == 0) {
        ibex_handle_table_init(&errhandler_table, IBEX_KIND_ERRHANDLER, ERRHANDLER_FIRST_DYNAMIC);
        for (int i = 1; i < ERRHANDLER_FIRST_DYNAMIC; i++)
            ibex_handle_set(&errhandler_table, i, &predefined[i]);
    }
    return &errhandler_table;
}

static bool errhandler_is_predefined(MPI_Errhandler eh)
{
    return eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ABORT;
}

/* A user handler the program still holds, or NULL. */
static ibex_errhandler_t *errhandler_user_get(MPI_Errhandler eh)
{
    if (errhandler_is_predefined(eh))
        return NULL;
    ibex_errhandler_t *h = ibex_handle_get(errhandler_table_get(), eh);
    return h && h->refs > 0 ? h : NULL;
}

struct ibex_comm *ibex_err_default_comm(void)
{
    if (ibex_comm_self && ibex_comm_self->errhandler_set)
        return ibex_comm_self;
    return ibex_comm_world;
}

static const char *errhandler_name(MPI_Errhandler eh)
{
    if (eh == MPI_ERRORS_RETURN)
        return "MPI_ERRORS_RETURN";
    if (eh == MPI_ERRORS_ABORT)
        return "MPI_ERRORS_ABORT";
    if (eh == MPI_ERRORS_ARE_FATAL)
        return "MPI_ERRORS_ARE_FATAL";
    return "a user error handler";
}

/* "ibex: rank 1 (node1): MPI_Send: invalid rank 5 (communicator size 4) [MPI_ERR_RANK]" */
static void err_format(char *buf, size_t len, int errclass, const char *call, const char *cause)
{
    const char *name = ibex_err_class_name(errclass);
    char who[320] = "";
    if (ibex_rt.boot.size > 0)
        snprintf(who, sizeof(who), "rank %d (%s): ", ibex_rt.boot.rank, ibex_rt.boot.hostname);
    if (name)
        snprintf(buf, len, "ibex: %s%s: %s [%s]", who, call, cause, name);
    else
        snprintf(buf, len, "ibex: %s%s: %s [error code %d]", who, call, cause, errclass);
}

static void __attribute__((noreturn))
err_fatal(ibex_comm_t *comm, MPI_Errhandler eh, int errclass, const char *msg)
{
    char full[2048];
    int code = ibex_err_exit_code(errclass);
    const char *cname = comm && comm->name[0] ? comm->name : "the communicator";
    if (comm)
        snprintf(full, sizeof(full),
                 "%s\nibex: error handler %s on %s: aborting the job (exit "
                 "code %d)",
                 msg, errhandler_name(eh), cname, code);
    else
        snprintf(full, sizeof(full), "%s\nibex: aborting (exit code %d)", msg, code);
    ibex_boot_abort(code, full);
}

static __thread MPI_Errhandler err_start_eh = MPI_ERRHANDLER_NULL;

void ibex_err_set_start_handler(MPI_Errhandler eh)
{
    err_start_eh = eh;
}

int ibex_mpi_error(struct ibex_comm *comm, int errclass, const char *call, const char *fmt, ...)
{
    char cause[1024], msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cause, sizeof(cause), fmt, ap);
    va_end(ap);
    if (!comm && err_start_eh != MPI_ERRHANDLER_NULL)
        return ibex_mpi_error_obj(err_start_eh, MPI_SESSION_NULL, "the session", errclass, call,
                                  cause);
    err_format(msg, sizeof(msg), errclass, call, cause);
    if (!comm)
        comm = ibex_err_default_comm();
    MPI_Errhandler eh = comm ? comm->errhandler : MPI_ERRORS_ARE_FATAL;
    if (eh == MPI_ERRORS_RETURN) {
        ibex_debug(CORE, "%s (returned: MPI_ERRORS_RETURN)", msg);
        return errclass;
    }
    ibex_errhandler_t *h = errhandler_user_get(eh);
    if (!h && !errhandler_is_predefined(eh)) {
        /* A handler freed by the program stays valid for the communicators that use it. */
        h = ibex_handle_get(errhandler_table_get(), eh);
    }
    if (h && h->fn) {
        MPI_Comm handle = comm->handle;
        int code = errclass;
        ibex_debug(CORE, "%s (calling the user error handler)", msg);
        h->fn(&handle, &code);
        return errclass;
    }
    err_fatal(comm, eh, errclass, msg);
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    IBEX_ENTER(Comm_create_errhandler);
    if (!fn || !errhandler)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "%s is NULL", fn ? "errhandler" : "fn");
    ibex_errhandler_t *h = calloc(1, sizeof(*h));
    if (!h)
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    h->fn = fn;
    h->refs = 1;
    int handle = ibex_handle_alloc(errhandler_table_get(), h);
    if (handle < 0) {
        free(h);
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory for handles");
    }
    *errhandler = handle;
    return MPI_SUCCESS;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    IBEX_ENTER_COMM(Comm_set_errhandler, comm, c);
    if (!errhandler_is_predefined(errhandler) && !errhandler_user_get(errhandler))
        return ibex_mpi_error(c, MPI_ERR_ARG, call, "invalid error handler 0x%x%s",
                              (unsigned)errhandler,
                              errhandler == MPI_ERRHANDLER_NULL ? " (MPI_ERRHANDLER_NULL)" : "");
    c->errhandler = errhandler;
    c->errhandler_set = true;
    return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    IBEX_ENTER_COMM(Comm_get_errhandler, comm, c);
    IBEX_ARGS(Comm_get_errhandler, errhandler);
    /* MPI: the returned handle is a new reference the program frees. */
    ibex_errhandler_t *h = ibex_handle_get(errhandler_table_get(), c->errhandler);
    if (h && !errhandler_is_predefined(c->errhandler))
        h->refs++;
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    IBEX_ENTER_COMM(Comm_call_errhandler, comm, c);
    ibex_mpi_error(c, errorcode, call, "error code %d raised by the program", errorcode);
    /* MPI: success once the handler has been called and returned. */
    return MPI_SUCCESS;
}

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    IBEX_ENTER(Errhandler_free);
    IBEX_ARGS(Errhandler_free, errhandler);
    if (errhandler_is_predefined(*errhandler))
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "%s is predefined and cannot be freed",
                              errhandler_name(*errhandler));
    ibex_errhandler_t *h = errhandler_user_get(*errhandler);
    if (!h)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "invalid error handler 0x%x",
                              (unsigned)*errhandler);
    h->refs--;
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

/* ---- for other objects' handlers (windows: win_err.c) ---- */

bool ibex_errhandler_valid(MPI_Errhandler eh)
{
    return errhandler_is_predefined(eh) || errhandler_user_get(eh) != NULL;
}

void ibex_errhandler_ref(MPI_Errhandler eh)
{
    ibex_errhandler_t *h = errhandler_user_get(eh);
    if (h)
        h->refs++;
}

int ibex_mpi_error_obj(MPI_Errhandler eh, int obj, const char *obj_name, int errclass,
                       const char *call, const char *cause)
{
    char msg[1536], full[2048];
    err_format(msg, sizeof(msg), errclass, call, cause);
    if (eh == MPI_ERRORS_RETURN) {
        ibex_debug(CORE, "%s (returned: MPI_ERRORS_RETURN)", msg);
        return errclass;
    }
    ibex_errhandler_t *h =
        errhandler_is_predefined(eh) ? NULL : ibex_handle_get(errhandler_table_get(), eh);
    if (h && h->fn) {
        int code = errclass;
        ibex_debug(CORE, "%s (calling the user error handler)", msg);
        h->fn(&obj, &code);
        return errclass;
    }
    int code = ibex_err_exit_code(errclass);
    snprintf(full, sizeof(full),
             "%s\nibex: error handler %s on %s: aborting the job (exit code %d)", msg,
             errhandler_name(eh), obj_name, code);
    ibex_boot_abort(code, full);
}

IBEX_MPI_ALIASES(errhandler)
