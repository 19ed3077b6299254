/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Comm_split / split_type and context ids (runtime/mpi/comm_api.c, comm_ctx.c): colours and keys
 * order ranks right, MPI_UNDEFINED gives MPI_COMM_NULL while taking part in the agreement,
 * SHARED splits by node, messages with one tag on dup'd communicators never cross, and many
 * create / free cycles reuse context ids without running out or colliding (more cycles than
 * there are ids). Any rank count >= 1. Prints "comm_split: ok" on rank 0.
 */
#include <string.h>
#include <unistd.h>

#include "comm_check.h"

static int rank, size;

/* colour = rank % 3 (rank 1 undefined), key = -rank: new rank order is reversed parent order. */
static void check_split(void)
{
    MPI_Comm c;
    int colour = rank == 1 ? MPI_UNDEFINED : rank % 3;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, colour, -rank, &c));
    if (colour == MPI_UNDEFINED) {
        CHECK(c == MPI_COMM_NULL);
        return;
    }
    int members = 0, above = 0;
    for (int r = 0; r < size; r++)
        if (r != 1 && r % 3 == colour) {
            members++;
            above += r > rank;
        }
    int r, s;
    CHECK_OK(MPI_Comm_rank(c, &r));
    CHECK_OK(MPI_Comm_size(c, &s));
    CHECK(s == members && r == above);
    /* the sum of world ranks of my colour, through the new communicator */
    int sum = 0, want = 0;
    for (int q = 0; q < size; q++)
        want += (q != 1 && q % 3 == colour) ? q : 0;
    CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == want);
    MPI_Group g, w;
    int wr;
    CHECK_OK(MPI_Comm_group(c, &g));
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    CHECK_OK(MPI_Group_translate_ranks(g, 1, &r, w, &wr));
    CHECK(wr == rank);
    CHECK_OK(MPI_Group_free(&g));
    CHECK_OK(MPI_Group_free(&w));
    CHECK_OK(MPI_Comm_free(&c));
}

/* Same key everywhere: ties go by parent rank. */
static void check_split_ties(void)
{
    MPI_Comm c;
    int r, s;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, 7, &c));
    CHECK_OK(MPI_Comm_rank(c, &r));
    CHECK_OK(MPI_Comm_size(c, &s));
    CHECK(r == rank && s == size);
    int cmp;
    CHECK_OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_CONGRUENT);
    CHECK_OK(MPI_Comm_free(&c));
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &c));
    CHECK(c == MPI_COMM_NULL);
}

static void check_split_type(void)
{
    MPI_Comm node, none;
    int r, s;
    /* ibexrun places every rank on this one node */
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    CHECK_OK(MPI_Comm_rank(node, &r));
    CHECK_OK(MPI_Comm_size(node, &s));
    CHECK(r == rank && s == size);
    CHECK_OK(MPI_Comm_free(&node));
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &none));
    CHECK(none == MPI_COMM_NULL);
}

/* The same (source, tag) on MPI_COMM_WORLD and two dups: each receive gets its own comm's
 * message although they are sent in the opposite order of the receives. */
static void check_isolation(void)
{
    if (size < 2)
        return;
    MPI_Comm a, b;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_OK(MPI_Comm_dup(a, &b));
    int peer = rank ^ 1;
    if (peer >= size)
        goto out;
    MPI_Request req[3];
    int got[3] = {-1, -1, -1};
    CHECK_OK(MPI_Irecv(&got[0], 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &req[0]));
    CHECK_OK(MPI_Irecv(&got[1], 1, MPI_INT, peer, 5, a, &req[1]));
    CHECK_OK(MPI_Irecv(&got[2], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, b, &req[2]));
    int v[3] = {100, 200, 300};
    CHECK_OK(MPI_Send(&v[2], 1, MPI_INT, peer, 5, b));
    CHECK_OK(MPI_Send(&v[1], 1, MPI_INT, peer, 5, a));
    CHECK_OK(MPI_Send(&v[0], 1, MPI_INT, peer, 5, MPI_COMM_WORLD));
    MPI_Status st[3];
    CHECK_OK(MPI_Waitall(3, req, st));
    CHECK(got[0] == 100 && got[1] == 200 && got[2] == 300);
out:
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Comm_free(&b));
    CHECK_OK(MPI_Comm_free(&a));
}

/* 5000 cycles (more than the 4094 free id pairs) of split / dup / free with a message on each
 * new communicator; a leaked or doubly used id fails or cross-delivers. Several stay alive. */
static void check_cycles(void)
{
    enum { CYCLES = 5000, KEEP = 4 };
    MPI_Comm keep[KEEP];
    for (int i = 0; i < KEEP; i++)
        CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &keep[i]));
    for (int i = 0; i < CYCLES; i++) {
        MPI_Comm c, d;
        CHECK_OK(MPI_Comm_split(keep[i % KEEP], rank % 2, rank, &c));
        CHECK_OK(MPI_Comm_dup(c, &d));
        int s, v = i, sum = 0;
        CHECK_OK(MPI_Comm_size(d, &s));
        if (i % 500 == 0) {
            CHECK_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, d));
            CHECK(sum == i * s);
        }
        CHECK_OK(MPI_Comm_free(&c));
        CHECK_OK(MPI_Comm_free(&d));
    }
    for (int i = 0; i < KEEP; i++) {
        int sum = 0;
        CHECK_OK(MPI_Allreduce(&i, &sum, 1, MPI_INT, MPI_SUM, keep[i]));
        CHECK(sum == i * size);
        CHECK_OK(MPI_Comm_free(&keep[i]));
    }
}

int main(int argc, char **argv)
{
    alarm(120);
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    check_split();
    check_split_ties();
    check_split_type();
    check_isolation();
    check_cycles();
    CHECK_OK(MPI_Finalize());
    if (rank == 0)
        printf("comm_split: ok\n");
    return 0;
}
