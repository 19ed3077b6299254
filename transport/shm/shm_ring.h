/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A single-producer single-consumer lock-free ring in shared memory: the eager channel of the shm
 * transport, one per (sender, receiver) pair, allocated in the receiver's segment.
 *
 * Layout (every part starts on its own cache line):
 *
 *   ctl line 0   head: positions published by the producer (written only by the producer)
 *   ctl line 1   tail: positions released by the consumer (written only by the consumer)
 *   slot[0..n)   slot_size bytes each, `stride` bytes apart: { seq, len } header, then header +
 *                payload of one message
 *
 * The stride is slot_size + IBEX_SHM_SLOT_SKEW (one cache line by default): with slots a power
 * of two apart (16 KiB), every slot's first line falls in the same set of the L1 (and in a few of
 * the L2), so a window of 64 small messages in flight fought over 8 ways; one line more per slot
 * spreads them over consecutive sets.
 *
 * The consumer does not poll `head`: it polls the sequence word of the slot it expects next
 * (seq == position + 1, stored with release after the data). For a small message the sequence,
 * the runtime's header and the payload share one cache line, so a ping-pong costs one cache-line
 * transfer instead of two (head, then slot). `head` is still published, for occupancy reports.
 * The producer keeps a private copy of the tail and reloads the shared one only when its copy
 * says the ring is full, so the consumer's tail line moves between cores once per ring lap at
 * most. The consumer in turn publishes its tail once per poll pass (ibex_shm_ring_release) and
 * whenever `release_every` slots (half the ring by default: IBEX_SHM_TAIL_EVERY) are consumed
 * since the last publication, not after every message: the producer may see the ring full a
 * little earlier, never later, and the pass that consumed the slots always ends by publishing,
 * so no slot is lost. No locks, no syscalls; C11 acquire / release only.
 *
 * Payloads of at least `stream_min` bytes (IBEX_SHM_STREAM_MIN, off by default) are written with
 * non-temporal stores: whole cache lines straight to memory, then a store fence before the
 * sequence word, and the consumer prefetches every line of a message before taking it. With
 * ordinary stores every line moves from the producer's cache to the consumer's, and the sequence
 * word becomes visible only after all of them; when the two cores share no cache (on these VMs,
 * most of the time) a 4 KiB ping-pong took 1.13 us one way, streamed 0.83. When they share one,
 * ordinary stores are faster (0.47 against 0.68 us); an automatic choice from timings taken in
 * the ring was tried and could not see the difference, so the threshold is a tunable.
 */
#ifndef IBEX_SHM_RING_H
#define IBEX_SHM_RING_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ibex_status.h"

#define IBEX_SHM_CACHE_LINE 64
/* head and tail 128 bytes apart: x86's adjacent-line prefetcher moves 64-byte lines in pairs. */
#define IBEX_SHM_CTL_ALIGN 128

typedef struct ibex_shm_ring_ctl {
    alignas(IBEX_SHM_CTL_ALIGN) _Atomic uint64_t head;
    alignas(IBEX_SHM_CTL_ALIGN) _Atomic uint64_t tail;
} ibex_shm_ring_ctl_t;

typedef struct ibex_shm_slot {
    _Atomic uint32_t seq; /* (uint32_t)(position + 1) once the slot holds that position's data */
    uint32_t len;         /* bytes of data */
    alignas(8) unsigned char data[];
} ibex_shm_slot_t;

#define IBEX_SHM_SLOT_HDR offsetof(ibex_shm_slot_t, data)

/* Producer's private view of a ring. */
typedef struct ibex_shm_ring_tx {
    ibex_shm_ring_ctl_t *ctl;
    unsigned char *slots;
    uint64_t head;       /* next position to write */
    uint64_t tail_cache; /* last tail seen */
    uint32_t nslots;
    uint32_t mask;
    size_t slot_size;
    size_t stride;      /* bytes from one slot to the next (slot_size + skew) */
    size_t stream_min;  /* payload bytes from which the copy streams (SIZE_MAX: never) */
    uint32_t own_lines; /* most lines of the next slot taken after a push (IBEX_SHM_OWN_NEXT) */
} ibex_shm_ring_tx_t;

/* Consumer's private view of a ring. */
typedef struct ibex_shm_ring_rx {
    ibex_shm_ring_ctl_t *ctl;
    unsigned char *slots;
    uint64_t tail;          /* next position to read */
    uint64_t tail_shown;    /* last tail published to the producer */
    uint32_t release_every; /* publish the tail at least every this many slots (1: each) */
    uint32_t ahead;         /* lines past the first the last message filled, capped: */
    uint32_t ahead_max;     /* IBEX_SHM_PREFETCH_AHEAD in lines (0: off) */
    uint32_t mask;
    size_t slot_size;
    size_t stride; /* bytes from one slot to the next */
} ibex_shm_ring_rx_t;

/* Checks a geometry (slots a power of two, slot size a multiple of the cache line and large
 * enough for a header); logs and returns IBEX_ERR_INVALID otherwise. */
ibex_status_t ibex_shm_ring_check(uint32_t nslots, size_t slot_size);
/* Bytes of one ring (control lines + slots `stride` apart), rounded up to a multiple of `align`. */
size_t ibex_shm_ring_bytes(uint32_t nslots, size_t stride, size_t align);
/* Attach views to a ring at `mem` (cache-line aligned, zero-filled when new), slots of
 * slot_size bytes `stride` apart (stride >= slot_size, a multiple of the cache line). The
 * consumer publishes its tail after every slot until ibex_shm_ring_rx_batch says otherwise. */
void ibex_shm_ring_tx_init(ibex_shm_ring_tx_t *tx, void *mem, uint32_t nslots, size_t slot_size,
                           size_t stride);
void ibex_shm_ring_rx_init(ibex_shm_ring_rx_t *rx, void *mem, uint32_t nslots, size_t slot_size,
                           size_t stride);
/* The consumer publishes its tail at least every `every` slots (1 to nslots; 0: nslots / 2). */
void ibex_shm_ring_rx_batch(ibex_shm_ring_rx_t *rx, uint32_t every);
/* Messages published and not yet released (a snapshot, for reports). */
uint64_t ibex_shm_ring_used(const ibex_shm_ring_ctl_t *ctl);

static inline size_t ibex_shm_ring_max_data(const ibex_shm_ring_tx_t *tx)
{
    return tx->slot_size - IBEX_SHM_SLOT_HDR;
}

/* memcpy whose whole destination lines are written with non-temporal stores, then a store fence
 * (so the release store that publishes the slot comes after them). */
static inline void ibex_shm_copy_stream(unsigned char *d, const unsigned char *s, size_t n)
{
#if defined(__SSE2__)
    size_t head = (size_t)(-(uintptr_t)d) & (IBEX_SHM_CACHE_LINE - 1);
    if (head > n)
        head = n;
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    /* a line per iteration, its four stores written out (gcc kept the inner loop: 26
     * instructions a line instead of 12, callgrind) */
    _Static_assert(IBEX_SHM_CACHE_LINE == 64, "the loop below writes 64-byte lines");
    for (; n >= IBEX_SHM_CACHE_LINE; n -= IBEX_SHM_CACHE_LINE) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
        d += IBEX_SHM_CACHE_LINE, s += IBEX_SHM_CACHE_LINE;
    }
    memcpy(d, s, n);
    _mm_sfence();
#else
    memcpy(d, s, n);
#endif
}

/* memcpy for the few bytes of a header or a small payload: fixed-size copies inline (two that
 * overlap cover any length in their range) instead of a call into libc's memcpy, which costs
 * about 15 instructions for 8 bytes and as many again for the 32-byte header (callgrind). */
static inline void ibex_shm_copy_small(unsigned char *d, const unsigned char *s, size_t n)
{
    unsigned char a[16], b[16];
    if (n >= 16 && n <= 32) {
        memcpy(a, s, 16), memcpy(b, s + n - 16, 16);
        memcpy(d, a, 16), memcpy(d + n - 16, b, 16);
    } else if (n >= 8 && n < 16) {
        memcpy(a, s, 8), memcpy(b, s + n - 8, 8);
        memcpy(d, a, 8), memcpy(d + n - 8, b, 8);
    } else if (n >= 4 && n < 8) {
        memcpy(a, s, 4), memcpy(b, s + n - 4, 4);
        memcpy(d, a, 4), memcpy(d + n - 4, b, 4);
    } else {
        memcpy(d, s, n);
    }
}

/* Write ownership of a line ahead of its stores (x86 PREFETCHW: a no-op on CPUs without it). */
static inline void ibex_shm_prefetch_own(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1, 3);
#endif
}

/* After a message of `bytes` (slot header included) spanning lines past the slot's first, asks
 * for write ownership of as many lines of the next slot (up to own_lines), skipping its first
 * line, which the consumer polls. The consumer still holds those lines from the last lap
 * (read, shared); without this the next push's stores each wait for that copy to be invalidated
 * before the slot's sequence word can go out. Nothing for a message within one line, nor when
 * the next slot is not known to be free (the ring full by the cached tail: the consumer may be
 * reading it). */
static inline void ibex_shm_ring_own_next(const ibex_shm_ring_tx_t *tx, size_t bytes)
{
    if (tx->own_lines == 0)
        return;                                       /* off (the default) */
    size_t lines = (bytes - 1) / IBEX_SHM_CACHE_LINE; /* lines beyond the first */
    if (lines > tx->own_lines)
        lines = tx->own_lines;
    if (tx->head - tx->tail_cache >= tx->nslots)
        return; /* the next slot may still hold a message the consumer has yet to read */
    const unsigned char *next = tx->slots + (tx->head & tx->mask) * tx->stride;
    for (size_t i = 1; i <= lines; i++)
        ibex_shm_prefetch_own(next + i * IBEX_SHM_CACHE_LINE);
}

/* The next slot, for the producer to write its data into, or NULL (nothing done) when the ring
 * is full. Nothing is visible to the consumer until ibex_shm_ring_publish. */
static inline __attribute__((always_inline)) ibex_shm_slot_t *
ibex_shm_ring_reserve(ibex_shm_ring_tx_t *tx)
{
    uint64_t head = tx->head;
    if (head - tx->tail_cache >= tx->nslots) {
        tx->tail_cache = atomic_load_explicit(&tx->ctl->tail, memory_order_acquire);
        if (head - tx->tail_cache >= tx->nslots)
            return NULL;
    }
    return (ibex_shm_slot_t *)(tx->slots + (head & tx->mask) * tx->stride);
}

/* Publishes the slot ibex_shm_ring_reserve gave, holding `bytes` bytes of data. */
static inline __attribute__((always_inline)) void
ibex_shm_ring_publish(ibex_shm_ring_tx_t *tx, ibex_shm_slot_t *slot, size_t bytes)
{
    uint64_t head = tx->head;
    slot->len = (uint32_t)bytes;
    atomic_store_explicit(&slot->seq, (uint32_t)(head + 1), memory_order_release);
    tx->head = head + 1;
    atomic_store_explicit(&tx->ctl->head, head + 1, memory_order_relaxed);
    if (__builtin_expect(tx->own_lines != 0, 0) && IBEX_SHM_SLOT_HDR + bytes > IBEX_SHM_CACHE_LINE)
        ibex_shm_ring_own_next(tx, IBEX_SHM_SLOT_HDR + bytes);
}

/* Copies hdr + payload into the next slot. IBEX_ERR_AGAIN (nothing done) when the ring is full.
 * The caller checks hdr_len + len <= slot_size - IBEX_SHM_SLOT_HDR. */
static inline __attribute__((always_inline)) ibex_status_t
ibex_shm_ring_push(ibex_shm_ring_tx_t *tx, const void *hdr, size_t hdr_len, const void *payload,
                   size_t len)
{
    ibex_shm_slot_t *slot = ibex_shm_ring_reserve(tx);
    if (!slot)
        return IBEX_ERR_AGAIN;
    ibex_shm_copy_small(slot->data, hdr, hdr_len);
    if (len >= tx->stream_min)
        ibex_shm_copy_stream(slot->data + hdr_len, payload, len);
    else if (len)
        ibex_shm_copy_small(slot->data + hdr_len, payload, len);
    ibex_shm_ring_publish(tx, slot, hdr_len + len);
    return IBEX_OK;
}

/* ibex_shm_ring_push of the usual eager message, with no call: a 32-byte header and no payload
 * or 4 to 16 bytes of it (payload_len_ok below), which fit the slot's first line with its own
 * header, so no line is taken ahead and nothing streams; the caller has tested the sizes. */
enum { IBEX_SHM_SMALL_HDR = 32, IBEX_SHM_SMALL_MAX = 16 };
_Static_assert(IBEX_SHM_SLOT_HDR + IBEX_SHM_SMALL_HDR + IBEX_SHM_SMALL_MAX <= IBEX_SHM_CACHE_LINE,
               "ibex_shm_ring_push_small: one line, nothing to own ahead");
static inline bool ibex_shm_small_len_ok(size_t hdr_len, size_t len)
{
    return hdr_len == IBEX_SHM_SMALL_HDR && (len == 0 || (len >= 4 && len <= IBEX_SHM_SMALL_MAX));
}
static inline __attribute__((always_inline)) ibex_status_t
ibex_shm_ring_push_small(ibex_shm_ring_tx_t *tx, const void *hdr, const void *payload, size_t len)
{
    uint64_t head = tx->head;
    if (head - tx->tail_cache >= tx->nslots) {
        tx->tail_cache = atomic_load_explicit(&tx->ctl->tail, memory_order_acquire);
        if (head - tx->tail_cache >= tx->nslots)
            return IBEX_ERR_AGAIN;
    }
    ibex_shm_slot_t *slot = (ibex_shm_slot_t *)(tx->slots + (head & tx->mask) * tx->stride);
    unsigned char h[IBEX_SHM_SMALL_HDR], a[8], b[8];
    memcpy(h, hdr, sizeof(h));
    memcpy(slot->data, h, sizeof(h));
    unsigned char *d = slot->data + IBEX_SHM_SMALL_HDR;
    const unsigned char *s = payload;
    if (len >= 8) {
        memcpy(a, s, 8), memcpy(b, s + len - 8, 8);
        memcpy(d, a, 8), memcpy(d + len - 8, b, 8);
    } else if (len >= 4) {
        memcpy(a, s, 4), memcpy(b, s + len - 4, 4);
        memcpy(d, a, 4), memcpy(d + len - 4, b, 4);
    }
    slot->len = (uint32_t)(IBEX_SHM_SMALL_HDR + len);
    atomic_store_explicit(&slot->seq, (uint32_t)(head + 1), memory_order_release);
    tx->head = head + 1;
    atomic_store_explicit(&tx->ctl->head, head + 1, memory_order_relaxed);
    return IBEX_OK;
}

/* The next message, in place, or NULL when the ring is empty: one load when empty. */
static inline const ibex_shm_slot_t *ibex_shm_ring_peek(const ibex_shm_ring_rx_t *rx)
{
    const ibex_shm_slot_t *slot =
        (const ibex_shm_slot_t *)(rx->slots + (rx->tail & rx->mask) * rx->stride);
    uint32_t seq = atomic_load_explicit(&slot->seq, memory_order_acquire);
    return seq == (uint32_t)(rx->tail + 1) ? slot : NULL;
}

/* Whether a slot's length, written by the peer, fits the slot (issue 16: garbage is refused). */
static inline bool ibex_shm_slot_len_ok(uint32_t len, size_t slot_size)
{
    return (size_t)len <= slot_size - IBEX_SHM_SLOT_HDR;
}

/* Whether the ring layout a peer's segment header claims is the one we would map: rings where
 * ours are (one page in, want_stride apart), all inside seg_size (issue 16: a header that lies
 * must not make us map or write past the segment). */
static inline bool ibex_shm_geometry_ok(uint64_t ring_offset, uint64_t ring_stride, uint32_t nrings,
                                        uint64_t seg_size, size_t want_stride, size_t page)
{
    return ring_offset == page && ring_stride == want_stride && nrings > 0 &&
           seg_size >= ring_offset && ring_stride <= (seg_size - ring_offset) / nrings;
}

/* Gives every slot consumed so far back to the producer (one store, none when nothing new). */
static inline void ibex_shm_ring_release(ibex_shm_ring_rx_t *rx)
{
    if (rx->tail != rx->tail_shown) {
        rx->tail_shown = rx->tail;
        atomic_store_explicit(&rx->ctl->tail, rx->tail, memory_order_release);
    }
}

/* Done with the slot returned by the last peek; the producer sees it free once the tail is
 * published: here every release_every slots, else at the caller's ibex_shm_ring_release. */
static inline void ibex_shm_ring_pop(ibex_shm_ring_rx_t *rx)
{
    if (++rx->tail - rx->tail_shown >= rx->release_every)
        ibex_shm_ring_release(rx);
}

/* Notes how many lines past the first a message of `len` data bytes filled (capped at
 * ahead_max): the empty polls that follow prefetch as many of the next slot's
 * (ibex_shm_ring_prefetch_ahead). */
static inline void ibex_shm_ring_note_len(ibex_shm_ring_rx_t *rx, uint32_t len)
{
    uint32_t lines = (uint32_t)((IBEX_SHM_SLOT_HDR + len - 1) / IBEX_SHM_CACHE_LINE);
    rx->ahead = lines < rx->ahead_max ? lines : rx->ahead_max;
}

/* While the expected slot is still empty: asks for its lines past the first that a message the
 * size of the last one fills, so that they are on their way (or here) when its sequence word
 * shows, instead of being requested only then. A hint: the data is read after the sequence word
 * (acquire) as always; a line fetched before the producer wrote it is invalidated by its store
 * and fetched again by the next poll. */
static inline void ibex_shm_ring_prefetch_ahead(const ibex_shm_ring_rx_t *rx)
{
    const unsigned char *slot = rx->slots + (rx->tail & rx->mask) * rx->stride;
    for (uint32_t i = 1; i <= rx->ahead; i++)
        __builtin_prefetch(slot + (size_t)i * IBEX_SHM_CACHE_LINE, 0, 3);
}

/* Asks for the slot after the one being read, while the current message is handled: with a
 * window of messages in flight it is there already and its line is on its way. */
static inline void ibex_shm_ring_prefetch_next(const ibex_shm_ring_rx_t *rx)
{
    __builtin_prefetch(rx->slots + ((rx->tail + 1) & rx->mask) * rx->stride, 0, 3);
}

#endif
