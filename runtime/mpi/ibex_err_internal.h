/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of the error module (runtime/errhandler*.c) shared between its files and its unit
 * tests; the rest of Ibex uses ibex_err.h.
 */
#ifndef IBEX_ERR_INTERNAL_H
#define IBEX_ERR_INTERNAL_H

#include <stdbool.h>

#include <mpi.h>

/* "MPI_ERR_RANK", or NULL for a code outside [MPI_SUCCESS, MPI_ERR_LASTCODE]. */
const char *ibex_err_class_name(int errclass);
/* "invalid rank", or NULL outside the range. */
const char *ibex_err_class_text(int errclass);

/* The exit status of a job ended by MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT: the error class
 * (1..MPI_ERR_LASTCODE, below 128 so never mistaken for a signal death), or MPI_ERR_UNKNOWN
 * for a code outside that range. */
int ibex_err_exit_code(int errclass);

/* The communicator whose handler takes errors not tied to one: MPI_COMM_SELF when the program
 * set a handler there, else MPI_COMM_WORLD (NULL before MPI_Init). */
struct ibex_comm *ibex_err_default_comm(void);

/* User error classes and codes (err_user.c): the class of a user number (-1: not one), its
 * string ("" when none was added; NULL: not a user number), the largest number in use. */
int ibex_err_user_class(int code);
const char *ibex_err_user_string(int code);
int ibex_err_last_used(void);
/* Handlers of objects other than communicators (windows): a live handle (predefined or a user
 * handler the program holds); one more reference for a Get call; and raising an error on
 * handler eh for object handle obj (named obj_name in the fatal message). */
bool ibex_errhandler_valid(MPI_Errhandler eh);
void ibex_errhandler_ref(MPI_Errhandler eh);
int ibex_mpi_error_obj(MPI_Errhandler eh, int obj, const char *obj_name, int errclass,
                       const char *call, const char *cause);
/* While a session starts the engine (MPI_Session_init), errors not tied to a communicator go
 * to the handler the session was given, not to MPI_COMM_WORLD's (this thread only);
 * MPI_ERRHANDLER_NULL ends that. */
void ibex_err_set_start_handler(MPI_Errhandler eh);

#endif
