/* SPDX-License-Identifier: BSD-3-Clause */
/* What the collectives' entry points (coll_api.c, coll_api_data.c) share. */
#ifndef IBEX_COLL_API_H
#define IBEX_COLL_API_H

#include <mpi.h>

#include "ibex_comm.h"

/* One (buffer, count, datatype) triple of a collective: count >= 0, a committed datatype, a
 * buffer (MPI_IN_PLACE is not allowed; MPI_BOTTOM is, for derived types). */
int ibex_check_triple(ibex_comm_t *c, const char *call, const void *buf, int count,
                      MPI_Datatype dt);

/* MPI_ERR_COMM on an intercommunicator: their collectives are not there yet (the collectives
 * issue); checked first, so no root or buffer rule of the intracommunicator form applies. */
int ibex_coll_check_intra(ibex_comm_t *c, const char *call);

#endif
