/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Init / MPI_Finalize and the environment queries around them. The start-up and tear-down
 * orders are the ones written in ibex_runtime.h.
 *
 * Thread support: every level is provided as asked (a level above MPI_THREAD_MULTIPLE gets
 * MULTIPLE); under MULTIPLE the global lock of runtime/base/ibex_thread.h turns on.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "ibex_config.h"
#include "ibex_attr.h"
#include "ibex_blocked_rec.h"
#include "ibex_comm.h"
#include "ibex_err.h"
#include "ibex_log.h"
#include "ibex_p2p.h"
#include "ibex_request.h"
#include "ibex_runtime.h"
#include "ibex_session.h"
#include "ibex_thread.h"
#include "ibex_entry.h"

ibex_runtime_t ibex_rt;

/* Inside MPI_Init or MPI_Finalize: the library may use its own entry points. */
static bool init_busy;

int ibex_check_initialized(const char *call)
{
    if (ibex_rt.running || init_busy)
        return MPI_SUCCESS;
    char msg[256];
    snprintf(msg, sizeof(msg), "ibex: %s called %s and outside any session", call,
             ibex_rt.finalized ? "after MPI_Finalize" : "before MPI_Init");
    ibex_boot_abort(MPI_ERR_OTHER, msg);
}

/* One step of the start-up sequence, for the error message. */
typedef struct {
    const char *what;
    ibex_status_t (*init)(void);
    void (*fini)(void);
} init_step_t;

/* MPI_Init's and MPI_Finalize's fences wait for every rank to arrive: the blocked-call record
 * says so (a rank stuck in MPI_Finalize's while a peer waits for its message is a missing
 * receive; in MPI_Init's, a rank that never called it). */
static ibex_status_t world_fence(bool collect)
{
    ibex_blk_begin(false);
    ibex_blk_add(ibex_comm_world, IBEX_BLK_OP_SYNC, IBEX_BLK_RANK_COLL, -1, 0);
    ibex_blk_commit();
    ibex_status_t st = ibex_boot_fence(collect);
    ibex_blk_end();
    return st;
}

static ibex_status_t init_publish(void)
{
    ibex_status_t st = ibex_boot_commit();
    if (st == IBEX_OK)
        st = world_fence(true);
    /* Every address is readable now. One progress call serves whatever arrived during start-up
     * (e.g. an early connection request from a network transport) before the program may compute
     * for a while. */
    if (st == IBEX_OK)
        ibex_progress();
    return st;
}

static const init_step_t init_steps[] = {
    {"blocked-call record (IBEX_BLOCKED_FD)", ibex_blk_init, NULL},
    {"datatypes", ibex_dt_init, ibex_dt_fini},
    {"reduction operations", ibex_op_init, ibex_op_fini},
    {"communicators", ibex_comm_init, ibex_comm_fini},
    {"collectives (IBEX_COLL_*)", ibex_coll_init, NULL},
    {"point-to-point engine", ibex_p2p_init, ibex_p2p_fini},
    {"address exchange (PMIx commit and fence)", init_publish, NULL},
    {"asynchronous progress thread (IBEX_ASYNC_PROGRESS)", ibex_progress_thread_start,
     ibex_progress_thread_stop},
};
#define INIT_NSTEPS ((int)(sizeof(init_steps) / sizeof(init_steps[0])))

/* Runs every step after the bootstrap; on failure undoes the finished ones and raises the
 * error while PMIx is still up, so a fatal handler can abort the whole job. */
static int init_run_steps(const char *call)
{
    int i;
    ibex_status_t st = IBEX_OK;
    for (i = 0; i < INIT_NSTEPS; i++) {
        st = init_steps[i].init();
        if (st != IBEX_OK)
            break;
    }
    if (i == INIT_NSTEPS)
        return MPI_SUCCESS;
    int errclass = ibex_mpi_error(NULL, MPI_ERR_OTHER, call, "start-up of the %s failed: %s",
                                  init_steps[i].what, ibex_status_str(st));
    while (--i >= 0)
        if (init_steps[i].fini)
            init_steps[i].fini();
    return errclass;
}

static void init_identity(void)
{
    char who[32];
    snprintf(who, sizeof(who), "rank %d", ibex_rt.boot.rank);
    ibex_log_set_identity(who);
    ibex_rt.oversubscribed = ibex_rt.boot.local_size > ibex_rt.boot.num_cores;
    ibex_wait_policy_log();
}

/* A later instance that asks for more than the engine runs at raises the level (a session with
 * thread_level MPI_THREAD_MULTIPLE, then MPI_Init_thread asking for it, as osu_latency_mt -I
 * does). Below MPI_THREAD_MULTIPLE no other thread is in MPI during this call, so the lock can
 * be turned on here as at the first instance. */
static void instance_raise_level(int required)
{
    int level = required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
    if (level <= ibex_rt.thread_level)
        return;
    ibex_rt.thread_level = level;
    ibex_thread_enable(level == MPI_THREAD_MULTIPLE);
}

/* Starts the engine (the first instance) or takes one more reference on it. The engine serves
 * the world model and every session alike, at the highest level any of them asked for. */
static int instance_acquire(const char *call, int required)
{
    if (ibex_rt.instances > 0) {
        instance_raise_level(required);
        ibex_rt.instances++;
        return MPI_SUCCESS;
    }
    init_busy = true;
    int errclass = MPI_ERR_OTHER;
    if (ibex_config_load() != IBEX_OK) {
        ibex_mpi_error(NULL, MPI_ERR_OTHER, call,
                       "invalid IBEX_* setting (see above; ibex_info lists every variable)");
        goto err_busy;
    }
    ibex_status_t st = ibex_boot_init(&ibex_rt.boot);
    if (st != IBEX_OK) {
        ibex_mpi_error(NULL, MPI_ERR_OTHER, call, "bootstrap failed: %s", ibex_status_str(st));
        goto err_busy;
    }
    init_identity();
    ibex_rt.main_thread = pthread_self();
    ibex_rt.thread_level = required < MPI_THREAD_SINGLE     ? MPI_THREAD_SINGLE
                           : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                            : required;
    /* (MPI_T_init_thread may have turned it on already) */
    ibex_thread_enable(ibex_thread_on || ibex_rt.thread_level == MPI_THREAD_MULTIPLE);
    errclass = init_run_steps(call);
    if (errclass != MPI_SUCCESS)
        goto err_boot;
    ibex_rt.instances = 1;
    ibex_rt.running = true;
    init_busy = false;
    return MPI_SUCCESS;
err_boot:
    ibex_boot_finalize();
err_busy:
    init_busy = false;
    return errclass;
}

static ibex_status_t finalize_fence(void)
{
    ibex_status_t st = world_fence(false);
    ibex_blk_finalize();
    return st;
}

/* Drops one reference; the last one stops the engine. Stopping is collective over the job (no
 * peer may still read this rank's memory when the transports close), as MPI_Finalize is. */
static int instance_release(const char *call)
{
    if (--ibex_rt.instances > 0)
        return MPI_SUCCESS;
    int errclass = MPI_SUCCESS;
    init_busy = true;
    ibex_progress_thread_stop();
    /* Drain ours, then wait for everyone to have drained theirs. */
    ibex_status_t st = ibex_p2p_quiesce();
    if (st == IBEX_OK)
        st = finalize_fence();
    if (st != IBEX_OK)
        errclass =
            ibex_mpi_error(NULL, ibex_err_class_of(st), call,
                           "could not complete outstanding communication: %s", ibex_status_str(st));
    ibex_rt.running = false;
    ibex_p2p_fini();
    ibex_comm_fini();
    ibex_op_fini();
    ibex_dt_fini();
    ibex_boot_finalize();
    init_busy = false;
    return errclass;
}

/* What MPI_Init_thread provided: MPI_Query_thread answers it even when a session raised the
 * engine's level since. */
static int world_provided = MPI_THREAD_SINGLE;

/* MPI_Session_init is thread safe whatever the thread level (MPI 4.1 section 11.3.1): threads
 * starting sessions, MPI_Init and the last finalize meet here, one at a time. */
static pthread_mutex_t instance_lock = PTHREAD_MUTEX_INITIALIZER;

int ibex_mpi_instance_acquire(const char *call, int required)
{
    pthread_mutex_lock(&instance_lock);
    int rc = instance_acquire(call, required);
    pthread_mutex_unlock(&instance_lock);
    return rc;
}

int ibex_mpi_instance_release(const char *call)
{
    pthread_mutex_lock(&instance_lock);
    int rc = instance_release(call);
    pthread_mutex_unlock(&instance_lock);
    return rc;
}

static int init_start(const char *call, int required)
{
    if (ibex_rt.initialized)
        return ibex_mpi_error(NULL, MPI_ERR_OTHER, call, "MPI is already %s",
                              ibex_rt.finalized ? "finalized (it cannot be initialized again)"
                                                : "initialized");
    int errclass = ibex_mpi_instance_acquire(call, required);
    if (errclass == MPI_SUCCESS) {
        ibex_rt.initialized = true;
        world_provided = ibex_rt.thread_level;
    }
    return errclass;
}

int PMPI_Init(int *argc, char ***argv)
{
    IBEX_ENTER_ANYTIME(Init);
    return init_start(call, MPI_THREAD_SINGLE);
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    IBEX_ENTER_ANYTIME(Init_thread);
    IBEX_ARGS(Init_thread, provided);
    int rc = init_start(call, required);
    if (rc == MPI_SUCCESS)
        *provided = world_provided;
    return rc;
}

int PMPI_Finalize(void)
{
    IBEX_ENTER_ANYTIME(Finalize);
    if ((!ibex_rt.initialized || ibex_rt.finalized) && ibex_rt.running)
        return IBEX_ERROR(MPI_ERR_OTHER, "the world model is not initialized (%s)",
                          ibex_rt.finalized ? "MPI_Finalize was called already"
                                            : "only sessions are");
    IBEX_CHECK(ibex_check_initialized(call));
    /* MPI 4.1 section 11.2.2: MPI_COMM_SELF's attributes are deleted first, as if it were freed
     * (the last set first); a failing callback fails MPI_Finalize. */
    int errclass = ibex_attr_comm_delete_all(ibex_comm_self);
    if (errclass != MPI_SUCCESS)
        return IBEX_ERROR(errclass, "an attribute delete callback on MPI_COMM_SELF returned %d",
                          errclass);
    errclass = ibex_mpi_instance_release(call);
    ibex_rt.finalized = true;
    return errclass;
}

int PMPI_Initialized(int *flag)
{
    IBEX_ENTER_ANYTIME(Initialized);
    IBEX_ARGS(Initialized, flag);
    *flag = ibex_rt.initialized; /* stays true after MPI_Finalize, as MPI says */
    return MPI_SUCCESS;
}

int PMPI_Finalized(int *flag)
{
    IBEX_ENTER_ANYTIME(Finalized);
    IBEX_ARGS(Finalized, flag);
    *flag = ibex_rt.finalized;
    return MPI_SUCCESS;
}

static const char *init_comm_name(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return "MPI_COMM_WORLD";
    if (comm == MPI_COMM_SELF)
        return "MPI_COMM_SELF";
    ibex_comm_t *c = ibex_rt.running ? ibex_comm_get(comm) : NULL;
    return c && c->name[0] ? c->name : "a communicator";
}

/* The whole job ends, whatever the communicator: the launcher can only end whole jobs, which
 * MPI allows. The launcher exits with errorcode. */
int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    IBEX_ENTER_ANYTIME(Abort);
    char msg[512];
    if (ibex_rt.boot.size > 0)
        snprintf(msg, sizeof(msg),
                 "ibex: rank %d (%s): MPI_Abort called on %s with error code "
                 "%d: aborting the job",
                 ibex_rt.boot.rank, ibex_rt.boot.hostname, init_comm_name(comm), errorcode);
    else
        snprintf(msg, sizeof(msg), "ibex: MPI_Abort called with error code %d", errorcode);
    ibex_boot_abort(errorcode, msg);
}

int PMPI_Query_thread(int *provided)
{
    IBEX_ENTER(Query_thread);
    IBEX_ARGS(Query_thread, provided);
    *provided = ibex_rt.initialized ? world_provided : ibex_rt.thread_level;
    return MPI_SUCCESS;
}

int PMPI_Is_thread_main(int *flag)
{
    IBEX_ENTER(Is_thread_main);
    IBEX_ARGS(Is_thread_main, flag);
    *flag = pthread_equal(pthread_self(), ibex_rt.main_thread) != 0;
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(init)
