/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transport conformance suite: the same cases over every registered backend, sized from
 * each one's advertised capabilities. A loopback backend (self) runs them on one process talking
 * to itself; every other backend on two forked processes. A backend that cannot open here
 * (verbs without an RDMA device: run it with softib preloaded, see conformance.sh) is skipped
 * and says so.
 *
 * Cases: active messages of 0 and 1 byte, max_inline and max_eager (header + payload), and sizes
 * between, byte-exact and in order, interleaved with a flood that fills the transport (AGAIN)
 * and a receiver that refuses messages for a while; put and get (where the caps say so) of 1 B,
 * a page + 3, max_rma + 5 and 1 MiB + 1, into registered memory when the caps ask for it,
 * byte-exact, leaving the bytes around the target untouched.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>

#include <cmocka.h>

#include "ibex_config.h"
#include "ibex_log.h"
#include "tl_harness.h"

enum { HDR = 16, FLOOD = 2000, GUARD = 64, RKEY_WORD = 16 };

static unsigned char pattern(uint64_t seq, size_t i)
{
    return (unsigned char)(seq * 131 + i * 7 + (i >> 8));
}

/* ---- active messages ---- */

typedef struct am_rx {
    tl_proc_t *p;
    uint64_t next, bad, refuse;
    const size_t *lens;
    int nlens;
} am_rx_t;

static size_t am_len(const am_rx_t *rx, uint64_t seq)
{
    return rx->lens[seq % (uint64_t)rx->nlens];
}

static ibex_status_t am_cb(void *arg, int src, const void *data, size_t len)
{
    am_rx_t *rx = arg;
    if (rx->refuse > 0 && rx->refuse-- % 3 != 0)
        return IBEX_ERR_AGAIN; /* the transport must offer it again, in order */
    uint64_t seq;
    memcpy(&seq, data, sizeof(seq));
    const unsigned char *b = data;
    size_t want = am_len(rx, rx->next);
    rx->bad += seq != rx->next || len != want || len < HDR;
    for (size_t i = HDR; i < len && len == want; i++)
        rx->bad += b[i] != pattern(seq, i);
    rx->next++;
    return IBEX_OK;
}

static bool am_done(void *arg)
{
    am_rx_t *rx = arg;
    return rx->next >= FLOOD;
}

/* Sizes from the caps: 0 and 1 byte of payload, inline and eager limits, and between. */
static int am_sizes(const ibex_tl_caps_t *caps, size_t *lens)
{
    int n = 0;
    lens[n++] = HDR;
    lens[n++] = HDR + 1;
    if ((caps->flags & IBEX_TL_CAP_INLINE) && caps->max_inline >= HDR)
        lens[n++] = caps->max_inline;
    lens[n++] = caps->max_eager;
    lens[n++] = HDR + (caps->max_eager - HDR) / 3;
    lens[n++] = caps->max_eager - 1;
    return n;
}

/* The send_fill case: every other message's payload written by fill into the transport's own
 * buffer (the rest by send, so the two keep one order), checked byte for byte like send's. */
static bool am_fill;

typedef struct am_fill_ctx {
    uint64_t seq;
    size_t len;   /* payload bytes the sender asked for */
    int calls;    /* fill calls for this message */
    uint64_t bad; /* fill called with another length */
} am_fill_ctx_t;

static void am_fill_cb(void *dst, size_t len, void *ctx)
{
    am_fill_ctx_t *c = ctx;
    c->calls++;
    c->bad += len != c->len;
    unsigned char *d = dst;
    for (size_t i = 0; i < len; i++)
        d[i] = pattern(c->seq, HDR + i);
}

static ibex_status_t am_send_fill(tl_proc_t *p, ibex_tl_ep_t *ep, uint64_t seq, size_t len,
                                  unsigned char *buf)
{
    memcpy(buf, &seq, sizeof(seq));
    memset(buf + sizeof(seq), 0xee, HDR - sizeof(seq));
    am_fill_ctx_t c = {.seq = seq, .len = len - HDR};
    ibex_status_t st;
    while ((st = p->ops.send_fill(ep, buf, HDR, len - HDR, am_fill_cb, &c)) == IBEX_ERR_AGAIN)
        if (p->ops.progress(p->tl) == 0)
            sched_yield();
    TLW_CHECK(c.bad == 0 && (len == HDR || c.calls >= 1));
    return st;
}

static void am_send(tl_proc_t *p, ibex_tl_ep_t *ep, uint64_t seq, size_t len, unsigned char *buf)
{
    if (am_fill && (seq & 1)) {
        TLW_CHECK(am_send_fill(p, ep, seq, len, buf) == IBEX_OK);
        return;
    }
    memcpy(buf, &seq, sizeof(seq));
    for (size_t i = HDR; i < len; i++)
        buf[i] = pattern(seq, i);
    ibex_status_t st;
    while ((st = p->ops.send(ep, buf, HDR, buf + HDR, len - HDR)) == IBEX_ERR_AGAIN)
        if (p->ops.progress(p->tl) == 0)
            sched_yield();
    TLW_CHECK(st == IBEX_OK);
}

static void am_body(tl_proc_t *p)
{
    const ibex_tl_component_t *comp = p->arg;
    bool loop = p->w->n == 1;
    am_rx_t rx = {.p = p, .refuse = 200};
    tlw_open(p, comp, am_cb, &rx, loop);
    size_t lens[8];
    rx.lens = lens;
    rx.nlens = am_sizes(&p->caps, lens);
    unsigned char *buf = malloc(p->caps.max_eager);
    TLW_CHECK(buf != NULL);
    /* without the capability send_fill is the stub, which does nothing */
    bool stub = am_fill && !(p->caps.flags & IBEX_TL_CAP_SEND_FILL);
    if (p->rank == 0 && stub) {
        am_fill_ctx_t c = {.seq = 0, .len = 1};
        TLW_CHECK(p->ops.send_fill(p->ep[loop ? 0 : 1], buf, HDR, 1, am_fill_cb, &c) ==
                  IBEX_ERR_UNSUPPORTED);
        TLW_CHECK(c.calls == 0);
    } else if (p->rank == 0) {
        ibex_tl_ep_t *ep = p->ep[loop ? 0 : 1];
        for (uint64_t s = 0; s < FLOOD; s++)
            am_send(p, ep, s, am_len(&rx, s), buf);
    }
    if (!stub && (loop || p->rank == 1))
        tlw_progress_until(p, am_done, &rx);
    TLW_CHECK(rx.bad == 0);
    free(buf);
    tlw_close(p);
}

/* ---- put / get ---- */

typedef struct rma_done {
    ibex_tl_comp_t comp;
    int done;
    ibex_status_t status;
} rma_done_t;

static void rma_cb(ibex_tl_comp_t *comp, ibex_status_t status)
{
    rma_done_t *d = (rma_done_t *)comp;
    d->status = status;
    d->done = 1;
}

static bool rma_finished(void *arg)
{
    return ((rma_done_t *)arg)->done != 0;
}

/* One put or get, waited for; returns its status. */
static ibex_status_t rma_one(tl_proc_t *p, ibex_tl_ep_t *ep, bool put, ibex_tl_rma_t *desc)
{
    rma_done_t d = {.comp.cb = rma_cb};
    desc->comp = &d.comp;
    ibex_status_t st = put ? p->ops.put(ep, desc) : p->ops.get(ep, desc);
    if (st != IBEX_INPROGRESS)
        return st;
    tlw_progress_until(p, rma_finished, &d);
    return d.status;
}

/* A buffer with GUARD bytes either side, registered when the transport asks for it. */
typedef struct rma_buf {
    unsigned char *mem; /* len + 2 * GUARD */
    size_t len;
    ibex_tl_mem_t *reg;
} rma_buf_t;

static void buf_make(tl_proc_t *p, rma_buf_t *b, size_t len, uint64_t seed)
{
    b->len = len;
    b->mem = malloc(len + 2 * GUARD);
    TLW_CHECK(b->mem != NULL);
    for (size_t i = 0; i < len + 2 * GUARD; i++)
        b->mem[i] = pattern(seed, i);
    b->reg = NULL;
    if (p->caps.flags & IBEX_TL_CAP_NEED_REG)
        TLW_CHECK(p->ops.mem_reg(p->tl, b->mem, len + 2 * GUARD, &b->reg) == IBEX_OK);
}

static void buf_free(tl_proc_t *p, rma_buf_t *b)
{
    if (b->reg)
        p->ops.mem_dereg(p->tl, b->reg);
    free(b->mem);
}

/* The target's bytes [GUARD, GUARD + len) follow `seed`, the guards follow `guard_seed`. */
static bool buf_check(const rma_buf_t *b, uint64_t seed, uint64_t guard_seed)
{
    for (size_t i = 0; i < b->len + 2 * GUARD; i++) {
        bool inside = i >= GUARD && i < GUARD + b->len;
        if (b->mem[i] != pattern(inside ? seed : guard_seed, inside ? i - GUARD : i))
            return false;
    }
    return true;
}

static tl_world_t *conf_world;

static bool size_done(void *arg)
{
    return atomic_load(&conf_world->scratch[1]) == (uint64_t)(uintptr_t)arg;
}

static void rma_size(tl_proc_t *p, bool loop, size_t len, uint64_t s)
{
    tl_world_t *w = p->w;
    conf_world = w;
    rma_buf_t target, local;
    int peer = loop ? 0 : 1;
    if (loop || p->rank == 1) {
        buf_make(p, &target, len, 2 * s + 1); /* the target starts with pattern (2s + 1) */
        w->scratch[0] = (uintptr_t)target.mem + GUARD;
        if (target.reg)
            p->ops.mem_pack_rkey(p->tl, target.reg, (void *)&w->scratch[RKEY_WORD]);
    }
    tlw_barrier(p);
    if (p->rank == 0) {
        buf_make(p, &local, len, 2 * s); /* local bytes [GUARD..) are what get must replace */
        ibex_tl_rma_t d = {.local = local.mem + GUARD,
                           .len = len,
                           .local_mem = local.reg,
                           .remote = w->scratch[0],
                           .rkey = (const void *)&w->scratch[RKEY_WORD]};
        if (p->caps.flags & IBEX_TL_CAP_GET) {
            TLW_CHECK(rma_one(p, p->ep[peer], false, &d) == IBEX_OK);
            /* target bytes are pattern(2s + 1, GUARD + i); guards keep pattern(2s) */
            for (size_t i = 0; i < len; i++)
                TLW_CHECK(local.mem[GUARD + i] == pattern(2 * s + 1, GUARD + i));
            TLW_CHECK(local.mem[GUARD - 1] == pattern(2 * s, GUARD - 1));
            TLW_CHECK(local.mem[GUARD + len] == pattern(2 * s, GUARD + len));
        }
        if (p->caps.flags & IBEX_TL_CAP_PUT) {
            for (size_t i = 0; i < len; i++)
                local.mem[GUARD + i] = pattern(3 * s + 7, i);
            TLW_CHECK(rma_one(p, p->ep[peer], true, &d) == IBEX_OK);
        }
        buf_free(p, &local);
        atomic_store(&w->scratch[1], s); /* done with size s */
    }
    if (!loop && p->rank == 1) /* serve the transfer: a backend may connect on first use */
        tlw_progress_until(p, size_done, (void *)(uintptr_t)s);
    tlw_barrier(p);
    if (loop || p->rank == 1) {
        if (p->caps.flags & IBEX_TL_CAP_PUT)
            TLW_CHECK(buf_check(&target, 3 * s + 7, 2 * s + 1) ||
                      !"put: the target's bytes or its guards are wrong");
        buf_free(p, &target);
    }
    tlw_barrier(p);
}

static void rma_body(tl_proc_t *p)
{
    const ibex_tl_component_t *comp = p->arg;
    bool loop = p->w->n == 1;
    tlw_open(p, comp, am_cb, NULL, loop);
    size_t max_rma = p->caps.max_rma ? p->caps.max_rma : 1 << 20;
    size_t sizes[] = {1, 4096 + 3, (max_rma < (8u << 20) ? max_rma : 8u << 20) + 5, (1u << 20) + 1};
    for (uint64_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        rma_size(p, loop, sizes[s], s + 1);
    tlw_close(p);
}

/* ---- the suite over the registry ---- */

/* Whether the backend opens here at all (verbs needs a device, e.g. softib preloaded). */
static bool opens_here(ibex_tl_component_t *comp)
{
    int peers[1] = {0};
    ibex_tl_params_t params = {.size = 1, .local_size = 1, .local_peers = peers, .recv_cb = am_cb};
    ibex_tl_t *tl;
    ibex_tl_caps_t caps;
    int level = ibex_log_level;
    ibex_log_level = -1; /* "no device" is an answer here, not an error */
    ibex_status_t st = comp->ops.open(&params, &tl, &caps);
    ibex_log_level = level;
    if (st != IBEX_OK)
        return false;
    comp->ops.close(tl);
    return true;
}

static void run_case(void (*body)(tl_proc_t *), const char *what)
{
    int ran = 0;
    for (int i = 0; i < ibex_tl_component_count(); i++) {
        ibex_tl_component_t *comp = ibex_tl_component(i);
        if (!opens_here(comp)) {
            printf("# %s: %s skipped (it does not open on this machine)\n", what, comp->name);
            continue;
        }
        int n = (comp->flags & IBEX_TL_COMP_LOOPBACK) ? 1 : 2;
        printf("# %s: %s on %d process(es)\n", what, comp->name, n);
        fflush(stdout);
        assert_int_equal(tlw_run(n, 120, body, comp), 0);
        ran++;
    }
    assert_true(ran >= 2); /* self and shm open everywhere */
}

static void test_active_messages(void **state)
{
    (void)state;
    run_case(am_body, "active messages");
}

static void test_send_fill(void **state)
{
    (void)state;
    am_fill = true;
    run_case(am_body, "send_fill");
    am_fill = false;
}

static void test_put_get(void **state)
{
    (void)state;
    run_case(rma_body, "put / get");
}

static int setup(void **state)
{
    (void)state;
    return ibex_config_load() == IBEX_OK && ibex_tl_component_count() >= 2 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_active_messages),
        cmocka_unit_test(test_send_fill),
        cmocka_unit_test(test_put_get),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
