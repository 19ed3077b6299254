/* SPDX-License-Identifier: BSD-3-Clause */
/* ibex_proto_wire_check: which messages from a peer the engine accepts (issue 16). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_proto.h"

static char why[128];

static ibex_status_t check(const void *m, size_t len)
{
    why[0] = 0;
    return ibex_proto_wire_check(m, len, why, sizeof(why));
}

static void test_good(void **state)
{
    (void)state;
    unsigned char buf[256] = {0};
    ibex_match_hdr_t *m = (void *)buf;
    ibex_ctl_hdr_t *c = (void *)buf;

    m->type = IBEX_HDR_EAGER;
    assert_int_equal(check(buf, sizeof(*m)), IBEX_OK);
    assert_int_equal(check(buf, sizeof(*m) + 100), IBEX_OK);
    m->type = IBEX_HDR_RTS;
    m->rkey_len = 8;
    assert_int_equal(check(buf, offsetof(ibex_rts_hdr_t, rkey) + 8), IBEX_OK);
    memset(buf, 0, sizeof(buf));
    for (int t = IBEX_HDR_CTS; t <= IBEX_HDR_ACK; t++) {
        c->type = (uint8_t)t;
        c->rkey_len = t == IBEX_HDR_CTS ? IBEX_RKEY_MAX : 0;
        assert_int_equal(check(buf, offsetof(ibex_ctl_hdr_t, rkey) + c->rkey_len), IBEX_OK);
    }
}

static void expect_bad(const void *m, size_t len, const char *needle)
{
    assert_int_equal(check(m, len), IBEX_ERR_INVALID);
    if (!strstr(why, needle))
        fail_msg("reason '%s' does not mention '%s'", why, needle);
}

static void test_bad(void **state)
{
    (void)state;
    unsigned char buf[256] = {0};
    ibex_match_hdr_t *m = (void *)buf;
    ibex_ctl_hdr_t *c = (void *)buf;

    expect_bad(buf, 0, "empty");
    m->type = IBEX_HDR_EAGER;
    expect_bad(buf, sizeof(*m) - 1, "shorter than its header");
    m->type = IBEX_HDR_RTS;
    m->rkey_len = 8;
    expect_bad(buf, offsetof(ibex_rts_hdr_t, rkey) + 7, "shorter than its header");
    m->rkey_len = IBEX_RKEY_MAX + 1;
    expect_bad(buf, sizeof(buf), "remote key");
    memset(buf, 0, sizeof(buf));
    c->type = IBEX_HDR_FIN;
    expect_bad(buf, offsetof(ibex_ctl_hdr_t, rkey) - 1, "control message");
    c->type = IBEX_HDR_CTS;
    c->rkey_len = 4;
    expect_bad(buf, offsetof(ibex_ctl_hdr_t, rkey) + 3, "shorter than its header");
    c->type = IBEX_HDR_COUNT;
    expect_bad(buf, sizeof(buf), "unknown type");
    c->type = 0xff;
    expect_bad(buf, sizeof(buf), "unknown type 255");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
