/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shm endpoints: a connection is the peer's segment mapped (its shared queue, and our fast box
 * in it once we have one) plus a pidfd on the peer's process, used to tell "no room because the
 * peer is slow" from "no room because the peer is dead" and to notice a dead peer when put / get
 * fails. send takes the fast box when we have one, else a fragment of our pool through the
 * peer's shared queue, and asks for a box after IBEX_SHM_FAST_BOX_AFTER queued messages.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ibex_boot.h"
#include "ibex_log.h"
#include "shm.h"

int ibex_shm_local_index(const struct ibex_tl *tl, int rank)
{
    int lo = 0, hi = tl->local_size - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (tl->local_peers[mid] == rank)
            return mid;
        if (tl->local_peers[mid] < rank)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

bool ibex_shm_ep_peer_alive(const ibex_tl_ep_t *ep)
{
    if (ep->is_self)
        return true;
    if (ep->pidfd >= 0) {
        /* A pidfd turns readable when the process exits, zombie or not, and never names a
         * recycled pid. */
        struct pollfd pfd = {.fd = ep->pidfd, .events = POLLIN};
        return poll(&pfd, 1, 0) == 0;
    }
    return kill(ep->pid, 0) == 0 || errno != ESRCH;
}

ibex_status_t ibex_shm_ep_fail(ibex_tl_ep_t *ep, const char *op)
{
    if (!ep->failed) {
        ep->failed = true;
        ibex_error(TL, "shm: %s: peer rank %d on %s (pid %d) has exited", op, ep->peer,
                   ibex_boot_peer_host(ep->peer), (int)ep->pid);
        if (ep->tl->peer_failed_cb)
            ep->tl->peer_failed_cb(ep->tl->cb_arg, ep->peer, IBEX_ERR_PEER_FAILED);
    }
    return IBEX_ERR_PEER_FAILED;
}

/* No room stays no room: back-pressure, unless the receiver is gone. */
static ibex_status_t shm_ep_full(ibex_tl_ep_t *ep)
{
    if (ep->failed)
        return IBEX_ERR_PEER_FAILED;
    if (++ep->full_count % IBEX_SHM_FULL_CHECK == 0 && !ibex_shm_ep_peer_alive(ep))
        return ibex_shm_ep_fail(ep, "send");
    return IBEX_ERR_AGAIN;
}

static ibex_status_t shm_ep_too_big(ibex_tl_ep_t *ep, size_t len)
{
    ibex_error(TL, "shm: send of %zu bytes to peer rank %d exceeds max_eager %zu", len, ep->peer,
               ep->max_data);
    return IBEX_ERR_INVALID;
}

/* A free fragment of our pool, marked busy, or NULL. Fragments come back in any order (each
 * receiver frees its own), so this looks on from where the last one was found. */
static ibex_shm_frag_t *shm_pool_take(struct ibex_tl *tl, uint32_t *idx_p)
{
    for (uint32_t i = 0; i < tl->nfrags; i++) {
        uint32_t idx = tl->frag_cursor + i < tl->nfrags ? tl->frag_cursor + i
                                                        : tl->frag_cursor + i - tl->nfrags;
        ibex_shm_frag_t *f = (ibex_shm_frag_t *)(tl->pool + (size_t)idx * tl->slot_stride);
        if (atomic_load_explicit(&f->busy, memory_order_acquire) == 0) {
            atomic_store_explicit(&f->busy, 1, memory_order_relaxed);
            tl->frag_cursor = idx + 1 < tl->nfrags ? idx + 1 : 0;
            *idx_p = idx;
            return f;
        }
    }
    return NULL;
}

/* Through the peer's shared queue: one of our fragments, then its id in the queue. */
static ibex_status_t shm_ep_send_queue(ibex_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                                       const void *payload, size_t len)
{
    struct ibex_tl *tl = ep->tl;
    uint32_t idx;
    ibex_shm_frag_t *f = shm_pool_take(tl, &idx);
    if (!f)
        return shm_ep_full(ep);
    memcpy(f->data, hdr, hdr_len);
    if (len >= tl->stream_min)
        ibex_shm_copy_stream(f->data + hdr_len, payload, len);
    else if (len)
        memcpy(f->data + hdr_len, payload, len);
    f->len = (uint32_t)(hdr_len + len);
    if (!ibex_shm_fifo_push(ep->fifo, tl->fifo_mask, ibex_shm_frag_id(tl->local_rank, idx))) {
        atomic_store_explicit(&f->busy, 0, memory_order_relaxed);
        return shm_ep_full(ep);
    }
    ep->queued++;
    return IBEX_OK;
}

/* Box k of the peer's segment, mapped once (ours: in place). */
static void *shm_ep_map_box(ibex_tl_ep_t *ep, uint32_t k)
{
    struct ibex_tl *tl = ep->tl;
    ibex_shm_peer_t *pr = &tl->peers[ep->local_idx];
    uint64_t off = tl->hdr->box_offset + (uint64_t)k * tl->hdr->box_stride;
    if (pr->box)
        return pr->box;
    if (ep->is_self) {
        pr->box = ibex_shm_seg_at(tl->seg, off);
        return pr->box;
    }
    if (ibex_shm_seg_map_peer(tl, ep->local_idx, &ep->addr, ep->pidfd, off, tl->hdr->box_stride,
                              &pr->box) != IBEX_OK)
        return NULL;
    pr->box_len = tl->hdr->box_stride;
    return pr->box;
}

/* Takes one of the peer's fast boxes if one is left, and announces it through the queue (after
 * everything we queued before, so the receiver reads the box only once those are delivered). */
static void shm_ep_claim_box(ibex_tl_ep_t *ep)
{
    struct ibex_tl *tl = ep->tl;
    if (ep->box_pending < 0) {
        uint32_t k = atomic_load_explicit(&ep->fifo->boxes_claimed, memory_order_relaxed);
        do {
            if (k >= tl->nboxes) {
                ep->no_box = true;
                return;
            }
        } while (!atomic_compare_exchange_weak_explicit(
            &ep->fifo->boxes_claimed, &k, k + 1, memory_order_relaxed, memory_order_relaxed));
        ep->box_pending = (int)k;
    }
    uint64_t id = ibex_shm_frag_id(tl->local_rank, IBEX_SHM_ID_CLAIM | (uint32_t)ep->box_pending);
    if (!shm_ep_map_box(ep, (uint32_t)ep->box_pending)) {
        ep->no_box = true; /* logged; the queue still works (a peer gone is found there) */
        return;
    }
    if (!ibex_shm_fifo_push(ep->fifo, tl->fifo_mask, id))
        return; /* the queue is full: announced on a later send */
    void *ring = shm_ep_map_box(ep, (uint32_t)ep->box_pending);
    ibex_shm_ring_tx_init(&ep->tx, ring, tl->nslots, tl->slot_size, tl->slot_stride);
    ep->tx.stream_min = tl->stream_min;
    ep->tx.own_lines = tl->own_lines;
    ep->has_box = true;
    ep->box_pending = -1;
}

static ibex_status_t shm_ep_send_slow(ibex_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                                      const void *payload, size_t len)
{
    if (hdr_len + len > ep->max_data)
        return shm_ep_too_big(ep, hdr_len + len);
    if (ep->failed)
        return IBEX_ERR_PEER_FAILED;
    if (!ep->has_box && !ep->no_box && ep->queued >= ep->tl->box_after)
        shm_ep_claim_box(ep);
    if (!ep->has_box)
        return shm_ep_send_queue(ep, hdr, hdr_len, payload, len);
    if (ibex_shm_ring_push(&ep->tx, hdr, hdr_len, payload, len) == IBEX_OK)
        return IBEX_OK;
    return shm_ep_full(ep);
}

/* Every send but the small one of ibex_shm_ep_send: what ibex_shm_ep_send did for all. */
static __attribute__((noinline)) ibex_status_t
shm_ep_send_any(ibex_tl_ep_t *ep, const void *hdr, size_t hdr_len, const void *payload, size_t len)
{
    if (__builtin_expect(ep->has_box && hdr_len + len <= ep->max_data, 1) &&
        __builtin_expect(ibex_shm_ring_push(&ep->tx, hdr, hdr_len, payload, len) == IBEX_OK, 1))
        return IBEX_OK;
    return shm_ep_send_slow(ep, hdr, hdr_len, payload, len);
}

/* The usual eager message (ibex_shm_small_len_ok) through the box with no call, so with no
 * stack frame (six registers saved and restored were 15 of its 75 instructions, callgrind,
 * issue 18); a full ring and every other message as before. */
ibex_status_t ibex_shm_ep_send(ibex_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                               const void *payload, size_t len)
{
    if (__builtin_expect(ep->has_box && ibex_shm_small_len_ok(hdr_len, len) &&
                             hdr_len + len <= ep->max_data &&
                             ibex_shm_ring_push_small(&ep->tx, hdr, payload, len) == IBEX_OK,
                         1))
        return IBEX_OK;
    return shm_ep_send_any(ep, hdr, hdr_len, payload, len);
}

/* send_fill away from the box (not claimed yet, the shared queue, streaming stores asked for):
 * fill into a bounce buffer, then the ordinary send. Rare, so the malloc does not matter. */
static __attribute__((noinline)) ibex_status_t
shm_ep_send_fill_slow(ibex_tl_ep_t *ep, const void *hdr, size_t hdr_len, size_t len,
                      ibex_tl_fill_cb_t fill, void *ctx)
{
    if (hdr_len + len > ep->max_data)
        return shm_ep_too_big(ep, hdr_len + len);
    void *buf = len ? malloc(len) : NULL;
    if (len && !buf)
        return IBEX_ERR_NO_MEMORY;
    if (len)
        fill(buf, len, ctx);
    ibex_status_t st = shm_ep_send_slow(ep, hdr, hdr_len, buf, len);
    free(buf);
    return st;
}

/* The header copied, then fill writes the payload in the slot itself: one pass over a packed
 * payload instead of a pack into a buffer and the push's copy out of it. The ring's space is
 * checked first, so a full ring costs no fill. Payloads the ring would stream
 * (IBEX_SHM_STREAM_MIN) take the slow path: fill's ordinary stores would lose the streaming. */
ibex_status_t ibex_shm_ep_send_fill(ibex_tl_ep_t *ep, const void *hdr, size_t hdr_len, size_t len,
                                    ibex_tl_fill_cb_t fill, void *ctx)
{
    if (__builtin_expect(!ep->has_box || hdr_len + len > ep->max_data || len >= ep->tx.stream_min,
                         0))
        return shm_ep_send_fill_slow(ep, hdr, hdr_len, len, fill, ctx);
    ibex_shm_slot_t *slot = ibex_shm_ring_reserve(&ep->tx);
    if (!slot)
        return shm_ep_full(ep);
    ibex_shm_copy_small(slot->data, hdr, hdr_len);
    if (len)
        fill(slot->data + hdr_len, len, ctx);
    ibex_shm_ring_publish(&ep->tx, slot, hdr_len + len);
    return IBEX_OK;
}

/* Our entry in the peer's table: how it maps our segment to read our fragments. Written before
 * our first message to it, which it reads only after that message. */
static void shm_ep_publish_self(struct ibex_tl *tl, ibex_tl_ep_t *ep)
{
    void *map = tl->peers[ep->local_idx].ctl;
    const ibex_shm_seg_hdr_t *h = tl->hdr; /* the peer's layout is ours (checked) */
    ibex_shm_addr_t *entry =
        ibex_shm_seg_at(map, h->table_offset + (uint64_t)tl->local_rank * sizeof(*entry));
    entry->pid = (int32_t)getpid();
    entry->fd = tl->memfd;
    entry->seg_size = tl->hdr->seg_size;
    entry->cookie = tl->cookie;
    __atomic_store_n(&entry->magic, IBEX_SHM_ADDR_MAGIC, __ATOMIC_RELEASE);
    ep->fifo = ibex_shm_seg_at(map, h->fifo_offset);
    /* a node with a box for every sender: take it at once */
    if ((uint32_t)tl->local_size <= tl->nboxes)
        ep->queued = tl->box_after;
}

static void shm_ep_init_self(struct ibex_tl *tl, ibex_tl_ep_t *ep)
{
    ep->is_self = true;
    ep->pid = getpid();
    tl->self_ep = true;
    tl->queue_idle = false;
    tl->peers[tl->local_rank].ctl = tl->seg;
}

static ibex_status_t shm_ep_init_peer(struct ibex_tl *tl, ibex_tl_ep_t *ep, const void *addr,
                                      size_t addr_len)
{
    ibex_shm_addr_t a;
    if (addr_len != sizeof(a)) {
        ibex_error(TL, "shm: address of peer rank %d has %zu bytes, expected %zu", ep->peer,
                   addr_len, sizeof(a));
        return IBEX_ERR_INVALID;
    }
    memcpy(&a, addr, sizeof(a));
    if (a.magic != IBEX_SHM_ADDR_MAGIC) {
        ibex_error(TL, "shm: address of peer rank %d is not an shm address", ep->peer);
        return IBEX_ERR_INVALID;
    }
    ep->pid = a.pid;
    ep->addr = a;
    ep->pidfd = (int)syscall(SYS_pidfd_open, a.pid, 0);
    if (!ibex_shm_ep_peer_alive(ep)) {
        ibex_error(TL, "shm: peer rank %d on %s (pid %d) has exited before we connected", ep->peer,
                   ibex_boot_peer_host(ep->peer), (int)a.pid);
        return IBEX_ERR_PEER_FAILED;
    }
    ibex_shm_peer_t *pr = &tl->peers[ep->local_idx];
    ibex_status_t status = IBEX_OK;
    if (!pr->ctl)
        status = ibex_shm_seg_map_peer(tl, ep->local_idx, &a, ep->pidfd, 0, tl->hdr->box_offset,
                                       &pr->ctl);
    if (status == IBEX_OK)
        pr->ctl_len = tl->hdr->box_offset;
    if (status == IBEX_ERR_UNREACHABLE && !ibex_shm_ep_peer_alive(ep))
        return IBEX_ERR_PEER_FAILED;
    return status;
}

/* An endpoint kept from an earlier connection (its box stays ours): usable if the peer lives. */
static ibex_status_t shm_ep_reuse(ibex_tl_ep_t *ep, ibex_tl_ep_t **ep_p)
{
    if (ep->refs == 0 && !ep->is_self && !ibex_shm_ep_peer_alive(ep)) {
        ibex_error(TL, "shm: peer rank %d on %s (pid %d) has exited", ep->peer,
                   ibex_boot_peer_host(ep->peer), (int)ep->pid);
        return IBEX_ERR_PEER_FAILED;
    }
    ep->refs++;
    *ep_p = ep;
    return IBEX_OK;
}

ibex_status_t ibex_shm_ep_create(ibex_tl_t *tl, int peer, const void *addr, size_t addr_len,
                                 ibex_tl_ep_t **ep_p)
{
    int idx = ibex_shm_local_index(tl, peer);
    if (idx < 0) {
        ibex_error(TL, "shm: peer rank %d on %s is not on this node", peer,
                   ibex_boot_peer_host(peer));
        return IBEX_ERR_UNREACHABLE;
    }
    if (tl->eps[idx])
        return shm_ep_reuse(tl->eps[idx], ep_p);
    ibex_tl_ep_t *ep = calloc(1, sizeof(*ep));
    if (!ep)
        return IBEX_ERR_NO_MEMORY;
    *ep = (ibex_tl_ep_t){
        .tl = tl, .peer = peer, .local_idx = idx, .pidfd = -1, .refs = 1, .box_pending = -1};
    ep->max_data = tl->slot_size - IBEX_SHM_SLOT_HDR;
    ibex_status_t status = IBEX_OK;
    if (peer == tl->rank)
        shm_ep_init_self(tl, ep);
    else
        status = shm_ep_init_peer(tl, ep, addr, addr_len);
    if (status != IBEX_OK)
        goto err_free;
    shm_ep_publish_self(tl, ep);
    tl->eps[idx] = ep;
    *ep_p = ep;
    return IBEX_OK;

err_free:
    if (ep->pidfd >= 0)
        close(ep->pidfd);
    free(ep);
    return status;
}

/* The endpoint stays (with its box and the mapping) until close: a box is never given back, so
 * a new connection to the same peer must find it again. */
void ibex_shm_ep_destroy(ibex_tl_ep_t *ep)
{
    if (ep && ep->refs > 0)
        ep->refs--;
}

void ibex_shm_ep_free(ibex_tl_ep_t *ep)
{
    if (!ep)
        return;
    ep->tl->eps[ep->local_idx] = NULL;
    if (ep->pidfd >= 0)
        close(ep->pidfd);
    free(ep);
}
