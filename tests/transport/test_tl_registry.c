/* SPDX-License-Identifier: BSD-3-Clause */
/* The transport registry as libibex holds it (transport/transport.c): every backend of the
 * build registered from its own folder, in priority order, each found by its name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "transport.h"

static void test_priority_order(void **state)
{
    (void)state;
    static const char *want[] = {"self", "shm", "verbs"};
    assert_int_equal(ibex_tl_component_count(), 3);
    for (int i = 0; i < 3; i++) {
        const ibex_tl_component_t *c = ibex_tl_component(i);
        assert_non_null(c);
        assert_string_equal(c->name, want[i]);
        if (i > 0)
            assert_true(ibex_tl_component(i - 1)->priority < c->priority);
    }
    assert_null(ibex_tl_component(3));
    assert_null(ibex_tl_component(-1));
}

static void test_find_by_name(void **state)
{
    (void)state;
    static const char *names[] = {"self", "shm", "verbs"};
    for (int i = 0; i < 3; i++) {
        const ibex_tl_component_t *c = ibex_tl_component_find(names[i]);
        assert_non_null(c);
        assert_ptr_equal(c, ibex_tl_component(i));
        assert_non_null(c->ops.open);
    }
    assert_null(ibex_tl_component_find("sh"));
    assert_null(ibex_tl_component_find("verbs,"));
    assert_null(ibex_tl_component_find(""));
}

/* Loopback is a capability flag of the component, not a name. */
static void test_loopback_flag(void **state)
{
    (void)state;
    assert_true(ibex_tl_component_find("self")->flags & IBEX_TL_COMP_LOOPBACK);
    assert_false(ibex_tl_component_find("shm")->flags & IBEX_TL_COMP_LOOPBACK);
    assert_false(ibex_tl_component_find("verbs")->flags & IBEX_TL_COMP_LOOPBACK);
}

static void test_names_list(void **state)
{
    (void)state;
    char buf[64];
    ibex_tl_component_names(buf, sizeof(buf));
    assert_string_equal(buf, "self,shm,verbs");
    ibex_tl_component_names(buf, 7); /* truncated, still terminated */
    assert_string_equal(buf, "self,s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_priority_order),
        cmocka_unit_test(test_find_by_name),
        cmocka_unit_test(test_loopback_flag),
        cmocka_unit_test(test_names_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
