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
/* ibex_blk_begin for a wait that goes on with fewer items (MPI_Waitall moving to its next
 * request): the record keeps when the wait began. */
void ibex_blk_begin_again(bool or_wait);
void ibex_blk_add(const ibex_comm_t *comm, ibex_blk_op_t op, int rank, int tag, size_t bytes);
/* One item for a request not yet complete: its peer (or the communicator, for a collective
 * request; an unknown item, "more", for a generalized one). */
void ibex_blk_add_req(const struct ibex_req *req);
/* The layer that owns the non-blocking collectives' schedules adds, for such a request, the
 * items of its sends and receives in flight and returns true (false: not one of its requests,
 * or nothing in flight; the item is then the whole communicator). */
typedef bool (*ibex_blk_coll_items_fn)(const struct ibex_req *req);
void ibex_blk_set_coll_items(ibex_blk_coll_items_fn fn);
void ibex_blk_commit(void);
void ibex_blk_end(void);
/* A polling call (MPI_Test, Iprobe, ...) found nothing IBEX_BLK_POLL_AFTER times in a row: the
 * record says the rank polls without progress, until a poll finds something. */
#define IBEX_BLK_POLL_AFTER 1000
void ibex_blk_polling(void);

/*
 * What a polling loop polls for. The loop is many calls, so it is told by the calls themselves,
 * but only in a window: the IBEX_BLK_POLL_WINDOW polling calls after the streak of empty polls
 * reaches IBEX_BLK_POLL_AFTER, and again every IBEX_BLK_POLL_REFRESH empty polls (the loop may
 * change what it polls for). Each call of the window adds its items (ibex_blk_poll_add*) between
 * ibex_blk_poll_begin and ibex_blk_poll_commit; the record is the union. One call alone keeps its
 * own rule (Testall, Test: AND; Testany, Testsome, Iprobe(MPI_ANY_SOURCE): OR); calls that differ
 * make it an OR over all they poll for, since the loop goes on when any of them finds something.
 * A poll of the window that describes nothing (a polling call without the hook) makes the record
 * say "and more" in an OR-wait: it is never taken for a deadlock. Outside the window the hook is
 * one load and a branch, on the empty-poll path only.
 */
#define IBEX_BLK_POLL_WINDOW  64
#define IBEX_BLK_POLL_REFRESH 8192

void ibex_blk_poll_tick(int idle);

/* Called by the polling step with the count of empty polls in a row (request.c). */
static inline void ibex_blk_poll_count(int idle)
{
    if (__builtin_expect(idle >= IBEX_BLK_POLL_AFTER, 0))
        ibex_blk_poll_tick(idle);
    else if (idle == 0 && ibex_blk.page->waiting == 2)
        ibex_blk_end();
}

static inline bool ibex_blk_poll_wanted(void)
{
    return __builtin_expect(ibex_blk.poll_window > 0, 0);
}

void ibex_blk_poll_begin(bool or_wait);
void ibex_blk_poll_add(const ibex_comm_t *comm, ibex_blk_op_t op, int rank, int tag);
/* ibex_blk_add_req, once per item in the union. */
void ibex_blk_poll_add_req(const struct ibex_req *req);
void ibex_blk_poll_commit(void);
/* The three for requests and for a probe: one line in each polling call. */
void ibex_blk_poll_note_reqs(struct ibex_req *const *reqs, int n, bool or_wait);
static inline void ibex_blk_poll_reqs(struct ibex_req *const *reqs, int n, bool or_wait)
{
    if (ibex_blk_poll_wanted())
        ibex_blk_poll_note_reqs(reqs, n, or_wait);
}
static inline void ibex_blk_poll_probe(const ibex_comm_t *comm, int source, int tag)
{
    if (ibex_blk_poll_wanted()) {
        ibex_blk_poll_begin(false);
        ibex_blk_poll_add(comm, IBEX_BLK_OP_PROBE, source, tag);
        ibex_blk_poll_commit();
    }
}

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
/* A wait for this rank's sends to drain (MPI_Finalize: all, an AND; a buffered-send buffer:
 * some of them, an OR): one item per peer with a backlog or a transfer in flight. */
bool ibex_blk_wait_sends(bool or_wait);

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
