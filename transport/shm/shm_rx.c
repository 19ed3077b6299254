/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive path of the shm transport: progress() reads the shared queue (fragments of senders
 * without a box, and box claims) and the fast boxes claimed so far. An empty poll is one load of
 * the queue's next cell plus one per claimed box (at most IBEX_SHM_FAST_BOXES), whatever the
 * number of local ranks.
 *
 * Order per sender: a sender uses the queue until its claim of a box, which it announces through
 * the queue after everything it queued before; we poll a box only once its claim is delivered.
 * A message the runtime refuses (IBEX_ERR_AGAIN) is held, by id, in its sender's held list, and
 * everything from that sender after it too (its box is not polled meanwhile); other senders go
 * on. A held fragment stays busy in its sender's pool, so a sender we hold back runs out of
 * fragments and sees IBEX_ERR_AGAIN: memory stays bounded.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "ibex_log.h"
#include "shm.h"

/* A message from a broken peer (or something writing our segment): dropped, the peer failed. */
static void shm_rx_garbage(ibex_tl_t *tl, int src_local, const char *what, uint64_t v)
{
    if (src_local < 0 || src_local >= tl->local_size) {
        ibex_error(TL, "shm: our queue holds an id 0x%llx of no local rank: dropped",
                   (unsigned long long)v);
        return;
    }
    int rank = tl->local_peers[src_local];
    ibex_error(TL, "shm: rank %d sent %s %llu: closing the connection to it", rank, what,
               (unsigned long long)v);
    if (tl->peer_failed_cb)
        tl->peer_failed_cb(tl->cb_arg, rank, IBEX_ERR_REMOTE);
}

/* Asks for the lines of a message beyond its first at once, before the callback: with streamed
 * payloads (IBEX_SHM_STREAM_MIN) every line, which comes from memory; otherwise the first
 * IBEX_SHM_PREFETCH_CACHED bytes only, which the callback's matching overlaps, the rest coming
 * behind the copy's own loads (and the hardware's prefetcher). Every line of a 16 KiB PIPE
 * fragment cost the receiver about 2,500 instructions before the copy began (callgrind,
 * issue 18: 128 KiB in 4 KiB fragments, 24,000 a message in the poll). */
static inline void shm_rx_prefetch(const ibex_tl_t *tl, const unsigned char *data, uint32_t len)
{
    uint32_t end = tl->stream_min != SIZE_MAX || len < IBEX_SHM_PREFETCH_CACHED
                       ? len
                       : IBEX_SHM_PREFETCH_CACHED;
    for (uint32_t off = IBEX_SHM_CACHE_LINE; off < end; off += IBEX_SHM_CACHE_LINE)
        __builtin_prefetch(data + off, 0, 3);
}

/* The sender's segment, mapped on its first fragment from the address it left in our table. */
static unsigned char *shm_rx_pool(ibex_tl_t *tl, int src)
{
    ibex_shm_peer_t *pr = &tl->peers[src];
    if (__builtin_expect(pr->pool != NULL, 1))
        return pr->pool;
    if (pr->pool_failed)
        return NULL;
    /* the held list is made with the first fragment, so that holding one never allocates */
    if (!pr->held && !(pr->held = malloc((tl->nfrags + 1) * sizeof(*pr->held)))) {
        ibex_error(TL, "shm: out of memory for the messages of rank %d: closing the connection",
                   tl->local_peers[src]);
        pr->pool_failed = true;
        if (tl->peer_failed_cb)
            tl->peer_failed_cb(tl->cb_arg, tl->local_peers[src], IBEX_ERR_NO_MEMORY);
        return NULL;
    }
    if (src == tl->local_rank)
        return pr->pool = tl->pool;
    const ibex_shm_addr_t *entry =
        ibex_shm_seg_at(tl->seg, tl->hdr->table_offset + (uint64_t)src * sizeof(*entry));
    uint64_t len = tl->hdr->seg_size - tl->hdr->pool_offset;
    if (__atomic_load_n(&entry->magic, __ATOMIC_ACQUIRE) != IBEX_SHM_ADDR_MAGIC) {
        pr->pool_failed = true;
        shm_rx_garbage(tl, src, "fragments before its address, first id of", src);
        return NULL;
    }
    ibex_shm_addr_t a = *entry;
    if (ibex_shm_seg_map_peer(tl, src, &a, -1, tl->hdr->pool_offset, len, &pr->pool) != IBEX_OK) {
        pr->pool_failed = true;
        shm_rx_garbage(tl, src, "fragments from a segment we cannot map, size", a.seg_size);
        return NULL;
    }
    pr->pool_len = len;
    return pr->pool;
}

/* A sender's claim of box k: poll it from now on. */
static void shm_rx_claim(ibex_tl_t *tl, int src, uint32_t k)
{
    if (k >= tl->nboxes || tl->nbox_rx >= (int)tl->nboxes)
        return shm_rx_garbage(tl, src, "a claim of a box we do not have, box", k);
    void *ring = ibex_shm_seg_at(tl->seg, tl->hdr->box_offset + (uint64_t)k * tl->hdr->box_stride);
    for (int i = 0; i < tl->nbox_rx; i++)
        if (tl->box[i].src_local == src || tl->box[i].ring.ctl == ring)
            return shm_rx_garbage(tl, src, "a claim of a box already claimed, box", k);
    ibex_shm_rx_t *rx = &tl->box[tl->nbox_rx++];
    ibex_shm_ring_rx_init(&rx->ring, ring, tl->nslots, tl->slot_size, tl->slot_stride);
    ibex_shm_ring_rx_batch(&rx->ring, tl->tail_every);
    rx->ring.ahead_max = tl->ahead_lines;
    rx->src_rank = tl->local_peers[src];
    rx->src_local = src;
    /* a sender never queues again once it has a box: when all others have one, and we send
     * ourselves nothing through shm, the poll reads the boxes only */
    int others = tl->nbox_rx;
    for (int i = 0; i < tl->nbox_rx; i++)
        others -= tl->box[i].src_local == tl->local_rank;
    tl->queue_idle = others == tl->local_size - 1 && !tl->self_ep;
}

/* Delivers what id names; IBEX_ERR_AGAIN when the runtime wants it later. */
static ibex_status_t shm_rx_offer(ibex_tl_t *tl, int src, uint64_t id)
{
    uint32_t idx = ibex_shm_id_idx(id);
    if (ibex_shm_id_is_claim(id)) {
        shm_rx_claim(tl, src, idx);
        return IBEX_OK;
    }
    unsigned char *pool = shm_rx_pool(tl, src);
    if (!pool)
        return IBEX_OK; /* dropped: the peer is failed */
    if (idx >= tl->nfrags) {
        shm_rx_garbage(tl, src, "a fragment past its pool, index", idx);
        return IBEX_OK;
    }
    ibex_shm_frag_t *f = (ibex_shm_frag_t *)(pool + (size_t)idx * tl->slot_stride);
    uint32_t len = f->len;
    if (!ibex_shm_slot_len_ok(len, tl->slot_size)) {
        shm_rx_garbage(tl, src, "a fragment of length", len);
        atomic_store_explicit(&f->busy, 0, memory_order_release);
        return IBEX_OK;
    }
    shm_rx_prefetch(tl, f->data, len);
    if (tl->recv_cb(tl->cb_arg, tl->local_peers[src], f->data, len) == IBEX_ERR_AGAIN)
        return IBEX_ERR_AGAIN;
    atomic_store_explicit(&f->busy, 0, memory_order_release); /* back to its sender */
    return IBEX_OK;
}

/* Keeps id for later, behind what src already has held. A sender has at most its pool (and one
 * claim) in flight, so the list never needs more. */
static void shm_rx_hold(ibex_tl_t *tl, int src, uint64_t id)
{
    ibex_shm_peer_t *pr = &tl->peers[src];
    uint32_t cap = tl->nfrags + 1;
    if (!pr->held || pr->held_count == cap)
        return shm_rx_garbage(tl, src, "more fragments than its pool has, count", cap + 1);
    if (pr->held_count++ == 0)
        tl->nheld++;
    pr->held[(pr->held_head + pr->held_count - 1) % cap] = id;
}

static void shm_rx_id(ibex_tl_t *tl, uint64_t id)
{
    int src = ibex_shm_id_src(id);
    if (src < 0 || src >= tl->local_size)
        return shm_rx_garbage(tl, src, "an id", id);
    if (tl->peers[src].held_count > 0 || shm_rx_offer(tl, src, id) == IBEX_ERR_AGAIN)
        shm_rx_hold(tl, src, id);
}

/* Offers each held list again from its oldest id, until the runtime refuses again. */
static int shm_rx_drain_held(ibex_tl_t *tl)
{
    int events = 0;
    uint32_t cap = tl->nfrags + 1;
    for (int src = 0; src < tl->local_size && tl->nheld > 0; src++) {
        ibex_shm_peer_t *pr = &tl->peers[src];
        while (pr->held_count > 0 && shm_rx_offer(tl, src, pr->held[pr->held_head]) == IBEX_OK) {
            pr->held_head = (pr->held_head + 1) % cap;
            events++;
            if (--pr->held_count == 0)
                tl->nheld--;
        }
    }
    return events;
}

static int shm_rx_poll_queue(ibex_tl_t *tl)
{
    int events = 0;
    uint64_t id;
    while (events < IBEX_SHM_POLL_BATCH &&
           (id = ibex_shm_fifo_pop(tl->fifo, tl->fifo_mask, &tl->fifo_pos)) != 0) {
        shm_rx_id(tl, id);
        events++;
    }
    return events;
}

/* Delivers up to a batch from one box; a callback's IBEX_ERR_AGAIN leaves the message (and so
 * everything behind it) in place for a later call. */
static inline __attribute__((always_inline)) int shm_rx_poll_box(ibex_tl_t *tl, ibex_shm_rx_t *rx)
{
    int events = 0;
    const ibex_shm_slot_t *slot;
    while (events < IBEX_SHM_POLL_BATCH && (slot = ibex_shm_ring_peek(&rx->ring)) != NULL) {
        if (__builtin_expect(!ibex_shm_slot_len_ok(slot->len, rx->ring.slot_size), 0)) {
            shm_rx_garbage(tl, rx->src_local, "a box message of length", slot->len);
            ibex_shm_ring_pop(&rx->ring);
            continue;
        }
        shm_rx_prefetch(tl, slot->data, slot->len);
        if (tl->prefetch_next)
            ibex_shm_ring_prefetch_next(&rx->ring);
        if (rx->ring.ahead_max)
            ibex_shm_ring_note_len(&rx->ring, slot->len);
        if (tl->recv_cb(tl->cb_arg, rx->src_rank, slot->data, slot->len) == IBEX_ERR_AGAIN)
            break;
        ibex_shm_ring_pop(&rx->ring);
        events++;
    }
    ibex_shm_ring_release(&rx->ring); /* the tail once per pass (IBEX_SHM_TAIL_EVERY) */
    return events;
}

static int shm_rx_poll_boxes(ibex_tl_t *tl)
{
    int n = tl->nbox_rx, events = 0;
    if (n == 0)
        return 0;
    if (n == 1) /* two ranks: no round robin to keep */
        return tl->peers[tl->box[0].src_local].held_count == 0 ? shm_rx_poll_box(tl, &tl->box[0])
                                                               : 0;
    int start = tl->rr < n ? tl->rr : 0;
    tl->rr = start + 1 < n ? start + 1 : 0;
    for (int i = 0, k = start; i < n; i++, k = k + 1 < n ? k + 1 : 0)
        if (tl->peers[tl->box[k].src_local].held_count == 0) /* behind held ones: wait */
            events += shm_rx_poll_box(tl, &tl->box[k]);
    return events;
}

/* An empty poll, the common case of every wait: one load per word that could announce a
 * message (the queue's next cell unless it is idle, each claimed box's next slot) and no
 * writes. The full poll below costs about 70 instructions even when it finds nothing (the
 * round robin, the held checks, the re-entry guard); this is about 15 with one box. */
static inline bool shm_rx_nothing(const ibex_tl_t *tl)
{
    if (tl->nheld > 0)
        return false;
    if (!tl->queue_idle && ibex_shm_fifo_ready(tl->fifo, tl->fifo_mask, tl->fifo_pos))
        return false;
    for (int k = 0; k < tl->nbox_rx; k++) {
        if (ibex_shm_ring_peek(&tl->box[k].ring))
            return false;
        if (tl->box[k].ring.ahead) /* IBEX_SHM_PREFETCH_AHEAD */
            ibex_shm_ring_prefetch_ahead(&tl->box[k].ring);
    }
    return true;
}

/* Out of line, so that the empty poll pays none of its register saves. */
static __attribute__((noinline)) int shm_rx_poll_all(ibex_tl_t *tl)
{
    tl->in_progress = true;
    int events = tl->nheld > 0 ? shm_rx_drain_held(tl) : 0;
    if (!tl->queue_idle)
        events += shm_rx_poll_queue(tl);
    events += shm_rx_poll_boxes(tl);
    tl->in_progress = false;
    return events;
}

/* Two ranks: one box, the queue idle, nothing held. The box alone, without the general pass's
 * held lists, queue test and round robin (and their register saves): callgrind, issue 18. */
static __attribute__((noinline)) int shm_rx_poll_one(ibex_tl_t *tl)
{
    tl->in_progress = true;
    int events = shm_rx_poll_box(tl, &tl->box[0]);
    tl->in_progress = false;
    return events;
}

int ibex_shm_rx_progress(ibex_tl_t *tl)
{
    if (shm_rx_nothing(tl) || tl->in_progress)
        return 0;
    if (tl->queue_idle && tl->nbox_rx == 1 && tl->nheld == 0)
        return shm_rx_poll_one(tl);
    return shm_rx_poll_all(tl);
}

void ibex_shm_rx_free(ibex_tl_t *tl)
{
    for (int i = 0; tl->peers && i < tl->local_size; i++) {
        ibex_shm_peer_t *pr = &tl->peers[i];
        if (i != tl->local_rank) { /* ours are parts of our own segment */
            if (pr->ctl)
                munmap(pr->ctl, pr->ctl_len);
            if (pr->box)
                munmap(pr->box, pr->box_len);
            if (pr->pool)
                munmap(pr->pool, pr->pool_len);
        }
        free(pr->held);
    }
}
