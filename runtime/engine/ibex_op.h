/* SPDX-License-Identifier: BSD-3-Clause */
/* Reduction operations (runtime/engine/op.c): predefined ops on predefined types, and user ops. */
#ifndef IBEX_OP_H
#define IBEX_OP_H

#include <stdbool.h>

#include <mpi.h>

#include "ibex_status.h"

typedef struct ibex_op {
    int handle;
    int refcount;
    bool commutative;
    bool predefined;
    MPI_User_function *user_fn; /* NULL for predefined ops */
    /* MPI_Op_create_c's function (MPI 4.0: the length as MPI_Count), called instead when set */
    MPI_User_function_c *user_fn_c;
} ibex_op_t;

ibex_op_t *ibex_op_get(MPI_Op handle);
/* inout[i] = in[i] op inout[i] for count elements of datatype. Returns MPI_SUCCESS, or
 * MPI_ERR_OP when op is not defined on the type. */
int ibex_op_apply(const ibex_op_t *op, const void *in, void *inout, int count,
                  MPI_Datatype datatype);

#endif
