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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
