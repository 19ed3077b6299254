/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Probe / Iprobe report source, tag and the full count, for eager and rendezvous messages,
 * without receiving them; Mprobe takes a message out of matching so that no other receive can
 * have it; Improbe; probes on MPI_PROC_NULL.
 */
#include "mpitest.h"

#define BIG (4 << 20)

static void probe_sizes(int rank)
{
    static const int sizes[] = {0, 10, 5000, BIG};
    if (rank == 1) {
        char *b = malloc(BIG);
        for (int i = 0; i < 4; i++) {
            mt_fill(b, (size_t)sizes[i], (unsigned)i);
            CHECK_RC(MPI_Send(b, sizes[i], MPI_BYTE, 0, 40 + i, MPI_COMM_WORLD));
        }
        free(b);
    } else if (rank == 0) {
        for (int i = 0; i < 4; i++) {
            MPI_Status st;
            int flag = 0, count;
            while (!flag)
                CHECK_RC(MPI_Iprobe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
            CHECK(st.MPI_TAG == 40 + i && st.MPI_SOURCE == 1);
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == sizes[i]);
            CHECK_RC(MPI_Probe(MPI_ANY_SOURCE, 40 + i, MPI_COMM_WORLD, &st));
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == sizes[i]);
            char *b = malloc((size_t)count + 1);
            CHECK_RC(MPI_Recv(b, count, MPI_BYTE, 1, 40 + i, MPI_COMM_WORLD, &st));
            CHECK(mt_verify(b, (size_t)count, (unsigned)i) == (size_t)-1);
            free(b);
        }
    }
}

/* After Mprobe, a wildcard receive posted later must get the second message, not the first. */
static void mprobe_exclusive(int rank)
{
    for (int big = 0; big < 2; big++) {
        int n = big ? BIG / 4 : 4;
        if (rank == 1) {
            int *v = calloc((size_t)n, sizeof(int));
            v[0] = 1;
            CHECK_RC(MPI_Send(v, n, MPI_INT, 0, 9, MPI_COMM_WORLD));
            v[0] = 2;
            CHECK_RC(MPI_Send(v, n, MPI_INT, 0, 9, MPI_COMM_WORLD));
            free(v);
        } else if (rank == 0) {
            int *x = calloc((size_t)n, sizeof(int)), *y = calloc((size_t)n, sizeof(int));
            MPI_Message msg;
            MPI_Status st;
            MPI_Request r;
            CHECK_RC(MPI_Mprobe(1, 9, MPI_COMM_WORLD, &msg, &st));
            CHECK(msg != MPI_MESSAGE_NULL);
            CHECK_RC(MPI_Irecv(y, n, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &r));
            CHECK_RC(MPI_Mrecv(x, n, MPI_INT, &msg, &st));
            CHECK(msg == MPI_MESSAGE_NULL);
            CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
            CHECK(x[0] == 1 && y[0] == 2);
            free(x);
            free(y);
        }
    }
}

static void improbe_and_proc_null(int rank)
{
    int flag = 0;
    MPI_Message msg;
    MPI_Status st;
    st.MPI_ERROR = MPI_ERR_OTHER; /* probes, like single completions, leave MPI_ERROR alone */
    CHECK_RC(MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
    CHECK(st.MPI_ERROR == MPI_ERR_OTHER);
    CHECK_RC(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL);
    CHECK(st.MPI_ERROR == MPI_ERR_OTHER);
    CHECK_RC(MPI_Mrecv(NULL, 0, MPI_INT, &msg, &st));
    CHECK(st.MPI_ERROR == MPI_ERR_OTHER && msg == MPI_MESSAGE_NULL);
    CHECK_RC(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK(flag && msg == MPI_MESSAGE_NO_PROC);
    CHECK_RC(MPI_Mrecv(NULL, 0, MPI_INT, &msg, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && msg == MPI_MESSAGE_NULL);
    if (rank == 1) {
        int v = 77;
        CHECK_RC(MPI_Send(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD));
    } else if (rank == 0) {
        MPI_Request r;
        int v = 0;
        flag = 0;
        while (!flag)
            CHECK_RC(MPI_Improbe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &flag, &msg, &st));
        CHECK_RC(MPI_Imrecv(&v, 1, MPI_INT, &msg, &r));
        CHECK_RC(MPI_Wait(&r, &st));
        CHECK(v == 77 && st.MPI_SOURCE == 1 && st.MPI_TAG == 3);
        /* nothing else is pending */
        CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &flag, &st));
        CHECK(!flag);
    }
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    probe_sizes(rank);
    mprobe_exclusive(rank);
    improbe_and_proc_null(rank);
    mt_barrier(MPI_COMM_WORLD);
    mt_done("p2p_probe");
    MPI_Finalize();
    return 0;
}
