/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inside libibexlaunch: the job object shared by run_job.c (start-up, the poll loop) and
 * run_supervise.c (what the ranks' exits, the PMIx server, signals and deadlines mean).
 */
#ifndef IBEX_LAUNCH_RUN_JOB_H
#define IBEX_LAUNCH_RUN_JOB_H

#include "ibex_launch.h"

typedef struct run_exit {
    int rank;
    long long ran_ns; /* when it last ran, to order a batch of exits */
} run_exit_t;

struct ibex_run_job {
    ibex_run_job_params_t p; /* p.env is ours; p.apps points at apps */
    int n;
    ibex_run_job_app_t *apps; /* napps of them (one made of path / argv if p.napps was 0) */
    int *app_of;              /* the application of each rank */
    ibex_run_rank_t *ranks;
    ibex_run_stream_t *streams; /* 2 per rank: stdout, stderr */
    run_exit_t *batch;          /* exits reaped in one pass, n entries */
    ibex_run_stdin_t in;
    ibex_run_pmix_t *pmix;
    int sig_fd;
    int wake[2];
    int nreaped;
    int exit_code;
    bool failed;     /* the one message has been printed */
    bool quiet_fail; /* ibex_run_job_stop without a message: print nothing */
    bool held;       /* a failure waits to see whether a rank dies by a signal */
    int held_code;
    char held_msg[768];
    long long held_until_ms;
    int idle_rank;           /* a rank that exited 0 without MPI_Init, or -1 */
    long long kill_at_ms;    /* SIGKILL deadline while stopping, 0: none */
    long long timeout_at_ms; /* timeout deadline, 0: none */
    /* hang reports (run_hang.c) */
    ibex_run_hang_t *hang;     /* the blocked-call record, or NULL */
    long long hang_tick_at_ms; /* next sample of the ranks' call counts */
};

long long ibex_run_now_ms(void);
/* The job-wide number of local rank i (i itself on one node). */
int ibex_run_job_grank(const ibex_run_job_t *job, int i);

/* run_supervise.c */
/* The first failure: one message, the exit code, then every other rank gets stop_sig. */
void ibex_run_job_fail(ibex_run_job_t *job, int code, int stop_sig, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Reports a held failure now (every rank is gone: nothing can outrank it). */
void ibex_run_job_held_commit(ibex_run_job_t *job);
/* Reaps exited ranks and judges them, then what the PMIx server saw. */
void ibex_run_job_supervise(ibex_run_job_t *job);
/* Blocks the signals the job handles and opens the signalfd that reads them. */
ibex_status_t ibex_run_job_signals_setup(ibex_run_job_t *job);
void ibex_run_job_on_signal(ibex_run_job_t *job);
/* Acts on the deadlines that passed; the poll() timeout until the next one (-1: none). */
void ibex_run_job_deadlines(ibex_run_job_t *job);
int ibex_run_job_poll_timeout(const ibex_run_job_t *job);
int ibex_run_job_running(const ibex_run_job_t *job);

/* run_hang.c: the job's blocked-call record (a memfd every rank inherits, IBEX_BLOCKED_FD),
 * its sampling and reports (SIGUSR1, --timeout, --hang-report). */
ibex_status_t ibex_run_job_hang_setup(ibex_run_job_t *job);
void ibex_run_job_hang_report(ibex_run_job_t *job, const char *why);
void ibex_run_job_hang_tick(ibex_run_job_t *job);

#endif
