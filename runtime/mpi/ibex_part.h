/* SPDX-License-Identifier: BSD-3-Clause */
/* Partitioned requests (part.c), for MPI_Start / Startall (p2p_persist.c). */
#ifndef IBEX_PART_H
#define IBEX_PART_H

#include <stdbool.h>

#include "ibex_request.h"

bool ibex_part_is(const ibex_req_t *req);
/* MPI_Start of an inactive partitioned request. */
int ibex_part_start(ibex_req_t *req, const char *call);

#endif
