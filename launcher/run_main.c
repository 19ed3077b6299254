/*
 * ibexrun: starts N ranks of a program on this node under an embedded PMIx server, forwards
 * their I/O and the signals it receives, and supervises them. The first failure (a rank's
 * non-zero exit, death by a signal, MPI_Abort, an exit without MPI_Finalize, the timeout, or a
 * signal to ibexrun) is reported in one message and decides the exit code; every other rank is
 * then sent SIGTERM, and SIGKILL after IBEX_ABORT_GRACE_MS. See launcher/README.md.
 *
 * One thread runs everything here: poll() over the ranks' pipes, a signalfd (SIGCHLD, SIGINT,
 * SIGTERM, SIGHUP are blocked and read from it) and the wake-up pipe of the PMIx upcalls.
 */
#include "ibexrun.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "ibex_config.h"
#include "ibex_config_auto.h"
#include "ibex_log.h"
#include "run_config.h"

extern char **environ;

typedef struct run_exit run_exit_t;

typedef struct run_job {
    ibex_run_opts_t opts;
    char path[PATH_MAX];
    int n;
    ibex_run_rank_t *ranks;
    ibex_run_stream_t *streams; /* 2 per rank: stdout, stderr */
    run_exit_t *batch;          /* exits reaped in one pass, n entries */
    ibex_run_stdin_t in;
    ibex_run_pmix_t *pmix;
    char **base_env;
    int sig_fd;
    int wake[2];
    int nreaped;
    int exit_code;
    bool failed; /* the one message has been printed */
    bool held;   /* a failure waits to see whether a rank dies by a signal */
    int held_code;
    char held_msg[768];
    long long held_until_ms;
    int idle_rank;           /* a rank that exited 0 without MPI_Init, or -1 */
    long long kill_at_ms;    /* SIGKILL deadline while stopping, 0: none */
    long long timeout_at_ms; /* --timeout deadline, 0: none */
} run_job_t;

static long long run_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void run_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void run_say(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(msg, sizeof(msg) - 1, fmt, ap);
    va_end(ap);
    if (len < 0)
        return;
    len = len > (int)sizeof(msg) - 2 ? (int)sizeof(msg) - 2 : len;
    msg[len++] = '\n';
    ibex_run_io_write_all(2, "ibexrun: ", 9);
    ibex_run_io_write_all(2, msg, (size_t)len);
}

static int run_running(const run_job_t *job)
{
    return job->n - job->nreaped;
}

/* The first failure: one message, the exit code, then every other rank is stopped. */
static void run_fail(run_job_t *job, int code, int stop_sig, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void run_fail(run_job_t *job, int code, int stop_sig, const char *fmt, ...)
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
    run_say("%s%s", msg, run_running(job) > 0 ? "; stopping the job" : "");
    ibex_run_proc_signal_all(job->ranks, job->n, stop_sig);
    job->kill_at_ms = run_now_ms() + (ibex_run_abort_grace_ms > 0 ? ibex_run_abort_grace_ms : 0);
}

/* A failure that may be the consequence of another: a rank that vanishes makes its peers' PMIx
 * fence fail, and they may exit or abort before the vanished rank's process can be reaped (its
 * PMIx connection closes early in its exit). So exits with a code and aborts are held for
 * RUN_HOLD_MS while ibexrun keeps reaping; a rank killed by a signal meanwhile is reported
 * instead, as the cause. Otherwise the first held failure is reported when the time is up (or
 * when every rank is gone). */
#define RUN_HOLD_MS 200

static void run_fail_held(run_job_t *job, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void run_fail_held(run_job_t *job, int code, const char *fmt, ...)
{
    if (job->failed || job->held)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(job->held_msg, sizeof(job->held_msg), fmt, ap);
    va_end(ap);
    job->held = true;
    job->held_code = code;
    job->held_until_ms = run_now_ms() + RUN_HOLD_MS;
}

static void run_held_commit(run_job_t *job)
{
    if (!job->held)
        return;
    job->held = false;
    run_fail(job, job->held_code, SIGTERM, "%s", job->held_msg);
}

/* ---- what the PMIx server saw ---- */

static void run_check_abort(run_job_t *job)
{
    int rank, code;
    char msg[256];
    if (job->failed || !ibex_run_pmix_abort_info(job->pmix, &rank, &code, msg, sizeof(msg)))
        return;
    /* An exit code is 8 bits; an abort must never look like success. */
    int ec = code & 0xff ? code & 0xff : 1;
    run_fail_held(job, ec, "rank %d (pid %d) aborted the job with code %d%s%s%s", rank,
                  (int)job->ranks[rank].pid, code, msg[0] ? " (" : "", msg, msg[0] ? ")" : "");
}

static void run_check_idle(run_job_t *job)
{
    if (job->failed || job->idle_rank < 0 || !ibex_run_pmix_any_connected(job->pmix))
        return;
    /* The others wait for it in MPI_Init's fence forever: end the job instead. */
    const ibex_run_rank_t *r = &job->ranks[job->idle_rank];
    const char *what = "exited without calling MPI_Init while other ranks did";
    run_fail(job, 1, SIGTERM, "rank %d (pid %d) %s", r->rank, (int)r->pid, what);
}

/* ---- rank exits ---- */

/* Ordering: a rank's own MPI_Abort is recorded before it can exit, so it is reported as the
 * abort. Exits are classified before other ranks' aborts seen in the same pass: a rank that
 * vanished makes its peers' PMIx calls fail, and they may abort because of it, after it. */
static void run_on_exit(run_job_t *job, ibex_run_rank_t *r)
{
    ibex_run_pmix_rank_t st;
    int arank = -1, code;
    char msg[8];
    ibex_run_pmix_rank_state(job->pmix, r->rank, &st);
    int ws = r->wstatus, pid = (int)r->pid;
    if (ibex_run_pmix_abort_info(job->pmix, &arank, &code, msg, sizeof(msg)) && arank == r->rank) {
        run_check_abort(job);
    } else if (WIFSIGNALED(ws)) {
        int sig = WTERMSIG(ws);
        run_fail(job, 128 + sig, SIGTERM, "rank %d (pid %d) killed by signal %d (%s)", r->rank, pid,
                 sig, strsignal(sig));
    } else if (WEXITSTATUS(ws) != 0) {
        run_fail_held(job, WEXITSTATUS(ws), "rank %d (pid %d) exited with code %d", r->rank, pid,
                      WEXITSTATUS(ws));
    } else if (st.connected && !st.finalized) {
        run_fail_held(job, 1, "rank %d (pid %d) exited without calling MPI_Finalize", r->rank, pid);
    } else if (!st.connected && job->idle_rank < 0) {
        job->idle_rank = r->rank;
        run_check_idle(job);
    }
    ibex_debug(LAUNCH, "rank %d (pid %d) reaped, status 0x%x", r->rank, pid, ws);
}

struct run_exit {
    int rank;
    long long ran_ns;
};

static int run_exit_cmp(const void *a, const void *b)
{
    const run_exit_t *x = a, *y = b;
    if (x->ran_ns != y->ran_ns) /* unknown times (-1) keep their place at the front */
        return x->ran_ns < y->ran_ns ? -1 : 1;
    return x->rank - y->rank;
}

/* Reaps every exited rank, then judges them in the order they exited. */
static void run_reap(run_job_t *job)
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

static ibex_status_t run_signals_setup(run_job_t *job)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGQUIT);
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

static void run_on_signal(run_job_t *job)
{
    struct signalfd_siginfo si;
    while (read(job->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD)
            continue;      /* reaped below, every iteration */
        if (job->failed) { /* a second Ctrl-C: no more grace */
            ibex_run_proc_signal_all(job->ranks, job->n, SIGKILL);
            continue;
        }
        run_fail(job, 128 + sig, sig, "received signal %d (%s)", sig, strsignal(sig));
    }
}

/* ---- deadlines ---- */

static void run_on_timeout(run_job_t *job)
{
    int *left = calloc((size_t)job->n, sizeof(*left)), nleft = 0;
    char list[512] = "?";
    if (left) {
        for (int i = 0; i < job->n; i++)
            if (!job->ranks[i].reaped)
                left[nleft++] = i;
        ibex_run_map_format_ranks(left, nleft, list, sizeof(list));
        free(left);
    }
    run_fail(job, IBEX_RUN_EXIT_TIMEOUT, SIGTERM, "timeout after %d s; rank%s %s still running",
             job->opts.timeout_s, nleft == 1 ? "" : "s", list);
}

static void run_deadlines(run_job_t *job)
{
    long long now = run_now_ms();
    if (job->held && now >= job->held_until_ms)
        run_held_commit(job);
    if (job->timeout_at_ms && now >= job->timeout_at_ms) {
        job->timeout_at_ms = 0;
        run_on_timeout(job);
    }
    if (job->kill_at_ms && now >= job->kill_at_ms) {
        job->kill_at_ms = 0;
        ibex_debug(LAUNCH, "grace period over: SIGKILL to %d rank(s)", run_running(job));
        ibex_run_proc_signal_all(job->ranks, job->n, SIGKILL);
    }
}

static int run_poll_timeout(const run_job_t *job)
{
    long long next = 0, now = run_now_ms();
    if (job->timeout_at_ms)
        next = job->timeout_at_ms;
    if (job->kill_at_ms && (!next || job->kill_at_ms < next))
        next = job->kill_at_ms;
    if (job->held && (!next || job->held_until_ms < next))
        next = job->held_until_ms;
    if (!next)
        return -1;
    return next <= now ? 0 : (int)(next - now);
}

/* ---- the loop ---- */

enum { WHO_SIG = -1, WHO_WAKE = -2, WHO_STDIN = -3, WHO_RANK0_IN = -4 };

static int run_poll_set(run_job_t *job, struct pollfd *pfd, int *who)
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

static void run_drain_wake(run_job_t *job)
{
    char buf[256];
    while (read(job->wake[0], buf, sizeof(buf)) > 0)
        ;
}

/* Exits first, then what the PMIx server saw (see run_on_exit for why). */
static void run_supervise(run_job_t *job)
{
    run_reap(job);
    run_check_abort(job);
    run_check_idle(job);
}

static void run_dispatch(run_job_t *job, struct pollfd *pfd, const int *who, int k)
{
    for (int j = 0; j < k; j++) {
        if (!pfd[j].revents)
            continue;
        if (who[j] == WHO_SIG)
            run_on_signal(job);
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

static void run_loop(run_job_t *job)
{
    struct pollfd *pfd = calloc((size_t)(2 * job->n + 4), sizeof(*pfd));
    int *who = calloc((size_t)(2 * job->n + 4), sizeof(*who));
    if (!pfd || !who) {
        run_fail(job, IBEX_RUN_EXIT_INTERNAL, SIGKILL, "out of memory");
        job->kill_at_ms = 0;
    }
    while (run_running(job) > 0) {
        int k = pfd && who ? run_poll_set(job, pfd, who) : 0;
        int rc = k ? poll(pfd, (nfds_t)k, run_poll_timeout(job)) : (usleep(10000), 0);
        if (rc < 0 && errno != EINTR) {
            run_fail(job, IBEX_RUN_EXIT_INTERNAL, SIGKILL, "poll failed: %s", strerror(errno));
            usleep(10000);
        }
        if (rc > 0)
            run_dispatch(job, pfd, who, k);
        run_supervise(job);
        run_deadlines(job);
    }
    run_held_commit(job); /* every rank is gone: nothing can outrank it now */
    /* Everything a rank wrote before it exited is still in its pipes. */
    for (int i = 0; i < 2 * job->n; i++)
        ibex_run_io_stream_drain(&job->streams[i]);
    free(pfd);
    free(who);
}

/* ---- the ranks' environment ---- */

/* Variables of an outer launcher (ibexrun started by mpirun or srun) would point our ranks at
 * the wrong PMIx server; they go before our server starts. PMIX_MCA_* settings stay. */
static void run_env_scrub(void)
{
    char *names[256];
    int n = 0;
    for (char **e = environ; *e && n < 256; e++) {
        bool pmix = strncmp(*e, "PMIX_", 5) == 0 && strncmp(*e, "PMIX_MCA_", 9) != 0;
        if (!pmix && strncmp(*e, "PMI_", 4) != 0)
            continue;
        names[n] = strndup(*e, strcspn(*e, "="));
        if (names[n])
            n++;
    }
    for (int i = 0; i < n; i++) {
        ibex_debug(LAUNCH, "dropping %s from an outer launcher", names[i]);
        unsetenv(names[i]);
        free(names[i]);
    }
}

/* libsoftib.so next to an installed ibexrun, or in the build tree next to ours. */
static ibex_status_t run_softib_find(char *path, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = '\0';
    const char *dir = dirname(exe);
    char cands[3][PATH_MAX + 64];
    snprintf(cands[0], sizeof(cands[0]), "%s/../lib/libsoftib.so", dir);
    snprintf(cands[1], sizeof(cands[1]), "%s/../softib/.libs/libsoftib.so", dir);
    snprintf(cands[2], sizeof(cands[2]), "%s/libsoftib.so", IBEX_RUN_LIBDIR);
    for (int i = 0; i < 3; i++) {
        if (access(cands[i], R_OK) == 0 && realpath(cands[i], path)) {
            (void)len;
            return IBEX_OK;
        }
    }
    run_say("--softib: libsoftib.so not found (looked for %s, %s and %s)", cands[0], cands[1],
            cands[2]);
    return IBEX_ERR_NO_DEVICE;
}

static ibex_status_t run_env_softib(char ***env_p)
{
    char lib[PATH_MAX];
    if (run_softib_find(lib, sizeof(lib)) != IBEX_OK)
        return IBEX_ERR_NO_DEVICE;
    const char *old = ibex_run_env_get(*env_p, "LD_PRELOAD");
    char preload[2 * PATH_MAX];
    snprintf(preload, sizeof(preload), "%s%s%s", lib, old && *old ? " " : "", old ? old : "");
    if (ibex_run_env_set(env_p, "LD_PRELOAD", preload) != IBEX_OK ||
        ibex_run_env_set(env_p, "IBEX_TRANSPORTS", "verbs") != IBEX_OK)
        return IBEX_ERR_NO_MEMORY;
    return IBEX_OK;
}

static ibex_status_t run_env_build(run_job_t *job)
{
    job->base_env = ibex_run_env_dup(environ);
    if (!job->base_env)
        return IBEX_ERR_NO_MEMORY;
    for (int i = 0; i < job->opts.nenv; i++) {
        const char *x = job->opts.env[i], *eq = strchr(x, '=');
        char name[256];
        snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - x) : (int)strlen(x), x);
        const char *value = eq ? eq + 1 : getenv(name);
        if (!value) {
            run_say("warning: -x %s: not set here, not exported", name);
            continue;
        }
        if (ibex_run_env_set(&job->base_env, name, value) != IBEX_OK)
            return IBEX_ERR_NO_MEMORY;
    }
    return job->opts.softib ? run_env_softib(&job->base_env) : IBEX_OK;
}

/* ---- binding ---- */

static ibex_status_t run_plan_bindings(run_job_t *job)
{
    int ncores = 0;
    if (job->opts.bind != IBEX_RUN_BIND_NONE && ibex_run_bind_init(&ncores) != IBEX_OK)
        ncores = 0; /* no topology: run unbound rather than not at all */
    int *core_of = malloc((size_t)job->n * sizeof(*core_of));
    if (!core_of)
        return IBEX_ERR_NO_MEMORY;
    ibex_run_map_plan(job->n, ncores, job->opts.bind, core_of);
    for (int i = 0; i < job->n; i++) {
        ibex_run_rank_t *r = &job->ranks[i];
        char cpus[64] = "";
        r->core = core_of[i];
        if (r->core >= 0 && ibex_run_bind_cpuset(r->core, &r->cpus, cpus, sizeof(cpus)) != 0)
            r->core = -1;
        if (!job->opts.report_bindings)
            continue;
        if (r->core >= 0)
            run_say("rank %d bound to core %d (cpus %s)", i, r->core, cpus);
        else
            run_say("rank %d not bound (%s)", i,
                    job->opts.bind == IBEX_RUN_BIND_NONE ? "--bind-to none"
                    : ncores > 0                         ? "more ranks than cores"
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

static ibex_status_t run_start_rank(run_job_t *job, int i)
{
    ibex_run_rank_t *r = &job->ranks[i];
    char **env = ibex_run_env_dup(job->base_env);
    if (!env)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st = ibex_run_pmix_setup_rank(job->pmix, i, &env);
    if (st == IBEX_OK)
        st = ibex_run_proc_spawn(r, job->path, job->opts.prog_argv, env, i == 0);
    ibex_run_env_free(env);
    if (st != IBEX_OK)
        return st;
    ibex_run_io_stream_init(&job->streams[2 * i], r->out_fd, i, 1);
    ibex_run_io_stream_init(&job->streams[2 * i + 1], r->err_fd, i, 2);
    if (i == 0)
        ibex_run_io_stdin_init(&job->in, run_stdin_forwardable() ? 0 : -1, r->in_fd);
    return IBEX_OK;
}

static void run_start_all(run_job_t *job)
{
    if (job->opts.timeout_s)
        job->timeout_at_ms = run_now_ms() + 1000LL * job->opts.timeout_s;
    for (int i = 0; i < job->n; i++) {
        if (job->failed || run_start_rank(job, i) != IBEX_OK) {
            /* never started: counts as gone */
            for (int k = i; k < job->n; k++)
                job->ranks[k].reaped = true;
            job->nreaped += job->n - i;
            run_fail(job, IBEX_RUN_EXIT_INTERNAL, SIGTERM, "cannot start rank %d", i);
            return;
        }
        /* An early failure (rank 0 dies at once) stops the launch at the next rank. */
        run_supervise(job);
    }
}

static ibex_status_t run_job_init(run_job_t *job)
{
    job->n = job->opts.nranks;
    job->idle_rank = -1;
    job->sig_fd = job->wake[0] = job->wake[1] = -1;
    job->in.src = job->in.dst = -1;
    job->ranks = calloc((size_t)job->n, sizeof(*job->ranks));
    job->streams = calloc(2 * (size_t)job->n, sizeof(*job->streams));
    job->batch = calloc((size_t)job->n, sizeof(*job->batch));
    if (!job->ranks || !job->streams || !job->batch)
        return IBEX_ERR_NO_MEMORY;
    for (int i = 0; i < job->n; i++) {
        job->ranks[i] = (ibex_run_rank_t){.rank = i, .out_fd = -1, .err_fd = -1, .in_fd = -1};
        job->streams[2 * i].fd = job->streams[2 * i + 1].fd = -1;
    }
    if (pipe2(job->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        ibex_error(LAUNCH, "pipe failed: %m");
        return IBEX_ERR_IO;
    }
    return IBEX_OK;
}

static void run_job_fini(run_job_t *job, bool clean)
{
    ibex_run_pmix_fini(job->pmix, clean);
    ibex_run_io_stdin_close(&job->in);
    ibex_run_env_free(job->base_env);
    for (int i = 0; i < 2; i++)
        if (job->wake[i] >= 0)
            close(job->wake[i]);
    if (job->sig_fd >= 0)
        close(job->sig_fd);
    free(job->ranks);
    free(job->streams);
    free(job->batch);
    ibex_run_opts_free(&job->opts);
}

/* So that 1024 ranks (3 pipes each) fit. */
static void run_raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* ---- host file ---- */

static bool run_host_is_local(const char *h)
{
    char me[256] = "";
    gethostname(me, sizeof(me) - 1);
    size_t short_len = strcspn(me, ".");
    return strcmp(h, "localhost") == 0 || strcmp(h, "127.0.0.1") == 0 || strcmp(h, "::1") == 0 ||
           strcmp(h, me) == 0 || (strlen(h) == short_len && strncmp(h, me, short_len) == 0);
}

/* The whole file as a string (host files are small: 1 MiB at most). */
static char *run_read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        run_say("--hostfile: cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 20;
    char *text = malloc(cap + 1);
    size_t n = text ? fread(text, 1, cap, f) : 0;
    bool too_big = text && n == cap && fgetc(f) != EOF;
    fclose(f);
    if (!text || too_big) {
        run_say("--hostfile: %s is too large", path);
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

/* Accepts a host file that names only this node; its slots give -n when -n is absent. */
static int run_hostfile_apply(run_job_t *job)
{
    char err[512], *text = job->opts.hostfile ? run_read_file(job->opts.hostfile) : NULL;
    ibex_run_hostfile_t hf;
    if (!job->opts.hostfile)
        return -1;
    if (!text)
        return IBEX_RUN_EXIT_USAGE;
    ibex_status_t st = ibex_run_hostfile_parse(text, job->opts.hostfile, &hf, err, sizeof(err));
    free(text);
    if (st != IBEX_OK) {
        run_say("--hostfile: %s", err);
        return IBEX_RUN_EXIT_USAGE;
    }
    int slots = 0, code = -1;
    for (int i = 0; i < hf.nhosts && code < 0; i++) {
        slots += hf.hosts[i].slots;
        if (!run_host_is_local(hf.hosts[i].name)) {
            run_say("--hostfile: host '%s' is not this node: starting ranks on other hosts is "
                    "not supported yet",
                    hf.hosts[i].name);
            code = IBEX_RUN_EXIT_USAGE;
        }
    }
    if (code < 0 && !job->opts.nranks_set)
        job->opts.nranks = slots < IBEX_RUN_MAX_RANKS ? slots : IBEX_RUN_MAX_RANKS;
    ibex_run_hostfile_free(&hf);
    return code;
}

/* Options, program lookup: every problem here is a usage error (exit 2). */
static int run_parse(run_job_t *job, int argc, char **argv)
{
    char err[512];
    if (ibex_run_opts_parse(argc, argv, &job->opts, err, sizeof(err)) != IBEX_OK) {
        run_say("%s", err);
        fprintf(stderr, "Try 'ibexrun --help' for more information.\n");
        return IBEX_RUN_EXIT_USAGE;
    }
    if (job->opts.help) {
        ibex_run_opts_usage(stdout);
        return 0;
    }
    if (job->opts.version) {
        printf("ibexrun (Ibex) %s\nPMIx %s\n", PACKAGE_VERSION, PMIx_Get_version());
        return 0;
    }
    if (ibex_run_proc_resolve(job->opts.prog_argv[0], job->path, sizeof(job->path), err,
                              sizeof(err)) != IBEX_OK) {
        run_say("%s", err);
        return IBEX_RUN_EXIT_USAGE;
    }
    return run_hostfile_apply(job);
}

static int run_setup(run_job_t *job)
{
    if (run_job_init(job) != IBEX_OK)
        return IBEX_RUN_EXIT_INTERNAL;
    if (run_env_build(job) != IBEX_OK)
        return job->opts.softib ? IBEX_RUN_EXIT_USAGE : IBEX_RUN_EXIT_INTERNAL;
    if (run_plan_bindings(job) != IBEX_OK || run_signals_setup(job) != IBEX_OK)
        return IBEX_RUN_EXIT_INTERNAL;
    if (ibex_run_pmix_init(job->n, job->wake[1], &job->pmix) != IBEX_OK)
        return IBEX_RUN_EXIT_INTERNAL;
    return -1;
}

static volatile sig_atomic_t run_final_code;

static void run_on_alarm(int sig)
{
    _exit(run_final_code);
}

int main(int argc, char **argv)
{
    run_job_t job = {.sig_fd = -1, .wake = {-1, -1}, .in = {.src = -1, .dst = -1}};
    ibex_log_set_identity("ibexrun");
    /* A bad IBEX_ value is reported and its default kept. Only ibexrun's own tables: the ranks
     * check the rest of the environment they inherit. */
    ibex_config_load_own();
    run_raise_fd_limit();
    int code = run_parse(&job, argc, argv);
    if (code < 0) {
        run_env_scrub();
        ibex_run_io_setup(job.opts.tag_output);
        code = run_setup(&job);
    }
    if (code < 0) {
        run_start_all(&job);
        run_loop(&job);
        code = job.exit_code;
    }
    bool clean = !job.failed && code == 0;
    run_final_code = code;
    signal(SIGALRM, run_on_alarm);
    alarm(10); /* PMIx_server_finalize must not hang a successful job (run_pmix.c) */
    run_job_fini(&job, clean);
    if (!clean) { /* the PMIx thread may still run: no exit-time destructors (run_pmix.c) */
        fflush(stdout);
        fflush(stderr);
        _exit(code);
    }
    return code;
}
