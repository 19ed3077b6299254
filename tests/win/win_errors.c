/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Error classes under MPI_ERRORS_RETURN on the window: MPI_ERR_RMA_SYNC for operations and
 * synchronisation calls outside their epoch, MPI_ERR_RMA_RANGE for accesses outside the
 * target's window (refused at the origin: the target's memory around the window is unchanged),
 * MPI_ERR_RANK, MPI_ERR_LOCKTYPE, MPI_ERR_WIN, MPI_ERR_TYPE, MPI_ERR_OP; a user window error
 * handler called by MPI_Win_call_errhandler.
 */
#include "mpitest.h"

static int rank, size, handler_calls;

static void expect(int rc, int cls)
{
    int c;
    MPI_Error_class(rc, &c);
    if (c != cls)
        fprintf(stderr, "rank %d: got class %d, expected %d\n", rank, c, cls);
    CHECK(c == cls);
}

static void on_error(MPI_Win *win, int *code, ...)
{
    (void)win;
    CHECK(*code == MPI_ERR_OTHER);
    handler_calls++;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* guard ints on both sides of the window */
    int *mem = calloc(12, sizeof(int)), *win_mem = mem + 1, v = 42, r;
    mem[0] = mem[11] = 777;
    MPI_Win win;
    CHECK_RC(MPI_Win_create(win_mem, 10 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &win));
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int t = (rank + 1) % size;
    expect(MPI_Put(&v, 1, MPI_INT, t, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    expect(MPI_Get(&r, 1, MPI_INT, t, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    expect(MPI_Win_unlock(t, win), MPI_ERR_RMA_SYNC);
    expect(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    expect(MPI_Win_flush(t, win), MPI_ERR_RMA_SYNC);
    expect(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    expect(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    expect(MPI_Win_lock(12345, t, 0, win), MPI_ERR_LOCKTYPE);
    expect(MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win), MPI_ERR_RANK);
    expect(MPI_Put(&v, 1, MPI_INT, size + 3, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    expect(MPI_Win_fence(-1 & ~0xffff, win), MPI_ERR_ASSERT);
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    expect(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), MPI_ERR_RMA_SYNC);
    expect(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
    expect(MPI_Put(&v, 1, MPI_INT, t, 10, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    expect(MPI_Put(&v, 1, MPI_INT, t, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    int big[11] = {0};
    expect(MPI_Put(big, 11, MPI_INT, t, 0, 11, MPI_INT, win), MPI_ERR_RMA_RANGE);
    expect(MPI_Get(big, 2, MPI_INT, t, 9, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
    expect(MPI_Accumulate(&v, 1, MPI_INT, t, 10, 1, MPI_INT, MPI_SUM, win), MPI_ERR_RMA_RANGE);
    expect(MPI_Put(&v, 1, MPI_INT, t, 0, 1, MPI_DATATYPE_NULL, win), MPI_ERR_TYPE);
    expect(MPI_Put(&v, 2, MPI_INT, t, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
    double dv = 1;
    expect(MPI_Accumulate(&dv, 1, MPI_DOUBLE, t, 0, 1, MPI_DOUBLE, MPI_BAND, win), MPI_ERR_OP);
    expect(MPI_Accumulate(&v, 1, MPI_INT, t, 0, 1, MPI_DOUBLE, MPI_SUM, win), MPI_ERR_TYPE);
    double dold, dcmp = 0; /* Compare_and_swap takes no floating-point type (MPI 4.1, 12.3.4) */
    expect(MPI_Compare_and_swap(&dv, &dcmp, &dold, MPI_DOUBLE, t, 0, win), MPI_ERR_TYPE);
    expect(MPI_Compare_and_swap(&dv, &dcmp, &dold, MPI_FLOAT, t, 0, win), MPI_ERR_TYPE);
    CHECK_RC(MPI_Put(&v, 1, MPI_INT, t, 9, 1, MPI_INT, win)); /* the last int is fine */
    MPI_Win_unlock(t, win);
    expect(MPI_Win_free(&(MPI_Win){MPI_WIN_NULL}), MPI_ERR_WIN);
    MPI_Win_lock_all(0, win);
    expect(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
    MPI_Win_unlock_all(win);
    MPI_Errhandler eh;
    CHECK_RC(MPI_Win_create_errhandler(on_error, &eh));
    CHECK_RC(MPI_Win_set_errhandler(win, eh));
    CHECK_RC(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(handler_calls == 1);
    MPI_Errhandler_free(&eh);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(mem[0] == 777 && mem[11] == 777); /* nothing around the window was touched */
    CHECK(win_mem[9] == 42);
    CHECK_RC(MPI_Win_free(&win));
    free(mem);
    mt_done("win_errors");
    MPI_Finalize();
    return 0;
}
