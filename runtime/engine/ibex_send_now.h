/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The request-less eager send (ibex_proto_send_now, proto_send.c), inline for the MPI send
 * calls: on the 8-byte path its call, prologue and epilogue were about 15 of its 83
 * instructions (callgrind). Same contract: IBEX_OK when the transport took the whole message,
 * IBEX_ERR_AGAIN having done nothing otherwise (the caller then takes the request path).
 */
#ifndef IBEX_SEND_NOW_H
#define IBEX_SEND_NOW_H

#include "ibex_engine.h"
#include "ibex_log.h"

/* A non-contiguous eager payload, packed into pk (the caller's frame, or a buffer it frees). */
enum { IBEX_EAGER_STACK_PACK = 512 };
typedef struct ibex_eager_pack {
    char stack[IBEX_EAGER_STACK_PACK];
    char *owned; /* freed by the caller after the send */
} ibex_eager_pack_t;
const void *ibex_proto_eager_pack(const void *buf, MPI_Count count, ibex_dt_t *dt, size_t bytes,
                                  ibex_eager_pack_t *pk);

/* The eager payload in place (contiguous: a test), else packed. */
static inline const void *ibex_proto_eager_payload(const void *buf, MPI_Count count, ibex_dt_t *dt,
                                                   size_t bytes, ibex_eager_pack_t *pk)
{
    if (ibex_dt_is_contig(dt, count))
        return (const char *)buf + dt->true_lb;
    return ibex_proto_eager_pack(buf, count, dt, bytes, pk);
}

/* The eager message h of a payload that is not contiguous (or a contiguous one at address 0,
 * refused as before): packed, sent, the pack buffer freed; IBEX_ERR_NO_MEMORY when the pack
 * buffer cannot be had. */
ibex_status_t ibex_proto_send_now_packed(ibex_ep_t *ep, const ibex_match_hdr_t *h, const void *buf,
                                         MPI_Count count, ibex_dt_t *dt, size_t bytes);

static inline __attribute__((always_inline)) ibex_status_t
ibex_proto_send_now_inline(const void *buf, MPI_Count count, ibex_dt_t *dt, int dest, int tag,
                           ibex_comm_t *comm)
{
    if (dest < 0)
        return IBEX_ERR_AGAIN;
    ibex_ep_t *ep = &ibex_ep_table[ibex_comm_world_rank(comm, dest)];
    size_t bytes = (size_t)count * dt->size;
    if (!ep->connected || ep->failed || ibex_ep_has_backlog(ep) || bytes > ep->tl->eager_limit)
        return IBEX_ERR_AGAIN;
    ibex_match_hdr_t h = {.type = IBEX_HDR_EAGER,
                          .ctx = comm->context_id,
                          .src = comm->rank,
                          .tag = tag,
                          .seq = ep->send_seq};
    /* a contiguous payload goes from the user's buffer; only a packed one needs the pack
     * buffer (out of line: on the stack frame here its pointer was stored, reloaded and
     * tested on every send, callgrind, issue 18) */
    const void *payload = bytes ? (const char *)buf + dt->true_lb : NULL;
    ibex_status_t st = __builtin_expect(ibex_dt_is_contig(dt, count) && (payload || !bytes), 1)
                           ? ibex_ep_tl_send(ep, &h, sizeof(h), payload, bytes)
                           : ibex_proto_send_now_packed(ep, &h, buf, count, dt, bytes);
    if (st != IBEX_OK)
        return IBEX_ERR_AGAIN; /* the request path retries, and reports what fails there */
    ep->send_seq++;
    ibex_engine_stats.eager++; /* MPI_T: ibex_eager_sends */
    ibex_trace(PROTO, "send %zu bytes to rank %d tag %d seq %u eager, no request", bytes,
               ep->world_rank, tag, h.seq);
    return IBEX_OK;
}

#endif
