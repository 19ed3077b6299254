/* SPDX-License-Identifier: BSD-3-Clause */
/* Non-blocking and persistent collectives' requests (coll_nbc.c), for their entry points and
 * for MPI_Start (p2p_persist.c). */
#ifndef IBEX_COLL_NBC_H
#define IBEX_COLL_NBC_H

#include <stdbool.h>

#include <mpi.h>

#include "coll.h"
#include "ibex_request.h"

/* Checks the arguments (ibex_coll_prepare, shared with the blocking call), builds the
 * schedule and gives *request a collective request: started (MPI_Ixxx) or inactive
 * (persistent, MPI_Xxx_init). */
int ibex_nbc_post(ibex_coll_kind_t kind, MPI_Comm comm, MPI_Op op, ibex_coll_args_t *a,
                  bool persistent, MPI_Request *request, const char *call);
/* The same for a schedule the caller built on comm (NULL when it ran out of memory; freed
 * here on failure): the neighbourhood collectives, whose arguments are not ibex_coll_args_t. */
struct ibex_sched;
int ibex_nbc_post_sched(ibex_comm_t *comm, struct ibex_sched *s, bool persistent,
                        MPI_Request *request, const char *call);
/* A blocking collective run as a schedule, waited for here (the intercommunicator forms,
 * whose only algorithms are schedules); arguments as ibex_coll_prepare left them. */
ibex_status_t ibex_nbc_run(ibex_coll_kind_t kind, const ibex_coll_args_t *a, size_t bytes);
/* MPI_Start of a persistent collective request. */
int ibex_nbc_start(ibex_req_t *req, const char *call);

#endif
