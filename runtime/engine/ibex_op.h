/* SPDX-License-Identifier: BSD-3-Clause */
/* Reduction operations (runtime/engine/op.c): predefined ops on predefined types, and user ops. */
#ifndef IBEX_OP_H
#define IBEX_OP_H

#include <stdbool.h>
#include <stddef.h>

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
/* The same on the type itself (a schedule's step holds a reference to its type, whose handle
 * the program, or the large-count collectives, may have freed since the call). */
struct ibex_dt;
int ibex_op_apply_dt(const ibex_op_t *op, const void *in, void *inout, int count,
                     const struct ibex_dt *dt);
/* Whether op may be applied to dt (user ops: on whatever the program says), without applying
 * it: the collectives' argument check. */
bool ibex_op_defined_on(const ibex_op_t *op, const struct ibex_dt *dt);
/* A predefined op's elementwise function: inout[i] = in[i] op inout[i] for n elements. */
typedef void ibex_op_fn_t(const void *in, void *inout, size_t n);
/* That function for op on dt when both are predefined (not MPI_REPLACE or MPI_NO_OP) and op is
 * defined on dt, else NULL: the blocking collectives look it up once, in their argument check,
 * and fold with it directly (collectives/base/coll.h, ibex_coll_fold). */
ibex_op_fn_t *ibex_op_fn_of(const ibex_op_t *op, const struct ibex_dt *dt);
/* The same for any count: one call of an MPI_User_function_c, pieces of at most INT_MAX
 * elements (at their extents) for the others. */
int ibex_op_apply_c(const ibex_op_t *op, const void *in, void *inout, MPI_Count count,
                    MPI_Datatype datatype);
/* Marks a contiguous type made by MPI_Type_contiguous_c (the large-count collectives' wrapping
 * of a count past an int) so that a user op applied to n elements of it is called on n times
 * its count elements of its member type instead, by ibex_op_apply_c: the program's function
 * sees its own type. Predefined ops need no mark (they reduce the wrapped type elementwise). */
void ibex_op_unwrap_type(MPI_Datatype contiguous);

#endif
