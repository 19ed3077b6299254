/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives: internal interface (collectives/).
 *
 * Each algorithm is one file exposing one function `ibex_coll_<kind>_<algorithm>` that takes
 * the collective's arguments, already checked by the MPI entry point (coll_check.c), in one
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
#include <stdint.h>

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
    X(ALLTOALL, "alltoall")                                                                        \
    IBEX_COLL_KIND_LIST_V(X)

/* The vector, reduce-scatter and scan kinds (collectives issue), tags 9..17. */
#define IBEX_COLL_KIND_LIST_V(X)                                                                   \
    X(GATHERV, "gatherv")                                                                          \
    X(SCATTERV, "scatterv")                                                                        \
    X(ALLGATHERV, "allgatherv")                                                                    \
    X(ALLTOALLV, "alltoallv")                                                                      \
    X(ALLTOALLW, "alltoallw")                                                                      \
    X(REDUCE_SCATTER, "reduce_scatter")                                                            \
    X(REDUCE_SCATTER_BLOCK, "reduce_scatter_block")                                                \
    X(SCAN, "scan")                                                                                \
    X(EXSCAN, "exscan")

#define IBEX_COLL_KIND_ENUM(name, text) IBEX_COLL_##name,
typedef enum { IBEX_COLL_KIND_LIST(IBEX_COLL_KIND_ENUM) IBEX_COLL_KIND_COUNT } ibex_coll_kind_t;
#undef IBEX_COLL_KIND_ENUM

/* 1..IBEX_COLL_KIND_COUNT (17 today); 1..63 are reserved for the collectives. */
#define IBEX_COLL_TAG(kind) (1 + (int)(kind))
#define IBEX_COLL_TAG_MAX   63
_Static_assert(IBEX_COLL_KIND_COUNT <= IBEX_COLL_TAG_MAX,
               "collective tags past the reserved range");

/* Arguments of every collective. Bcast uses (rbuf, rcount, rdt) as its buffer; Reduce and
 * Allreduce use (rcount, rdt) for both buffers, and sbuf may be MPI_IN_PLACE (the data is then
 * in rbuf). Gather / Scatter / Allgather / Alltoall use both triples as MPI defines them;
 * MPI_IN_PLACE is passed through to the algorithm where the standard allows it.
 *
 * The per-rank arrays (comm->size entries each, the program's own arrays, which MPI forbids it
 * to change before the collective completes) are NULL for the kinds that do not use them:
 *   Gatherv         rcounts, rdispls (root only); (sbuf, scount, sdt) everywhere
 *   Scatterv        scounts, sdispls (root only); (rbuf, rcount, rdt) everywhere
 *   Allgatherv      rcounts, rdispls; (sbuf, scount, sdt) unless sbuf is MPI_IN_PLACE
 *   Alltoallv       scounts, sdispls, rcounts, rdispls with sdt / rdt; displacements in
 *                   extents of the type; sbuf MPI_IN_PLACE: the s* arrays are ignored
 *   Alltoallw       the same, with per-peer types sdts / rdts and displacements in bytes
 *   Reduce_scatter  rcounts (block i goes to rank i) with rdt and op; sbuf holds sum(rcounts)
 *                   elements, or is MPI_IN_PLACE (the data is then in rbuf)
 * Reduce_scatter_block uses (rcount, rdt) per rank (sbuf holds size * rcount); Scan and
 * Exscan use (rcount, rdt) like Allreduce (sbuf may be MPI_IN_PLACE).
 *
 * Per-peer types: Gatherv (rdts, at the root), Scatterv (sdts, at the root) and Alltoallv
 * (sdts / rdts) on an intracommunicator may also be given a type per peer, as Alltoallw is;
 * their displacements are then in bytes and sdt / rdt are only checked. Their schedules
 * (coll_sched.h) take them too, and so does Allgatherv's (rdts, only there: the blocking
 * Allgatherv algorithms do not). runtime/mpi's
 * large-count forms (coll_large.c) pass a block past an int that way, as one element of a
 * derived type; each rank chooses for itself, the messages are the same. */
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
    const int *scounts, *sdispls;
    const int *rcounts, *rdispls;
    const MPI_Datatype *sdts, *rdts;
    /* op's elementwise function on op_fn_dt (ibex_op_fn_of), set by the blocking entry's
     * argument check when both are predefined; NULL elsewhere (ibex_coll_fold) */
    ibex_op_fn_t *op_fn;
    MPI_Datatype op_fn_dt;
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
    int short_kind;        /* 1 + the short path it feeds (IBEX_COLL_SHORT_*, coll_shm.h), or 0 */
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
/* more algorithms for the first kinds, chosen by size (the crossovers in coll_select.c) */
ibex_status_t ibex_coll_bcast_scatter_allgather(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_allreduce_rabenseifner(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_reduce_rabenseifner(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_gather_binomial(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_scatter_binomial(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_allgather_bruck(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_alltoall_bruck(const ibex_coll_args_t *args);
/* the vector, reduce-scatter and scan kinds */
ibex_status_t ibex_coll_gatherv_linear(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_scatterv_linear(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_allgatherv_ring(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_allgatherv_bruck(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_alltoallv_pairwise(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_alltoallw_pairwise(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_alltoallv_scattered(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_alltoallw_scattered(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_reduce_scatter_reduce_scatterv(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_reduce_scatter_block_reduce_scatterv(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_reduce_scatter_ring(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_reduce_scatter_block_ring(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_scan_linear(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_exscan_linear(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_scan_recursive_doubling(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_exscan_recursive_doubling(const ibex_coll_args_t *args);

/* The reduce-scatter half of Rabenseifner's algorithms (allreduce_rabenseifner.c), shared with
 * reduce_rabenseifner.c: buf (a->rcount of a->rdt) is cut into pof2 blocks (cnts / disps);
 * after ibex_coll_rsag_reduce_scatter a participant (newrank >= 0; the even ones of the first
 * 2 rem ranks sit out) holds blocks [send_idx, send_idx + 1) of the reduction. */
typedef struct ibex_coll_rsag {
    const ibex_coll_args_t *a;
    void *buf, *tmp, *tmp_base;
    int *cnts, *disps;
    int tag, pof2, rem, newrank, send_idx, last_idx;
} ibex_coll_rsag_t;
ibex_status_t ibex_coll_rsag_init(ibex_coll_rsag_t *s, const ibex_coll_args_t *a, void *buf,
                                  int tag);
ibex_status_t ibex_coll_rsag_reduce_scatter(ibex_coll_rsag_t *s);
void ibex_coll_rsag_fini(ibex_coll_rsag_t *s);
int ibex_coll_rsag_peer(const ibex_coll_rsag_t *s, int newrank);       /* its real rank */
int ibex_coll_rsag_count(const ibex_coll_rsag_t *s, int from, int to); /* elements of blocks */
/* shared-memory native, within one node (collectives/<kind>_shm.c, base/coll_shm.h) */
ibex_status_t ibex_coll_barrier_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_bcast_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_reduce_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_reduce_shm_root(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_barrier_shm_fanin(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_reduce_scatter_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_reduce_scatter_block_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_allreduce_shm(const ibex_coll_args_t *args);
/* The short paths of MPI_Allreduce (allreduce_shm.c), MPI_Bcast (bcast_shm.c) and
 * MPI_Alltoall (alltoall_shm.c), coll_shm.h:
 * true when they ran the call (they cannot fail); false: nothing was done, run the general
 * path. ibex_coll_shm_short_note: ibex_coll_run tells them what the table chose. */
bool ibex_coll_allreduce_tiny(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                              MPI_Comm comm);
bool ibex_coll_bcast_tiny(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
bool ibex_coll_alltoall_tiny(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                             MPI_Datatype rdt, MPI_Comm comm);
void ibex_coll_shm_short_note(const ibex_coll_args_t *args, const ibex_coll_algo_t *algo,
                              size_t bytes, uint64_t g0);
ibex_status_t ibex_coll_gather_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_allgather_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_allgather_shm_staged(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_allgatherv_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_allgatherv_shm_staged(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_alltoallv_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_alltoallw_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_scatter_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_alltoall_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_gatherv_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_scatterv_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_scan_shm(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_exscan_shm(const ibex_coll_args_t *args);
/* hierarchical: shared memory within each node, the classic algorithms between node leaders
 * (collectives/<kind>_hier.c, base/coll_hier.c) */
ibex_status_t ibex_coll_barrier_hier(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_bcast_hier(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_reduce_hier(const ibex_coll_args_t *args);
ibex_status_t ibex_coll_allreduce_hier(const ibex_coll_args_t *args);

/* ---- selection (coll_select.c) ---- */
const char *ibex_coll_kind_name(ibex_coll_kind_t kind);
/* The algorithm for a call: the forced one if any, else the first table rule that fits.
 * bytes must be the same on every rank (all must pick the same algorithm): the per-rank
 * message of Bcast, Reduce, Allreduce, Scan, Exscan and Reduce_scatter(_block) (the whole
 * vector), one block of Gather, Scatter, Allgather, Alltoall, the mean block of Allgatherv;
 * 0 for Gatherv, Scatterv, Alltoallv and Alltoallw, whose counts no rank knows in full, so
 * their rules key on the communicator size alone. */
const ibex_coll_algo_t *ibex_coll_select(ibex_coll_kind_t kind, int comm_size, size_t bytes);
/* Forces an algorithm by name, or back to the table with NULL / "auto". IBEX_ERR_INVALID if
 * the name is not an algorithm of that kind. */
ibex_status_t ibex_coll_force(ibex_coll_kind_t kind, const char *name);
/* Moved by every ibex_coll_force: a memo of what the table chose (the short Allreduce's,
 * allreduce_shm.c) made at another value is stale. */
extern unsigned ibex_coll_select_epoch;
/* Number of algorithms of a kind and the i-th one, so tests can loop over all of them. */
int ibex_coll_algo_count(ibex_coll_kind_t kind);
const ibex_coll_algo_t *ibex_coll_algo_at(ibex_coll_kind_t kind, int i);
/* "a, b, c": the names of a kind's algorithms, for messages and ibex_info (cut at len). */
void ibex_coll_algo_names(ibex_coll_kind_t kind, char *buf, size_t len);
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
/* inout = in op inout over count elements of a->rdt (buffers at the type's true lower bound
 * plus lb, as the shared-memory algorithms keep them): straight through a->op_fn when the
 * check looked it up for this very type, else ibex_coll_apply. */
static inline ibex_status_t ibex_coll_fold(const ibex_coll_args_t *a, const char *in, char *inout,
                                           int count, ptrdiff_t lb)
{
    if (__builtin_expect(a->op_fn != NULL && a->op_fn_dt == a->rdt, 1)) {
        a->op_fn(in, inout, (size_t)(count > 0 ? count : 0)); /* predefined: lb is 0 */
        return IBEX_OK;
    }
    return ibex_coll_apply(a->op, in - lb, inout - lb, count, a->rdt);
}

/* buf + displ * extent(dt); displ may be negative (the v-collectives' displacements). */
void *ibex_coll_disp(const void *buf, MPI_Datatype dt, int displ);
/* Block i of a v-collective side: displs[i] extents of dt into buf, or with per-peer types
 * (dts not NULL) displs[i] bytes into buf and dts[i] as *dt_p. */
void *ibex_coll_vblock(const void *buf, MPI_Datatype dt, const MPI_Datatype *dts, const int *displs,
                       int i, MPI_Datatype *dt_p);

/* A batch of non-blocking sends and receives on the collective context (one tag), waited for
 * together: post with _send / _recv (the first failure stops further posts and is kept), then
 * _wait, which waits for everything posted, frees the batch and returns the first error. */
struct ibex_req;
typedef struct ibex_coll_batch {
    ibex_comm_t *comm;
    int tag, n, cap;
    struct ibex_req **reqs;
    ibex_status_t st;
} ibex_coll_batch_t;
ibex_status_t ibex_coll_batch_init(ibex_coll_batch_t *b, int cap, ibex_comm_t *comm, int tag);
void ibex_coll_batch_send(ibex_coll_batch_t *b, const void *buf, int count, MPI_Datatype dt,
                          int peer);
void ibex_coll_batch_recv(ibex_coll_batch_t *b, void *buf, int count, MPI_Datatype dt, int peer);
ibex_status_t ibex_coll_batch_wait(ibex_coll_batch_t *b);
/* Reduce_scatter_block as Reduce_scatter: runs fn with rcounts all args->rcount. */
ibex_status_t ibex_coll_rsb_as_rs(const ibex_coll_args_t *args, ibex_coll_fn_t fn);

#endif
