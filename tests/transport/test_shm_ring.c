/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for the SPSC ring of the shm transport (transport/shm/shm_ring.[ch]). */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "ibex_log.h"
#include "shm_ring.h"

typedef struct ring_fixture {
    void *mem;
    size_t bytes;
    ibex_shm_ring_tx_t tx;
    ibex_shm_ring_rx_t rx;
} ring_fixture_t;

/* A ring in shared anonymous memory, so that a forked producer can use it too; slots `stride`
 * bytes apart. */
static void ring_setup_stride(ring_fixture_t *f, uint32_t nslots, size_t slot_size, size_t stride)
{
    f->bytes = ibex_shm_ring_bytes(nslots, stride, 4096);
    f->mem = mmap(NULL, f->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(f->mem != MAP_FAILED);
    ibex_shm_ring_tx_init(&f->tx, f->mem, nslots, slot_size, stride);
    ibex_shm_ring_rx_init(&f->rx, f->mem, nslots, slot_size, stride);
}

static void ring_setup(ring_fixture_t *f, uint32_t nslots, size_t slot_size)
{
    ring_setup_stride(f, nslots, slot_size, slot_size);
}

static void ring_teardown(ring_fixture_t *f)
{
    munmap(f->mem, f->bytes);
}

static void test_layout(void **state)
{
    (void)state;
    /* head and tail are written by different processes: never on one cache line */
    assert_true(offsetof(ibex_shm_ring_ctl_t, head) / IBEX_SHM_CACHE_LINE !=
                offsetof(ibex_shm_ring_ctl_t, tail) / IBEX_SHM_CACHE_LINE);
    assert_int_equal(sizeof(ibex_shm_ring_ctl_t) % IBEX_SHM_CACHE_LINE, 0);
    assert_int_equal(IBEX_SHM_SLOT_HDR, 8);
    assert_int_equal(ibex_shm_ring_bytes(64, 8192, 4096) % 4096, 0);
    assert_true(ibex_shm_ring_bytes(64, 8192, 4096) >= 64 * 8192 + sizeof(ibex_shm_ring_ctl_t));

    ring_fixture_t f;
    ring_setup(&f, 8, 256);
    /* every slot begins a cache line, and the first slot is not on a control line */
    for (int i = 0; i < 8; i++) {
        uintptr_t slot = (uintptr_t)f.tx.slots + (uintptr_t)i * 256;
        assert_int_equal(slot % IBEX_SHM_CACHE_LINE, 0);
        assert_true(slot >= (uintptr_t)&f.tx.ctl->tail + IBEX_SHM_CACHE_LINE);
    }
    assert_int_equal(ibex_shm_ring_max_data(&f.tx), 256 - 8);
    ring_teardown(&f);
}

static void test_geometry_check(void **state)
{
    (void)state;
    ibex_log_level = -1; /* the rejections below log errors on purpose */
    assert_int_equal(ibex_shm_ring_check(64, 8192), IBEX_OK);
    assert_int_equal(ibex_shm_ring_check(2, 128), IBEX_OK);
    assert_int_equal(ibex_shm_ring_check(48, 8192), IBEX_ERR_INVALID);
    assert_int_equal(ibex_shm_ring_check(1, 8192), IBEX_ERR_INVALID);
    assert_int_equal(ibex_shm_ring_check(64, 100), IBEX_ERR_INVALID);
    assert_int_equal(ibex_shm_ring_check(64, 64), IBEX_ERR_INVALID);
    ibex_log_level = IBEX_LOG_WARN;
}

static void test_wraparound(void **state)
{
    (void)state;
    ring_fixture_t f;
    ring_setup(&f, 4, 128);
    uint32_t hdr;
    unsigned char payload[120];
    for (uint32_t i = 0; i < 4 * 25 + 3; i++) {
        size_t len = i % 117; /* up to max_data - sizeof(hdr) */
        hdr = i;
        memset(payload, (int)(i & 0xff), len);
        assert_int_equal(ibex_shm_ring_push(&f.tx, &hdr, sizeof(hdr), payload, len), IBEX_OK);
        const ibex_shm_slot_t *slot = ibex_shm_ring_peek(&f.rx);
        assert_non_null(slot);
        assert_int_equal(slot->len, sizeof(hdr) + len);
        assert_memory_equal(slot->data, &hdr, sizeof(hdr));
        for (size_t k = 0; k < len; k++)
            assert_int_equal(slot->data[sizeof(hdr) + k], i & 0xff);
        ibex_shm_ring_pop(&f.rx);
        assert_null(ibex_shm_ring_peek(&f.rx));
    }
    assert_int_equal(ibex_shm_ring_used(f.tx.ctl), 0);
    ring_teardown(&f);
}

/* The call-free push of the usual eager message writes what ibex_shm_ring_push writes (slot
 * length, header, payload; the bytes past it untouched), takes only the sizes it is for, and
 * gives IBEX_ERR_AGAIN on a full ring having done nothing. */
static void test_push_small(void **state)
{
    (void)state;
    assert_true(ibex_shm_small_len_ok(32, 0));
    for (size_t n = 4; n <= 16; n++)
        assert_true(ibex_shm_small_len_ok(32, n));
    for (size_t n = 1; n < 4; n++)
        assert_false(ibex_shm_small_len_ok(32, n));
    assert_false(ibex_shm_small_len_ok(32, 17));
    assert_false(ibex_shm_small_len_ok(31, 8));
    assert_false(ibex_shm_small_len_ok(33, 0));
    ring_fixture_t f, g;
    ring_setup(&f, 4, 128);
    ring_setup(&g, 4, 128);
    unsigned char hdr[32], payload[16];
    const size_t lens[] = {0, 4, 5, 7, 8, 9, 15, 16};
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        size_t len = lens[i];
        for (size_t k = 0; k < sizeof(hdr); k++)
            hdr[k] = (unsigned char)(i * 31 + k);
        for (size_t k = 0; k < sizeof(payload); k++)
            payload[k] = (unsigned char)(0xa0 + i + k);
        memset(f.tx.slots + (f.tx.head & f.tx.mask) * f.tx.stride, 0x5c, 128);
        assert_int_equal(ibex_shm_ring_push_small(&f.tx, hdr, payload, len), IBEX_OK);
        assert_int_equal(ibex_shm_ring_push(&g.tx, hdr, sizeof(hdr), payload, len), IBEX_OK);
        const ibex_shm_slot_t *a = ibex_shm_ring_peek(&f.rx), *b = ibex_shm_ring_peek(&g.rx);
        assert_non_null(a);
        assert_non_null(b);
        assert_int_equal(a->len, 32 + len);
        assert_int_equal(a->len, b->len);
        assert_memory_equal(a->data, b->data, 32 + len);
        assert_memory_equal(a->data, hdr, 32);
        if (len)
            assert_memory_equal(a->data + 32, payload, len);
        for (size_t k = 32 + len; k < 128 - IBEX_SHM_SLOT_HDR; k++)
            assert_int_equal(a->data[k], 0x5c);
        ibex_shm_ring_pop(&f.rx);
        ibex_shm_ring_pop(&g.rx);
    }
    for (int k = 0; k < 4; k++)
        assert_int_equal(ibex_shm_ring_push_small(&f.tx, hdr, payload, 8), IBEX_OK);
    uint64_t head_before = f.tx.head;
    assert_int_equal(ibex_shm_ring_push_small(&f.tx, hdr, payload, 8), IBEX_ERR_AGAIN);
    assert_int_equal(f.tx.head, head_before);
    ibex_shm_ring_pop(&f.rx);
    assert_int_equal(ibex_shm_ring_push_small(&f.tx, hdr, payload, 8), IBEX_OK);
    ring_teardown(&f);
    ring_teardown(&g);
}

static void test_full_gives_again(void **state)
{
    (void)state;
    ring_fixture_t f;
    ring_setup(&f, 4, 128);
    uint64_t v;
    for (v = 0; v < 4; v++)
        assert_int_equal(ibex_shm_ring_push(&f.tx, &v, sizeof(v), NULL, 0), IBEX_OK);
    assert_int_equal(ibex_shm_ring_used(f.tx.ctl), 4);
    uint64_t head_before = f.tx.head;
    assert_int_equal(ibex_shm_ring_push(&f.tx, &v, sizeof(v), NULL, 0), IBEX_ERR_AGAIN);
    assert_int_equal(f.tx.head, head_before); /* AGAIN did nothing */
    /* one released slot makes room for exactly one more */
    ibex_shm_ring_pop(&f.rx);
    assert_int_equal(ibex_shm_ring_push(&f.tx, &v, sizeof(v), NULL, 0), IBEX_OK);
    assert_int_equal(ibex_shm_ring_push(&f.tx, &v, sizeof(v), NULL, 0), IBEX_ERR_AGAIN);
    for (uint64_t want = 1; want <= 4; want++) {
        const ibex_shm_slot_t *slot = ibex_shm_ring_peek(&f.rx);
        assert_non_null(slot);
        memcpy(&v, slot->data, sizeof(v));
        assert_int_equal(v, want);
        ibex_shm_ring_pop(&f.rx);
    }
    assert_null(ibex_shm_ring_peek(&f.rx));
    ring_teardown(&f);
}

/* A consumer that cannot take a message now peeks again later and finds the same one first. */
static void test_hold_keeps_order(void **state)
{
    (void)state;
    ring_fixture_t f;
    ring_setup(&f, 8, 128);
    for (uint64_t v = 0; v < 6; v++)
        assert_int_equal(ibex_shm_ring_push(&f.tx, &v, sizeof(v), NULL, 0), IBEX_OK);
    uint64_t want = 0, got;
    for (int round = 0; round < 12; round++) {
        const ibex_shm_slot_t *slot = ibex_shm_ring_peek(&f.rx);
        assert_non_null(slot);
        memcpy(&got, slot->data, sizeof(got));
        assert_int_equal(got, want);
        if (round % 2 == 0)
            continue; /* "recv_cb said AGAIN": leave it */
        ibex_shm_ring_pop(&f.rx);
        want++;
    }
    assert_null(ibex_shm_ring_peek(&f.rx));
    /* a re-attached consumer view resumes at the shared tail */
    ibex_shm_ring_rx_t again;
    ibex_shm_ring_rx_init(&again, f.mem, 8, 128, 128);
    assert_int_equal(again.tail, 6);
    ring_teardown(&f);
}

/* Slots one line more than their size apart (IBEX_SHM_SLOT_SKEW): 64 slots of 16 KiB put their
 * first lines in 64 different sets of a 64-set L1 (and fill every slot to the brim without one
 * touching the next). Without the skew they would all fall in one set. */
static void test_skew_layout(void **state)
{
    (void)state;
    enum { N = 64, SIZE = 16384, STRIDE = SIZE + IBEX_SHM_CACHE_LINE };
    ring_fixture_t f;
    ring_setup_stride(&f, N, SIZE, STRIDE);
    assert_true(f.bytes >= sizeof(ibex_shm_ring_ctl_t) + (size_t)N * STRIDE);
    static unsigned char payload[SIZE];
    bool set_used[64] = {false};
    for (uint64_t i = 0; i < N; i++) {
        memset(payload, (int)i, sizeof(payload));
        size_t len = ibex_shm_ring_max_data(&f.tx) - sizeof(i);
        assert_int_equal(ibex_shm_ring_push(&f.tx, &i, sizeof(i), payload, len), IBEX_OK);
        uintptr_t slot = (uintptr_t)f.tx.slots + (uintptr_t)i * STRIDE;
        size_t set = (slot / IBEX_SHM_CACHE_LINE) % 64;
        assert_false(set_used[set]);
        set_used[set] = true;
    }
    for (uint64_t i = 0; i < N; i++) {
        const ibex_shm_slot_t *slot = ibex_shm_ring_peek(&f.rx);
        assert_non_null(slot);
        assert_int_equal((uintptr_t)slot, (uintptr_t)f.rx.slots + i * STRIDE);
        uint64_t got;
        memcpy(&got, slot->data, sizeof(got));
        assert_int_equal(got, i);
        assert_int_equal(slot->data[slot->len - 1], (unsigned char)i); /* not overwritten */
        ibex_shm_ring_pop(&f.rx);
    }
    ring_teardown(&f);
}

/* The consumer's tail published every 4 slots and at release (IBEX_SHM_TAIL_EVERY): the
 * producer sees the room only then, never before; order and content hold over many laps. */
static void test_batched_tail(void **state)
{
    (void)state;
    ring_fixture_t f;
    ring_setup(&f, 8, 128);
    ibex_shm_ring_rx_batch(&f.rx, 4);
    assert_int_equal(f.rx.release_every, 4);
    uint64_t v;
    for (v = 0; v < 8; v++)
        assert_int_equal(ibex_shm_ring_push(&f.tx, &v, sizeof(v), NULL, 0), IBEX_OK);
    for (int i = 0; i < 3; i++)
        ibex_shm_ring_pop(&f.rx);
    assert_int_equal(atomic_load(&f.rx.ctl->tail), 0); /* not yet shown */
    assert_int_equal(ibex_shm_ring_push(&f.tx, &v, sizeof(v), NULL, 0), IBEX_ERR_AGAIN);
    ibex_shm_ring_pop(&f.rx); /* the fourth: shown */
    assert_int_equal(atomic_load(&f.rx.ctl->tail), 4);
    ibex_shm_ring_pop(&f.rx);
    ibex_shm_ring_release(&f.rx); /* the end of a pass shows the fifth */
    assert_int_equal(atomic_load(&f.rx.ctl->tail), 5);
    ibex_shm_ring_release(&f.rx); /* nothing new: no store, same value */
    assert_int_equal(atomic_load(&f.rx.ctl->tail), 5);
    for (int i = 0; i < 5; i++, v++)
        assert_int_equal(ibex_shm_ring_push(&f.tx, &v, sizeof(v), NULL, 0), IBEX_OK);
    assert_int_equal(ibex_shm_ring_push(&f.tx, &v, sizeof(v), NULL, 0), IBEX_ERR_AGAIN);
    /* laps in uneven bites: everything once, in order */
    uint64_t want = 5, got, sent = v;
    for (int lap = 0; lap < 200; lap++) {
        int take = 1 + lap % 7;
        for (int i = 0; i < take; i++) {
            const ibex_shm_slot_t *slot = ibex_shm_ring_peek(&f.rx);
            if (!slot)
                break;
            memcpy(&got, slot->data, sizeof(got));
            assert_int_equal(got, want);
            want++;
            ibex_shm_ring_pop(&f.rx);
        }
        if (lap % 3 == 0)
            ibex_shm_ring_release(&f.rx);
        while (ibex_shm_ring_push(&f.tx, &sent, sizeof(sent), NULL, 0) == IBEX_OK)
            sent++;
    }
    ibex_shm_ring_release(&f.rx);
    assert_true(want > 500);
    assert_int_equal(ibex_shm_ring_used(f.tx.ctl), sent - want);
    ibex_shm_ring_rx_batch(&f.rx, 0); /* 0: half the ring */
    assert_int_equal(f.rx.release_every, 4);
    ibex_shm_ring_rx_batch(&f.rx, 100); /* at most the ring */
    assert_int_equal(f.rx.release_every, 8);
    ring_teardown(&f);
}

/* Non-temporal copies: every header length (destination alignment) and payload length around
 * the cache-line boundaries arrives intact. */
static void test_stream_copy(void **state)
{
    (void)state;
    ring_fixture_t f;
    ring_setup(&f, 4, 4096);
    f.tx.stream_min = 1;
    static const size_t hdr_lens[] = {0, 4, 12, 24, 40};
    static const size_t lens[] = {1, 15, 63, 64, 65, 127, 128, 200, 1000, 2048, 3000};
    unsigned char hdr[40], payload[4096];
    for (size_t h = 0; h < sizeof(hdr_lens) / sizeof(hdr_lens[0]); h++) {
        for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
            size_t hl = hdr_lens[h], len = lens[l];
            for (size_t k = 0; k < hl; k++)
                hdr[k] = (unsigned char)(0xa0 + k);
            for (size_t k = 0; k < len; k++)
                payload[k] = (unsigned char)(k * 31 + len + hl);
            assert_int_equal(ibex_shm_ring_push(&f.tx, hdr, hl, payload, len), IBEX_OK);
            const ibex_shm_slot_t *slot = ibex_shm_ring_peek(&f.rx);
            assert_non_null(slot);
            assert_int_equal(slot->len, hl + len);
            assert_memory_equal(slot->data, hdr, hl);
            assert_memory_equal(slot->data + hl, payload, len);
            ibex_shm_ring_pop(&f.rx);
        }
    }
    ring_teardown(&f);
}

/* A forked producer streams messages of varying size; the consumer checks order and content. */
#define STREAM_COUNT 300000
static void stream_produce(ring_fixture_t *f, size_t stream_min, uint32_t own_lines)
{
    f->tx.stream_min = stream_min;
    f->tx.own_lines = own_lines;
    unsigned char payload[256];
    alarm(30);
    for (uint64_t i = 0; i < STREAM_COUNT;) {
        size_t len = (i * 7) % (sizeof(payload) - sizeof(i));
        memset(payload, (int)(i * 13), len);
        if (ibex_shm_ring_push(&f->tx, &i, sizeof(i), payload, len) == IBEX_OK)
            i++;
        else
            sched_yield(); /* a loaded machine may run both sides on one core */
    }
    _exit(0);
}

/* stream_min: from which payload size the producer uses non-temporal stores (SIZE_MAX: never);
 * with them, the consumer must still never see the sequence word before the data. own_lines:
 * the producer's write-ownership prefetch of the next slot (IBEX_SHM_OWN_NEXT, in lines). */
static void concurrent_stream(size_t stream_min, size_t skew, uint32_t tail_every,
                              uint32_t own_lines)
{
    ring_fixture_t f;
    ring_setup_stride(&f, 16, 320, 320 + skew);
    ibex_shm_ring_rx_batch(&f.rx, tail_every);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        stream_produce(&f, stream_min, own_lines);
    alarm(30);
    uint64_t got, errors = 0;
    for (uint64_t want = 0; want < STREAM_COUNT;) {
        const ibex_shm_slot_t *slot = ibex_shm_ring_peek(&f.rx);
        if (!slot) {
            sched_yield();
            continue;
        }
        memcpy(&got, slot->data, sizeof(got));
        size_t len = (want * 7) % (256 - sizeof(want));
        errors += got != want || slot->len != sizeof(got) + len;
        for (size_t k = 0; k < len; k++)
            errors += slot->data[sizeof(got) + k] != (unsigned char)(want * 13);
        ibex_shm_ring_pop(&f.rx);
        want++;
    }
    alarm(0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(errors, 0);
    assert_null(ibex_shm_ring_peek(&f.rx));
    ring_teardown(&f);
}

static void test_concurrent_stream(void **state)
{
    (void)state;
    concurrent_stream(SIZE_MAX, 0, 1, 0);
}

/* The transport's defaults: a skewed stride, the tail shown every half ring only (the consumer
 * here never calls release: the producer must still always find room again). */
static void test_concurrent_batched(void **state)
{
    (void)state;
    concurrent_stream(SIZE_MAX, IBEX_SHM_CACHE_LINE, 0, 0);
}

static void test_concurrent_stream_nt(void **state)
{
    (void)state;
    concurrent_stream(64, 0, 1, 0);
}

/* The producer takes write ownership of the next slot's lines after every message longer than
 * a line (IBEX_SHM_OWN_NEXT, here more lines than a slot has: capped at the slot), while the
 * consumer reads the one before: order and every byte as before, with the transport's defaults
 * otherwise. */
static void test_concurrent_own_next(void **state)
{
    (void)state;
    concurrent_stream(SIZE_MAX, IBEX_SHM_CACHE_LINE, 0, 1024);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_geometry_check),
        cmocka_unit_test(test_wraparound),
        cmocka_unit_test(test_full_gives_again),
        cmocka_unit_test(test_push_small),
        cmocka_unit_test(test_hold_keeps_order),
        cmocka_unit_test(test_concurrent_stream),
        cmocka_unit_test(test_stream_copy),
        cmocka_unit_test(test_concurrent_stream_nt),
        cmocka_unit_test(test_skew_layout),
        cmocka_unit_test(test_batched_tail),
        cmocka_unit_test(test_concurrent_batched),
        cmocka_unit_test(test_concurrent_own_next),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
