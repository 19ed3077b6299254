/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Invalid arguments under MPI_ERRORS_RETURN give the right error class, and a receive buffer
 * that is too small gives MPI_ERR_TRUNCATE, for eager and rendezvous messages, from MPI_Recv
 * and from MPI_Wait; the sender still completes; the program goes on afterwards. An invalid
 * handle anywhere in the array of an -all / -some call fails it before any request in it is
 * completed or freed (the calls check and count the array in one pass).
 */
#include "mpitest.h"

static int err_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static void bad_arguments(int rank, int size)
{
    int v = 0;
    MPI_Request r;
    CHECK(err_class(MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD)) == MPI_ERR_RANK);
    CHECK(err_class(MPI_Send(&v, 1, MPI_INT, -5, 0, MPI_COMM_WORLD)) == MPI_ERR_RANK);
    CHECK(err_class(MPI_Recv(&v, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)) ==
          MPI_ERR_RANK);
    CHECK(err_class(MPI_Send(&v, 1, MPI_INT, 0, -1, MPI_COMM_WORLD)) == MPI_ERR_TAG);
    CHECK(err_class(MPI_Send(&v, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD)) == MPI_ERR_TAG);
    int *ub, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    CHECK(flag && *ub >= 32767);
    if (*ub < 2147483647)
        CHECK(err_class(MPI_Send(&v, 1, MPI_INT, 0, *ub + 1, MPI_COMM_WORLD)) == MPI_ERR_TAG);
    CHECK(err_class(MPI_Send(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD)) == MPI_ERR_COUNT);
    CHECK(err_class(MPI_Irecv(&v, -3, MPI_INT, 0, 0, MPI_COMM_WORLD, &r)) == MPI_ERR_COUNT);
    CHECK(err_class(MPI_Send(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD)) == MPI_ERR_TYPE);
    CHECK(err_class(MPI_Send(&v, 1, (MPI_Datatype)12345, 0, 0, MPI_COMM_WORLD)) == MPI_ERR_TYPE);
    CHECK(err_class(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Send(&v, 1, MPI_INT, 0, 0, (MPI_Comm)777)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Send(NULL, 4, MPI_INT, 0, 0, MPI_COMM_WORLD)) == MPI_ERR_BUFFER);
    MPI_Request bogus = (MPI_Request)4242;
    CHECK(err_class(MPI_Wait(&bogus, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST);
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec); /* not committed */
    int two[4];
    CHECK(err_class(MPI_Send(two, 1, vec, 0, 0, MPI_COMM_WORLD)) == MPI_ERR_TYPE);
    MPI_Type_free(&vec);
    char s[MPI_MAX_ERROR_STRING];
    int len;
    CHECK_RC(MPI_Error_string(MPI_ERR_TRUNCATE, s, &len));
    CHECK(len > 0 && (int)strlen(s) == len);
    (void)rank;
}

static void bad_handle_in_array(int rank)
{
    int v = 40 + rank, w = -1, flag = -1, outcount = -1, idx[3];
    MPI_Request rq[3], keep[2];
    MPI_Status st[3];
    CHECK_RC(MPI_Irecv(&w, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &rq[0]));
    CHECK_RC(MPI_Isend(&v, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &rq[1]));
    keep[0] = rq[0], keep[1] = rq[1];
    rq[2] = (MPI_Request)4242; /* last: the live ones before it may already be complete */
    CHECK(err_class(MPI_Testall(3, rq, &flag, st)) == MPI_ERR_REQUEST);
    CHECK(err_class(MPI_Waitall(3, rq, st)) == MPI_ERR_REQUEST);
    CHECK(err_class(MPI_Testsome(3, rq, &outcount, idx, st)) == MPI_ERR_REQUEST);
    CHECK(err_class(MPI_Waitsome(3, rq, &outcount, idx, st)) == MPI_ERR_REQUEST);
    CHECK(rq[0] == keep[0] && rq[1] == keep[1]); /* nothing was freed */
    rq[2] = MPI_REQUEST_NULL;
    CHECK_RC(MPI_Waitall(3, rq, st));
    CHECK(w == v);
    CHECK(rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL);
    CHECK(st[0].MPI_SOURCE == rank && st[0].MPI_TAG == 5 && st[0].MPI_ERROR == MPI_SUCCESS);
    CHECK(st[2].MPI_SOURCE == MPI_ANY_SOURCE && st[2].MPI_TAG == MPI_ANY_TAG); /* empty */
    flag = 0;
    CHECK_RC(MPI_Testall(3, rq, &flag, st)); /* all null: true at once */
    CHECK(flag == 1);
    CHECK_RC(MPI_Testsome(3, rq, &outcount, idx, st));
    CHECK(outcount == MPI_UNDEFINED);
}

static void truncation(int rank)
{
    static const int sizes[] = {16, 1 << 20};
    for (int k = 0; k < 2; k++) {
        int n = sizes[k];
        char *buf = malloc((size_t)n);
        if (rank == 1) {
            mt_fill(buf, (size_t)n, 9);
            CHECK_RC(MPI_Send(buf, n, MPI_BYTE, 0, 70, MPI_COMM_WORLD)); /* completes anyway */
            CHECK_RC(MPI_Send(buf, n, MPI_BYTE, 0, 71, MPI_COMM_WORLD));
        } else if (rank == 0) {
            MPI_Status st;
            memset(buf, 0, (size_t)n);
            int rc = MPI_Recv(buf, n / 2, MPI_BYTE, 1, 70, MPI_COMM_WORLD, &st);
            CHECK(err_class(rc) == MPI_ERR_TRUNCATE);
            CHECK(mt_verify(buf, (size_t)n / 2, 9) == (size_t)-1); /* what fits arrived */
            CHECK(buf[n / 2] == 0);                                /* nothing past it */
            MPI_Request r;
            CHECK_RC(MPI_Irecv(buf, n / 4, MPI_BYTE, 1, 71, MPI_COMM_WORLD, &r));
            rc = MPI_Wait(&r, &st);
            CHECK(err_class(rc) == MPI_ERR_TRUNCATE);
            CHECK(r == MPI_REQUEST_NULL);
            /* Waitall reports it in the status */
            MPI_Request rs[2];
            MPI_Status sts[2];
            int x = 0;
            CHECK_RC(MPI_Irecv(&x, 1, MPI_INT, 0, 72, MPI_COMM_WORLD, &rs[0]));
            int big[2] = {1, 2};
            CHECK_RC(MPI_Isend(big, 2, MPI_INT, 0, 72, MPI_COMM_WORLD, &rs[1]));
            rc = MPI_Waitall(2, rs, sts);
            CHECK(rc == MPI_ERR_IN_STATUS);
            CHECK(err_class(sts[0].MPI_ERROR) == MPI_ERR_TRUNCATE);
            CHECK(sts[1].MPI_ERROR == MPI_SUCCESS);
        }
        free(buf);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "--fatal") == 0) {
        /* default handler: this must end the job with a message naming rank, call and cause */
        int v = 0;
        if (rank == 0)
            MPI_Send(&v, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD);
        mt_barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    bad_arguments(rank, size);
    bad_handle_in_array(rank);
    truncation(rank);
    mt_barrier(MPI_COMM_WORLD);
    mt_done("p2p_errors");
    MPI_Finalize();
    return 0;
}
