/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for host file parsing (launcher/run_hostfile.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_launch.h"

static char err[512];

static void test_good_file(void **state)
{
    const char *text = "# cluster\n"
                       "\n"
                       "node01 slots=4\n"
                       "  node02\tslots=2 max_slots=8   # comment\n"
                       "node03\n"
                       "node01 slots=2\r\n";
    ibex_run_hostfile_t hf;
    assert_int_equal(ibex_run_hostfile_parse(text, "hosts", &hf, err, sizeof(err)), IBEX_OK);
    assert_int_equal(hf.nhosts, 3);
    assert_string_equal(hf.hosts[0].name, "node01");
    assert_int_equal(hf.hosts[0].slots, 6); /* listed twice: slots add up */
    assert_int_equal(hf.hosts[1].slots, 2);
    assert_int_equal(hf.hosts[1].max_slots, 8);
    assert_string_equal(hf.hosts[2].name, "node03");
    assert_int_equal(hf.hosts[2].slots, 1);
    ibex_run_hostfile_free(&hf);
}

/* Each malformed file fails with "name:line: ..." naming the problem. */
static void expect_error(const char *text, const char *needle)
{
    ibex_run_hostfile_t hf = {0};
    err[0] = '\0';
    assert_int_equal(ibex_run_hostfile_parse(text, "hosts", &hf, err, sizeof(err)),
                     IBEX_ERR_INVALID);
    if (!strstr(err, needle))
        fail_msg("error '%s' does not mention '%s'", err, needle);
    assert_null(hf.hosts);
}

static void test_bad_files(void **state)
{
    expect_error("node01\nnode02 slots=x\n", "hosts:2: slots must be a whole number");
    expect_error("node01 slots=0\n", "hosts:1: slots");
    expect_error("node01 slots=-2\n", "'-2'");
    expect_error("\n\n# c\nnode01 cores=4\n", "hosts:4: unknown keyword 'cores'");
    expect_error("node01 slots\n", "hosts:1: 'slots' is not key=value");
    expect_error("node/01\n", "hosts:1: 'node/01' is not a host name");
    expect_error("node01 slots=8 max_slots=4\n", "more than max_slots=4");
    expect_error("node01 slots=99999999999\n", "99999999999");
    expect_error("", "no host");
    expect_error("# only a comment\n\n", "no host");
    /* found by tests/fuzz: a repeated host must keep its max_slots, and its sum must not wrap */
    expect_error("n1 slots=2 max_slots=3\nn1 slots=2\n", "hosts:2: 4 slots for n1 in all");
    expect_error("n1\nn1 max_slots=1\n", "more than max_slots=1");
    expect_error("n1 slots=2147483647\nn1 slots=1\n", "more than 2147483647 slots");
}

/* -H lists: "host[:slots]" entries, added to what is already there. */
static void test_host_lists(void **state)
{
    ibex_run_hostfile_t hf = {0};
    assert_int_equal(ibex_run_hostlist_parse("a:2,b,a:3", &hf, err, sizeof(err)), IBEX_OK);
    assert_int_equal(ibex_run_hostlist_parse("c:4", &hf, err, sizeof(err)), IBEX_OK);
    assert_int_equal(hf.nhosts, 3);
    assert_string_equal(hf.hosts[0].name, "a");
    assert_int_equal(hf.hosts[0].slots, 5);
    assert_int_equal(hf.hosts[1].slots, 1);
    assert_string_equal(hf.hosts[2].name, "c");
    assert_int_equal(hf.hosts[2].slots, 4);
    ibex_run_hostfile_free(&hf);
    const char *bad[][2] = {{"a,,b", "empty host name"},
                            {"a:0", "'0'"},
                            {"a:x", "'x'"},
                            {"a/b", "'a/b' is not a host name"},
                            {",", "empty"},
                            {"a:", "''"},
                            {"a:2:3", "'2:3'"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ibex_run_hostfile_t h2 = {0};
        err[0] = '\0';
        assert_int_equal(ibex_run_hostlist_parse(bad[i][0], &h2, err, sizeof(err)),
                         IBEX_ERR_INVALID);
        if (!strstr(err, bad[i][1]) || strncmp(err, "-H: ", 4) != 0)
            fail_msg("'%s': error '%s' does not mention '%s'", bad[i][0], err, bad[i][1]);
        ibex_run_hostfile_free(&h2);
    }
}

/* Slurm allocations: bracketed ranges with padding, several items, tasks per node. */
static void test_slurm_lists(void **state)
{
    ibex_run_hostfile_t hf = {0};
    assert_int_equal(ibex_run_hostlist_slurm("n[1-3,5],gpu[07-08]x,login", "2(x3),1,4(x2),3", &hf,
                                             err, sizeof(err)),
                     IBEX_OK);
    const char *want[] = {"n1", "n2", "n3", "n5", "gpu07x", "gpu08x", "login"};
    const int slots[] = {2, 2, 2, 1, 4, 4, 3};
    assert_int_equal(hf.nhosts, 7);
    for (int i = 0; i < 7; i++) {
        assert_string_equal(hf.hosts[i].name, want[i]);
        assert_int_equal(hf.hosts[i].slots, slots[i]);
    }
    ibex_run_hostfile_free(&hf);
    assert_int_equal(ibex_run_hostlist_slurm("n[1-2]", "2(x3)", &hf, err, sizeof(err)), IBEX_OK);
    ibex_run_hostfile_free(&hf);
    assert_int_equal(ibex_run_hostlist_slurm("n[1-3]", "2", &hf, err, sizeof(err)),
                     IBEX_ERR_INVALID);
    assert_non_null(strstr(err, "SLURM_TASKS_PER_NODE"));
    ibex_run_hostfile_free(&hf);
    assert_int_equal(ibex_run_hostlist_slurm("n[1-", NULL, &hf, err, sizeof(err)),
                     IBEX_ERR_INVALID);
    ibex_run_hostfile_free(&hf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_host_lists),
        cmocka_unit_test(test_slurm_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
