/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the shape of the tree of daemons (launcher/run_tree_shape.c): every node but
 * the root has one parent, the children of a node are exactly the nodes naming it as parent,
 * routing toward a node picks the child on the path found by walking up from it, and the depth
 * is the longest such path; all checked against references built here by other means.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run_tree.h"

static void test_parent_small(void **state)
{
    assert_int_equal(ibex_tree_parent(0, 4), -1);
    assert_int_equal(ibex_tree_parent(1, 1), 0); /* a chain */
    assert_int_equal(ibex_tree_parent(5, 1), 4);
    assert_int_equal(ibex_tree_parent(3, 2), 1);
    assert_int_equal(ibex_tree_parent(4, 2), 1);
    assert_int_equal(ibex_tree_parent(5, 2), 2);
    assert_int_equal(ibex_tree_parent(16, 16), 0);
    assert_int_equal(ibex_tree_parent(17, 16), 1);
    assert_int_equal(ibex_tree_parent(3, 0), -1); /* no fanout: no tree */
}

/* Reference: is `top` an ancestor of (or equal to) `n`, by breadth-first numbering. */
static bool ref_below(int n, int top, int k)
{
    /* the nodes of top's subtree at each level form one contiguous range */
    long lo = top, hi = top;
    while (lo <= n) {
        if (n >= lo && n <= hi)
            return true;
        lo = lo * k + 1;
        hi = hi * k + k;
    }
    return false;
}

static void test_route_against_reference(void **state)
{
    const int ks[] = {1, 2, 3, 8, 16};
    for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
        int k = ks[i], nn = 60;
        for (int node = 0; node < nn; node++)
            for (int dest = 0; dest < nn; dest++) {
                int c = ibex_tree_child_toward(node, dest, k, nn);
                int want = -1;
                for (int ch = node * k + 1; ch <= node * k + k && ch < nn; ch++)
                    if (ref_below(dest, ch, k))
                        want = ch;
                assert_int_equal(c, want);
            }
    }
}

static void test_depth_against_reference(void **state)
{
    const int ks[] = {1, 2, 8, 16, 64};
    for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
        for (int nn = 1; nn <= 300; nn++) {
            int k = ks[i], depth = 0;
            long covered = 1, level = 1; /* nodes within `depth` edges of the root */
            while (covered < nn) {
                level *= k;
                covered += level;
                depth++;
            }
            assert_int_equal(ibex_tree_depth(nn, k), depth);
        }
    assert_int_equal(ibex_tree_depth(101, 16), 2); /* 100 hosts and the head */
    assert_int_equal(ibex_tree_depth(101, 8), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parent_small),
        cmocka_unit_test(test_route_against_reference),
        cmocka_unit_test(test_depth_against_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
