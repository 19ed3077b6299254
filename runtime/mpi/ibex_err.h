/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Errors at the MPI boundary (runtime/mpi/errhandler.c). Internal code returns ibex_status_t; an
 * MPI entry point that meets an error calls ibex_mpi_error(), which builds one message naming
 * the rank, the host, the call and the cause, applies the communicator's error handler
 * (MPI_ERRORS_ARE_FATAL prints it and aborts the job through PMIx; MPI_ERRORS_ABORT aborts
 * the communicator's processes; MPI_ERRORS_RETURN returns; a user handler is called), and
 * returns the error class to hand back to the program.
 */
#ifndef IBEX_ERR_H
#define IBEX_ERR_H

#include <mpi.h>

#include "ibex_status.h"

struct ibex_comm;

/* comm may be NULL for errors not tied to a communicator: the handler of MPI_COMM_SELF applies
 * if the program set one there, else that of MPI_COMM_WORLD. */
int ibex_mpi_error(struct ibex_comm *comm, int errclass, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The largest valid tag (MPI_TAG_UB): 2^30 - 1. */
extern const int ibex_tag_ub;

/* The MPI error class for an internal status. */
int ibex_err_class_of(ibex_status_t status);

/* Argument checks shared by the entry points: each returns MPI_SUCCESS or raises the error
 * (through ibex_mpi_error) and returns its class. */
int ibex_check_initialized(const char *call);
int ibex_check_count(struct ibex_comm *comm, const char *call, MPI_Count count);
int ibex_check_tag(struct ibex_comm *comm, const char *call, int tag, int allow_any);
/* rank may be MPI_PROC_NULL; with allow_any also MPI_ANY_SOURCE. */
int ibex_check_rank(struct ibex_comm *comm, const char *call, int rank, int allow_any);
int ibex_check_buffer(struct ibex_comm *comm, const char *call, const void *buf, MPI_Count count);

/* Fetches and checks a communicator handle: on a bad handle raises MPI_ERR_COMM (on the
 * default handler) and returns NULL. */
struct ibex_comm *ibex_comm_lookup(MPI_Comm handle, const char *call);
/* The start of every entry point on a communicator: MPI is running and the handle is a live
 * communicator (else the error is raised and its class returned). */
int ibex_comm_enter(MPI_Comm handle, const char *call, struct ibex_comm **comm_p);

#endif
