/* Unit tests for the tunables table (runtime/base/config.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_config.h"
#include "ibex_log.h"

static void test_defaults(void **state)
{
    (void)state;
    unsetenv("IBEX_EAGER_LIMIT");
    unsetenv("IBEX_RNDV_SCHEME");
    assert_int_equal(ibex_config_load(), IBEX_OK);
    assert_true(ibex_config.eager_limit == IBEX_SIZE_AUTO);
    assert_int_equal(ibex_config.rndv_scheme, IBEX_RNDV_AUTO);
    assert_int_equal(ibex_config.shm_ring_slots, 64);
}

static void test_env_values(void **state)
{
    (void)state;
    setenv("IBEX_EAGER_LIMIT", "64k", 1);
    setenv("IBEX_RNDV_SCHEME", "WRITE", 1);
    setenv("IBEX_SPIN_COUNT", "17", 1);
    assert_int_equal(ibex_config_load(), IBEX_OK);
    assert_true(ibex_config.eager_limit == 65536);
    assert_int_equal(ibex_config.rndv_scheme, IBEX_RNDV_WRITE);
    assert_int_equal(ibex_config.spin_count, 17);
    unsetenv("IBEX_EAGER_LIMIT");
    unsetenv("IBEX_RNDV_SCHEME");
    unsetenv("IBEX_SPIN_COUNT");
}

static void test_bad_values_rejected(void **state)
{
    (void)state;
    ibex_log_level = -1; /* silence the expected error lines */
    const ibex_cfg_entry_t *e = ibex_config_find("IBEX_RNDV_SCHEME");
    assert_non_null(e);
    assert_int_equal(ibex_config_set(e, "sideways"), IBEX_ERR_INVALID);
    e = ibex_config_find("SPIN_COUNT");
    assert_int_equal(ibex_config_set(e, "12x"), IBEX_ERR_INVALID);
    setenv("IBEX_EAGER_LIMIT", "-5", 1);
    assert_int_equal(ibex_config_load(), IBEX_ERR_INVALID);
    unsetenv("IBEX_EAGER_LIMIT");
    assert_null(ibex_config_find("IBEX_NO_SUCH_THING"));
}

static void test_parse_size(void **state)
{
    (void)state;
    long long v;
    assert_int_equal(ibex_parse_size("4096", &v), 0);
    assert_true(v == 4096);
    assert_int_equal(ibex_parse_size("1m", &v), 0);
    assert_true(v == 1048576);
    assert_int_equal(ibex_parse_size("2G", &v), 0);
    assert_true(v == 2147483648LL);
    assert_int_equal(ibex_parse_size("", &v), -1);
    assert_int_equal(ibex_parse_size("1q", &v), -1);
    assert_int_equal(ibex_parse_size("99999999999999g", &v), -1);
}

static void test_format_roundtrip(void **state)
{
    (void)state;
    char buf[64];
    setenv("IBEX_RNDV_SCHEME", "read", 1);
    assert_int_equal(ibex_config_load(), IBEX_OK);
    ibex_config_format(ibex_config_find("RNDV_SCHEME"), buf, sizeof(buf));
    assert_string_equal(buf, "read");
    ibex_config_format(ibex_config_find("EAGER_LIMIT"), buf, sizeof(buf));
    assert_string_equal(buf, "auto");
    unsetenv("IBEX_RNDV_SCHEME");
    for (int i = 0; ibex_config_entry(i); i++)
        assert_true(strlen(ibex_config_entry(i)->doc) > 10);
}

static void test_log_subsys(void **state)
{
    (void)state;
    unsigned mask;
    assert_int_equal(ibex_log_subsys_parse("tl,proto", &mask), 0);
    assert_int_equal(mask, (1u << IBEX_SUBSYS_TL) | (1u << IBEX_SUBSYS_PROTO));
    assert_int_equal(ibex_log_subsys_parse("tl,bogus", &mask), -1);
    assert_int_equal(ibex_log_level_parse("DEBUG"), IBEX_LOG_DEBUG);
    assert_int_equal(ibex_log_level_parse("loud"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_env_values),
        cmocka_unit_test(test_bad_values_rejected),
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_format_roundtrip),
        cmocka_unit_test(test_log_subsys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
