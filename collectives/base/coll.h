/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives: internal interface (collectives/).
 *
 * Each algorithm is one file exposing one function `ibex_coll_<kind>_<algorithm>` that takes
 * the collective's arguments, already checked by the MPI entry point (coll_api.c), in one
 * ibex_coll_args_t. An algorithm is built only on the point-to-point engine's collective-context
 * calls (ibex_p2p.h, coll = true), ibex_op_apply for reductions and the datatype engine for
 * temporary buffers and local copies (coll_util.c). coll_select.c picks an algorithm per call
 * from a table keyed by collective, communicator size and message bytes.
 *
 * Tags: each collective kind has its own tag on the communicator's collective context
 * (IBEX_COLL_TAG). Messages on one (context, peer) are matched in send order, and every member
 * calls the collectives of a communicator in the same order, so successive collectives on one
 * communicator cannot take each other's messages. Communicator construction
 * (runtime/comm/comm_ctx.c) uses these collectives too, on the parent communicator.
 */
#ifndef IBEX_COLL_H
#define IBEX_COLL_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "ibex_comm.h"
#include "ibex_op.h"
#include "ibex_status.h"

#define IBEX_COLL_KIND_LIST(X)                                                                     \
    X(BARRIER, "barrier")                                                                          \
    X(BCAST, "bcast")                                                                              \
    X(REDUCE, "reduce")                                                                            \
    X(ALLREDUCE, "allreduce")                                                                      \
    X(GATHER, "gather")                                                                            \
    X(SCATTER, "scatter")                                                                          \
    X(ALLGATHER, "allgather")                                                                      \
    X(ALLTOALL, "alltoall")

#define IBEX_COLL_KIND_ENUM(name, text) IBEX_COLL_##name,
typedef enum { IBEX_COLL_KIND_LIST(IBEX_COLL_KIND_ENUM) IBEX_COLL_KIND_COUNT } ibex_coll_kind_t;
#undef IBEX_COLL_KIND_ENUM

#define IBEX_COLL_TAG(kind) (1 + (int)(kind))

/* Arguments of every collective. Bcast uses (rbuf, rcount, rdt) as its buffer; Reduce and
 * Allreduce use (rcount, rdt) for both buffers, and sbuf may be MPI_IN_PLACE (the data is then
 * in rbuf). Gather / Scatter / Allgather / Alltoall use both triples as MPI defines them;
 * MPI_IN_PLACE is passed through to the algorithm where the standard allows it. */
typedef struct ibex_coll_args {
    ibex_comm_t *comm;
    const void *sbuf;
    int scount;
    MPI_Datatype sdt;
    void *rbuf;
    int rcount;
    MPI_Datatype rdt;
    const ibex_op_t *op;
    int root;
} ibex_coll_args_t;

typedef ibex_status_t (*ibex_coll_fn_t)(const ibex_coll_args_t *args);

/* Which communicators an algorithm is for (collshm): any, those within one node (shared
 * memory), or those over several nodes with more than one rank on some node (hierarchical). */
typedef enum {
    IBEX_COLL_SPAN_ANY = 0,
    IBEX_COLL_SPAN_NODE,
    IBEX_COLL_SPAN_NODES,
} ibex_coll_span_t;

typedef struct ibex_coll_algo {
    const char *name; /* "binomial": forced with ibex_coll_force(kind, name) */
    ibex_coll_kind_t kind;
    ibex_coll_fn_t fn;
    ibex_coll_span_t span; /* the communicators it is chosen for (by the table) */
} ibex_coll_algo_t;

/* ---- algorithms, one per file ---- */
ibex_status_t ibex_coll_barrier_dissemination(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_bcast_binomial(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_reduce_binomial(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_allreduce_recursive_doubling(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_allreduce_reduce_bcast(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_gather_linear(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_scatter_linear(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_allgather_ring(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_alltoall_pairwise(const ibex_coll_args_t *args);
/* shared-memory native, within one node (collectives/<kind>_shm.c, base/coll_shm.h) */
ibex_status_t ibex_coll_barrier_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_bcast_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_reduce_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_allreduce_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_gather_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_allgather_shm(const ibex_coll_args_t *args);
/* hierarchical: shared memory within each node, the classic algorithms between node leaders
 * (collectives/<kind>_hier.c, base/coll_hier.c) */
ibex_status_t ibex_coll_barrier_hier(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_bcast_hier(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_reduce_hier(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_allreduce_hier(const ibex_coll_args_t *args);

/* ---- selection (coll_select.c) ---- */
const char *ibex_coll_kind_name(ibex_coll_kind_t kind);
/* The algorithm for a call: the forced one if any, else the first table rule that fits. */
const ibex_coll_algo_t *ibex_coll_select(ibex_coll_kind_t kind, int comm_size, size_t bytes);
/* Forces an algorithm by name, or back to the table with NULL / "auto". IBEX_ERR_INVALID if
 * the name is not an algorithm of that kind. */
ibex_status_t ibex_coll_force(ibex_coll_kind_t kind, const char *name);
/* Number of algorithms of a kind and the i-th one, so tests can loop over all of them. */
int ibex_coll_algo_count(ibex_coll_kind_t kind);
const ibex_coll_algo_t *ibex_coll_algo_at(ibex_coll_kind_t kind, int i);
/* Selects and runs. */
ibex_status_t ibex_coll_run(ibex_coll_kind_t kind, const ibex_coll_args_t *args, size_t bytes);
/* Runs the table's first algorithm for any communicator (IBEX_COLL_SPAN_ANY): what a
 * shared-memory or hierarchical algorithm does when it cannot run on a call (wrong span, no
 * segment, no single copy for a large message, non-contiguous or non-commutative reduction),
 * which every rank decides alike. */
ibex_status_t ibex_coll_fallback(ibex_coll_kind_t kind, const ibex_coll_args_t *args, size_t bytes);

/* ---- helpers (coll_util.c) ---- */
/* A temporary buffer laid out like (count, dt): returns the pointer to pass as the buffer
 * (element 0 at it) and sets *base_p to what free() takes; NULL when out of memory. */
void *ibex_coll_tmp_alloc(MPI_Datatype dt, int count, void **base_p);
/* Copies (sbuf, scount, sdt) into (rbuf, rcount, rdt) through the packed stream;
 * IBEX_ERR_TRUNCATE when the receive side holds fewer bytes. */
ibex_status_t ibex_coll_copy(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                             MPI_Datatype rdt);
/* buf + index * extent(dt). */
void *ibex_coll_block(const void *buf, MPI_Datatype dt, size_t index);
/* inout = in op inout, as a status. */
ibex_status_t ibex_coll_apply(const ibex_op_t *op, const void *in, void *inout, int count,
                              MPI_Datatype dt);

#endif
