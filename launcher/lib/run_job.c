/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A job: n ranks of one program on this node under the embedded PMIx server, their I/O
 * forwarded, supervised (run_supervise.c) until every rank is gone.
 *
 * One thread runs everything here: poll() over the ranks' pipes, a signalfd (SIGCHLD, SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT are blocked and read from it) and the wake-up pipe of the PMIx
 * upcalls.
 */
#include "run_job.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "ibex_log.h"

/* ---- the loop ---- */

enum { WHO_SIG = -1, WHO_WAKE = -2, WHO_STDIN = -3, WHO_RANK0_IN = -4 };

static int run_poll_set(ibex_run_job_t *job, struct pollfd *pfd, int *who)
{
    int k = 0;
    pfd[k] = (struct pollfd){.fd = job->sig_fd, .events = POLLIN};
    who[k++] = WHO_SIG;
    pfd[k] = (struct pollfd){.fd = job->wake[0], .events = POLLIN};
    who[k++] = WHO_WAKE;
    for (int i = 0; i < 2 * job->n; i++) {
        if (job->streams[i].fd < 0)
            continue;
        pfd[k] = (struct pollfd){.fd = job->streams[i].fd, .events = POLLIN};
        who[k++] = i;
    }
    if (ibex_run_io_stdin_src_events(&job->in)) {
        pfd[k] = (struct pollfd){.fd = job->in.src, .events = POLLIN};
        who[k++] = WHO_STDIN;
    }
    if (ibex_run_io_stdin_dst_events(&job->in)) {
        pfd[k] = (struct pollfd){.fd = job->in.dst, .events = POLLOUT};
        who[k++] = WHO_RANK0_IN;
    }
    return k;
}

static void run_drain_wake(ibex_run_job_t *job)
{
    char buf[256];
    while (read(job->wake[0], buf, sizeof(buf)) > 0)
        ;
}

static void run_dispatch(ibex_run_job_t *job, struct pollfd *pfd, const int *who, int k)
{
    for (int j = 0; j < k; j++) {
        if (!pfd[j].revents)
            continue;
        if (who[j] == WHO_SIG)
            ibex_run_job_on_signal(job);
        else if (who[j] == WHO_WAKE)
            run_drain_wake(job);
        else if (who[j] == WHO_STDIN)
            ibex_run_io_stdin_on_src(&job->in);
        else if (who[j] == WHO_RANK0_IN)
            ibex_run_io_stdin_on_dst(&job->in);
        else
            ibex_run_io_stream_read(&job->streams[who[j]]);
    }
}

#define RUN_HOOK_FDS 256 /* poll slots for the hooks (a head's daemons and agents) */

static const ibex_run_hooks_t *run_hooks(const ibex_run_job_t *job)
{
    return job->p.hooks;
}

/* The hooks' descriptors after ours; they learn what happened to them after ours ran. */
static int run_hooks_poll_add(ibex_run_job_t *job, struct pollfd *pfd, int k)
{
    const ibex_run_hooks_t *h = run_hooks(job);
    return h && h->poll_add ? k + h->poll_add(h->ctx, pfd + k, RUN_HOOK_FDS) : k;
}

static void run_hooks_after(ibex_run_job_t *job, struct pollfd *pfd, int k, int total, int rc)
{
    const ibex_run_hooks_t *h = run_hooks(job);
    if (h && h->poll_ready && total > k)
        h->poll_ready(h->ctx, job, pfd + k, rc > 0 ? total - k : 0);
    if (h && h->tick)
        h->tick(h->ctx, job);
}

static int run_poll_timeout(ibex_run_job_t *job)
{
    const ibex_run_hooks_t *h = run_hooks(job);
    int t = ibex_run_job_poll_timeout(job), ht = h && h->timeout_ms ? h->timeout_ms(h->ctx) : -1;
    return t < 0 || (ht >= 0 && ht < t) ? ht : t;
}

static bool run_busy(ibex_run_job_t *job)
{
    const ibex_run_hooks_t *h = run_hooks(job);
    return ibex_run_job_running(job) > 0 || (h && h->busy && h->busy(h->ctx));
}

static void run_loop(ibex_run_job_t *job)
{
    struct pollfd *pfd = calloc((size_t)(2 * job->n + 4 + RUN_HOOK_FDS), sizeof(*pfd));
    int *who = calloc((size_t)(2 * job->n + 4), sizeof(*who));
    if (!pfd || !who) {
        ibex_run_job_fail(job, IBEX_RUN_EXIT_INTERNAL, SIGKILL, "out of memory");
        job->kill_at_ms = 0;
    }
    while (run_busy(job)) {
        int k = pfd && who ? run_poll_set(job, pfd, who) : 0;
        int total = pfd && who ? run_hooks_poll_add(job, pfd, k) : 0;
        int rc = total ? poll(pfd, (nfds_t)total, run_poll_timeout(job)) : (usleep(10000), 0);
        if (rc < 0 && errno != EINTR) {
            ibex_run_job_fail(job, IBEX_RUN_EXIT_INTERNAL, SIGKILL, "poll failed: %s",
                              strerror(errno));
            usleep(10000);
        }
        if (rc > 0)
            run_dispatch(job, pfd, who, k);
        run_hooks_after(job, pfd, k, total, rc);
        ibex_run_job_supervise(job);
        ibex_run_job_deadlines(job);
    }
    ibex_run_job_held_commit(job); /* every rank is gone: nothing can outrank it now */
    /* Everything a rank wrote before it exited is still in its pipes. */
    for (int i = 0; i < 2 * job->n; i++)
        ibex_run_io_stream_drain(&job->streams[i]);
    free(pfd);
    free(who);
}

/* ---- binding ---- */

static ibex_status_t run_plan_bindings(ibex_run_job_t *job)
{
    int ncores = 0;
    if (job->p.bind != IBEX_RUN_BIND_NONE && ibex_run_bind_init(&ncores) != IBEX_OK)
        ncores = 0; /* no topology: run unbound rather than not at all */
    int *core_of = malloc((size_t)job->n * sizeof(*core_of));
    if (!core_of)
        return IBEX_ERR_NO_MEMORY;
    ibex_run_map_plan(job->n, ncores, job->p.bind, core_of);
    for (int i = 0; i < job->n; i++) {
        ibex_run_rank_t *r = &job->ranks[i];
        char cpus[64] = "";
        r->core = core_of[i];
        if (r->core >= 0 && ibex_run_bind_cpuset(r->core, &r->cpus, cpus, sizeof(cpus)) != 0)
            r->core = -1;
        if (!job->p.report_bindings)
            continue;
        if (r->core >= 0)
            ibex_run_say("rank %d bound to core %d (cpus %s)", i, r->core, cpus);
        else
            ibex_run_say("rank %d not bound (%s)", i,
                         job->p.bind == IBEX_RUN_BIND_NONE ? "--bind-to none"
                         : ncores > 0 ? "more ranks than cores, not a multiple of them"
                                      : "no core topology");
    }
    free(core_of);
    ibex_run_bind_fini();
    return IBEX_OK;
}

/* ---- start-up ---- */

static bool run_stdin_forwardable(void)
{
    if (fcntl(0, F_GETFD) < 0)
        return false;
    /* A launcher in the background must not stop on SIGTTIN by reading the terminal. */
    return !isatty(0) || tcgetpgrp(0) == getpgrp();
}

static ibex_status_t run_start_rank(ibex_run_job_t *job, int i)
{
    ibex_run_rank_t *r = &job->ranks[i];
    char **env = ibex_run_env_dup(job->p.env);
    if (!env)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st = ibex_run_pmix_setup_rank(job->pmix, i, &env);
    const ibex_run_job_app_t *app = &job->apps[job->app_of[i]];
    if (st == IBEX_OK)
        st = ibex_run_proc_spawn(r, app->path, app->argv, env, ibex_run_job_grank(job, i) == 0);
    ibex_run_env_free(env);
    if (st != IBEX_OK)
        return st;
    int g = ibex_run_job_grank(job, i);
    ibex_run_io_stream_init(&job->streams[2 * i], r->out_fd, g, 1);
    ibex_run_io_stream_init(&job->streams[2 * i + 1], r->err_fd, g, 2);
    if (g == 0) /* stdin goes to rank 0 of the job, wherever it runs */
        ibex_run_io_stdin_init(&job->in, run_stdin_forwardable() ? 0 : -1, r->in_fd);
    return IBEX_OK;
}

static void run_start_all(ibex_run_job_t *job)
{
    if (job->p.timeout_s)
        job->timeout_at_ms = ibex_run_now_ms() + 1000LL * job->p.timeout_s;
    for (int i = 0; i < job->n; i++) {
        if (job->failed || run_start_rank(job, i) != IBEX_OK) {
            /* never started: counts as gone */
            for (int k = i; k < job->n; k++)
                job->ranks[k].reaped = true;
            job->nreaped += job->n - i;
            ibex_run_job_fail(job, IBEX_RUN_EXIT_INTERNAL, SIGTERM, "cannot start rank %d", i);
            return;
        }
        /* An early failure (rank 0 dies at once) stops the launch at the next rank. */
        ibex_run_job_supervise(job);
    }
}

/* The applications (one from path / argv without MPMD) and the application of each rank. */
static ibex_status_t run_apps_init(ibex_run_job_t *job)
{
    int napps = job->p.napps > 0 ? job->p.napps : 1;
    job->apps = calloc((size_t)napps, sizeof(*job->apps));
    job->app_of = calloc((size_t)job->n + 1, sizeof(*job->app_of));
    if (!job->apps || !job->app_of)
        return IBEX_ERR_NO_MEMORY;
    if (job->p.napps > 0)
        memcpy(job->apps, job->p.apps, (size_t)napps * sizeof(*job->apps));
    else
        job->apps[0] =
            (ibex_run_job_app_t){.path = job->p.path, .argv = job->p.argv, .nranks = job->n};
    job->p.napps = napps;
    job->p.apps = job->apps;
    if (job->p.world) { /* the application of each local rank, from the job's table */
        for (int i = 0; i < job->n; i++)
            job->app_of[i] = job->p.world_app_of ? job->p.world_app_of[job->p.world->local[i]] : 0;
        return IBEX_OK;
    }
    for (int a = 0, r = 0; a < napps; a++)
        for (int k = 0; k < job->apps[a].nranks && r < job->n; k++)
            job->app_of[r++] = a;
    return IBEX_OK;
}

static ibex_status_t run_job_init(ibex_run_job_t *job)
{
    job->n = job->p.nranks;
    job->idle_rank = -1;
    job->sig_fd = job->wake[0] = job->wake[1] = -1;
    job->in.src = job->in.dst = -1;
    /* A head whose ranks all run on other hosts has none here: one slot keeps calloc honest. */
    job->ranks = calloc((size_t)job->n + 1, sizeof(*job->ranks));
    job->streams = calloc(2 * (size_t)job->n + 2, sizeof(*job->streams));
    job->batch = calloc((size_t)job->n + 1, sizeof(*job->batch));
    if (!job->ranks || !job->streams || !job->batch)
        return IBEX_ERR_NO_MEMORY;
    for (int i = 0; i < job->n; i++) {
        job->ranks[i] = (ibex_run_rank_t){.rank = i, .out_fd = -1, .err_fd = -1, .in_fd = -1};
        job->streams[2 * i].fd = job->streams[2 * i + 1].fd = -1;
    }
    if (run_apps_init(job) != IBEX_OK)
        return IBEX_ERR_NO_MEMORY;
    if (pipe2(job->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        ibex_error(LAUNCH, "pipe failed: %m");
        return IBEX_ERR_IO;
    }
    return IBEX_OK;
}

void ibex_run_job_destroy(ibex_run_job_t *job, bool clean)
{
    if (!job)
        return;
    ibex_run_pmix_fini(job->pmix, clean);
    ibex_run_hang_destroy(job->hang);
    ibex_run_io_stdin_close(&job->in);
    ibex_run_env_free(job->p.env);
    for (int i = 0; i < 2; i++)
        if (job->wake[i] >= 0)
            close(job->wake[i]);
    if (job->sig_fd >= 0)
        close(job->sig_fd);
    free(job->ranks);
    free(job->streams);
    free(job->batch);
    free(job->apps);
    free(job->app_of);
    free(job);
}

ibex_status_t ibex_run_job_create(const ibex_run_job_params_t *params, ibex_run_job_t **job_p)
{
    ibex_run_job_t *job = calloc(1, sizeof(*job));
    if (!job) {
        ibex_run_env_free(params->env);
        return IBEX_ERR_NO_MEMORY;
    }
    job->p = *params;
    *job_p = job;
    ibex_status_t st = run_job_init(job);
    if (st == IBEX_OK)
        st = run_plan_bindings(job);
    if (st == IBEX_OK)
        st = ibex_run_job_signals_setup(job);
    if (st == IBEX_OK)
        st = ibex_run_job_hang_setup(job);
    if (st == IBEX_OK)
        st = ibex_run_pmix_init(job->n, job->p.world ? job->p.world_app_of : job->app_of,
                                job->p.world, job->wake[1], &job->pmix);
    return st;
}

int ibex_run_job_run(ibex_run_job_t *job)
{
    run_start_all(job);
    run_loop(job);
    ibex_run_softib_sweep(job->p.env); /* a SIGKILLed rank removed none of its softib files */
    return job->exit_code;
}

int ibex_run_job_grank(const ibex_run_job_t *job, int i)
{
    return job->p.world ? job->p.world->local[i] : i;
}

void ibex_run_job_stop(ibex_run_job_t *job, int code, const char *msg)
{
    if (msg) {
        ibex_run_job_fail(job, code, SIGTERM, "%s", msg);
        return;
    }
    job->quiet_fail = true; /* the head already said why */
    ibex_run_job_fail(job, code, SIGTERM, "stopped by the head");
}

ibex_run_pmix_t *ibex_run_job_pmix(ibex_run_job_t *job)
{
    return job->pmix;
}

bool ibex_run_job_failed(const ibex_run_job_t *job)
{
    return job && job->failed;
}
