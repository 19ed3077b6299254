/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the communicator entry points (comm_api.c, comm_inter_api.c). */
#ifndef IBEX_COMM_API_H
#define IBEX_COMM_API_H

#include <stdbool.h>

#include <mpi.h>

#include "ibex_comm.h"
#include "ibex_status.h"

/* The end of an intercommunicator constructor of runtime/comm/comm_inter.c: st raised on
 * parent's handler, or *newcomm = made's handle (MPI_COMM_NULL when made is NULL). */
int ibex_mpi_inter_result(ibex_comm_t *parent, const char *call, ibex_status_t st,
                          ibex_comm_t *made, MPI_Comm *newcomm);

/* Comm_dup's body (attribute copy callbacks, then the hints when copy_hints). */
int ibex_mpi_comm_dup(ibex_comm_t *c, const char *call, bool copy_hints, MPI_Comm *newcomm);
/* What a duplicate n of c takes from c (topology, attributes through their copy callbacks,
 * hints when copy_hints); on failure n is released, *why says what failed and the class is
 * returned (not raised). */
int ibex_mpi_comm_dup_copy(ibex_comm_t *c, ibex_comm_t *n, bool copy_hints, const char **why);
/* The communicator hints of comm_info_api.c: merge info in, copy from one to another, drop. */
int ibex_mpi_comm_hints_set(const ibex_comm_t *c, MPI_Info info);
int ibex_mpi_comm_hints_copy(const ibex_comm_t *from, const ibex_comm_t *to);
void ibex_mpi_comm_hints_drop(const ibex_comm_t *c);

#endif
