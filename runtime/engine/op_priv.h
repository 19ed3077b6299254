/* SPDX-License-Identifier: BSD-3-Clause */
/* Reduction-op internals shared by op.c and op_api.c only. */
#ifndef IBEX_OP_PRIV_H
#define IBEX_OP_PRIV_H

#include "ibex_op.h"

/* A user op from MPI_Op_create, registered in the handle table; NULL when out of memory. */
ibex_op_t *ibex_op_create(MPI_User_function *fn, bool commutative);
/* MPI_Op_free: removes the handle and drops the reference of the handle. */
void ibex_op_free(ibex_op_t *op);
void ibex_op_retain(ibex_op_t *op);
void ibex_op_release(ibex_op_t *op);

#endif
