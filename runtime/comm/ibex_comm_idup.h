/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Comm_idup's communicator (runtime/comm/comm_idup.c): the context id agreed in the
 * progress engine, without blocking the caller, of an intra- or an intercommunicator.
 */
#ifndef IBEX_COMM_IDUP_H
#define IBEX_COMM_IDUP_H

#include "ibex_comm.h"
#include "ibex_status.h"

/* Called once, from progress, with the new communicator (a handle, the parent's group and
 * error handler; no attributes, hints or topology) or NULL and the error. */
typedef void (*ibex_comm_idup_done_t)(ibex_comm_t *made, ibex_status_t st, void *arg);

/* Starts the agreement over parent (collective: every member calls it, in the order of its
 * collective calls on parent; an intercommunicator's over both groups, the result an
 * intercommunicator with its own local intracommunicator). */
ibex_status_t ibex_comm_idup_start(ibex_comm_t *parent, ibex_comm_idup_done_t done, void *arg);

#endif
