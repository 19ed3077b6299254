/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for the bootstrap helpers (runtime/boot/boot_util.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_boot_util.h"

static void expect_peers(const char *list, int size, const int *want, int nwant)
{
    int *peers = NULL, n = -1;
    assert_int_equal(ibex_boot_parse_peers(list, size, &peers, &n), IBEX_OK);
    assert_int_equal(n, nwant);
    for (int i = 0; i < n; i++)
        assert_int_equal(peers[i], want[i]);
    free(peers);
}

static void test_parse_peers_lists(void **state)
{
    (void)state;
    expect_peers("0", 1, (int[]){0}, 1);
    expect_peers("0,1,2,3", 4, (int[]){0, 1, 2, 3}, 4);
    expect_peers("5,1,3", 8, (int[]){1, 3, 5}, 3); /* sorted ascending */
    expect_peers("0-3,8", 9, (int[]){0, 1, 2, 3, 8}, 5);
    expect_peers("2-2", 3, (int[]){2}, 1);
}

static void test_parse_peers_rejects(void **state)
{
    (void)state;
    static const char *bad[] = {"",   ",",   "1,",  ",1",  "a",   "1,,2",  "4",
                                "-1", "1-0", "0-4", "1 2", "0,0", "0-2,1", "3x"};
    int *peers = (int *)0x1, n = -7;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(ibex_boot_parse_peers(bad[i], 4, &peers, &n), IBEX_ERR_INVALID);
        assert_ptr_equal(peers, (int *)0x1); /* outputs untouched on error */
        assert_int_equal(n, -7);
    }
    assert_int_equal(ibex_boot_parse_peers(NULL, 4, &peers, &n), IBEX_ERR_INVALID);
    assert_int_equal(ibex_boot_parse_peers("0", 0, &peers, &n), IBEX_ERR_INVALID);
}

static void test_nodes_from_hosts(void **state)
{
    (void)state;
    const char *hosts[] = {"b", "a", "b", "c", "a", "a"};
    int node_of[6];
    assert_int_equal(ibex_boot_nodes_from_hosts(hosts, 6, node_of), 3);
    int want[] = {0, 1, 0, 2, 1, 1};
    for (int i = 0; i < 6; i++)
        assert_int_equal(node_of[i], want[i]);
    const char *one[] = {"x"};
    assert_int_equal(ibex_boot_nodes_from_hosts(one, 1, node_of), 1);
    assert_int_equal(node_of[0], 0);
}

static void test_singleton_env(void **state)
{
    (void)state;
    char *none[] = {"PATH=/bin", "PMIX_MCA_gds=hash", "PMIX_RANK=0", NULL};
    char *ns[] = {"PATH=/bin", "PMIX_NAMESPACE=job1", NULL};
    char *uri[] = {"PMIX_SERVER_URI41=pmix-server.1;tcp4://127.0.0.1:1", NULL};
    char *uri2[] = {"HOME=/root", "PMIX_SERVER_URI2=x", NULL};
    char *empty[] = {NULL};
    assert_true(ibex_boot_env_is_singleton(none));
    assert_true(ibex_boot_env_is_singleton(empty));
    assert_true(ibex_boot_env_is_singleton(NULL));
    assert_false(ibex_boot_env_is_singleton(ns));
    assert_false(ibex_boot_env_is_singleton(uri));
    assert_false(ibex_boot_env_is_singleton(uri2));
}

static void test_kvs(void **state)
{
    (void)state;
    ibex_boot_kvs_t *kvs = NULL;
    void *data = (void *)0x1;
    size_t len = 99;
    assert_int_equal(ibex_boot_kvs_get(kvs, "a", &data, &len), IBEX_ERR_INVALID);
    assert_ptr_equal(data, (void *)0x1);
    assert_int_equal(ibex_boot_kvs_put(&kvs, "a", "hello", 6), IBEX_OK);
    assert_int_equal(ibex_boot_kvs_put(&kvs, "b", "", 0), IBEX_OK);
    assert_int_equal(ibex_boot_kvs_get(kvs, "a", &data, &len), IBEX_OK);
    assert_int_equal(len, 6);
    assert_string_equal(data, "hello");
    free(data);
    assert_int_equal(ibex_boot_kvs_put(&kvs, "a", "bye", 4), IBEX_OK); /* replaces */
    assert_int_equal(ibex_boot_kvs_get(kvs, "a", &data, &len), IBEX_OK);
    assert_int_equal(len, 4);
    assert_string_equal(data, "bye");
    free(data);
    assert_int_equal(ibex_boot_kvs_get(kvs, "b", &data, &len), IBEX_OK);
    assert_int_equal(len, 0);
    free(data);
    ibex_boot_kvs_free(&kvs);
    assert_null(kvs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_peers_lists),
        cmocka_unit_test(test_parse_peers_rejects),
        cmocka_unit_test(test_nodes_from_hosts),
        cmocka_unit_test(test_singleton_env),
        cmocka_unit_test(test_kvs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
