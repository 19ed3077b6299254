/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Process-wide runtime state: what MPI_Init set up. Written only by MPI_Init and MPI_Finalize
 * (no other thread is inside MPI then), read without a lock (runtime/base/ibex_thread.h).
 */
#ifndef IBEX_RUNTIME_H
#define IBEX_RUNTIME_H

#include <pthread.h>
#include <stdbool.h>

#include "ibex_boot.h"

typedef struct ibex_runtime {
    bool initialized; /* MPI_Init completed (the world model) */
    bool finalized;   /* MPI_Finalize completed */
    /* The engine is shared by the world model and the sessions (MPI 4.1 section 11.3): it
     * starts with the first of MPI_Init / MPI_Session_init and stops when the last of
     * MPI_Finalize / MPI_Session_finalize lets it go (runtime/mpi/init.c). */
    int instances;    /* MPI_Init (until MPI_Finalize) + live sessions */
    bool running;     /* the engine is up: instances > 0 */
    int thread_level; /* provided */
    pthread_t main_thread;
    ibex_boot_info_t boot;
    bool oversubscribed; /* more local ranks than cores: waits yield at once */
} ibex_runtime_t;

extern ibex_runtime_t ibex_rt;

/* Sub-module set-up and tear-down, called in this order by MPI_Init and in reverse by Finalize. */
ibex_status_t ibex_dt_init(void); /* datatype.c: predefined datatypes */
void ibex_dt_fini(void);
ibex_status_t ibex_op_init(void); /* op.c: predefined ops */
void ibex_op_fini(void);
ibex_status_t ibex_comm_init(void); /* comm.c: groups, MPI_COMM_WORLD, MPI_COMM_SELF */
void ibex_comm_fini(void);
ibex_status_t ibex_coll_init(void); /* collectives/base/coll_select.c: applies IBEX_COLL_* */
ibex_status_t ibex_p2p_init(void);  /* p2p engine: requests, transports; publishes addresses */
/* MPI_Finalize: ibex_p2p_quiesce() completes this rank's outstanding transfers, then
 * ibex_boot_fence(false) makes sure every rank has done so (no peer still reads our memory),
 * then ibex_p2p_fini() closes the transports. */
ibex_status_t ibex_p2p_quiesce(void);
void ibex_p2p_fini(void);
/* runtime/engine/progress_thread.c: IBEX_ASYNC_PROGRESS's thread, started last by MPI_Init and
 * stopped first by MPI_Finalize. */
ibex_status_t ibex_progress_thread_start(void);
void ibex_progress_thread_stop(void);

/* MPI_Init's order: ibex_config_load, ibex_boot_init, ibex_log_set_identity("rank N"),
 * ibex_dt_init, ibex_op_init, ibex_comm_init, ibex_p2p_init, ibex_boot_commit,
 * ibex_boot_fence(true). Transports connect lazily on first use from the published data. */

/* The PMPI_X -> MPI_X weak aliases are generated from runtime/mpi/bindings/mpi.def
 * (IBEX_MPI_ALIASES in runtime/mpi/ibex_entry.h). */

#endif
