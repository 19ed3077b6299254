/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the datatype and op unit tests: they link the datatype code without the error
 * module, so ibex_mpi_error is stubbed here and records the last class raised. */
#ifndef DT_TEST_UTIL_H
#define DT_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ibex_datatype.h"
#include "ibex_err.h"
#include "ibex_op.h"
#include "ibex_runtime.h"

static int dt_test_last_err = MPI_SUCCESS;

int ibex_mpi_error(struct ibex_comm *comm, int errclass, const char *call, const char *fmt, ...)
{
    (void)comm;
    (void)call;
    (void)fmt;
    dt_test_last_err = errclass;
    return errclass;
}

static int dt_test_setup(void **state)
{
    (void)state;
    assert_int_equal(ibex_dt_init(), IBEX_OK);
    assert_int_equal(ibex_op_init(), IBEX_OK);
    dt_test_last_err = MPI_SUCCESS;
    return 0;
}

static int dt_test_teardown(void **state)
{
    (void)state;
    ibex_op_fini();
    ibex_dt_fini();
    return 0;
}

/* Expects call to fail with class cls, raised through ibex_mpi_error. */
#define assert_mpi_err(cls, call)                                                                  \
    do {                                                                                           \
        dt_test_last_err = MPI_SUCCESS;                                                            \
        assert_int_equal((call), (cls));                                                           \
        assert_int_equal(dt_test_last_err, (cls));                                                 \
    } while (0)

#define T(fn) cmocka_unit_test_setup_teardown(fn, dt_test_setup, dt_test_teardown)

#endif
