/* SPDX-License-Identifier: BSD-3-Clause */
/* The request pool, request handles, completion and the waiting policy. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "ibex_request.h"

#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibex_blocked_rec.h"
#include "ibex_engine_cfg.h"
#include "ibex_dt_ref.h"
#include "ibex_engine.h"
#include "ibex_handle.h"
#include "ibex_log.h"
#include "ibex_runtime.h"
#include "ibex_thread.h"

#define REQ_CHUNK 256

/* Pool: chunks of requests never returned to malloc until finalize. */
typedef struct req_chunk {
    struct req_chunk *next;
    ibex_req_t reqs[REQ_CHUNK];
} req_chunk_t;

static req_chunk_t *req_chunks;
static ibex_req_t *req_free_list; /* linked through pnext */
static ibex_handle_table_t req_table;
static bool req_table_ready;
long ibex_req_active_count;

static int req_pool_grow(void)
{
    req_chunk_t *chunk = malloc(sizeof(*chunk));
    if (!chunk)
        return -1;
    chunk->next = req_chunks;
    req_chunks = chunk;
    for (int i = 0; i < REQ_CHUNK; i++) {
        chunk->reqs[i].pnext = req_free_list;
        req_free_list = &chunk->reqs[i];
    }
    return 0;
}

/* The request a peer's control message names, or NULL when the id is no request of the pool:
 * a peer sending garbage must not make us follow a wild pointer. */
ibex_req_t *ibex_req_from_wire(uint64_t id)
{
    for (req_chunk_t *c = req_chunks; c; c = c->next) {
        uintptr_t lo = (uintptr_t)c->reqs, p = (uintptr_t)id;
        if (p >= lo && p < lo + sizeof(c->reqs))
            return (p - lo) % sizeof(ibex_req_t) == 0 ? (ibex_req_t *)p : NULL;
    }
    return NULL;
}

ibex_req_t *ibex_req_alloc(ibex_req_kind_t kind)
{
    if (!req_free_list && req_pool_grow() != 0)
        return NULL;
    ibex_req_t *req = req_free_list;
    req_free_list = req->pnext;
    memset(req, 0, sizeof(*req));
    req->kind = (uint8_t)kind;
    req->handle = MPI_REQUEST_NULL;
    ibex_status_empty(&req->status);
    ibex_req_active_count++;
    return req;
}

int ibex_req_publish(ibex_req_t *req, MPI_Request *handle_p)
{
    if (!req_table_ready) {
        ibex_handle_table_init(&req_table, IBEX_KIND_REQUEST, 1);
        req_table_ready = true;
    }
    int h = ibex_handle_alloc(&req_table, req);
    if (h < 0)
        return -1;
    req->handle = h;
    *handle_p = h;
    return 0;
}

ibex_req_t *ibex_req_from_handle(MPI_Request handle)
{
    return req_table_ready ? ibex_handle_get(&req_table, handle) : NULL;
}

void ibex_req_complete(ibex_req_t *req, ibex_status_t error)
{
    ibex_assert(!req->complete);
    if (req->inflight_ep)
        ibex_ep_inflight_remove(req);
    req->error = error;
    req->complete = true; /* a persistent request stays active until Wait / Test reports it */
    ibex_req_active_count--;
    if (req->on_complete)
        req->on_complete(req);
    if (req->freed)
        ibex_req_release(req);
}

void ibex_req_release(ibex_req_t *req)
{
    if (req->on_release)
        req->on_release(req);
    if (req->ext) {
        req->ext->release(req);
        req->ext = NULL;
    }
    ibex_comm_release(req->comm); /* the last reference frees it */
    if (req->dt && !req->dt->predefined)
        ibex_dt_release(req->dt);
    if (req->handle != MPI_REQUEST_NULL)
        ibex_handle_release(&req_table, req->handle);
    if (!req->complete)
        ibex_req_active_count--;
    req->handle = MPI_REQUEST_NULL;
    req->pnext = req_free_list;
    req_free_list = req;
}

void ibex_req_pool_fini(void)
{
    while (req_chunks) {
        req_chunk_t *next = req_chunks->next;
        free(req_chunks);
        req_chunks = next;
    }
    req_free_list = NULL;
    if (req_table_ready)
        ibex_handle_table_fini(&req_table);
    req_table_ready = false;
    ibex_req_active_count = 0;
}

/* The back-off rule, written once for blocking waits and polling calls alike: after a progress
 * call that found nothing, should this rank give up its core? `idle_polls` counts the empty
 * progress calls in a row. Under `auto` a rank yields at once when the node runs more ranks
 * than cores (the rank it waits for may have no core until it does), else only after
 * IBEX_SPIN_COUNT empty polls (work may be near; a yield would add a system call to it). */
static inline bool idle_should_yield(int idle_polls)
{
    switch (ibex_engine_cfg.wait_policy) {
    case IBEX_WAIT_SPIN:
        return false;
    case IBEX_WAIT_YIELD:
        return true;
    default:
        return ibex_rt.oversubscribed || idle_polls > ibex_engine_cfg.spin_count;
    }
}

static inline void wait_step(int *idle_polls)
{
    ibex_thread_pause(); /* MPI_THREAD_MULTIPLE: let the other threads in between polls */
    if (ibex_progress() > 0) {
        *idle_polls = 0;
        return;
    }
    if (*idle_polls < INT_MAX) /* saturate: a wait of minutes must keep yielding */
        ++*idle_polls;
    if (idle_should_yield(*idle_polls))
        sched_yield();
}

void ibex_wait_step(int *idle_polls)
{
    wait_step(idle_polls);
}

/* Empty polls in a row across the program's calls to MPI_Test, Iprobe and the like: a polling
 * loop is many calls, so the count lives here and not in the caller's frame. */
static __thread int poll_idle __attribute__((tls_model("initial-exec"))); /* per thread */

void ibex_poll_step(void)
{
    wait_step(&poll_idle);
    /* Polling for a long time without progress is a wait too (ibex_blocked_rec.h). */
    ibex_blk_poll_count(poll_idle);
}

/* CPUs this process may run on, or -1; fewer than the node has means it is bound. */
static int allowed_cpus(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : -1;
}

void ibex_wait_policy_log(void)
{
    static const char *names[] = {"auto", "spin", "yield"};
    int policy = ibex_engine_cfg.wait_policy, cpus = allowed_cpus();
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    const char *rule = policy == IBEX_WAIT_SPIN    ? "waits and polls never yield"
                       : policy == IBEX_WAIT_YIELD ? "waits and polls yield when idle"
                       : ibex_rt.oversubscribed    ? "oversubscribed: waits and polls yield at once"
                                                   : "waits and polls yield after IBEX_SPIN_COUNT "
                                                     "empty polls";
    ibex_debug(CORE, "wait policy %s: %d local ranks on %d cores, %s (%d of %ld cpus): %s",
               names[policy], ibex_rt.boot.local_size, ibex_rt.boot.num_cores,
               cpus > 0 && cpus < online ? "bound" : "not bound", cpus, online, rule);
}

void ibex_req_wait_complete(ibex_req_t *req)
{
    int idle = 0;
    bool rec = false;
    int spins = 0;
    while (!req->complete) {
        wait_step(&idle);
        /* It has to wait: say so, once (ibex_blocked_rec.h). */
        if (!rec && ibex_blk_due(&spins))
            rec = ibex_blk_wait_reqs(&req, 1, false);
    }
    if (rec)
        ibex_blk_end();
}
