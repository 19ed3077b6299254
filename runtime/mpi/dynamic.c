/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Process creation and management (MPI 4.1 chapter 11): declared exactly as the standard has
 * them so that programs build, with their arguments checked, but Ibex runs the fixed set of
 * processes its launcher started. So:
 * - MPI_Comm_spawn / Comm_spawn_multiple are collective over comm: the root's arguments are
 *   checked there and the number of processes asked for is broadcast, so that every rank
 *   fills its array_of_errcodes (one entry per process asked for) with MPI_ERR_SPAWN, gets
 *   MPI_COMM_NULL and returns MPI_ERR_SPAWN, raised on comm;
 * - the port and name calls (Open_port, Close_port, Comm_accept, Comm_connect, Comm_join,
 *   Publish_name, Unpublish_name, Lookup_name) return MPI_ERR_UNSUPPORTED_OPERATION, on comm
 *   for accept / connect (whose new communicator is MPI_COMM_NULL), else on the default
 *   handler; output strings are made empty.
 * MPI_Comm_get_parent (comm_api.c) gives MPI_COMM_NULL: no Ibex process was spawned.
 */
#include <limits.h>

#include "ibex_comm.h"
#include "ibex_err.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

static const char why[] = "Ibex runs a fixed set of processes (no dynamic process management)";

/* MPI_INFO_NULL or a live info. */
static int info_ok(ibex_comm_t *c, const char *call, MPI_Info info, const char *what)
{
    int n;
    if (info == MPI_INFO_NULL || PMPI_Info_get_nkeys(info, &n) == MPI_SUCCESS)
        return MPI_SUCCESS;
    return ibex_mpi_error(c, MPI_ERR_INFO, call, "%s: invalid info handle 0x%x", what,
                          (unsigned)info);
}

static int root_ok(ibex_comm_t *c, const char *call, int root)
{
    if (ibex_comm_is_inter(c))
        return ibex_mpi_error(c, MPI_ERR_COMM, call, "comm is an intercommunicator");
    if (root < 0 || root >= c->size)
        return ibex_mpi_error(c, MPI_ERR_ROOT, call, "root %d is not a rank of comm (size %d)",
                              root, c->size);
    return MPI_SUCCESS;
}

/* One command of a spawn, checked at the root. */
static int command_ok(ibex_comm_t *c, const char *call, const char *command, int maxprocs,
                      MPI_Info info, int i)
{
    if (!command || !command[0])
        return ibex_mpi_error(c, MPI_ERR_ARG, call, "command %d is NULL or empty", i);
    if (maxprocs <= 0)
        return ibex_mpi_error(c, MPI_ERR_ARG, call, "maxprocs %d of command %d is not positive",
                              maxprocs, i);
    return info_ok(c, call, info, "info");
}

/* The collective part of a spawn: the root's count of processes (-1 when its arguments are
 * wrong) to every rank, each rank's errcodes filled; the root's error, else MPI_ERR_SPAWN. */
static int spawn_fail(ibex_entry_t *e, ibex_comm_t *c, MPI_Comm comm, int root, int rc, int total,
                      MPI_Comm *intercomm, int *errcodes)
{
    int n = rc == MPI_SUCCESS ? total : -1;
    *intercomm = MPI_COMM_NULL;
    int brc = PMPI_Bcast(&n, 1, MPI_INT, root, comm);
    if (rc != MPI_SUCCESS || brc != MPI_SUCCESS)
        return rc != MPI_SUCCESS ? rc : brc; /* raised at the root / by the broadcast */
    if (n < 0)
        return ibex_mpi_error(c, MPI_ERR_SPAWN, e->call, "the root's arguments are wrong");
    for (int i = 0; errcodes != MPI_ERRCODES_IGNORE && i < n; i++)
        errcodes[i] = MPI_ERR_SPAWN;
    return ibex_mpi_error(c, MPI_ERR_SPAWN, e->call, "cannot start %d process%s: %s", n,
                          n == 1 ? "" : "es", why);
}

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    IBEX_ENTER_COMM(Comm_spawn, comm, c);
    IBEX_ARGS(Comm_spawn, intercomm);
    (void)argv;
    IBEX_CHECK(root_ok(c, call, root));
    int rc = c->rank == root ? command_ok(c, call, command, maxprocs, info, 0) : MPI_SUCCESS;
    return spawn_fail(&ibex_e, c, comm, root, rc, maxprocs, intercomm, array_of_errcodes);
}

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    IBEX_ENTER_COMM(Comm_spawn_multiple, comm, c);
    IBEX_ARGS(Comm_spawn_multiple, intercomm);
    (void)array_of_argv;
    IBEX_CHECK(root_ok(c, call, root));
    int rc = MPI_SUCCESS, total = 0;
    if (c->rank == root && count <= 0)
        rc = ibex_mpi_error(c, MPI_ERR_ARG, call, "count %d is not positive", count);
    else if (c->rank == root && (!array_of_commands || !array_of_maxprocs || !array_of_info))
        rc = ibex_mpi_error(c, MPI_ERR_ARG, call, "array_of_%s is NULL",
                            !array_of_commands   ? "commands"
                            : !array_of_maxprocs ? "maxprocs"
                                                 : "info");
    for (int i = 0; c->rank == root && rc == MPI_SUCCESS && i < count; i++) {
        rc = command_ok(c, call, array_of_commands[i], array_of_maxprocs[i], array_of_info[i], i);
        if (rc == MPI_SUCCESS && array_of_maxprocs[i] > INT_MAX - total)
            rc = ibex_mpi_error(c, MPI_ERR_ARG, call, "the maxprocs sum past an int");
        total += rc == MPI_SUCCESS ? array_of_maxprocs[i] : 0;
    }
    return spawn_fail(&ibex_e, c, comm, root, rc, total, intercomm, array_of_errcodes);
}

/* The port and name calls: the error, naming what was asked. */
static int unsupported(ibex_comm_t *c, const char *call, const char *what)
{
    return ibex_mpi_error(c, MPI_ERR_UNSUPPORTED_OPERATION, call, "%s: %s", what, why);
}

int PMPI_Open_port(MPI_Info info, char *port_name)
{
    IBEX_ENTER(Open_port);
    if (!port_name)
        return IBEX_ERROR(MPI_ERR_ARG, "port_name is NULL");
    port_name[0] = '\0';
    IBEX_CHECK(info_ok(NULL, call, info, "info"));
    return unsupported(NULL, call, "no port can be opened");
}

int PMPI_Close_port(const char *port_name)
{
    IBEX_ENTER(Close_port);
    IBEX_ARGS(Close_port, port_name);
    return unsupported(NULL, call, "no port was opened");
}

/* Comm_accept and Comm_connect: the root's port and info, then the error on comm. */
static int accept_connect(ibex_entry_t *e, const char *port_name, MPI_Info info, int root,
                          ibex_comm_t *c, MPI_Comm *newcomm, const char *what)
{
    *newcomm = MPI_COMM_NULL;
    IBEX_CHECK(root_ok(c, e->call, root));
    if (c->rank == root && !port_name)
        return ibex_mpi_error(c, MPI_ERR_ARG, e->call, "port_name is NULL");
    if (c->rank == root)
        IBEX_CHECK(info_ok(c, e->call, info, "info"));
    return unsupported(c, e->call, what);
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    IBEX_ENTER_COMM(Comm_accept, comm, c);
    IBEX_ARGS(Comm_accept, newcomm);
    return accept_connect(&ibex_e, port_name, info, root, c, newcomm, "no client can connect");
}

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm)
{
    IBEX_ENTER_COMM(Comm_connect, comm, c);
    IBEX_ARGS(Comm_connect, newcomm);
    return accept_connect(&ibex_e, port_name, info, root, c, newcomm, "no server to connect to");
}

int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    IBEX_ENTER(Comm_join);
    IBEX_ARGS(Comm_join, intercomm);
    *intercomm = MPI_COMM_NULL;
    if (fd < 0)
        return IBEX_ERROR(MPI_ERR_ARG, "fd %d is not a file descriptor", fd);
    return unsupported(NULL, call, "no process can join over a socket");
}

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    IBEX_ENTER(Publish_name);
    IBEX_ARGS(Publish_name, service_name, port_name);
    IBEX_CHECK(info_ok(NULL, call, info, "info"));
    return unsupported(NULL, call, "no name service");
}

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    IBEX_ENTER(Unpublish_name);
    IBEX_ARGS(Unpublish_name, service_name, port_name);
    IBEX_CHECK(info_ok(NULL, call, info, "info"));
    return unsupported(NULL, call, "no name service");
}

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    IBEX_ENTER(Lookup_name);
    IBEX_ARGS(Lookup_name, service_name);
    if (!port_name)
        return IBEX_ERROR(MPI_ERR_ARG, "port_name is NULL");
    port_name[0] = '\0';
    IBEX_CHECK(info_ok(NULL, call, info, "info"));
    return unsupported(NULL, call, "no name service");
}

IBEX_MPI_ALIASES(dynamic)
