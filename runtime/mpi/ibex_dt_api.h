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
/* A subarray type in MPI_Count (dt_array.c; no record: the int and _c forms record their own
 * arguments), for MPI_Type_create_subarray and _c. */
int ibex_dt_subarray(const char *call, int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                     const MPI_Count *starts, int order, MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
/* A darray type in MPI_Count global sizes (dt_array.c; no record), for
 * MPI_Type_create_darray and _c. */
int ibex_dt_darray(const char *call, int size, int rank, int ndims, const MPI_Count *gsizes,
                   const int *distribs, const int *dargs, const int *psizes, int order,
                   MPI_Datatype oldtype, MPI_Datatype *newtype);
/* True for the types Type_create_f90_* give: predefined for the program (not freeable). */
bool ibex_dt_is_f90(const ibex_dt_t *dt);

/* The constructors' bodies in MPI_Count (dt_create.c), shared by the int forms and the _c
 * forms (dt_large.c); `large` records the arguments as large counts, as the _c forms must
 * (MPI 4.1 section 5.1.13). The engine holds sizes, extents and displacements in size_t /
 * ptrdiff_t, so only the number of blocks of the flattened layout is bounded (by memory). */
int ibex_dt_create_contiguous(const char *call, MPI_Count count, MPI_Datatype oldtype, bool large,
                              MPI_Datatype *newtype);
typedef struct ibex_dt_hvector {
    MPI_Count count, blocklength, stride; /* stride in old extents (VECTOR) or bytes */
    int combiner;                         /* IBEX_DT_COMBINER_VECTOR or _HVECTOR */
    bool large;
} ibex_dt_hvector_t;
int ibex_dt_create_hvector(const char *call, const ibex_dt_hvector_t *v, MPI_Datatype oldtype,
                           MPI_Datatype *newtype);
/* The indexed family and struct: lengths per block (lens / clens) or one (block, len);
 * displacements in old extents (idisps, or cdisps without bytes) or in bytes (adisps, or cdisps
 * with bytes). */
typedef struct ibex_dt_indexed {
    MPI_Count count;
    bool block;
    const int *lens;
    const MPI_Count *clens;
    MPI_Count len;
    const int *idisps;
    const MPI_Aint *adisps;
    const MPI_Count *cdisps;
    bool bytes;
    int combiner;
    bool large;
} ibex_dt_indexed_t;
int ibex_dt_create_indexed(const char *call, const ibex_dt_indexed_t *a, MPI_Datatype oldtype,
                           const MPI_Datatype *types, MPI_Datatype *newtype);
/* Replaces the record of a just-built type by a _c form's (same member types). */
int ibex_dt_record_large(const char *call, MPI_Datatype *newtype, const int *ints, int ni,
                         const MPI_Count *counts, int nc);

#endif
