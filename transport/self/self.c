/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The self transport: a process sending to itself. send() copies the message into a private
 * circular buffer and returns; progress() hands the queued messages to the receive callback in
 * order. Delivery never happens inside send(), because the runtime may call send() while it holds
 * locks or walks its queues. put / get are memcpy between two addresses of this process.
 *
 * The buffer is a byte ring of records { uint64_t len, data padded to 8 }; a record that would
 * cross the end is preceded by a wrap marker and starts again at offset 0. A full buffer makes
 * send() return IBEX_ERR_AGAIN, the same back-pressure as the shm rings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_log.h"
#include "transport.h"

#define SELF_BUF_BYTES  ((size_t)1 << 20) /* power of two */
#define SELF_MAX_EAGER  ((size_t)64 << 10)
#define SELF_WRAP       UINT64_MAX
#define SELF_ALIGN8(n)  (((n) + 7) & ~(size_t)7)
#define SELF_POLL_BATCH 64

struct ibex_tl {
    ibex_tl_recv_cb_t recv_cb;
    void *cb_arg;
    int rank;
    bool in_progress;
    unsigned char *buf;
    uint64_t head; /* bytes ever queued, wrap padding included */
    uint64_t tail; /* bytes ever released */
    struct ibex_tl_ep *ep;
};

struct ibex_tl_ep {
    ibex_tl_t *tl;
    int refs;
};

static ibex_status_t self_open(const ibex_tl_params_t *params, ibex_tl_t **tl_p,
                               ibex_tl_caps_t *caps_p)
{
    ibex_tl_t *tl = calloc(1, sizeof(*tl));
    if (!tl)
        return IBEX_ERR_NO_MEMORY;
    tl->buf = aligned_alloc(64, SELF_BUF_BYTES);
    if (!tl->buf) {
        free(tl);
        return IBEX_ERR_NO_MEMORY;
    }
    tl->recv_cb = params->recv_cb;
    tl->cb_arg = params->cb_arg;
    tl->rank = params->rank;
    *caps_p = (ibex_tl_caps_t){
        .flags = IBEX_TL_CAP_SEND | IBEX_TL_CAP_PUT | IBEX_TL_CAP_GET | IBEX_TL_CAP_INLINE,
        .max_inline = SELF_MAX_EAGER,
        .max_eager = SELF_MAX_EAGER,
        .max_rma = SIZE_MAX,
        .addr_size = 0,
        /* Eager costs two copies, rendezvous one copy plus two queued control messages. */
        .eager_limit_hint = 16 << 10,
        .latency_ns = 50.0,
        .bandwidth_mbs = 20000.0,
    };
    *tl_p = tl;
    return IBEX_OK;
}

static void self_close(ibex_tl_t *tl)
{
    if (!tl)
        return;
    free(tl->ep);
    free(tl->buf);
    free(tl);
}

static ibex_status_t self_addr_pack(ibex_tl_t *tl, void *buf, size_t *len_p)
{
    *len_p = 0;
    return IBEX_OK;
}

static bool self_reachable(ibex_tl_t *tl, int peer)
{
    return peer == tl->rank;
}

static ibex_status_t self_ep_create(ibex_tl_t *tl, int peer, const void *addr, size_t addr_len,
                                    ibex_tl_ep_t **ep_p)
{
    if (peer != tl->rank) {
        ibex_error(TL, "self: rank %d asked to connect to rank %d", tl->rank, peer);
        return IBEX_ERR_UNREACHABLE;
    }
    if (!tl->ep) {
        tl->ep = calloc(1, sizeof(*tl->ep));
        if (!tl->ep)
            return IBEX_ERR_NO_MEMORY;
        tl->ep->tl = tl;
    }
    tl->ep->refs++;
    *ep_p = tl->ep;
    return IBEX_OK;
}

static void self_ep_destroy(ibex_tl_ep_t *ep)
{
    if (ep && --ep->refs == 0) {
        ep->tl->ep = NULL;
        free(ep);
    }
}

static ibex_status_t self_send(ibex_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                               const void *payload, size_t len)
{
    ibex_tl_t *tl = ep->tl;
    size_t data = hdr_len + len;
    if (data > SELF_MAX_EAGER) {
        ibex_error(TL, "self: send of %zu bytes exceeds max_eager %zu", data, SELF_MAX_EAGER);
        return IBEX_ERR_INVALID;
    }
    size_t need = 8 + SELF_ALIGN8(data);
    size_t off = tl->head & (SELF_BUF_BYTES - 1), to_end = SELF_BUF_BYTES - off;
    size_t total = need <= to_end ? need : to_end + need;
    if (SELF_BUF_BYTES - (tl->head - tl->tail) < total)
        return IBEX_ERR_AGAIN;
    if (need > to_end) {
        memcpy(tl->buf + off, &(uint64_t){SELF_WRAP}, 8);
        tl->head += to_end;
        off = 0;
    }
    memcpy(tl->buf + off, &(uint64_t){data}, 8);
    memcpy(tl->buf + off + 8, hdr, hdr_len);
    if (len)
        memcpy(tl->buf + off + 8 + hdr_len, payload, len);
    tl->head += need;
    return IBEX_OK;
}

/* Delivers the records queued before this call (not those the callbacks queue now), in order. */
static int self_progress(ibex_tl_t *tl)
{
    int events = 0;
    if (tl->in_progress || tl->tail == tl->head)
        return 0;
    tl->in_progress = true;
    uint64_t end = tl->head;
    while (tl->tail != end && events < SELF_POLL_BATCH) {
        size_t off = tl->tail & (SELF_BUF_BYTES - 1);
        uint64_t len;
        memcpy(&len, tl->buf + off, 8);
        if (len == SELF_WRAP) {
            tl->tail += SELF_BUF_BYTES - off;
            continue;
        }
        if (tl->recv_cb(tl->cb_arg, tl->rank, tl->buf + off + 8, len) == IBEX_ERR_AGAIN)
            break;
        tl->tail += 8 + SELF_ALIGN8(len);
        events++;
    }
    tl->in_progress = false;
    return events;
}

static ibex_status_t self_put(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc)
{
    memmove((void *)(uintptr_t)desc->remote, desc->local, desc->len);
    return IBEX_OK;
}

static ibex_status_t self_get(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc)
{
    memmove(desc->local, (const void *)(uintptr_t)desc->remote, desc->len);
    return IBEX_OK;
}

static void self_info(void *out_file)
{
    fprintf(out_file,
            "self: loopback queue of %zu KiB, max eager %zu bytes, put / get by "
            "memcpy\n",
            SELF_BUF_BYTES >> 10, SELF_MAX_EAGER);
}

/* First: a message to oneself never leaves the process. */
static ibex_tl_component_t self_component = {
    .name = "self",
    .priority = 10,
    .flags = IBEX_TL_COMP_LOOPBACK,
    .ops =
        {
            .open = self_open,
            .close = self_close,
            .addr_pack = self_addr_pack,
            .reachable = self_reachable,
            .ep_create = self_ep_create,
            .ep_destroy = self_ep_destroy,
            .send = self_send,
            .put = self_put,
            .get = self_get,
            .progress = self_progress,
            .info = self_info,
        },
};
IBEX_TL_REGISTER(self_component);
