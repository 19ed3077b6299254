/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Opening, closing and deleting files, and the calls on a whole open file (MPI 4.1, 14.2).
 * MPI_File_open is collective: with MPI_MODE_CREATE rank 0 creates the file first (alone, so
 * MPI_MODE_EXCL means what it says), then every other rank opens it, and the ranks agree on
 * the result: every rank returns the same class (the largest of the classes the ranks met),
 * and on failure no rank keeps the file open. Calls that change the file for every rank
 * (set_size, preallocate, sync, close with MPI_MODE_DELETE_ON_CLOSE) are done once or by each
 * rank and end with a barrier over the file's communicator.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ibex_io.h"

/* The access modes MPI allows together (MPI 4.1, 14.2.1). */
static int check_amode(int amode, char *why, size_t len)
{
    const int all = MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR | MPI_MODE_CREATE |
                    MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN |
                    MPI_MODE_SEQUENTIAL | MPI_MODE_APPEND;
    int rw = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) + !!(amode & MPI_MODE_RDWR);
    if (amode & ~all)
        snprintf(why, len, "amode 0x%x has unknown bits 0x%x", (unsigned)amode,
                 (unsigned)(amode & ~all));
    else if (rw != 1)
        snprintf(why, len,
                 "amode 0x%x needs exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY "
                 "and MPI_MODE_RDWR",
                 (unsigned)amode);
    else if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        snprintf(why, len, "MPI_MODE_RDONLY with MPI_MODE_%s",
                 amode & MPI_MODE_CREATE ? "CREATE" : "EXCL");
    else if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
        snprintf(why, len, "MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL");
    else
        return MPI_SUCCESS;
    return MPI_ERR_AMODE;
}

/* A file name without the "ufs:" / "nfs:" style prefix ROMIO accepts (the file system). */
static const char *plain_name(const char *name)
{
    static const char *prefixes[] = {"ufs:", "nfs:", "file:", "posix:"};
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        size_t n = strlen(prefixes[i]);
        if (!strncmp(name, prefixes[i], n))
            return name + n;
    }
    return name;
}

static int posix_flags(int amode, bool create)
{
    int fl = amode & MPI_MODE_RDONLY ? O_RDONLY : amode & MPI_MODE_WRONLY ? O_WRONLY : O_RDWR;
    if (create && (amode & MPI_MODE_CREATE))
        fl |= O_CREAT;
    if (create && (amode & MPI_MODE_EXCL))
        fl |= O_EXCL;
    return fl | O_CLOEXEC;
}

/* Opens on this rank (rank 0 creating first); the local class, the cause in why. */
static int open_local(ibex_file_t *f, const char *path, char *why, size_t len)
{
    int rc = MPI_SUCCESS;
    if (f->rank == 0) {
        f->fd = open(path, posix_flags(f->amode, true), 0666);
        if (f->fd < 0) {
            rc = ibex_io_errno_class(errno);
            snprintf(why, len, "cannot open '%s' on rank 0: %s", path, strerror(errno));
        }
    }
    int rc0 = rc;
    PMPI_Bcast(&rc0, 1, MPI_INT, 0, f->comm); /* the file exists before the others open it */
    if (f->rank != 0 && rc0 == MPI_SUCCESS) {
        f->fd = open(path, posix_flags(f->amode, false));
        if (f->fd < 0) {
            rc = ibex_io_errno_class(errno);
            snprintf(why, len, "cannot open '%s': %s", path, strerror(errno));
        }
    }
    return rc;
}

/* Every rank's class agreed: the largest; a rank that had no error of its own says whose. */
static int agree(MPI_Comm comm, int rc, char *why, size_t len)
{
    int all = rc;
    PMPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, comm);
    if (all != MPI_SUCCESS && rc == MPI_SUCCESS)
        snprintf(why, len, "another rank of the communicator failed to open the file");
    return all;
}

static void close_local(ibex_file_t *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    ibex_io_shared_free(f);
    ibex_io_view_free(f);
    if (f->info != MPI_INFO_NULL)
        PMPI_Info_free(&f->info);
    if (f->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&f->comm);
    ibex_file_free(f);
}

/* File hints (MPI 4.1 section 14.2.8): MPI_File_get_info gives back the hints Ibex keeps, and
 * never one it ignored. Kept: access_style with a valid value (the program's description of
 * its accesses, which Ibex's behaviour satisfies whatever it says). Ignored, so not given
 * back: the collective-buffering, striping, chunking and I/O-node requests (Ibex does none of
 * these), every other key. MPI_File_set_info merges. */
static bool access_style_ok(const char *v)
{
    static const char *const words[] = {"read_once",    "write_once", "read_mostly",
                                        "write_mostly", "sequential", "reverse_sequential",
                                        "random"};
    for (;;) {
        size_t n = strcspn(v, ","), i = 0;
        while (i < sizeof(words) / sizeof(words[0]) &&
               !(strlen(words[i]) == n && strncmp(v, words[i], n) == 0))
            i++;
        if (i == sizeof(words) / sizeof(words[0]))
            return false;
        if (v[n] == '\0')
            return true;
        v += n + 1;
    }
}

/* The kept hints of from merged into *to (created when MPI_INFO_NULL). */
static int file_hints_merge(MPI_Info from, MPI_Info *to)
{
    char value[MPI_MAX_INFO_VAL + 1];
    int len = (int)sizeof(value), flag = 0, n;
    if (from == MPI_INFO_NULL)
        return MPI_SUCCESS;
    int rc = PMPI_Info_get_nkeys(from, &n);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Info_get_string(from, "access_style", &len, value, &flag);
    if (rc != MPI_SUCCESS || !flag || !access_style_ok(value))
        return rc;
    if (*to == MPI_INFO_NULL && (rc = PMPI_Info_create(to)) != MPI_SUCCESS)
        return rc;
    return PMPI_Info_set(*to, "access_style", value);
}

static int open_file(ibex_file_t *f, const char *call, MPI_Comm comm, const char *filename,
                     MPI_Info info)
{
    char why[1200] = "";
    IBEX_CHECK(PMPI_Comm_dup(comm, &f->comm));
    PMPI_Comm_rank(f->comm, &f->rank);
    PMPI_Comm_size(f->comm, &f->size);
    f->name = strdup(filename);
    file_hints_merge(info, &f->info);
    ibex_io_view_default(f);
    int rc = f->name ? open_local(f, plain_name(filename), why, sizeof(why)) : MPI_ERR_NO_MEM;
    rc = agree(f->comm, rc, why, sizeof(why));
    if (rc == MPI_SUCCESS)
        rc = ibex_io_shared_init(f, call);
    if (rc == MPI_SUCCESS && (f->amode & MPI_MODE_APPEND)) {
        rc = ibex_io_eof_etypes(f, call, &f->fp); /* both pointers at the end (14.2.1) */
        if (rc == MPI_SUCCESS && f->rank == 0)
            rc = ibex_io_shared_set(f, f->fp);
        PMPI_Barrier(f->comm);
    }
    if (rc != MPI_SUCCESS && why[0])
        ibex_file_raise(MPI_FILE_NULL, rc, call, "%s", why);
    return rc;
}

int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    IBEX_ENTER(File_open);
    IBEX_ARGS(File_open, filename, fh);
    *fh = MPI_FILE_NULL;
    int isinter = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &isinter) != MPI_SUCCESS || isinter)
        return ibex_file_raise(MPI_FILE_NULL, MPI_ERR_COMM, call, "invalid communicator 0x%x%s",
                               (unsigned)comm, isinter ? " (an intercommunicator)" : "");
    char why[256];
    int rc = check_amode(amode, why, sizeof(why));
    if (rc != MPI_SUCCESS)
        return ibex_file_raise(MPI_FILE_NULL, rc, call, "%s", why);
    ibex_file_t *f = ibex_file_new();
    if (!f)
        return ibex_file_raise(MPI_FILE_NULL, MPI_ERR_NO_MEM, call, "out of memory");
    f->amode = amode;
    rc = open_file(f, call, comm, filename, info);
    if (rc != MPI_SUCCESS) {
        close_local(f);
        return rc;
    }
    *fh = f->handle;
    return MPI_SUCCESS;
}

int PMPI_File_close(MPI_File *fh)
{
    IBEX_ENTER(File_close);
    IBEX_ARGS(File_close, fh);
    ibex_file_t *f = ibex_file_lookup(*fh, call);
    if (!f)
        return MPI_ERR_FILE;
    PMPI_Barrier(f->comm); /* every rank's accesses are done (and the shared pointer's) */
    if ((f->amode & MPI_MODE_DELETE_ON_CLOSE) && f->rank == 0)
        unlink(plain_name(f->name));
    PMPI_Barrier(f->comm);
    close_local(f);
    *fh = MPI_FILE_NULL;
    return MPI_SUCCESS;
}

int PMPI_File_delete(const char *filename, MPI_Info info)
{
    IBEX_ENTER(File_delete);
    IBEX_ARGS(File_delete, filename);
    (void)info;
    if (unlink(plain_name(filename)) != 0)
        return ibex_file_raise(MPI_FILE_NULL, ibex_io_errno_class(errno), call,
                               "cannot delete '%s': %s", filename, strerror(errno));
    return MPI_SUCCESS;
}

static int resize(ibex_file_t *f, const char *call, MPI_Offset size, bool grow_only)
{
    if (size < 0)
        return IBEX_FILE_ERROR(f, MPI_ERR_ARG, "negative size %lld", (long long)size);
    if (f->amode & MPI_MODE_RDONLY)
        return IBEX_FILE_ERROR(f, MPI_ERR_READ_ONLY, "the file was opened MPI_MODE_RDONLY");
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return IBEX_FILE_ERROR(f, MPI_ERR_UNSUPPORTED_OPERATION,
                               "the file was opened MPI_MODE_SEQUENTIAL");
    int rc = 0;
    if (f->rank == 0) {
        struct stat sb;
        if (fstat(f->fd, &sb) != 0)
            rc = errno;
        else if (!grow_only || sb.st_size < size)
            rc = grow_only ? posix_fallocate(f->fd, 0, size) : ftruncate(f->fd, size) ? errno : 0;
    }
    PMPI_Bcast(&rc, 1, MPI_INT, 0, f->comm); /* done before any rank returns; all agree */
    if (rc)
        return IBEX_FILE_ERROR(f, ibex_io_errno_class(rc), "cannot %s the file to %lld bytes: %s",
                               grow_only ? "preallocate" : "resize", (long long)size, strerror(rc));
    return MPI_SUCCESS;
}

int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    IBEX_ENTER_FILE(File_set_size, fh, f);
    return resize(f, call, size, false);
}

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    IBEX_ENTER_FILE(File_preallocate, fh, f);
    return resize(f, call, size, true);
}

int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    IBEX_ENTER_FILE(File_get_size, fh, f);
    IBEX_ARGS(File_get_size, fh, size);
    struct stat sb;
    if (fstat(f->fd, &sb) != 0)
        return IBEX_FILE_ERROR(f, ibex_io_errno_class(errno), "fstat failed: %s", strerror(errno));
    *size = sb.st_size;
    return MPI_SUCCESS;
}

int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    IBEX_ENTER_FILE(File_get_group, fh, f);
    IBEX_ARGS(File_get_group, fh, group);
    return PMPI_Comm_group(f->comm, group);
}

int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    IBEX_ENTER_FILE(File_get_amode, fh, f);
    IBEX_ARGS(File_get_amode, fh, amode);
    *amode = f->amode;
    return MPI_SUCCESS;
}

/* Merges the kept hints (file_hints_merge); the rest is ignored. */
int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    IBEX_ENTER_FILE(File_set_info, fh, f);
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    int rc = file_hints_merge(info, &f->info);
    if (rc != MPI_SUCCESS)
        return IBEX_FILE_ERROR(f, rc, "invalid info 0x%x", (unsigned)info);
    return MPI_SUCCESS;
}

int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    IBEX_ENTER_FILE(File_get_info, fh, f);
    IBEX_ARGS(File_get_info, fh, info_used);
    if (f->info != MPI_INFO_NULL)
        return PMPI_Info_dup(f->info, info_used);
    return PMPI_Info_create(info_used);
}

int PMPI_File_sync(MPI_File fh)
{
    IBEX_ENTER_FILE(File_sync, fh, f);
    if (f->amode & MPI_MODE_RDONLY)
        return IBEX_FILE_ERROR(f, MPI_ERR_ACCESS, "the file was opened MPI_MODE_RDONLY");
    int rc = fsync(f->fd) ? errno : 0;
    PMPI_Barrier(f->comm);
    if (rc)
        return IBEX_FILE_ERROR(f, ibex_io_errno_class(rc), "fsync failed: %s", strerror(rc));
    return MPI_SUCCESS;
}

int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    IBEX_ENTER_FILE(File_set_atomicity, fh, f);
    int mine = !!flag, lo = 0, hi = 0;
    PMPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, f->comm);
    PMPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, f->comm);
    if (lo != hi)
        return IBEX_FILE_ERROR(f, MPI_ERR_NOT_SAME, "the ranks gave different flags");
    f->atomic = mine;
    return MPI_SUCCESS;
}

int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    IBEX_ENTER_FILE(File_get_atomicity, fh, f);
    IBEX_ARGS(File_get_atomicity, fh, flag);
    *flag = f->atomic;
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(file_open)
