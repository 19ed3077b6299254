/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal status codes. 0 is success, 1 means "started, completes later", negative values are
 * errors. MPI error classes exist only at the MPI boundary (ibex_err.h maps between them).
 */
#ifndef IBEX_STATUS_H
#define IBEX_STATUS_H

#define IBEX_STATUS_LIST(X)                                                                        \
    X(IBEX_OK, 0, "success")                                                                       \
    X(IBEX_INPROGRESS, 1, "operation in progress")                                                 \
    X(IBEX_ERR_NO_MEMORY, -1, "out of memory")                                                     \
    X(IBEX_ERR_INVALID, -2, "invalid argument")                                                    \
    X(IBEX_ERR_AGAIN, -3, "resource temporarily exhausted, retry")                                 \
    X(IBEX_ERR_UNSUPPORTED, -4, "operation not supported")                                         \
    X(IBEX_ERR_IO, -5, "input/output error")                                                       \
    X(IBEX_ERR_NO_DEVICE, -6, "no usable device")                                                  \
    X(IBEX_ERR_UNREACHABLE, -7, "peer unreachable")                                                \
    X(IBEX_ERR_TIMEOUT, -8, "timed out")                                                           \
    X(IBEX_ERR_TRUNCATE, -9, "message truncated")                                                  \
    X(IBEX_ERR_REMOTE, -10, "remote access error")                                                 \
    X(IBEX_ERR_PEER_FAILED, -11, "peer failed")                                                    \
    X(IBEX_ERR_BOOTSTRAP, -12, "bootstrap (PMIx) error")                                           \
    X(IBEX_ERR_CANCELED, -13, "canceled")                                                          \
    X(IBEX_ERR_INTERNAL, -14, "internal error")                                                    \
    X(IBEX_ERR_NO_CONTEXT, -15,                                                                    \
      "no context id is free on every rank of the communicator: free some communicators")

#define IBEX_STATUS_ENUM(name, value, text) name = value,
typedef enum { IBEX_STATUS_LIST(IBEX_STATUS_ENUM) } ibex_status_t;
enum { IBEX_STATUS_LAST = IBEX_ERR_NO_CONTEXT }; /* the most negative status */
#undef IBEX_STATUS_ENUM

const char *ibex_status_str(ibex_status_t status);

/* Maps an errno value (positive) to the nearest status. */
ibex_status_t ibex_status_from_errno(int err);

#endif
