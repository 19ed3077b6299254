/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI-IO over POSIX files (runtime/io, README.md there): the open file, its handle table, its
 * errors, its view and the I/O that walks the view. The entry points are in file_*.c.
 */
#ifndef IBEX_IO_H
#define IBEX_IO_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "ibex_datatype.h"
#include "ibex_entry.h"

typedef struct ibex_file {
    MPI_File handle;
    MPI_Comm comm; /* a duplicate of the communicator of MPI_File_open */
    int rank, size;
    int fd;
    int amode;
    char *name;
    MPI_Errhandler errhandler; /* MPI_FILE_NULL's at open */
    MPI_Info info;             /* the hints given (a copy) */
    bool atomic;
    /* the view: displacement (bytes), etype and filetype (a predefined handle or a duplicate) */
    MPI_Offset disp;
    MPI_Datatype etype, filetype;
    char datarep[MPI_MAX_DATAREP_STRING];
    bool external32; /* the file holds "external32" data (sizes as native: see file_view.c) */
    MPI_Offset fp;   /* the individual file pointer, in etypes of the view */
    MPI_Win shared;  /* the shared file pointer: one MPI_Offset (etypes) at rank 0 */
    bool split;      /* a split collective is in progress: its result */
    MPI_Status split_status;
    int split_rc;
} ibex_file_t;

/* The file of a handle; on a bad one raises MPI_ERR_FILE on MPI_FILE_NULL's handler, NULL. */
ibex_file_t *ibex_file_lookup(MPI_File handle, const char *call);
/* Raises errclass on f's handler ("the file NAME" in the message) and returns the class. */
int ibex_file_error(ibex_file_t *f, int errclass, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The class of an errno of a POSIX call (ENOENT: MPI_ERR_NO_SUCH_FILE ...). */
int ibex_io_errno_class(int err);
/* New / free file objects (file_open.c). */
ibex_file_t *ibex_file_new(void);
void ibex_file_free(ibex_file_t *f);

#define IBEX_ENTER_FILE(name, handle, f)                                                           \
    IBEX_ENTER(name);                                                                              \
    ibex_file_t *f = ibex_file_lookup((handle), call);                                             \
    if (!f)                                                                                        \
    return MPI_ERR_FILE

#define IBEX_FILE_ERROR(f, errclass, ...) ibex_file_error((f), (errclass), call, __VA_ARGS__)

/* The view (file_view.c). */
ibex_dt_t *ibex_io_etype(const ibex_file_t *f);
ibex_dt_t *ibex_io_ftype(const ibex_file_t *f);
/* The file byte of view data byte vpos (bytes of the view's data from its start). */
MPI_Offset ibex_io_file_byte(const ibex_file_t *f, MPI_Offset vpos);
/* The view data bytes that lie before file byte fbyte. */
MPI_Offset ibex_io_view_bytes_before(const ibex_file_t *f, MPI_Offset fbyte);
/* The end of the file as a view position in etypes (for MPI_SEEK_END, MPI_MODE_APPEND). */
int ibex_io_eof_etypes(ibex_file_t *f, const char *call, MPI_Offset *out);
/* The position of a seek from cur (etypes) by offset and whence; MPI_ERR_ARG if negative. */
int ibex_io_seek_target(ibex_file_t *f, const char *call, MPI_Offset cur, MPI_Offset offset,
                        int whence, MPI_Offset *out);
/* For an "external32" view: the datatype's external32 size is its native one (else the
 * representation is not supported for it: MPI_ERR_UNSUPPORTED_DATAREP, raised). */
int ibex_io_x32_check(ibex_file_t *f, const char *call, MPI_Datatype t, MPI_Count count);
/* Resets the view to the default (displacement 0, MPI_BYTE, "native"). */
void ibex_io_view_default(ibex_file_t *f);
void ibex_io_view_free(ibex_file_t *f);

/* I/O (file_rw.c): count elements of datatype at buf, from view position `pos` (etypes), into
 * / out of the file; fills st (may be MPI_STATUS_IGNORE) and *etypes_done (the etypes moved).
 * Checks the access mode, the datatype and MPI_MODE_SEQUENTIAL (`shared`: through the shared
 * pointer, which that mode allows). Errors are raised on f. */
int ibex_io_access(ibex_file_t *f, const char *call, bool write, bool shared, MPI_Offset pos,
                   void *buf, int count, MPI_Datatype datatype, MPI_Status *st,
                   MPI_Offset *etypes_done);
/* Explicit offset / individual file pointer accesses (file_rw.c; the pointer moves). */
int ibex_io_at(ibex_file_t *f, const char *call, bool write, MPI_Offset offset, void *buf,
               int count, MPI_Datatype datatype, MPI_Status *st);
int ibex_io_indiv(ibex_file_t *f, const char *call, bool write, void *buf, int count,
                  MPI_Datatype datatype, MPI_Status *st);
/* Collective access through the shared pointer in rank order (file_shared.c). */
int ibex_io_ordered(ibex_file_t *f, const char *call, bool write, void *buf, int count,
                    MPI_Datatype datatype, MPI_Status *st);
/* A request that is already complete with status st (MPI_Wait / Test return it). */
int ibex_io_request(ibex_file_t *f, const char *call, int rc, const MPI_Status *st,
                    MPI_Request *request);

/* The bindings of the calls without an offset (individual and shared pointer, ordered): one
 * access function fn(f, call, write, buf, count, datatype, status), blocking or as a request
 * complete at the call. cbuf is const for the writes. */
#define IBEX_IO_BLOCKING(name, fn, wr, cbuf)                                                       \
    int PMPI_File_##name(MPI_File fh, cbuf void *buf, int count, MPI_Datatype datatype,            \
                         MPI_Status *status)                                                       \
    {                                                                                              \
        IBEX_ENTER_FILE(File_##name, fh, f);                                                       \
        IBEX_ARGS(File_##name, fh, count);                                                         \
        return fn(f, call, wr, (void *)buf, count, datatype, status);                              \
    }
#define IBEX_IO_NONBLOCKING(name, fn, wr, cbuf)                                                    \
    int PMPI_File_##name(MPI_File fh, cbuf void *buf, int count, MPI_Datatype datatype,            \
                         MPI_Request *request)                                                     \
    {                                                                                              \
        IBEX_ENTER_FILE(File_##name, fh, f);                                                       \
        IBEX_ARGS(File_##name, fh, count, request);                                                \
        MPI_Status st;                                                                             \
        int rc = fn(f, call, wr, (void *)buf, count, datatype, &st);                               \
        return ibex_io_request(f, call, rc, &st, request);                                         \
    }

/* The shared file pointer (file_shared.c): created at open, freed at close; fetch-and-add of
 * n etypes (n = 0 reads it); set (rank 0 only, followed by a barrier by the caller). */
int ibex_io_shared_init(ibex_file_t *f, const char *call);
void ibex_io_shared_free(ibex_file_t *f);
int ibex_io_shared_add(ibex_file_t *f, MPI_Offset n, MPI_Offset *old);
int ibex_io_shared_set(ibex_file_t *f, MPI_Offset v);

#endif
