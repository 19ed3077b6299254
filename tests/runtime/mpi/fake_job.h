/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake job for unit tests of runtime/mpi (test_errhandler.c, test_bindings.c): rank 1 of 4 on
 * "testhost", MPI_COMM_WORLD and MPI_COMM_SELF as plain objects, MPI always initialised (each
 * check counted in fake_init_checks), and the job abort replaced by a longjmp to abort_jmp that
 * records the exit code and message. Included by one test file each (it defines the symbols).
 */
#ifndef FAKE_JOB_H
#define FAKE_JOB_H

#include <setjmp.h>
#include <stdio.h>

#include "ibex_comm.h"
#include "ibex_log.h"
#include "ibex_runtime.h"

ibex_runtime_t ibex_rt;
ibex_comm_t *ibex_comm_world, *ibex_comm_self;
static ibex_comm_t fake_world, fake_self;
static jmp_buf abort_jmp;
static int abort_code;
static char abort_msg[4096];
static int fake_init_checks;

ibex_comm_t *ibex_comm_get(MPI_Comm handle)
{
    if (handle == MPI_COMM_WORLD)
        return ibex_comm_world;
    if (handle == MPI_COMM_SELF)
        return ibex_comm_self;
    return NULL;
}

void ibex_boot_abort(int code, const char *msg)
{
    abort_code = code;
    snprintf(abort_msg, sizeof(abort_msg), "%s", msg);
    longjmp(abort_jmp, 1);
}

int ibex_check_initialized(const char *call)
{
    (void)call;
    fake_init_checks++;
    return MPI_SUCCESS;
}

/* A fresh job whose two communicators have the given error handlers. */
static void fake_job_reset(MPI_Errhandler world_handler, MPI_Errhandler self_handler)
{
    ibex_log_level = -1; /* the handlers' debug lines are not under test */
    ibex_rt.boot.rank = 1;
    ibex_rt.boot.size = 4;
    snprintf(ibex_rt.boot.hostname, sizeof(ibex_rt.boot.hostname), "testhost");
    fake_world = (ibex_comm_t){.handle = MPI_COMM_WORLD,
                               .rank = 1,
                               .size = 4,
                               .peer_size = 4,
                               .errhandler = world_handler,
                               .name = "MPI_COMM_WORLD"};
    fake_self = (ibex_comm_t){.handle = MPI_COMM_SELF,
                              .rank = 0,
                              .size = 1,
                              .peer_size = 1,
                              .errhandler = self_handler,
                              .name = "MPI_COMM_SELF"};
    ibex_comm_world = &fake_world;
    ibex_comm_self = &fake_self;
    abort_code = -1;
    abort_msg[0] = '\0';
    fake_init_checks = 0;
}

#endif
