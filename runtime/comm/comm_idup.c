/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The non-blocking duplicate of an intracommunicator (MPI_Comm_idup): the context id is agreed
 * in the progress engine, by two AND-allreduces run as schedules of the collectives' engine
 * (collectives/base/coll_sched.h) on the parent, and the communicator is made when the second
 * one has finished.
 *
 * Why two rounds: while this agreement is in flight, the program may create other
 * communicators. Blocking agreements draw from other words of the bitmap (comm_impl.h), so
 * only other idups compete here. The first round offers every pair of the idup words free here
 * (held by another idup or not: those are only left out of the second round), without holding
 * anything (holding all of them would starve every other idup until this one ends, and another
 * process's progress on this one may wait for that). The second round offers, in one word the first
 * round left (the same on every member: the first round's result and the schedule's tag pick it),
 * the pairs still free and unheld, and holds them until it ends: at most 64 pairs per idup held at
 * a time. The word is the first non-empty one from a start given by the tag, so idups in flight
 * together mostly use different words; if nothing is left (others took those pairs meanwhile) both
 * rounds run again from another word, up to IDUP_TRIES times.
 *
 * Both schedules are built at the call, so they take consecutive tags of the parent's
 * collective sequence there, in the program's order of collective calls, as every
 * non-blocking collective does; they are reused (persistent) by later rounds.
 */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "coll_sched.h"
#include "comm_impl.h"
#include "ibex_comm_idup.h"
#include "ibex_log.h"
#include "ibex_op.h"
#include "ibex_request.h"

#define IDUP_TRIES 1000
#define CTX_INTS   ((int)(IBEX_CTX_WORDS * sizeof(uint64_t) / sizeof(int)))

typedef struct idup {
    ibex_comm_t *parent;
    uint64_t m1[IBEX_CTX_WORDS], m2[IBEX_CTX_WORDS], mine[IBEX_CTX_WORDS];
    ibex_sched_t *s[2];
    ibex_req_t *r[2];
    int phase; /* the round in flight: 0 or 1 */
    int tries;
    ibex_comm_idup_done_t done;
    void *arg;
    struct idup *next;
} idup_t;

static idup_t *idup_list;

static ibex_sched_t *idup_sched(ibex_comm_t *parent, uint64_t *words)
{
    ibex_coll_args_t a = {.comm = parent,
                          .sbuf = MPI_IN_PLACE,
                          .rbuf = words,
                          .rcount = CTX_INTS,
                          .rdt = MPI_INT,
                          .op = ibex_op_get(MPI_BAND)};
    return ibex_sched_build(IBEX_COLL_ALLREDUCE, &a, (size_t)CTX_INTS * sizeof(int));
}

/* An inactive internal request to run a schedule on, again and again. */
static ibex_req_t *idup_req(ibex_comm_t *parent)
{
    ibex_req_t *req = ibex_req_alloc(IBEX_REQ_COLL);
    if (!req)
        return NULL;
    req->comm = parent;
    ibex_comm_retain(parent);
    req->peer = MPI_PROC_NULL;
    req->persistent = true;
    req->complete = true;
    ibex_req_active_count--;
    return req;
}

static void idup_free(idup_t *d)
{
    for (int i = 0; i < 2; i++) {
        if (d->r[i])
            ibex_req_release(d->r[i]);
        ibex_sched_free(d->s[i]);
    }
    ibex_comm_release(d->parent);
    free(d);
}

static void idup_round(idup_t *d, int phase)
{
    d->phase = phase;
    ibex_sched_start(d->s[phase], d->r[phase]);
}

/* The communicator over the parent's group on the pair agreed. */
static ibex_status_t idup_make(idup_t *d, ibex_comm_t **comm_p)
{
    uint32_t ctx;
    ibex_status_t st = ibex_comm_ctx_take_idup(d->m2, &ctx);
    ibex_comm_ctx_unreserve(d->mine);
    if (st != IBEX_OK)
        return st;
    ibex_comm_t *comm = ibex_comm_new_on(d->parent->group, NULL, ctx, d->parent->errhandler);
    if (!comm) {
        ibex_comm_ctx_release(ctx);
        return IBEX_ERR_NO_MEMORY;
    }
    comm->errhandler_set = d->parent->errhandler_set;
    st = ibex_comm_handle_alloc(comm);
    if (st != IBEX_OK) {
        ibex_comm_release(comm);
        return st;
    }
    *comm_p = comm;
    return IBEX_OK;
}

static bool mask_empty(const uint64_t *m)
{
    for (int w = 0; w < IBEX_CTX_WORDS; w++)
        if (m[w])
            return false;
    return true;
}

/* A round has ended: go on to the next one, or finish (returns true when d is done). */
static bool idup_next(idup_t *d, ibex_status_t *st_p, ibex_comm_t **comm_p)
{
    ibex_req_t *r = d->r[d->phase];
    r->active = false;
    if ((*st_p = r->error) != IBEX_OK) {
        if (d->phase == 1)
            ibex_comm_ctx_unreserve(d->mine);
        return true;
    }
    if (d->phase == 0) {
        /* the schedule's tag and the round spread concurrent idups over the words */
        int start = (int)((unsigned)d->s[0]->tag + (unsigned)d->tries * 17u);
        if (ibex_comm_ctx_reserve(d->m1, start, d->mine) < 0) {
            *st_p = IBEX_ERR_AGAIN; /* no pair of the idup words is free on every member */
            return true;
        }
        memcpy(d->m2, d->mine, sizeof(d->m2));
        idup_round(d, 1);
        return false;
    }
    if (!mask_empty(d->m2)) {
        *st_p = idup_make(d, comm_p);
        return true;
    }
    ibex_comm_ctx_unreserve(d->mine);
    if (++d->tries == IDUP_TRIES) {
        *st_p = IBEX_ERR_AGAIN;
        return true;
    }
    ibex_comm_ctx_offer(d->m1);
    idup_round(d, 0);
    return false;
}

static int idup_progress(void);

static void idup_unlink(idup_t *d)
{
    idup_t **pp = &idup_list;
    while (*pp && *pp != d)
        pp = &(*pp)->next;
    if (*pp)
        *pp = d->next;
    if (!idup_list)
        ibex_progress_hook_remove(idup_progress);
}

static int idup_progress(void)
{
    int events = 0;
    idup_t *d = idup_list, *next;
    for (; d; d = next) {
        next = d->next;
        if (!d->r[d->phase]->complete)
            continue;
        events++;
        ibex_status_t st = IBEX_OK;
        ibex_comm_t *made = NULL;
        if (!idup_next(d, &st, &made))
            continue;
        idup_unlink(d);
        if (st != IBEX_OK)
            ibex_error(CORE, "non-blocking context agreement over %d ranks failed: %s",
                       d->parent->size, ibex_status_str(st));
        d->done(made, st, d->arg);
        idup_free(d);
        next = idup_list; /* done() may have started or ended others: start over */
    }
    return events;
}

ibex_status_t ibex_comm_idup_start(ibex_comm_t *parent, ibex_comm_idup_done_t done, void *arg)
{
    idup_t *d = calloc(1, sizeof(*d));
    if (!d)
        return IBEX_ERR_NO_MEMORY;
    d->parent = parent;
    ibex_comm_retain(parent);
    d->done = done;
    d->arg = arg;
    d->s[0] = idup_sched(parent, d->m1);
    d->s[1] = idup_sched(parent, d->m2);
    d->r[0] = idup_req(parent);
    d->r[1] = idup_req(parent);
    bool ok = d->s[0] && d->s[1] && d->r[0] && d->r[1] && d->s[0]->build_error == IBEX_OK &&
              d->s[1]->build_error == IBEX_OK;
    if (!ok || ibex_progress_hook_add(idup_progress) != IBEX_OK) {
        idup_free(d);
        return IBEX_ERR_NO_MEMORY;
    }
    d->next = idup_list;
    idup_list = d;
    ibex_comm_ctx_offer(d->m1);
    idup_round(d, 0);
    return IBEX_OK;
}
