/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The special cases: MPI_PROC_NULL, zero-byte and self messages, Sendrecv(_replace), the
 * synchronous-send rule (Ssend completes only once matched), ready and buffered sends, and
 * cancelling receives (unmatched: cancelled; matched: not), and the blocking receive, which has
 * no pool request (runtime/engine/README.md): posted before the message, eager and rendezvous
 * (whose request moves into the pool), wildcards, truncation, derived types, order, status.
 */
#include <unistd.h>

#include "mpitest.h"

static void proc_null(void)
{
    MPI_Status st;
    int v = 5, count = -1;
    MPI_Request r;
    CHECK_RC(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    CHECK_RC(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0);
    CHECK(v == 5);
    CHECK_RC(MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    CHECK_RC(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && r == MPI_REQUEST_NULL);
}

static void self_and_zero(int rank)
{
    int out[4] = {rank, 1, 2, 3}, in[4] = {0};
    MPI_Request r;
    MPI_Status st;
    int count;
    CHECK_RC(MPI_Isend(out, 4, MPI_INT, rank, 11, MPI_COMM_WORLD, &r));
    CHECK_RC(MPI_Recv(in, 4, MPI_INT, rank, 11, MPI_COMM_WORLD, &st));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(memcmp(in, out, sizeof(in)) == 0 && st.MPI_SOURCE == rank);
    /* zero bytes, to self and to a neighbour */
    CHECK_RC(MPI_Sendrecv(NULL, 0, MPI_INT, 0, 12, NULL, 0, MPI_INT, 0, 12, MPI_COMM_SELF, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 0 && st.MPI_SOURCE == 0 && st.MPI_TAG == 12);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    CHECK_RC(
        MPI_Sendrecv(out, 0, MPI_INT, right, 13, in, 4, MPI_INT, left, 13, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 0 && st.MPI_SOURCE == left);
    /* a ring shift with Sendrecv_replace, large enough for rendezvous */
    int n = 1 << 18;
    int *buf = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        buf[i] = rank * n + i;
    CHECK_RC(MPI_Sendrecv_replace(buf, n, MPI_INT, right, 14, left, 14, MPI_COMM_WORLD, &st));
    for (int i = 0; i < n; i += 997)
        CHECK(buf[i] == left * n + i);
    free(buf);
}

/* Issend must not complete before the receiver posts its receive. */
static void ssend_rule(int rank)
{
    for (int big = 0; big < 2; big++) {
        int n = big ? (1 << 20) : 1;
        int *v = calloc((size_t)n, sizeof(int)), go = 1, flag = 1;
        if (rank == 0) {
            MPI_Request r;
            CHECK_RC(MPI_Issend(v, n, MPI_INT, 1, 20, MPI_COMM_WORLD, &r));
            for (int i = 0; i < 50; i++) {
                CHECK_RC(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
                CHECK(!flag);
                usleep(1000);
            }
            CHECK_RC(MPI_Send(&go, 1, MPI_INT, 1, 21, MPI_COMM_WORLD));
            CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
            CHECK_RC(MPI_Ssend(v, n, MPI_INT, 1, 22, MPI_COMM_WORLD));
        } else if (rank == 1) {
            CHECK_RC(MPI_Recv(&go, 1, MPI_INT, 0, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_RC(MPI_Recv(v, n, MPI_INT, 0, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_RC(MPI_Recv(v, n, MPI_INT, 0, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        free(v);
    }
}

static void ready_and_buffered(int rank)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 1) {
        int v[100];
        MPI_Request r;
        CHECK_RC(MPI_Irecv(v, 100, MPI_INT, 0, 30, MPI_COMM_WORLD, &r));
        mt_barrier(MPI_COMM_WORLD); /* the receive is posted before the ready send */
        CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(v[99] == 99);
        for (int k = 0; k < 3; k++) {
            CHECK_RC(MPI_Recv(v, 100, MPI_INT, 0, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v[0] == k && v[99] == 99);
        }
    } else if (rank == 0) {
        int v[100];
        for (int i = 0; i < 100; i++)
            v[i] = i;
        mt_barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Rsend(v, 100, MPI_INT, 1, 30, MPI_COMM_WORLD));
        int bsize = 3 * (100 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
        char *buffer = malloc((size_t)bsize);
        CHECK_RC(MPI_Buffer_attach(buffer, bsize));
        MPI_Request r;
        v[0] = 0;
        CHECK_RC(MPI_Bsend(v, 100, MPI_INT, 1, 31, MPI_COMM_WORLD));
        v[0] = 1; /* the buffered copy is independent of v */
        CHECK_RC(MPI_Ibsend(v, 100, MPI_INT, 1, 31, MPI_COMM_WORLD, &r));
        CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
        v[0] = 2;
        CHECK_RC(MPI_Bsend(v, 100, MPI_INT, 1, 31, MPI_COMM_WORLD));
        void *addr;
        int dsize;
        CHECK_RC(MPI_Buffer_detach(&addr, &dsize));
        CHECK(addr == buffer && dsize <= bsize && dsize > 0);
        free(buffer);
    } else {
        mt_barrier(MPI_COMM_WORLD);
    }
}

static void cancel(int rank)
{
    int v = 0, flag = -1;
    MPI_Request r;
    MPI_Status st;
    CHECK_RC(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 60, MPI_COMM_WORLD, &r));
    CHECK_RC(MPI_Cancel(&r));
    CHECK_RC(MPI_Wait(&r, &st));
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1);
    /* a matched receive cannot be cancelled */
    if (rank == 0) {
        int x = 0;
        CHECK_RC(MPI_Irecv(&x, 1, MPI_INT, 1, 61, MPI_COMM_WORLD, &r));
        mt_barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Recv(&v, 1, MPI_INT, 1, 62, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        /* tag 62 came after tag 61 from rank 1, so 61 has been matched by now */
        CHECK_RC(MPI_Cancel(&r));
        CHECK_RC(MPI_Wait(&r, &st));
        CHECK_RC(MPI_Test_cancelled(&st, &flag));
        CHECK(flag == 0 && x == 61);
    } else if (rank == 1) {
        int x = 61, y = 62;
        mt_barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Send(&x, 1, MPI_INT, 0, 61, MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(&y, 1, MPI_INT, 0, 62, MPI_COMM_WORLD));
    } else {
        mt_barrier(MPI_COMM_WORLD);
    }
}

/* An MPI_Isend the transport takes at once has a request born complete: Test, get_status,
 * Cancel (no effect on a completed send) and the status of a send behave as for any other. */
static void isend_now(int rank)
{
    if (rank > 1)
        return;
    int peer = 1 - rank, out[2] = {rank, 7}, in[2] = {-1, -1}, flag = 0;
    MPI_Request r, rr;
    MPI_Status st;
    /* the receive first: a rendezvous send (IBEX_EAGER_LIMIT=0) completes only once matched */
    CHECK_RC(MPI_Irecv(in, 2, MPI_INT, peer, 90, MPI_COMM_WORLD, &rr));
    CHECK_RC(MPI_Isend(out, 2, MPI_INT, peer, 90, MPI_COMM_WORLD, &r));
    CHECK(r != MPI_REQUEST_NULL);
    while (!flag)
        CHECK_RC(MPI_Request_get_status(r, &flag, &st));
    CHECK_RC(MPI_Cancel(&r));
    CHECK_RC(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL);
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0);
    CHECK_RC(MPI_Wait(&rr, MPI_STATUS_IGNORE));
    CHECK(in[0] == peer && in[1] == 7);
    /* many at once, in order, then the same tag blocking */
    MPI_Request rs[64];
    int v[64], w[64];
    for (int i = 0; i < 64; i++) {
        v[i] = i;
        CHECK_RC(MPI_Isend(&v[i], 1, MPI_INT, peer, 91, MPI_COMM_WORLD, &rs[i]));
    }
    for (int i = 0; i < 64; i++)
        CHECK_RC(MPI_Recv(&w[i], 1, MPI_INT, peer, 91, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Waitall(64, rs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 64; i++)
        CHECK(w[i] == i);
}

/* Rank 1's blocking receives are posted before rank 0 sends (rank 0 waits for a token and a
 * pause first): the expected case, the one without a pool request. */
static void recv_local_one(int rank, size_t n, size_t cap, int src, int tag, unsigned seed)
{
    int token = 0;
    if (rank == 0) {
        unsigned char *b = malloc(n ? n : 1);
        mt_fill(b, n, seed);
        CHECK_RC(MPI_Recv(&token, 1, MPI_INT, 1, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        usleep(2000);
        CHECK_RC(MPI_Send(b, (int)n, MPI_BYTE, 1, 71 + (int)(seed % 4), MPI_COMM_WORLD));
        free(b);
        return;
    }
    unsigned char *b = calloc(1, cap ? cap : 1);
    MPI_Status st = {.MPI_ERROR = 12345};
    int count = -1;
    CHECK_RC(MPI_Send(&token, 1, MPI_INT, 0, 70, MPI_COMM_WORLD));
    int rc = MPI_Recv(b, (int)cap, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(n > cap ? cls == MPI_ERR_TRUNCATE : rc == MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 71 + (int)(seed % 4) && st.MPI_ERROR == 12345);
    MPI_Get_count(&st, MPI_BYTE, &count);
    /* truncated: MPI leaves the count and the buffer unspecified (Ibex: the part that fits) */
    CHECK(n > cap || (count == (int)n && mt_verify(b, n, seed) == (size_t)-1));
    free(b);
}

static void recv_local(int rank)
{
    static const size_t sizes[] = {8, 4096, 65536, 1 << 20};
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 0; rank < 2 && i < 4; i++) {
        size_t n = sizes[i];
        recv_local_one(rank, n, n, 0, 71 + i, (unsigned)i);                       /* exact */
        recv_local_one(rank, n, 2 * n, MPI_ANY_SOURCE, MPI_ANY_TAG, (unsigned)i); /* wildcards */
        recv_local_one(rank, n, n / 2, 0, MPI_ANY_TAG, (unsigned)i);              /* truncated */
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    /* a derived type, freed while nothing refers to it any more; and order across protocols */
    if (rank < 2) {
        enum { N = 1 << 17 };
        int *v = calloc(2 * N, sizeof(int));
        MPI_Datatype t;
        MPI_Type_vector(N, 1, 2, MPI_INT, &t);
        MPI_Type_commit(&t);
        if (rank == 0) {
            for (int i = 0; i < 2 * N; i++)
                v[i] = i;
            usleep(2000);
            CHECK_RC(MPI_Send(v, 1, t, 1, 80, MPI_COMM_WORLD));
            for (int k = 0; k < 3; k++) /* eager, rendezvous, eager: received in this order */
                CHECK_RC(MPI_Send(v, k == 1 ? N : 1, MPI_INT, 1, 81, MPI_COMM_WORLD));
        } else {
            CHECK_RC(MPI_Recv(v, 1, t, 0, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < 2 * N; i++)
                CHECK(v[i] == (i % 2 ? 0 : i));
            for (int k = 0; k < 3; k++) {
                MPI_Status st;
                int count;
                CHECK_RC(MPI_Recv(v, N, MPI_INT, 0, 81, MPI_COMM_WORLD, &st));
                MPI_Get_count(&st, MPI_INT, &count);
                CHECK(count == (k == 1 ? N : 1));
            }
        }
        MPI_Type_free(&t);
        free(v);
    }
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    proc_null();
    self_and_zero(rank);
    ssend_rule(rank);
    ready_and_buffered(rank);
    cancel(rank);
    recv_local(rank);
    isend_now(rank);
    mt_barrier(MPI_COMM_WORLD);
    mt_done("p2p_special");
    MPI_Finalize();
    return 0;
}
