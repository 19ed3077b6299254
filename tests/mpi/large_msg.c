/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Messages past 2 GiB end to end (MPI 4.0 large counts): rank 0 sends, rank 1 receives, with
 * the size in MiB as the first argument (default 2560). Each case fills the send buffer with a
 * pattern of 64-bit words computed from their index, checks every word received against the
 * same formula, and the counts the status gives against the size:
 *   contig:  MPI_Send_c / MPI_Recv_c of MPI_BYTE with a count past INT_MAX;
 *   strided: a vector of 1 MiB blocks 1 MiB + 4 KiB apart (int counts, one element past
 *            2 GiB) sent with MPI_Send count 1, received contiguous with MPI_Recv_c;
 *   scatter: contiguous bytes sent with MPI_Isend_c into that vector with MPI_Irecv (count 1);
 *   chunks:  MPI_Send_c count 4 of a contiguous type of a quarter of the size (element counts
 *            past an int in MPI_Get_elements_x), MPI_Sendrecv_c back.
 *   calls:   every point-to-point _c call with small counts (a ring of 1000 ints each way,
 *            values checked), and a negative count MPI_ERR_COUNT (no memory needed: make check).
 * The second argument, when given, runs only the case of that name. Standard MPI only.
 */
#include <limits.h>

#include "mpitest.h"

#define MIB ((MPI_Count)1 << 20)
#define GAP ((MPI_Count)4096)

static uint64_t word(uint64_t seed, uint64_t i)
{
    uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ull ^ (i * 0xBF58476D1CE4E5B9ull);
    return x ^ (x >> 31);
}

/* Fills (or checks) the bytes of the data of n blocks of blk bytes, stride bytes apart. */
static void fill(char *buf, MPI_Count n, MPI_Count blk, MPI_Count stride, uint64_t seed)
{
    for (MPI_Count b = 0; b < n; b++) {
        uint64_t *w = (uint64_t *)(buf + b * stride);
        for (MPI_Count i = 0; i < blk / 8; i++)
            w[i] = word(seed, (uint64_t)(b * blk / 8 + i));
    }
}

static MPI_Count bad_word(const char *buf, MPI_Count n, MPI_Count blk, MPI_Count stride,
                          uint64_t seed)
{
    for (MPI_Count b = 0; b < n; b++) {
        const uint64_t *w = (const uint64_t *)(buf + b * stride);
        for (MPI_Count i = 0; i < blk / 8; i++)
            if (w[i] != word(seed, (uint64_t)(b * blk / 8 + i)))
                return b * blk / 8 + i;
    }
    return -1;
}

static char *alloc(MPI_Count bytes)
{
    char *p = malloc((size_t)bytes);
    CHECK(p != NULL);
    return p;
}

/* The status of a receive of `bytes` bytes, asked in bytes and in `dt` (whose size is dtsize). */
static void check_status(const MPI_Status *st, MPI_Count bytes, MPI_Datatype dt, MPI_Count dtsize)
{
    MPI_Count c = -1, e = -1;
    int ci = 0;
    CHECK_RC(MPI_Get_count_c(st, MPI_BYTE, &c));
    CHECK(c == bytes);
    CHECK_RC(MPI_Get_elements_x(st, MPI_BYTE, &e));
    CHECK(e == bytes);
    CHECK_RC(MPI_Get_count(st, MPI_BYTE, &ci));
    CHECK(ci == (bytes > INT_MAX ? MPI_UNDEFINED : (int)bytes));
    CHECK_RC(MPI_Get_count_c(st, dt, &c));
    CHECK(c == bytes / dtsize);
    CHECK_RC(MPI_Get_elements_c(st, dt, &e));
    CHECK(e == bytes); /* every type here is made of MPI_BYTE */
}

static void case_contig(int rank, MPI_Count bytes)
{
    char *buf = alloc(bytes);
    MPI_Status st;
    CHECK(bytes > INT_MAX);
    if (rank == 0) {
        fill(buf, 1, bytes, bytes, 1);
        CHECK_RC(MPI_Send_c(buf, bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD));
    } else {
        memset(buf, 0, (size_t)bytes);
        CHECK_RC(MPI_Recv_c(buf, bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 7);
        check_status(&st, bytes, MPI_BYTE, 1);
        CHECK(bad_word(buf, 1, bytes, bytes, 1) == -1);
    }
    free(buf);
}

/* The strided type: bytes / 1 MiB blocks of 1 MiB, GAP bytes between them. */
static MPI_Datatype strided(MPI_Count bytes)
{
    MPI_Datatype t;
    MPI_Count size = 0, lb = 0, extent = 0;
    int size_i = 0;
    CHECK_RC(MPI_Type_vector((int)(bytes / MIB), (int)MIB, (int)(MIB + GAP), MPI_BYTE, &t));
    CHECK_RC(MPI_Type_commit(&t));
    CHECK_RC(MPI_Type_size_c(t, &size));
    CHECK(size == bytes);
    CHECK_RC(MPI_Type_size(t, &size_i));
    CHECK(size_i == (bytes > INT_MAX ? MPI_UNDEFINED : (int)bytes));
    CHECK_RC(MPI_Type_get_extent_c(t, &lb, &extent));
    CHECK(lb == 0 && extent == (bytes / MIB - 1) * (MIB + GAP) + MIB);
    CHECK_RC(MPI_Type_size_x(t, &size));
    CHECK(size == bytes);
    return t;
}

static void case_strided(int rank, MPI_Count bytes)
{
    MPI_Datatype t = strided(bytes);
    MPI_Count n = bytes / MIB;
    MPI_Status st;
    if (rank == 0) {
        char *buf = alloc(n * (MIB + GAP));
        fill(buf, n, MIB, MIB + GAP, 2);
        CHECK_RC(MPI_Send(buf, 1, t, 1, 8, MPI_COMM_WORLD));
        free(buf);
    } else {
        char *buf = alloc(bytes);
        memset(buf, 0, (size_t)bytes);
        CHECK_RC(MPI_Recv_c(buf, bytes, MPI_BYTE, 0, 8, MPI_COMM_WORLD, &st));
        check_status(&st, bytes, t, bytes);
        CHECK(bad_word(buf, 1, bytes, bytes, 2) == -1);
        free(buf);
    }
    CHECK_RC(MPI_Type_free(&t));
}

static void case_scatter(int rank, MPI_Count bytes)
{
    MPI_Datatype t = strided(bytes);
    MPI_Count n = bytes / MIB;
    MPI_Request r;
    MPI_Status st;
    if (rank == 0) {
        char *buf = alloc(bytes);
        fill(buf, 1, bytes, bytes, 3);
        CHECK_RC(MPI_Isend_c(buf, bytes, MPI_BYTE, 1, 9, MPI_COMM_WORLD, &r));
        CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
        free(buf);
    } else {
        char *buf = alloc(n * (MIB + GAP));
        memset(buf, 0, (size_t)(n * (MIB + GAP)));
        CHECK_RC(MPI_Irecv(buf, 1, t, 0, 9, MPI_COMM_WORLD, &r));
        CHECK_RC(MPI_Wait(&r, &st));
        check_status(&st, bytes, t, bytes);
        CHECK(bad_word(buf, n, MIB, MIB + GAP, 3) == -1);
        for (MPI_Count b = 0; b + 1 < n; b++) /* the gaps are untouched */
            for (MPI_Count i = 0; i < GAP; i++)
                CHECK(buf[b * (MIB + GAP) + MIB + i] == 0);
        free(buf);
    }
    CHECK_RC(MPI_Type_free(&t));
}

static void case_chunks(int rank, MPI_Count bytes)
{
    MPI_Count q = bytes / 4 / 8 * 8;
    MPI_Datatype t;
    MPI_Status st;
    CHECK_RC(MPI_Type_contiguous((int)q, MPI_BYTE, &t));
    CHECK_RC(MPI_Type_commit(&t));
    char *buf = alloc(4 * q);
    if (rank == 0) {
        fill(buf, 1, 4 * q, 4 * q, 4);
        CHECK_RC(MPI_Send_c(buf, 4, t, 1, 10, MPI_COMM_WORLD));
        memset(buf, 0, (size_t)(4 * q));
        CHECK_RC(MPI_Sendrecv_c(MPI_BOTTOM, 0, MPI_BYTE, 1, 11, buf, 4 * q, MPI_BYTE, 1, 12,
                                MPI_COMM_WORLD, &st));
        check_status(&st, 4 * q, t, q);
        CHECK(bad_word(buf, 1, 4 * q, 4 * q, 4) == -1);
    } else {
        memset(buf, 0, (size_t)(4 * q));
        CHECK_RC(MPI_Recv_c(buf, 4, t, 0, 10, MPI_COMM_WORLD, &st));
        check_status(&st, 4 * q, t, q);
        CHECK(bad_word(buf, 1, 4 * q, 4 * q, 4) == -1);
        CHECK_RC(
            MPI_Sendrecv_c(buf, 4, t, 0, 12, MPI_BOTTOM, 0, MPI_BYTE, 0, 11, MPI_COMM_WORLD, &st));
    }
    CHECK_RC(MPI_Type_free(&t));
    free(buf);
}

#define N 1000

static void ints(int *v, int n, int base)
{
    for (int i = 0; i < n; i++)
        v[i] = base + i;
}

static void check_ints(const int *v, int n, int base, const MPI_Status *st)
{
    MPI_Count c = -1;
    for (int i = 0; i < n; i++)
        CHECK(v[i] == base + i);
    if (st) {
        CHECK_RC(MPI_Get_count_c(st, MPI_INT, &c));
        CHECK(c == n);
    }
}

/* Blocking sends of every mode and the receives; rank 0 sends, rank 1 receives. */
static void calls_blocking(int rank, int *buf)
{
    MPI_Status st;
    MPI_Message m;
    for (int k = 0; k < 5; k++) {
        if (rank == 0) {
            ints(buf, N, k * 10000);
            if (k == 0)
                CHECK_RC(MPI_Send_c(buf, N, MPI_INT, 1, k, MPI_COMM_WORLD));
            if (k == 1)
                CHECK_RC(MPI_Ssend_c(buf, N, MPI_INT, 1, k, MPI_COMM_WORLD));
            if (k == 2)
                CHECK_RC(MPI_Bsend_c(buf, N, MPI_INT, 1, k, MPI_COMM_WORLD));
            if (k == 3) {
                MPI_Barrier(MPI_COMM_WORLD); /* the receive is posted */
                CHECK_RC(MPI_Rsend_c(buf, N, MPI_INT, 1, k, MPI_COMM_WORLD));
            }
            if (k == 4)
                CHECK_RC(MPI_Send_c(buf, N, MPI_INT, 1, k, MPI_COMM_WORLD));
        } else {
            memset(buf, 0, N * sizeof(int));
            if (k == 3) {
                MPI_Request r;
                CHECK_RC(MPI_Irecv_c(buf, N, MPI_INT, 0, k, MPI_COMM_WORLD, &r));
                MPI_Barrier(MPI_COMM_WORLD);
                CHECK_RC(MPI_Wait(&r, &st));
            } else if (k == 4) {
                CHECK_RC(MPI_Mprobe(0, k, MPI_COMM_WORLD, &m, &st));
                CHECK_RC(MPI_Mrecv_c(buf, N, MPI_INT, &m, &st));
            } else {
                CHECK_RC(MPI_Recv_c(buf, N, MPI_INT, 0, k, MPI_COMM_WORLD, &st));
            }
            check_ints(buf, N, k * 10000, &st);
        }
    }
}

/* Non-blocking, persistent and the combined calls. */
static void calls_nonblocking(int rank, int *buf)
{
    MPI_Request r[4];
    MPI_Status st;
    MPI_Message m;
    int flag = 0, peer = 1 - rank;
    int *two = malloc(2 * N * sizeof(int));
    CHECK(two != NULL);
    if (rank == 0) {
        ints(two, N, 1);
        ints(two + N, N, 2);
        CHECK_RC(MPI_Isend_c(two, N, MPI_INT, 1, 20, MPI_COMM_WORLD, &r[0]));
        CHECK_RC(MPI_Issend_c(two + N, N, MPI_INT, 1, 21, MPI_COMM_WORLD, &r[1]));
        CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        ints(buf, N, 3);
        CHECK_RC(MPI_Ibsend_c(buf, 0, MPI_INT, 1, 22, MPI_COMM_WORLD, &r[0]));
        CHECK_RC(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Send_init_c(buf, N, MPI_INT, 1, 23, MPI_COMM_WORLD, &r[0]));
        CHECK_RC(MPI_Ssend_init_c(buf, N, MPI_INT, 1, 24, MPI_COMM_WORLD, &r[1]));
        CHECK_RC(MPI_Startall(2, r));
        CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK_RC(MPI_Request_free(&r[0]));
        CHECK_RC(MPI_Request_free(&r[1]));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Irsend_c(buf, N, MPI_INT, 1, 25, MPI_COMM_WORLD, &r[0]));
        CHECK_RC(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Rsend_init_c(buf, N, MPI_INT, 1, 26, MPI_COMM_WORLD, &r[0]));
        CHECK_RC(MPI_Bsend_init_c(buf, 0, MPI_INT, 1, 27, MPI_COMM_WORLD, &r[1]));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Startall(2, r));
        CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK_RC(MPI_Request_free(&r[0]));
        CHECK_RC(MPI_Request_free(&r[1]));
    } else {
        CHECK_RC(MPI_Irecv_c(two + N, N, MPI_INT, 0, 21, MPI_COMM_WORLD, &r[1]));
        CHECK_RC(MPI_Recv_init_c(two, N, MPI_INT, 0, 20, MPI_COMM_WORLD, &r[0]));
        CHECK_RC(MPI_Start(&r[0]));
        CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK_RC(MPI_Request_free(&r[0]));
        check_ints(two, N, 1, NULL);
        check_ints(two + N, N, 2, NULL);
        do
            CHECK_RC(MPI_Improbe(0, 22, MPI_COMM_WORLD, &flag, &m, &st));
        while (!flag);
        CHECK_RC(MPI_Imrecv_c(buf, 0, MPI_INT, &m, &r[0]));
        CHECK_RC(MPI_Wait(&r[0], &st));
        for (int t = 23; t <= 24; t++) {
            memset(buf, 0, N * sizeof(int));
            CHECK_RC(MPI_Recv_c(buf, N, MPI_INT, 0, t, MPI_COMM_WORLD, &st));
            check_ints(buf, N, 3, &st);
        }
        CHECK_RC(MPI_Irecv_c(buf, N, MPI_INT, 0, 25, MPI_COMM_WORLD, &r[0]));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Wait(&r[0], &st));
        check_ints(buf, N, 3, &st);
        CHECK_RC(MPI_Irecv_c(buf, N, MPI_INT, 0, 26, MPI_COMM_WORLD, &r[0]));
        CHECK_RC(MPI_Irecv_c(two, N, MPI_INT, 0, 27, MPI_COMM_WORLD, &r[1]));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        check_ints(buf, N, 3, NULL);
    }
    /* the combined calls, both ways at once */
    MPI_Status st2;
    ints(buf, N, 100 + rank);
    CHECK_RC(
        MPI_Sendrecv_c(buf, N, MPI_INT, peer, 30, two, N, MPI_INT, peer, 30, MPI_COMM_WORLD, &st2));
    check_ints(two, N, 100 + peer, &st2);
    CHECK_RC(MPI_Sendrecv_replace_c(buf, N, MPI_INT, peer, 31, peer, 31, MPI_COMM_WORLD, &st2));
    check_ints(buf, N, 100 + peer, &st2);
    CHECK_RC(MPI_Isendrecv_c(buf, N, MPI_INT, peer, 32, two, N, MPI_INT, peer, 32, MPI_COMM_WORLD,
                             &r[0]));
    CHECK_RC(MPI_Wait(&r[0], &st2));
    check_ints(two, N, 100 + rank, &st2);
    CHECK_RC(MPI_Isendrecv_replace_c(buf, N, MPI_INT, peer, 33, peer, 33, MPI_COMM_WORLD, &r[0]));
    CHECK_RC(MPI_Wait(&r[0], &st2));
    check_ints(buf, N, 100 + rank, &st2);
    free(two);
}

/* Wrong arguments: the classes of the int calls. */
static void calls_errors(int *buf)
{
    MPI_Request r;
    int cls = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Send_c(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COUNT);
    rc = MPI_Irecv_c(buf, -5, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COUNT);
    rc = MPI_Recv_c(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE);
    rc = MPI_Isend_c(buf, 1, MPI_INT, 0, -3, MPI_COMM_WORLD, &r);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TAG);
    rc = MPI_Send_c(NULL, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER);
    rc = MPI_Isendrecv_c(buf, 1, MPI_INT, 0, 0, buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void case_calls(int rank, MPI_Count bytes)
{
    (void)bytes;
    int *buf = malloc(N * sizeof(int));
    CHECK(buf != NULL);
    int att = 0, room = 4 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    void *bb = malloc((size_t)room), *ba;
    CHECK_RC(MPI_Buffer_attach(bb, room));
    calls_blocking(rank, buf);
    calls_nonblocking(rank, buf);
    CHECK_RC(MPI_Buffer_detach(&ba, &att));
    CHECK(ba == bb && att == room);
    free(bb);
    /* a Bsend buffer past INT_MAX bytes (never touched but for what the Bsend uses):
     * Buffer_detach_c gives its size, the int Buffer_detach MPI_UNDEFINED */
    MPI_Count big = (MPI_Count)INT_MAX + 1 + 4096, got = 0;
    bb = malloc((size_t)big);
    CHECK(bb != NULL);
    for (int i = 0; i < 2; i++) {
        CHECK_RC(MPI_Buffer_attach_c(bb, big));
        ints(buf, 8, 40 + i);
        CHECK_RC(MPI_Bsend_c(buf, 8, MPI_INT, 0, 5, MPI_COMM_SELF));
        memset(buf, 0, 8 * sizeof(int));
        MPI_Status st;
        CHECK_RC(MPI_Recv_c(buf, 8, MPI_INT, 0, 5, MPI_COMM_SELF, &st));
        check_ints(buf, 8, 40 + i, &st);
        if (i == 0) {
            CHECK_RC(MPI_Buffer_detach_c(&ba, &got));
            CHECK(ba == bb && got == big);
        } else {
            CHECK_RC(MPI_Buffer_detach(&ba, &att));
            CHECK(ba == bb && att == MPI_UNDEFINED);
        }
    }
    CHECK_RC(MPI_Comm_attach_buffer_c(MPI_COMM_SELF, bb, big));
    CHECK_RC(MPI_Comm_detach_buffer_c(MPI_COMM_SELF, &ba, &got));
    CHECK(ba == bb && got == big);
    free(bb);
    calls_errors(buf);
    free(buf);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2);
    MPI_Count bytes = (argc > 1 ? atoll(argv[1]) : 2560) * MIB;
    const char *only = argc > 2 ? argv[2] : NULL;
    static const struct {
        const char *name;
        void (*run)(int, MPI_Count);
    } cases[] = {{"calls", case_calls},
                 {"contig", case_contig},
                 {"strided", case_strided},
                 {"scatter", case_scatter},
                 {"chunks", case_chunks}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (only && strcmp(only, cases[i].name) != 0)
            continue;
        double t0 = MPI_Wtime();
        cases[i].run(rank, bytes);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            printf("large_msg: %s %lld MiB in %.1f s\n", cases[i].name, (long long)(bytes / MIB),
                   MPI_Wtime() - t0);
    }
    mt_done("large_msg");
    MPI_Finalize();
    return 0;
}
