/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Partitioned communication (MPI 4.1 chapter 4) around a ring (to itself at 1 rank): send and
 * receive partition counts equal and different (1 x 1 .. 120 x 1, 8 x 3, 5 x 6, 1 x 120), the
 * requests reused for several rounds, partitions marked ready out of order with Pready,
 * Pready_range and Pready_list, Parrived polled until every partition is in (each checked as
 * soon as it is), a strided type on the send side, a program message with the same tag and
 * MPI_ANY_TAG never matching partitioned data, MPI_PROC_NULL, and the error classes.
 */
#include "mpitest.h"

#define N      120 /* ints per message */
#define ROUNDS 3

static int rank, size;

static int value(int round, int pair, int i)
{
    return round * 100000 + pair * 1000 + i;
}

/* Marks every send partition ready, in an order that depends on the round. */
static void ready_all(MPI_Request req, int parts, int round)
{
    if (round == 0) {
        for (int i = parts - 1; i >= 0; i--)
            CHECK_RC(MPI_Pready(i, req));
    } else if (round == 1) {
        CHECK_RC(MPI_Pready_range(parts / 2, parts - 1, req));
        if (parts / 2 > 0)
            CHECK_RC(MPI_Pready_range(0, parts / 2 - 1, req));
    } else {
        int list[N];
        for (int i = 0; i < parts; i++) /* a permutation: odd ones first, then even */
            list[i] = i < (parts + 1) / 2 ? 2 * i : 2 * (i - (parts + 1) / 2) + 1;
        CHECK_RC(MPI_Pready_list(parts, list, req));
    }
}

/* Polls Parrived until every receive partition is in, checking each one when it arrives. */
static void arrive_all(MPI_Request req, const int *rbuf, int rparts, int round, int pair)
{
    int seen[N] = {0}, left = rparts, per = N / rparts;
    while (left > 0) {
        for (int j = 0; j < rparts; j++) {
            int flag = 0;
            if (seen[j])
                continue;
            CHECK_RC(MPI_Parrived(req, j, &flag));
            if (!flag)
                continue;
            for (int i = j * per; i < (j + 1) * per; i++)
                CHECK(rbuf[i] == value(round, pair, i));
            seen[j] = 1;
            left--;
        }
    }
}

static void ring_case(int sparts, int rparts, int strided)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int sbuf[2 * N], rbuf[N];
    MPI_Datatype stype = MPI_INT;
    if (strided) { /* every other int of sbuf */
        CHECK_RC(MPI_Type_vector(1, 1, 2, MPI_INT, &stype));
        MPI_Datatype t;
        CHECK_RC(MPI_Type_create_resized(stype, 0, 2 * sizeof(int), &t));
        CHECK_RC(MPI_Type_free(&stype));
        stype = t;
        CHECK_RC(MPI_Type_commit(&stype));
    }
    MPI_Request r[2];
    CHECK_RC(MPI_Precv_init(rbuf, rparts, N / rparts, MPI_INT, from, 5, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &r[0]));
    CHECK_RC(MPI_Psend_init(sbuf, sparts, N / sparts, stype, to, 5, MPI_COMM_WORLD, MPI_INFO_NULL,
                            &r[1]));
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < N; i++) {
            sbuf[strided ? 2 * i : i] = value(round, rank, i);
            if (strided)
                sbuf[2 * i + 1] = -1;
            rbuf[i] = -7;
        }
        CHECK_RC(MPI_Startall(2, r));
        ready_all(r[1], sparts, round);
        arrive_all(r[0], rbuf, rparts, round, from);
        MPI_Status st;
        int count = -1;
        CHECK_RC(MPI_Wait(&r[0], &st));
        CHECK_RC(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == N && st.MPI_SOURCE == from && st.MPI_TAG == 5);
        CHECK_RC(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++)
            CHECK(rbuf[i] == value(round, from, i));
        CHECK(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL); /* persistent */
    }
    CHECK_RC(MPI_Request_free(&r[0]));
    CHECK_RC(MPI_Request_free(&r[1]));
    if (strided)
        CHECK_RC(MPI_Type_free(&stype));
}

/* 2 MiB in 4 send and 2 receive partitions: rendezvous-sized messages. */
static void big_case(void)
{
    enum { BIG = 1 << 18 };
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    double *sbuf = malloc(BIG * sizeof(double)), *rbuf = malloc(BIG * sizeof(double));
    CHECK(sbuf && rbuf);
    MPI_Request r[2];
    CHECK_RC(MPI_Precv_init(rbuf, 2, BIG / 2, MPI_DOUBLE, from, 6, MPI_COMM_WORLD, MPI_INFO_NULL,
                            &r[0]));
    CHECK_RC(
        MPI_Psend_init(sbuf, 4, BIG / 4, MPI_DOUBLE, to, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < BIG; i++)
            sbuf[i] = value(round, rank, i), rbuf[i] = -1;
        CHECK_RC(MPI_Startall(2, r));
        for (int i = 3; i >= 0; i--)
            CHECK_RC(MPI_Pready(i, r[1]));
        CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        for (int i = 0; i < BIG; i++)
            CHECK(rbuf[i] == value(round, from, i));
    }
    CHECK_RC(MPI_Request_free(&r[0]));
    CHECK_RC(MPI_Request_free(&r[1]));
    free(sbuf);
    free(rbuf);
}

/* A program message with the partitioned tag is not taken by, and does not take, the
 * partitioned transfer; an MPI_ANY_TAG receive gets only the program's message. */
static void tag_isolation(void)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int sbuf[N], rbuf[N], user = -1, mine = 1000 + rank;
    MPI_Request r[2], ur;
    for (int i = 0; i < N; i++)
        sbuf[i] = value(9, rank, i);
    CHECK_RC(MPI_Irecv(&user, 1, MPI_INT, from, MPI_ANY_TAG, MPI_COMM_WORLD, &ur));
    CHECK_RC(
        MPI_Precv_init(rbuf, 4, N / 4, MPI_INT, from, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    CHECK_RC(MPI_Psend_init(sbuf, 2, N / 2, MPI_INT, to, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    CHECK_RC(MPI_Startall(2, r));
    CHECK_RC(MPI_Pready_range(0, 1, r[1]));
    CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK_RC(MPI_Send(&mine, 1, MPI_INT, to, 9, MPI_COMM_WORLD));
    MPI_Status st;
    CHECK_RC(MPI_Wait(&ur, &st));
    CHECK(user == 1000 + from && st.MPI_TAG == 9);
    for (int i = 0; i < N; i++)
        CHECK(rbuf[i] == value(9, from, i));
    CHECK_RC(MPI_Request_free(&r[0]));
    CHECK_RC(MPI_Request_free(&r[1]));
}

static void proc_null_and_errors(void)
{
    int buf[4];
    MPI_Request s, r;
    MPI_Status st;
    int flag = 0;
    CHECK_RC(
        MPI_Psend_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    CHECK_RC(
        MPI_Precv_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    CHECK_RC(MPI_Start(&s));
    CHECK_RC(MPI_Start(&r));
    CHECK_RC(MPI_Pready(0, s));
    CHECK_RC(MPI_Pready(1, s));
    CHECK_RC(MPI_Parrived(r, 1, &flag));
    CHECK(flag);
    CHECK_RC(MPI_Wait(&s, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Request bad;
    CHECK(MPI_Psend_init(buf, 0, 2, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &bad) ==
          MPI_ERR_ARG);
    CHECK(MPI_Psend_init(buf, 1, -1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &bad) ==
          MPI_ERR_COUNT);
    CHECK(MPI_Precv_init(buf, 1, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &bad) == MPI_ERR_RANK);
    CHECK(MPI_Precv_init(buf, 1, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &bad) ==
          MPI_ERR_TAG);
    CHECK(MPI_Pready(0, s) == MPI_ERR_REQUEST); /* inactive */
    CHECK(MPI_Pready(0, r) == MPI_ERR_REQUEST); /* a receive */
    CHECK(MPI_Parrived(s, 0, &flag) == MPI_ERR_REQUEST);
    CHECK_RC(MPI_Start(&s));
    CHECK(MPI_Pready_range(1, 0, s) == MPI_ERR_ARG);
    CHECK(MPI_Pready(2, s) == MPI_ERR_ARG);
    CHECK_RC(MPI_Pready_range(0, 1, s));
    CHECK_RC(MPI_Wait(&s, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Request_free(&s));
    CHECK_RC(MPI_Request_free(&r));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    static const int cases[][3] = {{1, 1, 0},   {4, 4, 0}, {8, 3, 0}, {5, 6, 0},  {1, 120, 0},
                                   {120, 1, 0}, {2, 8, 1}, {6, 4, 1}, {12, 10, 0}};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        ring_case(cases[i][0], cases[i][1], cases[i][2]);
    big_case();
    tag_isolation();
    proc_null_and_errors();
    MPI_Barrier(MPI_COMM_WORLD);
    mt_done("part_basic");
    MPI_Finalize();
    return 0;
}
