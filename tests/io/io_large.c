/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI-IO's large-count forms (MPI 4.0) past INT_MAX elements, each rank on its own file:
 * - every access family (explicit offset, individual and shared pointer, ordered, collective,
 *   non-blocking, split collective; reads and writes) with INT_MAX + 9 elements of an empty type
 *   (contiguous, 0 ints) succeeds and moves nothing;
 * - reads of INT_MAX + 9 bytes from an 8-byte file into a reserved mapping of that many bytes
 *   (MAP_NORESERVE: only the pages written take memory) stop at the end of the file: the status
 *   counts 8 (MPI_Get_count_c), the individual pointer moves by 8;
 * - with argument "full" (make check-large): MPI_File_write_at_c of INT_MAX + 9 bytes (marks at
 *   the ends and around INT_MAX, zeros elsewhere), the file's size, MPI_File_read_at_c of them
 *   back (about 2 GiB of memory and of disk).
 * - a datatype with gaps past INT_MAX: MPI_ERR_UNSUPPORTED_OPERATION on the file's handler.
 * Before, each of these was MPI_ERR_COUNT.
 */
#include <limits.h>
#include <string.h>
#include <sys/mman.h>

#include "io_check.h"

static const MPI_Count big = (MPI_Count)INT_MAX + 9;

static unsigned char *reserve(void)
{
    void *p = mmap(NULL, (size_t)big, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(p != MAP_FAILED);
    return p;
}

static MPI_File open_own(const char *stem)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char name[64];
    snprintf(name, sizeof(name), "%s.%d", stem, rank);
    MPI_File fh;
    OK(MPI_File_open(MPI_COMM_SELF, io_path(name),
                     MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                     &fh));
    return fh;
}

static void wait_ok(MPI_Request *r)
{
    OK(MPI_Wait(r, MPI_STATUS_IGNORE));
}

static void empty_type(void)
{
    MPI_File fh = open_own("empty");
    MPI_Datatype e;
    OK(MPI_Type_contiguous(0, MPI_INT, &e));
    OK(MPI_Type_commit(&e));
    int x = 5;
    MPI_Status st;
    MPI_Request r;
    OK(MPI_File_write_at_c(fh, 0, &x, big, e, &st));
    OK(MPI_File_write_at_all_c(fh, 0, &x, big, e, &st));
    OK(MPI_File_read_at_c(fh, 0, &x, big, e, &st));
    OK(MPI_File_read_at_all_c(fh, 0, &x, big, e, &st));
    OK(MPI_File_write_c(fh, &x, big, e, &st));
    OK(MPI_File_write_all_c(fh, &x, big, e, &st));
    OK(MPI_File_read_c(fh, &x, big, e, &st));
    OK(MPI_File_read_all_c(fh, &x, big, e, &st));
    OK(MPI_File_write_shared_c(fh, &x, big, e, &st));
    OK(MPI_File_read_shared_c(fh, &x, big, e, &st));
    OK(MPI_File_write_ordered_c(fh, &x, big, e, &st));
    OK(MPI_File_read_ordered_c(fh, &x, big, e, &st));
    OK(MPI_File_iwrite_at_c(fh, 0, &x, big, e, &r));
    wait_ok(&r);
    OK(MPI_File_iread_at_all_c(fh, 0, &x, big, e, &r));
    wait_ok(&r);
    OK(MPI_File_iwrite_c(fh, &x, big, e, &r));
    wait_ok(&r);
    OK(MPI_File_iread_all_c(fh, &x, big, e, &r));
    wait_ok(&r);
    OK(MPI_File_iwrite_shared_c(fh, &x, big, e, &r));
    wait_ok(&r);
    OK(MPI_File_iread_shared_c(fh, &x, big, e, &r));
    wait_ok(&r);
    OK(MPI_File_write_at_all_begin_c(fh, 0, &x, big, e));
    OK(MPI_File_write_at_all_end(fh, &x, &st));
    OK(MPI_File_read_all_begin_c(fh, &x, big, e));
    OK(MPI_File_read_all_end(fh, &x, &st));
    OK(MPI_File_write_ordered_begin_c(fh, &x, big, e));
    OK(MPI_File_write_ordered_end(fh, &x, &st));
    MPI_Offset sz = -1;
    OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 0 && x == 5);
    OK(MPI_Type_free(&e));
    OK(MPI_File_close(&fh));
}

/* A read past INT_MAX bytes stops at the end of an 8-byte file. */
static void short_reads(unsigned char *m)
{
    MPI_File fh = open_own("short");
    const char v[8] = "abcdefg";
    MPI_Status st;
    MPI_Count c = -1;
    OK(MPI_File_write_at(fh, 0, v, 8, MPI_BYTE, &st));
    OK(MPI_File_read_at_c(fh, 0, m, big, MPI_BYTE, &st));
    OK(MPI_Get_count_c(&st, MPI_BYTE, &c));
    CHECK(c == 8 && memcmp(m, v, 8) == 0);
    memset(m, 0, 8);
    OK(MPI_File_read_c(fh, m, big, MPI_BYTE, &st));
    OK(MPI_Get_count_c(&st, MPI_BYTE, &c));
    MPI_Offset pos = -1;
    OK(MPI_File_get_position(fh, &pos));
    CHECK(c == 8 && pos == 8 && memcmp(m, v, 8) == 0);
    MPI_Request r;
    OK(MPI_File_iread_at_c(fh, 4, m, big, MPI_BYTE, &r));
    OK(MPI_Wait(&r, &st));
    OK(MPI_Get_count_c(&st, MPI_BYTE, &c));
    CHECK(c == 4 && memcmp(m, v + 4, 4) == 0);
    OK(MPI_File_close(&fh));
}

static const MPI_Count marks[] = {
    0, 1, (MPI_Count)INT_MAX - 1, INT_MAX, (MPI_Count)INT_MAX + 1, (MPI_Count)INT_MAX + 8};

static unsigned char mark(int i)
{
    return (unsigned char)(0x51 + 7 * i);
}

/* INT_MAX + 9 bytes written in one call and read back in one. */
static void full(unsigned char *m)
{
    MPI_File fh = open_own("full");
    int n = (int)(sizeof(marks) / sizeof(marks[0]));
    memset(m, 0, 8); /* short_reads' bytes */
    for (int i = 0; i < n; i++)
        m[marks[i]] = mark(i);
    MPI_Status st;
    MPI_Count c = -1;
    OK(MPI_File_write_at_c(fh, 0, m, big, MPI_BYTE, &st));
    OK(MPI_Get_count_c(&st, MPI_BYTE, &c));
    MPI_Offset sz = -1;
    OK(MPI_File_get_size(fh, &sz));
    CHECK(c == big && sz == big);
    CHECK(munmap(m, (size_t)big) == 0);
    unsigned char *back = reserve();
    OK(MPI_File_read_at_c(fh, 0, back, big, MPI_BYTE, &st));
    OK(MPI_Get_count_c(&st, MPI_BYTE, &c));
    CHECK(c == big);
    for (int i = 0; i < n; i++)
        CHECK(back[marks[i]] == mark(i));
    for (MPI_Count at = 2; at < INT_MAX - 1; at += 4093) /* the zeros between, sampled */
        CHECK(back[at] == 0);
    CHECK(munmap(back, (size_t)big) == 0);
    OK(MPI_File_close(&fh));
}

/* Past INT_MAX a datatype with gaps (a byte resized to extent 2) is refused on the file's
 * handler (MPI_ERRORS_RETURN), not on the world's: its elements cannot be one type's blocks. */
static void gapped_type(void)
{
    MPI_File fh = open_own("gapped");
    MPI_Datatype g;
    OK(MPI_Type_create_resized(MPI_BYTE, 0, 2, &g));
    OK(MPI_Type_commit(&g));
    unsigned char x[2] = {0};
    int cls;
    MPI_Error_class(MPI_File_write_at_c(fh, 0, x, big, g, MPI_STATUS_IGNORE), &cls);
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION);
    MPI_Error_class(MPI_File_read_c(fh, x, big, g, MPI_STATUS_IGNORE), &cls);
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION);
    OK(MPI_Type_free(&g));
    OK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    empty_type();
    gapped_type();
    unsigned char *m = reserve();
    short_reads(m);
    if (argc > 2 && strcmp(argv[2], "full") == 0)
        full(m); /* unmaps m */
    else
        CHECK(munmap(m, (size_t)big) == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("io_large: ok\n");
    MPI_Finalize();
    return 0;
}
