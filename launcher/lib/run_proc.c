/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rank processes: found like execvp would, started with fork + execve (never a shell), each in
 * its own process group so that a signal reaches whatever the rank itself started. Between fork
 * and exec the child only makes async-signal-safe calls: the launcher has a PMIx thread, and a
 * lock held by that thread at fork time would never be released in the child.
 */
#include "ibex_launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ibex_log.h"

/* ---- finding the program ---- */

/* 0: runnable; else an errno saying why not. */
static int proc_check(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return errno;
    if (S_ISDIR(sb.st_mode))
        return EISDIR;
    if (!S_ISREG(sb.st_mode) || access(path, X_OK) != 0)
        return EACCES;
    return 0;
}

static ibex_status_t proc_resolve_path(const char *prog, char *path, size_t len, char *err,
                                       size_t errlen)
{
    int e = proc_check(prog);
    if (e != 0) {
        snprintf(err, errlen, "cannot run '%s': %s", prog,
                 e == EACCES ? "not an executable file" : strerror(e));
        return IBEX_ERR_INVALID;
    }
    snprintf(path, len, "%s", prog);
    return IBEX_OK;
}

ibex_status_t ibex_run_proc_resolve(const char *prog, char *path, size_t len, char *err,
                                    size_t errlen)
{
    if (strchr(prog, '/'))
        return proc_resolve_path(prog, path, len, err, errlen);
    const char *dirs = getenv("PATH"); /* not a tunable: the program search path */
    bool seen_noexec = false;
    for (const char *p = dirs ? dirs : "/usr/local/bin:/usr/bin:/bin"; p;) {
        const char *colon = strchr(p, ':');
        int dlen = colon ? (int)(colon - p) : (int)strlen(p);
        char cand[4096];
        /* An empty PATH entry means the current directory. */
        snprintf(cand, sizeof(cand), "%.*s/%s", dlen ? dlen : 1, dlen ? p : ".", prog);
        int e = proc_check(cand);
        if (e == 0) {
            snprintf(path, len, "%s", cand);
            return IBEX_OK;
        }
        seen_noexec |= e == EACCES;
        p = colon ? colon + 1 : NULL;
    }
    snprintf(err, errlen, "cannot run '%s': %s", prog,
             seen_noexec ? "found in PATH but not executable" : "not found in PATH");
    return IBEX_ERR_INVALID;
}

/* ---- starting a rank ---- */

/* Async-signal-safe: the child's last words if exec fails. */
static void proc_child_fail(const char *path)
{
    int e = errno;
    static const char head[] = "ibexrun: cannot execute ";
    if (write(2, head, sizeof(head) - 1) >= 0 && write(2, path, strlen(path)) >= 0 &&
        write(2, "\n", 1) >= 0) {
    }
    _exit(e == ENOENT ? 127 : 126);
}

static void proc_child(const ibex_run_rank_t *r, int in, int out, int err, const char *path,
                       char *const argv[], char *const envp[], pid_t launcher)
{
    /* If the launcher itself is killed (SIGKILL cannot be forwarded), the ranks die with it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != launcher)
        _exit(126);
    setpgid(0, 0);
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
        _exit(126);
    /* The launcher ignores SIGPIPE and blocks the signals it reads through signalfd; neither
     * must leak into the rank (ignored dispositions and the mask survive exec). */
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigaction(SIGPIPE, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (r->core >= 0 && sched_setaffinity(0, sizeof(r->cpus), &r->cpus) != 0) {
        static const char warn[] = "ibexrun: warning: cannot bind to the planned core\n";
        if (write(2, warn, sizeof(warn) - 1) < 0) {
        }
    }
    execve(path, argv, envp);
    proc_child_fail(path);
}

static void proc_close_pair(int fds[2])
{
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

static ibex_status_t proc_pipes(int out[2], int err[2], int in[2], bool with_stdin)
{
    out[0] = out[1] = err[0] = err[1] = in[0] = in[1] = -1;
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
        goto err_pipe;
    if (with_stdin ? pipe2(in, O_CLOEXEC) != 0
                   : (in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
        goto err_pipe;
    return IBEX_OK;
err_pipe:
    ibex_error(LAUNCH, "cannot create the pipes of a rank: %m");
    proc_close_pair(out);
    proc_close_pair(err);
    proc_close_pair(in);
    return IBEX_ERR_IO;
}

ibex_status_t ibex_run_proc_spawn(ibex_run_rank_t *r, const char *path, char *const argv[],
                                  char *const envp[], bool with_stdin)
{
    int out[2], err[2], in[2];
    if (proc_pipes(out, err, in, with_stdin) != IBEX_OK)
        return IBEX_ERR_IO;
    pid_t launcher = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        ibex_error(LAUNCH, "cannot fork rank %d: %m", r->rank);
        proc_close_pair(out);
        proc_close_pair(err);
        proc_close_pair(in);
        return IBEX_ERR_NO_MEMORY;
    }
    if (pid == 0)
        proc_child(r, in[0], out[1], err[1], path, argv, envp, launcher);
    /* Also from the parent, so that a signal sent right now already reaches the group. */
    setpgid(pid, pid);
    close(out[1]);
    close(err[1]);
    close(in[0]);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    if (in[1] >= 0)
        fcntl(in[1], F_SETFL, O_NONBLOCK);
    r->pid = pid;
    r->out_fd = out[0];
    r->err_fd = err[0];
    r->in_fd = in[1];
    r->reaped = false;
    return IBEX_OK;
}

void ibex_run_proc_signal_all(ibex_run_rank_t *ranks, int n, int sig)
{
    for (int i = 0; i < n; i++) {
        if (ranks[i].pid <= 0 || ranks[i].reaped)
            continue;
        /* The group reaches the rank's own children; the pid covers a rank that left it. */
        kill(-ranks[i].pid, sig);
        kill(ranks[i].pid, sig);
    }
}

/* When a zombie last ran, from the scheduler's statistics (ns; -1 if unknown): its final
 * time slice is its exit path, so this orders exits. The kernel keeps no exit time otherwise,
 * and the order matters: a rank that dies makes its peers' PMIx calls fail, and they may exit
 * right after it, before the launcher wakes up. Needs CONFIG_SCHED_DEBUG (Debian has it). */
static long long proc_last_ran_ns(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/sched", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    const char *p = strstr(buf, "se.exec_start");
    unsigned long long ms, frac;
    if (!p || sscanf(strchr(p, ':') ? strchr(p, ':') + 1 : p, " %llu.%6llu", &ms, &frac) != 2)
        return -1;
    return (long long)(ms * 1000000ULL + frac);
}

static int proc_find(const ibex_run_rank_t *ranks, int n, pid_t pid)
{
    for (int i = 0; i < n; i++)
        if (ranks[i].pid == pid && !ranks[i].reaped)
            return i;
    return -1;
}

bool ibex_run_proc_reap_one(ibex_run_rank_t *ranks, int n, int *rank_p, long long *ran_p)
{
    for (;;) {
        siginfo_t si = {0};
        /* Peek first (WNOWAIT): /proc/PID of a zombie is readable until it is reaped. */
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        if (si.si_pid == 0)
            return false;
        long long ran = proc_last_ran_ns(si.si_pid);
        int wstatus;
        while (waitpid(si.si_pid, &wstatus, 0) < 0 && errno == EINTR)
            ;
        int i = proc_find(ranks, n, si.si_pid);
        if (i < 0)
            continue;
        ranks[i].reaped = true;
        ranks[i].wstatus = wstatus;
        *rank_p = i;
        *ran_p = ran;
        return true;
    }
}

/* ---- environment arrays ---- */

char **ibex_run_env_dup(char **env)
{
    size_t n = 0;
    while (env && env[n])
        n++;
    char **copy = calloc(n + 1, sizeof(*copy));
    if (!copy)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!(copy[i] = strdup(env[i]))) {
            ibex_run_env_free(copy);
            return NULL;
        }
    }
    return copy;
}

static char **env_slot(char **env, const char *name)
{
    size_t len = strlen(name);
    for (; *env; env++)
        if (strncmp(*env, name, len) == 0 && (*env)[len] == '=')
            return env;
    return NULL;
}

const char *ibex_run_env_get(char **env, const char *name)
{
    char **slot = env_slot(env, name);
    return slot ? *slot + strlen(name) + 1 : NULL;
}

ibex_status_t ibex_run_env_set(char ***env_p, const char *name, const char *value)
{
    size_t len = strlen(name) + strlen(value) + 2;
    char *entry = malloc(len);
    if (!entry)
        return IBEX_ERR_NO_MEMORY;
    snprintf(entry, len, "%s=%s", name, value);
    char **slot = env_slot(*env_p, name);
    if (slot) {
        free(*slot);
        *slot = entry;
        return IBEX_OK;
    }
    size_t n = 0;
    while ((*env_p)[n])
        n++;
    char **grown = realloc(*env_p, (n + 2) * sizeof(*grown));
    if (!grown) {
        free(entry);
        return IBEX_ERR_NO_MEMORY;
    }
    grown[n] = entry;
    grown[n + 1] = NULL;
    *env_p = grown;
    return IBEX_OK;
}

void ibex_run_env_free(char **env)
{
    for (size_t i = 0; env && env[i]; i++)
        free(env[i]);
    free(env);
}
