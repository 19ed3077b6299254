/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffered sends: MPI_Buffer_attach / detach / flush / iflush, the MPI 4.1 communicator
 * buffers (MPI_Comm_attach_buffer / detach / flush / iflush) and the Bsend path. The message
 * is packed into the communicator's buffer if it has one, else the process's, and sent by an
 * internal request; the user's call completes at once. A buffer is managed first-fit: each
 * block carries a small header (MPI_BSEND_OVERHEAD). The iflush forms flush at the call and
 * give a complete request. A session's buffer (MPI_Session_attach_buffer) serves the
 * communicators derived from the session (ibex_comm_t.session) that have none of their own;
 * MPI 4.1 section 3.6: the communicator's buffer, else its session's, else the process's.
 * MPI_BUFFER_AUTOMATIC instead of an address: each message gets its own malloc'd copy, freed
 * when it has left, so such a buffer never runs out of room (but memory may).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_blocked_rec.h"
#include "ibex_p2p_api.h"
#include "ibex_runtime.h"
#include "ibex_session.h"
#include "ibex_entry.h"

/* The messages of an automatic buffer still in flight; malloc'd, so it stays where it is
 * while the pool tables move. */
typedef struct bsend_auto {
    long live;
} bsend_auto_t;

typedef struct bsend_block {
    size_t size; /* bytes of this block, header included */
    int in_use;
    int pad;
    bsend_auto_t *owner; /* an automatic buffer's block (malloc'd alone), else NULL */
} bsend_block_t;

typedef struct bsend_pool {
    char *buf;
    size_t size;
    bsend_auto_t *automatic; /* attached as MPI_BUFFER_AUTOMATIC (buf NULL) */
} bsend_pool_t;

static bsend_pool_t proc_pool;   /* MPI_Buffer_attach's */
static bsend_pool_t *comm_pools; /* by communicator handle index */
static int ncomm_pools;
static bsend_pool_t *sess_pools; /* by session handle index */
static int nsess_pools;

static bool pool_attached(const bsend_pool_t *p)
{
    return p && (p->buf || p->automatic);
}

_Static_assert(sizeof(bsend_block_t) <= MPI_BSEND_OVERHEAD, "bsend header too big");

#define BLOCK_HDR   MPI_BSEND_OVERHEAD
#define BLOCK_ALIGN 16

static bsend_block_t *block_at(const bsend_pool_t *p, size_t off)
{
    return (bsend_block_t *)(p->buf + off);
}

/* Joins free neighbours so space freed in any order can be reused. */
static void bsend_coalesce(bsend_pool_t *p)
{
    size_t off = 0;
    while (off < p->size) {
        bsend_block_t *b = block_at(p, off);
        while (!b->in_use && off + b->size < p->size && !block_at(p, off + b->size)->in_use)
            b->size += block_at(p, off + b->size)->size;
        off += b->size;
    }
}

static void *bsend_alloc_auto(bsend_pool_t *p, size_t bytes)
{
    bsend_block_t *b = malloc(BLOCK_HDR + (bytes ? bytes : 1));
    if (!b)
        return NULL;
    b->size = BLOCK_HDR + bytes;
    b->in_use = 1;
    b->owner = p->automatic;
    b->owner->live++;
    return (char *)b + BLOCK_HDR;
}

static void *bsend_alloc(bsend_pool_t *p, size_t bytes)
{
    if (p->automatic)
        return bsend_alloc_auto(p, bytes);
    size_t need = (BLOCK_HDR + bytes + BLOCK_ALIGN - 1) & ~(size_t)(BLOCK_ALIGN - 1);
    bsend_coalesce(p);
    for (size_t off = 0; p->buf && off < p->size; off += block_at(p, off)->size) {
        bsend_block_t *b = block_at(p, off);
        if (b->in_use || b->size < need)
            continue;
        if (b->size - need >= BLOCK_HDR + BLOCK_ALIGN) {
            bsend_block_t *rest = block_at(p, off + need);
            rest->size = b->size - need;
            rest->in_use = 0;
            rest->owner = NULL;
            b->size = need;
        }
        b->in_use = 1;
        return (char *)b + BLOCK_HDR;
    }
    return NULL;
}

static void bsend_release(ibex_req_t *req)
{
    bsend_block_t *b = (bsend_block_t *)((char *)req->hook_arg - BLOCK_HDR);
    if (b->owner) {
        b->owner->live--;
        free(b);
        return;
    }
    b->in_use = 0;
}

static bool bsend_busy(const bsend_pool_t *p)
{
    if (p->automatic)
        return p->automatic->live > 0;
    for (size_t off = 0; p->buf && off < p->size; off += block_at(p, off)->size)
        if (block_at(p, off)->in_use)
            return true;
    return false;
}

/* Entry i of a pool table (grow: make room for it), or NULL. */
static bsend_pool_t *table_pool(bsend_pool_t **tab, int *n, int i, bool grow)
{
    if (i >= *n && grow) {
        int m = i + 16;
        bsend_pool_t *np = realloc(*tab, (size_t)m * sizeof(*np));
        if (!np)
            return NULL;
        memset(np + *n, 0, (size_t)(m - *n) * sizeof(*np));
        *tab = np;
        *n = m;
    }
    return i < *n ? &(*tab)[i] : NULL;
}

/* The buffer of communicator c (grow: make room for it), or NULL. */
static bsend_pool_t *comm_pool(const ibex_comm_t *c, bool grow)
{
    return table_pool(&comm_pools, &ncomm_pools, IBEX_HANDLE_INDEX(c->handle), grow);
}

static bsend_pool_t *sess_pool(MPI_Session s, bool grow)
{
    return table_pool(&sess_pools, &nsess_pools, IBEX_HANDLE_INDEX(s), grow);
}

/* Where a Bsend on c goes: c's buffer, else its session's, else the process's. */
static bsend_pool_t *pool_for(const ibex_comm_t *c)
{
    bsend_pool_t *p = comm_pool(c, false);
    if (pool_attached(p))
        return p;
    p = c->session ? sess_pool(c->session, false) : NULL;
    return pool_attached(p) ? p : &proc_pool;
}

static void pool_flush(const bsend_pool_t *p)
{
    int idle = 0, spins = 0;
    bool rec = false;
    while (bsend_busy(p)) {
        ibex_wait_step(&idle);
        if (!rec && ibex_blk_due(&spins)) /* for whom it waits (ibex_blocked_rec.h) */
            rec = ibex_blk_wait_sends(true);
    }
    if (rec)
        ibex_blk_end();
}

int ibex_p2p_bsend_start(const char *call, ibex_req_t *req)
{
    bsend_pool_t *pool = pool_for(req->comm);
    void *space = bsend_alloc(pool, req->bytes);
    if (!space) {
        ibex_comm_t *comm = req->comm;
        size_t bytes = req->bytes;
        if (req->persistent) { /* back to inactive; the handle stays the program's */
            req->complete = true;
            req->active = false;
            ibex_req_active_count--;
        } else {
            ibex_req_release(req);
        }
        return ibex_mpi_error(comm, MPI_ERR_BUFFER, call,
                              pool->automatic
                                  ? "cannot allocate %zu bytes for the automatic buffer (%zu)"
                                  : "no room for %zu bytes in the attached buffer (%zu bytes; "
                                    "attach a larger one with MPI_Buffer_attach)",
                              bytes, pool->size);
    }
    ibex_dt_pack(req->buf, req->count, req->dt, 0, space, req->bytes);
    /* The copy travels as bytes; the user request is already complete. */
    ibex_req_t *inner;
    ibex_dt_t *byte_dt = ibex_dt_get(MPI_BYTE);
    ibex_p2p_isend(space, (MPI_Count)req->bytes, byte_dt, req->peer, req->tag, req->comm, req->coll,
                   &inner);
    inner->hook_arg = space;
    if (inner->complete) { /* sent eagerly already: the space is free again */
        bsend_release(inner);
        ibex_req_release(inner);
    } else {
        inner->on_complete = bsend_release;
        inner->freed = true;
    }
    ibex_req_complete(req, IBEX_OK);
    return MPI_SUCCESS;
}

static int pool_attach(bsend_pool_t *p, const char *call, ibex_comm_t *c, void *buffer,
                       MPI_Count size)
{
    if (pool_attached(p))
        return ibex_mpi_error(c, MPI_ERR_BUFFER, call,
                              "a buffer is already attached (detach it first)");
    if (buffer == MPI_BUFFER_AUTOMATIC) { /* size is ignored (MPI 4.1) */
        p->automatic = calloc(1, sizeof(*p->automatic));
        return p->automatic ? MPI_SUCCESS
                            : ibex_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory");
    }
    if (size < 0 || (!buffer && size > 0))
        return ibex_mpi_error(c, MPI_ERR_BUFFER, call, "invalid buffer %p of size %lld", buffer,
                              (long long)size);
    size_t usable = (size_t)size & ~(size_t)(BLOCK_ALIGN - 1);
    if (usable < BLOCK_HDR + BLOCK_ALIGN)
        usable = 0;
    p->buf = buffer;
    p->size = usable;
    if (usable) {
        block_at(p, 0)->size = usable;
        block_at(p, 0)->in_use = 0;
        block_at(p, 0)->owner = NULL;
    }
    return MPI_SUCCESS;
}

/* Detach blocks until every buffered message has been transmitted. */
/* *size: the size attached (MPI_Count: the _c forms; the int forms below say MPI_UNDEFINED for a
 * size past an int, the buffer detached all the same). */
static int pool_detach(bsend_pool_t *p, const char *call, ibex_comm_t *c, void *buffer_addr,
                       MPI_Count *size)
{
    if (!buffer_addr || !size)
        return ibex_mpi_error(c, MPI_ERR_ARG, call, "NULL argument");
    if (c && !pool_attached(p)) /* a communicator without its own buffer */
        return ibex_mpi_error(c, MPI_ERR_BUFFER, call, "no buffer is attached to %s", c->name);
    if (!p)
        p = &proc_pool;
    pool_flush(p);
    *(void **)buffer_addr = p->automatic ? MPI_BUFFER_AUTOMATIC : p->buf;
    *size = (MPI_Count)p->size;
    free(p->automatic);
    memset(p, 0, sizeof(*p));
    return MPI_SUCCESS;
}

void ibex_p2p_bsend_comm_drop(const ibex_comm_t *c)
{
    bsend_pool_t *p = comm_pool(c, false);
    if (pool_attached(p)) { /* its messages go out first */
        pool_flush(p);
        free(p->automatic);
        memset(p, 0, sizeof(*p));
    }
}

void ibex_p2p_bsend_session_drop(MPI_Session session)
{
    bsend_pool_t *p = sess_pool(session, false);
    if (pool_attached(p)) {
        pool_flush(p);
        free(p->automatic);
        memset(p, 0, sizeof(*p));
    }
}

/* A detached size for an int form: MPI_UNDEFINED past an int. */
static int size_out(int rc, const MPI_Count *n, int *size)
{
    if (rc == MPI_SUCCESS)
        *size = *n > INT_MAX ? MPI_UNDEFINED : (int)*n;
    return rc;
}

int PMPI_Buffer_attach(void *buffer, int size)
{
    IBEX_ENTER(Buffer_attach);
    return pool_attach(&proc_pool, call, NULL, buffer, size);
}

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    IBEX_ENTER(Buffer_attach_c);
    return pool_attach(&proc_pool, call, NULL, buffer, size);
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    IBEX_ENTER(Buffer_detach);
    MPI_Count n = 0;
    return size_out(pool_detach(&proc_pool, call, NULL, buffer_addr, size ? &n : NULL), &n, size);
}

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    IBEX_ENTER(Buffer_detach_c);
    IBEX_ARGS(Buffer_detach_c, size);
    return pool_detach(&proc_pool, call, NULL, buffer_addr, size);
}

/* MPI 4.1: every message buffered so far has left the buffer (the buffer stays attached). */
int PMPI_Buffer_flush(void)
{
    IBEX_ENTER(Buffer_flush);
    pool_flush(&proc_pool);
    return MPI_SUCCESS;
}

int PMPI_Buffer_iflush(MPI_Request *request)
{
    IBEX_ENTER(Buffer_iflush);
    IBEX_ARGS(Buffer_iflush, request);
    pool_flush(&proc_pool);
    return ibex_p2p_req_done(ibex_comm_self, call, request);
}

static int comm_attach(ibex_entry_t *e, ibex_comm_t *c, void *buffer, MPI_Count size)
{
    bsend_pool_t *p = comm_pool(c, true);
    if (!p)
        return ibex_mpi_error(c, MPI_ERR_NO_MEM, e->call, "out of memory");
    return pool_attach(p, e->call, c, buffer, size);
}

int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
    IBEX_ENTER_COMM(Comm_attach_buffer, comm, c);
    return comm_attach(&ibex_e, c, buffer, size);
}

int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size)
{
    IBEX_ENTER_COMM(Comm_attach_buffer_c, comm, c);
    return comm_attach(&ibex_e, c, buffer, size);
}

int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    IBEX_ENTER_COMM(Comm_detach_buffer, comm, c);
    MPI_Count n = 0;
    return size_out(pool_detach(comm_pool(c, false), call, c, buffer_addr, size ? &n : NULL), &n,
                    size);
}

int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    IBEX_ENTER_COMM(Comm_detach_buffer_c, comm, c);
    IBEX_ARGS(Comm_detach_buffer_c, size);
    return pool_detach(comm_pool(c, false), call, c, buffer_addr, size);
}

int PMPI_Comm_flush_buffer(MPI_Comm comm)
{
    IBEX_ENTER_COMM(Comm_flush_buffer, comm, c);
    pool_flush(pool_for(c));
    return MPI_SUCCESS;
}

int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    IBEX_ENTER_COMM(Comm_iflush_buffer, comm, c);
    IBEX_ARGS(Comm_iflush_buffer, request);
    pool_flush(pool_for(c));
    return ibex_p2p_req_done(c, call, request);
}

/* ---- MPI 4.1 session buffers: for the communicators derived from the session ---- */

static int session_attach(MPI_Session session, const char *call, void *buffer, MPI_Count size)
{
    IBEX_CHECK(ibex_session_check(session, call));
    bsend_pool_t *p = sess_pool(session, true);
    if (!p)
        return ibex_session_error(session, MPI_ERR_NO_MEM, call, "out of memory");
    if (pool_attached(p))
        return ibex_session_error(session, MPI_ERR_BUFFER, call,
                                  "a buffer is already attached to the session (detach it first)");
    if (buffer != MPI_BUFFER_AUTOMATIC && (size < 0 || (!buffer && size > 0)))
        return ibex_session_error(session, MPI_ERR_BUFFER, call, "invalid buffer or size");
    return pool_attach(p, call, NULL, buffer, size);
}

int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    IBEX_ENTER(Session_attach_buffer);
    return session_attach(session, call, buffer, size);
}

int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size)
{
    IBEX_ENTER(Session_attach_buffer_c);
    return session_attach(session, call, buffer, size);
}

static int session_detach(MPI_Session session, const char *call, void *buffer_addr, MPI_Count *size)
{
    IBEX_CHECK(ibex_session_check(session, call));
    if (!buffer_addr || !size)
        return ibex_session_error(session, MPI_ERR_ARG, call, "buffer_addr or size is NULL");
    bsend_pool_t *p = sess_pool(session, false);
    if (!pool_attached(p))
        return ibex_session_error(session, MPI_ERR_BUFFER, call,
                                  "no buffer is attached to the session");
    return pool_detach(p, call, NULL, buffer_addr, size);
}

int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
    IBEX_ENTER(Session_detach_buffer);
    MPI_Count n = 0;
    return size_out(session_detach(session, call, buffer_addr, size ? &n : NULL), &n, size);
}

int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size)
{
    IBEX_ENTER(Session_detach_buffer_c);
    return session_detach(session, call, buffer_addr, size);
}

int PMPI_Session_flush_buffer(MPI_Session session)
{
    IBEX_ENTER(Session_flush_buffer);
    IBEX_CHECK(ibex_session_check(session, call));
    bsend_pool_t *p = sess_pool(session, false);
    if (pool_attached(p))
        pool_flush(p);
    return MPI_SUCCESS;
}

int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    IBEX_ENTER(Session_iflush_buffer);
    IBEX_CHECK(ibex_session_check(session, call));
    if (!request)
        return ibex_session_error(session, MPI_ERR_ARG, call, "request is NULL");
    bsend_pool_t *p = sess_pool(session, false);
    if (pool_attached(p))
        pool_flush(p);
    return ibex_p2p_req_done(ibex_comm_self, call, request);
}

IBEX_MPI_ALIASES(p2p_bsend)
