/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * File views (MPI 4.1, 14.3): a displacement in bytes, an etype and a filetype that tiles the
 * file from the displacement on, every extent bytes. The filetype is the engine's flattened
 * datatype: a list of (displacement, length) blocks of one copy, in type-map order (which the
 * standard requires to be monotonically non-decreasing for a filetype). A view position is
 * counted in etypes of the view's data; its file byte is found by the copy it falls in and
 * the block inside the copy. Data representations: "native", "internal" (the same here) and
 * "external32" for the types whose external32 size is their native size (every one but long,
 * unsigned long, wchar and the long double family on LP64): the file then holds big-endian
 * data at the same places, converted by MPI_Pack_external / Unpack_external on each access.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ibex_io.h"

ibex_dt_t *ibex_io_etype(const ibex_file_t *f)
{
    return ibex_dt_get(f->etype);
}

ibex_dt_t *ibex_io_ftype(const ibex_file_t *f)
{
    return ibex_dt_get(f->filetype);
}

MPI_Offset ibex_io_file_byte(const ibex_file_t *f, MPI_Offset vpos)
{
    const ibex_dt_t *ft = ibex_io_ftype(f);
    if (ft->contiguous)
        return f->disp + ft->true_lb + vpos;
    MPI_Offset k = vpos / (MPI_Offset)ft->size, r = vpos % (MPI_Offset)ft->size;
    MPI_Offset base = f->disp + k * ft->extent;
    for (int j = 0; j < ft->nblocks; j++) {
        MPI_Offset len = (MPI_Offset)ft->blocks[j].len;
        if (r < len)
            return base + ft->blocks[j].disp + r;
        r -= len;
    }
    return base + ft->extent; /* not reached: r < size */
}

MPI_Offset ibex_io_view_bytes_before(const ibex_file_t *f, MPI_Offset fbyte)
{
    const ibex_dt_t *ft = ibex_io_ftype(f);
    if (ft->contiguous) {
        MPI_Offset d = fbyte - f->disp - ft->true_lb;
        return d > 0 ? d : 0;
    }
    MPI_Offset d = fbyte - f->disp;
    if (d <= 0 || ft->extent <= 0)
        return 0;
    MPI_Offset k = d / ft->extent, r = d % ft->extent, n = k * (MPI_Offset)ft->size;
    for (int j = 0; j < ft->nblocks; j++) {
        MPI_Offset in = r - ft->blocks[j].disp, len = (MPI_Offset)ft->blocks[j].len;
        n += in <= 0 ? 0 : in < len ? in : len;
    }
    return n;
}

int ibex_io_eof_etypes(ibex_file_t *f, const char *call, MPI_Offset *out)
{
    struct stat sb;
    if (fstat(f->fd, &sb) != 0)
        return IBEX_FILE_ERROR(f, ibex_io_errno_class(errno), "fstat failed: %s", strerror(errno));
    *out = ibex_io_view_bytes_before(f, sb.st_size) / (MPI_Offset)ibex_io_etype(f)->size;
    return MPI_SUCCESS;
}

void ibex_io_view_free(ibex_file_t *f)
{
    ibex_dt_t *e = ibex_io_etype(f), *t = ibex_io_ftype(f);
    if (e && !e->predefined)
        PMPI_Type_free(&f->etype);
    if (t && !t->predefined)
        PMPI_Type_free(&f->filetype);
}

void ibex_io_view_default(ibex_file_t *f)
{
    f->disp = 0;
    f->etype = f->filetype = MPI_BYTE;
    strcpy(f->datarep, "native");
    f->external32 = false;
    f->fp = 0;
}

/* A predefined type as itself, a derived one as a duplicate (the file's, or the caller's). */
static MPI_Datatype keep(MPI_Datatype t)
{
    ibex_dt_t *dt = ibex_dt_get(t);
    MPI_Datatype out = t;
    if (!dt->predefined)
        PMPI_Type_dup(t, &out);
    return out;
}

/* MPI 4.1, 14.3: the displacements of an etype and a filetype are non-negative and
 * monotonically non-decreasing, and those of a file that can be written do not overlap. The
 * class is MPI_ERR_IO, as ROMIO's. */
static int check_layout(ibex_file_t *f, const char *call, const ibex_dt_t *t, const char *what)
{
    if (t->true_lb < 0)
        return IBEX_FILE_ERROR(f, MPI_ERR_IO, "the %s has a negative displacement", what);
    ptrdiff_t prev = 0, end = 0;
    for (int j = 0; !t->contiguous && j < t->nblocks; j++) {
        const ibex_dt_block_t *b = &t->blocks[j];
        if (b->len == 0)
            continue;
        if (b->disp < prev)
            return IBEX_FILE_ERROR(f, MPI_ERR_IO, "the %s's displacements decrease (%td after %td)",
                                   what, b->disp, prev);
        if (b->disp < end && !(f->amode & MPI_MODE_RDONLY))
            return IBEX_FILE_ERROR(
                f, MPI_ERR_IO, "the %s's blocks overlap (at %td), in a file that can be written",
                what, b->disp);
        prev = b->disp;
        end = b->disp + (ptrdiff_t)b->len > end ? b->disp + (ptrdiff_t)b->len : end;
    }
    return MPI_SUCCESS;
}

static int check_types(ibex_file_t *f, const char *call, MPI_Datatype etype, MPI_Datatype filetype)
{
    ibex_dt_t *e = ibex_dt_get(etype), *t = ibex_dt_get(filetype);
    if (!e || !t)
        return IBEX_FILE_ERROR(f, MPI_ERR_TYPE, "invalid %s 0x%x", e ? "filetype" : "etype",
                               (unsigned)(e ? filetype : etype));
    if (!e->committed || !t->committed)
        return IBEX_FILE_ERROR(f, MPI_ERR_TYPE, "the %s is not committed",
                               e->committed ? "filetype" : "etype");
    if (e->size == 0 || t->size == 0 || t->size % e->size != 0)
        return IBEX_FILE_ERROR(f, MPI_ERR_ARG,
                               "the filetype's size %zu is not a positive multiple of the "
                               "etype's size %zu",
                               t->size, e->size);
    IBEX_CHECK(check_layout(f, call, e, "etype"));
    return check_layout(f, call, t, "filetype");
}

int ibex_io_x32_check(ibex_file_t *f, const char *call, MPI_Datatype t, MPI_Count count)
{
    MPI_Aint x = -1;
    ibex_dt_t *dt = ibex_dt_get(t);
    if (dt && PMPI_Pack_external_size("external32", (int)count, t, &x) == MPI_SUCCESS &&
        x == (MPI_Aint)dt->size * count)
        return MPI_SUCCESS;
    return IBEX_FILE_ERROR(f, MPI_ERR_UNSUPPORTED_DATAREP,
                           "\"external32\" is supported for types whose external32 size is "
                           "their native size; this one's is %lld, native %lld",
                           (long long)x, dt ? (long long)dt->size * count : -1LL);
}

static int check_datarep(ibex_file_t *f, const char *call, const char *datarep, MPI_Datatype etype,
                         MPI_Datatype filetype)
{
    if (!strcmp(datarep, "native") || !strcmp(datarep, "internal"))
        return MPI_SUCCESS;
    if (!strcmp(datarep, "external32")) {
        IBEX_CHECK(ibex_io_x32_check(f, call, etype, 1));
        return ibex_io_x32_check(f, call, filetype, 1);
    }
    return IBEX_FILE_ERROR(f, MPI_ERR_UNSUPPORTED_DATAREP,
                           "data representation '%s' is not supported (\"native\", \"internal\" "
                           "and \"external32\" are)",
                           datarep);
}

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    IBEX_ENTER_FILE(File_set_view, fh, f);
    IBEX_ARGS(File_set_view, fh, datarep);
    IBEX_CHECK(check_types(f, call, etype, filetype));
    IBEX_CHECK(check_datarep(f, call, datarep, etype, filetype));
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        if (!(f->amode & MPI_MODE_SEQUENTIAL))
            return IBEX_FILE_ERROR(f, MPI_ERR_ARG,
                                   "MPI_DISPLACEMENT_CURRENT needs a file "
                                   "opened with MPI_MODE_SEQUENTIAL");
        MPI_Offset sp;
        IBEX_CHECK(ibex_io_shared_add(f, 0, &sp));
        disp = ibex_io_file_byte(f, sp * (MPI_Offset)ibex_io_etype(f)->size);
    } else if (disp < 0) {
        return IBEX_FILE_ERROR(f, MPI_ERR_ARG, "negative displacement %lld", (long long)disp);
    }
    (void)info;            /* no hint changes what Ibex does */
    PMPI_Barrier(f->comm); /* every rank is done with the old view's shared pointer */
    ibex_io_view_free(f);
    ibex_io_view_default(f);
    f->disp = disp;
    f->etype = keep(etype);
    f->filetype = keep(filetype);
    snprintf(f->datarep, sizeof(f->datarep), "%s", datarep);
    f->external32 = !strcmp(datarep, "external32");
    if (f->rank == 0)
        IBEX_CHECK(ibex_io_shared_set(f, 0));
    PMPI_Barrier(f->comm);
    return MPI_SUCCESS;
}

int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                       char *datarep)
{
    IBEX_ENTER_FILE(File_get_view, fh, f);
    IBEX_ARGS(File_get_view, fh, disp, etype, filetype, datarep);
    *disp = f->disp;
    *etype = keep(f->etype);
    *filetype = keep(f->filetype);
    strcpy(datarep, f->datarep);
    return MPI_SUCCESS;
}

static int type_extent(ibex_file_t *f, const char *call, MPI_Datatype datatype, MPI_Count *out)
{
    ibex_dt_t *dt = ibex_dt_get(datatype);
    if (!dt)
        return IBEX_FILE_ERROR(f, MPI_ERR_TYPE, "invalid datatype 0x%x", (unsigned)datatype);
    *out = dt->extent; /* "native": the extent in memory */
    return MPI_SUCCESS;
}

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    IBEX_ENTER_FILE(File_get_type_extent, fh, f);
    IBEX_ARGS(File_get_type_extent, fh, extent);
    MPI_Count x = 0;
    IBEX_CHECK(type_extent(f, call, datatype, &x));
    *extent = (MPI_Aint)x;
    return MPI_SUCCESS;
}

int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    IBEX_ENTER_FILE(File_get_type_extent_c, fh, f);
    IBEX_ARGS(File_get_type_extent_c, fh, extent);
    return type_extent(f, call, datatype, extent);
}

static int no_individual(ibex_file_t *f, const char *call)
{
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return IBEX_FILE_ERROR(f, MPI_ERR_UNSUPPORTED_OPERATION,
                               "the file was opened with MPI_MODE_SEQUENTIAL: only the shared "
                               "file pointer may be used");
    return MPI_SUCCESS;
}

/* The new position of a seek from cur (in etypes), shared with File_seek_shared. */
int ibex_io_seek_target(ibex_file_t *f, const char *call, MPI_Offset cur, MPI_Offset offset,
                        int whence, MPI_Offset *out)
{
    MPI_Offset base;
    if (whence == MPI_SEEK_SET)
        base = 0;
    else if (whence == MPI_SEEK_CUR)
        base = cur;
    else if (whence == MPI_SEEK_END)
        IBEX_CHECK(ibex_io_eof_etypes(f, call, &base));
    else
        return IBEX_FILE_ERROR(f, MPI_ERR_ARG, "invalid whence %d", whence);
    if (base + offset < 0)
        return IBEX_FILE_ERROR(f, MPI_ERR_ARG, "seek to a negative position (%lld)",
                               (long long)(base + offset));
    *out = base + offset;
    return MPI_SUCCESS;
}

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    IBEX_ENTER_FILE(File_seek, fh, f);
    IBEX_CHECK(no_individual(f, call));
    return ibex_io_seek_target(f, call, f->fp, offset, whence, &f->fp);
}

int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    IBEX_ENTER_FILE(File_get_position, fh, f);
    IBEX_ARGS(File_get_position, fh, offset);
    IBEX_CHECK(no_individual(f, call));
    *offset = f->fp;
    return MPI_SUCCESS;
}

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    IBEX_ENTER_FILE(File_get_byte_offset, fh, f);
    IBEX_ARGS(File_get_byte_offset, fh, disp);
    if (offset < 0)
        return IBEX_FILE_ERROR(f, MPI_ERR_ARG, "negative offset %lld", (long long)offset);
    *disp = ibex_io_file_byte(f, offset * (MPI_Offset)ibex_io_etype(f)->size);
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(file_view)
