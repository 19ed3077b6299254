/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Each collective of the conformance programs in the form the program is running: blocking,
 * non-blocking (MPI_I<coll> + MPI_Wait) or persistent (MPI_<Coll>_init + MPI_Start + MPI_Wait
 * + MPI_Request_free; MPI 4.0, so only where mpi.h says MPI 4). A case written once runs in all
 * three forms.
 */
#ifndef CONF_MODE_H
#define CONF_MODE_H
#include "conf_test.h"

enum { CONF_BLOCKING, CONF_NONBLOCKING, CONF_PERSISTENT };
static int conf_mode;
static const char *const conf_mode_name[] = {"blocking", "non-blocking", "persistent"};
#if MPI_VERSION >= 4
#define CONF_NMODES 3
#else
#define CONF_NMODES 2
#endif

static inline void conf_complete(MPI_Request *req, int persistent)
{
    if (persistent) {
        MPI_Start(req);
        MPI_Wait(req, MPI_STATUS_IGNORE);
        MPI_Request_free(req);
    } else {
        MPI_Wait(req, MPI_STATUS_IGNORE);
    }
}

#if MPI_VERSION >= 4
#define CONF_PINIT(call, ...) call##_init(__VA_ARGS__, MPI_INFO_NULL, &req)
#else
#define CONF_PINIT(call, ...) (void)0
#endif
/* CONF_RUN(Allreduce, allreduce, args...): the call in the current form. */
#define CONF_RUN(name, lower, ...)                                                                 \
    do {                                                                                           \
        MPI_Request req;                                                                           \
        if (conf_mode == CONF_BLOCKING) {                                                          \
            MPI_##name(__VA_ARGS__);                                                               \
        } else if (conf_mode == CONF_NONBLOCKING) {                                                \
            MPI_I##lower(__VA_ARGS__, &req);                                                       \
            conf_complete(&req, 0);                                                                \
        } else {                                                                                   \
            CONF_PINIT(MPI_##name, __VA_ARGS__);                                                   \
            conf_complete(&req, 1);                                                                \
        }                                                                                          \
    } while (0)

#endif
