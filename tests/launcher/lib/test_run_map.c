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
    assert_int_equal(ibex_run_map_plan(7, 3, IBEX_RUN_BIND_DEFAULT, core), IBEX_OK);
    for (int i = 0; i < 7; i++)
        assert_int_equal(core[i], -1);
}

/* Ranks that divide evenly over the cores are bound round-robin: the same count per core. */
static void test_oversubscribed_even_binds(void **state)
{
    int core[8];
    assert_int_equal(ibex_run_map_plan(8, 2, IBEX_RUN_BIND_DEFAULT, core), IBEX_OK);
    for (int i = 0; i < 8; i++)
        assert_int_equal(core[i], i % 2);
    assert_int_equal(ibex_run_map_plan(6, 3, IBEX_RUN_BIND_DEFAULT, core), IBEX_OK);
    int want[] = {0, 1, 2, 0, 1, 2};
    for (int i = 0; i < 6; i++)
        assert_int_equal(core[i], want[i]);
    assert_int_equal(ibex_run_map_plan(4, 2, IBEX_RUN_BIND_NONE, core), IBEX_OK);
    for (int i = 0; i < 4; i++)
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

/* ---- placement on hosts ---- */

static ibex_run_host_t map_hosts3[3] = {{"a", 2, 0}, {"b", 1, 0}, {"c", 3, 4}};
static ibex_run_hostfile_t map_hf = {map_hosts3, 3};
static char map_err[256];

static void expect_layout(int n, ibex_run_mapby_t by, int npn, bool over, const char *want)
{
    int host_of[32];
    char got[33];
    assert_int_equal(
        ibex_run_map_hosts(&map_hf, n, by, npn, over, host_of, map_err, sizeof(map_err)), IBEX_OK);
    for (int r = 0; r < n; r++)
        got[r] = (char)('a' + host_of[r]);
    got[n] = '\0';
    assert_string_equal(got, want);
}

static void test_hosts_by_slot_node(void **state)
{
    expect_layout(6, IBEX_RUN_MAP_SLOT, 0, false, "aabccc");
    expect_layout(4, IBEX_RUN_MAP_CORE, 0, false, "aabc");
    expect_layout(6, IBEX_RUN_MAP_NODE, 0, false, "abcacc");
    expect_layout(3, IBEX_RUN_MAP_NODE, 0, false, "abc");
    /* oversubscribed: a second pass of every host's slots, c stops at max_slots=4 */
    expect_layout(9, IBEX_RUN_MAP_SLOT, 0, true, "aabcccaab");
    expect_layout(8, IBEX_RUN_MAP_NODE, 0, true, "abcaccab");
    expect_layout(6, IBEX_RUN_MAP_NODE, 2, true, "aabbcc");
    expect_layout(3, IBEX_RUN_MAP_SLOT, 1, false, "abc");
}

static void test_hosts_errors(void **state)
{
    int host_of[64];
    assert_int_equal(ibex_run_map_hosts(&map_hf, 7, IBEX_RUN_MAP_SLOT, 0, false, host_of, map_err,
                                        sizeof(map_err)),
                     IBEX_ERR_INVALID);
    assert_non_null(strstr(map_err, "not enough slots: 7 ranks, 6 slots on 3 hosts"));
    ibex_run_host_t capped[1] = {{"x", 1, 2}};
    ibex_run_hostfile_t one = {capped, 1};
    assert_int_equal(
        ibex_run_map_hosts(&one, 3, IBEX_RUN_MAP_NODE, 0, true, host_of, map_err, sizeof(map_err)),
        IBEX_ERR_INVALID);
    assert_non_null(strstr(map_err, "max_slots"));
    assert_int_equal(ibex_run_map_hosts(&map_hf, 7, IBEX_RUN_MAP_SLOT, 2, true, host_of, map_err,
                                        sizeof(map_err)),
                     IBEX_ERR_INVALID);
    assert_non_null(strstr(map_err, "--npernode 2 on 3 hosts places at most 6 ranks, not 7"));
    assert_int_equal(ibex_run_map_hosts(&map_hf, 4, IBEX_RUN_MAP_SLOT, 2, false, host_of, map_err,
                                        sizeof(map_err)),
                     IBEX_ERR_INVALID);
    assert_non_null(strstr(map_err, "host b has only 1 slot"));
    assert_int_equal(ibex_run_map_hosts(&map_hf, 0, IBEX_RUN_MAP_SLOT, 0, false, host_of, map_err,
                                        sizeof(map_err)),
                     IBEX_ERR_INVALID);
}

/* Whatever the policy: every rank placed, no host past its limit. */
static void test_hosts_invariants(void **state)
{
    int host_of[64];
    for (int by = 0; by < 3; by++)
        for (int n = 1; n <= 20; n++) {
            int count[3] = {0};
            ibex_status_t st = ibex_run_map_hosts(&map_hf, n, (ibex_run_mapby_t)by, 0, true,
                                                  host_of, map_err, sizeof(map_err));
            if (st != IBEX_OK)
                continue;
            for (int r = 0; r < n; r++) {
                assert_in_range(host_of[r], 0, 2);
                count[host_of[r]]++;
            }
            assert_true(count[2] <= 4);
            if (n <= 6 && by != IBEX_RUN_MAP_NODE)
                for (int h = 0; h < 3; h++)
                    assert_true(count[h] <= map_hosts3[h].slots);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_binds_round_robin),
        cmocka_unit_test(test_oversubscribed_default_unbound),
        cmocka_unit_test(test_oversubscribed_even_binds),
        cmocka_unit_test(test_oversubscribed_explicit_core),
        cmocka_unit_test(test_none_and_no_topology),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_format_ranks),
        cmocka_unit_test(test_hosts_by_slot_node),
        cmocka_unit_test(test_hosts_errors),
        cmocka_unit_test(test_hosts_invariants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
