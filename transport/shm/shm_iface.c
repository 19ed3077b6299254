/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shm transport instance: opening (our receive segment), the published address, the progress
 * poll over the incoming rings, and the component table.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibex_config.h"
#include "ibex_log.h"
#include "shm.h"

/* The IBEX_SHM_* tunables, filled by ibex_config_load. */
static struct {
    int ring_slots;       /* slots per sender->receiver ring */
    long long slot_size;  /* bytes per slot, header included */
    long long stream_min; /* payload bytes from which ring copies stream, 0: never */
} shm_cfg;

static const ibex_cfg_entry_t shm_table[] = {
    {"SHM_RING_SLOTS", IBEX_CFG_INT, "64", NULL, &shm_cfg.ring_slots,
     "slots in each shared-memory ring (one ring per sender and receiver pair); a power of two"},
    {"SHM_SLOT_SIZE", IBEX_CFG_SIZE, "8k", NULL, &shm_cfg.slot_size,
     "bytes per shared-memory ring slot, header included; a multiple of 64"},
    {"SHM_STREAM_MIN", IBEX_CFG_SIZE, "4k", NULL, &shm_cfg.stream_min,
     "eager payloads of at least this many bytes go into the shared-memory ring with "
     "non-temporal stores (0: never); faster when sender and receiver share no cache"},
};
IBEX_CFG_MODULE(shm, "shm", IBEX_CFG_LAYER_TRANSPORT, shm_table);

/* Measured with tests/transport/bench_shm on the 2-vCPU development VM (see README.md). */
#define SHM_LATENCY_NS    250.0
#define SHM_BANDWIDTH_MBS 15000.0

static ibex_status_t shm_open_rx(ibex_tl_t *tl)
{
    /* Every other local rank may send to us without our ever sending to it: poll all of them
     * from the start. Our own ring joins the list when we connect to ourselves. */
    tl->rx = calloc((size_t)tl->local_size, sizeof(*tl->rx));
    tl->eps = calloc((size_t)tl->local_size, sizeof(*tl->eps));
    if (!tl->rx || !tl->eps)
        return IBEX_ERR_NO_MEMORY;
    for (int i = 0; i < tl->local_size; i++) {
        if (i == tl->local_rank)
            continue;
        void *ring = (char *)tl->seg + ibex_shm_seg_ring_offset(tl->hdr, i);
        ibex_shm_ring_rx_init(&tl->rx[tl->npoll].ring, ring, tl->nslots, tl->slot_size);
        tl->rx[tl->npoll++].src_rank = tl->local_peers[i];
    }
    return IBEX_OK;
}

static ibex_status_t shm_open_params(ibex_tl_t *tl, const ibex_tl_params_t *params)
{
    tl->recv_cb = params->recv_cb;
    tl->peer_failed_cb = params->peer_failed_cb;
    tl->cb_arg = params->cb_arg;
    tl->rank = params->rank;
    tl->local_rank = params->local_rank;
    tl->local_size = params->local_size;
    tl->memfd = -1;
    tl->nslots = (uint32_t)shm_cfg.ring_slots;
    tl->slot_size = (size_t)shm_cfg.slot_size;
    tl->stream_min = shm_cfg.stream_min > 0 ? (size_t)shm_cfg.stream_min : (size_t)SIZE_MAX;
    if (ibex_shm_ring_check(tl->nslots, tl->slot_size) != IBEX_OK)
        return IBEX_ERR_INVALID;
    if (params->local_size < 1 || !params->local_peers || params->local_rank < 0 ||
        params->local_rank >= params->local_size ||
        params->local_peers[params->local_rank] != params->rank) {
        ibex_error(TL, "shm: local rank %d of %d does not match the local peer list",
                   params->local_rank, params->local_size);
        return IBEX_ERR_INVALID;
    }
    for (int i = 1; i < params->local_size; i++) {
        if (params->local_peers[i] <= params->local_peers[i - 1]) {
            ibex_error(TL, "shm: the local peer list is not in ascending rank order");
            return IBEX_ERR_INVALID;
        }
    }
    tl->local_peers = malloc((size_t)tl->local_size * sizeof(int));
    if (!tl->local_peers)
        return IBEX_ERR_NO_MEMORY;
    memcpy(tl->local_peers, params->local_peers, (size_t)tl->local_size * sizeof(int));
    return IBEX_OK;
}

static void shm_fill_caps(const ibex_tl_t *tl, ibex_tl_caps_t *caps)
{
    size_t max_data = tl->slot_size - IBEX_SHM_SLOT_HDR;
    *caps = (ibex_tl_caps_t){
        .flags = IBEX_TL_CAP_SEND | IBEX_TL_CAP_INLINE |
                 (tl->cma_ok ? IBEX_TL_CAP_PUT | IBEX_TL_CAP_GET | IBEX_TL_CAP_CPU_RMA : 0) |
                 (tl->cma_ok ? IBEX_TL_CAP_RMA_IOV : 0), /* shm_cma.c batches at IOV_MAX */
        .max_inline = max_data, /* send copies into the ring: buffers are free on return */
        .max_eager = max_data,
        .max_rma = (size_t)1 << 30,
        .rkey_size = 0,
        .addr_size = sizeof(ibex_shm_addr_t),
        /* Two copies through a ring beat RTS + process_vm_readv + FIN up to a slot, so
         * rendezvous starts where the ring ends. */
        .eager_limit_hint = max_data,
        .latency_ns = SHM_LATENCY_NS,
        .bandwidth_mbs = SHM_BANDWIDTH_MBS,
        .max_iov = 1 << 20,
    };
}

static void shm_close(ibex_tl_t *tl)
{
    if (!tl)
        return;
    for (int i = 0; tl->eps && i < tl->local_size; i++) {
        if (tl->eps[i]) {
            tl->eps[i]->refs = 1;
            ibex_shm_ep_destroy(tl->eps[i]);
        }
    }
    ibex_shm_seg_destroy(tl);
    free(tl->eps);
    free(tl->rx);
    free(tl->local_peers);
    free(tl);
}

static ibex_status_t shm_open(const ibex_tl_params_t *params, ibex_tl_t **tl_p,
                              ibex_tl_caps_t *caps_p)
{
    ibex_tl_t *tl = calloc(1, sizeof(*tl));
    if (!tl)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t status = shm_open_params(tl, params);
    if (status == IBEX_OK)
        status = ibex_shm_seg_create(tl);
    if (status == IBEX_OK)
        status = shm_open_rx(tl);
    if (status != IBEX_OK)
        goto err_close;
    tl->cma_ok = ibex_shm_cma_probe();
    if (!tl->cma_ok)
        ibex_warn(TL, "shm: process_vm_readv does not work here; rendezvous cannot use shm");
    shm_fill_caps(tl, caps_p);
    ibex_debug(TL, "shm: %d local ranks, rings of %u x %zu bytes, memfd %d", tl->local_size,
               tl->nslots, tl->slot_size, tl->memfd);
    *tl_p = tl;
    return IBEX_OK;

err_close:
    shm_close(tl);
    return status;
}

static ibex_status_t shm_addr_pack(ibex_tl_t *tl, void *buf, size_t *len_p)
{
    ibex_shm_addr_t addr = {
        .magic = IBEX_SHM_ADDR_MAGIC,
        .pid = (int32_t)getpid(),
        .fd = tl->memfd,
        .seg_size = tl->hdr->seg_size,
        .cookie = tl->cookie,
    };
    memcpy(buf, &addr, sizeof(addr));
    *len_p = sizeof(addr);
    return IBEX_OK;
}

static bool shm_reachable(ibex_tl_t *tl, int peer)
{
    return ibex_shm_local_index(tl, peer) >= 0;
}

/* A slot longer than the ring's slots: the peer (or something writing its segment) is broken,
 * and reading on would run past the ring. The message is dropped and the peer failed. */
static void shm_slot_garbage(ibex_tl_t *tl, const ibex_shm_rx_t *rx, uint32_t len)
{
    ibex_error(TL,
               "shm: rank %d wrote a %u-byte message into a ring of %zu-byte slots: closing "
               "the connection to it",
               rx->src_rank, len, rx->ring.slot_size);
    if (tl->peer_failed_cb)
        tl->peer_failed_cb(tl->cb_arg, rx->src_rank, IBEX_ERR_REMOTE);
}

/* Delivers up to a batch from one ring; a callback's IBEX_ERR_AGAIN leaves the message (and so
 * everything behind it) in place for a later call. */
static inline int shm_poll_ring(ibex_tl_t *tl, ibex_shm_rx_t *rx)
{
    int events = 0;
    const ibex_shm_slot_t *slot;
    while (events < IBEX_SHM_POLL_BATCH && (slot = ibex_shm_ring_peek(&rx->ring)) != NULL) {
        if (__builtin_expect(!ibex_shm_slot_len_ok(slot->len, rx->ring.slot_size), 0)) {
            shm_slot_garbage(tl, rx, slot->len);
            ibex_shm_ring_pop(&rx->ring);
            continue;
        }
        /* ask for every line at once: a streamed payload comes from memory, not a cache */
        for (uint32_t off = IBEX_SHM_CACHE_LINE; off < slot->len; off += IBEX_SHM_CACHE_LINE)
            __builtin_prefetch(slot->data + off, 0, 3);
        if (tl->recv_cb(tl->cb_arg, rx->src_rank, slot->data, slot->len) == IBEX_ERR_AGAIN)
            break;
        ibex_shm_ring_pop(&rx->ring);
        events++;
    }
    return events;
}

static int shm_progress(ibex_tl_t *tl)
{
    int n = tl->npoll, events = 0;
    if (tl->in_progress || n == 0)
        return 0;
    tl->in_progress = true;
    int start = tl->rr;
    tl->rr = start + 1 < n ? start + 1 : 0;
    for (int i = 0, idx = start; i < n; i++, idx = idx + 1 < n ? idx + 1 : 0)
        events += shm_poll_ring(tl, &tl->rx[idx]);
    tl->in_progress = false;
    return events;
}

static void shm_info(void *out_file)
{
    FILE *out = out_file;
    size_t slot = (size_t)shm_cfg.slot_size;
    int slots = shm_cfg.ring_slots;
    fprintf(out,
            "shm: eager rings of %d slots x %zu bytes (%zu KiB per sender and receiver "
            "pair), max eager %zu bytes\n",
            slots, slot, (size_t)slots * slot / 1024, slot - IBEX_SHM_SLOT_HDR);
    fprintf(out, "shm: segments in memfd (nothing in /dev/shm), mapped via /proc/<pid>/fd\n");
    fprintf(out, "shm: rendezvous by cross-memory attach (process_vm_readv / writev): %s\n",
            ibex_shm_cma_probe() ? "available" : "NOT available");
}

/* After self, before any network: every peer on this node. */
static ibex_tl_component_t shm_component = {
    .name = "shm",
    .priority = 20,
    .flags = IBEX_TL_COMP_NODE_MEMORY,
    .ops =
        {
            .open = shm_open,
            .close = shm_close,
            .addr_pack = shm_addr_pack,
            .reachable = shm_reachable,
            .ep_create = ibex_shm_ep_create,
            .ep_destroy = ibex_shm_ep_destroy,
            .send = ibex_shm_ep_send,
            .put = ibex_shm_cma_put,
            .get = ibex_shm_cma_get,
            .progress = shm_progress,
            .info = shm_info,
        },
};
IBEX_TL_REGISTER(shm_component);
