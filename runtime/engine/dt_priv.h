/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datatype internals shared by datatype.c, dt_create.c, dt_pack.c, dt_vec.c, dt_api.c and op.c
 * only.
 *
 * Every ibex_dt_t carries an ibex_dt_priv_t in its `priv` pointer: what packing at an
 * arbitrary offset, MPI_Get_elements and reductions on derived types need beyond the public
 * fields, plus the construction facts that later constructors depend on (alignment, explicit
 * bounds from MPI_Type_create_resized).
 */
#ifndef IBEX_DT_PRIV_H
#define IBEX_DT_PRIV_H

#include <stdint.h>

#include "ibex_datatype.h"
#include "ibex_dt_ref.h"

/* n basic elements of bsize bytes each, in packed order; adjacent runs of equal bsize merge. */
typedef struct ibex_dt_run {
    size_t n;
    size_t bsize;
} ibex_dt_run_t;

/* A derived type's constructor arguments, for MPI_Type_get_envelope / get_contents (the
 * types are references, released with the type). */
typedef struct ibex_dt_contents {
    int ni, na, nd;
    int *ints;
    MPI_Aint *aints;
    struct ibex_dt **types;
    int nc;            /* large counts: only types made by the _c constructors have them */
    MPI_Count *counts; /* their count, length, stride and displacement arguments */
} ibex_dt_contents_t;

/* A regular layout (dt_pack.c): one element is n_out rows stride_out apart, each n_in blocks
 * of len bytes stride_in apart, the first at `first`; elements repeat every extent. len == 0:
 * not regular (packing walks the blocks). A vector, hvector, a strided resized type, a vector
 * of such a vector and an indexed type with regular blocks all have one. */
typedef struct ibex_dt_vec {
    size_t len;
    size_t n_in, n_out;
    ptrdiff_t first, stride_in, stride_out;
} ibex_dt_vec_t;

typedef struct ibex_dt_priv {
    ibex_dt_vec_t vec;   /* regular shape for the specialised pack loops, or len == 0 */
    size_t *prefix;      /* nblocks + 1 prefix sums of block lengths: packed offset of a block */
    ibex_dt_run_t *runs; /* basic-element layout of one element (Get_elements on mixed types) */
    int nruns;
    size_t nelems;  /* basic elements in one element */
    int op_type;    /* predefined type handle the type is built of (for ops), or -1 */
    size_t align;   /* largest alignment of its basic types (struct padding rule) */
    bool sticky;    /* lb / ub are explicit markers (from create_resized) */
    bool op_unwrap; /* user ops see its contiguous record's count elements of its member type */
    int combiner;   /* IBEX_DT_COMBINER_* */
    ibex_dt_contents_t *contents; /* NULL for named types */
} ibex_dt_priv_t;

enum {
    IBEX_DT_COMBINER_NAMED,
    IBEX_DT_COMBINER_DUP,
    IBEX_DT_COMBINER_CONTIGUOUS,
    IBEX_DT_COMBINER_VECTOR,
    IBEX_DT_COMBINER_HVECTOR,
    IBEX_DT_COMBINER_INDEXED,
    IBEX_DT_COMBINER_HINDEXED,
    IBEX_DT_COMBINER_INDEXED_BLOCK,
    IBEX_DT_COMBINER_HINDEXED_BLOCK,
    IBEX_DT_COMBINER_STRUCT,
    IBEX_DT_COMBINER_RESIZED,
    IBEX_DT_COMBINER_SUBARRAY,
    IBEX_DT_COMBINER_DARRAY,
    IBEX_DT_COMBINER_F90_REAL,
    IBEX_DT_COMBINER_F90_COMPLEX,
    IBEX_DT_COMBINER_F90_INTEGER,
};

static inline ibex_dt_priv_t *ibex_dt_priv(const ibex_dt_t *dt)
{
    return (ibex_dt_priv_t *)dt->priv;
}

/* buf + disp without pointer arithmetic on NULL (MPI_BOTTOM with absolute displacements). */
static inline char *ibex_dt_addr(const void *buf, ptrdiff_t disp)
{
    return (char *)((uintptr_t)buf + (uintptr_t)disp);
}

/* datatype.c: a new derived type (refcount 1, no handle yet) and its destruction. */
ibex_dt_t *ibex_dt_alloc(void);
void ibex_dt_destroy(ibex_dt_t *dt);
/* Registers a built type in the handle table; returns the handle or -1. */
int ibex_dt_register(ibex_dt_t *dt);
/* Removes a derived type's handle (MPI_Type_free); the object lives while referenced. */
void ibex_dt_unregister(ibex_dt_t *dt);
/* Keeps a copy of a constructor's arguments on dt (retaining the types); false when out of
 * memory. Replaces any earlier record. */
bool ibex_dt_contents_set(ibex_dt_t *dt, const int *ints, int ni, const MPI_Aint *aints, int na,
                          ibex_dt_t *const *types, int nd);
/* The same with large counts (the record of a _c constructor, MPI 4.1 section 5.1.13). */
typedef struct ibex_dt_args {
    const int *ints;
    int ni;
    const MPI_Aint *aints;
    int na;
    const MPI_Count *counts;
    int nc;
} ibex_dt_args_t;
bool ibex_dt_contents_set_args(ibex_dt_t *dt, const ibex_dt_args_t *a, ibex_dt_t *const *types,
                               int nd);
/* Fills dt->priv's prefix sums and regular shape from its blocks; false when out of memory. */
bool ibex_dt_prefix_build(ibex_dt_t *dt);
/* dt_vec.c: finds the regular shape of dt's blocks (priv->vec), or clears it. */
void ibex_dt_vec_detect(ibex_dt_t *dt);
/* dt_vec.c: len bytes at stream position offset of (buf, dt) packed to out / unpacked from in,
 * for a type with a regular shape; the caller has clamped the range to the stream. */
void ibex_dt_vec_pack(const void *buf, const ibex_dt_t *dt, size_t offset, void *out, size_t len);
void ibex_dt_vec_unpack(void *buf, const ibex_dt_t *dt, size_t offset, const void *in, size_t len);
/* dt_vec.c: the copy kernels' level (0 plain C, 1 SSE2, 2 AVX2), for tests; a level the CPU
 * lacks, or -1, selects the best it has. Returns the level now in use. Not thread safe. */
int ibex_dt_vec_level(int level);

/* dt_api.c: the type of a handle for an MPI entry point, raising MPI_ERR_TYPE (through
 * ibex_mpi_error) when it is not a live type; need_commit also rejects uncommitted types. */
int ibex_dt_lookup(MPI_Datatype handle, const char *call, bool need_commit, ibex_dt_t **dt_p);

/* dt_pack.c: packed bytes needed for `nelems` basic elements, or -1 when it is not a whole
 * number of elements of the type's layout (MPI_Status_set_elements). */
MPI_Count ibex_dt_elements_bytes(const ibex_dt_t *dt, MPI_Count nelems);

/* The builder (dt_build.c): a constructor starts from a zeroed builder holding a fresh type,
 * adds its members, then finishes (flattened blocks, bounds, prefix table). */
typedef struct ibex_dt_build {
    ibex_dt_t *dt;
    const ibex_dt_t *first; /* first member's type: types of a type with no data */
    size_t cap_blocks, cap_runs;
    bool typed;           /* basic / op type taken from a member with data */
    bool bounded, sticky; /* lb / ub seen; they come from markers */
    ptrdiff_t lb, ub;
    bool data; /* true_lb / true_ub seen */
    ptrdiff_t tlb, tub;
    int err; /* MPI error class of the first failure */
} ibex_dt_build_t;
void ibex_dt_build_add(ibex_dt_build_t *b, const ibex_dt_t *old, ptrdiff_t disp, size_t count);
/* The most (disp, len) blocks, or element runs, one flattened type may have. */
#define IBEX_DT_MAX_BLOCKS ((size_t)1 << 26)
/* MPI_SUCCESS or the MPI error class of the first failure (MPI_ERR_NO_MEM, MPI_ERR_ARG,
 * MPI_ERR_UNSUPPORTED_OPERATION past IBEX_DT_MAX_BLOCKS). */
int ibex_dt_build_finish(ibex_dt_build_t *b, bool pad);

#endif
