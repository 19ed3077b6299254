/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The entry of every MPI binding (the files of runtime/mpi). A binding is PMPI_X (MPI_X is its weak
 * alias, made by IBEX_MPI_ALIASES(file) at the end of the file from mpi.def) and starts with
 * one IBEX_ENTER form, which
 *   - names the call: `call` ("MPI_X") for the messages,
 *   - takes the thread hook (ibex_thread.h: the global lock under MPI_THREAD_MULTIPLE) and
 *     releases it on every return (a scope guard),
 *   - checks that MPI is running (a call before MPI_Init or after MPI_Finalize ends the
 *     process, see ibex_check_initialized),
 *   - chooses the error handler: ibex_e.comm is the communicator whose handler takes the
 *     call's errors, NULL (the default: MPI_COMM_SELF's if set, else MPI_COMM_WORLD's) until a
 *     communicator is looked up.
 *   - counts the call in the blocked-call record and remembers its name there (ibex_blk_enter,
 *     runtime/base/ibex_blocked.h: four instructions; what a call waits for is written by the
 *     waits, only when a wait lasts).
 * Then IBEX_ARGS(X, ...) runs the uniform checks generated from mpi.def (ibex_mpi_gen.h) and
 * IBEX_ERROR raises an error on the chosen handler.
 *
 * The point-to-point hot path (MPI_Send / Recv / Isend / Irecv / Wait / Test) uses
 * IBEX_ENTER_FAST: its first check (the inline ibex_p2p_args, p2p_wait.c's check_array) also
 * tests that MPI is running, so the entry adds no instruction there (objdump: PMPI_Send, Recv,
 * Isend, Irecv, Wait and Test have the instruction counts they had before the macro) but the
 * record's four. The calls
 * that share those helpers (probe, persistent, the other completion calls, Reduce / Allreduce /
 * Gather / Scatter / Allgather / Alltoall through ibex_comm_enter) use it for the same reason.
 */
#ifndef IBEX_ENTRY_H
#define IBEX_ENTRY_H

#include <mpi.h>

#include "ibex_blocked.h"
#include "ibex_err.h"
#include "ibex_thread.h"

typedef struct ibex_entry {
    const char *call;       /* "MPI_X" */
    struct ibex_comm *comm; /* whose error handler applies; NULL: the default one */
    bool locked;            /* this call took the thread hook */
} ibex_entry_t;

static inline void ibex_entry_leave(ibex_entry_t *e)
{
    IBEX_THREAD_UNLOCK(e->locked);
}

#include "ibex_mpi_gen.h"

/* Marks the end of a binding's file: the weak aliases MPI_X = PMPI_X of its functions. */
#define IBEX_MPI_ALIASES(file) IBEX_MPI_ALIASES_##file

/* Names the call and takes the thread hook; no check (calls valid at any time). */
#define IBEX_ENTER_ANYTIME(name)                                                                   \
    static const char call[] = "MPI_" #name;                                                       \
    __attribute__((cleanup(ibex_entry_leave)))                                                     \
    ibex_entry_t ibex_e = {call, NULL, IBEX_THREAD_LOCK()};                                        \
    ibex_blk_enter(call)

/* The first check that follows tests that MPI is running (see above). */
#define IBEX_ENTER_FAST(name) IBEX_ENTER_ANYTIME(name)

/* The usual entry: MPI must be running. */
#define IBEX_ENTER(name)                                                                           \
    IBEX_ENTER_ANYTIME(name);                                                                      \
    IBEX_CHECK(ibex_check_initialized(call))

/* IBEX_ENTER, then the communicator `handle` looked up into `c`, whose handler then applies
 * (a bad handle raises MPI_ERR_COMM on the default handler). */
#define IBEX_ENTER_COMM(name, handle, c)                                                           \
    IBEX_ENTER(name);                                                                              \
    struct ibex_comm *c = ibex_comm_lookup((handle), call);                                        \
    if (!c)                                                                                        \
        return MPI_ERR_COMM;                                                                       \
    ibex_e.comm = c

/* Returns the class of a failed check (already raised), else goes on. */
#define IBEX_CHECK(expr)                                                                           \
    do {                                                                                           \
        int ibex_rc_ = (expr);                                                                     \
        if (ibex_rc_ != MPI_SUCCESS)                                                               \
            return ibex_rc_;                                                                       \
    } while (0)

/* The uniform checks of mpi.def for function `name`, on its checked parameters in order. */
#define IBEX_ARGS(name, ...) IBEX_CHECK(ibex_args_##name(&ibex_e, __VA_ARGS__))

/* Raises an error on the chosen handler and returns its class. */
#define IBEX_ERROR(errclass, ...) ibex_mpi_error(ibex_e.comm, (errclass), call, __VA_ARGS__)

#endif
