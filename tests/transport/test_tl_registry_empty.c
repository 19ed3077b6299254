/* SPDX-License-Identifier: BSD-3-Clause */
/* The transport registry linked without any backend: no "ibex_tl" section, so the linker defines
 * no bounds; the weak symbols make that an empty registry, not a link error or a crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "transport.h"

static void test_empty(void **state)
{
    (void)state;
    char names[16] = "junk";
    assert_int_equal(ibex_tl_component_count(), 0);
    assert_null(ibex_tl_component(0));
    assert_null(ibex_tl_component_find("self"));
    ibex_tl_component_names(names, sizeof(names));
    assert_string_equal(names, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_empty)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
