/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A session asking for MPI_THREAD_MULTIPLE before MPI_Init_thread asks for it too, as
 * osu_latency_mt -I does: the session (thread_level hint) makes its communicator from the
 * mpi://WORLD process set, then MPI_Init_thread(MPI_THREAD_MULTIPLE) must provide it, the session
 * must say it in its info, and threads must then use both at once: on each rank two threads
 * ping-pong with the other rank, one on the session's communicator and one on MPI_COMM_WORLD,
 * every payload checked. Ibex gave MPI_THREAD_FUNNELED here (sessions were capped at it, and
 * the first instance fixed the level for every later one).
 *
 * Usage: suites_session_mt (2 ranks or more; ranks 0 and 1 ping-pong). Standard MPI 4 only.
 */
#include <pthread.h>

#include "mpitest.h"

enum { ITERS = 200, LEN = 4096 };

struct pp {
    MPI_Comm comm;
    int rank, tag, errors;
};

static void *pingpong(void *arg)
{
    struct pp *p = arg;
    unsigned char buf[LEN];
    int peer = 1 - p->rank;
    for (int it = 0; it < ITERS; it++) {
        unsigned seed = (unsigned)(p->tag * 1000 + it);
        if (p->rank == 0) {
            mt_fill(buf, LEN, seed);
            MPI_Send(buf, LEN, MPI_BYTE, peer, p->tag, p->comm);
            MPI_Recv(buf, LEN, MPI_BYTE, peer, p->tag, p->comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, LEN, MPI_BYTE, peer, p->tag, p->comm, MPI_STATUS_IGNORE);
        }
        if (mt_verify(buf, LEN, seed) != (size_t)-1)
            p->errors++;
        if (p->rank == 1)
            MPI_Send(buf, LEN, MPI_BYTE, peer, p->tag, p->comm);
    }
    return NULL;
}

static MPI_Comm session_comm(MPI_Session *s)
{
    MPI_Info hints;
    MPI_Group g;
    MPI_Comm c;
    CHECK_RC(MPI_Info_create(&hints));
    CHECK_RC(MPI_Info_set(hints, "thread_level", "MPI_THREAD_MULTIPLE"));
    CHECK_RC(MPI_Session_init(hints, MPI_ERRORS_RETURN, s));
    CHECK_RC(MPI_Info_free(&hints));
    CHECK_RC(MPI_Group_from_session_pset(*s, "mpi://WORLD", &g));
    CHECK_RC(
        MPI_Comm_create_from_group(g, "suites_session_mt", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    CHECK_RC(MPI_Group_free(&g));
    return c;
}

static void check_session_level(MPI_Session s)
{
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL + 1];
    int len = sizeof(value), flag = 0;
    CHECK_RC(MPI_Session_get_info(s, &info));
    CHECK_RC(MPI_Info_get_string(info, "thread_level", &len, value, &flag));
    CHECK(flag && strcmp(value, "MPI_THREAD_MULTIPLE") == 0);
    CHECK_RC(MPI_Info_free(&info));
}

int main(int argc, char **argv)
{
    MPI_Session s;
    MPI_Comm sc = session_comm(&s);
    int provided = -1, rank, size, query = -1;
    CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE);
    CHECK_RC(MPI_Query_thread(&query));
    CHECK(query == MPI_THREAD_MULTIPLE);
    check_session_level(s);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2);
    if (rank < 2) {
        struct pp a = {sc, rank, 1, 0}, b = {MPI_COMM_WORLD, rank, 2, 0};
        pthread_t ta, tb;
        CHECK(pthread_create(&ta, NULL, pingpong, &a) == 0);
        CHECK(pthread_create(&tb, NULL, pingpong, &b) == 0);
        CHECK(pthread_join(ta, NULL) == 0 && pthread_join(tb, NULL) == 0);
        CHECK(a.errors == 0 && b.errors == 0);
    }
    CHECK_RC(MPI_Barrier(sc));
    CHECK_RC(MPI_Comm_free(&sc));
    CHECK_RC(MPI_Session_finalize(&s));
    mt_done("suites_session_mt");
    CHECK_RC(MPI_Finalize());
    return 0;
}
