/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Session_init from several threads at once, with no thread level asked for (MPI 4.1
 * section 11.3.1: it is thread safe whatever the level): 4 threads start a session each,
 * released together, for 20 rounds; each session is valid and distinct, its process sets and
 * a communicator from mpi://WORLD work (used from the main thread), and the sessions end in
 * turn. The first round's threads race to start the engine; later rounds run beside a session
 * kept open by the main thread (ending the last session and starting the engine again at once
 * has a race of its own in the start-up fence: runtime/mpi/README.md).
 */
#include <pthread.h>

#include "mpitest.h"

#define NT 4
static pthread_barrier_t go;
static MPI_Session sess[NT];
static int rcs[NT];
static MPI_Session keep = MPI_SESSION_NULL; /* from the end of round 0 on */

static void *start(void *arg)
{
    int i = (int)(intptr_t)arg;
    pthread_barrier_wait(&go);
    rcs[i] = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &sess[i]);
    return NULL;
}

static void round_once(int round)
{
    pthread_t t[NT];
    for (int i = 0; i < NT; i++)
        CHECK(pthread_create(&t[i], NULL, start, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < NT; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    for (int i = 0; i < NT; i++) {
        CHECK(rcs[i] == MPI_SUCCESS && sess[i] != MPI_SESSION_NULL);
        for (int j = 0; j < i; j++)
            CHECK(sess[i] != sess[j]);
        int n = 0;
        CHECK_RC(MPI_Session_get_num_psets(sess[i], MPI_INFO_NULL, &n));
        CHECK(n >= 2);
    }
    /* one communicator per round, from a session chosen by the round */
    MPI_Group g;
    MPI_Comm c;
    CHECK_RC(MPI_Group_from_session_pset(sess[round % NT], "mpi://WORLD", &g));
    CHECK_RC(MPI_Comm_create_from_group(g, "org.ibex.test.session_threads", MPI_INFO_NULL,
                                        MPI_ERRORS_RETURN, &c));
    int size, rank, sum = 0;
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    CHECK_RC(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size * (size - 1) / 2);
    CHECK_RC(MPI_Comm_free(&c));
    CHECK_RC(MPI_Group_free(&g));
    if (round == 0)
        CHECK_RC(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &keep));
    for (int i = 0; i < NT; i++) {
        CHECK_RC(MPI_Session_finalize(&sess[i]));
        CHECK(sess[i] == MPI_SESSION_NULL);
    }
}

int main(void)
{
    CHECK(pthread_barrier_init(&go, NULL, NT) == 0);
    for (int r = 0; r < 20; r++)
        round_once(r);
    CHECK_RC(MPI_Session_finalize(&keep));
    /* rank 0 of the world model says it is done */
    MPI_Init(NULL, NULL);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("session_threads: ok\n");
    MPI_Finalize();
    return 0;
}
