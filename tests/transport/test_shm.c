/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the shm transport (transport/shm/) between forked processes on this host. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "ibex_config.h"
#include "ibex_log.h"
#include "tl_harness.h"

/* The backend under test, found as the runtime finds it: through the registry. */
static ibex_tl_component_t *shm_comp(void)
{
    return ibex_tl_component_find("shm");
}

/* The shm tunables, read where the registry keeps them. */
static long long cfg_size(const char *name)
{
    return *(const long long *)ibex_config_find(name)->addr;
}
static int cfg_int(const char *name)
{
    return *(const int *)ibex_config_find(name)->addr;
}

typedef struct msg_hdr {
    uint32_t src;
    uint32_t pad;
    uint64_t seq;
} msg_hdr_t;

/* Receive-side state of one rank. */
typedef struct rx_state {
    tl_proc_t *p;
    uint64_t next[TLW_MAX]; /* sequence expected from each source */
    uint64_t received;
    uint64_t bad;
    uint64_t refused; /* offers answered with AGAIN */
    int slow;         /* refuse every message not a multiple of this (0: accept all) */
    uint64_t want;    /* for tlw_progress_until */
} rx_state_t;

static unsigned char payload_buf[1 << 16];

static size_t msg_len(size_t max_eager, uint64_t seq)
{
    size_t max = max_eager - sizeof(msg_hdr_t);
    switch (seq % 7) {
    case 0:
        return 0;
    case 1:
        return 1;
    case 2:
        return max; /* header + payload == max_eager */
    default:
        return (size_t)(seq * 977) % max;
    }
}

static size_t fill_payload(size_t max_eager, uint64_t seq, int src)
{
    size_t len = msg_len(max_eager, seq);
    for (size_t k = 0; k + 1 < len; k += 29)
        payload_buf[k] = (unsigned char)(seq + k + (size_t)src);
    if (len)
        payload_buf[len - 1] = (unsigned char)(seq ^ 0x5a);
    return len;
}

static ibex_status_t rx_cb(void *arg, int src, const void *data, size_t len)
{
    rx_state_t *rx = arg;
    msg_hdr_t h;
    if (rx->slow && (rx->refused++ % (uint64_t)rx->slow) != 0)
        return IBEX_ERR_AGAIN;
    memcpy(&h, data, sizeof(h));
    size_t plen = msg_len(rx->p->caps.max_eager, h.seq);
    const unsigned char *pl = (const unsigned char *)data + sizeof(h);
    rx->bad += (int)h.src != src || h.seq != rx->next[src] || len != sizeof(h) + plen;
    for (size_t k = 0; k + 1 < plen && len == sizeof(h) + plen; k += 29)
        rx->bad += pl[k] != (unsigned char)(h.seq + k + (size_t)src);
    if (plen && len == sizeof(h) + plen)
        rx->bad += pl[plen - 1] != (unsigned char)(h.seq ^ 0x5a);
    rx->next[src]++;
    rx->received++;
    return IBEX_OK;
}

static bool rx_done(void *arg)
{
    rx_state_t *rx = arg;
    return rx->received >= rx->want;
}

/* Sends seq to dst, driving progress while the ring is full; returns the AGAINs seen. */
static uint64_t send_seq(tl_proc_t *p, int dst, uint64_t seq)
{
    msg_hdr_t h = {.src = (uint32_t)p->rank, .seq = seq};
    size_t len = fill_payload(p->caps.max_eager, seq, p->rank);
    uint64_t agains = 0;
    for (;;) {
        ibex_status_t status = p->ops.send(p->ep[dst], &h, sizeof(h), payload_buf, len);
        if (status == IBEX_OK)
            return agains;
        TLW_CHECK(status == IBEX_ERR_AGAIN);
        agains++;
        if (p->ops.progress(p->tl) == 0 && agains % 256 == 0)
            sched_yield();
    }
}

static int run(int n, int timeout_s, void (*body)(tl_proc_t *), void *arg)
{
    return tlw_run(n, timeout_s, body, arg);
}

static int count_maps(const char *what)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int count = 0;
    while (f && fgets(line, sizeof(line), f))
        count += strstr(line, what) != NULL;
    if (f)
        fclose(f);
    return count;
}

/* One process: caps, address, the loopback ring (a transport must reach its own rank), info. */
static void test_single_and_self(void **state)
{
    (void)state;
    tl_world_t w = {.n = 1};
    tl_proc_t p = {.w = &w, .rank = 0, .failed_peer = -1};
    rx_state_t rx = {.p = &p};
    tlw_open(&p, shm_comp(), rx_cb, &rx, true);
    assert_true(p.caps.flags & IBEX_TL_CAP_SEND);
    assert_true(p.caps.flags & IBEX_TL_CAP_GET);
    assert_true(p.caps.flags & IBEX_TL_CAP_PUT);
    assert_false(p.caps.flags & IBEX_TL_CAP_NEED_REG);
    assert_int_equal(p.caps.rkey_size, 0);
    assert_int_equal(p.caps.max_eager, (size_t)cfg_size("SHM_SLOT_SIZE") - 8);
    assert_false(p.ops.reachable(p.tl, 1));
    assert_int_equal(tlw_dev_shm_mappings(), 0); /* memfd: nothing named in /dev/shm */
    assert_true(count_maps("memfd:ibex-shm") > 0);
    for (uint64_t i = 0; i < 1000; i++)
        send_seq(&p, 0, i);
    rx.want = 1000;
    tlw_progress_until(&p, rx_done, &rx);
    assert_int_equal(rx.bad, 0);
    char a[100] = "loopback put", b[100] = {0};
    ibex_tl_rma_t put = {.local = a, .len = sizeof(a), .remote = (uintptr_t)b};
    assert_int_equal(p.ops.put(p.ep[0], &put), IBEX_OK);
    assert_string_equal(b, "loopback put");
    ibex_tl_ep_t *ep2;
    ibex_log_level = -1;
    assert_int_equal(p.ops.ep_create(p.tl, 5, NULL, 0, &ep2), IBEX_ERR_UNREACHABLE);
    ibex_log_level = IBEX_LOG_WARN;
    FILE *out = fopen("/dev/null", "w");
    p.ops.info(out);
    fclose(out);
    tlw_close(&p);
}

/* Every rank sends 100k messages of sizes 0, 1, max_eager and between to every other rank,
 * interleaved; each receiver checks order and content per sender. */
#define ORDER_COUNT 100000
static void order_body(tl_proc_t *p)
{
    rx_state_t rx = {.p = p};
    tlw_open(p, shm_comp(), rx_cb, &rx, false);
    int n = p->w->n;
    uint64_t per_peer = ORDER_COUNT / (uint64_t)(n - 1);
    for (uint64_t i = 0; i < per_peer; i++)
        for (int d = 1; d < n; d++)
            send_seq(p, (p->rank + d) % n, i);
    rx.want = per_peer * (uint64_t)(n - 1);
    tlw_progress_until(p, rx_done, &rx);
    TLW_CHECK(rx.bad == 0);
    tlw_close(p);
}

static void test_order_2(void **state)
{
    (void)state;
    assert_int_equal(run(2, 60, order_body, NULL), 0);
}

static void test_order_3(void **state)
{
    (void)state;
    assert_int_equal(run(3, 60, order_body, NULL), 0);
}

/* Rank 0 floods rank 1, which refuses most offers (as a runtime whose unexpected budget is
 * spent) and sleeps now and then: the sender must see AGAIN, nothing is lost or reordered. */
#define FLOOD_COUNT 20000
static void flood_body(tl_proc_t *p)
{
    rx_state_t rx = {.p = p};
    tlw_open(p, shm_comp(), rx_cb, &rx, false);
    if (p->rank == 0) {
        uint64_t agains = 0;
        for (uint64_t i = 0; i < FLOOD_COUNT; i++)
            agains += send_seq(p, 1, i);
        TLW_CHECK(agains > 0);
    } else {
        rx.slow = 3;
        rx.want = FLOOD_COUNT;
        while (rx.received < rx.want) {
            if (p->ops.progress(p->tl) == 0)
                sched_yield();
            if (rx.received % 2000 == 1999)
                usleep(1000);
        }
        TLW_CHECK(rx.bad == 0);
        TLW_CHECK(rx.refused > rx.received);
    }
    tlw_close(p);
}

static void test_flood_slow_receiver(void **state)
{
    (void)state;
    assert_int_equal(run(2, 60, flood_body, NULL), 0);
}

/* put / get at several sizes: rank 1 exposes two buffers, rank 0 reads one and writes the
 * other; both sides compare checksums. */
static const size_t rma_sizes[] = {0, 1, 4096, 1 << 20, 64 << 20};
#define RMA_MAX (64 << 20)

static void fill_pattern(unsigned char *buf, size_t len, unsigned seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < len; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (unsigned char)(x >> 16);
    }
}

static void rma_body(tl_proc_t *p)
{
    tlw_open(p, shm_comp(), rx_cb, NULL, false);
    unsigned char *src = malloc(RMA_MAX), *dst = malloc(RMA_MAX);
    TLW_CHECK(src && dst);
    tl_world_t *w = p->w;
    for (size_t s = 0; s < sizeof(rma_sizes) / sizeof(rma_sizes[0]); s++) {
        size_t len = rma_sizes[s];
        if (p->rank == 1) {
            fill_pattern(src, len, (unsigned)s);
            memset(dst, 0, len);
            w->scratch[0] = (uintptr_t)src;
            w->scratch[1] = (uintptr_t)dst;
        } else {
            fill_pattern(src, len, (unsigned)s + 100);
        }
        tlw_barrier(p);
        if (p->rank == 0) {
            ibex_tl_rma_t get = {.local = dst, .len = len, .remote = w->scratch[0]};
            ibex_tl_rma_t put = {.local = src, .len = len, .remote = w->scratch[1]};
            TLW_CHECK(p->ops.get(p->ep[1], &get) == IBEX_OK);
            TLW_CHECK(p->ops.put(p->ep[1], &put) == IBEX_OK);
            fill_pattern(src, len, (unsigned)s);
            TLW_CHECK(tlw_fnv(dst, len) == tlw_fnv(src, len));
            w->scratch[2] = tlw_fnv(dst, len);
        }
        tlw_barrier(p);
        if (p->rank == 1) {
            fill_pattern(src, len, (unsigned)s + 100);
            TLW_CHECK(tlw_fnv(dst, len) == tlw_fnv(src, len));
        }
        tlw_barrier(p);
    }
    if (p->rank == 0) { /* an address the peer has not mapped: a remote access error */
        ibex_log_level = -1;
        ibex_tl_rma_t bad = {.local = dst, .len = 4096, .remote = 4096};
        TLW_CHECK(p->ops.get(p->ep[1], &bad) == IBEX_ERR_REMOTE);
        TLW_CHECK(p->ops.put(p->ep[1], &bad) == IBEX_ERR_REMOTE);
        TLW_CHECK(p->failed_peer == -1); /* the peer itself is fine */
        ibex_log_level = IBEX_LOG_WARN;
    }
    free(src);
    free(dst);
    tlw_close(p);
}

static void test_put_get(void **state)
{
    (void)state;
    assert_int_equal(run(2, 60, rma_body, NULL), 0);
}

/* Ranks 1 and 2 exit without closing (2 by SIGKILL). Rank 0's get from rank 1 fails with
 * PEER_FAILED, and its sends to rank 2 fail once there is no room and the liveness check sees
 * rank 2 gone. */
static void dead_body(tl_proc_t *p)
{
    tlw_open(p, shm_comp(), rx_cb, NULL, false);
    static char buf[4096];
    if (p->rank != 0) {
        p->w->scratch[p->rank] = (uintptr_t)buf;
        tlw_barrier(p);
        if (p->rank == 1)
            _exit(0);
        p->w->expect_kill[2] = 1; /* SIGKILL: the memfd goes with the process */
        kill(getpid(), SIGKILL);
    }
    tlw_barrier(p);
    ibex_log_level = -1; /* the failures below are logged as errors on purpose */
    ibex_tl_rma_t get = {.local = buf, .len = sizeof(buf), .remote = p->w->scratch[1]};
    ibex_status_t status;
    while ((status = p->ops.get(p->ep[1], &get)) == IBEX_OK)
        usleep(1000); /* until rank 1 has exited */
    TLW_CHECK(status == IBEX_ERR_PEER_FAILED);
    TLW_CHECK(p->failed_peer == 1 && p->failed_why == IBEX_ERR_PEER_FAILED);
    TLW_CHECK(p->ops.put(p->ep[1], &get) == IBEX_ERR_PEER_FAILED);
    /* Connecting again to the dead rank fails the same way, once it is gone (a process half way
     * through exit may still have its fds open but no memory: get fails, connect works). */
    p->ops.ep_destroy(p->ep[1]);
    while (kill(p->w->pids[1], 0) == 0)
        usleep(1000); /* until the harness has reaped it */
    ibex_tl_ep_t *ep;
    status = p->ops.ep_create(p->tl, 1, p->w->addr[1], p->w->addr_len[1], &ep);
    TLW_CHECK(status == IBEX_ERR_PEER_FAILED);
    msg_hdr_t h = {0};
    uint64_t sent = 0;
    while ((status = p->ops.send(p->ep[2], &h, sizeof(h), NULL, 0)) != IBEX_ERR_PEER_FAILED) {
        TLW_CHECK(status == IBEX_OK || status == IBEX_ERR_AGAIN);
        sent += status == IBEX_OK;
    }
    /* what fits before "no room": the fast box, or (when the box could not be mapped any more)
     * the fragment pool through the queue */
    TLW_CHECK(sent == (uint64_t)cfg_int("SHM_RING_SLOTS") ||
              sent == (uint64_t)cfg_int("SHM_FRAGS"));
    TLW_CHECK(p->failed_peer == 2);
    p->ops.ep_destroy(p->ep[2]);
    p->ops.close(p->tl);
}

static void test_dead_peer(void **state)
{
    (void)state;
    assert_int_equal(run(3, 30, dead_body, NULL), 0);
}

/* A sender verifies what it maps: magic, cookie (a recycled pid), fd, geometry. Rank 2 runs with
 * a different slot size. Only local ranks are reachable. */
static void attach_body(tl_proc_t *p)
{
    if (p->rank == 2)
        TLW_CHECK(ibex_config_set(ibex_config_find("SHM_SLOT_SIZE"), "4096") == IBEX_OK);
    p->no_connect = true;
    tlw_open(p, shm_comp(), rx_cb, NULL, false);
    if (p->rank == 0) {
        tl_world_t *w = p->w;
        unsigned char addr[TLW_ADDR_MAX];
        ibex_tl_ep_t *ep;
        size_t len = w->addr_len[1];
        ibex_log_level = -1; /* every failure below is logged on purpose */
        memcpy(addr, w->addr[1], len);
        addr[len - 1] ^= 1; /* cookie */
        TLW_CHECK(p->ops.ep_create(p->tl, 1, addr, len, &ep) == IBEX_ERR_PEER_FAILED);
        memcpy(addr, w->addr[1], len);
        addr[0] ^= 1; /* magic */
        TLW_CHECK(p->ops.ep_create(p->tl, 1, addr, len, &ep) == IBEX_ERR_INVALID);
        TLW_CHECK(p->ops.ep_create(p->tl, 1, w->addr[1], len - 1, &ep) == IBEX_ERR_INVALID);
        memcpy(addr, w->addr[1], len);
        addr[8] = 250; /* an fd number the peer has not opened */
        TLW_CHECK(p->ops.ep_create(p->tl, 1, addr, len, &ep) == IBEX_ERR_UNREACHABLE);
        TLW_CHECK(p->ops.ep_create(p->tl, 2, w->addr[2], len, &ep) == IBEX_ERR_INVALID);
        ibex_log_level = IBEX_LOG_WARN;
        TLW_CHECK(p->ops.ep_create(p->tl, 1, w->addr[1], len, &ep) == IBEX_OK);
        p->ops.ep_destroy(ep);
    }
    tlw_close(p);
}

static void test_attach_checks(void **state)
{
    (void)state;
    assert_int_equal(run(3, 30, attach_body, NULL), 0);
}

static void test_reachable_subset(void **state)
{
    (void)state;
    int peers[2] = {1, 3};
    ibex_tl_params_t params = {.rank = 1,
                               .size = 4,
                               .local_rank = 0,
                               .local_size = 2,
                               .local_peers = peers,
                               .recv_cb = rx_cb};
    ibex_tl_t *tl;
    ibex_tl_caps_t caps;
    ibex_tl_ep_t *ep;
    assert_int_equal(shm_comp()->ops.open(&params, &tl, &caps), IBEX_OK);
    assert_true(shm_comp()->ops.reachable(tl, 1));
    assert_true(shm_comp()->ops.reachable(tl, 3));
    assert_false(shm_comp()->ops.reachable(tl, 0));
    assert_false(shm_comp()->ops.reachable(tl, 2));
    ibex_log_level = -1;
    assert_int_equal(shm_comp()->ops.ep_create(tl, 2, NULL, 0, &ep), IBEX_ERR_UNREACHABLE);
    peers[0] = 2; /* local_peers[local_rank] must be this rank */
    assert_int_equal(shm_comp()->ops.open(&params, &tl, &caps), IBEX_ERR_INVALID);
    ibex_log_level = IBEX_LOG_WARN;
    shm_comp()->ops.close(tl);
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int count = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        count += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return count;
}

/* Open / connect / close leaves no descriptor and no mapping behind. */
static void fd_body(tl_proc_t *p)
{
    int before = count_fds();
    for (int round = 0; round < 3; round++) {
        tlw_open(p, shm_comp(), rx_cb, NULL, true);
        tlw_close(p);
        memset(p->ep, 0, sizeof(p->ep));
    }
    TLW_CHECK(count_fds() == before);
}

static void test_no_fd_leak(void **state)
{
    (void)state;
    assert_int_equal(run(2, 30, fd_body, NULL), 0);
}

static int group_setup(void **state)
{
    (void)state;
    return ibex_config_load() == IBEX_OK && shm_comp() ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_and_self),  cmocka_unit_test(test_order_2),
        cmocka_unit_test(test_order_3),          cmocka_unit_test(test_flood_slow_receiver),
        cmocka_unit_test(test_put_get),          cmocka_unit_test(test_dead_peer),
        cmocka_unit_test(test_no_fd_leak),       cmocka_unit_test(test_attach_checks),
        cmocka_unit_test(test_reachable_subset),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
