/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for the mapping / binding plan (launcher/run_map.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_launch.h"

static void test_fit_binds_round_robin(void **state)
{
    int core[4];
    assert_int_equal(ibex_run_map_plan(2, 2, IBEX_RUN_BIND_DEFAULT, core), IBEX_OK);
    assert_int_equal(core[0], 0);
    assert_int_equal(core[1], 1);
    assert_int_equal(ibex_run_map_plan(3, 4, IBEX_RUN_BIND_DEFAULT, core), IBEX_OK);
    assert_int_equal(core[2], 2);
    assert_int_equal(ibex_run_map_plan(1, 1, IBEX_RUN_BIND_CORE, core), IBEX_OK);
    assert_int_equal(core[0], 0);
}

static void test_oversubscribed_default_unbound(void **state)
{
    int core[8];
    assert_int_equal(ibex_run_map_plan(3, 2, IBEX_RUN_BIND_DEFAULT, core), IBEX_OK);
    for (int i = 0; i < 3; i++)
        assert_int_equal(core[i], -1);
}

static void test_oversubscribed_explicit_core(void **state)
{
    int core[8];
    assert_int_equal(ibex_run_map_plan(5, 2, IBEX_RUN_BIND_CORE, core), IBEX_OK);
    int want[] = {0, 1, 0, 1, 0};
    for (int i = 0; i < 5; i++)
        assert_int_equal(core[i], want[i]);
}

static void test_none_and_no_topology(void **state)
{
    int core[4];
    assert_int_equal(ibex_run_map_plan(2, 4, IBEX_RUN_BIND_NONE, core), IBEX_OK);
    assert_int_equal(core[0], -1);
    assert_int_equal(core[1], -1);
    assert_int_equal(ibex_run_map_plan(2, 0, IBEX_RUN_BIND_CORE, core), IBEX_OK);
    assert_int_equal(core[0], -1);
}

static void test_bad_input(void **state)
{
    int core[1];
    assert_int_equal(ibex_run_map_plan(0, 2, IBEX_RUN_BIND_DEFAULT, core), IBEX_ERR_INVALID);
    assert_int_equal(ibex_run_map_plan(1, -1, IBEX_RUN_BIND_DEFAULT, core), IBEX_ERR_INVALID);
}

static void test_format_ranks(void **state)
{
    char buf[64];
    int a[] = {0, 1, 2, 5, 7, 8};
    ibex_run_map_format_ranks(a, 6, buf, sizeof(buf));
    assert_string_equal(buf, "0-2,5,7-8");
    int b[] = {3};
    ibex_run_map_format_ranks(b, 1, buf, sizeof(buf));
    assert_string_equal(buf, "3");
    ibex_run_map_format_ranks(b, 0, buf, sizeof(buf));
    assert_string_equal(buf, "");
    int c[] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22};
    char small[12];
    ibex_run_map_format_ranks(c, 12, small, sizeof(small));
    assert_int_equal(strlen(small), sizeof(small) - 1);
    assert_string_equal(small + strlen(small) - 3, "...");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_binds_round_robin),
        cmocka_unit_test(test_oversubscribed_default_unbound),
        cmocka_unit_test(test_oversubscribed_explicit_core),
        cmocka_unit_test(test_none_and_no_topology),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_format_ranks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
