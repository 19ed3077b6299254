/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Isendrecv and MPI_Isendrecv_replace: a ring at sizes across the eager / rendezvous
 * boundary (to 1 MiB), data and status checked, several in flight at once, MPI_PROC_NULL on
 * either side, and the replace form's buffer receiving while its send is in flight.
 */
#include "mpitest.h"

static const int sizes[] = {0, 1, 7, 1024, 65535, 65536 + 8, 300000, 1 << 20};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s];
        unsigned char *out = malloc((size_t)n + 1), *in = malloc((size_t)n + 1);
        mt_fill(out, (size_t)n, (unsigned)(rank * 1000 + s));
        memset(in, 0xEE, (size_t)n + 1);
        MPI_Request req;
        MPI_Status st;
        CHECK_RC(MPI_Isendrecv(out, n, MPI_BYTE, right, 5 + s, in, n + 1, MPI_BYTE, left, 5 + s,
                               MPI_COMM_WORLD, &req));
        CHECK(req != MPI_REQUEST_NULL);
        CHECK_RC(MPI_Wait(&req, &st));
        CHECK(req == MPI_REQUEST_NULL);
        int count;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 5 + s && count == n);
        CHECK(mt_verify(in, (size_t)n, (unsigned)(left * 1000 + s)) == (size_t)-1);
        CHECK(in[n] == 0xEE);

        /* replace: the buffer is sent and received into; ANY_SOURCE, polled with Test */
        mt_fill(in, (size_t)n, (unsigned)(rank * 7 + s));
        CHECK_RC(MPI_Isendrecv_replace(in, n, MPI_BYTE, right, 99, MPI_ANY_SOURCE, 99,
                                       MPI_COMM_WORLD, &req));
        int flag = 0;
        while (!flag)
            CHECK_RC(MPI_Test(&req, &flag, &st));
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 99 && count == n);
        CHECK(mt_verify(in, (size_t)n, (unsigned)(left * 7 + s)) == (size_t)-1);
        free(out);
        free(in);
    }

    /* Several in flight, both directions, with ints; completed with Waitall. */
    enum { K = 4, N = 40000 }; /* 160 KB each: rendezvous */
    int *sbuf[K], *rbuf[K], *rep[K];
    MPI_Request reqs[3 * K];
    MPI_Status sts[3 * K];
    for (int k = 0; k < K; k++) {
        sbuf[k] = malloc(N * sizeof(int));
        rbuf[k] = malloc(N * sizeof(int));
        rep[k] = malloc(N * sizeof(int));
        for (int i = 0; i < N; i++) {
            sbuf[k][i] = rank * 1000003 + k * 7919 + i;
            rep[k][i] = -(rank * 1000003 + k * 7919 + i);
        }
        CHECK_RC(MPI_Isendrecv(sbuf[k], N, MPI_INT, right, k, rbuf[k], N, MPI_INT, left, k,
                               MPI_COMM_WORLD, &reqs[2 * k]));
        CHECK_RC(MPI_Isendrecv_replace(rep[k], N, MPI_INT, left, 100 + k, right, 100 + k,
                                       MPI_COMM_WORLD, &reqs[2 * k + 1]));
    }
    for (int k = 0; k < K; k++) /* PROC_NULL on both sides: completes at once, empty status */
        CHECK_RC(MPI_Isendrecv(sbuf[k], N, MPI_INT, MPI_PROC_NULL, 0, rbuf[k], 0, MPI_INT,
                               MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[2 * K + k]));
    CHECK_RC(MPI_Waitall(3 * K, reqs, sts));
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < N; i++) {
            CHECK(rbuf[k][i] == left * 1000003 + k * 7919 + i);
            CHECK(rep[k][i] == -(right * 1000003 + k * 7919 + i));
        }
        CHECK(sts[2 * k].MPI_SOURCE == left && sts[2 * k + 1].MPI_SOURCE == right);
        int count;
        MPI_Get_count(&sts[2 * K + k], MPI_INT, &count);
        CHECK(sts[2 * K + k].MPI_SOURCE == MPI_PROC_NULL && sts[2 * K + k].MPI_TAG == MPI_ANY_TAG &&
              count == 0);
    }

    /* PROC_NULL on one side only. */
    int one = rank, got = -1;
    MPI_Request req;
    MPI_Status st;
    int to = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, from = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    CHECK_RC(
        MPI_Isendrecv(&one, 1, MPI_INT, to, 3, &got, 1, MPI_INT, from, 3, MPI_COMM_WORLD, &req));
    CHECK_RC(MPI_Wait(&req, &st));
    if (from == MPI_PROC_NULL)
        CHECK(got == -1 && st.MPI_SOURCE == MPI_PROC_NULL);
    else
        CHECK(got == from && st.MPI_SOURCE == from);
    got = rank;
    CHECK_RC(MPI_Isendrecv_replace(&got, 1, MPI_INT, from, 4, to, 4, MPI_COMM_WORLD, &req));
    CHECK_RC(MPI_Wait(&req, &st));
    CHECK(got == (to == MPI_PROC_NULL ? rank : to));

    /* Freed while in flight (rendezvous both ways): the request finishes on its own; the ring
     * that follows on the same tag is matched after it (non-overtaking) and MPI_Finalize waits. */
    CHECK_RC(MPI_Isendrecv(sbuf[0], N, MPI_INT, right, 77, rbuf[0], N, MPI_INT, left, 77,
                           MPI_COMM_WORLD, &req));
    CHECK_RC(MPI_Request_free(&req));
    CHECK(req == MPI_REQUEST_NULL);
    CHECK_RC(MPI_Isendrecv_replace(rep[0], N, MPI_INT, right, 78, left, 78, MPI_COMM_WORLD, &req));
    CHECK_RC(MPI_Request_free(&req));
    CHECK_RC(
        MPI_Sendrecv(&one, 1, MPI_INT, right, 77, &got, 1, MPI_INT, left, 77, MPI_COMM_WORLD, &st));
    CHECK(got == left);

    mt_barrier(MPI_COMM_WORLD);
    mt_done("p2p_isendrecv");
    MPI_Finalize();
    /* after MPI_Finalize: the freed requests above may write their buffers until then */
    for (int k = 0; k < K; k++) {
        free(sbuf[k]);
        free(rbuf[k]);
        free(rep[k]);
    }
    return 0;
}
