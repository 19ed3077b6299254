/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Split collective accesses (MPI 4.1, 14.4.5): the _begin call does the whole access and keeps
 * its status; the matching _end returns it. One split collective at a time per file (a second
 * _begin, or an _end without one, is MPI_ERR_IO, as in ROMIO).
 */
#include "ibex_io.h"

static int begin(ibex_file_t *f, int rc_of_access)
{
    f->split = true;
    f->split_rc = rc_of_access;
    return rc_of_access;
}

static int busy(ibex_file_t *f, const char *call)
{
    if (f->split)
        return IBEX_FILE_ERROR(f, MPI_ERR_IO, "a split collective is already in progress");
    return MPI_SUCCESS;
}

static int end(ibex_file_t *f, const char *call, MPI_Status *status)
{
    if (!f->split)
        return IBEX_FILE_ERROR(f, MPI_ERR_IO, "no split collective is in progress");
    f->split = false;
    if (status != MPI_STATUS_IGNORE)
        *status = f->split_status;
    return f->split_rc;
}

#define AT_BEGIN(name, wr, cbuf)                                                                   \
    int PMPI_File_##name(MPI_File fh, MPI_Offset offset, cbuf void *buf, int count,                \
                         MPI_Datatype datatype)                                                    \
    {                                                                                              \
        IBEX_ENTER_FILE(File_##name, fh, f);                                                       \
        IBEX_ARGS(File_##name, fh, count);                                                         \
        IBEX_CHECK(busy(f, call));                                                                 \
        return begin(                                                                              \
            f, ibex_io_at(f, call, wr, offset, (void *)buf, count, datatype, &f->split_status));   \
    }
#define BEGIN(name, fn, wr, cbuf)                                                                  \
    int PMPI_File_##name(MPI_File fh, cbuf void *buf, int count, MPI_Datatype datatype)            \
    {                                                                                              \
        IBEX_ENTER_FILE(File_##name, fh, f);                                                       \
        IBEX_ARGS(File_##name, fh, count);                                                         \
        IBEX_CHECK(busy(f, call));                                                                 \
        return begin(f, fn(f, call, wr, (void *)buf, count, datatype, &f->split_status));          \
    }
#define END(name, cbuf)                                                                            \
    int PMPI_File_##name(MPI_File fh, cbuf void *buf, MPI_Status *status)                          \
    {                                                                                              \
        IBEX_ENTER_FILE(File_##name, fh, f);                                                       \
        (void)buf;                                                                                 \
        return end(f, call, status);                                                               \
    }

AT_BEGIN(read_at_all_begin, false, )
AT_BEGIN(write_at_all_begin, true, const)
BEGIN(read_all_begin, ibex_io_indiv, false, )
BEGIN(write_all_begin, ibex_io_indiv, true, const)
BEGIN(read_ordered_begin, ibex_io_ordered, false, )
BEGIN(write_ordered_begin, ibex_io_ordered, true, const)
END(read_at_all_end, )
END(write_at_all_end, const)
END(read_all_end, )
END(write_all_end, const)
END(read_ordered_end, )
END(write_ordered_end, const)

IBEX_MPI_ALIASES(file_split)
