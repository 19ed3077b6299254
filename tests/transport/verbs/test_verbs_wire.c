/* SPDX-License-Identifier: BSD-3-Clause */
/* verbs_wire.c: which published addresses and connection datagrams are accepted (issue 16). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "verbs_wire.h"

static verbs_addr_t good_addr(void)
{
    verbs_addr_t a;
    memset(&a, 0, sizeof(a));
    a.magic = VERBS_ADDR_MAGIC;
    a.ud_qpn = 0x42;
    a.nonce = 7;
    a.lid = 3;
    a.port = 1;
    a.mtu = IBV_MTU_4096;
    a.grant = 30;
    a.max_dest_rd = 16;
    return a;
}

static void expect_addr_bad(verbs_addr_t a, size_t len, const char *needle)
{
    char why[80] = "";
    assert_false(ibex_verbs_addr_valid(&a, len, why, sizeof(why)));
    if (!strstr(why, needle))
        fail_msg("reason '%s' does not mention '%s'", why, needle);
}

static void test_addr(void **state)
{
    (void)state;
    char why[80];
    verbs_addr_t a = good_addr();

    assert_true(ibex_verbs_addr_valid(&a, sizeof(a), why, sizeof(why)));
    expect_addr_bad(a, sizeof(a) - 1, "not a verbs address");
    a.magic ^= 1;
    expect_addr_bad(a, sizeof(a), "magic");
    a = good_addr();
    a.mtu = 0;
    expect_addr_bad(a, sizeof(a), "MTU");
    a.mtu = 6;
    expect_addr_bad(a, sizeof(a), "MTU");
    a = good_addr();
    a.port = 0;
    expect_addr_bad(a, sizeof(a), "port 0");
    a = good_addr();
    a.grant = 0;
    expect_addr_bad(a, sizeof(a), "credits");
    a.grant = 70000;
    expect_addr_bad(a, sizeof(a), "credits");
    a = good_addr();
    a.is_roce = 2;
    expect_addr_bad(a, sizeof(a), "link layer");
}

static verbs_cm_msg_t good_msg(void)
{
    verbs_cm_msg_t m;
    memset(&m, 0, sizeof(m));
    m.magic = VERBS_CM_MAGIC;
    m.type = CM_REQ;
    m.src = 0;
    m.dst = 1;
    m.qpn = 0x105;
    m.dst_nonce = 99;
    m.addr = good_addr();
    return m;
}

static bool parse(const verbs_cm_msg_t *m, uint32_t len)
{
    verbs_cm_msg_t out;
    return ibex_verbs_cm_parse(m, len, 1, 4, 99, 0x42, &out);
}

static void test_cm(void **state)
{
    (void)state;
    verbs_cm_msg_t m = good_msg();

    assert_true(parse(&m, sizeof(m)));
    m.type = CM_DISC;
    assert_true(parse(&m, sizeof(m)));
    assert_false(parse(&m, sizeof(m) - 1));
    m = good_msg();
    m.type = 5;
    assert_false(parse(&m, sizeof(m)));
    m = good_msg();
    m.dst_nonce = 98; /* another job's, or a guess */
    assert_false(parse(&m, sizeof(m)));
    m = good_msg();
    m.src = 1; /* ourselves */
    assert_false(parse(&m, sizeof(m)));
    m.src = 4;
    assert_false(parse(&m, sizeof(m)));
    m.src = -1;
    assert_false(parse(&m, sizeof(m)));
    m = good_msg();
    m.dst = 2;
    assert_false(parse(&m, sizeof(m)));
    m = good_msg();
    m.addr.ud_qpn = 0x43; /* not the UD QP it came from */
    assert_false(parse(&m, sizeof(m)));
    m = good_msg();
    m.addr.grant = 0;
    assert_false(parse(&m, sizeof(m)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_addr),
        cmocka_unit_test(test_cm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
