/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside libibexlaunch: the direct modex of the embedded PMIx server (run_pmix_dmodex.c), as
 * run_pmix.c wires it into the server module.
 */
#ifndef IBEX_LAUNCH_RUN_PMIX_INT_H
#define IBEX_LAUNCH_RUN_PMIX_INT_H

#include <pmix.h>
#include <pmix_server.h>

#include "ibex_launch.h"

/* The namespace and size of the job, whether it spans hosts, and the loop's wake-up pipe (at
 * server start). */
void ibex_run_pmix_dmodex_setup(const char *nspace, int size, bool multi, int wake_fd);
/* The server module's direct_modex: queues the request for the launcher's loop. */
pmix_status_t ibex_run_pmix_dmodex_upcall(const pmix_proc_t *proc, const pmix_info_t info[],
                                          size_t ninfo, pmix_modex_cbfunc_t cbfunc, void *cbdata);
/* Drops what is queued (the server is going away). */
void ibex_run_pmix_dmodex_fini(void);

#endif
