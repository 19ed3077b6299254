/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the collectives' entry points share: the argument checks (coll_check.c), one per
 * collective kind, used alike by the blocking calls (coll_api*.c) and the non-blocking and
 * persistent ones, and the blocking run (coll_api.c).
 */
#ifndef IBEX_COLL_API_H
#define IBEX_COLL_API_H

#include <stddef.h>

#include <mpi.h>

#include "coll.h"
#include "ibex_comm.h"

/* Checks the arguments of one collective call of kind `kind` and completes *a.
 * In: *a holds the call's buffers, counts, datatypes, root and per-rank arrays as the program
 * passed them (coll.h says which kind uses what; a->comm and a->op are set here from comm and
 * op; op is ignored by the kinds without a reduction). call is the MPI name for messages
 * ("MPI_Igatherv"). Out: a->comm, a->op, and *bytes_p, the selection key (ibex_coll_select).
 * Returns MPI_SUCCESS, or the error class, already raised on the communicator's handler
 * (MPI_ERR_COMM before there is one). On an intercommunicator the intercommunicator rules apply
 * (MPI_ROOT / MPI_PROC_NULL roots, remote-size arrays, no MPI_IN_PLACE, no Scan / Exscan).
 * The checks are local and send nothing: communicator
 * (MPI_ERR_COMM), counts (MPI_ERR_COUNT), datatypes and their commit (MPI_ERR_TYPE), root
 * (MPI_ERR_ROOT), op and op-on-type (MPI_ERR_OP), NULL buffer with data or MPI_IN_PLACE where
 * the standard does not allow it (MPI_ERR_BUFFER), NULL per-rank arrays (MPI_ERR_ARG). Root-side
 * arguments are checked only at the root. */
int ibex_coll_prepare(ibex_coll_kind_t kind, MPI_Comm comm, MPI_Op op, const char *call,
                      ibex_coll_args_t *a, size_t *bytes_p);

/* A blocking collective: ibex_coll_prepare, then the selected algorithm; an algorithm's
 * failure is raised as its MPI class on the communicator's handler. */
int ibex_coll_call(ibex_coll_kind_t kind, MPI_Comm comm, MPI_Op op, const char *call,
                   ibex_coll_args_t *a);

/* One (buffer, count, datatype) triple of a collective: count >= 0, a committed datatype, a
 * buffer (MPI_IN_PLACE is not allowed; MPI_BOTTOM is, for derived types). */
int ibex_check_triple(ibex_comm_t *c, const char *call, const void *buf, int count,
                      MPI_Datatype dt);

/* MPI_ERR_COMM on an intercommunicator, for the calls MPI does not define there (the
 * collectives themselves check with ibex_coll_prepare, which knows both forms). */
int ibex_coll_check_intra(ibex_comm_t *c, const char *call);

#endif
