/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reads and writes at explicit offsets and through the individual file pointer (MPI 4.1,
 * 14.4.2-14.4.3). An access of count elements of a datatype is its packed stream (the
 * program's buffer itself when the datatype is contiguous, else a packed copy) laid along the
 * view from a position: the view is walked block by block, adjacent blocks merged, and each
 * run of file bytes is one pread / pwrite. A read stops at the end of the file; the status
 * counts the bytes moved (MPI_Get_count / Get_elements read it with any datatype). In atomic
 * mode the byte range of the access is locked (fcntl) for its duration.
 *
 * Collective forms (_all) are the independent access: the standard asks no synchronisation of
 * them, and Ibex does no two-phase aggregation. Non-blocking forms (i*) do the access at the
 * call and return a request that is already complete (MPI_Wait / Test return its status).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibex_io.h"
#include "ibex_request.h"

typedef struct run {
    ibex_file_t *f;
    bool write;
    char *data;        /* the packed stream */
    MPI_Offset done;   /* stream bytes moved */
    MPI_Offset off, n; /* the pending run of file bytes */
    bool eof;          /* a read met the end of the file */
    int err;           /* errno of a failed call */
} run_t;

static void flush(run_t *r)
{
    while (r->n > 0 && !r->eof && !r->err) {
        char *p = r->data + r->done;
        ssize_t k = r->write ? pwrite(r->f->fd, p, (size_t)r->n, r->off)
                             : pread(r->f->fd, p, (size_t)r->n, r->off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            r->err = errno;
        else if (k == 0)
            r->eof = true;
        else {
            r->done += k;
            r->off += k;
            r->n -= k;
        }
    }
    r->n = 0;
}

static void piece(run_t *r, MPI_Offset off, MPI_Offset n)
{
    if (n == 0)
        return;
    if (r->n > 0 && r->off + r->n == off) {
        r->n += n;
        return;
    }
    flush(r);
    r->off = off;
    r->n = n;
}

/* Lays len bytes of the stream along the view from view byte vpos. */
static void walk(run_t *r, MPI_Offset vpos, MPI_Offset len)
{
    ibex_file_t *f = r->f;
    const ibex_dt_t *ft = ibex_io_ftype(f);
    if (ft->contiguous) {
        piece(r, ibex_io_file_byte(f, vpos), len);
        flush(r);
        return;
    }
    MPI_Offset size = (MPI_Offset)ft->size, k = vpos / size, o = vpos % size;
    MPI_Offset base = f->disp + k * ft->extent;
    int j = 0;
    while (o >= (MPI_Offset)ft->blocks[j].len) /* the block of vpos, and the offset in it */
        o -= (MPI_Offset)ft->blocks[j++].len;
    while (len > 0 && !r->eof && !r->err) {
        MPI_Offset n = (MPI_Offset)ft->blocks[j].len - o;
        n = n < len ? n : len;
        piece(r, base + ft->blocks[j].disp + o, n);
        len -= n;
        o = 0;
        if (++j == ft->nblocks) {
            j = 0;
            base += ft->extent;
        }
    }
    flush(r);
}

/* The fcntl lock of an atomic-mode access over [start, end). */
static int range_lock(ibex_file_t *f, bool write, MPI_Offset start, MPI_Offset end, bool on)
{
    struct flock fl = {.l_type = on ? (write ? F_WRLCK : F_RDLCK) : F_UNLCK,
                       .l_whence = SEEK_SET,
                       .l_start = start,
                       .l_len = end - start};
    while (fcntl(f->fd, F_SETLKW, &fl) != 0) {
        if (errno != EINTR)
            return errno;
    }
    return 0;
}

static int check_access(ibex_file_t *f, const char *call, bool write, bool shared)
{
    if (write && (f->amode & MPI_MODE_RDONLY))
        return IBEX_FILE_ERROR(f, MPI_ERR_READ_ONLY, "write to a file opened MPI_MODE_RDONLY");
    if (!write && (f->amode & MPI_MODE_WRONLY))
        return IBEX_FILE_ERROR(f, MPI_ERR_ACCESS, "read from a file opened MPI_MODE_WRONLY");
    if (!shared && (f->amode & MPI_MODE_SEQUENTIAL))
        return IBEX_FILE_ERROR(f, MPI_ERR_UNSUPPORTED_OPERATION,
                               "the file was opened with MPI_MODE_SEQUENTIAL: only the shared "
                               "file pointer may be used");
    return MPI_SUCCESS;
}

static int check_type(ibex_file_t *f, const char *call, MPI_Datatype datatype, ibex_dt_t **dt_p)
{
    ibex_dt_t *dt = ibex_dt_get(datatype);
    if (!dt)
        return IBEX_FILE_ERROR(f, MPI_ERR_TYPE, "invalid datatype 0x%x", (unsigned)datatype);
    if (!dt->committed)
        return IBEX_FILE_ERROR(f, MPI_ERR_TYPE, "the datatype is not committed");
    if (dt->size % ibex_io_etype(f)->size != 0)
        return IBEX_FILE_ERROR(f, MPI_ERR_TYPE,
                               "the datatype's size %zu is not a multiple of the etype's %zu",
                               dt->size, ibex_io_etype(f)->size);
    *dt_p = dt;
    return MPI_SUCCESS;
}

/* The moving part of an access, once checked: bytes of the stream data (len) at view byte
 * vpos; returns the bytes moved or -1 (errno in *err). */
static MPI_Offset move(ibex_file_t *f, bool write, char *data, MPI_Offset vpos, MPI_Offset len,
                       int *err)
{
    run_t r = {.f = f, .write = write, .data = data};
    MPI_Offset start = 0, end = 0;
    if (f->atomic && len > 0) {
        start = ibex_io_file_byte(f, vpos);
        end = ibex_io_file_byte(f, vpos + len - 1) + 1;
        if ((*err = range_lock(f, write, start, end, true)) != 0)
            return -1;
    }
    walk(&r, vpos, len);
    if (f->atomic && len > 0)
        range_lock(f, write, start, end, false);
    *err = r.err;
    return r.err ? -1 : r.done;
}

/* The stream of an access in the file's representation (native: packed; external32: big-endian
 * at the same places) and back; a read cut short gives back its whole elements (external32). */
static void to_stream(ibex_file_t *f, const void *buf, int count, MPI_Datatype datatype,
                      const ibex_dt_t *dt, char *data, MPI_Offset len)
{
    MPI_Aint at = 0;
    if (f->external32)
        PMPI_Pack_external("external32", buf, count, datatype, data, (MPI_Aint)len, &at);
    else
        ibex_dt_pack(buf, count, dt, 0, data, (size_t)len);
}

static void from_stream(ibex_file_t *f, void *buf, int count, MPI_Datatype datatype,
                        const ibex_dt_t *dt, const char *data, MPI_Offset got)
{
    MPI_Aint at = 0;
    int whole = dt->size ? (int)(got / (MPI_Offset)dt->size) : 0;
    if (f->external32)
        PMPI_Unpack_external("external32", data, (MPI_Aint)got, &at, buf,
                             whole < count ? whole : count, datatype);
    else
        ibex_dt_unpack(buf, count, dt, 0, data, (size_t)got);
}

int ibex_io_access(ibex_file_t *f, const char *call, bool write, bool shared, MPI_Offset pos,
                   void *buf, int count, MPI_Datatype datatype, MPI_Status *st,
                   MPI_Offset *etypes_done)
{
    ibex_dt_t *dt = NULL;
    *etypes_done = 0;
    IBEX_CHECK(check_access(f, call, write, shared));
    IBEX_CHECK(check_type(f, call, datatype, &dt));
    if (pos < 0)
        return IBEX_FILE_ERROR(f, MPI_ERR_ARG, "negative offset %lld", (long long)pos);
    if (f->external32)
        IBEX_CHECK(ibex_io_x32_check(f, call, datatype, count));
    MPI_Offset es = (MPI_Offset)ibex_io_etype(f)->size, len = (MPI_Offset)dt->size * count;
    bool contig = ibex_dt_is_contig(dt, count) && !f->external32;
    char *data = contig ? (char *)buf + dt->true_lb : malloc(len > 0 ? (size_t)len : 1);
    if (!data)
        return IBEX_FILE_ERROR(f, MPI_ERR_NO_MEM, "cannot allocate %lld bytes: out of memory",
                               (long long)len);
    if (write && !contig)
        to_stream(f, buf, count, datatype, dt, data, len);
    int err = 0;
    MPI_Offset got = move(f, write, data, pos * es, len, &err);
    if (!write && !contig && got > 0)
        from_stream(f, buf, count, datatype, dt, data, got);
    if (!contig)
        free(data);
    if (got < 0)
        return IBEX_FILE_ERROR(f, ibex_io_errno_class(err), "%s failed: %s",
                               write ? "pwrite" : "pread", strerror(err));
    if (st != MPI_STATUS_IGNORE) {
        ibex_status_empty(st);
        st->ibex_count = got;
    }
    *etypes_done = got / es;
    return MPI_SUCCESS;
}

int ibex_io_at(ibex_file_t *f, const char *call, bool write, MPI_Offset offset, void *buf,
               int count, MPI_Datatype datatype, MPI_Status *st)
{
    MPI_Offset done;
    return ibex_io_access(f, call, write, false, offset, buf, count, datatype, st, &done);
}

int ibex_io_indiv(ibex_file_t *f, const char *call, bool write, void *buf, int count,
                  MPI_Datatype datatype, MPI_Status *st)
{
    MPI_Offset done;
    int rc = ibex_io_access(f, call, write, false, f->fp, buf, count, datatype, st, &done);
    f->fp += done;
    return rc;
}

static int req_query(void *extra, MPI_Status *st)
{
    *st = *(MPI_Status *)extra;
    return MPI_SUCCESS;
}

static int req_free(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

static int req_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS; /* complete at the call: nothing to cancel */
}

int ibex_io_request(ibex_file_t *f, const char *call, int rc, const MPI_Status *st,
                    MPI_Request *request)
{
    *request = MPI_REQUEST_NULL;
    if (rc != MPI_SUCCESS)
        return rc; /* raised by the access */
    MPI_Status *keep = malloc(sizeof(*keep));
    if (!keep)
        return IBEX_FILE_ERROR(f, MPI_ERR_NO_MEM, "out of memory for a request");
    *keep = *st;
    rc = PMPI_Grequest_start(req_query, req_free, req_cancel, keep, request);
    if (rc != MPI_SUCCESS) {
        free(keep);
        return IBEX_FILE_ERROR(f, rc, "cannot start a request");
    }
    return PMPI_Grequest_complete(*request);
}

/* The bindings: explicit offsets, individual pointer, each blocking, collective, non-blocking. */
#define AT(name, wr, cbuf)                                                                         \
    int PMPI_File_##name(MPI_File fh, MPI_Offset offset, cbuf void *buf, int count,                \
                         MPI_Datatype datatype, MPI_Status *status)                                \
    {                                                                                              \
        IBEX_ENTER_FILE(File_##name, fh, f);                                                       \
        IBEX_ARGS(File_##name, fh, count);                                                         \
        return ibex_io_at(f, call, wr, offset, (void *)buf, count, datatype, status);              \
    }
#define IAT(name, wr, cbuf)                                                                        \
    int PMPI_File_##name(MPI_File fh, MPI_Offset offset, cbuf void *buf, int count,                \
                         MPI_Datatype datatype, MPI_Request *request)                              \
    {                                                                                              \
        IBEX_ENTER_FILE(File_##name, fh, f);                                                       \
        IBEX_ARGS(File_##name, fh, count, request);                                                \
        MPI_Status st;                                                                             \
        int rc = ibex_io_at(f, call, wr, offset, (void *)buf, count, datatype, &st);               \
        return ibex_io_request(f, call, rc, &st, request);                                         \
    }

AT(read_at, false, )
AT(read_at_all, false, )
AT(write_at, true, const)
AT(write_at_all, true, const)
IAT(iread_at, false, )
IAT(iread_at_all, false, )
IAT(iwrite_at, true, const)
IAT(iwrite_at_all, true, const)
IBEX_IO_BLOCKING(read, ibex_io_indiv, false, )
IBEX_IO_BLOCKING(read_all, ibex_io_indiv, false, )
IBEX_IO_BLOCKING(write, ibex_io_indiv, true, const)
IBEX_IO_BLOCKING(write_all, ibex_io_indiv, true, const)
IBEX_IO_NONBLOCKING(iread, ibex_io_indiv, false, )
IBEX_IO_NONBLOCKING(iread_all, ibex_io_indiv, false, )
IBEX_IO_NONBLOCKING(iwrite, ibex_io_indiv, true, const)
IBEX_IO_NONBLOCKING(iwrite_all, ibex_io_indiv, true, const)

IBEX_MPI_ALIASES(file_rw)
