/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The threading hook of the MPI entry points. Below MPI_THREAD_MULTIPLE the hook is one
 * predictable branch on ibex_thread_on and takes nothing. Under MPI_THREAD_MULTIPLE it is one
 * global lock (thread.c), the design MPICH calls "global critical section": every binding
 * passes through it (IBEX_ENTER in runtime/mpi/ibex_entry.h takes it and releases it on every
 * return), so no engine function needs a lock of its own. While only the thread that called
 * MPI_Init_thread has entered MPI the lock is elided (a plain store and load per call); the
 * first other thread to enter ends that for good, with a handshake (thread.c's comment).
 *
 * The rule for global state:
 *  - ibex_rt (runtime/boot) is written only by MPI_Init and MPI_Finalize, which the program
 *    calls while no other thread is inside MPI; everyone else reads it without a lock.
 *  - The global lock owns everything else a call touches: the handle tables (communicators,
 *    groups, datatypes, ops, requests, messages, error handlers, infos, keyvals) and the
 *    attribute lists, the matching queues, the per-peer endpoints and backlogs, the transports'
 *    state, the progress engine, the buffered-send buffer and the tunables once loaded. Handle
 *    lookups need no lock at all (ibex_handle.h: chunked tables, never moved); creating and
 *    freeing handles is under the lock. runtime/base/README.md lists every mutable global.
 *  - The lock is recursive per thread: error handlers, user reduction functions, attribute
 *    callbacks and generalized-request callbacks run inside an MPI call and may call MPI again.
 *  - A thread that waits (runtime/engine/request.c: wait_step) lets the others in between two
 *    progress polls (ibex_thread_pause): when a thread waits for the lock, the waiter gives it
 *    up and takes it back unless a running waiter took it (thread.c says why not a ticket
 *    lock); a request completed by another thread's progress is seen at the waiter's next poll.
 *  - A wait that lets others in may find global state changed across the pause: code that
 *    keeps state across a wait must expect that; no static scratch buffer is left (the eager
 *    pack buffer is the send's own, proto_send.c); context-id agreement takes the free mask
 *    for one round only (runtime/comm/comm_ctx.c).
 *  - Per thread: the polling back-off counter (request.c: empty polls counted across calls)
 *    belongs to the thread that polls and is thread-local, as are the lock's depth and the
 *    registration cache's re-entry guard.
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
/* Turns the lock on (level MPI_THREAD_MULTIPLE, or the progress thread) for the rest of the
 * process (false changes nothing); called by MPI_Init_thread, MPI_T_init_thread and the
 * progress thread's start while no other thread is inside MPI. The calling thread starts solo. */
void ibex_thread_enable(bool on);
/* True while the lock is elided (one thread has entered MPI since it was turned on). */
bool ibex_thread_solo(void);

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
