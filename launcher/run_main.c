/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibexrun: starts N ranks of a program on this node under an embedded PMIx server, forwards
 * their I/O and the signals it receives, and supervises them (all of which libibexlaunch does,
 * launcher/lib/ibex_launch.h). Here: the command line, what ibexrun prepares before the job (the
 * host file, the ranks' environment, an outer launcher's variables), and the exit.
 * See launcher/README.md.
 */
#include "ibexrun.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <pmix.h>

#include "ibex_config.h"
#include "ibex_config_auto.h"
#include "ibex_log.h"
#include "run_config.h"

extern char **environ;

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
    ibex_run_say("--softib: libsoftib.so not found (looked for %s, %s and %s)", cands[0], cands[1],
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

/* The ranks' environment: ours, -x variables, --softib's LD_PRELOAD and IBEX_TRANSPORTS. */
static ibex_status_t run_env_build(const ibex_run_opts_t *opts, char ***env_p)
{
    char **env = ibex_run_env_dup(environ);
    ibex_status_t st = env ? IBEX_OK : IBEX_ERR_NO_MEMORY;
    for (int i = 0; st == IBEX_OK && i < opts->nenv; i++) {
        const char *x = opts->env[i], *eq = strchr(x, '=');
        char name[256];
        snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - x) : (int)strlen(x), x);
        const char *value = eq ? eq + 1 : getenv(name);
        if (!value)
            ibex_run_say("warning: -x %s: not set here, not exported", name);
        else
            st = ibex_run_env_set(&env, name, value);
    }
    if (st == IBEX_OK && opts->softib)
        st = run_env_softib(&env);
    if (st != IBEX_OK) {
        ibex_run_env_free(env);
        return st;
    }
    *env_p = env;
    return IBEX_OK;
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

/* Each application's program, found like execvp: paths[a], PATH_MAX each. */
static int run_resolve_apps(const ibex_run_opts_t *opts, char (*paths)[PATH_MAX])
{
    char err[512];
    for (int a = 0; a < opts->napps; a++) {
        if (ibex_run_proc_resolve(opts->apps[a].argv[0], paths[a], PATH_MAX, err, sizeof(err)) !=
            IBEX_OK) {
            ibex_run_say("%s", err);
            return IBEX_RUN_EXIT_USAGE;
        }
    }
    return -1;
}

/* Options, program lookup, the host plan: every problem here is a usage error (exit 2). */
static int run_parse(ibex_run_opts_t *opts, char (*paths)[PATH_MAX], ibex_run_plan_t *plan,
                     int argc, char **argv)
{
    char err[512];
    if (ibex_run_opts_parse(argc, argv, opts, err, sizeof(err)) != IBEX_OK) {
        ibex_run_say("%s", err);
        fprintf(stderr, "Try 'ibexrun --help' for more information.\n");
        return IBEX_RUN_EXIT_USAGE;
    }
    if (opts->help) {
        ibex_run_opts_usage(stdout);
        return 0;
    }
    if (opts->version) {
        printf("ibexrun (Ibex) %s\nPMIx %s\n", PACKAGE_VERSION, PMIx_Get_version());
        return 0;
    }
    int code = run_resolve_apps(opts, paths);
    return code < 0 ? ibex_run_hosts_plan(opts, plan) : code;
}

/* The job from the options: every problem here is the launcher's own (exit 125), but a
 * missing --softib library (exit 2). */
static int run_setup(const ibex_run_opts_t *opts, char (*paths)[PATH_MAX],
                     const ibex_run_plan_t *plan, ibex_run_job_t **job_p)
{
    ibex_run_job_app_t apps[IBEX_RUN_MAX_APPS];
    for (int a = 0; a < opts->napps; a++)
        apps[a] = (ibex_run_job_app_t){
            .path = paths[a], .argv = opts->apps[a].argv, .nranks = opts->apps[a].nranks};
    ibex_run_job_params_t p = {
        .nranks = plan->nranks,
        .path = paths[0],
        .argv = opts->prog_argv,
        .napps = opts->napps,
        .apps = apps,
        .bind = opts->bind,
        .report_bindings = opts->report_bindings,
        .timeout_s = opts->timeout_s,
        .abort_grace_ms = ibex_run_abort_grace_ms,
        .hang_report_s = opts->hang_report_s,
    };
    ibex_status_t st = run_env_build(opts, &p.env);
    if (st != IBEX_OK)
        return st == IBEX_ERR_NO_DEVICE ? IBEX_RUN_EXIT_USAGE : IBEX_RUN_EXIT_INTERNAL;
    if (ibex_run_job_create(&p, job_p) != IBEX_OK)
        return IBEX_RUN_EXIT_INTERNAL;
    return -1;
}

/* A plan with ranks on other hosts: the head (run_head.c). */
static int run_head(const ibex_run_opts_t *opts, char (*paths)[PATH_MAX],
                    const ibex_run_plan_t *plan)
{
    char **env = NULL;
    ibex_status_t st = run_env_build(opts, &env);
    if (st != IBEX_OK)
        return st == IBEX_ERR_NO_DEVICE ? IBEX_RUN_EXIT_USAGE : IBEX_RUN_EXIT_INTERNAL;
    int code = ibex_run_head_main(opts, paths, plan, env);
    ibex_run_env_free(env);
    return code;
}

static int run_daemon(const char *addr, const char *node)
{
    run_env_scrub();
    int code = ibex_run_daemon_main(addr, node);
    fflush(stdout);
    fflush(stderr);
    _exit(code); /* the PMIx thread may still run (run_pmix.c) */
}

static volatile sig_atomic_t run_final_code;

static void run_on_alarm(int sig)
{
    _exit(run_final_code);
}

int main(int argc, char **argv)
{
    ibex_run_opts_t opts = {0};
    ibex_run_plan_t plan = {0};
    ibex_run_job_t *job = NULL;
    static char paths[IBEX_RUN_MAX_APPS][PATH_MAX];
    ibex_log_set_identity("ibexrun");
    ibex_run_say_set_name("ibexrun");
    /* A bad IBEX_ value is reported and its default kept. Only ibexrun's own tables: the ranks
     * check the rest of the environment they inherit. */
    ibex_config_load_own();
    run_raise_fd_limit();
    if (argc == 4 && strcmp(argv[1], "--daemon") == 0) /* started by a head's launch agent */
        return run_daemon(argv[2], argv[3]);
    int code = run_parse(&opts, paths, &plan, argc, argv);
    if (code < 0 && !ibex_run_plan_is_local(&plan)) {
        run_env_scrub();
        ibex_run_io_setup(opts.tag_output);
        code = run_head(&opts, paths, &plan);
        ibex_run_opts_free(&opts);
        ibex_run_hosts_plan_free(&plan);
        fflush(stdout);
        fflush(stderr);
        _exit(code); /* the PMIx thread may still run (run_pmix.c) */
    }
    if (code < 0) {
        run_env_scrub();
        ibex_run_io_setup(opts.tag_output);
        code = run_setup(&opts, paths, &plan, &job);
    }
    if (code < 0)
        code = ibex_run_job_run(job);
    bool clean = !ibex_run_job_failed(job) && code == 0;
    run_final_code = code;
    signal(SIGALRM, run_on_alarm);
    alarm(10); /* PMIx_server_finalize must not hang a successful job (run_pmix.c) */
    ibex_run_job_destroy(job, clean);
    ibex_run_opts_free(&opts);
    ibex_run_hosts_plan_free(&plan);
    if (!clean) { /* the PMIx thread may still run: no exit-time destructors (run_pmix.c) */
        fflush(stdout);
        fflush(stderr);
        _exit(code);
    }
    return code;
}
