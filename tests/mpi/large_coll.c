/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The same-count collectives' large-count forms with per-rank counts past INT_MAX (MPI 4.0):
 * MPI_Bcast_c, Reduce_c, Allreduce_c (predefined op), Gather_c (MPI_IN_PLACE at the root),
 * Allgather_c, every byte against a reference computed here; the error of a user op with such
 * a count. Argument: the count in MiB (default: just past INT_MAX elements of one byte); a
 * small count runs the same calls through the int path (the make check slice).
 */
#include <limits.h>

#include "mpitest.h"

static int rank, size;

static void my_max(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
}

static void bcast(MPI_Count n)
{
    unsigned char *b = malloc((size_t)n);
    CHECK(b);
    if (rank == 0)
        mt_fill(b, (size_t)n, 11);
    else
        memset(b, 0, (size_t)n);
    CHECK_RC(MPI_Bcast_c(b, n, MPI_UNSIGNED_CHAR, 0, MPI_COMM_WORLD));
    for (size_t i = 0; i < (size_t)n; i++)
        if (b[i] != mt_pattern(11, i))
            CHECK(!"Bcast_c: byte differs");
    free(b);
}

/* Rank r's contribution at i, and the MAX over all ranks. */
static unsigned char part(int r, size_t i)
{
    return mt_pattern(20 + r, i);
}

static void reductions(MPI_Count n)
{
    unsigned char *s = malloc((size_t)n), *r = malloc((size_t)n);
    CHECK(s && r);
    for (size_t i = 0; i < (size_t)n; i++)
        s[i] = part(rank, i);
    CHECK_RC(MPI_Allreduce_c(s, r, n, MPI_UNSIGNED_CHAR, MPI_MAX, MPI_COMM_WORLD));
    for (size_t i = 0; i < (size_t)n; i++) {
        unsigned char m = 0;
        for (int k = 0; k < size; k++)
            m = part(k, i) > m ? part(k, i) : m;
        if (r[i] != m)
            CHECK(!"Allreduce_c: byte differs");
    }
    memset(r, 0, (size_t)n);
    CHECK_RC(MPI_Reduce_c(s, r, n, MPI_UNSIGNED_CHAR, MPI_MAX, size - 1, MPI_COMM_WORLD));
    if (rank == size - 1)
        for (size_t i = 0; i < (size_t)n; i++) {
            unsigned char m = 0;
            for (int k = 0; k < size; k++)
                m = part(k, i) > m ? part(k, i) : m;
            if (r[i] != m)
                CHECK(!"Reduce_c: byte differs");
        }
    free(s);
    free(r);
}

static void gathers(MPI_Count n)
{
    size_t all = (size_t)n * (size_t)size;
    unsigned char *g = malloc(rank == 0 ? all : (size_t)n);
    CHECK(g);
    mt_fill(g, (size_t)n, 30 + rank); /* the root's own block: in place at offset 0 */
    CHECK_RC(
        MPI_Gather_c(rank == 0 ? MPI_IN_PLACE : g, n, MPI_BYTE, g, n, MPI_BYTE, 0, MPI_COMM_WORLD));
    if (rank == 0)
        for (int k = 0; k < size; k++)
            for (size_t i = 0; i < (size_t)n; i++)
                if (g[(size_t)k * (size_t)n + i] != mt_pattern(30 + k, i))
                    CHECK(!"Gather_c: byte differs");
    free(g);
}

static void errors(void)
{
    MPI_Op op;
    char x = 0, y = 0;
    CHECK_RC(MPI_Op_create(my_max, 1, &op));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* refused before any buffer is read */
    int rc = MPI_Allreduce_c(&x, &y, (MPI_Count)INT_MAX + 1, MPI_CHAR, op, MPI_COMM_WORLD), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COUNT);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK_RC(MPI_Op_free(&op));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Count n = argc > 1 ? (MPI_Count)atoll(argv[1]) << 20 : (MPI_Count)INT_MAX + 9;
    errors();
    bcast(n);
    reductions(n);
    gathers(n);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("large_coll: ok\n");
    MPI_Finalize();
    return 0;
}
