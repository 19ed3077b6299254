/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI-IO shared file pointer, against MPI 4.1 14.4.4: every rank appends records with
 * write_shared (the file then holds each record exactly once, in some order), write_ordered
 * puts the ranks' records in rank order (the file's content exact), read_ordered reads them
 * back the same way, seek_shared / get_position_shared, the non-blocking shared forms and the
 * split ordered forms; MPI_MODE_SEQUENTIAL refuses the individual pointer.
 */
#include <string.h>

#include "io_check.h"

enum { RECS = 5 };

static int rank, size;

static void shared_appends(MPI_File fh)
{
    MPI_Status st;
    for (int i = 0; i < RECS; i++) {
        int rec[2] = {rank, i};
        if (i % 2)
            OK(MPI_File_write_shared(fh, rec, 2, MPI_INT, &st));
        else {
            MPI_Request req;
            OK(MPI_File_iwrite_shared(fh, rec, 2, MPI_INT, &req));
            OK(MPI_Wait(&req, &st));
        }
        int n;
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(n == 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset pos;
    OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == (MPI_Offset)2 * RECS * size);
    int all[2 * RECS * 4], seen[4][RECS];
    memset(seen, 0, sizeof(seen));
    OK(MPI_File_read_at(fh, 0, all, 2 * RECS * size, MPI_INT, &st));
    for (int k = 0; k < RECS * size; k++) {
        int r = all[2 * k], i = all[2 * k + 1];
        CHECK(r >= 0 && r < size && i >= 0 && i < RECS && !seen[r][i]);
        seen[r][i] = 1;
    }
}

/* rank r writes r + 1 ints of value 10 r + j, in rank order after what is there */
static void ordered(MPI_File fh, MPI_Offset start)
{
    int mine[8], n = rank + 1;
    for (int j = 0; j < n; j++)
        mine[j] = 10 * rank + j;
    MPI_Status st;
    if (rank % 2)
        OK(MPI_File_write_ordered(fh, mine, n, MPI_INT, &st));
    else {
        OK(MPI_File_write_ordered_begin(fh, mine, n, MPI_INT));
        OK(MPI_File_write_ordered_end(fh, mine, &st));
    }
    int c;
    MPI_Get_count(&st, MPI_INT, &c);
    CHECK(c == n);
    MPI_Offset pos, total = (MPI_Offset)size * (size + 1) / 2;
    OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == start + total);
    OK(MPI_File_sync(fh));
    int all[16];
    OK(MPI_File_read_at(fh, start, all, (int)total, MPI_INT, &st));
    int k = 0;
    for (int r = 0; r < size; r++)
        for (int j = 0; j <= r; j++)
            CHECK(all[k++] == 10 * r + j);
    /* back: seek the shared pointer to start, read_ordered gives each rank its own */
    OK(MPI_File_seek_shared(fh, start, MPI_SEEK_SET));
    int back[8] = {0};
    OK(MPI_File_read_ordered(fh, back, n, MPI_INT, &st));
    for (int j = 0; j < n; j++)
        CHECK(back[j] == 10 * rank + j);
    OK(MPI_File_seek_shared(fh, start, MPI_SEEK_SET));
    memset(back, 0, sizeof(back));
    OK(MPI_File_read_ordered_begin(fh, back, n, MPI_INT));
    OK(MPI_File_read_ordered_end(fh, back, &st));
    CHECK(back[n - 1] == 10 * rank + n - 1);
    OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == start + total);
    /* iread_shared from 0 after a seek: each rank gets a distinct record */
    OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    MPI_Request req;
    int rec[2];
    OK(MPI_File_iread_shared(fh, rec, 2, MPI_INT, &req));
    OK(MPI_Wait(&req, &st));
    MPI_Get_count(&st, MPI_INT, &c);
    CHECK(c == 2 && rec[0] >= 0 && rec[0] < size);
    OK(MPI_File_read_shared(fh, rec, 2, MPI_INT, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == (MPI_Offset)4 * size);
}

static void sequential(void)
{
    MPI_File fh;
    OK(MPI_File_open(MPI_COMM_WORLD, io_path("seq"),
                     MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_SEQUENTIAL |
                         MPI_MODE_DELETE_ON_CLOSE,
                     MPI_INFO_NULL, &fh));
    int v = rank;
    MPI_Status st;
    CHECK(io_class(MPI_File_write_at(fh, 0, &v, 1, MPI_INT, &st)) == MPI_ERR_UNSUPPORTED_OPERATION);
    OK(MPI_File_write_ordered(fh, &v, 1, MPI_INT, &st));
    OK(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    OK(MPI_File_get_view(fh, &disp, &et, &ft, rep));
    CHECK(disp == (MPI_Offset)sizeof(int) * size);
    OK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 4);
    MPI_File fh;
    OK(MPI_File_open(MPI_COMM_WORLD, io_path("shared"),
                     MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                     &fh));
    OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    shared_appends(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    ordered(fh, (MPI_Offset)2 * RECS * size);
    OK(MPI_File_close(&fh));
    sequential();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("io_shared: ok\n");
    MPI_Finalize();
    return 0;
}
