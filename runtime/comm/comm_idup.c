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
 * process's progress on this one may wait for that). The second round offers, in one class of
 * pairs the first round left (class c is bit c of every idup word: 16 pairs; the same class on
 * every member: the first round's result and the schedule's tag pick it), the pairs still free
 * and unheld, and holds them until it ends. Two idups that hold one class on different members
 * both fail (each finds the other's pairs held), so the class comes from the tag: idups of one
 * parent in flight together take consecutive classes and never meet. Whole words shared by 24
 * idups met at nearly every try, and the rounds' different completion order on different
 * members made some of them fail 1000 times under load. If nothing is left (others took those
 * pairs meanwhile) both rounds run again from another class, up to IDUP_TRIES times.
 *
 * Both schedules are built at the call, so they take consecutive tags of the parent's
 * collective sequence there, in the program's order of collective calls, as every
 * non-blocking collective does; they are reused (persistent) by later rounds.
 *
 * An intercommunicator's idup agrees over both groups: a round is two intercommunicator
 * AND-allreduces in one schedule (the first gives each side the other side's AND, the second,
 * of those results, its own side's), and their AND is the same bitmap on every process of both
 * groups. Both sides then take the two lowest pairs of the second round: the first for the new
 * local intracommunicator (the same pair on both sides, whose groups are disjoint), the second
 * for the intercommunicator. Both groups count the same collective sequence on the parent, so
 * the tag, and with it the class, is the same on both sides.
 */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "coll_sched.h"
#include "comm_impl.h"
#include "ibex_comm_idup.h"
#include "ibex_comm_inter.h"
#include "ibex_engine_stats.h"
#include "ibex_log.h"
#include "ibex_op.h"
#include "ibex_request.h"

#define IDUP_TRIES 1000
#define CTX_INTS   ((int)(IBEX_CTX_WORDS * sizeof(uint64_t) / sizeof(int)))

typedef struct idup {
    ibex_comm_t *parent;
    uint64_t m1[IBEX_CTX_WORDS], m2[IBEX_CTX_WORDS], mine[IBEX_CTX_WORDS];
    /* an intercommunicator's rounds: this process's offer, the other side's AND */
    uint64_t own[2][IBEX_CTX_WORDS], theirs[2][IBEX_CTX_WORDS];
    bool inter;
    ibex_sched_t *s[2];
    ibex_req_t *r[2];
    int phase; /* the round in flight: 0 or 1 */
    int tries;
    ibex_comm_idup_done_t done;
    void *arg;
    struct idup *next;
} idup_t;

static idup_t *idup_list;

/* An AND over parent of CTX_INTS ints from sbuf (MPI_IN_PLACE: rbuf) into rbuf. */
static ibex_coll_args_t band_args(ibex_comm_t *parent, const void *sbuf, uint64_t *rbuf)
{
    return (ibex_coll_args_t){.comm = parent,
                              .sbuf = sbuf,
                              .rbuf = rbuf,
                              .rcount = CTX_INTS,
                              .rdt = MPI_INT,
                              .op = ibex_op_get(MPI_BAND)};
}

static ibex_sched_t *idup_sched(ibex_comm_t *parent, uint64_t *words)
{
    ibex_coll_args_t a = band_args(parent, MPI_IN_PLACE, words);
    return ibex_sched_build(IBEX_COLL_ALLREDUCE, &a, (size_t)CTX_INTS * sizeof(int));
}

/* An intercommunicator's round: theirs = the other side's AND of own, then words = the other
 * side's AND of their theirs, that is this side's AND of own (after a fence: the second
 * allreduce's messages on the same tag follow the first's in order). */
static ibex_sched_t *idup_sched_inter(ibex_comm_t *parent, uint64_t *own, uint64_t *theirs,
                                      uint64_t *words)
{
    ibex_coll_args_t a = band_args(parent, own, theirs);
    ibex_sched_t *s = ibex_sched_build(IBEX_COLL_ALLREDUCE, &a, (size_t)CTX_INTS * sizeof(int));
    if (!s || s->build_error != IBEX_OK)
        return s;
    ibex_sched_fence(s);
    a = band_args(parent, theirs, words);
    ibex_sched_inter_allreduce(&a, s);
    return s;
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

static uint64_t *idup_words(idup_t *d, int phase)
{
    return phase == 0 ? d->m1 : d->m2;
}

static void idup_round(idup_t *d, int phase)
{
    d->phase = phase;
    if (d->inter)
        memcpy(d->own[phase], idup_words(d, phase), sizeof(d->own[phase]));
    ibex_sched_start(d->s[phase], d->r[phase]);
}

/* The second pair of mask (the lowest but one), or -1. */
static int second_pair(const uint64_t *mask, uint32_t first)
{
    uint64_t rest[IBEX_CTX_WORDS];
    memcpy(rest, mask, sizeof(rest));
    rest[first / 2 / 64] &= ~((uint64_t)1 << (first / 2 % 64));
    return ibex_comm_ctx_lowest(rest, IBEX_CTX_WORDS);
}

/* The intercommunicator over (the parent's local group, its remote group) with a new local
 * intracommunicator, on the two lowest pairs agreed. */
static ibex_status_t idup_make_inter(idup_t *d, ibex_comm_t **comm_p)
{
    ibex_comm_t *p = d->parent;
    uint32_t lctx, ctx;
    ibex_status_t st = ibex_comm_ctx_take_idup(d->m2, &lctx);
    if (st == IBEX_OK) {
        uint64_t rest[IBEX_CTX_WORDS];
        memcpy(rest, d->m2, sizeof(rest));
        rest[lctx / 2 / 64] &= ~((uint64_t)1 << (lctx / 2 % 64));
        st = ibex_comm_ctx_take_idup(rest, &ctx);
        if (st != IBEX_OK)
            ibex_comm_ctx_release(lctx);
    }
    ibex_comm_ctx_unreserve(d->mine);
    if (st != IBEX_OK)
        return st;
    ibex_comm_t *local = ibex_comm_new_on(p->group, NULL, lctx, p->errhandler);
    if (!local) {
        ibex_comm_ctx_release(lctx);
        ibex_comm_ctx_release(ctx);
        return IBEX_ERR_NO_MEMORY;
    }
    return ibex_comm_inter_make(local, p->peers, ctx, p, comm_p);
}

/* The communicator over the parent's group on the pair agreed. */
static ibex_status_t idup_make(idup_t *d, ibex_comm_t **comm_p)
{
    if (d->inter)
        return idup_make_inter(d, comm_p);
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

/* Whether m holds the pairs d needs: one, two for an intercommunicator. */
static bool mask_enough(const idup_t *d, const uint64_t *m)
{
    int id = ibex_comm_ctx_lowest(m, IBEX_CTX_WORDS);
    return id >= 0 && (!d->inter || second_pair(m, (uint32_t)id) >= 0);
}

/* A class offset for the parent's pair at try k. Idups of two parents started in different
 * orders on different members each hold a class on some member, so while they pick the same
 * class both fail; a fixed stride from the tag alone made them pick the same one at every try
 * (MPICH's idup_with_info over the network failed after 1000 tries). Hashed with the try, two
 * parents meet again at each try by chance only (1 in 64). */
static unsigned idup_mix(unsigned pair, int k)
{
    uint32_t h = pair * 0x9e3779b1u ^ (uint32_t)k * 0x85ebca77u;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
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
    if (d->inter) /* this side's AND and the other side's */
        for (int w = 0; w < IBEX_CTX_WORDS; w++)
            idup_words(d, d->phase)[w] &= d->theirs[d->phase][w];
    if (d->phase == 0) {
        /* the schedule's tag, the parent's pair and the round spread concurrent idups over
         * the classes (the same start on every member); idups of one parent at the same try
         * take consecutive classes (their tags are two apart), so up to 32 of them in flight
         * never meet */
        unsigned start = (unsigned)d->s[0]->tag / 2 + idup_mix(d->parent->context_id / 2, d->tries);
        if (ibex_comm_ctx_reserve(d->m1, (int)(start % 64u), d->inter ? 2 : 1, d->mine) < 0) {
            *st_p = IBEX_ERR_NO_CONTEXT; /* no class has the pairs needed free on every member */
            return true;
        }
        memcpy(d->m2, d->mine, sizeof(d->m2));
        idup_round(d, 1);
        return false;
    }
    if (mask_enough(d, d->m2)) {
        *st_p = idup_make(d, comm_p);
        return true;
    }
    ibex_comm_ctx_unreserve(d->mine);
    ibex_engine_stats.idup_retries++;
    if (++d->tries == IDUP_TRIES) {
        *st_p = IBEX_ERR_NO_CONTEXT;
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
    d->inter = ibex_comm_is_inter(parent);
    for (int i = 0; i < 2; i++)
        d->s[i] = d->inter ? idup_sched_inter(parent, d->own[i], d->theirs[i], idup_words(d, i))
                           : idup_sched(parent, idup_words(d, i));
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
