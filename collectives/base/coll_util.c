/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the algorithms: temporary buffers, local copies, reductions. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "ibex_datatype.h"
#include "ibex_runtime.h"
#include "ibex_log.h"
#include "ibex_p2p.h"

#define COPY_CHUNK (64 * 1024)

void *ibex_coll_tmp_alloc(MPI_Datatype dt, int count, void **base_p)
{
    const ibex_dt_t *d = ibex_dt_get(dt);
    if (!d)
        return NULL;
    size_t span = count > 0 ? (size_t)d->true_extent + (size_t)(count - 1) * (size_t)d->extent : 0;
    char *base = malloc(span ? span : 1);
    if (!base) {
        ibex_error(COLL, "out of memory for a %zu-byte temporary buffer", span);
        return NULL;
    }
    *base_p = base;
    return base - d->true_lb;
}

void *ibex_coll_block(const void *buf, MPI_Datatype dt, size_t index)
{
    const ibex_dt_t *d = ibex_dt_get(dt);
    return (char *)buf + (ptrdiff_t)index * d->extent;
}

/* Non-contiguous on either side: pack a chunk, unpack it, until the sender's data ends. */
static ibex_status_t copy_packed(const void *sbuf, int scount, const ibex_dt_t *s, void *rbuf,
                                 int rcount, const ibex_dt_t *r, size_t bytes)
{
    char *chunk = malloc(bytes < COPY_CHUNK ? (bytes ? bytes : 1) : COPY_CHUNK);
    if (!chunk)
        return IBEX_ERR_NO_MEMORY;
    for (size_t off = 0; off < bytes;) {
        size_t len = bytes - off < COPY_CHUNK ? bytes - off : COPY_CHUNK;
        len = ibex_dt_pack(sbuf, scount, s, off, chunk, len);
        ibex_dt_unpack(rbuf, rcount, r, off, chunk, len);
        off += len;
        if (len == 0)
            break;
    }
    free(chunk);
    return IBEX_OK;
}

ibex_status_t ibex_coll_copy(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                             MPI_Datatype rdt)
{
    const ibex_dt_t *s = ibex_dt_get(sdt), *r = ibex_dt_get(rdt);
    size_t sbytes = (size_t)scount * s->size, rbytes = (size_t)rcount * r->size;
    if (sbytes > rbytes)
        return IBEX_ERR_TRUNCATE;
    /* the same buffer is the same data, unless it is MPI_BOTTOM (NULL): there the types'
     * absolute addresses say where each side is (Alltoallw's own block at MPI_BOTTOM) */
    if (sbytes == 0 || (sbuf == rbuf && (sbuf || (sdt == rdt && scount == rcount))))
        return IBEX_OK;
    if (ibex_dt_is_contig(s, scount) && ibex_dt_is_contig(r, rcount)) {
        memcpy((char *)rbuf + r->true_lb, (const char *)sbuf + s->true_lb, sbytes);
        return IBEX_OK;
    }
    return copy_packed(sbuf, scount, s, rbuf, rcount, r, sbytes);
}

ibex_status_t ibex_coll_apply(const ibex_op_t *op, const void *in, void *inout, int count,
                              MPI_Datatype dt)
{
    int rc = ibex_op_apply(op, in, inout, count, dt);
    if (rc != MPI_SUCCESS) {
        ibex_error(COLL, "reduction op 0x%x failed on datatype 0x%x (class %d)", op->handle, dt,
                   rc);
        return IBEX_ERR_INVALID;
    }
    return IBEX_OK;
}

void *ibex_coll_disp(const void *buf, MPI_Datatype dt, int displ)
{
    return (char *)buf + (ptrdiff_t)displ * ibex_dt_get(dt)->extent;
}

void *ibex_coll_vblock(const void *buf, MPI_Datatype dt, const MPI_Datatype *dts, const int *displs,
                       int i, MPI_Datatype *dt_p)
{
    if (!dts) {
        *dt_p = dt;
        return ibex_coll_disp(buf, dt, displs[i]);
    }
    *dt_p = dts[i];
    return (char *)buf + displs[i];
}

/* ---- batches of non-blocking sends and receives ---- */

ibex_status_t ibex_coll_batch_init(ibex_coll_batch_t *b, int cap, ibex_comm_t *comm, int tag)
{
    *b = (ibex_coll_batch_t){.comm = comm, .tag = tag, .cap = cap};
    b->reqs = malloc((size_t)(cap > 0 ? cap : 1) * sizeof(*b->reqs));
    return b->reqs ? IBEX_OK : IBEX_ERR_NO_MEMORY;
}

static void batch_post(ibex_coll_batch_t *b, bool send, void *buf, int count, MPI_Datatype dt,
                       int peer)
{
    if (b->st != IBEX_OK)
        return;
    ibex_assert(b->n < b->cap);
    ibex_dt_t *d = ibex_dt_get(dt);
    b->st = send ? ibex_p2p_isend(buf, count, d, peer, b->tag, b->comm, true, &b->reqs[b->n])
                 : ibex_p2p_irecv(buf, count, d, peer, b->tag, b->comm, true, &b->reqs[b->n]);
    b->n += b->st == IBEX_OK;
}

void ibex_coll_batch_send(ibex_coll_batch_t *b, const void *buf, int count, MPI_Datatype dt,
                          int peer)
{
    batch_post(b, true, (void *)buf, count, dt, peer);
}

void ibex_coll_batch_recv(ibex_coll_batch_t *b, void *buf, int count, MPI_Datatype dt, int peer)
{
    batch_post(b, false, buf, count, dt, peer);
}

ibex_status_t ibex_coll_batch_wait(ibex_coll_batch_t *b)
{
    ibex_status_t st = b->n > 0 ? ibex_p2p_waitall(b->n, b->reqs) : IBEX_OK;
    free(b->reqs);
    b->reqs = NULL;
    b->n = 0;
    return b->st != IBEX_OK ? b->st : st;
}

ibex_status_t ibex_coll_rsb_as_rs(const ibex_coll_args_t *args, ibex_coll_fn_t fn)
{
    int size = args->comm->size;
    int *counts = malloc((size_t)size * sizeof(*counts));
    if (!counts)
        return IBEX_ERR_NO_MEMORY;
    for (int i = 0; i < size; i++)
        counts[i] = args->rcount;
    ibex_coll_args_t a = *args;
    a.rcounts = counts;
    ibex_status_t st = fn(&a);
    free(counts);
    return st;
}
