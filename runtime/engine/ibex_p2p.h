/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The point-to-point engine's internal API (runtime/p2p*.c, request.c, match.c, proto*.c),
 * used by the MPI entry points, by collectives/ and by communicator creation. Collectives and
 * communicator construction pass coll = true: their messages travel on the communicator's
 * collective context and never match a user receive.
 */
#ifndef IBEX_P2P_H
#define IBEX_P2P_H

#include <stdbool.h>

#include <mpi.h>

#include "ibex_hidden.h"
#include "ibex_comm.h"
#include "ibex_datatype.h"
#include "ibex_status.h"

typedef struct ibex_req ibex_req_t;

typedef enum {
    IBEX_SEND_STANDARD,
    IBEX_SEND_SYNC,
    IBEX_SEND_READY,
    IBEX_SEND_BUFFERED,
} ibex_send_mode_t;

/* Starts a send / receive; *req_p is an internal request (not visible to the program). */
ibex_status_t ibex_p2p_isend(const void *buf, MPI_Count count, ibex_dt_t *dt, int dest, int tag,
                             ibex_comm_t *comm, bool coll, ibex_req_t **req_p);
ibex_status_t ibex_p2p_irecv(void *buf, MPI_Count count, ibex_dt_t *dt, int src, int tag,
                             ibex_comm_t *comm, bool coll, ibex_req_t **req_p);
/* Waits for completion, fills status (may be NULL), frees the request. Returns the request's
 * completion status (IBEX_ERR_TRUNCATE, IBEX_ERR_PEER_FAILED, ...). */
ibex_status_t ibex_p2p_wait(ibex_req_t *req, MPI_Status *status);
ibex_status_t ibex_p2p_waitall(int n, ibex_req_t **reqs);

/* Whether an open transport moves bytes through memory shared within a node (the
 * collectives' shared-memory algorithms run only then). */
bool ibex_ep_node_memory(void);

/* Blocking conveniences on the collective context. */
ibex_status_t ibex_coll_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                             ibex_comm_t *comm);
ibex_status_t ibex_coll_recv(void *buf, int count, MPI_Datatype dt, int src, int tag,
                             ibex_comm_t *comm);
ibex_status_t ibex_coll_sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest,
                                 void *rbuf, int rcount, MPI_Datatype rdt, int src, int tag,
                                 ibex_comm_t *comm);

/* Matching state of a context id, created on first use, NULL when out of memory (a message
 * may arrive for a context
 * before this process has created the communicator). */
extern struct ibex_match_queue *ibex_match_queues[IBEX_MAX_CONTEXT_IDS] IBEX_ENGINE_HIDDEN;
struct ibex_match_queue *ibex_match_queue_make(uint32_t context_id);
static inline struct ibex_match_queue *ibex_match_queue_get(uint32_t context_id)
{
    if (__builtin_expect(context_id < IBEX_MAX_CONTEXT_IDS && ibex_match_queues[context_id], 1))
        return ibex_match_queues[context_id];
    return ibex_match_queue_make(context_id);
}
void ibex_match_queue_put(uint32_t context_id);

/* MPI_Alloc_mem / Free_mem: memory the network transport can use without registering per
 * message (pre-registered), or plain malloc when no transport needs registration. */
ibex_status_t ibex_p2p_mem_alloc(size_t len, void **ptr_p);
ibex_status_t ibex_p2p_mem_free(void *ptr);

/* Drives every transport once; returns the events handled. */
int ibex_progress(void);

/* Work above the engine that must advance while the program waits or polls (the collectives'
 * schedules): every ibex_progress call runs each registered hook after the transports, and
 * counts what it returns (events handled) as progress. The engine knows nothing of what a hook
 * does. A hook must not call ibex_progress itself. At most IBEX_PROGRESS_HOOKS at once (the
 * engine's own failure drain, ep.c, is one while a peer's failure waits to be handled). */
#define IBEX_PROGRESS_HOOKS 8
typedef int (*ibex_progress_hook_t)(void);
ibex_status_t ibex_progress_hook_add(ibex_progress_hook_t fn);
void ibex_progress_hook_remove(ibex_progress_hook_t fn);

#endif
