/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The threading hook of the MPI entry points. Ibex provides MPI_THREAD_FUNNELED: only the
 * thread that called MPI_Init calls MPI, and the engine takes no locks, so the hook is empty
 * and costs nothing. Every binding passes through it (IBEX_ENTER in runtime/mpi/ibex_entry.h
 * takes it and releases it on every return), so MPI_THREAD_MULTIPLE is a change here and in
 * the state listed below, not one in each MPI function.
 *
 * The rule for global state, kept now so that the locks can come later:
 *  - ibex_rt (runtime/boot) is written only by MPI_Init and MPI_Finalize, which the program
 *    calls while no other thread is inside MPI; everyone else reads it without a lock.
 *  - The one global lock taken here will own everything else a call touches: the handle tables
 *    (communicators, groups, datatypes, ops, requests, messages, error handlers, infos, keyvals)
 *    and the attribute lists, the matching queues, the per-peer endpoints and backlogs, the
 *    transports' state, the progress engine, the buffered-send buffer and the tunables once loaded.
 * A finer split (a progress lock under the global one) may come out of it later; nothing takes a
 * second lock today.
 *  - The lock will be recursive: error handlers and user reduction functions run inside an MPI
 *    call and may call MPI again.
 *  - Per thread: the polling back-off counters (runtime/engine/request.c: empty polls counted
 *    across calls) belong to the thread that polls; they become thread-local, not locked.
 *    Nothing else is per thread.
 */
#ifndef IBEX_THREAD_H
#define IBEX_THREAD_H

/* Taken at the start of an MPI call, released when it returns. No-ops under FUNNELED (a unit
 * test defines them first to count them). */
#ifndef IBEX_THREAD_LOCK
#define IBEX_THREAD_LOCK()   ((void)0)
#define IBEX_THREAD_UNLOCK() ((void)0)
#endif

#endif
