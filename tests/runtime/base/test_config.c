/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for the tunables registry (runtime/base/config.c). This program links the base
 * table (LOG, LOG_SUBSYS) and registers two tables of its own, from two modules, as any module
 * does: the registry must find exactly these, in layer-then-name order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ibex_config.h"
#include "ibex_log.h"

/* Registered before "alpha" in this file and in a higher layer: must still sort after it. */
static struct {
    int slots;
    char *device;
} zeta;
static const ibex_cfg_entry_t zeta_table[] = {
    {"TEST_ZETA_SLOTS", IBEX_CFG_INT, "64", NULL, &zeta.slots, "slots of the zeta test module"},
    {"TEST_ZETA_DEVICE", IBEX_CFG_STRING, "auto", NULL, &zeta.device,
     "device of the zeta test module"},
};
IBEX_CFG_MODULE(zeta, "zeta", IBEX_CFG_LAYER_TRANSPORT, zeta_table);

static struct {
    long long eager;
    int scheme;
    int spin;
    long long frag;
    int fork;
} alpha;
static const ibex_cfg_entry_t alpha_table[] = {
    {"TEST_EAGER", IBEX_CFG_SIZE_AUTO, "auto", NULL, &alpha.eager, "an eager limit for the test"},
    {"TEST_SCHEME", IBEX_CFG_ENUM, "auto", "auto|read|write", &alpha.scheme,
     "a scheme for the test"},
    {"TEST_SPIN", IBEX_CFG_INT, "10000", NULL, &alpha.spin, "a spin count for the test"},
    {"TEST_FRAG", IBEX_CFG_SIZE, "4m", NULL, &alpha.frag, "a fragment size for the test"},
    {"TEST_FORK", IBEX_CFG_BOOL, "0", NULL, &alpha.fork, "a flag for the test"},
};
IBEX_CFG_MODULE(alpha, "alpha", IBEX_CFG_LAYER_ENGINE, alpha_table);

/* Runs a load with stderr going to an anonymous file; returns its status and what it logged. */
static ibex_status_t load_capture(char *out, size_t len, ibex_status_t (*load)(void))
{
    FILE *f = tmpfile(); /* already unlinked: leaves nothing behind */
    assert_non_null(f);
    fflush(stderr);
    int saved = dup(2);
    assert_true(saved >= 0 && dup2(fileno(f), 2) == 2);
    ibex_status_t st = load();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    size_t n = fread(out, 1, len - 1, f);
    out[n] = '\0';
    fclose(f);
    return st;
}

static void test_defaults(void **state)
{
    (void)state;
    unsetenv("IBEX_TEST_EAGER");
    unsetenv("IBEX_TEST_SCHEME");
    assert_int_equal(ibex_config_load(), IBEX_OK);
    assert_true(alpha.eager == IBEX_SIZE_AUTO);
    assert_int_equal(alpha.scheme, 0);
    assert_true(alpha.frag == 4 << 20);
    assert_int_equal(zeta.slots, 64);
    assert_string_equal(zeta.device, "auto");
}

static void test_env_values(void **state)
{
    (void)state;
    setenv("IBEX_TEST_EAGER", "64k", 1);
    setenv("IBEX_TEST_SCHEME", "WRITE", 1);
    setenv("IBEX_TEST_SPIN", "17", 1);
    setenv("IBEX_TEST_ZETA_DEVICE", "mlx5_0:1", 1);
    setenv("IBEX_TEST_FORK", "yes", 1);
    assert_int_equal(ibex_config_load(), IBEX_OK);
    assert_true(alpha.eager == 65536);
    assert_int_equal(alpha.scheme, 2);
    assert_int_equal(alpha.spin, 17);
    assert_int_equal(alpha.fork, 1);
    assert_string_equal(zeta.device, "mlx5_0:1");
    unsetenv("IBEX_TEST_EAGER");
    unsetenv("IBEX_TEST_SCHEME");
    unsetenv("IBEX_TEST_SPIN");
    unsetenv("IBEX_TEST_ZETA_DEVICE");
    unsetenv("IBEX_TEST_FORK");
    assert_int_equal(ibex_config_load(), IBEX_OK); /* a reload goes back to the defaults */
    assert_int_equal(alpha.spin, 10000);
    assert_string_equal(zeta.device, "auto");
}

/* Both test modules and the base one, each entry once, grouped by module in layer order. */
static void test_order_and_modules(void **state)
{
    (void)state;
    static const char *want[] = {"LOG",         "LOG_SUBSYS",      "TEST_EAGER",
                                 "TEST_SCHEME", "TEST_SPIN",       "TEST_FRAG",
                                 "TEST_FORK",   "TEST_ZETA_SLOTS", "TEST_ZETA_DEVICE"};
    static const char *module[] = {"base",  "base",  "alpha", "alpha", "alpha",
                                   "alpha", "alpha", "zeta",  "zeta"};
    int n = (int)(sizeof(want) / sizeof(want[0]));
    for (int i = 0; i < n; i++) {
        assert_non_null(ibex_config_entry(i));
        assert_string_equal(ibex_config_entry(i)->name, want[i]);
        assert_string_equal(ibex_config_entry_module(i)->name, module[i]);
        assert_ptr_equal(ibex_config_find(want[i]), ibex_config_entry(i));
    }
    assert_null(ibex_config_entry(n));
    assert_null(ibex_config_entry(-1));
    assert_null(ibex_config_entry_module(n));
    /* stable: asking again gives the same entries */
    for (int i = 0; i < n; i++)
        assert_string_equal(ibex_config_entry(i)->name, want[i]);
    assert_ptr_equal(ibex_config_find("TEST_SPIN")->addr, &alpha.spin);
}

static void test_bad_values_rejected(void **state)
{
    (void)state;
    char log[1024];
    ibex_log_level = -1; /* silence the expected error lines */
    const ibex_cfg_entry_t *e = ibex_config_find("IBEX_TEST_SCHEME");
    assert_non_null(e);
    assert_int_equal(ibex_config_set(e, "sideways"), IBEX_ERR_INVALID);
    e = ibex_config_find("TEST_SPIN");
    assert_int_equal(ibex_config_set(e, "12x"), IBEX_ERR_INVALID);
    setenv("IBEX_TEST_EAGER", "-5", 1);
    assert_int_equal(load_capture(log, sizeof(log), ibex_config_load), IBEX_ERR_INVALID);
    assert_non_null(strstr(log, "IBEX_TEST_EAGER='-5' is not valid"));
    unsetenv("IBEX_TEST_EAGER");
    setenv("IBEX_TEST_ZETA_SLOTS", "many", 1); /* the other module's table: named too */
    assert_int_equal(load_capture(log, sizeof(log), ibex_config_load), IBEX_ERR_INVALID);
    assert_non_null(strstr(log, "IBEX_TEST_ZETA_SLOTS='many' is not valid: expected an integer"));
    unsetenv("IBEX_TEST_ZETA_SLOTS");
    assert_null(ibex_config_find("IBEX_NO_SUCH_THING"));
    assert_null(ibex_config_find("EAGER_LIMIT")); /* the engine's table is not linked here */
}

static void test_unknown_variable_warns(void **state)
{
    (void)state;
    char log[1024];
    setenv("IBEX_TEST_NO_SUCH_THING", "1", 1);
    assert_int_equal(load_capture(log, sizeof(log), ibex_config_load), IBEX_OK);
    assert_non_null(strstr(log, "IBEX_TEST_NO_SUCH_THING is not an Ibex variable"));
    unsetenv("IBEX_TEST_NO_SUCH_THING");
    assert_int_equal(load_capture(log, sizeof(log), ibex_config_load), IBEX_OK);
    assert_null(strstr(log, "IBEX_TEST_NO_SUCH_THING"));
}

/* ibexrun's load: its own tables parsed (bad values still fail), other names left alone. */
static void test_load_own(void **state)
{
    (void)state;
    char log[1024];
    setenv("IBEX_TEST_NO_SUCH_THING", "1", 1);
    setenv("IBEX_TEST_SPIN", "5", 1);
    assert_int_equal(load_capture(log, sizeof(log), ibex_config_load_own), IBEX_OK);
    assert_null(strstr(log, "IBEX_TEST_NO_SUCH_THING"));
    assert_int_equal(alpha.spin, 5);
    setenv("IBEX_TEST_SPIN", "five", 1);
    assert_int_equal(load_capture(log, sizeof(log), ibex_config_load_own), IBEX_ERR_INVALID);
    assert_non_null(strstr(log, "IBEX_TEST_SPIN='five' is not valid"));
    unsetenv("IBEX_TEST_SPIN");
    unsetenv("IBEX_TEST_NO_SUCH_THING");
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
    setenv("IBEX_TEST_SCHEME", "read", 1);
    assert_int_equal(ibex_config_load(), IBEX_OK);
    ibex_config_format(ibex_config_find("TEST_SCHEME"), buf, sizeof(buf));
    assert_string_equal(buf, "read");
    ibex_config_format(ibex_config_find("TEST_EAGER"), buf, sizeof(buf));
    assert_string_equal(buf, "auto");
    ibex_config_format(ibex_config_find("LOG"), buf, sizeof(buf));
    assert_string_equal(buf, "warn");
    unsetenv("IBEX_TEST_SCHEME");
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
    unsetenv("IBEX_LOG"); /* the tests read what the default level logs */
    unsetenv("IBEX_LOG_SUBSYS");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_env_values),
        cmocka_unit_test(test_order_and_modules),
        cmocka_unit_test(test_bad_values_rejected),
        cmocka_unit_test(test_unknown_variable_warns),
        cmocka_unit_test(test_load_own),
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_format_roundtrip),
        cmocka_unit_test(test_log_subsys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
