/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The optional asynchronous progress thread (IBEX_ASYNC_PROGRESS=1): a thread per rank that
 * advances what needs no program call (rendezvous handshakes, non-blocking collectives'
 * schedules, one-sided active messages) while the program computes. It runs the progress
 * engine under the global lock of ibex_thread.h, which it turns on whatever thread level the
 * program asked for, and sleeps IBEX_ASYNC_PROGRESS_SLEEP microseconds after a poll that found
 * nothing, so that it takes little of the core it shares with the program.
 *
 * It never starts on an oversubscribed node (more local ranks than cores): there a second
 * thread per rank only takes cores from ranks that have work.
 */
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "ibex_engine.h"
#include "ibex_engine_cfg.h"
#include "ibex_log.h"
#include "ibex_runtime.h"
#include "ibex_thread.h"

static pthread_t async_tid;
static bool async_running;
static int async_stop;

static void *async_main(void *arg)
{
    (void)arg;
    struct timespec nap = {0, (long)ibex_engine_cfg.async_sleep_us * 1000};
    while (!__atomic_load_n(&async_stop, __ATOMIC_ACQUIRE)) {
        ibex_thread_lock_slow();
        int n = ibex_progress();
        ibex_thread_unlock_slow();
        if (n <= 0)
            nanosleep(&nap, NULL);
    }
    return NULL;
}

ibex_status_t ibex_progress_thread_start(void)
{
    if (!ibex_engine_cfg.async_progress)
        return IBEX_OK;
    if (ibex_rt.oversubscribed) {
        ibex_info(CORE, "IBEX_ASYNC_PROGRESS ignored: %d local ranks on %d cores",
                  ibex_rt.boot.local_size, ibex_rt.boot.num_cores);
        return IBEX_OK;
    }
    ibex_thread_enable(true);
    sigset_t all, old;
    sigfillset(&all);
    /* signals go to the program's threads, not to this one */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&async_tid, NULL, async_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        ibex_error(CORE, "could not start the asynchronous progress thread (error %d)", rc);
        return IBEX_ERR_NO_MEMORY;
    }
    async_running = true;
    ibex_debug(CORE, "asynchronous progress thread started (sleeps %d us when idle)",
               ibex_engine_cfg.async_sleep_us);
    return IBEX_OK;
}

void ibex_progress_thread_stop(void)
{
    if (!async_running)
        return;
    __atomic_store_n(&async_stop, 1, __ATOMIC_RELEASE);
    /* the thread may be queued for the lock this caller holds */
    int depth = ibex_thread_release_all();
    pthread_join(async_tid, NULL);
    ibex_thread_reacquire(depth);
    async_running = false;
    async_stop = 0;
}
