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
        ibex_run_say("--hostfile: cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 20;
    char *text = malloc(cap + 1);
    size_t n = text ? fread(text, 1, cap, f) : 0;
    bool too_big = text && n == cap && fgetc(f) != EOF;
    fclose(f);
    if (!text || too_big) {
        ibex_run_say("--hostfile: %s is too large", path);
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

/* Accepts a host file that names only this node; its slots give -n when -n is absent. */
static int run_hostfile_apply(ibex_run_opts_t *opts)
{
    char err[512], *text = opts->hostfile ? run_read_file(opts->hostfile) : NULL;
    ibex_run_hostfile_t hf;
    if (!opts->hostfile)
        return -1;
    if (!text)
        return IBEX_RUN_EXIT_USAGE;
    ibex_status_t st = ibex_run_hostfile_parse(text, opts->hostfile, &hf, err, sizeof(err));
    free(text);
    if (st != IBEX_OK) {
        ibex_run_say("--hostfile: %s", err);
        return IBEX_RUN_EXIT_USAGE;
    }
    int slots = 0, code = -1;
    for (int i = 0; i < hf.nhosts && code < 0; i++) {
        slots += hf.hosts[i].slots;
        if (!run_host_is_local(hf.hosts[i].name)) {
            ibex_run_say("--hostfile: host '%s' is not this node: starting ranks on other hosts is "
                         "not supported yet",
                         hf.hosts[i].name);
            code = IBEX_RUN_EXIT_USAGE;
        }
    }
    if (code < 0 && !opts->nranks_set)
        opts->nranks = slots < IBEX_RUN_MAX_RANKS ? slots : IBEX_RUN_MAX_RANKS;
    ibex_run_hostfile_free(&hf);
    return code;
}

/* Options, program lookup: every problem here is a usage error (exit 2). */
static int run_parse(ibex_run_opts_t *opts, char *path, size_t len, int argc, char **argv)
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
    if (ibex_run_proc_resolve(opts->prog_argv[0], path, len, err, sizeof(err)) != IBEX_OK) {
        ibex_run_say("%s", err);
        return IBEX_RUN_EXIT_USAGE;
    }
    return run_hostfile_apply(opts);
}

/* The job from the options: every problem here is the launcher's own (exit 125), but a
 * missing --softib library (exit 2). */
static int run_setup(const ibex_run_opts_t *opts, const char *path, ibex_run_job_t **job_p)
{
    ibex_run_job_params_t p = {
        .nranks = opts->nranks,
        .path = path,
        .argv = opts->prog_argv,
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

static volatile sig_atomic_t run_final_code;

static void run_on_alarm(int sig)
{
    _exit(run_final_code);
}

int main(int argc, char **argv)
{
    ibex_run_opts_t opts = {0};
    ibex_run_job_t *job = NULL;
    char path[PATH_MAX];
    ibex_log_set_identity("ibexrun");
    ibex_run_say_set_name("ibexrun");
    /* A bad IBEX_ value is reported and its default kept. Only ibexrun's own tables: the ranks
     * check the rest of the environment they inherit. */
    ibex_config_load_own();
    run_raise_fd_limit();
    int code = run_parse(&opts, path, sizeof(path), argc, argv);
    if (code < 0) {
        run_env_scrub();
        ibex_run_io_setup(opts.tag_output);
        code = run_setup(&opts, path, &job);
    }
    if (code < 0)
        code = ibex_run_job_run(job);
    bool clean = !ibex_run_job_failed(job) && code == 0;
    run_final_code = code;
    signal(SIGALRM, run_on_alarm);
    alarm(10); /* PMIx_server_finalize must not hang a successful job (run_pmix.c) */
    ibex_run_job_destroy(job, clean);
    ibex_run_opts_free(&opts);
    if (!clean) { /* the PMIx thread may still run: no exit-time destructors (run_pmix.c) */
        fflush(stdout);
        fflush(stderr);
        _exit(code);
    }
    return code;
}
