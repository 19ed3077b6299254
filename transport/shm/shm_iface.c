/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shm transport instance: opening (our segment), the published address, the tunables and the
 * component table (the receive path is shm_rx.c, sending shm_ep.c).
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
    int ring_slots;       /* slots per fast box */
    long long slot_size;  /* bytes per slot and fragment, header included */
    long long stream_min; /* payload bytes from which copies stream, 0: never */
    long long slot_skew;  /* bytes between slots beyond slot_size */
    int tail_every;       /* box slots a receiver consumes before it publishes its tail */
    int prefetch_next;    /* prefetch the next box slot while handling one */
    long long own_next;   /* bytes of the next slot a sender takes ownership of after a send */
    long long ahead;      /* bytes of the expected slot an idle receiver prefetches */
    int boxes;            /* fast boxes per receiver */
    int box_after;        /* queued messages to a peer before asking it for a box */
    int frags;            /* fragments in each process's pool */
    int cells;            /* cells of each receiver's shared queue */
} shm_cfg;

static const ibex_cfg_entry_t shm_table[] = {
    {"SHM_RING_SLOTS", IBEX_CFG_INT, "64", NULL, &shm_cfg.ring_slots,
     "slots in each shared-memory fast box (a receiver's ring for one of its most active "
     "senders); a power of two"},
    {"SHM_SLOT_SIZE", IBEX_CFG_SIZE, "16448", NULL, &shm_cfg.slot_size,
     "bytes per shared-memory box slot and pool fragment, header included (the largest eager "
     "message is 8 bytes less); a multiple of 64. 16 KiB + 64: a 16 KiB payload with its "
     "message header goes eager"},
    {"SHM_STREAM_MIN", IBEX_CFG_SIZE, "0", NULL, &shm_cfg.stream_min,
     "eager payloads of at least this many bytes go into shared memory with non-temporal "
     "stores (0: never, the default); can be faster when sender and receiver share no cache"},
    {"SHM_SLOT_SKEW", IBEX_CFG_SIZE, "64", NULL, &shm_cfg.slot_skew,
     "bytes between consecutive box slots and pool fragments beyond IBEX_SHM_SLOT_SIZE (a "
     "multiple of 64): one cache line keeps the slots' first lines out of one cache set (0: "
     "slots exactly IBEX_SHM_SLOT_SIZE apart, as before)"},
    {"SHM_TAIL_EVERY", IBEX_CFG_INT, "0", NULL, &shm_cfg.tail_every,
     "a receiver publishes how far it has read a fast box once per poll pass and at least every "
     "this many slots (0: half the box, the default; 1: after every message, as before)"},
    {"SHM_PREFETCH_NEXT", IBEX_CFG_INT, "1", NULL, &shm_cfg.prefetch_next,
     "1: a receiver prefetches a fast box's next slot while it handles the current one (0: no)"},
    {"SHM_OWN_NEXT", IBEX_CFG_SIZE, "4k", NULL, &shm_cfg.own_next,
     "after a message longer than one cache line, a sender asks for write ownership of as many "
     "lines of its fast box's next slot (beyond the first), up to this many bytes, so that the "
     "next message's stores need not wait for the receiver's copies to be invalidated (0: no; "
     "about 80 instructions a 256-byte message; quiet machine, 7 interleaved rounds: 512 B - "
     "2 KiB one way 10-15 % faster, 32-128 B within 0.03 us)"},
    {"SHM_PREFETCH_AHEAD", IBEX_CFG_SIZE, "0", NULL, &shm_cfg.ahead,
     "a receiver whose fast box is empty prefetches as many lines of the slot it expects next "
     "(beyond the first) as the last message filled, up to this many bytes, so that they travel "
     "with the sequence word rather than after it (0: no, the default)"},
    {"SHM_FAST_BOXES", IBEX_CFG_INT, "4", NULL, &shm_cfg.boxes,
     "fast boxes per rank: its first senders past IBEX_SHM_FAST_BOX_AFTER messages get one "
     "each, the others share its queue (0: every message through the queue)"},
    {"SHM_FAST_BOX_AFTER", IBEX_CFG_INT, "16", NULL, &shm_cfg.box_after,
     "messages a rank sends a peer through its shared queue before it asks for a fast box (when "
     "the node has more ranks than boxes; otherwise it takes one at once)"},
    {"SHM_FRAGS", IBEX_CFG_INT, "64", NULL, &shm_cfg.frags,
     "fragments of IBEX_SHM_SLOT_SIZE in each rank's pool, for its messages through the "
     "receivers' shared queues"},
    {"SHM_QUEUE_CELLS", IBEX_CFG_INT, "256", NULL, &shm_cfg.cells,
     "cells of each rank's shared receive queue (one per message in flight to it); a power of "
     "two"},
};
IBEX_CFG_MODULE(shm, "shm", IBEX_CFG_LAYER_TRANSPORT, shm_table);

/* Measured with tests/transport/bench_shm on the 2-vCPU development VM (see README.md). */
#define SHM_LATENCY_NS    250.0
#define SHM_BANDWIDTH_MBS 15000.0

static ibex_status_t shm_open_rx(ibex_tl_t *tl)
{
    tl->box = calloc(tl->nboxes ? tl->nboxes : 1, sizeof(*tl->box));
    tl->eps = calloc((size_t)tl->local_size, sizeof(*tl->eps));
    tl->peers = calloc((size_t)tl->local_size, sizeof(*tl->peers));
    if (!tl->box || !tl->eps || !tl->peers)
        return IBEX_ERR_NO_MEMORY;
    return IBEX_OK;
}

/* The counts a segment is made of: in range, the queue a power of two. */
static ibex_status_t shm_check_counts(const ibex_tl_t *tl)
{
    if (tl->ncells < 2 || (tl->ncells & (tl->ncells - 1)) != 0 || tl->ncells > (1u << 20) ||
        tl->nfrags < 1 || tl->nfrags > (1u << 20) || tl->nboxes > 1024 || shm_cfg.boxes < 0 ||
        shm_cfg.box_after < 0 || shm_cfg.slot_skew < 0 || shm_cfg.slot_skew > (1 << 20) ||
        shm_cfg.slot_skew % IBEX_SHM_CACHE_LINE != 0 || shm_cfg.tail_every < 0 ||
        shm_cfg.own_next < 0 || shm_cfg.own_next > (1 << 20) || shm_cfg.ahead < 0 ||
        shm_cfg.ahead > (1 << 20)) {
        ibex_error(TL,
                   "shm: IBEX_SHM_QUEUE_CELLS=%u (a power of two >= 2), IBEX_SHM_FRAGS=%u "
                   "(1 to 1m), IBEX_SHM_FAST_BOXES=%d (0 to 1024), IBEX_SHM_FAST_BOX_AFTER=%d "
                   "(>= 0), IBEX_SHM_SLOT_SKEW=%lld (a multiple of 64 up to 1m), "
                   "IBEX_SHM_TAIL_EVERY=%d (>= 0), IBEX_SHM_OWN_NEXT=%lld, "
                   "IBEX_SHM_PREFETCH_AHEAD=%lld (0 to 1m): one is out of range",
                   tl->ncells, tl->nfrags, shm_cfg.boxes, shm_cfg.box_after, shm_cfg.slot_skew,
                   shm_cfg.tail_every, shm_cfg.own_next, shm_cfg.ahead);
        return IBEX_ERR_INVALID;
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
    tl->slot_stride = tl->slot_size + (size_t)shm_cfg.slot_skew;
    tl->tail_every = (uint32_t)shm_cfg.tail_every;
    tl->prefetch_next = shm_cfg.prefetch_next != 0;
    tl->own_lines = shm_cfg.own_next > 0 ? (uint32_t)(shm_cfg.own_next / IBEX_SHM_CACHE_LINE) : 0;
    tl->ahead_lines = shm_cfg.ahead > 0 ? (uint32_t)(shm_cfg.ahead / IBEX_SHM_CACHE_LINE) : 0;
    tl->stream_min = shm_cfg.stream_min > 0 ? (size_t)shm_cfg.stream_min : (size_t)SIZE_MAX;
    tl->nboxes = (uint32_t)shm_cfg.boxes;
    tl->box_after = (uint32_t)shm_cfg.box_after;
    tl->nfrags = (uint32_t)shm_cfg.frags;
    tl->ncells = (uint32_t)shm_cfg.cells;
    if (ibex_shm_ring_check(tl->nslots, tl->slot_size) != IBEX_OK ||
        shm_check_counts(tl) != IBEX_OK)
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
        .flags = IBEX_TL_CAP_SEND | IBEX_TL_CAP_INLINE | IBEX_TL_CAP_SEND_FILL |
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
    for (int i = 0; tl->eps && i < tl->local_size; i++)
        ibex_shm_ep_free(tl->eps[i]);
    ibex_shm_rx_free(tl);
    ibex_shm_seg_destroy(tl);
    free(tl->eps);
    free(tl->peers);
    free(tl->box);
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
        status = shm_open_rx(tl);
    if (status == IBEX_OK)
        status = ibex_shm_seg_create(tl);
    if (status != IBEX_OK)
        goto err_close;
    tl->cma_ok = ibex_shm_cma_probe();
    if (!tl->cma_ok)
        ibex_warn(TL, "shm: process_vm_readv does not work here; rendezvous cannot use shm");
    shm_fill_caps(tl, caps_p);
    ibex_debug(TL,
               "shm: %d local ranks, a %llu-byte segment: %u fast boxes of %u x %zu bytes, a "
               "queue of %u cells, %u fragments; memfd %d",
               tl->local_size, (unsigned long long)tl->hdr->seg_size, tl->nboxes, tl->nslots,
               tl->slot_size, tl->ncells, tl->nfrags, tl->memfd);
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

static void shm_info(void *out_file)
{
    FILE *out = out_file;
    size_t slot = (size_t)shm_cfg.slot_size;
    fprintf(out,
            "shm: per rank %d fast boxes of %d x %zu bytes, a shared queue of %d cells, %d "
            "fragments of %zu bytes; max eager %zu bytes\n",
            shm_cfg.boxes, shm_cfg.ring_slots, slot, shm_cfg.cells, shm_cfg.frags, slot,
            slot - IBEX_SHM_SLOT_HDR);
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
            .send_fill = ibex_shm_ep_send_fill,
            .put = ibex_shm_cma_put,
            .get = ibex_shm_cma_get,
            .progress = ibex_shm_rx_progress,
            .info = shm_info,
        },
};
IBEX_TL_REGISTER(shm_component);
