/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Polling loops: a ring where each rank posts a receive from its left neighbour and a send to
 * its right one, then completes them by polling a non-blocking call until done, once per call
 * that polls (Test, Testall, Testany, Testsome, Request_get_status, Iprobe, Improbe).
 *
 * Run with more ranks than cores, a rank that polls and finds nothing must give its core to the
 * rank it waits for; one that keeps it stalls the ring for a scheduler time slice (milliseconds)
 * per step. This is a guard against that pathology, not a speed test: the median step must stay
 * under MT_POLL_MAX_US (default 1000 us; a ring that yields takes a few microseconds, one that
 * does not takes 2-3 ms). The values received are checked too.
 */
#include "mpitest.h"

enum { STEPS = 50, BATCHES = 7 };

typedef void (*complete_fn)(MPI_Request reqs[2]);

static void by_test(MPI_Request reqs[2])
{
    int done[2] = {0, 0};
    while (!done[0] || !done[1])
        for (int i = 0; i < 2; i++)
            if (!done[i])
                CHECK_RC(MPI_Test(&reqs[i], &done[i], MPI_STATUS_IGNORE));
}

static void by_testall(MPI_Request reqs[2])
{
    int done = 0;
    while (!done)
        CHECK_RC(MPI_Testall(2, reqs, &done, MPI_STATUSES_IGNORE));
}

static void by_testany(MPI_Request reqs[2])
{
    int left = 2;
    while (left > 0) {
        int idx, flag = 0;
        CHECK_RC(MPI_Testany(2, reqs, &idx, &flag, MPI_STATUS_IGNORE));
        if (flag)
            left--;
    }
}

static void by_testsome(MPI_Request reqs[2])
{
    int left = 2, out, idx[2];
    while (left > 0) {
        CHECK_RC(MPI_Testsome(2, reqs, &out, idx, MPI_STATUSES_IGNORE));
        CHECK(out != MPI_UNDEFINED);
        left -= out;
    }
}

static void by_get_status(MPI_Request reqs[2])
{
    for (int i = 0; i < 2; i++) {
        int flag = 0;
        while (!flag)
            CHECK_RC(MPI_Request_get_status(reqs[i], &flag, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
    }
}

static const struct {
    const char *name;
    complete_fn fn;
} modes[] = {{"Test", by_test},
             {"Testall", by_testall},
             {"Testany", by_testany},
             {"Testsome", by_testsome},
             {"Request_get_status", by_get_status}};

static int step_requests(int mode, int left, int right, int value)
{
    int out = value, in = -1;
    MPI_Request reqs[2];
    CHECK_RC(MPI_Irecv(&in, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &reqs[0]));
    CHECK_RC(MPI_Isend(&out, 1, MPI_INT, right, 3, MPI_COMM_WORLD, &reqs[1]));
    modes[mode].fn(reqs);
    return in;
}

/* Probes first: the receive is posted only once Iprobe (or Improbe) saw the message. */
static int step_probe(int matched, int left, int right, int value)
{
    int out = value, in = -1, flag = 0;
    MPI_Request send;
    MPI_Message msg;
    CHECK_RC(MPI_Isend(&out, 1, MPI_INT, right, 4, MPI_COMM_WORLD, &send));
    while (!flag) {
        if (matched)
            CHECK_RC(MPI_Improbe(left, 4, MPI_COMM_WORLD, &flag, &msg, MPI_STATUS_IGNORE));
        else
            CHECK_RC(MPI_Iprobe(left, 4, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    }
    if (matched)
        CHECK_RC(MPI_Mrecv(&in, 1, MPI_INT, &msg, MPI_STATUS_IGNORE));
    else
        CHECK_RC(MPI_Recv(&in, 1, MPI_INT, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Wait(&send, MPI_STATUS_IGNORE));
    return in;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* mode < 0: -1 Iprobe, -2 Improbe. Returns the median time per step, in microseconds. */
static double ring(int mode, int rank, int size)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    double t[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int s = 0; s < STEPS; s++) {
            int value = b * STEPS + s, sent_by_left = value * 1000 + left;
            int mine = value * 1000 + rank;
            int got = mode >= 0 ? step_requests(mode, left, right, mine)
                                : step_probe(mode == -2, left, right, mine);
            CHECK(got == sent_by_left);
        }
        t[b] = (MPI_Wtime() - t0) * 1e6 / STEPS;
    }
    qsort(t, BATCHES, sizeof(double), cmp_double);
    return t[BATCHES / 2];
}

static void report(const char *name, double us, double limit, int rank)
{
    double worst;
    MPI_Allreduce(&us, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && worst > limit)
        fprintf(stderr,
                "FAIL rank 0: polling with MPI_%s took %.0f us per ring step (limit %.0f): "
                "a polling rank keeps the core its peer needs\n",
                name, worst, limit);
    CHECK(worst <= limit);
    if (rank == 0)
        printf("MPI_%s: %.1f us per step\n", name, worst);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *env = getenv("MT_POLL_MAX_US");
    double limit = env ? atof(env) : 1000.0;
    for (int m = 0; m < (int)(sizeof(modes) / sizeof(modes[0])); m++)
        report(modes[m].name, ring(m, rank, size), limit, rank);
    report("Iprobe", ring(-1, rank, size), limit, rank);
    report("Improbe", ring(-2, rank, size), limit, rank);
    mt_done("p2p_poll");
    MPI_Finalize();
    return 0;
}
