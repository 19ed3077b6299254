/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The threading hook of the MPI entry points. Below MPI_THREAD_MULTIPLE the hook is one
 * predictable branch on ibex_thread_on and takes nothing. Under MPI_THREAD_MULTIPLE it is one
 * global lock (thread.c), the design MPICH calls "global critical section": every binding
 * passes through it (IBEX_ENTER in runtime/mpi/ibex_entry.h takes it and releases it on every
 * return), so no engine function needs a lock of its own.
 *
 * The rule for global state:
 *  - ibex_rt (runtime/boot) is written only by MPI_Init and MPI_Finalize, which the program
 *    calls while no other thread is inside MPI; everyone else reads it without a lock.
 *  - The global lock owns everything else a call touches: the handle tables (communicators,
 *    groups, datatypes, ops, requests, messages, error handlers, infos, keyvals) and the
 *    attribute lists, the matching queues, the per-peer endpoints and backlogs, the transports'
 *    state, the progress engine, the buffered-send buffer and the tunables once loaded. Handle
 *    tables grow by realloc, which is safe because nobody reads them without the lock.
 *  - The lock is recursive per thread: error handlers, user reduction functions, attribute
 *    callbacks and generalized-request callbacks run inside an MPI call and may call MPI again.
 *  - A thread that waits (runtime/engine/request.c: wait_step) lets the others in between two
 *    progress polls (ibex_thread_pause): the lock is a ticket lock, so a waiter that releases
 *    it goes behind the threads already queued and cannot starve them; a request completed by
 *    another thread's progress is seen at the waiter's next poll.
 *  - A wait that lets others in may find global state changed across the pause: code that
 *    keeps a static scratch buffer must not hold it across a wait (none does: the eager pack
 *    buffer lives within one send); context-id agreement takes the free mask for one round
 *    only (runtime/comm/comm_ctx.c).
 *  - Per thread: the polling back-off counter (request.c: empty polls counted across calls)
 *    belongs to the thread that polls and is thread-local. Nothing else is per thread.
 * A finer split (per-communicator or per-channel locks) can come under this one later.
 */
#ifndef IBEX_THREAD_H
#define IBEX_THREAD_H

#include <stdbool.h>

/* 1 while the global lock is in force (MPI_THREAD_MULTIPLE granted), else 0. */
extern int ibex_thread_on;

bool ibex_thread_lock_slow(void);
void ibex_thread_unlock_slow(void);
/* Inside a wait: lets queued threads take the lock, then takes it back (no-op when none waits
 * or the calling thread holds it more than once). */
void ibex_thread_pause_slow(void);
/* Releases the lock however deeply this thread holds it (returns the depth, 0 if it held
 * none), and takes it back to that depth: to join a thread that may wait for the lock. */
int ibex_thread_release_all(void);
void ibex_thread_reacquire(int depth);
/* Turns the lock on (level MPI_THREAD_MULTIPLE) or off; called by MPI_Init_thread and
 * MPI_Finalize, while no other thread is inside MPI. */
void ibex_thread_enable(bool on);

static inline bool ibex_thread_enter(void)
{
    return __builtin_expect(ibex_thread_on, 0) ? ibex_thread_lock_slow() : false;
}

static inline void ibex_thread_leave(bool taken)
{
    if (__builtin_expect(taken, 0))
        ibex_thread_unlock_slow();
}

static inline void ibex_thread_pause(void)
{
    if (__builtin_expect(ibex_thread_on, 0))
        ibex_thread_pause_slow();
}

/* Taken at the start of an MPI call (the value says whether this call took it), released when
 * it returns. A unit test defines them first to count them. */
#ifndef IBEX_THREAD_LOCK
#define IBEX_THREAD_LOCK()        ibex_thread_enter()
#define IBEX_THREAD_UNLOCK(taken) ibex_thread_leave(taken)
#endif

#endif
