/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the communicator entry points (comm_api.c, comm_inter_api.c). */
#ifndef IBEX_COMM_API_H
#define IBEX_COMM_API_H

#include <mpi.h>

#include "ibex_comm.h"
#include "ibex_status.h"

/* The end of an intercommunicator constructor of runtime/comm/comm_inter.c: st raised on
 * parent's handler, or *newcomm = made's handle (MPI_COMM_NULL when made is NULL). */
int ibex_mpi_inter_result(ibex_comm_t *parent, const char *call, ibex_status_t st,
                          ibex_comm_t *made, MPI_Comm *newcomm);

#endif
