/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for ibexrun's command line (launcher/run_options.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibexrun.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

static char err[512];

static ibex_status_t parse(int argc, char **argv, ibex_run_opts_t *o)
{
    err[0] = '\0';
    return ibex_run_opts_parse(argc, argv, o, err, sizeof(err));
}

static void test_defaults(void **state)
{
    char *argv[] = {"ibexrun", "./hello", NULL};
    ibex_run_opts_t o;
    assert_int_equal(parse(ARGC(argv), argv, &o), IBEX_OK);
    assert_int_equal(o.nranks, 1);
    assert_int_equal(o.bind, IBEX_RUN_BIND_DEFAULT);
    assert_false(o.tag_output || o.report_bindings || o.softib);
    assert_int_equal(o.timeout_s, 0);
    assert_int_equal(o.prog_argc, 1);
    assert_string_equal(o.prog_argv[0], "./hello");
    ibex_run_opts_free(&o);
}

static void test_full_line(void **state)
{
    char *argv[] = {"ibexrun",
                    "-np",
                    "4",
                    "--bind-to",
                    "none",
                    "--map-by=core",
                    "-report-bindings",
                    "-x",
                    "A",
                    "-x",
                    "B=1=2",
                    "--tag-output",
                    "--timeout",
                    "30",
                    "--oversubscribe",
                    "--softib",
                    "prog",
                    "-n",
                    "7",
                    NULL};
    ibex_run_opts_t o;
    assert_int_equal(parse(ARGC(argv), argv, &o), IBEX_OK);
    assert_int_equal(o.nranks, 4);
    assert_int_equal(o.bind, IBEX_RUN_BIND_NONE);
    assert_true(o.report_bindings && o.tag_output && o.oversubscribe && o.softib);
    assert_int_equal(o.timeout_s, 30);
    assert_int_equal(o.nenv, 2);
    assert_string_equal(o.env[0], "A");
    assert_string_equal(o.env[1], "B=1=2");
    /* options after the program belong to the program */
    assert_int_equal(o.prog_argc, 3);
    assert_string_equal(o.prog_argv[0], "prog");
    assert_string_equal(o.prog_argv[1], "-n");
    assert_null(o.prog_argv[3]);
    ibex_run_opts_free(&o);
}

static void test_double_dash(void **state)
{
    char *argv[] = {"ibexrun", "-n", "2", "--", "-weird-name", "x", NULL};
    ibex_run_opts_t o;
    assert_int_equal(parse(ARGC(argv), argv, &o), IBEX_OK);
    assert_int_equal(o.prog_argc, 2);
    assert_string_equal(o.prog_argv[0], "-weird-name");
    ibex_run_opts_free(&o);
}

/* Each bad line fails with a message naming the problem. */
static void expect_error(char **argv, int argc, const char *needle)
{
    ibex_run_opts_t o;
    assert_int_equal(parse(argc, argv, &o), IBEX_ERR_INVALID);
    if (!strstr(err, needle))
        fail_msg("error '%s' does not mention '%s'", err, needle);
    ibex_run_opts_free(&o);
}

static void test_bad_values(void **state)
{
    char *a1[] = {"ibexrun", "-n", "0", "p", NULL};
    expect_error(a1, ARGC(a1), "'0'");
    char *a2[] = {"ibexrun", "-n", "abc", "p", NULL};
    expect_error(a2, ARGC(a2), "'abc'");
    char *a3[] = {"ibexrun", "-n", "4x", "p", NULL};
    expect_error(a3, ARGC(a3), "'4x'");
    char *a4[] = {"ibexrun", "-n", "-3", "p", NULL};
    expect_error(a4, ARGC(a4), "'-3'");
    char *a5[] = {"ibexrun", "-n", "100000", "p", NULL};
    expect_error(a5, ARGC(a5), "1024");
    char *a6[] = {"ibexrun", "--bind-to", "socket", "p", NULL};
    expect_error(a6, ARGC(a6), "socket");
    char *a7[] = {"ibexrun", "--timeout", "-1", "p", NULL};
    expect_error(a7, ARGC(a7), "'-1'");
    char *a8[] = {"ibexrun", "--timeout", "0", "p", NULL};
    expect_error(a8, ARGC(a8), "'0'");
    char *a9[] = {"ibexrun", "-x", "1BAD", "p", NULL};
    expect_error(a9, ARGC(a9), "1BAD");
    char *a10[] = {"ibexrun", "--map-by", "socket", "p", NULL};
    expect_error(a10, ARGC(a10), "socket");
    char *a11[] = {"ibexrun", "-x", "=v", "p", NULL};
    expect_error(a11, ARGC(a11), "=v");
}

/* Hang diagnosis (issue 16): --hang-report SECONDS, strict like --timeout. */
static void test_hang_report(void **state)
{
    ibex_run_opts_t o;
    char err[256];
    char *ok[] = {"ibexrun", "--hang-report", "7", "--timeout=9", "p", NULL};
    assert_int_equal(ibex_run_opts_parse(ARGC(ok), ok, &o, err, sizeof(err)), IBEX_OK);
    assert_int_equal(o.hang_report_s, 7);
    assert_int_equal(o.timeout_s, 9);
    ibex_run_opts_free(&o);
    char *none[] = {"ibexrun", "p", NULL};
    assert_int_equal(ibex_run_opts_parse(ARGC(none), none, &o, err, sizeof(err)), IBEX_OK);
    assert_int_equal(o.hang_report_s, 0);
    ibex_run_opts_free(&o);
    char *a1[] = {"ibexrun", "--hang-report", "0", "p", NULL};
    expect_error(a1, ARGC(a1),
                 "--hang-report: expected a positive whole number of seconds, not '0'");
    char *a2[] = {"ibexrun", "--hang-report=2s", "p", NULL};
    expect_error(a2, ARGC(a2), "'2s'");
    char *a3[] = {"ibexrun", "--hang-report", NULL};
    expect_error(a3, ARGC(a3), "needs a value");
}

static void test_structure_errors(void **state)
{
    char *a1[] = {"ibexrun", "--frobnicate", "p", NULL};
    expect_error(a1, ARGC(a1), "unknown option '--frobnicate'");
    char *a2[] = {"ibexrun", "-n", NULL};
    expect_error(a2, ARGC(a2), "needs a value");
    char *a3[] = {"ibexrun", "-n", "2", NULL};
    expect_error(a3, ARGC(a3), "no program");
    char *a4[] = {"ibexrun", NULL};
    expect_error(a4, ARGC(a4), "no program");
    char *a5[] = {"ibexrun", "--tag-output=yes", "p", NULL};
    expect_error(a5, ARGC(a5), "takes no value");
    char *a7[] = {"ibexrun", "-n", "2", "./a", ":", NULL};
    expect_error(a7, ARGC(a7), "no program for application 2");
    char *a8[] = {"ibexrun", "-n", "2", "--", NULL};
    expect_error(a8, ARGC(a8), "no program");
}

static void test_hostfile_option(void **state)
{
    char *argv[] = {"ibexrun", "--hostfile", "hosts", "p", NULL};
    ibex_run_opts_t o;
    assert_int_equal(parse(4, argv, &o), IBEX_OK);
    assert_string_equal(o.hostfile, "hosts");
    assert_false(o.nranks_set);
    ibex_run_opts_free(&o);
    char *argv2[] = {"ibexrun", "--machinefile=h2", "-n", "3", "p", NULL};
    assert_int_equal(parse(5, argv2, &o), IBEX_OK);
    assert_string_equal(o.hostfile, "h2");
    assert_true(o.nranks_set);
    ibex_run_opts_free(&o);
}

/* Hosts, mapping, MPMD (the hosts area). */
static void test_hosts_options(void **state)
{
    char *a1[] = {
        "ibexrun", "-H", "a:2,b",          "--host", "c", "--map-by", "node:OVERSUBSCRIBE",
        "-N",      "3",  "--launch-agent", "ssh -x", "p", NULL};
    ibex_run_opts_t o;
    assert_int_equal(parse(ARGC(a1), a1, &o), IBEX_OK);
    assert_int_equal(o.nhostlists, 2);
    assert_string_equal(o.hostlists[0], "a:2,b");
    assert_string_equal(o.hostlists[1], "c");
    assert_int_equal(o.map_by, IBEX_RUN_MAP_NODE);
    assert_true(o.oversubscribe);
    assert_int_equal(o.npernode, 3);
    assert_string_equal(o.launch_agent, "ssh -x");
    ibex_run_opts_free(&o);
    char *a2[] = {"ibexrun", "--map-by", "slot", "--npernode=2", "p", NULL};
    assert_int_equal(parse(ARGC(a2), a2, &o), IBEX_OK);
    assert_int_equal(o.map_by, IBEX_RUN_MAP_SLOT);
    assert_false(o.oversubscribe);
    assert_int_equal(o.npernode, 2);
    ibex_run_opts_free(&o);
    char *b1[] = {"ibexrun", "--map-by", "node:pe=2", "p", NULL};
    expect_error(b1, ARGC(b1), "pe=2");
    char *b2[] = {"ibexrun", "-N", "0", "p", NULL};
    expect_error(b2, ARGC(b2), "'0'");
    char *b3[] = {"ibexrun", "--launch-agent=", "p", NULL};
    expect_error(b3, ARGC(b3), "empty");
}

static void test_mpmd(void **state)
{
    char *a1[] = {"ibexrun", "--tag-output", "-n", "2",   "./a", "x", ":", "-np",
                  "4",       "./b",          ":",  "./c", "-n",  "9", NULL};
    ibex_run_opts_t o;
    assert_int_equal(parse(ARGC(a1), a1, &o), IBEX_OK);
    assert_int_equal(o.napps, 3);
    assert_true(o.tag_output);
    assert_int_equal(o.apps[0].nranks, 2);
    assert_int_equal(o.apps[0].argc, 2);
    assert_string_equal(o.apps[0].argv[1], "x");
    assert_null(o.apps[0].argv[2]); /* the ':' became the end of app 0's argv */
    assert_int_equal(o.apps[1].nranks, 4);
    assert_string_equal(o.apps[1].argv[0], "./b");
    assert_null(o.apps[1].argv[1]);
    assert_false(o.apps[2].nranks_set); /* "-n 9" is ./c's argument */
    assert_int_equal(o.apps[2].nranks, 1);
    assert_int_equal(o.apps[2].argc, 3);
    assert_int_equal(o.nranks, 2);
    assert_string_equal(o.prog_argv[0], "./a");
    ibex_run_opts_free(&o);
    char *b1[] = {"ibexrun", ":", "./a", NULL};
    expect_error(b1, ARGC(b1), "no program to run");
    char *b2[] = {"ibexrun", "./a", ":", ":", "./b", NULL};
    expect_error(b2, ARGC(b2), "no program for application 2");
}

static void test_help_version(void **state)
{
    char *a1[] = {"ibexrun", "--help", NULL};
    ibex_run_opts_t o;
    assert_int_equal(parse(ARGC(a1), a1, &o), IBEX_OK);
    assert_true(o.help);
    ibex_run_opts_free(&o);
    char *a2[] = {"ibexrun", "-V", NULL};
    assert_int_equal(parse(ARGC(a2), a2, &o), IBEX_OK);
    assert_true(o.version);
    ibex_run_opts_free(&o);
}

static void test_value_forms(void **state)
{
    char *argv[] = {"ibexrun", "--n=3", "--timeout=5", "-bind-to=core", "-x", "V=a b", "p", NULL};
    ibex_run_opts_t o;
    assert_int_equal(parse(ARGC(argv), argv, &o), IBEX_OK);
    assert_int_equal(o.nranks, 3);
    assert_int_equal(o.timeout_s, 5);
    assert_int_equal(o.bind, IBEX_RUN_BIND_CORE);
    assert_string_equal(o.env[0], "V=a b");
    ibex_run_opts_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_full_line),
        cmocka_unit_test(test_double_dash),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_structure_errors),
        cmocka_unit_test(test_help_version),
        cmocka_unit_test(test_hostfile_option),
        cmocka_unit_test(test_hosts_options),
        cmocka_unit_test(test_mpmd),
        cmocka_unit_test(test_value_forms),
        cmocka_unit_test(test_hang_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
