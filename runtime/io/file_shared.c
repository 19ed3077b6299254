/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared file pointer (MPI 4.1, 14.4.4): one MPI_Offset (in etypes of the view) in a
 * hidden window of the file's communicator, at rank 0, moved by MPI_Fetch_and_op under an
 * exclusive lock, so that a rank's read_shared / write_shared takes its place in the file
 * without any other rank's help. The ordered forms are collective: an exclusive scan of the
 * ranks' sizes places each rank after the lower ranks, rank 0 moves the pointer once by the
 * total and broadcasts where it was. Non-blocking forms complete at the call.
 */
#include "ibex_io.h"

int ibex_io_shared_init(ibex_file_t *f, const char *call)
{
    MPI_Offset *base = NULL;
    MPI_Aint size = f->rank == 0 ? (MPI_Aint)sizeof(MPI_Offset) : 0;
    int rc = PMPI_Win_allocate(size, sizeof(MPI_Offset), MPI_INFO_NULL, f->comm, &base, &f->shared);
    if (rc != MPI_SUCCESS)
        return IBEX_FILE_ERROR(f, rc, "cannot create the shared file pointer's window");
    PMPI_Win_set_errhandler(f->shared, MPI_ERRORS_RETURN);
    if (f->rank == 0)
        *base = 0;
    PMPI_Barrier(f->comm);
    return MPI_SUCCESS;
}

void ibex_io_shared_free(ibex_file_t *f)
{
    if (f->shared != MPI_WIN_NULL)
        PMPI_Win_free(&f->shared);
}

static int shared_op(ibex_file_t *f, MPI_Offset n, MPI_Offset *old, MPI_Op op)
{
    long long in = n, out = 0;
    int rc = PMPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, f->shared);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Fetch_and_op(&in, &out, MPI_LONG_LONG, 0, 0, op, f->shared);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Win_unlock(0, f->shared);
    *old = out;
    return rc;
}

int ibex_io_shared_add(ibex_file_t *f, MPI_Offset n, MPI_Offset *old)
{
    return shared_op(f, n, old, n ? MPI_SUM : MPI_NO_OP);
}

int ibex_io_shared_set(ibex_file_t *f, MPI_Offset v)
{
    MPI_Offset old;
    return shared_op(f, v, &old, MPI_REPLACE);
}

/* The etypes count elements of datatype make (0 for a bad type: the access reports it). */
static MPI_Offset etypes_of(ibex_file_t *f, int count, MPI_Datatype datatype)
{
    ibex_dt_t *dt = ibex_dt_get(datatype);
    return dt ? (MPI_Offset)dt->size * count / (MPI_Offset)ibex_io_etype(f)->size : 0;
}

static int shared_access(ibex_file_t *f, const char *call, bool write, void *buf, int count,
                         MPI_Datatype datatype, MPI_Status *st)
{
    MPI_Offset pos, done;
    int rc = ibex_io_shared_add(f, etypes_of(f, count, datatype), &pos);
    if (rc != MPI_SUCCESS)
        return IBEX_FILE_ERROR(f, rc, "cannot move the shared file pointer");
    return ibex_io_access(f, call, write, true, pos, buf, count, datatype, st, &done);
}

int ibex_io_ordered(ibex_file_t *f, const char *call, bool write, void *buf, int count,
                    MPI_Datatype datatype, MPI_Status *st)
{
    long long n = etypes_of(f, count, datatype), before = 0, total = 0, base = 0;
    PMPI_Exscan(&n, &before, 1, MPI_LONG_LONG, MPI_SUM, f->comm);
    PMPI_Allreduce(&n, &total, 1, MPI_LONG_LONG, MPI_SUM, f->comm);
    if (f->rank == 0) {
        MPI_Offset old = 0;
        before = 0; /* Exscan leaves rank 0's undefined */
        if (ibex_io_shared_add(f, total, &old) != MPI_SUCCESS)
            old = -1;
        base = old;
    }
    PMPI_Bcast(&base, 1, MPI_LONG_LONG, 0, f->comm);
    if (base < 0)
        return IBEX_FILE_ERROR(f, MPI_ERR_IO, "cannot move the shared file pointer");
    MPI_Offset done;
    return ibex_io_access(f, call, write, true, base + before, buf, count, datatype, st, &done);
}

/* The bindings: shared pointer (blocking, non-blocking) and ordered. */
IBEX_IO_BLOCKING(read_shared, shared_access, false, )
IBEX_IO_BLOCKING(write_shared, shared_access, true, const)
IBEX_IO_BLOCKING(read_ordered, ibex_io_ordered, false, )
IBEX_IO_BLOCKING(write_ordered, ibex_io_ordered, true, const)
IBEX_IO_NONBLOCKING(iread_shared, shared_access, false, )
IBEX_IO_NONBLOCKING(iwrite_shared, shared_access, true, const)

int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    IBEX_ENTER_FILE(File_seek_shared, fh, f);
    int rc = MPI_SUCCESS;
    PMPI_Barrier(f->comm); /* every rank's earlier shared accesses are done */
    if (f->rank == 0) {
        MPI_Offset cur = 0, to = 0;
        rc = ibex_io_shared_add(f, 0, &cur);
        if (rc == MPI_SUCCESS)
            rc = ibex_io_seek_target(f, call, cur, offset, whence, &to);
        if (rc == MPI_SUCCESS)
            rc = ibex_io_shared_set(f, to);
    }
    PMPI_Bcast(&rc, 1, MPI_INT, 0, f->comm);
    if (rc != MPI_SUCCESS && f->rank != 0)
        return IBEX_FILE_ERROR(f, rc, "the seek failed on rank 0 (offset %lld, whence %d)",
                               (long long)offset, whence);
    return rc;
}

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    IBEX_ENTER_FILE(File_get_position_shared, fh, f);
    IBEX_ARGS(File_get_position_shared, fh, offset);
    int rc = ibex_io_shared_add(f, 0, offset);
    if (rc != MPI_SUCCESS)
        return IBEX_FILE_ERROR(f, rc, "cannot read the shared file pointer");
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(file_shared)
