/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The global lock of MPI_THREAD_MULTIPLE (ibex_thread.h): a test-and-set lock with a count of
 * waiters. A thread that waits in MPI gives it up between polls when someone waits and takes
 * it back unless a running waiter took it (ibex_thread_pause_slow). It was a ticket lock, fair
 * but handing the lock to the next in line whether or not that thread had a core: on a node
 * with more runnable threads than cores every handover then cost a time slice (ibex-bench
 * mt_rate, 2 threads per rank: 0.00 Mmsg/s against 1.8 for Open MPI on the loaded machine).
 * Waiters spin briefly, then yield the core.
 *
 * Elision while one thread uses MPI: most programs that ask for MULTIPLE call MPI from one
 * thread most of the time, and an uncontended lock still costs an atomic exchange per call.
 * So the thread that turned the lock on (the one in MPI_Init_thread) starts "solo": it enters
 * by storing solo_inside = 1 and reading mode, with no atomic read-modify-write and no fence.
 * The first other thread that enters takes the lock, sets mode to SHARED and issues
 * membarrier(PRIVATE_EXPEDITED), which runs a full barrier on every thread of the process:
 * after it, either the solo thread's store of solo_inside = 1 is visible (the newcomer waits
 * for it to drop to 0) or the solo thread's next read of mode sees SHARED (it takes the lock
 * instead). This is the asymmetric Dekker of liburcu and of biased locks. The solo thread
 * leaves the solo state at its next return from MPI or at its next wait pause at depth 1, the
 * points where the lock lets other threads in too; from then on everyone takes the lock and
 * the process never goes back to solo. Without membarrier (old kernels, seccomp) the process
 * is SHARED from the start.
 */
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ibex_thread.h"

int ibex_thread_on;

static int big;     /* the lock word: 1 held */
static int waiters; /* threads spinning or yielding for it */

enum { MODE_SHARED, MODE_SOLO };
static int mode;        /* MODE_SOLO until a second thread enters MPI */
static int solo_inside; /* 1 while the solo thread is inside MPI without the lock */

enum { HELD_LOCK = 1, HELD_SOLO = 2 };
/* Calls of this thread into MPI that are open; the lock is taken at 0 -> 1. */
static __thread int depth __attribute__((tls_model("initial-exec")));
static __thread int held __attribute__((tls_model("initial-exec")));    /* HELD_* while depth */
static __thread int solo_me __attribute__((tls_model("initial-exec"))); /* may enter solo */

enum { SPINS_BEFORE_YIELD = 64 };

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void spin_or_yield(int spins)
{
    if (spins < SPINS_BEFORE_YIELD)
        cpu_relax();
    else
        sched_yield();
}

static bool big_try(void)
{
    return __atomic_load_n(&big, __ATOMIC_RELAXED) == 0 &&
           !__atomic_exchange_n(&big, 1, __ATOMIC_ACQUIRE);
}

static void big_lock(void)
{
    if (big_try())
        return;
    __atomic_fetch_add(&waiters, 1, __ATOMIC_RELAXED);
    for (int spins = 0; !big_try(); spins++)
        spin_or_yield(spins);
    __atomic_fetch_sub(&waiters, 1, __ATOMIC_RELAXED);
}

static void big_unlock(void)
{
    __atomic_store_n(&big, 0, __ATOMIC_RELEASE);
}

static long membarrier(int cmd)
{
    return syscall(SYS_membarrier, cmd, 0, 0);
}

/* The solo thread's entry: no read-modify-write; membarrier on the other side orders the
 * store before the load. False when the process has gone SHARED. */
static bool solo_enter(void)
{
    __atomic_store_n(&solo_inside, 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&mode, __ATOMIC_RELAXED) == MODE_SOLO)
        return true;
    __atomic_store_n(&solo_inside, 0, __ATOMIC_RELEASE);
    solo_me = 0;
    return false;
}

/* Under the lock: the first other thread ends the solo state and waits until the solo
 * thread is out of the engine (it leaves at its next return or wait pause). */
static void shared_lock(void)
{
    big_lock();
    if (__atomic_load_n(&mode, __ATOMIC_RELAXED) == MODE_SOLO) {
        __atomic_store_n(&mode, MODE_SHARED, __ATOMIC_RELAXED);
        membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
    }
    for (int spins = 0; __atomic_load_n(&solo_inside, __ATOMIC_ACQUIRE); spins++)
        spin_or_yield(spins);
}

bool ibex_thread_lock_slow(void)
{
    if (depth++ > 0)
        return true;
    if (solo_me && solo_enter()) {
        held = HELD_SOLO;
        return true;
    }
    shared_lock();
    held = HELD_LOCK;
    return true;
}

static void drop(void)
{
    if (held == HELD_SOLO)
        __atomic_store_n(&solo_inside, 0, __ATOMIC_RELEASE);
    else
        big_unlock();
    held = 0;
}

void ibex_thread_unlock_slow(void)
{
    if (--depth == 0)
        drop();
}

void ibex_thread_pause_slow(void)
{
    if (depth != 1)
        return;
    if (held == HELD_SOLO) {
        /* another thread waits for the solo state to end: take the lock from now on */
        if (__atomic_load_n(&mode, __ATOMIC_RELAXED) != MODE_SOLO) {
            drop();
            solo_me = 0;
            shared_lock();
            held = HELD_LOCK;
        }
        return;
    }
    /* Someone waits: give the lock up and the core too, then take the lock back whoever had it
     * meanwhile. A lock handed in turn to the next in line (a ticket lock) stalls whenever that
     * thread has no core, for a whole time slice on a loaded node; here the lock goes to a
     * waiter that runs, and any thread that holds it polls for all of them. */
    if (__atomic_load_n(&waiters, __ATOMIC_RELAXED) == 0)
        return;
    big_unlock();
    sched_yield();
    big_lock();
}

int ibex_thread_release_all(void)
{
    int was = depth;
    if (was > 0) {
        depth = 0;
        drop();
    }
    return was;
}

void ibex_thread_reacquire(int was)
{
    if (was > 0) {
        ibex_thread_lock_slow();
        depth = was;
    }
}

bool ibex_thread_solo(void)
{
    return __atomic_load_n(&mode, __ATOMIC_RELAXED) == MODE_SOLO;
}

void ibex_thread_enable(bool on)
{
    if (!on || ibex_thread_on)
        return;
    /* the calling thread is the only one in MPI now (MPI_Init_thread, MPI_T_init_thread) */
    bool can_elide = membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
    mode = can_elide ? MODE_SOLO : MODE_SHARED;
    solo_me = can_elide;
    ibex_thread_on = 1;
}
