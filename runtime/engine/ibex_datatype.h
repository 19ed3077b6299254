/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datatypes (runtime/engine/datatype.c, dt_create.c, dt_pack.c).
 *
 * A datatype is described, once committed, by a flat list of (displacement, length) blocks for
 * one element plus its lb / extent; count elements repeat it every extent bytes. Packing and
 * unpacking work on any byte range of the packed stream (offset, len), so the protocols can
 * move a non-contiguous message in fragments without packing it whole.
 */
#ifndef IBEX_DATATYPE_H
#define IBEX_DATATYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>
#include <sys/types.h>

#include <mpi.h>

#include "ibex_handle.h"
#include "ibex_status.h"

typedef struct ibex_dt_block {
    ptrdiff_t disp; /* from the element's start (buffer + i * extent) */
    size_t len;     /* bytes */
} ibex_dt_block_t;

typedef struct ibex_dt {
    int handle;
    int refcount;
    size_t size;          /* bytes of data in one element */
    ptrdiff_t lb, extent; /* MPI lower bound and extent */
    ptrdiff_t true_lb, true_extent;
    bool predefined;
    bool committed;
    bool contiguous; /* one element is size bytes at buf + true_lb, and extent == size */
    int nblocks;     /* flattened layout of one element */
    ibex_dt_block_t *blocks;
    int basic_type;    /* predefined type of every basic element, or -1 if mixed */
    size_t basic_size; /* size of that basic element, for Get_elements */
    char name[MPI_MAX_OBJECT_NAME];
    /* private to the datatype files (dt_priv.h): block offsets, element runs, the op's base
     * type, alignment, sticky bounds and the construction record */
    void *priv;
} ibex_dt_t;

/* The datatype handle table behind ibex_dt_get. */
extern ibex_handle_table_t ibex_dt_handles;
/* The datatype of a handle, or NULL if it is not a live datatype. Inline: an 8-byte
 * collective looked its type up five times through a call (98 instructions of its 1,150). */
static inline ibex_dt_t *ibex_dt_get(MPI_Datatype handle)
{
    return (ibex_dt_t *)ibex_handle_get(&ibex_dt_handles, handle);
}

struct ibex_comm;
/* Checks a datatype handle at the MPI boundary (live, and committed when need_commit); raises
 * MPI_ERR_TYPE through comm's error handler (comm may be NULL) and returns the class. */
int ibex_dt_lookup_on(struct ibex_comm *comm, MPI_Datatype handle, const char *call,
                      bool need_commit, ibex_dt_t **dt_p);

/* True when count elements are one dense run of count * size bytes starting at buf + true_lb. */
static inline bool ibex_dt_is_contig(const ibex_dt_t *dt, MPI_Count count)
{
    return dt->contiguous || (count == 1 && dt->nblocks <= 1);
}

/* Copies bytes [offset, offset + len) of the packed stream of (buf, count, dt) to out.
 * Returns the bytes copied (less than len only at the end of the stream). */
size_t ibex_dt_pack(const void *buf, MPI_Count count, const ibex_dt_t *dt, size_t offset, void *out,
                    size_t len);
/* A window of a non-contiguous buffer for a transport's send_fill (ibex_tl_fill_cb_t): ibex_dt_fill
 * packs the len bytes of the packed stream from offset into the transport's buffer. */
typedef struct ibex_dt_fill {
    const void *buf;
    MPI_Count count;
    const ibex_dt_t *dt;
    size_t offset;
} ibex_dt_fill_t;
void ibex_dt_fill(void *dst, size_t len, void *ctx);
/* Copies len bytes of packed stream from in to stream position offset of (buf, count, dt). */
size_t ibex_dt_unpack(void *buf, MPI_Count count, const ibex_dt_t *dt, size_t offset,
                      const void *in, size_t len);
/* Bytes [offset, offset + len) of the stream of (buf, count, dt) as at most max pieces in
 * stream order (adjacent blocks merged), for transports that move non-contiguous data without
 * a pack. Returns the number of pieces, or -1 when more than max are needed. */
int ibex_dt_iov(void *buf, MPI_Count count, const ibex_dt_t *dt, size_t offset, size_t len,
                struct iovec *iov, int max);
/* The predefined type a type is built of, for reductions and accumulates (MPI_DOUBLE_INT for
 * a vector of it), or -1 when it mixes types. */
int ibex_dt_op_type(const ibex_dt_t *dt);
/* Number of basic elements in `bytes` of packed data, or MPI_UNDEFINED if not whole. */
MPI_Count ibex_dt_elements(const ibex_dt_t *dt, MPI_Count bytes);

#endif
