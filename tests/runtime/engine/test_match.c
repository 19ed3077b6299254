/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for MPI matching (runtime/engine/match.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <mpi.h>

#include "ibex_match.h"

static ibex_match_entry_t entry(int src, int tag)
{
    ibex_match_entry_t e = {.src = src, .tag = tag};
    return e;
}

static void test_fits(void **state)
{
    (void)state;
    assert_true(ibex_match_fits(1, 5, 1, 5));
    assert_false(ibex_match_fits(1, 5, 2, 5));
    assert_false(ibex_match_fits(1, 5, 1, 6));
    assert_true(ibex_match_fits(MPI_ANY_SOURCE, 5, 7, 5));
    assert_true(ibex_match_fits(3, MPI_ANY_TAG, 3, 99));
    assert_true(ibex_match_fits(MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0));
    assert_false(ibex_match_fits(MPI_ANY_SOURCE, 4, 0, 5));
}

/* A message takes the earliest posted receive that fits, not the most specific one. */
static void test_posted_order(void **state)
{
    (void)state;
    ibex_match_queue_t q = {0};
    ibex_match_entry_t a = entry(MPI_ANY_SOURCE, 7), b = entry(2, 7), c = entry(2, MPI_ANY_TAG);
    ibex_match_list_append(&q.posted, &a);
    ibex_match_list_append(&q.posted, &b);
    ibex_match_list_append(&q.posted, &c);
    assert_ptr_equal(ibex_match_take_posted(&q, 2, 7), &a);
    assert_ptr_equal(ibex_match_take_posted(&q, 2, 7), &b);
    assert_null(ibex_match_take_posted(&q, 3, 7));
    assert_ptr_equal(ibex_match_take_posted(&q, 2, 9), &c);
    assert_int_equal(q.posted.length, 0);
    assert_null(q.posted.head);
    assert_null(q.posted.tail);
}

/* ANY_SOURCE takes unexpected messages in arrival order across senders. */
static void test_unexpected_arrival_order(void **state)
{
    (void)state;
    ibex_match_queue_t q = {0};
    ibex_match_entry_t m[4] = {entry(3, 1), entry(1, 1), entry(2, 2), entry(1, 1)};
    for (int i = 0; i < 4; i++)
        ibex_match_list_append(&q.unexpected, &m[i]);
    assert_ptr_equal(ibex_match_find_unexpected(&q, MPI_ANY_SOURCE, 1, false), &m[0]);
    assert_int_equal(q.unexpected.length, 4); /* a probe does not remove */
    assert_ptr_equal(ibex_match_find_unexpected(&q, 1, 1, true), &m[1]);
    assert_ptr_equal(ibex_match_find_unexpected(&q, 1, 1, true), &m[3]);
    assert_ptr_equal(ibex_match_find_unexpected(&q, MPI_ANY_SOURCE, MPI_ANY_TAG, true), &m[0]);
    assert_ptr_equal(ibex_match_find_unexpected(&q, 2, MPI_ANY_TAG, true), &m[2]);
    assert_null(ibex_match_find_unexpected(&q, MPI_ANY_SOURCE, MPI_ANY_TAG, true));
}

/* An unexpected message's own (src, tag) is never a wildcard: ANY in a message matches nothing
 * special. */
static void test_no_wildcard_in_messages(void **state)
{
    (void)state;
    ibex_match_queue_t q = {0};
    ibex_match_entry_t m = entry(4, 8);
    ibex_match_list_append(&q.unexpected, &m);
    assert_null(ibex_match_find_unexpected(&q, 5, 8, false));
    assert_null(ibex_match_find_unexpected(&q, 4, 9, false));
    assert_ptr_equal(ibex_match_find_unexpected(&q, 4, 8, false), &m);
}

static void test_remove_middle(void **state)
{
    (void)state;
    ibex_match_list_t l = {0};
    ibex_match_entry_t e[3] = {entry(0, 0), entry(1, 1), entry(2, 2)};
    for (int i = 0; i < 3; i++)
        ibex_match_list_append(&l, &e[i]);
    ibex_match_list_remove(&l, &e[1]);
    assert_ptr_equal(l.head, &e[0]);
    assert_ptr_equal(e[0].next, &e[2]);
    assert_ptr_equal(e[2].prev, &e[0]);
    ibex_match_list_remove(&l, &e[2]);
    assert_ptr_equal(l.tail, &e[0]);
    assert_int_equal(l.length, 1);
}

/* Taking the head (the inline take) leaves the new head's prev naming the old one: removals
 * after it, at the head, the tail or in between, must still leave a sound list. */
static void test_take_head_then_remove(void **state)
{
    (void)state;
    ibex_match_queue_t q = {0};
    ibex_match_entry_t e[4] = {entry(0, 0), entry(1, 1), entry(2, 2), entry(3, 3)};
    for (int i = 0; i < 4; i++)
        ibex_match_list_append(&q.posted, &e[i]);
    assert_ptr_equal(ibex_match_take_posted_inline(&q, 0, 0), &e[0]);
    assert_ptr_equal(q.posted.head, &e[1]);
    ibex_match_list_remove(&q.posted, &e[3]); /* the tail, through a prev that is sound */
    assert_ptr_equal(q.posted.tail, &e[2]);
    assert_null(e[2].next);
    ibex_match_list_remove(&q.posted, &e[1]); /* the head, whose prev is stale */
    assert_ptr_equal(q.posted.head, &e[2]);
    assert_ptr_equal(q.posted.tail, &e[2]);
    assert_int_equal(q.posted.length, 1);
    assert_null(e[0].next); /* the taken entry was not written through the stale link */
    ibex_match_list_append(&q.posted, &e[1]);
    assert_ptr_equal(ibex_match_take_posted(&q, 1, 1), &e[1]); /* the tail, by the search */
    assert_ptr_equal(q.posted.tail, &e[2]);
    assert_ptr_equal(ibex_match_take_posted_inline(&q, 5, 2), NULL);
    assert_ptr_equal(ibex_match_take_posted_inline(&q, 2, 2), &e[2]);
    assert_null(q.posted.head);
    assert_null(q.posted.tail);
    assert_int_equal(q.posted.length, 0);
}

/* The head taken inline, then the new head, now the only entry, removed (a cancelled posted
 * receive): the list must be empty, not keep the stale prev as its tail (the window
 * active-message path hung on that: the next receive was appended after a taken entry). */
static void test_take_head_then_remove_last(void **state)
{
    (void)state;
    ibex_match_queue_t q = {0};
    ibex_match_entry_t e[3] = {entry(0, 0), entry(1, 1), entry(2, 2)};
    ibex_match_list_append(&q.posted, &e[0]);
    ibex_match_list_append(&q.posted, &e[1]);
    assert_ptr_equal(ibex_match_take_posted_inline(&q, 0, 0), &e[0]);
    ibex_match_list_remove(&q.posted, &e[1]); /* the head and the tail, its prev stale */
    assert_null(q.posted.head);
    assert_null(q.posted.tail);
    assert_int_equal(q.posted.length, 0);
    ibex_match_list_append(&q.posted, &e[2]);
    assert_ptr_equal(q.posted.head, &e[2]);
    assert_ptr_equal(q.posted.tail, &e[2]);
    assert_null(e[0].next);
    assert_ptr_equal(ibex_match_take_posted(&q, 2, 2), &e[2]); /* by the search this time */
    assert_null(q.posted.tail);
}

/* The list from its head: n entries, in order, linked both ways past the head, the tail last. */
static void assert_list(const ibex_match_list_t *l, ibex_match_entry_t *const *want, int n)
{
    ibex_match_entry_t *e = l->head;
    for (int i = 0; i < n; i++, e = e->next) {
        assert_ptr_equal(e, want[i]);
        if (i > 0)
            assert_ptr_equal(e->prev, want[i - 1]); /* a head's prev is not read */
    }
    assert_null(e);
    assert_ptr_equal(l->tail, n ? want[n - 1] : NULL);
    assert_int_equal(l->length, (size_t)n);
}

/* Inline takes of the head and search removals interleaved with removals (cancels) at the
 * head, middle and tail, wildcards among them, and appends after each (p2p_match_mix does the
 * same through MPI). */
static void test_take_and_remove_mixed(void **state)
{
    (void)state;
    ibex_match_queue_t q = {0};
    ibex_match_entry_t e[7] = {entry(1, 10),
                               entry(1, 11),
                               entry(MPI_ANY_SOURCE, 12),
                               entry(1, MPI_ANY_TAG),
                               entry(MPI_ANY_SOURCE, MPI_ANY_TAG),
                               entry(1, 20),
                               entry(2, 21)};
    for (int i = 0; i < 5; i++)
        ibex_match_list_append(&q.posted, &e[i]);
    ibex_match_list_remove(&q.posted, &e[1]);                          /* the middle */
    assert_ptr_equal(ibex_match_take_posted_inline(&q, 3, 12), &e[2]); /* search */
    assert_list(&q.posted, (ibex_match_entry_t *[]){&e[0], &e[3], &e[4]}, 3);
    assert_ptr_equal(ibex_match_take_posted_inline(&q, 1, 10), &e[0]); /* inline */
    ibex_match_list_append(&q.posted, &e[5]);
    assert_list(&q.posted, (ibex_match_entry_t *[]){&e[3], &e[4], &e[5]}, 3);
    assert_ptr_equal(ibex_match_take_posted_inline(&q, 2, 5), &e[4]); /* search, e[3] stale */
    assert_list(&q.posted, (ibex_match_entry_t *[]){&e[3], &e[5]}, 2);
    ibex_match_list_remove(&q.posted, &e[5]); /* the tail */
    ibex_match_list_append(&q.posted, &e[6]);
    assert_list(&q.posted, (ibex_match_entry_t *[]){&e[3], &e[6]}, 2);
    ibex_match_list_remove(&q.posted, &e[3]); /* the head, its prev stale */
    assert_list(&q.posted, (ibex_match_entry_t *[]){&e[6]}, 1);
    assert_ptr_equal(ibex_match_take_posted_inline(&q, 2, 21), &e[6]); /* head and tail */
    assert_list(&q.posted, NULL, 0);
    ibex_match_list_append(&q.posted, &e[0]);
    assert_list(&q.posted, (ibex_match_entry_t *[]){&e[0]}, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fits),
        cmocka_unit_test(test_take_head_then_remove),
        cmocka_unit_test(test_take_head_then_remove_last),
        cmocka_unit_test(test_take_and_remove_mixed),
        cmocka_unit_test(test_posted_order),
        cmocka_unit_test(test_unexpected_arrival_order),
        cmocka_unit_test(test_no_wildcard_in_messages),
        cmocka_unit_test(test_remove_middle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
