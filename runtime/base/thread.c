/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The global lock of MPI_THREAD_MULTIPLE (ibex_thread.h): a ticket lock, fair so that a thread
 * that waits in MPI and releases the lock between polls cannot take it straight back ahead of
 * the threads queued for it. Waiters spin briefly, then yield the core: with more threads than
 * cores the holder may need a core to finish.
 */
#include <sched.h>

#include "ibex_thread.h"

int ibex_thread_on;

static struct {
    unsigned next;    /* the next ticket to hand out */
    unsigned serving; /* the ticket that holds the lock */
} big;

/* Calls of this thread into MPI that are open; the lock is taken at 0 -> 1. */
static __thread int depth __attribute__((tls_model("initial-exec")));

enum { SPINS_BEFORE_YIELD = 64 };

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void ticket_lock(void)
{
    unsigned t = __atomic_fetch_add(&big.next, 1, __ATOMIC_RELAXED);
    for (int spins = 0; __atomic_load_n(&big.serving, __ATOMIC_ACQUIRE) != t; spins++) {
        if (spins < SPINS_BEFORE_YIELD)
            cpu_relax();
        else
            sched_yield();
    }
}

static void ticket_unlock(void)
{
    __atomic_store_n(&big.serving, big.serving + 1, __ATOMIC_RELEASE);
}

bool ibex_thread_lock_slow(void)
{
    if (depth++ == 0)
        ticket_lock();
    return true;
}

void ibex_thread_unlock_slow(void)
{
    if (--depth == 0)
        ticket_unlock();
}

void ibex_thread_pause_slow(void)
{
    if (depth != 1)
        return;
    /* Someone holds a ticket behind ours: let the queue through once. */
    if (__atomic_load_n(&big.next, __ATOMIC_RELAXED) - big.serving > 1) {
        ticket_unlock();
        ticket_lock();
    }
}

int ibex_thread_release_all(void)
{
    int held = depth;
    if (held > 0) {
        depth = 0;
        ticket_unlock();
    }
    return held;
}

void ibex_thread_reacquire(int held)
{
    if (held > 0) {
        ticket_lock();
        depth = held;
    }
}

void ibex_thread_enable(bool on)
{
    ibex_thread_on = on;
}
