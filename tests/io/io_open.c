/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI-IO open / close / delete and whole-file calls, against MPI 4.1 chapter 14: the error
 * classes of bad access modes, missing files, MPI_MODE_EXCL, reading a write-only file and
 * writing a read-only one (every rank returns the same class), the default file error handler
 * (MPI_ERRORS_RETURN, settable on MPI_FILE_NULL), sizes, amode, group, atomicity, info,
 * MPI_MODE_DELETE_ON_CLOSE and MPI_MODE_APPEND.
 */
#include <string.h>
#include <unistd.h>

#include "io_check.h"

static int handler_calls, handler_code;

static void on_error(MPI_File *fh, int *code, ...)
{
    (void)fh;
    handler_calls++;
    handler_code = *code;
}

static int open_class(const char *name, int amode)
{
    MPI_File fh = MPI_FILE_NULL;
    int rc = MPI_File_open(MPI_COMM_WORLD, name, amode, MPI_INFO_NULL, &fh);
    if (rc == MPI_SUCCESS)
        MPI_File_close(&fh);
    else
        CHECK(fh == MPI_FILE_NULL);
    return io_class(rc);
}

static void amodes(void)
{
    const char *name = io_path("amode");
    CHECK(open_class(name, MPI_MODE_RDONLY | MPI_MODE_WRONLY) == MPI_ERR_AMODE);
    CHECK(open_class(name, MPI_MODE_CREATE) == MPI_ERR_AMODE);
    CHECK(open_class(name, MPI_MODE_RDONLY | MPI_MODE_CREATE) == MPI_ERR_AMODE);
    CHECK(open_class(name, MPI_MODE_RDONLY | MPI_MODE_EXCL) == MPI_ERR_AMODE);
    CHECK(open_class(name, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL) == MPI_ERR_AMODE);
    CHECK(open_class(name, MPI_MODE_RDONLY) == MPI_ERR_NO_SUCH_FILE);
    CHECK(open_class(name, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL) == MPI_SUCCESS);
    CHECK(open_class(name, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL) ==
          MPI_ERR_FILE_EXISTS);
    MPI_Barrier(MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        OK(MPI_File_delete(name, MPI_INFO_NULL));
        CHECK(io_class(MPI_File_delete(name, MPI_INFO_NULL)) == MPI_ERR_NO_SUCH_FILE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void access_modes(void)
{
    const char *name = io_path("access");
    MPI_File fh;
    int v = 7, amode;
    MPI_Status st;
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    OK(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_WRONLY | MPI_MODE_CREATE));
    CHECK(io_class(MPI_File_read_at(fh, 0, &v, 1, MPI_INT, &st)) == MPI_ERR_ACCESS);
    OK(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL);
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    CHECK(io_class(MPI_File_write_at(fh, 0, &v, 1, MPI_INT, &st)) == MPI_ERR_READ_ONLY);
    CHECK(io_class(MPI_File_read_at(fh, 0, &v, -1, MPI_INT, &st)) == MPI_ERR_COUNT);
    CHECK(io_class(MPI_File_get_size(fh, NULL)) == MPI_ERR_ARG);
    OK(MPI_File_close(&fh));
    CHECK(io_class(MPI_File_close(&fh)) == MPI_ERR_FILE);
    MPI_Offset sz;
    CHECK(io_class(MPI_File_get_size(MPI_FILE_NULL, &sz)) == MPI_ERR_FILE);
}

/* The default handler of files is MPI_ERRORS_RETURN; one set on MPI_FILE_NULL is inherited. */
static void handlers(void)
{
    MPI_Errhandler eh, got;
    OK(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    CHECK(got == MPI_ERRORS_RETURN); /* predefined: not freed */
    OK(MPI_File_create_errhandler(on_error, &eh));
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
    CHECK(open_class(io_path("none"), MPI_MODE_RDONLY) == MPI_ERR_NO_SUCH_FILE);
    CHECK(handler_calls == 1 && io_class(handler_code) == MPI_ERR_NO_SUCH_FILE);
    MPI_File fh;
    OK(MPI_File_open(MPI_COMM_WORLD, io_path("eh"),
                     MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                     &fh));
    OK(MPI_File_get_errhandler(fh, &got));
    CHECK(got == eh);
    MPI_Errhandler_free(&got);
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    OK(MPI_File_call_errhandler(fh, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER);
    CHECK(io_class(MPI_File_seek(fh, -1, MPI_SEEK_SET)) == MPI_ERR_ARG);
    CHECK(handler_calls == 3);
    OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    OK(MPI_File_close(&fh));
    MPI_Errhandler_free(&eh);
    CHECK(access(io_path("eh"), F_OK) != 0); /* deleted on close */
}

static void whole_file(void)
{
    int rank, size, flag, cmp;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_File fh;
    MPI_Offset sz;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "access_style", "read_mostly");
    MPI_Info_set(info, "invalid_test_key", "true"); /* ignored hints are not given back */
    MPI_Info_set(info, "cb_nodes", "2");
    OK(MPI_File_open(MPI_COMM_WORLD, io_path("whole"), MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
    MPI_Info_free(&info);
    OK(MPI_File_set_size(fh, 1000));
    OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 1000);
    MPI_Barrier(MPI_COMM_WORLD); /* all have seen it before the next change */
    OK(MPI_File_set_size(fh, 10));
    OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 10);
    MPI_Barrier(MPI_COMM_WORLD); /* all have seen it before the next change */
    OK(MPI_File_preallocate(fh, 4));
    OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 10); /* preallocate never shrinks */
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_preallocate(fh, 64));
    OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 64);
    MPI_Barrier(MPI_COMM_WORLD); /* all have seen it before the next change */
    MPI_Group g, wg;
    OK(MPI_File_get_group(fh, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    OK(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 0);
    OK(MPI_File_set_atomicity(fh, 1));
    OK(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 1);
    OK(MPI_File_get_info(fh, &info));
    char val[64];
    MPI_Info_get(info, "access_style", sizeof(val) - 1, val, &flag);
    CHECK(flag && !strcmp(val, "read_mostly"));
    MPI_Info_get(info, "invalid_test_key", sizeof(val) - 1, val, &flag);
    CHECK(!flag);
    MPI_Info_get(info, "cb_nodes", sizeof(val) - 1, val, &flag);
    CHECK(!flag);
    MPI_Info_free(&info);
    /* set_info merges what is kept; an invalid value leaves the one in effect */
    const char *sets[][2] = {{"access_style", "write_once,random"},
                             {"access_style", "bogus"},
                             {"invalid_test_key", "true"}};
    for (int i = 0; i < 3; i++) {
        MPI_Info_create(&info);
        MPI_Info_set(info, sets[i][0], sets[i][1]);
        OK(MPI_File_set_info(fh, info));
        MPI_Info_free(&info);
    }
    OK(MPI_File_get_info(fh, &info));
    MPI_Info_get(info, "access_style", sizeof(val) - 1, val, &flag);
    CHECK(flag && !strcmp(val, "write_once,random"));
    MPI_Info_get(info, "invalid_test_key", sizeof(val) - 1, val, &flag);
    CHECK(!flag);
    MPI_Info_free(&info);
    OK(MPI_File_sync(fh));
    OK(MPI_File_close(&fh));
    /* MPI_MODE_APPEND: both pointers start at the end */
    OK(MPI_File_open(MPI_COMM_WORLD, io_path("whole"), MPI_MODE_WRONLY | MPI_MODE_APPEND,
                     MPI_INFO_NULL, &fh));
    OK(MPI_File_get_position(fh, &sz));
    CHECK(sz == 64);
    OK(MPI_File_get_position_shared(fh, &sz));
    CHECK(sz == 64);
    OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        OK(MPI_File_delete(io_path("whole"), MPI_INFO_NULL));
    CHECK(MPI_File_c2f(MPI_FILE_NULL) == MPI_File_c2f(MPI_File_f2c(MPI_File_c2f(MPI_FILE_NULL))));
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv);
    amodes();
    access_modes();
    handlers();
    whole_file();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_File_delete(io_path("access"), MPI_INFO_NULL);
        printf("io_open: ok\n");
    }
    MPI_Finalize();
    return 0;
}
