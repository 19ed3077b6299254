/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's instances (init.c) and sessions (session.c, MPI 4.1 section 11.3). The world
 * model (MPI_Init .. MPI_Finalize) and every session hold one reference each on one engine:
 * the first reference starts it, the last one stops it, so a program may mix the two models
 * and start a session after MPI_Finalize.
 */
#ifndef IBEX_SESSION_H
#define IBEX_SESSION_H

#include <mpi.h>

/* Starts the engine or takes one more reference on it; an error is raised (default handler)
 * and its class returned. */
int ibex_mpi_instance_acquire(const char *call, int required);
/* Drops a reference; the last one stops the engine, collectively over the job. */
int ibex_mpi_instance_release(const char *call);

/* MPI_SUCCESS when handle is a live session, else MPI_ERR_SESSION (raised on the default
 * handler). */
int ibex_session_check(MPI_Session handle, const char *call);
/* Raises errclass with cause on the session's error handler; returns the class. */
int ibex_session_error(MPI_Session handle, int errclass, const char *call, const char *cause);
/* MPI_Session_finalize: the session's Bsend buffer, if any, is flushed and detached
 * (p2p_bsend.c). */
void ibex_p2p_bsend_session_drop(MPI_Session session);

/* Negative tags on a communicator's collective context: no program message and no collective
 * uses them (collectives take 1.. upwards, MPI_ANY_TAG is -1), so the session and partitioned
 * protocols below can never match anything else.
 *   [-(2^28 + 1), -2]                     communicator creation from groups (session.c), by a
 *                                         hash of the string tag
 *   [-(2^28 + 2^30 + 1), -(2^28 + 2)]     partitioned handshakes, by the program's tag
 *   [INT_MIN, -(2^28 + 2^30 + 2)]         partitioned data, one tag per receive partition */
#define IBEX_TAG_SESSION_SPAN  (1 << 28)
#define IBEX_TAG_SESSION(h)    (-2 - (int)((h) % IBEX_TAG_SESSION_SPAN))
#define IBEX_TAG_PART_HELLO(t) (-(IBEX_TAG_SESSION_SPAN + 2) - (t))
#define IBEX_TAG_PART_DATA0    (IBEX_TAG_SESSION_SPAN + (1 << 30) + 2)
#define IBEX_TAG_PART_SPAN     ((unsigned)INT32_MAX - IBEX_TAG_PART_DATA0)
#define IBEX_TAG_PART_DATA(k)  (-IBEX_TAG_PART_DATA0 - (int)((k) % IBEX_TAG_PART_SPAN))

#endif
