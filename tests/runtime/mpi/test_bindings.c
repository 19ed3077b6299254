/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the bindings' entry (runtime/mpi/ibex_entry.h) and the checks generated from
 * mpi.def (ibex_mpi_gen.h), with a fake MPI_COMM_WORLD / MPI_COMM_SELF and the job abort
 * replaced by a longjmp, as in test_errhandler.c. The thread hook is counted: every return of
 * a binding, early errors included, must release what its entry took.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static int locks, unlocks;
#define IBEX_THREAD_LOCK()        (locks++, true)
#define IBEX_THREAD_UNLOCK(taken) ((void)((taken) && unlocks++))

#include "ibex_comm.h"
#include "ibex_entry.h"
#include "ibex_log.h"
#include "ibex_runtime.h"

#include "fake_job.h"

static int setup(void **state)
{
    (void)state;
    fake_job_reset(MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN);
    locks = unlocks = 0;
    return 0;
}

/* A binding written the way runtime/mpi writes them (MPI_Comm_size's checks). */
static int binding_comm_size(MPI_Comm comm, int *size)
{
    IBEX_ENTER_COMM(Comm_size, comm, c);
    IBEX_ARGS(Comm_size, size);
    *size = c->size;
    return MPI_SUCCESS;
}

static void test_entry_success(void **state)
{
    (void)state;
    int size = 0;
    assert_int_equal(binding_comm_size(MPI_COMM_SELF, &size), MPI_SUCCESS);
    assert_int_equal(size, 1);
    assert_int_equal(fake_init_checks, 1);
    assert_int_equal(locks, 1);
    assert_int_equal(unlocks, 1);
}

/* After the lookup the communicator's handler takes the error: SELF returns it even though
 * WORLD (the default) is fatal. */
static void test_entry_handler_is_the_communicators(void **state)
{
    (void)state;
    if (setjmp(abort_jmp) == 0)
        assert_int_equal(binding_comm_size(MPI_COMM_SELF, NULL), MPI_ERR_ARG);
    else
        fail_msg("the error went to the default handler: %s", abort_msg);
    assert_int_equal(locks, 1);
    assert_int_equal(unlocks, 1);
}

/* A bad handle has no communicator: the default handler (WORLD, fatal here) takes it. */
static void test_entry_bad_handle_default_handler(void **state)
{
    (void)state;
    int size;
    if (setjmp(abort_jmp) == 0) {
        binding_comm_size(MPI_COMM_NULL, &size);
        fail_msg("a bad communicator returned under a fatal default handler");
    }
    assert_int_equal(abort_code, MPI_ERR_COMM);
    assert_non_null(strstr(abort_msg, "MPI_Comm_size: invalid communicator"));
    fake_world.errhandler = MPI_ERRORS_RETURN;
    locks = unlocks = 0;
    assert_int_equal(binding_comm_size(MPI_COMM_NULL, &size), MPI_ERR_COMM);
    assert_int_equal(locks, 1);
    assert_int_equal(unlocks, 1);
}

/* The generated checks: names, classes and messages as the hand-written ones were. */
static void test_generated_null_check(void **state)
{
    (void)state;
    ibex_entry_t e = {"MPI_Comm_rank", &fake_world};
    int rank;
    assert_int_equal(ibex_args_Comm_rank(&e, &rank), MPI_SUCCESS);
    if (setjmp(abort_jmp) == 0) {
        ibex_args_Comm_rank(&e, NULL);
        fail_msg("NULL rank passed");
    }
    assert_int_equal(abort_code, MPI_ERR_ARG);
    assert_non_null(
        strstr(abort_msg, "ibex: rank 1 (testhost): MPI_Comm_rank: rank is NULL [MPI_ERR_ARG]"));
}

static void test_generated_count_check(void **state)
{
    (void)state;
    ibex_entry_t e = {"MPI_Type_contiguous", NULL};
    MPI_Datatype t;
    assert_int_equal(ibex_args_Type_contiguous(&e, 0, &t), MPI_SUCCESS);
    assert_int_equal(ibex_args_Type_contiguous(&e, 7, &t), MPI_SUCCESS);
    if (setjmp(abort_jmp) == 0) {
        ibex_args_Type_contiguous(&e, -1, &t);
        fail_msg("count -1 passed");
    }
    assert_int_equal(abort_code, MPI_ERR_COUNT);
    assert_non_null(strstr(abort_msg, "MPI_Type_contiguous: invalid count -1 (negative)"));
    /* parameters are checked in their order: the count before the output pointer */
    fake_world.errhandler = MPI_ERRORS_RETURN;
    assert_int_equal(ibex_args_Type_contiguous(&e, -1, NULL), MPI_ERR_COUNT);
    assert_int_equal(ibex_args_Type_contiguous(&e, 1, NULL), MPI_ERR_ARG);
}

/* The real bindings of the error module, through their weak MPI_ names. */
static void test_bindings_through_aliases(void **state)
{
    (void)state;
    fake_world.errhandler = MPI_ERRORS_RETURN;
    MPI_Errhandler eh;
    assert_int_equal(MPI_Comm_get_errhandler(MPI_COMM_SELF, &eh), MPI_SUCCESS);
    assert_int_equal(eh, MPI_ERRORS_RETURN);
    assert_int_equal(MPI_Comm_get_errhandler(MPI_COMM_SELF, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Errhandler_free(NULL), MPI_ERR_ARG);
    int cls = -1;
    assert_int_equal(MPI_Error_class(MPI_ERR_TAG, &cls), MPI_SUCCESS);
    assert_int_equal(cls, MPI_ERR_TAG);
    assert_int_equal(MPI_Error_class(MPI_ERR_TAG, NULL), MPI_ERR_ARG);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, setup)
    const struct CMUnitTest tests[] = {
        T(test_entry_success),
        T(test_entry_handler_is_the_communicators),
        T(test_entry_bad_handle_default_handler),
        T(test_generated_null_check),
        T(test_generated_count_check),
        T(test_bindings_through_aliases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
