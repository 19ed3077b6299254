/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writing the blocked-call record (runtime/engine/blocked.c; the page format and the fast path
 * are runtime/base/ibex_blocked.h). A wait that lasts (ibex_blk_due: IBEX_BLK_WAIT_AFTER
 * turns of its loop) describes itself once: ibex_blk_begin, one ibex_blk_add per thing it waits
 * for, then ibex_blk_commit; ibex_blk_end when it is over. ibex_blk_wait_reqs does the three for a
 * set of requests.
 */
#ifndef IBEX_BLOCKED_REC_H
#define IBEX_BLOCKED_REC_H

#include <stdbool.h>
#include <stddef.h>

#include "ibex_blocked.h"
#include "ibex_comm.h"
#include "ibex_status.h"

struct ibex_req;

/* `rank` of ibex_blk_add: a rank of comm, MPI_ANY_SOURCE, or this: every member of comm that is
 * not in the same collective. */
#define IBEX_BLK_RANK_COLL (-1000)

/* Maps this rank's page if the launcher gave one (IBEX_BLOCKED_FD); MPI_Init's first step. */
ibex_status_t ibex_blk_init(void);
/* MPI_Finalize is over: the launcher stops expecting calls. */
void ibex_blk_finalize(void);

void ibex_blk_begin(bool or_wait);
void ibex_blk_add(const ibex_comm_t *comm, ibex_blk_op_t op, int rank, int tag, size_t bytes);
/* One item for a request: its peer (or the communicator, for a collective request). */
void ibex_blk_add_req(const struct ibex_req *req);
void ibex_blk_commit(void);
void ibex_blk_end(void);
/* A polling call (MPI_Test, Iprobe, ...) found nothing IBEX_BLK_POLL_AFTER times in a row: the
 * record says the rank polls without progress, until a poll finds something. */
#define IBEX_BLK_POLL_AFTER 1000
void ibex_blk_polling(void);

/* A wait records itself after this many turns of its loop (each at least one progress call):
 * a short wait (a ping-pong's, microseconds) never writes the record, a hang does at once. */
#define IBEX_BLK_WAIT_AFTER 256

static inline bool ibex_blk_due(int *spins)
{
    return ++*spins == IBEX_BLK_WAIT_AFTER;
}

/* Begin, one item per request not yet complete, commit. Returns true (the record is set). */
bool ibex_blk_wait_reqs(struct ibex_req *const *reqs, int n, bool or_wait);
/* A wait on the collective now running (ibex_blk.coll_comm) with no known peer. */
bool ibex_blk_wait_coll(void);

/* Around a blocking collective: which algorithm runs (step counts its waits). */
static inline void ibex_blk_coll_enter(const char *algo, const ibex_comm_t *comm)
{
    ibex_blk.algo = algo;
    ibex_blk.coll_comm = comm;
    ibex_blk.step = 0;
}

static inline void ibex_blk_coll_leave(void)
{
    ibex_blk.algo = NULL;
    ibex_blk.coll_comm = NULL;
}

#endif
