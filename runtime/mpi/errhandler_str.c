/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Error classes as text: MPI_Error_string, MPI_Error_class, and the mapping from internal
 * status codes to classes. Every predefined code is its own class; the program's classes and
 * codes are err_user.c's.
 */
#include <stdio.h>
#include <string.h>

#include "ibex_err.h"
#include "ibex_err_internal.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

#define IBEX_ERR_CLASS_LIST(X)                                                                     \
    X(MPI_SUCCESS, "no error")                                                                     \
    X(MPI_ERR_BUFFER, "invalid buffer pointer")                                                    \
    X(MPI_ERR_COUNT, "invalid count argument")                                                     \
    X(MPI_ERR_TYPE, "invalid datatype")                                                            \
    X(MPI_ERR_TAG, "invalid tag")                                                                  \
    X(MPI_ERR_COMM, "invalid communicator")                                                        \
    X(MPI_ERR_RANK, "invalid rank")                                                                \
    X(MPI_ERR_REQUEST, "invalid request")                                                          \
    X(MPI_ERR_ROOT, "invalid root")                                                                \
    X(MPI_ERR_GROUP, "invalid group")                                                              \
    X(MPI_ERR_OP, "invalid reduction operation")                                                   \
    X(MPI_ERR_TOPOLOGY, "invalid topology")                                                        \
    X(MPI_ERR_DIMS, "invalid dimension argument")                                                  \
    X(MPI_ERR_ARG, "invalid argument of some other kind")                                          \
    X(MPI_ERR_UNKNOWN, "unknown error")                                                            \
    X(MPI_ERR_TRUNCATE, "message truncated on receive")                                            \
    X(MPI_ERR_OTHER, "known error not in this list")                                               \
    X(MPI_ERR_INTERN, "internal MPI (implementation) error")                                       \
    X(MPI_ERR_IN_STATUS, "error code is in status")                                                \
    X(MPI_ERR_PENDING, "pending request")                                                          \
    X(MPI_ERR_ACCESS, "permission denied")                                                         \
    X(MPI_ERR_AMODE, "error related to the amode passed to MPI_File_open")                         \
    X(MPI_ERR_ASSERT, "invalid assertion argument")                                                \
    X(MPI_ERR_BAD_FILE, "invalid file name")                                                       \
    X(MPI_ERR_BASE, "invalid base address")                                                        \
    X(MPI_ERR_CONVERSION, "error in a user data conversion function")                              \
    X(MPI_ERR_DISP, "invalid displacement argument")                                               \
    X(MPI_ERR_DUP_DATAREP, "data representation identifier already registered")                    \
    X(MPI_ERR_FILE_EXISTS, "file exists")                                                          \
    X(MPI_ERR_FILE_IN_USE, "file operation could not be completed: file in use")                   \
    X(MPI_ERR_FILE, "invalid file handle")                                                         \
    X(MPI_ERR_INFO_KEY, "info key too long")                                                       \
    X(MPI_ERR_INFO_NOKEY, "info key not defined")                                                  \
    X(MPI_ERR_INFO_VALUE, "info value too long")                                                   \
    X(MPI_ERR_INFO, "invalid info object")                                                         \
    X(MPI_ERR_IO, "other I/O error")                                                               \
    X(MPI_ERR_KEYVAL, "invalid attribute key")                                                     \
    X(MPI_ERR_LOCKTYPE, "invalid lock type")                                                       \
    X(MPI_ERR_NAME, "invalid service name")                                                        \
    X(MPI_ERR_NO_MEM, "out of memory (MPI_Alloc_mem)")                                             \
    X(MPI_ERR_NOT_SAME, "collective argument not identical on all processes")                      \
    X(MPI_ERR_NO_SPACE, "not enough space")                                                        \
    X(MPI_ERR_NO_SUCH_FILE, "file does not exist")                                                 \
    X(MPI_ERR_PORT, "invalid port name")                                                           \
    X(MPI_ERR_QUOTA, "quota exceeded")                                                             \
    X(MPI_ERR_READ_ONLY, "read-only file or file system")                                          \
    X(MPI_ERR_RMA_CONFLICT, "conflicting accesses to a window")                                    \
    X(MPI_ERR_RMA_SYNC, "wrong synchronization of RMA calls")                                      \
    X(MPI_ERR_SERVICE, "invalid service name (MPI_Unpublish_name)")                                \
    X(MPI_ERR_SIZE, "invalid size argument")                                                       \
    X(MPI_ERR_SPAWN, "error in spawning processes")                                                \
    X(MPI_ERR_UNSUPPORTED_DATAREP, "unsupported data representation")                              \
    X(MPI_ERR_UNSUPPORTED_OPERATION, "unsupported operation")                                      \
    X(MPI_ERR_WIN, "invalid window")                                                               \
    X(MPI_ERR_RMA_RANGE, "target memory outside the window")                                       \
    X(MPI_ERR_RMA_ATTACH, "memory cannot be attached")                                             \
    X(MPI_ERR_RMA_SHARED, "memory cannot be shared")                                               \
    X(MPI_ERR_RMA_FLAVOR, "wrong window flavor")                                                   \
    X(MPI_ERR_PROC_ABORTED, "operation involved a process that failed or aborted")                 \
    X(MPI_ERR_VALUE_TOO_LARGE, "value too large to store")                                         \
    X(MPI_ERR_SESSION, "invalid session")                                                          \
    X(MPI_ERR_ERRHANDLER, "invalid error handler")                                                 \
    X(MPI_T_ERR_MEMORY, "tools interface: out of memory")                                          \
    X(MPI_T_ERR_NOT_INITIALIZED, "tools interface: not initialized")                               \
    X(MPI_T_ERR_CANNOT_INIT, "tools interface: cannot be initialized")                             \
    X(MPI_T_ERR_INVALID_INDEX, "tools interface: invalid index")                                   \
    X(MPI_T_ERR_INVALID_ITEM, "tools interface: invalid item index")                               \
    X(MPI_T_ERR_INVALID_HANDLE, "tools interface: invalid handle")                                 \
    X(MPI_T_ERR_OUT_OF_HANDLES, "tools interface: no more handles")                                \
    X(MPI_T_ERR_OUT_OF_SESSIONS, "tools interface: no more sessions")                              \
    X(MPI_T_ERR_INVALID_SESSION, "tools interface: invalid session")                               \
    X(MPI_T_ERR_CVAR_SET_NOT_NOW, "tools interface: control variable cannot be set now")           \
    X(MPI_T_ERR_CVAR_SET_NEVER, "tools interface: control variable can never be set")              \
    X(MPI_T_ERR_PVAR_NO_STARTSTOP, "tools interface: performance variable cannot be started")      \
    X(MPI_T_ERR_PVAR_NO_WRITE, "tools interface: performance variable cannot be written")          \
    X(MPI_T_ERR_PVAR_NO_ATOMIC, "tools interface: performance variable cannot be read atomically") \
    X(MPI_T_ERR_INVALID_NAME, "tools interface: invalid name")                                     \
    X(MPI_T_ERR_INVALID, "tools interface: invalid use")                                           \
    X(MPI_T_ERR_NOT_SUPPORTED, "tools interface: not supported")                                   \
    X(MPI_T_ERR_NOT_ACCESSIBLE, "tools interface: not accessible")

#define IBEX_ERR_ROW(cls, text) [cls] = {#cls, text},
static const struct {
    const char *name, *text;
} err_classes[MPI_ERR_LASTCODE + 1] = {IBEX_ERR_CLASS_LIST(IBEX_ERR_ROW)};
#undef IBEX_ERR_ROW

const char *ibex_err_class_name(int errclass)
{
    if (errclass < MPI_SUCCESS || errclass > MPI_ERR_LASTCODE)
        return NULL;
    return err_classes[errclass].name;
}

const char *ibex_err_class_text(int errclass)
{
    if (errclass < MPI_SUCCESS || errclass > MPI_ERR_LASTCODE)
        return NULL;
    return err_classes[errclass].text;
}

int ibex_err_exit_code(int errclass)
{
    if (errclass <= MPI_SUCCESS || errclass > MPI_ERR_LASTCODE)
        return MPI_ERR_UNKNOWN;
    return errclass;
}

int ibex_err_class_of(ibex_status_t status)
{
    switch (status) {
    case IBEX_OK:
    case IBEX_INPROGRESS:
    case IBEX_ERR_CANCELED: /* a cancelled request completes successfully, flagged cancelled */
        return MPI_SUCCESS;
    case IBEX_ERR_NO_MEMORY:
        return MPI_ERR_NO_MEM;
    case IBEX_ERR_INVALID:
        return MPI_ERR_ARG;
    case IBEX_ERR_UNSUPPORTED:
        return MPI_ERR_UNSUPPORTED_OPERATION;
    case IBEX_ERR_TRUNCATE:
        return MPI_ERR_TRUNCATE;
    case IBEX_ERR_UNREACHABLE:
    case IBEX_ERR_PEER_FAILED:
        return MPI_ERR_PROC_ABORTED;
    case IBEX_ERR_INTERNAL:
        return MPI_ERR_INTERN;
    case IBEX_ERR_AGAIN:
    case IBEX_ERR_NO_CONTEXT:
    case IBEX_ERR_IO:
    case IBEX_ERR_NO_DEVICE:
    case IBEX_ERR_TIMEOUT:
    case IBEX_ERR_REMOTE:
    case IBEX_ERR_BOOTSTRAP:
        return MPI_ERR_OTHER;
    }
    return MPI_ERR_UNKNOWN;
}

/* Codes outside the range still get a string (not an error): a program that prints a code it
 * got from elsewhere should see what it was, not abort in its error path. */
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    IBEX_ENTER_ANYTIME(Error_string);
    if (!string || !resultlen)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "%s is NULL",
                              string ? "resultlen" : "string");
    const char *name = ibex_err_class_name(errorcode), *user = ibex_err_user_string(errorcode);
    int len;
    if (user)
        len = snprintf(string, MPI_MAX_ERROR_STRING, "%s", user);
    else if (name)
        len =
            snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", name, ibex_err_class_text(errorcode));
    else
        len = snprintf(string, MPI_MAX_ERROR_STRING, "unknown error code %d", errorcode);
    *resultlen = len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}

int PMPI_Error_class(int errorcode, int *errorclass)
{
    IBEX_ENTER_ANYTIME(Error_class);
    IBEX_ARGS(Error_class, errorclass);
    int user = ibex_err_user_class(errorcode);
    if (!ibex_err_class_name(errorcode) && user < 0)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "unknown error code %d", errorcode);
    *errorclass = user >= 0 ? user : errorcode;
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(errhandler_str)
