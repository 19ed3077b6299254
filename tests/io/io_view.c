/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI-IO views and data access, against MPI 4.1 chapter 14 and hand-computed file contents:
 * ranks write through interleaved strided filetypes (a resized vector of MPI_INT) at a
 * displacement and another rank reads each back through the same view; the whole file is
 * then read contiguously and compared byte for byte. Also explicit offsets with an etype,
 * a filetype with holes and zero-length blocks, a non-contiguous memory type, the status
 * counts (MPI_Get_count / Get_elements) of a read cut short by the end of the file, seek /
 * get_position / get_byte_offset, get_view, non-blocking and split collective forms, the
 * layout rules of etypes and filetypes and the "external32" representation.
 */
#include <string.h>

#include "io_check.h"

enum { PER = 12, BL = 2, DISP = 8 };

static int rank, size;

static int value(int r, int i)
{
    return 1000 * (r + 1) + i;
}

/* rank r's view: blocks of BL ints every BL * size ints, from DISP bytes + r * BL ints */
static MPI_Datatype strided(void)
{
    MPI_Datatype v, t;
    MPI_Type_vector(1, BL, BL * size, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)sizeof(int) * BL * size, &t);
    MPI_Type_commit(&t);
    MPI_Type_free(&v);
    return t;
}

static void interleaved(void)
{
    MPI_File fh;
    MPI_Datatype ft = strided();
    int buf[PER], back[PER];
    MPI_Status st;
    for (int i = 0; i < PER; i++)
        buf[i] = value(rank, i);
    OK(MPI_File_open(MPI_COMM_WORLD, io_path("view"), MPI_MODE_RDWR | MPI_MODE_CREATE,
                     MPI_INFO_NULL, &fh));
    OK(MPI_File_set_view(fh, DISP + (MPI_Offset)sizeof(int) * BL * rank, MPI_INT, ft, "native",
                         MPI_INFO_NULL));
    OK(MPI_File_write_all(fh, buf, PER, MPI_INT, &st));
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == PER);
    MPI_Offset pos;
    OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == PER);
    OK(MPI_File_get_byte_offset(fh, BL + 1, &pos)); /* second copy, second int */
    CHECK(pos == DISP + (MPI_Offset)sizeof(int) * (BL * rank + BL * size + 1));
    OK(MPI_File_sync(fh));
    /* the next rank reads this rank's part through this rank's view */
    int peer = (rank + 1) % size;
    OK(MPI_File_set_view(fh, DISP + (MPI_Offset)sizeof(int) * BL * peer, MPI_INT, ft, "native",
                         MPI_INFO_NULL));
    OK(MPI_File_read_at_all(fh, 0, back, PER, MPI_INT, &st));
    for (int i = 0; i < PER; i++)
        CHECK(back[i] == value(peer, i));
    MPI_Offset disp;
    MPI_Datatype et, got;
    char rep[MPI_MAX_DATAREP_STRING];
    OK(MPI_File_get_view(fh, &disp, &et, &got, rep));
    CHECK(disp == DISP + (MPI_Offset)sizeof(int) * BL * peer && et == MPI_INT &&
          !strcmp(rep, "native"));
    MPI_Type_free(&got);
    /* the whole file as bytes: DISP zero bytes, then the ranks' blocks interleaved */
    OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    int total = PER * size, all[PER * 4 + 2];
    char head[DISP];
    OK(MPI_File_read_at(fh, 0, head, DISP, MPI_BYTE, &st));
    for (int i = 0; i < DISP; i++)
        CHECK(head[i] == 0);
    OK(MPI_File_read_at(fh, DISP, all, total + 2, MPI_INT, &st)); /* 2 ints past the end */
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == total);
    MPI_Get_elements(&st, MPI_INT, &n);
    CHECK(n == total);
    for (int k = 0; k < total; k++) {
        int blk = k / BL, r = blk % size, i = (blk / size) * BL + k % BL;
        CHECK(all[k] == value(r, i));
    }
    OK(MPI_File_close(&fh));
    MPI_Type_free(&ft);
}

/* a filetype of 3 blocks (1 int, a zero-length one, 2 ints) with holes between; a vector as
 * the memory type; offsets in etypes */
static void holes(void)
{
    MPI_File fh;
    int lens[3] = {1, 0, 2}, displs[3] = {1, 2, 4};
    MPI_Datatype ft0, ft, mem;
    MPI_Type_indexed(3, lens, displs, MPI_INT, &ft0);
    MPI_Type_create_resized(ft0, 0, 6 * (MPI_Aint)sizeof(int), &ft);
    MPI_Type_commit(&ft); /* 3 ints at 1, 4, 5 of an extent of 6 */
    MPI_Type_free(&ft0);
    MPI_Type_vector(6, 1, 2, MPI_INT, &mem);
    MPI_Type_commit(&mem);
    MPI_Comm self = MPI_COMM_SELF;
    char name[64];
    snprintf(name, sizeof(name), "holes.%d", rank);
    OK(MPI_File_open(self, io_path(name),
                     MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                     &fh));
    int src[12], file[12], back[12];
    for (int i = 0; i < 12; i++)
        src[i] = 100 + i;
    OK(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    MPI_Status st;
    OK(MPI_File_write_at(fh, 0, src, 1, mem, &st)); /* src[0, 2, .. 10] */
    int n;
    MPI_Get_elements(&st, MPI_INT, &n);
    CHECK(n == 6);
    OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    memset(file, 0, sizeof(file));
    OK(MPI_File_read_at(fh, 0, file, 12, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 12); /* 2 copies of extent 6 */
    int want[12] = {0, 100, 0, 0, 102, 104, 0, 106, 0, 0, 108, 110};
    for (int i = 0; i < 12; i++)
        CHECK(file[i] == want[i]);
    OK(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    memset(back, 0, sizeof(back));
    MPIO_Request req; /* ROMIO's name, kept by MPICH and Open MPI */
    OK(MPI_File_iread_at(fh, 2, back, 4, MPI_INT, &req)); /* etypes 2..5 */
    OK(MPI_Wait(&req, &st));
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 4 && back[0] == 104 && back[1] == 106 && back[2] == 108 && back[3] == 110);
    OK(MPI_File_seek(fh, 1, MPI_SEEK_SET));
    OK(MPI_File_seek(fh, 2, MPI_SEEK_CUR));
    MPI_Offset pos;
    OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 3);
    OK(MPI_File_seek(fh, -1, MPI_SEEK_END));
    OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 5);
    OK(MPI_File_read(fh, back, 3, MPI_INT, &st)); /* one etype left before the end */
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 1 && back[0] == 110);
    /* split collective and non-blocking write */
    int v[2] = {7, 8};
    OK(MPI_File_write_at_all_begin(fh, 0, v, 2, MPI_INT));
    CHECK(MPI_File_write_at_all_begin(fh, 0, v, 2, MPI_INT) != MPI_SUCCESS);
    OK(MPI_File_write_at_all_end(fh, v, &st));
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 2);
    CHECK(MPI_File_read_all_end(fh, back, &st) != MPI_SUCCESS);
    OK(MPI_File_iwrite_at(fh, 2, v, 1, MPI_INT, &req));
    int flag = 0;
    while (!flag)
        OK(MPI_Test(&req, &flag, &st));
    OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    OK(MPI_File_read_all_begin(fh, back, 3, MPI_INT));
    OK(MPI_File_read_all_end(fh, back, &st));
    CHECK(back[0] == 7 && back[1] == 8 && back[2] == 7);
    OK(MPI_File_close(&fh));
    MPI_Type_free(&ft);
    MPI_Type_free(&mem);
}

static void bad_views(void)
{
    MPI_File fh;
    MPI_Datatype t;
    MPI_Type_contiguous(3, MPI_CHAR, &t);
    MPI_Type_commit(&t);
    OK(MPI_File_open(MPI_COMM_WORLD, io_path("view"), MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK(io_class(MPI_File_set_view(fh, 0, MPI_INT, t, "native", MPI_INFO_NULL)) == MPI_ERR_ARG);
    CHECK(io_class(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "bogus", MPI_INFO_NULL)) ==
          MPI_ERR_UNSUPPORTED_DATAREP);
    CHECK(io_class(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
                                     MPI_INFO_NULL)) == MPI_ERR_ARG);
    MPI_Aint ext;
    OK(MPI_File_get_type_extent(fh, t, &ext));
    CHECK(ext == 3);
    /* negative or decreasing displacements, and overlaps in a writable file (MPI_ERR_IO) */
    int bl[2] = {1, 1}, neg[2] = {-2, 2}, dec[2] = {3, 0}, lap[2] = {0, 0};
    MPI_Datatype bad;
    int *cases[3] = {neg, dec, lap};
    for (int c = 0; c < 3; c++) {
        MPI_Type_indexed(2, bl, cases[c], MPI_INT, &bad);
        MPI_Type_commit(&bad);
        CHECK(io_class(MPI_File_set_view(fh, 0, MPI_INT, bad, "native", MPI_INFO_NULL)) ==
              MPI_ERR_IO);
        CHECK(io_class(MPI_File_set_view(fh, 0, bad, bad, "native", MPI_INFO_NULL)) == MPI_ERR_IO);
        MPI_Type_free(&bad);
    }
    OK(MPI_File_close(&fh));
    OK(MPI_File_open(MPI_COMM_WORLD, io_path("view"), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    MPI_Type_indexed(2, bl, lap, MPI_INT, &bad);
    MPI_Type_commit(&bad);
    OK(MPI_File_set_view(fh, 0, MPI_INT, bad, "native", MPI_INFO_NULL)); /* read-only: allowed */
    MPI_Type_free(&bad);
    OK(MPI_File_close(&fh));
    MPI_Type_free(&t);
}

/* "external32": big-endian data in the file, the native values back through the same view */
static void external32(void)
{
    MPI_File fh;
    char name[64];
    snprintf(name, sizeof(name), "x32.%d", rank);
    OK(MPI_File_open(MPI_COMM_SELF, io_path(name),
                     MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                     &fh));
    OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
    int v[2] = {0x01020304, -2}, back[2] = {0, 0};
    MPI_Status st;
    OK(MPI_File_write_at(fh, 0, v, 2, MPI_INT, &st));
    OK(MPI_File_read_at_c(fh, 0, back, (MPI_Count)2, MPI_INT, &st)); /* the large-count form */
    CHECK(back[0] == v[0] && back[1] == v[1]);
    MPI_Count c, x;
    MPI_Get_count_c(&st, MPI_INT, &c);
    CHECK(c == 2);
    /* past INT_MAX is taken (io_large.c); more bytes than an MPI_Count holds is not */
    CHECK(io_class(MPI_File_read_at_c(fh, 0, back, (MPI_Count)1 << 62, MPI_INT, &st)) ==
          MPI_ERR_COUNT);
    OK(MPI_File_get_type_extent_c(fh, MPI_DOUBLE, &x));
    CHECK(x == 8);
    OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    unsigned char raw[8];
    OK(MPI_File_read_at(fh, 0, raw, 8, MPI_BYTE, &st));
    CHECK(raw[0] == 1 && raw[1] == 2 && raw[2] == 3 && raw[3] == 4);
    CHECK(raw[4] == 0xff && raw[7] == 0xfe);
    OK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    interleaved();
    holes();
    bad_views();
    external32();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        OK(MPI_File_delete(io_path("view"), MPI_INFO_NULL));
        printf("io_view: ok\n");
    }
    MPI_Finalize();
    return 0;
}
