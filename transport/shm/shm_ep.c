/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shm endpoints: a connection is our ring in the peer's segment (we are its only producer) plus
 * a pidfd on the peer's process, used to tell "ring full because the peer is slow" from "ring
 * full because the peer is dead" and to notice a dead peer when put / get fails.
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

/* The ring stays full: back-pressure, unless the receiver is gone. */
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

ibex_status_t ibex_shm_ep_send(ibex_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                               const void *payload, size_t len)
{
    if (__builtin_expect(hdr_len + len > ep->max_data, 0))
        return shm_ep_too_big(ep, hdr_len + len);
    ibex_status_t status = ibex_shm_ring_push(&ep->tx, hdr, hdr_len, payload, len);
    if (__builtin_expect(status == IBEX_OK, 1))
        return IBEX_OK;
    return shm_ep_full(ep);
}

/* Our view of the ring we write into (in our segment for ourselves, in the peer's otherwise). */
static void shm_ep_tx_attach(struct ibex_tl *tl, ibex_tl_ep_t *ep, void *ring)
{
    ibex_shm_ring_tx_init(&ep->tx, ring, tl->nslots, tl->slot_size);
    ep->tx.stream_min = tl->stream_min;
}

/* Our own ring in our own segment; progress() starts polling it. */
static void shm_ep_init_self(struct ibex_tl *tl, ibex_tl_ep_t *ep)
{
    void *ring = (char *)tl->seg + ibex_shm_seg_ring_offset(tl->hdr, tl->local_rank);
    ep->is_self = true;
    ep->pid = getpid();
    shm_ep_tx_attach(tl, ep, ring);
    for (int i = 0; i < tl->npoll; i++)
        if (tl->rx[i].src_rank == tl->rank)
            return;
    ibex_shm_ring_rx_init(&tl->rx[tl->npoll].ring, ring, tl->nslots, tl->slot_size);
    tl->rx[tl->npoll].src_rank = tl->rank;
    tl->npoll++;
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
    ep->pidfd = (int)syscall(SYS_pidfd_open, a.pid, 0);
    if (!ibex_shm_ep_peer_alive(ep)) {
        ibex_error(TL, "shm: peer rank %d on %s (pid %d) has exited before we connected", ep->peer,
                   ibex_boot_peer_host(ep->peer), (int)a.pid);
        return IBEX_ERR_PEER_FAILED;
    }
    ibex_status_t status = ibex_shm_seg_attach(tl, ep->peer, &a, ep->pidfd, &ep->map, &ep->map_len);
    if (status == IBEX_ERR_UNREACHABLE && !ibex_shm_ep_peer_alive(ep))
        return IBEX_ERR_PEER_FAILED;
    if (status != IBEX_OK)
        return status;
    shm_ep_tx_attach(tl, ep, ep->map);
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
    if (tl->eps[idx]) {
        tl->eps[idx]->refs++;
        *ep_p = tl->eps[idx];
        return IBEX_OK;
    }
    ibex_tl_ep_t *ep = calloc(1, sizeof(*ep));
    if (!ep)
        return IBEX_ERR_NO_MEMORY;
    *ep = (ibex_tl_ep_t){.tl = tl, .peer = peer, .local_idx = idx, .pidfd = -1, .refs = 1};
    ep->max_data = tl->slot_size - IBEX_SHM_SLOT_HDR;
    ibex_status_t status = IBEX_OK;
    if (peer == tl->rank)
        shm_ep_init_self(tl, ep);
    else
        status = shm_ep_init_peer(tl, ep, addr, addr_len);
    if (status != IBEX_OK)
        goto err_free;
    tl->eps[idx] = ep;
    *ep_p = ep;
    return IBEX_OK;

err_free:
    if (ep->pidfd >= 0)
        close(ep->pidfd);
    free(ep);
    return status;
}

void ibex_shm_ep_destroy(ibex_tl_ep_t *ep)
{
    if (!ep || --ep->refs > 0)
        return;
    ep->tl->eps[ep->local_idx] = NULL;
    if (ep->map)
        munmap(ep->map, ep->map_len);
    if (ep->pidfd >= 0)
        close(ep->pidfd);
    free(ep);
}
