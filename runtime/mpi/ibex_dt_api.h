/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the datatype entry points (dt_create.c, dt_decode.c, dt_array.c, dt_more.c). */
#ifndef IBEX_DT_API_H
#define IBEX_DT_API_H

#include <mpi.h>

#include "ibex_datatype.h"

/* A new derived type with old's layout, combiner and constructor arguments: what
 * Type_get_contents hands out for a derived member type (the program frees it). */
int ibex_dt_clone(const char *call, ibex_dt_t *old, MPI_Datatype *newtype);
/* Marks *newtype as made by constructor `combiner` with these arguments (dt_create.c); on
 * failure frees it. */
int ibex_dt_record(const char *call, MPI_Datatype *newtype, int combiner, const int *ints, int ni,
                   const MPI_Aint *aints, int na, const MPI_Datatype *types, int nd);
/* True for the types Type_create_f90_* give: predefined for the program (not freeable). */
bool ibex_dt_is_f90(const ibex_dt_t *dt);

#endif
