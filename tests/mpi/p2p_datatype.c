/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Non-contiguous data through both protocols: vector, indexed, struct with gaps, resized types
 * with a negative lower bound and count > 1, sender and receiver using different layouts of the
 * same type signature, and MPI_BOTTOM with absolute addresses.
 */
#include "mpitest.h"

/* Sends `count` elements of a vector of doubles (every other one) to the right and receives
 * them contiguously from the left. */
static void vector_to_contig(int rank, int size, int count)
{
    MPI_Datatype vec;
    CHECK_RC(MPI_Type_vector(count, 1, 2, MPI_DOUBLE, &vec));
    CHECK_RC(MPI_Type_commit(&vec));
    double *s = malloc(sizeof(double) * 2 * (size_t)count);
    double *r = malloc(sizeof(double) * (size_t)count);
    for (int i = 0; i < 2 * count; i++)
        s[i] = (i % 2) ? -1.0 : rank * 1e6 + i / 2;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    CHECK_RC(MPI_Sendrecv(s, 1, vec, right, 1, r, count, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
    for (int i = 0; i < count; i++)
        CHECK(r[i] == left * 1e6 + i);
    /* and back into the strided layout */
    for (int i = 0; i < 2 * count; i++)
        s[i] = -7.0;
    CHECK_RC(MPI_Sendrecv(r, count, MPI_DOUBLE, left, 2, s, 1, vec, right, 2, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
    for (int i = 0; i < count; i++) {
        CHECK(s[2 * i] == rank * 1e6 + i);
        CHECK(s[2 * i + 1] == -7.0); /* the gaps are untouched */
    }
    MPI_Type_free(&vec);
    free(s);
    free(r);
}

struct particle {
    char tag;
    double pos[3];
    int id;
};

/* A struct type with holes, resized to the C struct's extent, count > 1. */
static void struct_type(int rank, int size, int n)
{
    MPI_Datatype t, tr;
    int bl[3] = {1, 3, 1};
    MPI_Aint disp[3] = {offsetof(struct particle, tag), offsetof(struct particle, pos),
                        offsetof(struct particle, id)};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    CHECK_RC(MPI_Type_create_struct(3, bl, disp, types, &t));
    CHECK_RC(MPI_Type_create_resized(t, 0, sizeof(struct particle), &tr));
    CHECK_RC(MPI_Type_commit(&tr));
    struct particle *s = calloc((size_t)n, sizeof(*s)), *r = calloc((size_t)n, sizeof(*r));
    for (int i = 0; i < n; i++) {
        s[i].tag = (char)('a' + i % 26);
        s[i].pos[0] = i, s[i].pos[1] = rank, s[i].pos[2] = -i;
        s[i].id = rank * 100000 + i;
    }
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    CHECK_RC(
        MPI_Sendrecv(s, n, tr, right, 3, r, n, tr, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++) {
        CHECK(r[i].tag == (char)('a' + i % 26) && r[i].id == left * 100000 + i);
        CHECK(r[i].pos[0] == i && r[i].pos[1] == left && r[i].pos[2] == -i);
    }
    MPI_Type_free(&t);
    MPI_Type_free(&tr);
    free(s);
    free(r);
}

/* A resized type with a negative lower bound: each element is the int *before* the pointer. */
static void negative_lb(int rank, int size, int n)
{
    MPI_Datatype base, t;
    int bl = 1, dispi = -1;
    CHECK_RC(MPI_Type_indexed(1, &bl, &dispi, MPI_INT, &base));
    CHECK_RC(MPI_Type_create_resized(base, -(MPI_Aint)sizeof(int), 2 * sizeof(int), &t));
    CHECK_RC(MPI_Type_commit(&t));
    MPI_Aint lb, extent;
    MPI_Type_get_extent(t, &lb, &extent);
    CHECK(lb == -(MPI_Aint)sizeof(int) && extent == 2 * sizeof(int));
    int *s = malloc(sizeof(int) * (size_t)(2 * n + 2)), *r = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < 2 * n + 2; i++)
        s[i] = rank * 1000000 + i;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    /* element i is at s + 1 + 2i - 1 */
    CHECK_RC(MPI_Sendrecv(s + 1, n, t, right, 4, r, n, MPI_INT, left, 4, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
        CHECK(r[i] == left * 1000000 + 2 * i);
    MPI_Type_free(&base);
    MPI_Type_free(&t);
    free(s);
    free(r);
}

/* MPI_BOTTOM with absolute addresses from MPI_Get_address. */
static void bottom(int rank, int size)
{
    int a = rank, b[2] = {rank * 2, rank * 3}, ra = -1, rb[2] = {-1, -1};
    MPI_Aint addr[2], raddr[2];
    MPI_Get_address(&a, &addr[0]);
    MPI_Get_address(b, &addr[1]);
    MPI_Get_address(&ra, &raddr[0]);
    MPI_Get_address(rb, &raddr[1]);
    int bl[2] = {1, 2};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT}, st, rt;
    CHECK_RC(MPI_Type_create_struct(2, bl, addr, types, &st));
    CHECK_RC(MPI_Type_create_struct(2, bl, raddr, types, &rt));
    CHECK_RC(MPI_Type_commit(&st));
    CHECK_RC(MPI_Type_commit(&rt));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    CHECK_RC(MPI_Sendrecv(MPI_BOTTOM, 1, st, right, 5, MPI_BOTTOM, 1, rt, left, 5, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
    CHECK(ra == left && rb[0] == left * 2 && rb[1] == left * 3);
    MPI_Type_free(&st);
    MPI_Type_free(&rt);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const int counts[] = {1, 7, 100, 5000, 300000};
    for (int i = 0; i < 5; i++) {
        vector_to_contig(rank, size, counts[i]);
        struct_type(rank, size, counts[i]);
        negative_lb(rank, size, counts[i]);
    }
    bottom(rank, size);
    mt_barrier(MPI_COMM_WORLD);
    mt_done("p2p_datatype");
    MPI_Finalize();
    return 0;
}
