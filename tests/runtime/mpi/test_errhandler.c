/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the error module (runtime/errhandler*.c) with a fake MPI_COMM_WORLD and
 * MPI_COMM_SELF: class mapping, strings, argument checks, and every kind of handler. The job
 * abort is replaced by a longjmp that records the exit code and message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_comm.h"
#include "ibex_err.h"
#include "ibex_err_internal.h"
#include "ibex_log.h"
#include "ibex_runtime.h"

extern const int ibex_tag_ub;

#include "fake_job.h" /* the fakes the module links against */

static int setup(void **state)
{
    (void)state;
    fake_job_reset(MPI_ERRORS_RETURN, MPI_ERRORS_ARE_FATAL);
    return 0;
}

static void test_class_of_status(void **state)
{
    (void)state;
    assert_int_equal(ibex_err_class_of(IBEX_OK), MPI_SUCCESS);
    assert_int_equal(ibex_err_class_of(IBEX_ERR_NO_MEMORY), MPI_ERR_NO_MEM);
    assert_int_equal(ibex_err_class_of(IBEX_ERR_INVALID), MPI_ERR_ARG);
    assert_int_equal(ibex_err_class_of(IBEX_ERR_TRUNCATE), MPI_ERR_TRUNCATE);
    assert_int_equal(ibex_err_class_of(IBEX_ERR_PEER_FAILED), MPI_ERR_PROC_ABORTED);
    assert_int_equal(ibex_err_class_of(IBEX_ERR_UNSUPPORTED), MPI_ERR_UNSUPPORTED_OPERATION);
    assert_int_equal(ibex_err_class_of(IBEX_ERR_INTERNAL), MPI_ERR_INTERN);
    assert_int_equal(ibex_err_class_of(IBEX_ERR_BOOTSTRAP), MPI_ERR_OTHER);
    assert_int_equal(ibex_err_class_of(IBEX_ERR_NO_CONTEXT), MPI_ERR_OTHER);
    assert_int_equal(ibex_err_class_of((ibex_status_t)-999), MPI_ERR_UNKNOWN);
    /* every error status maps to an error class */
    for (int s = IBEX_ERR_NO_MEMORY; s >= IBEX_STATUS_LAST; s--)
        if (s != IBEX_ERR_CANCELED)
            assert_int_not_equal(ibex_err_class_of((ibex_status_t)s), MPI_SUCCESS);
}

static void test_error_string_every_class(void **state)
{
    (void)state;
    char str[MPI_MAX_ERROR_STRING], prev[MPI_MAX_ERROR_STRING] = "";
    int len;
    for (int c = MPI_SUCCESS; c <= MPI_ERR_LASTCODE; c++) {
        assert_int_equal(MPI_Error_string(c, str, &len), MPI_SUCCESS);
        assert_int_equal(len, (int)strlen(str));
        assert_non_null(ibex_err_class_name(c));
        assert_int_equal(strncmp(str, ibex_err_class_name(c), strlen(ibex_err_class_name(c))), 0);
        assert_true(strlen(str) > strlen(ibex_err_class_name(c)) + 2);
        assert_string_not_equal(str, prev);
        strcpy(prev, str);
    }
    MPI_Error_string(MPI_ERR_RANK, str, &len);
    assert_string_equal(str, "MPI_ERR_RANK: invalid rank");
    MPI_Error_string(MPI_ERR_LASTCODE + 1, str, &len);
    assert_string_equal(str, "unknown error code 80");
    MPI_Error_string(-3, str, &len);
    assert_string_equal(str, "unknown error code -3");
    assert_int_equal(MPI_Error_string(1, NULL, &len), MPI_ERR_ARG);
}

static void test_error_class(void **state)
{
    (void)state;
    int cls = -1;
    for (int c = MPI_SUCCESS; c <= MPI_ERR_LASTCODE; c++) {
        assert_int_equal(MPI_Error_class(c, &cls), MPI_SUCCESS);
        assert_int_equal(cls, c);
    }
    cls = -1;
    assert_int_equal(MPI_Error_class(MPI_ERR_LASTCODE + 1, &cls), MPI_ERR_ARG);
    assert_int_equal(cls, -1);
    assert_int_equal(MPI_Error_class(-1, &cls), MPI_ERR_ARG);
}

static void test_checks_return(void **state)
{
    (void)state;
    ibex_comm_t *c = &fake_world; /* size 4, MPI_ERRORS_RETURN */
    assert_int_equal(ibex_check_count(c, "MPI_Send", 0), MPI_SUCCESS);
    assert_int_equal(ibex_check_count(c, "MPI_Send", -1), MPI_ERR_COUNT);
    assert_int_equal(ibex_check_tag(c, "MPI_Send", 0, 0), MPI_SUCCESS);
    assert_int_equal(ibex_check_tag(c, "MPI_Send", ibex_tag_ub, 0), MPI_SUCCESS);
    assert_int_equal(ibex_tag_ub, 1073741823);
    assert_int_equal(ibex_check_tag(c, "MPI_Send", ibex_tag_ub + 1, 0), MPI_ERR_TAG);
    assert_int_equal(ibex_check_tag(c, "MPI_Send", -5, 1), MPI_ERR_TAG);
    assert_int_equal(ibex_check_tag(c, "MPI_Send", MPI_ANY_TAG, 0), MPI_ERR_TAG);
    assert_int_equal(ibex_check_tag(c, "MPI_Recv", MPI_ANY_TAG, 1), MPI_SUCCESS);
    assert_int_equal(ibex_check_rank(c, "MPI_Send", 0, 0), MPI_SUCCESS);
    assert_int_equal(ibex_check_rank(c, "MPI_Send", 3, 0), MPI_SUCCESS);
    assert_int_equal(ibex_check_rank(c, "MPI_Send", 4, 0), MPI_ERR_RANK);
    assert_int_equal(ibex_check_rank(c, "MPI_Send", -7, 0), MPI_ERR_RANK);
    assert_int_equal(ibex_check_rank(c, "MPI_Send", MPI_PROC_NULL, 0), MPI_SUCCESS);
    assert_int_equal(ibex_check_rank(c, "MPI_Send", MPI_ANY_SOURCE, 0), MPI_ERR_RANK);
    assert_int_equal(ibex_check_rank(c, "MPI_Recv", MPI_ANY_SOURCE, 1), MPI_SUCCESS);
    int x;
    assert_int_equal(ibex_check_buffer(c, "MPI_Send", NULL, 0), MPI_SUCCESS);
    assert_int_equal(ibex_check_buffer(c, "MPI_Send", &x, 1), MPI_SUCCESS);
    assert_int_equal(ibex_check_buffer(c, "MPI_Send", NULL, 1), MPI_ERR_BUFFER);
    assert_int_equal(abort_code, -1); /* nothing aborted */
}

static void test_fatal_message_and_code(void **state)
{
    (void)state;
    fake_world.errhandler = MPI_ERRORS_ARE_FATAL;
    if (setjmp(abort_jmp) == 0) {
        ibex_check_rank(&fake_world, "MPI_Send", 5, 0);
        fail_msg("MPI_ERRORS_ARE_FATAL returned");
    }
    assert_int_equal(abort_code, MPI_ERR_RANK);
    assert_non_null(strstr(abort_msg, "ibex: rank 1 (testhost): MPI_Send: invalid rank 5 "
                                      "(communicator size 4) [MPI_ERR_RANK]"));
    assert_non_null(strstr(abort_msg, "MPI_ERRORS_ARE_FATAL on MPI_COMM_WORLD"));
    fake_world.errhandler = MPI_ERRORS_ABORT;
    if (setjmp(abort_jmp) == 0) {
        ibex_check_tag(&fake_world, "MPI_Recv", -9, 1);
        fail_msg("MPI_ERRORS_ABORT returned");
    }
    assert_int_equal(abort_code, MPI_ERR_TAG);
    assert_non_null(strstr(abort_msg, "MPI_Recv: invalid tag -9"));
    assert_int_equal(ibex_err_exit_code(MPI_ERR_TAG), MPI_ERR_TAG);
    assert_int_equal(ibex_err_exit_code(0), MPI_ERR_UNKNOWN);
    assert_int_equal(ibex_err_exit_code(1000), MPI_ERR_UNKNOWN);
}

static void test_fatal_before_init(void **state)
{
    (void)state;
    ibex_comm_world = ibex_comm_self = NULL;
    ibex_rt.boot.size = 0;
    if (setjmp(abort_jmp) == 0) {
        ibex_mpi_error(NULL, MPI_ERR_OTHER, "MPI_Init", "invalid IBEX_* setting");
        fail_msg("an error before MPI_Init returned");
    }
    assert_int_equal(abort_code, MPI_ERR_OTHER);
    assert_non_null(strstr(abort_msg, "ibex: MPI_Init: invalid IBEX_* setting [MPI_ERR_OTHER]"));
}

static int user_calls;
static MPI_Comm user_comm;
static int user_code;

static void user_handler(MPI_Comm *comm, int *code, ...)
{
    user_calls++;
    user_comm = *comm;
    user_code = *code;
}

static void test_user_handler(void **state)
{
    (void)state;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    user_calls = 0;
    assert_int_equal(MPI_Comm_create_errhandler(user_handler, &eh), MPI_SUCCESS);
    assert_int_not_equal(eh, MPI_ERRHANDLER_NULL);
    assert_int_equal(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh), MPI_SUCCESS);
    assert_true(fake_world.errhandler_set);
    MPI_Errhandler got;
    assert_int_equal(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got), MPI_SUCCESS);
    assert_int_equal(got, eh);
    assert_int_equal(ibex_check_count(&fake_world, "MPI_Send", -2), MPI_ERR_COUNT);
    assert_int_equal(user_calls, 1);
    assert_int_equal(user_comm, MPI_COMM_WORLD);
    assert_int_equal(user_code, MPI_ERR_COUNT);
    assert_int_equal(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER), MPI_SUCCESS);
    assert_int_equal(user_calls, 2);
    assert_int_equal(user_code, MPI_ERR_OTHER);
    /* freed twice (create + get): no longer attachable, but WORLD keeps using it */
    assert_int_equal(MPI_Errhandler_free(&got), MPI_SUCCESS);
    assert_int_equal(got, MPI_ERRHANDLER_NULL);
    MPI_Errhandler copy = eh;
    assert_int_equal(MPI_Errhandler_free(&eh), MPI_SUCCESS);
    fake_self.errhandler = MPI_ERRORS_RETURN; /* errors of the next calls are returned */
    fake_self.errhandler_set = true;
    assert_int_equal(MPI_Comm_set_errhandler(MPI_COMM_SELF, copy), MPI_ERR_ARG);
    assert_int_equal(MPI_Errhandler_free(&copy), MPI_ERR_ARG);
    ibex_check_buffer(&fake_world, "MPI_Send", NULL, 3);
    assert_int_equal(user_calls, 3);
    assert_int_equal(user_code, MPI_ERR_BUFFER);
}

static void test_set_get_validation(void **state)
{
    (void)state;
    MPI_Errhandler eh;
    assert_int_equal(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Comm_set_errhandler(MPI_COMM_WORLD, 12345), MPI_ERR_ARG);
    assert_int_equal(MPI_Comm_set_errhandler(MPI_COMM_NULL, MPI_ERRORS_RETURN), MPI_ERR_COMM);
    assert_int_equal(MPI_Comm_get_errhandler(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh), MPI_SUCCESS);
    assert_int_equal(eh, MPI_ERRORS_RETURN);
    eh = MPI_ERRORS_ARE_FATAL;
    assert_int_equal(MPI_Errhandler_free(&eh), MPI_ERR_ARG);
    eh = MPI_ERRORS_RETURN;
    assert_int_equal(MPI_Errhandler_free(&eh), MPI_ERR_ARG);
    assert_int_equal(MPI_Comm_create_errhandler(NULL, &eh), MPI_ERR_ARG);
    assert_int_equal(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ABORT), MPI_SUCCESS);
    assert_int_equal(fake_self.errhandler, MPI_ERRORS_ABORT);
    assert_true(fake_self.errhandler_set);
}

/* Errors not tied to a communicator: SELF's handler only if the program set it there. */
static void test_default_comm_rule(void **state)
{
    (void)state;
    assert_ptr_equal(ibex_err_default_comm(), &fake_world);
    assert_null(ibex_comm_lookup(MPI_COMM_NULL, "MPI_Send")); /* WORLD: returns */
    assert_int_equal(abort_code, -1);
    assert_int_equal(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL), MPI_SUCCESS);
    assert_ptr_equal(ibex_err_default_comm(), &fake_self);
    if (setjmp(abort_jmp) == 0) {
        ibex_comm_lookup(MPI_COMM_NULL, "MPI_Send");
        fail_msg("the handler set on MPI_COMM_SELF was not used");
    }
    assert_int_equal(abort_code, MPI_ERR_COMM);
    assert_non_null(strstr(abort_msg, "MPI_Send: invalid communicator"));
    assert_non_null(strstr(abort_msg, "(MPI_COMM_NULL) [MPI_ERR_COMM]"));
    assert_ptr_equal(ibex_comm_lookup(MPI_COMM_WORLD, "MPI_Send"), &fake_world);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, setup)
    const struct CMUnitTest tests[] = {
        T(test_class_of_status), T(test_error_string_every_class), T(test_error_class),
        T(test_checks_return),   T(test_fatal_message_and_code),   T(test_fatal_before_init),
        T(test_user_handler),    T(test_set_get_validation),       T(test_default_comm_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
