/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pollring: the cost of completing requests by polling (standard MPI, so the same source builds
 * with any MPI for side-by-side runs). Each rank posts MPI_Irecv from its left neighbour and
 * MPI_Isend to its right one, then completes both by one of:
 *   testall   poll MPI_Testall until both are done
 *   test      poll MPI_Test on each request until both are done
 *   iprobe    poll MPI_Iprobe until the message is there, then receive it, then MPI_Wait the send
 *   waitall   block in MPI_Waitall
 * One "step" is one such exchange; the figure is the median over `reps` timed batches of the
 * time per step, in microseconds. With more ranks than cores this shows whether a rank that
 * polls and finds nothing gives its core to the rank it waits for.
 * Usage: pollring [-i steps] [-r reps] [mode ...]
 * Output: one line per mode: "MODE RANKS USEC".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MODE_TESTALL, MODE_TEST, MODE_IPROBE, MODE_WAITALL, NMODES };
static const char *mode_names[NMODES] = {"testall", "test", "iprobe", "waitall"};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void complete_testall(MPI_Request reqs[2])
{
    int done = 0;
    while (!done)
        MPI_Testall(2, reqs, &done, MPI_STATUSES_IGNORE);
}

static void complete_test(MPI_Request reqs[2])
{
    int done[2] = {0, 0};
    while (!done[0] || !done[1]) {
        for (int i = 0; i < 2; i++)
            if (!done[i])
                MPI_Test(&reqs[i], &done[i], MPI_STATUS_IGNORE);
    }
}

/* Receive by probing first: the receive is posted only once the message is there. */
static void step_iprobe(int left, int right, int step, int *out, int *in)
{
    MPI_Request send;
    int flag = 0;
    MPI_Isend(out, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &send);
    while (!flag)
        MPI_Iprobe(left, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    MPI_Recv(in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    (void)step;
}

static int one_step(int mode, int left, int right, int step)
{
    int out = step, in = -1;
    MPI_Request reqs[2];
    if (mode == MODE_IPROBE) {
        step_iprobe(left, right, step, &out, &in);
        return in == step;
    }
    MPI_Irecv(&in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&out, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &reqs[1]);
    if (mode == MODE_TESTALL)
        complete_testall(reqs);
    else if (mode == MODE_TEST)
        complete_test(reqs);
    else
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    return in == step;
}

static double run_mode(int mode, int steps, int reps, int *bad)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    double *t = malloc(sizeof(double) * (size_t)reps);
    for (int i = 0; i < steps / 10 + 1; i++) /* warm-up */
        *bad += !one_step(mode, left, right, i);
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < steps; i++)
            *bad += !one_step(mode, left, right, i);
        t[r] = (MPI_Wtime() - t0) * 1e6 / steps;
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_double);
    double med = t[reps / 2];
    free(t);
    return med;
}

static int parse_mode(const char *s)
{
    for (int m = 0; m < NMODES; m++)
        if (strcmp(s, mode_names[m]) == 0)
            return m;
    return -1;
}

int main(int argc, char **argv)
{
    int rank, size, steps = 2000, reps = 5, bad = 0, nmodes = 0, modes[NMODES];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-i") == 0 && a + 1 < argc)
            steps = atoi(argv[++a]);
        else if (strcmp(argv[a], "-r") == 0 && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (parse_mode(argv[a]) >= 0 && nmodes < NMODES)
            modes[nmodes++] = parse_mode(argv[a]);
        else {
            if (rank == 0)
                fprintf(stderr,
                        "usage: pollring [-i steps] [-r reps] [testall|test|iprobe|waitall]...\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (nmodes == 0)
        for (int m = 0; m < NMODES; m++)
            modes[nmodes++] = m;
    if (steps < 1 || reps < 1)
        steps = reps = 1;
    for (int m = 0; m < nmodes; m++) {
        double us = run_mode(modes[m], steps, reps, &bad);
        if (rank == 0)
            printf("%s %d %.3f\n", mode_names[modes[m]], size, us);
    }
    int all_bad = 0;
    MPI_Reduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && all_bad)
        fprintf(stderr, "pollring: %d steps received the wrong value\n", all_bad);
    MPI_Finalize();
    return all_bad ? 1 : 0;
}
