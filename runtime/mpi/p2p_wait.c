/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI completion calls: Wait / Test and their -all / -any / -some forms, Request_free,
 * Request_get_status, Cancel. */
#include "ibex_blocked_rec.h"
#include "ibex_p2p_api.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

enum { REQ_INACTIVE = 0, REQ_LIVE = 1 };

/* A live request, or REQ_INACTIVE for MPI_REQUEST_NULL / an inactive persistent request,
 * or a raised MPI error class (a negative-free positive code: returned through *rc_p). */
static __attribute__((noinline)) int req_bad(MPI_Request h, const char *call)
{
    return ibex_mpi_error(NULL, MPI_ERR_REQUEST, call, "invalid request handle 0x%x", (unsigned)h);
}

/* Inline: the -all calls look every request up twice (the check, the finish), and a call of
 * its own was 24 instructions a request (callgrind, Waitall of 64 sends). */
static inline __attribute__((always_inline)) int req_lookup(MPI_Request h, const char *call,
                                                            ibex_req_t **req_p, int *rc_p)
{
    *rc_p = MPI_SUCCESS;
    if (h == MPI_REQUEST_NULL)
        return REQ_INACTIVE;
    ibex_req_t *req = ibex_req_from_handle(h);
    if (__builtin_expect(!req, 0)) {
        *rc_p = req_bad(h, call);
        return REQ_INACTIVE;
    }
    if (req->persistent && !req->active)
        return REQ_INACTIVE;
    *req_p = req;
    return REQ_LIVE;
}

/* The blocked-call record of a wait on many requests (AND for Waitall, OR for Waitany and
 * Waitsome): written once, when the wait has to wait. */
static void blk_add_handles(int count, const MPI_Request reqs[])
{
    for (int i = 0; i < count; i++) {
        ibex_req_t *req = reqs[i] == MPI_REQUEST_NULL ? NULL : ibex_req_from_handle(reqs[i]);
        if (req && !(req->persistent && !req->active))
            ibex_blk_add_req(req); /* complete ones add nothing */
    }
}

static bool blk_handles(int count, const MPI_Request reqs[], bool or_wait)
{
    ibex_blk_begin(or_wait);
    blk_add_handles(count, reqs);
    ibex_blk_commit();
    return true;
}

/* A polling call that found nothing says what it polls for, when the record asks (the window
 * of ibex_blocked_rec.h; otherwise one load and a branch). */
static void blk_poll_handles(int count, const MPI_Request reqs[], bool or_wait)
{
    if (!ibex_blk_poll_wanted())
        return;
    ibex_blk_poll_begin(or_wait);
    for (int i = 0; i < count; i++) {
        ibex_req_t *req = reqs[i] == MPI_REQUEST_NULL ? NULL : ibex_req_from_handle(reqs[i]);
        if (req && !(req->persistent && !req->active))
            ibex_blk_poll_add_req(req);
    }
    ibex_blk_poll_commit();
}

static void blk_done(bool rec)
{
    if (rec)
        ibex_blk_end();
}

static void status_empty_out(MPI_Status *st)
{
    if (st != MPI_STATUS_IGNORE)
        ibex_status_empty(st);
}

static MPI_Status *status_at(MPI_Status *array, int i)
{
    return array == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array[i];
}

/* The checks of an array call before its handles: MPI running, the count, the array. */
static int check_head(const char *call, int count, const MPI_Request reqs[])
{
    int rc = ibex_check_initialized(call);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return ibex_mpi_error(NULL, MPI_ERR_COUNT, call, "negative count %d", count);
    if (count > 0 && !reqs)
        return ibex_mpi_error(NULL, MPI_ERR_REQUEST, call, "request array is NULL");
    return MPI_SUCCESS;
}

/* The entry check of the completion calls (after IBEX_ENTER_FAST): MPI is running, then the
 * count, the array and every handle in it; when live_p is set, the same pass counts the live
 * requests and the complete ones among them (what scan() does), so an -all / -some call walks
 * its array once before it polls, not twice. */
static int check_scan(const char *call, int count, const MPI_Request reqs[], int *live_p,
                      int *done_p)
{
    int rc = check_head(call, count, reqs);
    if (rc != MPI_SUCCESS)
        return rc;
    int live = 0, done = 0;
    for (int i = 0; i < count; i++) {
        ibex_req_t *req;
        if (req_lookup(reqs[i], call, &req, &rc) == REQ_LIVE) {
            live++;
            done += req->complete;
        } else if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    if (live_p) {
        *live_p = live;
        *done_p = done;
    }
    return MPI_SUCCESS;
}

/* The entry check alone (one request, Waitall, the -any forms): every handle is
 * MPI_REQUEST_NULL or names a request, with the errors of check_scan, and nothing counted
 * (check_scan's counting was 21 instructions a request of a Waitall, callgrind, issue 18). */
static int check_array(const char *call, int count, const MPI_Request reqs[])
{
    int rc = check_head(call, count, reqs);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < count; i++)
        if (!ibex_req_null_or_sent(reqs[i]) && __builtin_expect(!ibex_req_from_handle(reqs[i]), 0))
            return req_bad(reqs[i], call);
    return MPI_SUCCESS;
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    IBEX_ENTER_FAST(Wait);
    ibex_req_t *req;
    int rc;
    IBEX_CHECK(check_array(call, 1, request));
    if (req_lookup(*request, call, &req, &rc) == REQ_INACTIVE) {
        status_empty_out(status);
        return rc;
    }
    ibex_req_wait_complete(req);
    return ibex_p2p_finish(req, request, status, call, true);
}

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    IBEX_ENTER_FAST(Test);
    ibex_req_t *req;
    int rc;
    IBEX_CHECK(check_array(call, 1, request));
    if (req_lookup(*request, call, &req, &rc) == REQ_INACTIVE) {
        *flag = 1;
        status_empty_out(status);
        return rc;
    }
    if (!req->complete)
        ibex_poll_step();
    *flag = req->complete;
    if (!req->complete) {
        ibex_blk_poll_reqs(&req, 1, false);
        return MPI_SUCCESS;
    }
    return ibex_p2p_finish(req, request, status, call, true);
}

/* The first failed request of a many-request call: raised as MPI_ERR_IN_STATUS at the end. */
typedef struct fail_note {
    int index;
    ibex_comm_t *comm;
} fail_note_t;

/* Finishes one completed request of an array call (its handle reqs[i]) into st, with the
 * status's error field; notes the first failure. */
static inline __attribute__((always_inline)) void finish_in_array(const char *call, ibex_req_t *req,
                                                                  MPI_Request *handle,
                                                                  MPI_Status *st, int i,
                                                                  fail_note_t *f)
{
    ibex_comm_t *comm = req->comm;
    int cls = ibex_p2p_finish_inline(req, handle, st, call, false);
    if (st != MPI_STATUS_IGNORE)
        st->MPI_ERROR = cls;
    if (__builtin_expect(cls != MPI_SUCCESS, 0) && f->index < 0) {
        f->index = i;
        f->comm = comm;
    }
}

static int fail_raise(const char *call, const fail_note_t *f)
{
    if (f->index < 0)
        return MPI_SUCCESS;
    return ibex_mpi_error(f->comm, MPI_ERR_IN_STATUS, call,
                          "request %d (and maybe others) failed: see the statuses", f->index);
}

/* Finishes every completed request among reqs[0..count) (Testall, Waitsome...), with
 * per-status error fields; returns MPI_ERR_IN_STATUS (raised) if any failed. */
static int finish_many(const char *call, int count, MPI_Request reqs[], MPI_Status statuses[],
                       int *indices, int *outcount)
{
    fail_note_t f = {-1, NULL};
    int n = 0;
    for (int i = 0; i < count; i++) {
        ibex_req_t *req;
        int rc;
        if (req_lookup(reqs[i], call, &req, &rc) == REQ_INACTIVE) {
            if (!indices)
                status_empty_out(status_at(statuses, i));
            continue;
        }
        if (!req->complete)
            continue;
        finish_in_array(call, req, &reqs[i], status_at(statuses, indices ? n : i), i, &f);
        if (indices)
            indices[n] = i;
        n++;
    }
    if (outcount)
        *outcount = n;
    return fail_raise(call, &f);
}

/* Counts live requests and how many of them are complete. */
static void scan(int count, const MPI_Request reqs[], int *live_p, int *done_p)
{
    int live = 0, done = 0;
    for (int i = 0; i < count; i++) {
        ibex_req_t *req;
        int rc;
        if (req_lookup(reqs[i], "MPI_Wait", &req, &rc) == REQ_LIVE) {
            live++;
            done += req->complete;
        }
    }
    *live_p = live;
    *done_p = done;
}

/* MPI_Waitall's wait, over the whole call: empty polls in a row, turns of the loop, whether the
 * blocked-call record is set. */
typedef struct all_wait {
    int idle, spins;
    bool rec;
} all_wait_t;

/* Progress until req (one of reqs) completes. Progress is global, so every other request of
 * the array (and whatever else is in flight) moves meanwhile: a request that only completes
 * while the program waits completes while this waits for another. The record, once a request
 * has been waited for IBEX_BLK_WAIT_AFTER turns, names every request of the array not yet
 * complete (an AND); a later request waited for as long writes it again with those left,
 * keeping when the call began to wait. */
static __attribute__((noinline)) void wait_in_turn(ibex_req_t *req, int count,
                                                   const MPI_Request reqs[], all_wait_t *w)
{
    w->spins = 0; /* a request done within IBEX_BLK_WAIT_AFTER turns writes nothing */
    while (!req->complete) {
        ibex_wait_step(&w->idle);
        if (__builtin_expect(!ibex_blk_due(&w->spins), 1))
            continue;
        if (!w->rec) {
            w->rec = blk_handles(count, reqs, false);
            continue;
        }
        ibex_blk_begin_again(false); /* fewer requests left than the record names */
        blk_add_handles(count, reqs);
        ibex_blk_commit();
    }
}

/* One entry of MPI_Waitall the general way: a persistent request, a handle gone bad since the
 * check (what req_lookup does then). */
static __attribute__((noinline)) void waitall_entry_full(const char *call, int count,
                                                         MPI_Request reqs[], int i, MPI_Status *st,
                                                         all_wait_t *w, fail_note_t *f)
{
    ibex_req_t *req;
    int rc;
    if (req_lookup(reqs[i], call, &req, &rc) == REQ_INACTIVE) {
        status_empty_out(st);
        return;
    }
    if (!req->complete)
        wait_in_turn(req, count, reqs, w);
    finish_in_array(call, req, &reqs[i], st, i, f);
}

/* One entry of MPI_Waitall, inline for the usual ones: the shared completed send or
 * MPI_REQUEST_NULL (one compare), else a live request that is not persistent, waited for if
 * need be, then released with the tests its lookup already answered left out
 * (ibex_req_release_found) when no status is wanted and it did not fail. */
static inline __attribute__((always_inline)) void waitall_entry(const char *call, int count,
                                                                MPI_Request reqs[], int i,
                                                                MPI_Status *st, all_wait_t *w,
                                                                fail_note_t *f)
{
    MPI_Request h = reqs[i];
    if (ibex_req_null_or_sent(h)) {
        if (h == MPI_REQUEST_NULL) {
            status_empty_out(st);
            return;
        }
        reqs[i] = MPI_REQUEST_NULL; /* what finish_in_array does for it, without a lookup */
        if (st != MPI_STATUS_IGNORE) {
            ibex_p2p_status_out(ibex_req_sent, st);
            st->MPI_ERROR = MPI_SUCCESS;
        }
        return;
    }
    ibex_req_t *req = ibex_req_from_handle(h);
    if (__builtin_expect(!req || req->persistent, 0)) {
        waitall_entry_full(call, count, reqs, i, st, w, f);
        return;
    }
    if (__builtin_expect(!req->complete, 0))
        wait_in_turn(req, count, reqs, w);
    if (__builtin_expect(st == MPI_STATUS_IGNORE && req->error == IBEX_OK, 1)) {
        ibex_req_release_found(req);
        reqs[i] = MPI_REQUEST_NULL;
        return;
    }
    finish_in_array(call, req, &reqs[i], st, i, f);
}

/* Each request in turn: a complete one is finished at once (one test), an incomplete one
 * waited for (wait_in_turn), then finished, so the array is walked once after its check, not
 * after every progress call; one loop without statuses, one with. MPI_ERR_IN_STATUS, if any
 * failed, once all are done. */
int PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    IBEX_ENTER_FAST(Waitall);
    IBEX_CHECK(check_array(call, count, reqs));
    all_wait_t w = {0, 0, false};
    fail_note_t f = {-1, NULL};
    if (statuses == MPI_STATUSES_IGNORE)
        for (int i = 0; i < count; i++)
            waitall_entry(call, count, reqs, i, MPI_STATUS_IGNORE, &w, &f);
    else
        for (int i = 0; i < count; i++)
            waitall_entry(call, count, reqs, i, &statuses[i], &w, &f);
    blk_done(w.rec);
    return fail_raise(call, &f);
}

int PMPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    IBEX_ENTER_FAST(Testall);
    int live, done;
    IBEX_CHECK(check_scan(call, count, reqs, &live, &done));
    if (done < live) {
        ibex_poll_step();
        scan(count, reqs, &live, &done);
    }
    *flag = done == live;
    if (!*flag) {
        blk_poll_handles(count, reqs, false);
        return MPI_SUCCESS;
    }
    return finish_many(call, count, reqs, statuses, NULL, NULL);
}

/* The first completed live request, or -1; *live_p counts live ones. */
static int first_done(int count, const MPI_Request reqs[], int *live_p)
{
    int live = 0;
    for (int i = 0; i < count; i++) {
        ibex_req_t *req;
        int rc;
        if (req_lookup(reqs[i], "MPI_Waitany", &req, &rc) != REQ_LIVE)
            continue;
        live++;
        if (req->complete) {
            *live_p = live;
            return i;
        }
    }
    *live_p = live;
    return -1;
}

static int any_finish(const char *call, MPI_Request reqs[], int i, int *index, MPI_Status *st)
{
    *index = i;
    return ibex_p2p_finish(ibex_req_from_handle(reqs[i]), &reqs[i], st, call, true);
}

int PMPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    IBEX_ENTER_FAST(Waitany);
    IBEX_CHECK(check_array(call, count, reqs));
    int idle = 0, live = 0;
    bool rec = false;
    int spins = 0;
    for (;;) {
        int i = first_done(count, reqs, &live);
        if (i >= 0 || live == 0)
            blk_done(rec);
        if (i >= 0)
            return any_finish(call, reqs, i, index, status);
        if (live == 0) {
            *index = MPI_UNDEFINED;
            status_empty_out(status);
            return MPI_SUCCESS;
        }
        ibex_wait_step(&idle);
        if (!rec && ibex_blk_due(&spins))
            rec = blk_handles(count, reqs, true);
    }
}

int PMPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    IBEX_ENTER_FAST(Testany);
    IBEX_CHECK(check_array(call, count, reqs));
    int live = 0;
    int i = first_done(count, reqs, &live);
    if (i < 0 && live > 0) {
        ibex_poll_step();
        i = first_done(count, reqs, &live);
    }
    if (i >= 0) {
        *flag = 1;
        return any_finish(call, reqs, i, index, status);
    }
    *index = MPI_UNDEFINED;
    *flag = live == 0;
    if (live == 0)
        status_empty_out(status);
    else
        blk_poll_handles(count, reqs, true);
    return MPI_SUCCESS;
}

static int some(const char *call, int incount, MPI_Request reqs[], int *outcount, int indices[],
                MPI_Status statuses[], bool wait)
{
    int live, done, idle = 0;
    IBEX_CHECK(check_scan(call, incount, reqs, &live, &done));
    if (done == 0 && live > 0) {
        ibex_poll_step();
        scan(incount, reqs, &live, &done);
    }
    if (!wait && done == 0 && live > 0)
        blk_poll_handles(incount, reqs, true);
    bool rec = false;
    int spins = 0;
    while (wait && done == 0 && live > 0) {
        ibex_wait_step(&idle);
        if (!rec && ibex_blk_due(&spins))
            rec = blk_handles(incount, reqs, true);
        scan(incount, reqs, &live, &done);
    }
    blk_done(rec);
    if (live == 0) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    return finish_many(call, incount, reqs, statuses, indices, outcount);
}

int PMPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    IBEX_ENTER_FAST(Waitsome);
    return some(call, incount, reqs, outcount, indices, statuses, true);
}

int PMPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    IBEX_ENTER_FAST(Testsome);
    return some(call, incount, reqs, outcount, indices, statuses, false);
}

int PMPI_Request_free(MPI_Request *request)
{
    IBEX_ENTER(Request_free);
    ibex_req_t *req = request ? ibex_req_from_handle(*request) : NULL;
    if (!req)
        return IBEX_ERROR(MPI_ERR_REQUEST, "not a live request handle");
    *request = MPI_REQUEST_NULL;
    if (req->complete || (req->persistent && !req->active))
        ibex_req_release(req);
    else
        req->freed = true; /* released when it completes */
    return MPI_SUCCESS;
}

/* A completed request's status without freeing it (a generalized one asks query_fn). */
static int status_peek(ibex_req_t *req, MPI_Status *status, const char *call)
{
    int rc = req->ext ? req->ext->query(req) : MPI_SUCCESS;
    ibex_p2p_status_out(req, status);
    if (rc != MPI_SUCCESS)
        return ibex_mpi_error(NULL, rc, call, "query_fn returned %d", rc);
    return MPI_SUCCESS;
}

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    IBEX_ENTER_FAST(Request_get_status);
    ibex_req_t *req;
    int rc;
    IBEX_CHECK(check_array(call, 1, &request));
    if (req_lookup(request, call, &req, &rc) == REQ_INACTIVE) {
        *flag = 1;
        status_empty_out(status);
        return rc;
    }
    if (!req->complete)
        ibex_poll_step();
    *flag = req->complete;
    if (req->complete)
        return status_peek(req, status, call);
    ibex_blk_poll_reqs(&req, 1, false);
    return MPI_SUCCESS;
}

int PMPI_Cancel(MPI_Request *request)
{
    IBEX_ENTER_FAST(Cancel);
    ibex_req_t *req;
    int rc;
    IBEX_CHECK(check_array(call, 1, request));
    if (req_lookup(*request, call, &req, &rc) == REQ_INACTIVE)
        return rc != MPI_SUCCESS ? rc : IBEX_ERROR(MPI_ERR_REQUEST, "request is not active");
    if (req->kind == IBEX_REQ_COLL)
        return IBEX_ERROR(MPI_ERR_REQUEST, "a collective request cannot be cancelled (erroneous "
                                           "in MPI)");
    if (req->ext) { /* generalized: the program's cancel_fn decides */
        rc = req->ext->cancel(req);
        return rc == MPI_SUCCESS ? rc : IBEX_ERROR(rc, "cancel_fn returned %d", rc);
    }
    /* Only a receive not yet matched can be cancelled; a send always goes ahead. */
    if (req->kind == IBEX_REQ_RECV && req->in_posted) {
        ibex_match_queue_t *q = ibex_match_queue_get(req->comm->context_id + req->coll);
        ibex_match_list_remove(&q->posted, &req->match);
        req->in_posted = false;
        req->status.ibex_cancelled = 1;
        req->status.ibex_count = 0;
        ibex_req_complete(req, IBEX_OK);
    }
    return MPI_SUCCESS;
}

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    IBEX_ENTER_ANYTIME(Test_cancelled);
    if (!status || status == MPI_STATUS_IGNORE || !flag)
        return IBEX_ERROR(MPI_ERR_ARG, "NULL status or flag");
    *flag = status->ibex_cancelled != 0;
    return MPI_SUCCESS;
}

/* MPI 4.1: the status queries of an array that free nothing (Testany / Testall / Testsome
 * without the completion). */
int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *index,
                                int *flag, MPI_Status *status)
{
    IBEX_ENTER_FAST(Request_get_status_any);
    IBEX_CHECK(check_array(call, count, array_of_requests));
    IBEX_ARGS(Request_get_status_any, count, index, flag);
    int live = 0;
    for (int pass = 0; pass < 2; pass++) {
        live = 0;
        for (int i = 0; i < count; i++) {
            ibex_req_t *req;
            int rc;
            if (req_lookup(array_of_requests[i], call, &req, &rc) == REQ_INACTIVE)
                continue;
            live++;
            if (req->complete) {
                *index = i, *flag = 1;
                return status_peek(req, status, call);
            }
        }
        if (live == 0)
            break;
        if (pass == 0)
            ibex_poll_step();
    }
    *flag = live == 0, *index = MPI_UNDEFINED;
    if (live == 0)
        status_empty_out(status);
    return MPI_SUCCESS;
}

int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                MPI_Status array_of_statuses[])
{
    IBEX_ENTER_FAST(Request_get_status_all);
    IBEX_CHECK(check_array(call, count, array_of_requests));
    IBEX_ARGS(Request_get_status_all, count, flag);
    int live, done;
    scan(count, array_of_requests, &live, &done);
    if (done < live) {
        ibex_poll_step();
        scan(count, array_of_requests, &live, &done);
    }
    *flag = done == live;
    for (int i = 0; *flag && i < count; i++) {
        ibex_req_t *req;
        int rc;
        if (req_lookup(array_of_requests[i], call, &req, &rc) == REQ_INACTIVE)
            status_empty_out(status_at(array_of_statuses, i));
        else
            IBEX_CHECK(status_peek(req, status_at(array_of_statuses, i), call));
    }
    return MPI_SUCCESS;
}

int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int *outcount,
                                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    IBEX_ENTER_FAST(Request_get_status_some);
    IBEX_CHECK(check_array(call, incount, array_of_requests));
    IBEX_ARGS(Request_get_status_some, incount, outcount);
    int live, done;
    scan(incount, array_of_requests, &live, &done);
    if (done == 0 && live > 0) {
        ibex_poll_step();
        scan(incount, array_of_requests, &live, &done);
    }
    if (live == 0) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    int n = 0;
    for (int i = 0; i < incount; i++) {
        ibex_req_t *req;
        int rc;
        if (req_lookup(array_of_requests[i], call, &req, &rc) == REQ_INACTIVE || !req->complete)
            continue;
        array_of_indices[n] = i;
        IBEX_CHECK(status_peek(req, status_at(array_of_statuses, n++), call));
    }
    *outcount = n;
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(p2p_wait)
