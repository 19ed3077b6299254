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

/* Pool: chunk k holds 64 << k requests and is never moved or freed before finalize (the
 * geometry of the handle tables, ibex_handle.h), chunk 0 lives here. A request's MPI_Request is
 * its place in the pool (slot + 1: index 0 is MPI_REQUEST_NULL), so publishing a request is one
 * store and a lookup one load and a compare, with no handle table beside the pool (its alloc,
 * release and lookups were a good part of the 300 instructions a pollring step lost with it:
 * runtime/engine/README.md). */
enum {
    REQ_CHUNK0_SHIFT = 6, /* IBEX_REQ_CHUNK0 = 1 << this */
    /* 64 * (2^20 - 1) slots: every slot + 1 is an index a handle can name (< 2^26), and a
     * handle of another kind is past the pool in ibex_req_from_handle */
    REQ_CHUNKS = 20,
};

ibex_req_t ibex_req_first[IBEX_REQ_CHUNK0];
static ibex_req_t *req_chunk[REQ_CHUNKS]; /* req_chunk[0] = ibex_req_first once it is a pool */
static int req_capacity;                  /* slots in the chunks (release-published) */
ibex_req_t *ibex_req_free_list;           /* linked through pnext */
long ibex_req_active_count;

static int req_chunk_slots(int k)
{
    return 1 << (REQ_CHUNK0_SHIFT + k);
}

/* The request in slot s past chunk 0, or NULL past the pool: chunk k starts at slot
 * 64 * (2^k - 1). */
ibex_req_t *ibex_req_slot_far(unsigned s)
{
    if (s >= (unsigned)__atomic_load_n(&req_capacity, __ATOMIC_ACQUIRE))
        return NULL;
    unsigned b = s + (1u << REQ_CHUNK0_SHIFT);
    int top = 31 - __builtin_clz(b);
    ibex_req_t *chunk = __atomic_load_n(&req_chunk[top - REQ_CHUNK0_SHIFT], __ATOMIC_ACQUIRE);
    return &chunk[b & ~(1u << top)];
}

/* The shared completed send in slot 0 (ibex_request.h): complete, an empty status, no
 * references; never on the free list, never written again. */
static void req_sent_init(void)
{
    ibex_req_t *req = ibex_req_sent;
    ibex_req_head_init(req, IBEX_REQ_SEND);
    ibex_req_active_count--; /* head_init counts it active: it is born complete */
    req->complete = true;
    req->mode = IBEX_SEND_STANDARD;
    req->proto = IBEX_PROTO_EAGER;
    req->comm = NULL;
    req->buf = NULL;
    req->count = 0;
    req->dt = NULL;
    req->bytes = 0;
    req->peer = req->tag = 0;
    req->slot = IBEX_REQ_SENT_SLOT;
    __atomic_store_n(&req->handle, IBEX_REQ_SENT, __ATOMIC_RELEASE);
}

/* Adds the next chunk, its lowest slots first on the free list; the chunk is published before
 * the capacity that lets a lookup index it. Out of line: inlined, its registers made every
 * ibex_req_alloc save and restore six. */
static __attribute__((noinline, cold)) int req_pool_grow(void)
{
    int k = 0;
    while (k < REQ_CHUNKS && req_chunk[k])
        k++;
    if (k == REQ_CHUNKS)
        return -1;
    int n = req_chunk_slots(k);
    ibex_req_t *chunk = k == 0 ? ibex_req_first : calloc((size_t)n, sizeof(*chunk));
    if (!chunk)
        return -1;
    int base = req_capacity;
    for (int i = n - 1; i >= (k == 0 ? IBEX_REQ_SENT_SLOT + 1 : 0); i--) {
        chunk[i].slot = base + i;
        chunk[i].handle = MPI_REQUEST_NULL;
        chunk[i].pnext = ibex_req_free_list;
        ibex_req_free_list = &chunk[i];
    }
    if (k == 0)
        req_sent_init();
    __atomic_store_n(&req_chunk[k], chunk, __ATOMIC_RELEASE);
    __atomic_store_n(&req_capacity, base + n, __ATOMIC_RELEASE);
    return 0;
}

ibex_status_t ibex_req_pool_init(void)
{
    if (req_chunk[0])
        return IBEX_OK;
    return req_pool_grow() == 0 ? IBEX_OK : IBEX_ERR_NO_MEMORY;
}

/* The request a peer's control message names, or NULL when the id is no request of the pool
 * (nor the shared completed send, which is on no wire): a peer sending garbage must not make
 * us follow a wild pointer. */
ibex_req_t *ibex_req_from_wire(uint64_t id)
{
    if (id == (uintptr_t)ibex_req_sent)
        return NULL;
    for (int k = 0; k < REQ_CHUNKS && req_chunk[k]; k++) {
        uintptr_t lo = (uintptr_t)req_chunk[k], p = (uintptr_t)id;
        if (p >= lo && p < lo + (size_t)req_chunk_slots(k) * sizeof(ibex_req_t))
            return (p - lo) % sizeof(ibex_req_t) == 0 ? (ibex_req_t *)p : NULL;
    }
    return NULL;
}

/* Field by field, in the order of the struct (gcc merges the stores): the memset of the bytes
 * before the slot was a `rep stos`, most of an allocation's 64 instructions (now 31). The
 * slot outlives a use; the rendezvous tail past it is zeroed when a rendezvous starts
 * (ibex_req_rndv_clear), so an eager request never writes its lines. */
ibex_req_t *ibex_req_take(ibex_req_kind_t kind)
{
    if (!ibex_req_free_list && req_pool_grow() != 0)
        return NULL;
    ibex_req_t *req = ibex_req_free_list;
    ibex_req_free_list = req->pnext;
    ibex_req_head_init(req, kind);
    return req;
}

/* The pool copy of a local receive completed: so does the local one, with its status. */
static void local_done(ibex_req_t *pool)
{
    ibex_req_t *local = pool->hook_arg;
    local->status = pool->status;
    ibex_req_complete(local, pool->error);
}

ibex_req_t *ibex_req_adopt(ibex_req_t *local)
{
    ibex_req_t *req = ibex_req_take((ibex_req_kind_t)local->kind);
    if (!req)
        return NULL;
    memcpy(req, local, offsetof(ibex_req_t, slot)); /* its own slot stays */
    req->match.next = req->match.prev = NULL;
    req->in_posted = false;
    ibex_comm_retain(req->comm); /* the copy holds its own references, dropped at its release */
    ibex_dt_retain(req->dt);
    req->on_complete = local_done;
    req->hook_arg = local;
    req->freed = true; /* back to the pool as it completes; counted active, as the local one */
    return req;
}

ibex_req_t *ibex_req_alloc(ibex_req_kind_t kind)
{
    ibex_req_t *req = ibex_req_take(kind);
    if (req) {
        req->comm = NULL;
        req->buf = NULL;
        req->count = 0;
        req->dt = NULL;
        req->bytes = 0;
        req->peer = req->tag = 0;
        req->start_call = NULL;
    }
    return req;
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
    if (ibex_req_is_sent(req))
        return; /* shared and never changed */
    if (req->on_release)
        req->on_release(req);
    if (req->ext) {
        req->ext->release(req);
        req->ext = NULL;
    }
    ibex_comm_release(req->comm); /* the last reference frees it */
    if (req->dt && !req->dt->predefined)
        ibex_dt_release(req->dt);
    if (!req->complete)
        ibex_req_active_count--;
    if (__builtin_expect(req->slot == IBEX_REQ_LOCAL, 0))
        return; /* on its caller's stack: no pool slot, no handle */
    __atomic_store_n(&req->handle, MPI_REQUEST_NULL, __ATOMIC_RELAXED);
    req->pnext = ibex_req_free_list;
    ibex_req_free_list = req;
}

void ibex_req_pool_fini(void)
{
    for (int k = 1; k < REQ_CHUNKS; k++) /* chunk 0 is ibex_req_first */
        free(req_chunk[k]);
    memset(req_chunk, 0, sizeof(req_chunk));
    memset(ibex_req_first, 0, sizeof(ibex_req_first));
    req_capacity = 0;
    ibex_req_free_list = NULL;
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

int ibex_req_count_idle(const ibex_comm_t *comm)
{
    int n = 0;
    for (unsigned s = 0; s < (unsigned)req_capacity; s++) {
        const ibex_req_t *req = s < IBEX_REQ_CHUNK0 ? &ibex_req_first[s] : ibex_req_slot_far(s);
        n += req->comm == comm && req->persistent && !req->active &&
             __atomic_load_n(&req->handle, __ATOMIC_RELAXED) != MPI_REQUEST_NULL;
    }
    return n;
}
