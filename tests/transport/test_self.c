/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for the self transport (transport/self/self.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_config.h"
#include "ibex_log.h"
#include "transport.h"

typedef struct self_fixture {
    ibex_tl_ops_t ops;
    ibex_tl_t *tl;
    ibex_tl_caps_t caps;
    ibex_tl_ep_t *ep;
    bool in_send;  /* set around send(): the callback must never see it */
    int reentered; /* callbacks run from inside send() */
    uint64_t next; /* sequence number expected next */
    uint64_t received;
    uint64_t bad;
    int again_left;       /* the callback refuses this many offers first */
    int sends_from_cb;    /* messages the callback sends back to itself */
    int progress_from_cb; /* events a nested progress() reported */
} self_fixture_t;

static size_t msg_len(const self_fixture_t *f, uint64_t seq)
{
    size_t max = f->caps.max_eager - sizeof(uint64_t);
    return seq % 5 == 0 ? 0 : seq % 5 == 1 ? max : (size_t)(seq * 131) % max;
}

static unsigned char payload_buf[1 << 17];

static size_t fill_payload(const self_fixture_t *f, uint64_t seq)
{
    size_t len = msg_len(f, seq);
    for (size_t k = 0; k < len; k += 61)
        payload_buf[k] = (unsigned char)(seq + k);
    return len;
}

static ibex_status_t self_recv(void *arg, int src, const void *data, size_t len)
{
    self_fixture_t *f = arg;
    uint64_t seq;
    f->reentered += f->in_send;
    if (f->again_left > 0) {
        f->again_left--;
        return IBEX_ERR_AGAIN;
    }
    memcpy(&seq, data, sizeof(seq));
    f->bad += src != 0 || seq != f->next || len != sizeof(seq) + msg_len(f, seq);
    const unsigned char *p = (const unsigned char *)data + sizeof(seq);
    for (size_t k = 0; k + sizeof(seq) < len; k += 61)
        f->bad += p[k] != (unsigned char)(seq + k);
    f->next++;
    f->received++;
    if (f->sends_from_cb > 0) {
        f->sends_from_cb--;
        seq = f->next; /* the echo is the next message in sequence */
        size_t elen = fill_payload(f, seq);
        f->bad += f->ops.send(f->ep, &seq, sizeof(seq), payload_buf, elen) != IBEX_OK;
    }
    f->progress_from_cb += f->ops.progress(f->tl);
    return IBEX_OK;
}

static int setup(void **state)
{
    self_fixture_t *f = calloc(1, sizeof(*f));
    int peers[1] = {0};
    ibex_tl_params_t params = {.rank = 0,
                               .size = 2,
                               .local_size = 1,
                               .local_peers = peers,
                               .recv_cb = self_recv,
                               .cb_arg = f};
    assert_int_equal(ibex_config_load(), IBEX_OK);
    const ibex_tl_component_t *self = ibex_tl_component_find("self");
    assert_non_null(self);
    f->ops = self->ops;
    ibex_tl_fill_stubs(&f->ops);
    assert_int_equal(f->ops.open(&params, &f->tl, &f->caps), IBEX_OK);
    assert_int_equal(f->ops.ep_create(f->tl, 0, NULL, 0, &f->ep), IBEX_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    self_fixture_t *f = *state;
    f->ops.ep_destroy(f->ep);
    f->ops.close(f->tl);
    free(f);
    return 0;
}

static ibex_status_t send_seq(self_fixture_t *f, uint64_t seq)
{
    size_t len = fill_payload(f, seq);
    f->in_send = true;
    ibex_status_t status = f->ops.send(f->ep, &seq, sizeof(seq), payload_buf, len);
    f->in_send = false;
    return status;
}

static void test_caps_and_reach(void **state)
{
    self_fixture_t *f = *state;
    ibex_tl_ep_t *ep;
    assert_true(f->caps.flags & IBEX_TL_CAP_SEND);
    assert_true(f->caps.flags & IBEX_TL_CAP_PUT);
    assert_true(f->caps.flags & IBEX_TL_CAP_GET);
    assert_false(f->caps.flags & IBEX_TL_CAP_NEED_REG);
    assert_true(f->caps.max_eager >= 4096);
    assert_true(f->ops.reachable(f->tl, 0));
    assert_false(f->ops.reachable(f->tl, 1));
    ibex_log_level = -1;
    assert_int_equal(f->ops.ep_create(f->tl, 1, NULL, 0, &ep), IBEX_ERR_UNREACHABLE);
    assert_int_equal(f->ops.send(f->ep, "x", 1, NULL, f->caps.max_eager), IBEX_ERR_INVALID);
    ibex_log_level = IBEX_LOG_WARN;
}

/* 100k messages of sizes 0 .. max_eager arrive in order, and only from progress(). */
static void test_order_not_reentrant(void **state)
{
    self_fixture_t *f = *state;
    uint64_t sent = 0, agains = 0;
    while (sent < 100000) {
        ibex_status_t status = send_seq(f, sent);
        if (status == IBEX_OK) {
            sent++;
            continue;
        }
        assert_int_equal(status, IBEX_ERR_AGAIN);
        agains++;
        assert_true(f->ops.progress(f->tl) > 0);
    }
    while (f->ops.progress(f->tl) > 0)
        ;
    assert_int_equal(f->received, 100000);
    assert_int_equal(f->bad, 0);
    assert_int_equal(f->reentered, 0);
    assert_int_equal(f->progress_from_cb, 0); /* nested progress delivers nothing */
    assert_true(agains > 0);                  /* the buffer filled: back-pressure works */
}

/* A message refused with AGAIN is offered again first; nothing behind it overtakes it. */
static void test_again_holds(void **state)
{
    self_fixture_t *f = *state;
    for (uint64_t i = 0; i < 10; i++)
        assert_int_equal(send_seq(f, i), IBEX_OK);
    f->again_left = 3;
    for (int i = 0; i < 3; i++)
        assert_int_equal(f->ops.progress(f->tl), 0);
    assert_int_equal(f->received, 0);
    while (f->ops.progress(f->tl) > 0)
        ;
    assert_int_equal(f->received, 10);
    assert_int_equal(f->bad, 0);
}

/* A message sent from inside the callback waits for the next progress() call. */
static void test_send_from_callback(void **state)
{
    self_fixture_t *f = *state;
    assert_int_equal(send_seq(f, 0), IBEX_OK);
    f->sends_from_cb = 1;
    assert_int_equal(f->ops.progress(f->tl), 1);
    assert_int_equal(f->received, 1);
    assert_int_equal(f->ops.progress(f->tl), 1);
    assert_int_equal(f->received, 2);
    assert_int_equal(f->ops.progress(f->tl), 0);
    assert_int_equal(f->bad, 0);
}

static void test_put_get(void **state)
{
    self_fixture_t *f = *state;
    size_t len = 1 << 20;
    unsigned char *a = malloc(len), *b = calloc(1, len);
    for (size_t i = 0; i < len; i++)
        a[i] = (unsigned char)(i * 7);
    ibex_tl_rma_t put = {.local = a, .len = len, .remote = (uintptr_t)b};
    assert_int_equal(f->ops.put(f->ep, &put), IBEX_OK);
    assert_memory_equal(a, b, len);
    memset(a, 0, len);
    ibex_tl_rma_t get = {.local = a, .len = len - 1, .remote = (uintptr_t)b + 1};
    assert_int_equal(f->ops.get(f->ep, &get), IBEX_OK);
    assert_memory_equal(a, b + 1, len - 1);
    ibex_tl_rma_t zero = {.local = a, .len = 0, .remote = (uintptr_t)b};
    assert_int_equal(f->ops.get(f->ep, &zero), IBEX_OK);
    free(a);
    free(b);
}

/* This program links one backend: the registry holds exactly that one. */
static void test_registry_subset(void **state)
{
    (void)state;
    assert_int_equal(ibex_tl_component_count(), 1);
    assert_string_equal(ibex_tl_component(0)->name, "self");
    assert_null(ibex_tl_component(1));
    assert_null(ibex_tl_component_find("shm"));
    assert_true(ibex_tl_component(0)->flags & IBEX_TL_COMP_LOOPBACK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_subset),
        cmocka_unit_test_setup_teardown(test_caps_and_reach, setup, teardown),
        cmocka_unit_test_setup_teardown(test_order_not_reentrant, setup, teardown),
        cmocka_unit_test_setup_teardown(test_again_holds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_send_from_callback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_put_get, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
