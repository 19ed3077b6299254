/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collective schedules (coll_sched.c): the one engine under every non-blocking and persistent
 * collective.
 *
 * A schedule is a list of steps built once (at MPI_Ixxx, or at MPI_Xxx_init for a persistent
 * request): sends and receives on the communicator's collective context, local copies and
 * reductions, and fences. Running it executes the steps in order; a send or receive is posted
 * and the run goes on, a copy or reduction runs at once, and a fence waits until every send and
 * receive posted before it has completed. So the steps between two fences form a round whose
 * messages are all in flight together, and a local step after a fence sees the data of the
 * rounds before it.
 *
 * Progress: a running schedule sits on an active list; while the list is not empty the
 * collectives register a progress hook with the engine (ibex_progress_hook_add), so every
 * MPI_Test / Wait / Iprobe / blocking call that drives progress also reaps the schedule's
 * completed requests and runs its next round. The engine does not know what the hook does.
 *
 * Tags: each schedule takes its own tag, IBEX_SCHED_TAG_BASE + the communicator's sequence
 * (comm->coll_tag, counted up by every schedule made on it). Every member makes a
 * communicator's schedules in the same order (MPI requires collective calls, the *_init ones
 * included, to be issued in the same order everywhere), so the n-th schedule has the same tag on
 * every rank, and two schedules in flight together, or a schedule and a blocking collective
 * (tags 1..63), never match each other's messages. A persistent schedule keeps its tag for all
 * its starts: one start completes before the next, and messages between two ranks on one tag
 * are matched in send order.
 *
 * Buffers: a step points at the program's buffers or at temporaries the schedule owns
 * (ibex_sched_tmp), all fixed when the schedule is built. A step's datatypes are retained,
 * so the program may free its types while the collective runs.
 */
#ifndef IBEX_COLL_SCHED_H
#define IBEX_COLL_SCHED_H

#include <stdbool.h>

#include <mpi.h>

#include "ibex_comm.h"
#include "ibex_datatype.h"
#include "ibex_op.h"
#include "ibex_p2p.h"
#include "ibex_status.h"

/* Above every blocking collective tag (IBEX_COLL_TAG, 1..63). */
#define IBEX_SCHED_TAG_BASE 64
#define IBEX_SCHED_TAG_SPAN (1 << 28)

typedef enum {
    IBEX_SCHED_SEND,
    IBEX_SCHED_RECV,
    IBEX_SCHED_COPY,   /* dst = src, through the packed stream */
    IBEX_SCHED_REDUCE, /* dst = src op dst */
    IBEX_SCHED_FENCE,
} ibex_sched_kind_t;

typedef struct ibex_sched_step {
    ibex_sched_kind_t kind;
    int peer; /* send / receive */
    const void *src;
    int scount;
    ibex_dt_t *sdt;
    void *dst;
    int dcount;
    ibex_dt_t *ddt;
    ibex_comm_t *on; /* send / receive: the communicator, NULL for the schedule's own */
} ibex_sched_step_t;

typedef struct ibex_sched {
    ibex_comm_t *comm;
    const ibex_op_t *op; /* of the reduce steps */
    int tag;
    ibex_sched_step_t *steps;
    int nsteps, step_cap;
    void **tmps; /* owned temporaries (free() bases) */
    int ntmps, tmp_cap;
    ibex_status_t build_error; /* first failure while building: the schedule is not run */
    ibex_comm_t *on;           /* where the sends / receives being built go (ibex_sched_on) */
    /* run state */
    int pc; /* next step to execute */
    ibex_req_t **reqs;
    int nreqs, req_cap; /* sends and receives in flight */
    ibex_status_t error;
    bool active;
    ibex_req_t *req; /* the request the program holds (IBEX_REQ_COLL) */
    struct ibex_sched *next, *prev;
} ibex_sched_t;

/* A new empty schedule on comm with the next tag of comm's sequence; NULL when out of memory. */
ibex_sched_t *ibex_sched_new(ibex_comm_t *comm, const ibex_op_t *op);
/* Builders: a failure (out of memory) is kept in build_error and later steps are dropped, so
 * an algorithm builds without checking every call. */
void ibex_sched_send(ibex_sched_t *s, const void *buf, int count, MPI_Datatype dt, int peer);
void ibex_sched_recv(ibex_sched_t *s, void *buf, int count, MPI_Datatype dt, int peer);
void ibex_sched_copy(ibex_sched_t *s, const void *src, int scount, MPI_Datatype sdt, void *dst,
                     int dcount, MPI_Datatype ddt);
/* inout = in op inout (in is the left operand: the lower ranks' part for rank order). */
void ibex_sched_reduce(ibex_sched_t *s, const void *in, void *inout, int count, MPI_Datatype dt);
void ibex_sched_fence(ibex_sched_t *s);
/* The sends and receives built from now on go over comm (NULL: back to the schedule's own),
 * with the schedule's tag: an intercommunicator's schedule runs intracommunicator steps over
 * its local group (comm->local), so one schedule holds both halves. comm must outlive the
 * schedule (an intercommunicator's local one does). */
void ibex_sched_on(ibex_sched_t *s, ibex_comm_t *comm);
/* A temporary laid out like (count, dt), owned by the schedule; NULL (and build_error) when out
 * of memory. */
void *ibex_sched_tmp(ibex_sched_t *s, MPI_Datatype dt, int count);

/* ---- algorithms as schedules (collectives/sched_*.c): each appends the steps of one call,
 * arguments as in ibex_coll_args_t (coll.h), already checked ---- */
struct ibex_coll_args;
typedef void (*ibex_sched_build_fn_t)(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_barrier_dissemination(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_bcast_binomial(const struct ibex_coll_args *a, ibex_sched_t *s);
/* rcount >= comm size */
void ibex_sched_bcast_scatter_allgather(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_reduce_binomial(const struct ibex_coll_args *a, ibex_sched_t *s);
/* commutative ops, rcount >= comm size */
void ibex_sched_reduce_ring_gather(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_allreduce_recursive_doubling(const struct ibex_coll_args *a, ibex_sched_t *s);
/* commutative ops, rcount >= comm size */
void ibex_sched_allreduce_ring(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_gather_linear(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_scatter_linear(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_allgather_ring(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_alltoall_pairwise(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_gatherv_linear(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_scatterv_linear(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_allgatherv_ring(const struct ibex_coll_args *a, ibex_sched_t *s);
/* Alltoallv and Alltoallw (per-peer types and byte displacements when a->sdts is set). */
void ibex_sched_alltoallv_pairwise(const struct ibex_coll_args *a, ibex_sched_t *s);
/* ring for commutative ops, else rank-ordered tree to 0 + scatterv */
void ibex_sched_reduce_scatter_any(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_reduce_scatter_block_any(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_scan_recursive_doubling(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_exscan_recursive_doubling(const struct ibex_coll_args *a, ibex_sched_t *s);

/* Intercommunicator forms (sched_inter.c): a->comm is an intercommunicator, a->root is
 * MPI_ROOT, MPI_PROC_NULL or a remote rank, the per-rank arrays have the remote group's size
 * (Reduce_scatter's recvcounts the local group's). No Scan / Exscan (MPI defines none). */
void ibex_sched_inter_barrier(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_inter_bcast(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_inter_reduce(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_inter_allreduce(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_inter_gather(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_inter_scatter(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_inter_gatherv(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_inter_scatterv(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_inter_allgather(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_inter_allgatherv(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_inter_alltoall(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_inter_alltoallv(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_inter_reduce_scatter(const struct ibex_coll_args *a, ibex_sched_t *s);
void ibex_sched_inter_reduce_scatter_block(const struct ibex_coll_args *a, ibex_sched_t *s);
/* The tag the intercommunicator constructors use on an intercommunicator's collective context
 * (runtime/comm: IBEX_COMM_INTER_TAG, asserted equal in runtime/mpi/coll_check.c): an
 * intercommunicator's schedules skip it, so a constructor never matches a schedule's message. */
#define IBEX_SCHED_INTER_RESERVED_TAG IBEX_SCHED_TAG_BASE

/* The schedule of one collective call (sched_select.c): a new schedule on a->comm with the
 * steps of the kind's algorithm for this call (build_error set when out of memory), or NULL
 * when out of memory. IBEX_ERR_UNSUPPORTED in build_error for a kind without a schedule.
 * bytes is the selection key of ibex_coll_prepare (the same on every rank). */
ibex_sched_t *ibex_sched_build(int kind, const struct ibex_coll_args *a, size_t bytes);

/* Runs the schedule for req (made by the caller, kind IBEX_REQ_COLL): restarts a persistent
 * request, runs what can run now and leaves the rest to progress; req completes with the
 * first error of any step. */
void ibex_sched_start(ibex_sched_t *s, ibex_req_t *req);
/* Frees a schedule that is not running (its temporaries and its datatype references). */
void ibex_sched_free(ibex_sched_t *s);

#endif
