/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffered sends: MPI_Buffer_attach / detach and the Bsend path. The message is packed into
 * the attached buffer and sent by an internal request; the user's call completes at once.
 * The buffer is managed first-fit: each block carries a small header (MPI_BSEND_OVERHEAD).
 */
#include <string.h>

#include "ibex_p2p_api.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

typedef struct bsend_block {
    size_t size; /* bytes of this block, header included */
    int in_use;
    int pad;
} bsend_block_t;

static char *bsend_buf;
static size_t bsend_size;

_Static_assert(sizeof(bsend_block_t) <= MPI_BSEND_OVERHEAD, "bsend header too big");

#define BLOCK_HDR   MPI_BSEND_OVERHEAD
#define BLOCK_ALIGN 16

static bsend_block_t *block_at(size_t off)
{
    return (bsend_block_t *)(bsend_buf + off);
}

/* Joins free neighbours so space freed in any order can be reused. */
static void bsend_coalesce(void)
{
    size_t off = 0;
    while (off < bsend_size) {
        bsend_block_t *b = block_at(off);
        while (!b->in_use && off + b->size < bsend_size && !block_at(off + b->size)->in_use)
            b->size += block_at(off + b->size)->size;
        off += b->size;
    }
}

static void *bsend_alloc(size_t bytes)
{
    size_t need = (BLOCK_HDR + bytes + BLOCK_ALIGN - 1) & ~(size_t)(BLOCK_ALIGN - 1);
    bsend_coalesce();
    for (size_t off = 0; bsend_buf && off < bsend_size; off += block_at(off)->size) {
        bsend_block_t *b = block_at(off);
        if (b->in_use || b->size < need)
            continue;
        if (b->size - need >= BLOCK_HDR + BLOCK_ALIGN) {
            bsend_block_t *rest = block_at(off + need);
            rest->size = b->size - need;
            rest->in_use = 0;
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
    b->in_use = 0;
}

static bool bsend_busy(void)
{
    for (size_t off = 0; bsend_buf && off < bsend_size; off += block_at(off)->size)
        if (block_at(off)->in_use)
            return true;
    return false;
}

int ibex_p2p_bsend_start(const char *call, ibex_req_t *req)
{
    void *space = bsend_alloc(req->bytes);
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
                              "no room for %zu bytes in the attached buffer (%zu bytes; attach "
                              "a larger one with MPI_Buffer_attach)",
                              bytes, bsend_size);
    }
    ibex_dt_pack(req->buf, req->count, req->dt, 0, space, req->bytes);
    /* The copy travels as bytes; the user request is already complete. */
    ibex_req_t *inner;
    ibex_dt_t *byte_dt = ibex_dt_get(MPI_BYTE);
    ibex_p2p_isend(space, (int)req->bytes, byte_dt, req->peer, req->tag, req->comm, req->coll,
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

int PMPI_Buffer_attach(void *buffer, int size)
{
    IBEX_ENTER(Buffer_attach);
    if (bsend_buf)
        return ibex_mpi_error(NULL, MPI_ERR_BUFFER, call,
                              "a buffer is already attached (detach it first)");
    if (size < 0 || (!buffer && size > 0))
        return ibex_mpi_error(NULL, MPI_ERR_BUFFER, call, "invalid buffer %p of size %d", buffer,
                              size);
    size_t usable = (size_t)size & ~(size_t)(BLOCK_ALIGN - 1);
    if (usable < BLOCK_HDR + BLOCK_ALIGN)
        usable = 0;
    bsend_buf = buffer;
    bsend_size = usable;
    if (usable) {
        block_at(0)->size = usable;
        block_at(0)->in_use = 0;
    }
    return MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    IBEX_ENTER(Buffer_detach);
    if (!buffer_addr || !size)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "NULL argument");
    /* Detach blocks until every buffered message has been transmitted. */
    int idle = 0;
    while (bsend_busy())
        ibex_wait_step(&idle);
    *(void **)buffer_addr = bsend_buf;
    *size = (int)bsend_size;
    bsend_buf = NULL;
    bsend_size = 0;
    return MPI_SUCCESS;
}

/* MPI 4.1: every message buffered so far has left the buffer (the buffer stays attached). */
int PMPI_Buffer_flush(void)
{
    IBEX_ENTER(Buffer_flush);
    int idle = 0;
    while (bsend_busy())
        ibex_wait_step(&idle);
    return MPI_SUCCESS;
}

/* The flush is done at the call (as MPI_Buffer_flush), and the request is complete. */
int PMPI_Buffer_iflush(MPI_Request *request)
{
    IBEX_ENTER(Buffer_iflush);
    IBEX_ARGS(Buffer_iflush, request);
    int idle = 0;
    while (bsend_busy())
        ibex_wait_step(&idle);
    return ibex_p2p_req_done(ibex_comm_self, call, request);
}

IBEX_MPI_ALIASES(p2p_bsend)
