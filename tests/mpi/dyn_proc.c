/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Process creation and management (MPI 4.1 chapter 11) in an implementation that cannot start
 * processes: the calls exist and fail cleanly, with errors returned (MPI_ERRORS_RETURN).
 * - MPI_Comm_spawn / Comm_spawn_multiple are collective: every rank returns MPI_ERR_SPAWN
 *   with MPI_COMM_NULL and one MPI_ERR_SPAWN per process asked for in array_of_errcodes
 *   (the root's maxprocs, whatever the others pass); MPI_ERRCODES_IGNORE and MPI_ARGV_NULL
 *   are taken; a root's bad maxprocs is MPI_ERR_ARG there and an error everywhere;
 * - the port and name calls return MPI_ERR_UNSUPPORTED_OPERATION (accept / connect with
 *   MPI_COMM_NULL, output strings empty); NULL outputs are MPI_ERR_ARG; a bad root
 *   MPI_ERR_ROOT;
 * - MPI_Comm_get_parent is MPI_COMM_NULL; afterwards the communicator still works.
 */
#include "mpitest.h"

static int rank, size;

static int cls(int rc)
{
    int c = MPI_SUCCESS;
    MPI_Error_class(rc, &c);
    return c;
}

static void spawn(void)
{
    int codes[8];
    MPI_Comm inter = MPI_COMM_WORLD;
    char *args[] = {"a", NULL};
    for (int i = 0; i < 8; i++)
        codes[i] = -7;
    int maxprocs = rank == 0 ? 3 : -5; /* only the root's is significant */
    int rc = MPI_Comm_spawn(rank == 0 ? "./child" : NULL, args, maxprocs, MPI_INFO_NULL, 0,
                            MPI_COMM_WORLD, &inter, codes);
    CHECK(cls(rc) == MPI_ERR_SPAWN && inter == MPI_COMM_NULL);
    for (int i = 0; i < 8; i++)
        CHECK(codes[i] == (i < 3 ? MPI_ERR_SPAWN : -7));
    inter = MPI_COMM_WORLD;
    rc = MPI_Comm_spawn("./child", MPI_ARGV_NULL, 1, MPI_INFO_NULL, size - 1, MPI_COMM_WORLD,
                        &inter, MPI_ERRCODES_IGNORE);
    CHECK(cls(rc) == MPI_ERR_SPAWN && inter == MPI_COMM_NULL);
    /* two commands, 2 + 1 processes */
    char *cmds[] = {"./a", "./b"};
    char **argvs[] = {MPI_ARGV_NULL, args};
    int procs[] = {2, 1};
    MPI_Info infos[] = {MPI_INFO_NULL, MPI_INFO_NULL};
    for (int i = 0; i < 8; i++)
        codes[i] = -7;
    rc = MPI_Comm_spawn_multiple(2, cmds, argvs, procs, infos, 0, MPI_COMM_WORLD, &inter, codes);
    CHECK(cls(rc) == MPI_ERR_SPAWN && inter == MPI_COMM_NULL);
    for (int i = 0; i < 8; i++)
        CHECK(codes[i] == (i < 3 ? MPI_ERR_SPAWN : -7));
    rc = MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, procs, infos, 0, MPI_COMM_WORLD, &inter,
                                 MPI_ERRCODES_IGNORE);
    CHECK(cls(rc) == MPI_ERR_SPAWN);
    /* the root's maxprocs 0: its own MPI_ERR_ARG, an error at the others too */
    rc = MPI_Comm_spawn("./child", MPI_ARGV_NULL, 0, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                        MPI_ERRCODES_IGNORE);
    CHECK(rank == 0 ? cls(rc) == MPI_ERR_ARG : cls(rc) == MPI_ERR_SPAWN);
    CHECK(cls(MPI_Comm_spawn("./c", MPI_ARGV_NULL, 1, MPI_INFO_NULL, size, MPI_COMM_WORLD, &inter,
                             MPI_ERRCODES_IGNORE)) == MPI_ERR_ROOT);
    CHECK(cls(MPI_Comm_spawn("./c", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, NULL,
                             MPI_ERRCODES_IGNORE)) == MPI_ERR_ARG);
}

static void ports(void)
{
    char port[MPI_MAX_PORT_NAME] = "x", name[MPI_MAX_PORT_NAME] = "y";
    MPI_Comm c = MPI_COMM_WORLD;
    CHECK(cls(MPI_Open_port(MPI_INFO_NULL, port)) == MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(port[0] == '\0');
    CHECK(cls(MPI_Open_port(MPI_INFO_NULL, NULL)) == MPI_ERR_ARG);
    CHECK(cls(MPI_Close_port("port")) == MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(cls(MPI_Close_port(NULL)) == MPI_ERR_ARG);
    CHECK(cls(MPI_Comm_accept("port", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &c)) ==
          MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(c == MPI_COMM_NULL);
    c = MPI_COMM_WORLD;
    CHECK(cls(MPI_Comm_connect(rank == 0 ? "port" : NULL, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &c)) ==
          MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(c == MPI_COMM_NULL);
    CHECK(cls(MPI_Comm_connect("port", MPI_INFO_NULL, -1, MPI_COMM_WORLD, &c)) == MPI_ERR_ROOT);
    CHECK(cls(MPI_Comm_join(0, &c)) == MPI_ERR_UNSUPPORTED_OPERATION && c == MPI_COMM_NULL);
    CHECK(cls(MPI_Publish_name("svc", MPI_INFO_NULL, "port")) == MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(cls(MPI_Unpublish_name("svc", MPI_INFO_NULL, "port")) == MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(cls(MPI_Lookup_name("svc", MPI_INFO_NULL, name)) == MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(name[0] == '\0');
    CHECK(cls(MPI_Publish_name(NULL, MPI_INFO_NULL, "port")) == MPI_ERR_ARG);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm parent = MPI_COMM_WORLD;
    CHECK_RC(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL);
    spawn();
    ports();
    int one = 1, sum = 0;
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size);
    if (rank == 0)
        printf("dyn_proc: ok\n");
    MPI_Finalize();
    return 0;
}
