/* SPDX-License-Identifier: BSD-3-Clause */
/* Collective schedules: building, running by rounds, and the progress hook (coll_sched.h). */
#include "coll_sched.h"

#include <stdlib.h>
#include <string.h>

#include "ibex_dt_ref.h"
#include "ibex_log.h"
#include "ibex_request.h"

#define COPY_CHUNK (64 * 1024)

/* Running schedules, advanced by the progress hook. */
static ibex_sched_t *active_head;
static bool in_hook;

ibex_sched_t *ibex_sched_new(ibex_comm_t *comm, const ibex_op_t *op)
{
    ibex_sched_t *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->comm = comm;
    s->op = op;
    /* the n-th schedule on comm has the same tag on every member (see coll_sched.h) */
    s->tag = IBEX_SCHED_TAG_BASE + (int)((unsigned)comm->coll_tag++ % IBEX_SCHED_TAG_SPAN);
    return s;
}

static bool grow(void **array, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return true;
    int n = *cap ? *cap * 2 : 16;
    void *p = realloc(*array, (size_t)n * elem);
    if (!p)
        return false;
    *array = p;
    *cap = n;
    return true;
}

static void step_add(ibex_sched_t *s, const ibex_sched_step_t *step)
{
    if (s->build_error != IBEX_OK)
        return;
    if (!grow((void **)&s->steps, &s->step_cap, s->nsteps + 1, sizeof(*step))) {
        s->build_error = IBEX_ERR_NO_MEMORY;
        return;
    }
    ibex_sched_step_t *st = &s->steps[s->nsteps++];
    *st = *step;
    if (st->sdt)
        ibex_dt_retain(st->sdt);
    if (st->ddt)
        ibex_dt_retain(st->ddt);
}

void ibex_sched_on(ibex_sched_t *s, ibex_comm_t *comm)
{
    s->on = comm;
}

void ibex_sched_send(ibex_sched_t *s, const void *buf, int count, MPI_Datatype dt, int peer)
{
    ibex_sched_step_t st = {.kind = IBEX_SCHED_SEND,
                            .peer = peer,
                            .src = buf,
                            .scount = count,
                            .sdt = ibex_dt_get(dt),
                            .on = s->on};
    step_add(s, &st);
}

void ibex_sched_recv(ibex_sched_t *s, void *buf, int count, MPI_Datatype dt, int peer)
{
    ibex_sched_step_t st = {.kind = IBEX_SCHED_RECV,
                            .peer = peer,
                            .dst = buf,
                            .dcount = count,
                            .ddt = ibex_dt_get(dt),
                            .on = s->on};
    step_add(s, &st);
}

void ibex_sched_copy(ibex_sched_t *s, const void *src, int scount, MPI_Datatype sdt, void *dst,
                     int dcount, MPI_Datatype ddt)
{
    ibex_sched_step_t st = {.kind = IBEX_SCHED_COPY,
                            .src = src,
                            .scount = scount,
                            .sdt = ibex_dt_get(sdt),
                            .dst = dst,
                            .dcount = dcount,
                            .ddt = ibex_dt_get(ddt)};
    step_add(s, &st);
}

void ibex_sched_reduce(ibex_sched_t *s, const void *in, void *inout, int count, MPI_Datatype dt)
{
    const ibex_dt_t *d = ibex_dt_get(dt);
    if (count == 0 || (d && d->size == 0))
        return; /* nothing to combine (a type of no bytes may hold no basic type to apply to) */
    ibex_sched_step_t st = {.kind = IBEX_SCHED_REDUCE,
                            .src = in,
                            .scount = count,
                            .dst = inout,
                            .dcount = count,
                            .ddt = ibex_dt_get(dt)};
    step_add(s, &st);
}

void ibex_sched_fence(ibex_sched_t *s)
{
    ibex_sched_step_t st = {.kind = IBEX_SCHED_FENCE};
    step_add(s, &st);
}

void *ibex_sched_tmp(ibex_sched_t *s, MPI_Datatype dt, int count)
{
    const ibex_dt_t *d = ibex_dt_get(dt);
    if (s->build_error != IBEX_OK || !d)
        return NULL;
    size_t span = count > 0 ? (size_t)d->true_extent + (size_t)(count - 1) * (size_t)d->extent : 0;
    char *base = malloc(span ? span : 1);
    if (!base || !grow((void **)&s->tmps, &s->tmp_cap, s->ntmps + 1, sizeof(void *))) {
        free(base);
        ibex_error(COLL, "out of memory for a %zu-byte schedule buffer", span);
        s->build_error = IBEX_ERR_NO_MEMORY;
        return NULL;
    }
    s->tmps[s->ntmps++] = base;
    return base - d->true_lb;
}

void ibex_sched_free(ibex_sched_t *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nsteps; i++) {
        if (s->steps[i].sdt)
            ibex_dt_release(s->steps[i].sdt);
        if (s->steps[i].ddt)
            ibex_dt_release(s->steps[i].ddt);
    }
    for (int i = 0; i < s->ntmps; i++)
        free(s->tmps[i]);
    free(s->tmps);
    free(s->steps);
    free(s->reqs);
    free(s);
}

/* ---- running ---- */

/* Non-contiguous on either side: pack a chunk, unpack it, until the source's data ends. */
static ibex_status_t copy_packed(const ibex_sched_step_t *st, size_t bytes)
{
    char *chunk = malloc(bytes < COPY_CHUNK ? bytes : COPY_CHUNK);
    if (!chunk)
        return IBEX_ERR_NO_MEMORY;
    for (size_t off = 0; off < bytes;) {
        size_t len = bytes - off < COPY_CHUNK ? bytes - off : COPY_CHUNK;
        len = ibex_dt_pack(st->src, st->scount, st->sdt, off, chunk, len);
        ibex_dt_unpack(st->dst, st->dcount, st->ddt, off, chunk, len);
        off += len;
        if (len == 0)
            break;
    }
    free(chunk);
    return IBEX_OK;
}

static ibex_status_t step_copy(const ibex_sched_step_t *st)
{
    size_t sbytes = (size_t)st->scount * st->sdt->size;
    if (sbytes > (size_t)st->dcount * st->ddt->size)
        return IBEX_ERR_TRUNCATE;
    /* the same buffer, count and type: nothing to do (two types at MPI_BOTTOM share a NULL
     * buffer and still differ) */
    if (sbytes == 0 || (st->src == st->dst && st->sdt == st->ddt && st->scount == st->dcount))
        return IBEX_OK;
    if (ibex_dt_is_contig(st->sdt, st->scount) && ibex_dt_is_contig(st->ddt, st->dcount)) {
        memcpy((char *)st->dst + st->ddt->true_lb, (const char *)st->src + st->sdt->true_lb,
               sbytes);
        return IBEX_OK;
    }
    return copy_packed(st, sbytes);
}

static ibex_status_t step_reduce(const ibex_sched_t *s, const ibex_sched_step_t *st)
{
    int rc = ibex_op_apply_dt(s->op, st->src, st->dst, st->dcount, st->ddt);
    if (rc == MPI_SUCCESS)
        return IBEX_OK;
    ibex_error(COLL, "reduction op 0x%x failed on datatype %s (class %d)", s->op->handle,
               st->ddt->name, rc);
    return IBEX_ERR_INVALID;
}

static ibex_status_t step_post(ibex_sched_t *s, const ibex_sched_step_t *st)
{
    ibex_req_t *r;
    ibex_status_t rc;
    ibex_comm_t *comm = st->on ? st->on : s->comm;
    if (!grow((void **)&s->reqs, &s->req_cap, s->nreqs + 1, sizeof(r)))
        return IBEX_ERR_NO_MEMORY;
    if (st->kind == IBEX_SCHED_SEND)
        rc = ibex_p2p_isend(st->src, st->scount, st->sdt, st->peer, s->tag, comm, true, &r);
    else
        rc = ibex_p2p_irecv(st->dst, st->dcount, st->ddt, st->peer, s->tag, comm, true, &r);
    if (rc == IBEX_OK)
        s->reqs[s->nreqs++] = r;
    return rc;
}

static ibex_status_t step_run(ibex_sched_t *s, const ibex_sched_step_t *st)
{
    switch (st->kind) {
    case IBEX_SCHED_SEND:
    case IBEX_SCHED_RECV:
        return step_post(s, st);
    case IBEX_SCHED_COPY:
        return step_copy(st);
    case IBEX_SCHED_REDUCE:
        return step_reduce(s, st);
    default:
        return IBEX_OK;
    }
}

/* Releases the completed sends and receives; returns how many there were. */
static int reap(ibex_sched_t *s)
{
    int done = 0, k = 0;
    for (int i = 0; i < s->nreqs; i++) {
        ibex_req_t *r = s->reqs[i];
        if (!r->complete) {
            s->reqs[k++] = r;
            continue;
        }
        if (r->error != IBEX_OK && s->error == IBEX_OK)
            s->error = r->error;
        ibex_req_release(r);
        done++;
    }
    s->nreqs = k;
    return done;
}

/* Executes steps up to the next fence that still has messages in flight. After an error no
 * new step starts: the run ends once the messages in flight have completed. */
static int run_steps(ibex_sched_t *s)
{
    int n = 0;
    while (s->pc < s->nsteps && s->error == IBEX_OK) {
        const ibex_sched_step_t *st = &s->steps[s->pc];
        if (st->kind == IBEX_SCHED_FENCE && s->nreqs > 0 && (reap(s), s->nreqs > 0))
            break;
        ibex_status_t rc = step_run(s, st);
        if (rc != IBEX_OK && s->error == IBEX_OK)
            s->error = rc;
        s->pc++;
        n++;
    }
    return n;
}

static void active_remove(ibex_sched_t *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        active_head = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->next = s->prev = NULL;
    s->active = false;
}

static int sched_progress(void);

static void finish(ibex_sched_t *s)
{
    active_remove(s);
    if (!active_head)
        ibex_progress_hook_remove(sched_progress);
    ibex_req_t *req = s->req;
    ibex_status_empty(&req->status);
    ibex_req_complete(req, s->error); /* may release req and free s: touch neither after */
}

/* One pass over a schedule; returns the events (steps run, messages completed). */
static int advance(ibex_sched_t *s)
{
    int n = reap(s);
    for (;;) {
        int k = run_steps(s);
        if (k == 0 && reap(s) == 0)
            break;
        n += k;
    }
    bool done = s->nreqs == 0 && (s->pc == s->nsteps || s->error != IBEX_OK);
    if (done)
        finish(s);
    return n + done;
}

static int sched_progress(void)
{
    if (in_hook) /* a step's send drove progress itself */
        return 0;
    in_hook = true;
    int n = 0;
    for (ibex_sched_t *s = active_head, *next; s; s = next) {
        next = s->next;
        n += advance(s);
    }
    in_hook = false;
    return n;
}

void ibex_sched_start(ibex_sched_t *s, ibex_req_t *req)
{
    if (req->persistent) {
        if (req->complete)
            ibex_req_active_count++; /* restarting: active again until Wait / Test reports it */
        req->complete = false;
        req->active = true;
        req->error = IBEX_OK;
    }
    s->req = req;
    s->pc = 0;
    s->error = s->build_error;
    s->active = true;
    s->prev = NULL;
    s->next = active_head;
    if (active_head)
        active_head->prev = s;
    active_head = s;
    if (ibex_progress_hook_add(sched_progress) != IBEX_OK && s->error == IBEX_OK)
        s->error = IBEX_ERR_INTERNAL;
    bool outer = !in_hook;
    in_hook = true; /* the steps' sends must not run other schedules under this one */
    advance(s);
    if (outer)
        in_hook = false;
}
