/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Supervision of a job: what the ranks' exits, the PMIx server's upcalls, signals to the
 * launcher and deadlines mean. The first failure (a rank's non-zero exit, death by a signal,
 * MPI_Abort, an exit without MPI_Finalize, the timeout, or a signal to the launcher) is reported
 * in one message and decides the exit code; every other rank is then sent SIGTERM, and SIGKILL
 * after the job's abort grace. See launcher/README.md.
 */
#include "run_job.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ibex_log.h"

long long ibex_run_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ibex_run_job_running(const ibex_run_job_t *job)
{
    return job->n - job->nreaped;
}

/* The first failure: one message, the exit code, then every other rank is stopped. */
void ibex_run_job_fail(ibex_run_job_t *job, int code, int stop_sig, const char *fmt, ...)
{
    if (job->failed)
        return;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    job->failed = true;
    job->exit_code = code;
    const ibex_run_hooks_t *h = job->p.hooks;
    if (h && h->on_fail && !job->quiet_fail)
        h->on_fail(h->ctx, code, msg); /* a daemon tells the head; a head tells its daemons */
    else if (!job->quiet_fail)
        ibex_run_say("%s%s", msg, ibex_run_job_running(job) > 0 ? "; stopping the job" : "");
    ibex_run_proc_signal_all(job->ranks, job->n, stop_sig);
    job->kill_at_ms = ibex_run_now_ms() + (job->p.abort_grace_ms > 0 ? job->p.abort_grace_ms : 0);
}

/* A failure that may be the consequence of another: a rank that vanishes makes its peers' PMIx
 * fence fail, and they may exit or abort before the vanished rank's process can be reaped (its
 * PMIx connection closes early in its exit). So exits with a code and aborts are held for
 * RUN_HOLD_MS while ibexrun keeps reaping; a rank killed by a signal meanwhile is reported
 * instead, as the cause. Otherwise the first held failure is reported when the time is up (or
 * when every rank is gone). */
#define RUN_HOLD_MS 200

static void run_fail_held(ibex_run_job_t *job, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void run_fail_held(ibex_run_job_t *job, int code, const char *fmt, ...)
{
    if (job->failed || job->held)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(job->held_msg, sizeof(job->held_msg), fmt, ap);
    va_end(ap);
    job->held = true;
    job->held_code = code;
    job->held_until_ms = ibex_run_now_ms() + RUN_HOLD_MS;
}

void ibex_run_job_held_commit(ibex_run_job_t *job)
{
    if (!job->held)
        return;
    job->held = false;
    ibex_run_job_fail(job, job->held_code, SIGTERM, "%s", job->held_msg);
}

/* ---- what the PMIx server saw ---- */

static void run_check_abort(ibex_run_job_t *job)
{
    int rank, code;
    char msg[256];
    if (job->failed || !ibex_run_pmix_abort_info(job->pmix, &rank, &code, msg, sizeof(msg)))
        return;
    /* An exit code is 8 bits; an abort must never look like success. */
    int ec = code & 0xff ? code & 0xff : 1;
    run_fail_held(job, ec, "rank %d (pid %d) aborted the job with code %d%s%s%s",
                  ibex_run_job_grank(job, rank), (int)job->ranks[rank].pid, code,
                  msg[0] ? " (" : "", msg, msg[0] ? ")" : "");
}

static void run_check_idle(ibex_run_job_t *job)
{
    if (job->failed || job->idle_rank < 0 || !ibex_run_pmix_any_connected(job->pmix))
        return;
    /* The others wait for it in MPI_Init's fence forever: end the job instead. */
    const ibex_run_rank_t *r = &job->ranks[job->idle_rank];
    const char *what = "exited without calling MPI_Init while other ranks did";
    ibex_run_job_fail(job, 1, SIGTERM, "rank %d (pid %d) %s", ibex_run_job_grank(job, r->rank),
                      (int)r->pid, what);
}

/* ---- rank exits ---- */

/* Ordering: a rank's own MPI_Abort is recorded before it can exit, so it is reported as the
 * abort. Exits are classified before other ranks' aborts seen in the same pass: a rank that
 * vanished makes its peers' PMIx calls fail, and they may abort because of it, after it. */
static void run_on_exit(ibex_run_job_t *job, ibex_run_rank_t *r)
{
    ibex_run_pmix_rank_t st;
    int arank = -1, code;
    char msg[8];
    ibex_run_pmix_rank_state(job->pmix, r->rank, &st);
    int ws = r->wstatus, pid = (int)r->pid, g = ibex_run_job_grank(job, r->rank);
    if (ibex_run_pmix_abort_info(job->pmix, &arank, &code, msg, sizeof(msg)) && arank == r->rank) {
        run_check_abort(job);
    } else if (WIFSIGNALED(ws)) {
        int sig = WTERMSIG(ws);
        ibex_run_job_fail(job, 128 + sig, SIGTERM, "rank %d (pid %d) killed by signal %d (%s)", g,
                          pid, sig, strsignal(sig));
    } else if (WEXITSTATUS(ws) != 0) {
        run_fail_held(job, WEXITSTATUS(ws), "rank %d (pid %d) exited with code %d", g, pid,
                      WEXITSTATUS(ws));
    } else if (st.connected && !st.finalized) {
        run_fail_held(job, 1, "rank %d (pid %d) exited without calling MPI_Finalize", g, pid);
    } else if (!st.connected && job->idle_rank < 0) {
        job->idle_rank = r->rank;
        run_check_idle(job);
    }
    ibex_debug(LAUNCH, "rank %d (pid %d) reaped, status 0x%x", r->rank, pid, ws);
}

static int run_exit_cmp(const void *a, const void *b)
{
    const run_exit_t *x = a, *y = b;
    if (x->ran_ns != y->ran_ns) /* unknown times (-1) keep their place at the front */
        return x->ran_ns < y->ran_ns ? -1 : 1;
    return x->rank - y->rank;
}

/* Reaps every exited rank, then judges them in the order they exited. */
static void run_reap(ibex_run_job_t *job)
{
    int i, nb = 0;
    long long ran;
    while (ibex_run_proc_reap_one(job->ranks, job->n, &i, &ran)) {
        job->nreaped++;
        job->batch[nb++] = (run_exit_t){i, ran};
        if (i == 0)
            ibex_run_io_stdin_close(&job->in);
    }
    qsort(job->batch, (size_t)nb, sizeof(*job->batch), run_exit_cmp);
    for (int k = 0; k < nb; k++)
        run_on_exit(job, &job->ranks[job->batch[k].rank]);
}

/* ---- signals ---- */

ibex_status_t ibex_run_job_signals_setup(ibex_run_job_t *job)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGQUIT);
    sigaddset(&set, SIGUSR1); /* a hang report, the job goes on */
    /* Blocked before the PMIx thread exists, so it inherits the mask and only signalfd sees
     * them. SIGPIPE: a rank that closed its stdin must not kill the launcher. */
    sigprocmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    job->sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (job->sig_fd < 0) {
        ibex_error(LAUNCH, "signalfd failed: %m");
        return IBEX_ERR_IO;
    }
    return IBEX_OK;
}

void ibex_run_job_on_signal(ibex_run_job_t *job)
{
    struct signalfd_siginfo si;
    while (read(job->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD)
            continue; /* reaped below, every iteration */
        if (sig == SIGUSR1) {
            ibex_run_job_hang_report(job, "SIGUSR1");
            continue;
        }
        if (job->failed) { /* a second Ctrl-C: no more grace */
            ibex_run_proc_signal_all(job->ranks, job->n, SIGKILL);
            continue;
        }
        ibex_run_job_fail(job, 128 + sig, sig, "received signal %d (%s)", sig, strsignal(sig));
    }
}

/* ---- deadlines ---- */

static void run_on_timeout(ibex_run_job_t *job)
{
    int *left = calloc((size_t)job->n + 1, sizeof(*left)), nleft = 0;
    char list[512] = "?";
    if (left) {
        for (int i = 0; i < job->n; i++)
            if (!job->ranks[i].reaped)
                left[nleft++] = ibex_run_job_grank(job, i);
        ibex_run_map_format_ranks(left, nleft, list, sizeof(list));
        free(left);
    }
    char why[64];
    snprintf(why, sizeof(why), "timeout after %d s", job->p.timeout_s);
    ibex_run_job_hang_report(job, why); /* before the ranks are stopped: what they wait in */
    if (nleft == 0)                     /* a head whose ranks all run on other hosts */
        ibex_run_job_fail(job, IBEX_RUN_EXIT_TIMEOUT, SIGTERM,
                          "timeout after %d s; ranks on other hosts still running",
                          job->p.timeout_s);
    else
        ibex_run_job_fail(job, IBEX_RUN_EXIT_TIMEOUT, SIGTERM,
                          "timeout after %d s; rank%s %s still running", job->p.timeout_s,
                          nleft == 1 ? "" : "s", list);
}

void ibex_run_job_deadlines(ibex_run_job_t *job)
{
    long long now = ibex_run_now_ms();
    ibex_run_job_hang_tick(job);
    if (job->held && now >= job->held_until_ms)
        ibex_run_job_held_commit(job);
    if (job->timeout_at_ms && now >= job->timeout_at_ms) {
        job->timeout_at_ms = 0;
        run_on_timeout(job);
    }
    if (job->kill_at_ms && now >= job->kill_at_ms) {
        job->kill_at_ms = 0;
        ibex_debug(LAUNCH, "grace period over: SIGKILL to %d rank(s)", ibex_run_job_running(job));
        ibex_run_proc_signal_all(job->ranks, job->n, SIGKILL);
    }
}

int ibex_run_job_poll_timeout(const ibex_run_job_t *job)
{
    long long next = 0, now = ibex_run_now_ms();
    if (job->timeout_at_ms)
        next = job->timeout_at_ms;
    if (job->kill_at_ms && (!next || job->kill_at_ms < next))
        next = job->kill_at_ms;
    if (job->held && (!next || job->held_until_ms < next))
        next = job->held_until_ms;
    if (job->hang && !job->failed && (!next || job->hang_tick_at_ms < next))
        next = job->hang_tick_at_ms;
    if (!next)
        return -1;
    return next <= now ? 0 : (int)(next - now);
}

/* Exits first, then what the PMIx server saw (see run_on_exit for why). */
void ibex_run_job_supervise(ibex_run_job_t *job)
{
    run_reap(job);
    run_check_abort(job);
    run_check_idle(job);
}
