/* SPDX-License-Identifier: BSD-3-Clause */
/* The SPSC ring's geometry and views; the hot push / peek / pop are inline in shm_ring.h. */
#include "shm_ring.h"

#include "ibex_log.h"

_Static_assert(offsetof(ibex_shm_ring_ctl_t, tail) - offsetof(ibex_shm_ring_ctl_t, head) >=
                   IBEX_SHM_CACHE_LINE,
               "ring head and tail must not share a cache line");
_Static_assert(sizeof(ibex_shm_ring_ctl_t) % IBEX_SHM_CACHE_LINE == 0,
               "slots must start on a cache line");
_Static_assert(IBEX_SHM_SLOT_HDR == 8, "slot header is one 8-byte word");

ibex_status_t ibex_shm_ring_check(uint32_t nslots, size_t slot_size)
{
    if (nslots < 2 || (nslots & (nslots - 1)) != 0) {
        ibex_error(TL, "shm: IBEX_SHM_RING_SLOTS=%u must be a power of two >= 2", nslots);
        return IBEX_ERR_INVALID;
    }
    if (slot_size < 2 * IBEX_SHM_CACHE_LINE || slot_size % IBEX_SHM_CACHE_LINE != 0 ||
        slot_size > (1u << 30)) {
        ibex_error(TL, "shm: IBEX_SHM_SLOT_SIZE=%zu must be a multiple of %d between %d and 1g",
                   slot_size, IBEX_SHM_CACHE_LINE, 2 * IBEX_SHM_CACHE_LINE);
        return IBEX_ERR_INVALID;
    }
    return IBEX_OK;
}

size_t ibex_shm_ring_bytes(uint32_t nslots, size_t stride, size_t align)
{
    size_t bytes = sizeof(ibex_shm_ring_ctl_t) + (size_t)nslots * stride;
    return (bytes + align - 1) / align * align;
}

void ibex_shm_ring_tx_init(ibex_shm_ring_tx_t *tx, void *mem, uint32_t nslots, size_t slot_size,
                           size_t stride)
{
    tx->ctl = mem;
    tx->slots = (unsigned char *)mem + sizeof(ibex_shm_ring_ctl_t);
    /* A producer may re-attach to a ring it used before (ep destroyed and created again). */
    tx->head = atomic_load_explicit(&tx->ctl->head, memory_order_relaxed);
    tx->tail_cache = atomic_load_explicit(&tx->ctl->tail, memory_order_acquire);
    tx->nslots = nslots;
    tx->mask = nslots - 1;
    tx->slot_size = slot_size;
    tx->stride = stride;
    tx->stream_min = SIZE_MAX;
    tx->own_lines = 0;
}

void ibex_shm_ring_rx_init(ibex_shm_ring_rx_t *rx, void *mem, uint32_t nslots, size_t slot_size,
                           size_t stride)
{
    rx->ctl = mem;
    rx->slots = (unsigned char *)mem + sizeof(ibex_shm_ring_ctl_t);
    rx->tail = atomic_load_explicit(&rx->ctl->tail, memory_order_relaxed);
    rx->tail_shown = rx->tail;
    rx->release_every = 1;
    rx->ahead = rx->ahead_max = 0;
    rx->mask = nslots - 1;
    rx->slot_size = slot_size;
    rx->stride = stride;
}

void ibex_shm_ring_rx_batch(ibex_shm_ring_rx_t *rx, uint32_t every)
{
    uint32_t nslots = rx->mask + 1;
    rx->release_every = every == 0       ? (nslots / 2 ? nslots / 2 : 1)
                        : every < nslots ? every
                                         : nslots;
}

uint64_t ibex_shm_ring_used(const ibex_shm_ring_ctl_t *ctl)
{
    uint64_t tail = atomic_load_explicit(&ctl->tail, memory_order_acquire);
    uint64_t head = atomic_load_explicit(&ctl->head, memory_order_acquire);
    return head - tail;
}
