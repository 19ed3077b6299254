/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for the protocol choice (runtime/engine/proto_choose.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "ibex_engine_cfg.h"
#include "ibex_proto.h"

static const size_t HDR = sizeof(ibex_match_hdr_t);

static ibex_tl_caps_t caps_rw(size_t max_eager, size_t hint)
{
    ibex_tl_caps_t c = {.flags = IBEX_TL_CAP_SEND | IBEX_TL_CAP_PUT | IBEX_TL_CAP_GET,
                        .max_eager = max_eager,
                        .eager_limit_hint = hint};
    return c;
}

static int setup(void **state)
{
    (void)state;
    unsetenv("IBEX_EAGER_LIMIT");
    unsetenv("IBEX_RNDV_SCHEME");
    return ibex_config_load() == IBEX_OK ? 0 : -1;
}

/* auto: the transport's hint, but never more than one send minus the header can carry */
static void test_auto_limit(void **state)
{
    (void)state;
    ibex_tl_caps_t c = caps_rw(8192, 4096);
    assert_int_equal(ibex_proto_eager_limit(&c), 4096);
    c.eager_limit_hint = 100000;
    assert_int_equal(ibex_proto_eager_limit(&c), 8192 - HDR);
    c.eager_limit_hint = 0; /* no hint: as much as fits */
    assert_int_equal(ibex_proto_eager_limit(&c), 8192 - HDR);
    c.max_eager = HDR / 2; /* cannot even carry a header */
    assert_int_equal(ibex_proto_eager_limit(&c), 0);
}

static void test_forced_limit(void **state)
{
    (void)state;
    ibex_tl_caps_t c = caps_rw(8192, 4096);
    ibex_engine_cfg.eager_limit = 1024;
    assert_int_equal(ibex_proto_eager_limit(&c), 1024);
    ibex_engine_cfg.eager_limit = 1 << 20; /* forcing more than the transport carries is capped */
    assert_int_equal(ibex_proto_eager_limit(&c), 8192 - HDR);
    ibex_engine_cfg.eager_limit = 0;
    assert_int_equal(ibex_proto_choose(&c, 0, true), IBEX_PROTO_EAGER);
    assert_int_equal(ibex_proto_choose(&c, 1, true), IBEX_PROTO_RNDV_READ);
    ibex_engine_cfg.eager_limit = IBEX_SIZE_AUTO;
}

static void test_boundary(void **state)
{
    (void)state;
    ibex_tl_caps_t c = caps_rw(8192, 4096);
    assert_int_equal(ibex_proto_choose(&c, 4096, true), IBEX_PROTO_EAGER);
    assert_int_equal(ibex_proto_choose(&c, 4097, true), IBEX_PROTO_RNDV_READ);
}

static void test_scheme(void **state)
{
    (void)state;
    ibex_tl_caps_t c = caps_rw(8192, 4096);
    ibex_engine_cfg.rndv_scheme = IBEX_RNDV_WRITE;
    assert_int_equal(ibex_proto_choose(&c, 1 << 20, true), IBEX_PROTO_RNDV_WRITE);
    ibex_engine_cfg.rndv_scheme = IBEX_RNDV_READ;
    assert_int_equal(ibex_proto_choose(&c, 1 << 20, true), IBEX_PROTO_RNDV_READ);
    /* a transport that can only put gets WRITE even when READ is asked for */
    c.flags &= ~(uint32_t)IBEX_TL_CAP_GET;
    assert_int_equal(ibex_proto_choose(&c, 1 << 20, true), IBEX_PROTO_RNDV_WRITE);
    /* and one that can only get gets READ even when WRITE is asked for */
    c.flags = IBEX_TL_CAP_SEND | IBEX_TL_CAP_GET;
    ibex_engine_cfg.rndv_scheme = IBEX_RNDV_WRITE;
    assert_int_equal(ibex_proto_choose(&c, 1 << 20, true), IBEX_PROTO_RNDV_READ);
    ibex_engine_cfg.rndv_scheme = IBEX_RNDV_AUTO;
    c.flags |= IBEX_TL_CAP_PUT;
    assert_int_equal(ibex_proto_choose(&c, 1 << 20, true), IBEX_PROTO_RNDV_READ);
}

/* SPLIT: auto scheme only, CPU-copy transports only, from IBEX_RNDV_SPLIT_MIN on */
static void test_split(void **state)
{
    (void)state;
    ibex_tl_caps_t c = caps_rw(8192, 4096);
    c.flags |= IBEX_TL_CAP_CPU_RMA;
    ibex_engine_cfg.rndv_split_min = 65536;
    ibex_engine_cfg.rndv_pipe_max = 0; /* PIPE off: test_pipe */
    ibex_engine_cfg.rndv_pipe_contig_max = 0;
    assert_int_equal(ibex_proto_choose(&c, 4096, true), IBEX_PROTO_EAGER);
    assert_int_equal(ibex_proto_choose(&c, 65535, true), IBEX_PROTO_RNDV_READ);
    assert_int_equal(ibex_proto_choose(&c, 65536, true), IBEX_PROTO_RNDV_SPLIT);
    ibex_engine_cfg.rndv_scheme = IBEX_RNDV_READ; /* a forced scheme is obeyed */
    assert_int_equal(ibex_proto_choose(&c, 1 << 20, true), IBEX_PROTO_RNDV_READ);
    ibex_engine_cfg.rndv_scheme = IBEX_RNDV_WRITE;
    assert_int_equal(ibex_proto_choose(&c, 1 << 20, true), IBEX_PROTO_RNDV_WRITE);
    ibex_engine_cfg.rndv_scheme = IBEX_RNDV_AUTO;
    c.flags &= ~(uint32_t)IBEX_TL_CAP_CPU_RMA; /* offloaded RMA (verbs): no split */
    assert_int_equal(ibex_proto_choose(&c, 1 << 20, true), IBEX_PROTO_RNDV_READ);
    c.flags |= IBEX_TL_CAP_CPU_RMA;
    c.flags &= ~(uint32_t)IBEX_TL_CAP_PUT; /* needs both directions */
    assert_int_equal(ibex_proto_choose(&c, 1 << 20, true), IBEX_PROTO_RNDV_READ);
}

/* PIPE: auto scheme only, CPU-copy transports only, up to IBEX_RNDV_PIPE_MAX for a
 * non-contiguous send buffer and IBEX_RNDV_PIPE_CONTIG_MAX for a contiguous one; SPLIT above */
static void test_pipe(void **state)
{
    (void)state;
    ibex_tl_caps_t c = caps_rw(8192, 4096);
    c.flags |= IBEX_TL_CAP_CPU_RMA;
    ibex_engine_cfg.rndv_split_min = 65536;
    ibex_engine_cfg.rndv_pipe_max = 262144;
    ibex_engine_cfg.rndv_pipe_contig_max = 262144;
    assert_int_equal(ibex_proto_choose(&c, 4096, true), IBEX_PROTO_EAGER);
    assert_int_equal(ibex_proto_choose(&c, 4097, true), IBEX_PROTO_RNDV_PIPE);
    assert_int_equal(ibex_proto_choose(&c, 262144, true), IBEX_PROTO_RNDV_PIPE);
    assert_int_equal(ibex_proto_choose(&c, 262145, true), IBEX_PROTO_RNDV_SPLIT);
    ibex_engine_cfg.rndv_pipe_contig_max = 16384; /* contiguous: PIPE only to its own limit */
    assert_int_equal(ibex_proto_choose(&c, 16384, true), IBEX_PROTO_RNDV_PIPE);
    assert_int_equal(ibex_proto_choose(&c, 16385, true), IBEX_PROTO_RNDV_READ);
    assert_int_equal(ibex_proto_choose(&c, 65536, true), IBEX_PROTO_RNDV_SPLIT);
    assert_int_equal(ibex_proto_choose(&c, 65536, false), IBEX_PROTO_RNDV_PIPE);
    assert_int_equal(ibex_proto_choose(&c, 262145, false), IBEX_PROTO_RNDV_SPLIT);
    ibex_engine_cfg.rndv_pipe_contig_max = 262144;
    ibex_engine_cfg.rndv_scheme = IBEX_RNDV_READ; /* a forced scheme is obeyed */
    assert_int_equal(ibex_proto_choose(&c, 65536, true), IBEX_PROTO_RNDV_READ);
    ibex_engine_cfg.rndv_scheme = IBEX_RNDV_AUTO;
    c.flags &= ~(uint32_t)IBEX_TL_CAP_CPU_RMA; /* offloaded RMA (verbs): no pipe */
    assert_int_equal(ibex_proto_choose(&c, 65536, true), IBEX_PROTO_RNDV_READ);
    c.flags |= IBEX_TL_CAP_CPU_RMA;
    c.max_eager = sizeof(ibex_frag_hdr_t); /* no room for a fragment's payload */
    assert_int_equal(ibex_proto_choose(&c, 65536, true), IBEX_PROTO_RNDV_SPLIT);
}

/* piece lists: only where the transport takes them, within its limit, blocks large enough */
static void test_iov(void **state)
{
    (void)state;
    ibex_tl_caps_t c = caps_rw(8192, 4096);
    ibex_engine_cfg.rndv_iov_min = 2048;
    assert_false(ibex_proto_rndv_iov(&c, 1 << 20, 16));
    c.flags |= IBEX_TL_CAP_RMA_IOV;
    c.max_iov = 64;
    assert_true(ibex_proto_rndv_iov(&c, 1 << 20, 16));
    assert_true(ibex_proto_rndv_iov(&c, 2048 * 64, 64));
    assert_false(ibex_proto_rndv_iov(&c, 2048 * 64 - 1, 64)); /* blocks just under the limit */
    assert_false(ibex_proto_rndv_iov(&c, 1 << 20, 65));       /* more pieces than it takes */
    assert_false(ibex_proto_rndv_iov(&c, 1 << 20, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_auto_limit, setup),
        cmocka_unit_test_setup(test_forced_limit, setup),
        cmocka_unit_test_setup(test_boundary, setup),
        cmocka_unit_test_setup(test_scheme, setup),
        cmocka_unit_test_setup(test_split, setup),
        cmocka_unit_test_setup(test_pipe, setup),
        cmocka_unit_test_setup(test_iov, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
