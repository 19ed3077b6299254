/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for the handle tables (runtime/base/handle.c): indexes and slots stay put while
 * the table grows, predefined indexes are never handed out, and a reader thread that looks up
 * handles without any lock while a writer keeps creating and freeing them always sees the
 * object stored for a published handle (the property MPI_THREAD_MULTIPLE relies on; run under
 * ThreadSanitizer by make check-tsan). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "ibex_handle.h"

enum { KIND = 3, FIRST_DYNAMIC = 5, MANY = 20000 };

static void *obj_of(int i)
{
    return (void *)(uintptr_t)(0x1000 + 16 * (uintptr_t)i);
}

static void test_slots_stable_across_growth(void **state)
{
    (void)state;
    ibex_handle_table_t t;
    ibex_handle_table_init(&t, KIND, FIRST_DYNAMIC);
    int first = ibex_handle_alloc(&t, obj_of(0));
    void **slot = ibex_handle_slot(&t, (unsigned)IBEX_HANDLE_INDEX(first));
    int *h = malloc(MANY * sizeof(*h));
    for (int i = 0; i < MANY; i++)
        h[i] = ibex_handle_alloc(&t, obj_of(i + 1));
    assert_ptr_equal(ibex_handle_slot(&t, (unsigned)IBEX_HANDLE_INDEX(first)), slot);
    assert_ptr_equal(ibex_handle_get(&t, first), obj_of(0));
    for (int i = 0; i < MANY; i++) {
        assert_int_equal(IBEX_HANDLE_KIND(h[i]), KIND);
        assert_true(IBEX_HANDLE_INDEX(h[i]) >= FIRST_DYNAMIC);
        assert_ptr_equal(ibex_handle_get(&t, h[i]), obj_of(i + 1));
    }
    assert_true(t.capacity >= MANY + FIRST_DYNAMIC);
    free(h);
    ibex_handle_table_fini(&t);
}

static void test_indexes_unique_low_first(void **state)
{
    (void)state;
    ibex_handle_table_t t;
    ibex_handle_table_init(&t, KIND, FIRST_DYNAMIC);
    char *seen = calloc(MANY + 1000, 1);
    for (int i = 0; i < MANY; i++) {
        int idx = IBEX_HANDLE_INDEX(ibex_handle_alloc(&t, obj_of(i)));
        assert_true(idx < MANY + 1000);
        assert_int_equal(seen[idx], 0);
        seen[idx] = 1;
    }
    /* the first MANY dynamic indexes were used, in whatever order */
    for (int i = FIRST_DYNAMIC; i < FIRST_DYNAMIC + MANY; i++)
        assert_int_equal(seen[i], 1);
    free(seen);
    ibex_handle_table_fini(&t);
}

static void test_predefined_and_release(void **state)
{
    (void)state;
    ibex_handle_table_t t;
    ibex_handle_table_init(&t, KIND, 100); /* predefined past the first chunk */
    for (int i = 0; i < 100; i++)
        ibex_handle_set(&t, i, obj_of(i));
    int h = ibex_handle_alloc(&t, obj_of(500));
    assert_true(IBEX_HANDLE_INDEX(h) >= 100);
    ibex_handle_release(&t, IBEX_HANDLE_MAKE(KIND, 7)); /* predefined: stays */
    assert_ptr_equal(ibex_handle_get(&t, IBEX_HANDLE_MAKE(KIND, 7)), obj_of(7));
    ibex_handle_release(&t, h);
    assert_null(ibex_handle_get(&t, h));
    ibex_handle_release(&t, h); /* twice: no double entry on the free stack */
    int h2 = ibex_handle_alloc(&t, obj_of(501));
    int h3 = ibex_handle_alloc(&t, obj_of(502));
    assert_int_equal(h2, h);
    assert_int_not_equal(h3, h);
    ibex_handle_table_fini(&t);
}

static void test_bad_handles(void **state)
{
    (void)state;
    ibex_handle_table_t t;
    ibex_handle_table_init(&t, KIND, 1);
    int h = ibex_handle_alloc(&t, obj_of(1));
    assert_null(ibex_handle_get(&t, IBEX_HANDLE_MAKE(KIND + 1, IBEX_HANDLE_INDEX(h))));
    assert_null(ibex_handle_get(&t, IBEX_HANDLE_MAKE(KIND, (1 << 26) - 1)));
    assert_null(ibex_handle_get(&t, IBEX_HANDLE_MAKE(KIND, t.capacity)));
    assert_null(ibex_handle_get(&t, -1));
    assert_null(ibex_handle_at(&t, -5));
    ibex_handle_table_fini(&t);
}

/* The writer fills an object, stores it in the table and publishes its handle; the reader,
 * with no lock, checks that a published handle names a filled object while the table keeps
 * growing (chunks added, capacity raised) under it. */
enum { RACE_N = 4 * MANY };
static struct {
    ibex_handle_table_t t;
    int cell[RACE_N];
    int published; /* the newest handle, or 0 */
    int done;
} race;

static void *reader_main(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&race.done, __ATOMIC_ACQUIRE)) {
        int h = __atomic_load_n(&race.published, __ATOMIC_ACQUIRE);
        if (!h)
            continue;
        int *o = ibex_handle_get(&race.t, h);
        if (!o || o < race.cell || o >= race.cell + RACE_N || *o != 7 * (int)(o - race.cell) + 1)
            return (void *)1;
    }
    return NULL;
}

static void test_reader_while_writer_grows(void **state)
{
    (void)state;
    ibex_handle_table_init(&race.t, KIND, 1);
    pthread_t tid;
    assert_int_equal(pthread_create(&tid, NULL, reader_main, NULL), 0);
    for (int i = 0; i < RACE_N; i++) {
        race.cell[i] = 7 * i + 1;
        int h = ibex_handle_alloc(&race.t, &race.cell[i]);
        assert_int_not_equal(h, -1);
        __atomic_store_n(&race.published, h, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&race.done, 1, __ATOMIC_RELEASE);
    void *rc;
    pthread_join(tid, &rc);
    assert_null(rc);
    ibex_handle_table_fini(&race.t);
}

int main(void)
{
    alarm(60); /* a reader that never sees its object would spin forever */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slots_stable_across_growth),
        cmocka_unit_test(test_indexes_unique_low_first),
        cmocka_unit_test(test_predefined_and_release),
        cmocka_unit_test(test_bad_handles),
        cmocka_unit_test(test_reader_while_writer_grows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
