/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibexrun's command line, mpirun style. Options come first, then the program and its arguments
 * (the first word that is not an option, or whatever follows "--"). Every option may be written
 * with one or two dashes, and a value either as the next word or after '=' ("--timeout=5").
 * Pure: no I/O except the usage text, so every rule is unit-tested.
 */
#include "ibexrun.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef ibex_status_t (*run_opt_fn_t)(ibex_run_opts_t *o, const char *val, char *err, size_t len);

typedef struct run_opt {
    const char *names[4]; /* without dashes; names[0] is the one shown */
    bool has_arg;
    run_opt_fn_t fn;
    const char *arg_help; /* "N" in "-n N" */
    const char *help;
} run_opt_t;

static ibex_status_t opt_error(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static ibex_status_t opt_error(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return IBEX_ERR_INVALID;
}

/* A strict decimal integer in [min, max]: no sign tricks, no trailing junk. */
static bool parse_int_range(const char *val, int min, int max, int *out)
{
    char *end;
    if (!isdigit((unsigned char)val[0]))
        return false;
    errno = 0;
    long v = strtol(val, &end, 10);
    if (*end != '\0' || errno != 0 || v < min || v > max)
        return false;
    *out = (int)v;
    return true;
}

static ibex_status_t opt_nranks(ibex_run_opts_t *o, const char *val, char *err, size_t len)
{
    ibex_run_app_t *app = &o->apps[o->napps]; /* -n belongs to the application being read */
    app->nranks_set = true;
    if (!parse_int_range(val, 1, IBEX_RUN_MAX_RANKS, &app->nranks))
        return opt_error(err, len,
                         "-n: the number of ranks must be an integer from 1 to %d, not '%s'",
                         IBEX_RUN_MAX_RANKS, val);
    return IBEX_OK;
}

static ibex_status_t opt_bind(ibex_run_opts_t *o, const char *val, char *err, size_t len)
{
    if (strcasecmp(val, "core") == 0)
        o->bind = IBEX_RUN_BIND_CORE;
    else if (strcasecmp(val, "none") == 0)
        o->bind = IBEX_RUN_BIND_NONE;
    else
        return opt_error(err, len, "--bind-to: unsupported value '%s' (expected core or none)",
                         val);
    return IBEX_OK;
}

static ibex_status_t opt_timeout(ibex_run_opts_t *o, const char *val, char *err, size_t len)
{
    if (!parse_int_range(val, 1, INT_MAX / 1000, &o->timeout_s))
        return opt_error(err, len,
                         "--timeout: expected a positive whole number of seconds, not '%s'", val);
    return IBEX_OK;
}

/* Hang diagnosis (issue 16): --hang-report. */
static ibex_status_t opt_hang_report(ibex_run_opts_t *o, const char *val, char *err, size_t len)
{
    if (!parse_int_range(val, 1, INT_MAX / 1000, &o->hang_report_s))
        return opt_error(
            err, len, "--hang-report: expected a positive whole number of seconds, not '%s'", val);
    return IBEX_OK;
}

static bool env_name_valid(const char *s, size_t n)
{
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return false;
    return true;
}

static ibex_status_t opt_env(ibex_run_opts_t *o, const char *val, char *err, size_t len)
{
    if (!env_name_valid(val, strcspn(val, "=")))
        return opt_error(err, len, "-x: '%s' is not VAR or VAR=VALUE with a valid name", val);
    char **grown = realloc(o->env, (size_t)(o->nenv + 1) * sizeof(*grown));
    if (!grown)
        return opt_error(err, len, "out of memory");
    o->env = grown;
    o->env[o->nenv++] = (char *)val;
    return IBEX_OK;
}

static ibex_status_t opt_hostfile(ibex_run_opts_t *o, const char *val, char *err, size_t len)
{
    o->hostfile = val; /* read and checked by run_main.c */
    return IBEX_OK;
}

/* ---- hosts, mapping, MPMD (the hosts area's block) ---- */

static ibex_status_t opt_map(ibex_run_opts_t *o, const char *val, char *err, size_t len)
{
    static const char *const names[] = {"slot", "node", "core"};
    static const ibex_run_mapby_t by[] = {IBEX_RUN_MAP_SLOT, IBEX_RUN_MAP_NODE, IBEX_RUN_MAP_CORE};
    size_t n = strcspn(val, ":"), i = 0;
    while (i < 3 && (strlen(names[i]) != n || strncasecmp(val, names[i], n) != 0))
        i++;
    if (i == 3)
        return opt_error(err, len, "--map-by: unsupported value '%s' (expected slot, node or core)",
                         val);
    /* Open MPI spells oversubscription as a modifier: "node:OVERSUBSCRIBE". */
    if (val[n] == ':' && strcasecmp(val + n + 1, "oversubscribe") != 0)
        return opt_error(err, len, "--map-by: unsupported modifier '%s' (expected OVERSUBSCRIBE)",
                         val + n + 1);
    o->map_by = by[i];
    o->oversubscribe = o->oversubscribe || val[n] == ':';
    return IBEX_OK;
}

static ibex_status_t opt_hostlist(ibex_run_opts_t *o, const char *val, char *err, size_t len)
{
    const char **grown = realloc(o->hostlists, (size_t)(o->nhostlists + 1) * sizeof(*grown));
    if (!grown)
        return opt_error(err, len, "out of memory");
    o->hostlists = grown;
    o->hostlists[o->nhostlists++] = val; /* parsed by run_main.c with the host file */
    return IBEX_OK;
}

static ibex_status_t opt_npernode(ibex_run_opts_t *o, const char *val, char *err, size_t len)
{
    if (!parse_int_range(val, 1, IBEX_RUN_MAX_RANKS, &o->npernode))
        return opt_error(err, len,
                         "--npernode: the ranks per host must be an integer from 1 to %d, not '%s'",
                         IBEX_RUN_MAX_RANKS, val);
    return IBEX_OK;
}

static ibex_status_t opt_agent(ibex_run_opts_t *o, const char *val, char *err, size_t len)
{
    if (!*val)
        return opt_error(err, len, "--launch-agent: empty command");
    o->launch_agent = val;
    return IBEX_OK;
}

#define FLAG_FN(fn_name, field)                                                                    \
    static ibex_status_t fn_name(ibex_run_opts_t *o, const char *val, char *err, size_t len)       \
    {                                                                                              \
        o->field = true;                                                                           \
        return IBEX_OK;                                                                            \
    }
FLAG_FN(opt_report, report_bindings)
FLAG_FN(opt_tag, tag_output)
FLAG_FN(opt_oversub, oversubscribe)
FLAG_FN(opt_softib, softib)
FLAG_FN(opt_help, help)
FLAG_FN(opt_version, version)

static const run_opt_t run_opts[] = {
    {{"n", "np"}, true, opt_nranks, "N", "start N ranks (default 1)"},
    {{"bind-to"},
     true,
     opt_bind,
     "core|none",
     "bind each rank to a core (default: core while ranks <= cores or divide evenly over "
     "them, else none)"},
    {{"report-bindings"}, false, opt_report, NULL, "print each rank's binding to stderr"},
    {{"x"}, true, opt_env, "VAR[=VALUE]", "export VAR (with VALUE, or this value) to the ranks"},
    {{"tag-output"}, false, opt_tag, NULL, "prefix output lines with [1,RANK]<stdout>:"},
    {{"timeout"},
     true,
     opt_timeout,
     "SECONDS",
     "stop the job after SECONDS (exit code 124), with a hang report first"},
    {{"hang-report"},
     true,
     opt_hang_report,
     "SECONDS",
     "print a hang report when no rank entered an MPI call for SECONDS (SIGUSR1: one now)"},
    {{"oversubscribe"},
     false,
     opt_oversub,
     NULL,
     "allow more ranks than slots (always, without hosts)"},
    {{"softib"},
     false,
     opt_softib,
     NULL,
     "run over the softib software RDMA device (LD_PRELOAD, IBEX_TRANSPORTS=verbs)"},
    /* hosts, mapping, MPMD (the hosts area's block) */
    {{"hostfile", "machinefile"},
     true,
     opt_hostfile,
     "FILE",
     "hosts to run on, Open MPI's format (host slots=N, # comments)"},
    {{"H", "host"}, true, opt_hostlist, "H1:N,H2", "hosts to run on, with their slots (1 if none)"},
    {{"map-by"},
     true,
     opt_map,
     "slot|node|core",
     "fill each host's slots in turn (slot, core) or deal ranks over hosts (node)"},
    {{"npernode", "N"}, true, opt_npernode, "N", "N ranks on each host, in host order"},
    {{"launch-agent"},
     true,
     opt_agent,
     "CMD",
     "start the remote daemons with CMD HOST COMMAND (default ssh)"},
    {{"help", "h"}, false, opt_help, NULL, "print this help"},
    {{"version", "V"}, false, opt_version, NULL, "print the version"},
};

#define RUN_OPT_COUNT (sizeof(run_opts) / sizeof(run_opts[0]))

static const run_opt_t *opt_find(const char *name, size_t n)
{
    for (size_t i = 0; i < RUN_OPT_COUNT; i++)
        for (int k = 0; k < 4 && run_opts[i].names[k]; k++)
            if (strlen(run_opts[i].names[k]) == n && strncmp(run_opts[i].names[k], name, n) == 0)
                return &run_opts[i];
    return NULL;
}

/* One option word at argv[*i]; consumes its value too. */
static ibex_status_t opt_parse_one(int argc, char **argv, int *i, ibex_run_opts_t *o, char *err,
                                   size_t len)
{
    const char *word = argv[*i];
    const char *name = word + (word[1] == '-' ? 2 : 1);
    const char *eq = strchr(name, '=');
    size_t n = eq ? (size_t)(eq - name) : strlen(name);
    const run_opt_t *opt = opt_find(name, n);
    if (!opt)
        return opt_error(err, len, "unknown option '%s'", word);
    if (!opt->has_arg) {
        if (eq)
            return opt_error(err, len, "option '%.*s' takes no value", (int)(eq - word), word);
        return opt->fn(o, NULL, err, len);
    }
    if (eq)
        return opt->fn(o, eq + 1, err, len);
    if (*i + 1 >= argc)
        return opt_error(err, len, "option '%s' needs a value (%s)", word, opt->arg_help);
    return opt->fn(o, argv[++*i], err, len);
}

/* Options up to the program, then the program and its arguments up to ":" or the end. */
static ibex_status_t opt_parse_app(int argc, char **argv, int *i, ibex_run_opts_t *o, bool *more,
                                   char *err, size_t errlen)
{
    for (; *i < argc; ++*i) {
        if (strcmp(argv[*i], "--") == 0) {
            ++*i;
            break;
        }
        if (argv[*i][0] != '-' || argv[*i][1] == '\0')
            break;
        ibex_status_t st = opt_parse_one(argc, argv, i, o, err, errlen);
        if (st != IBEX_OK)
            return st;
    }
    if (o->help || o->version)
        return IBEX_OK;
    ibex_run_app_t *app = &o->apps[o->napps];
    if ((*i >= argc || strcmp(argv[*i], ":") == 0) && o->napps == 0)
        return opt_error(err, errlen, "no program to run");
    if (*i >= argc || strcmp(argv[*i], ":") == 0)
        return opt_error(err, errlen, "no program for application %d (after ':')", o->napps + 1);
    app->argv = &argv[*i];
    while (*i < argc && strcmp(argv[*i], ":") != 0)
        ++*i, app->argc++;
    *more = *i < argc;
    if (*more)
        argv[(*i)++] = NULL; /* ends this application's argv */
    o->napps++;
    return IBEX_OK;
}

ibex_status_t ibex_run_opts_parse(int argc, char **argv, ibex_run_opts_t *opts, char *err,
                                  size_t errlen)
{
    memset(opts, 0, sizeof(*opts));
    opts->bind = IBEX_RUN_BIND_DEFAULT;
    opts->map_by = IBEX_RUN_MAP_SLOT;
    for (int k = 0; k < IBEX_RUN_MAX_APPS; k++)
        opts->apps[k].nranks = 1;
    int i = 1;
    bool more = false;
    do {
        if (opts->napps == IBEX_RUN_MAX_APPS)
            return opt_error(err, errlen, "more than %d applications", IBEX_RUN_MAX_APPS);
        ibex_status_t st = opt_parse_app(argc, argv, &i, opts, &more, err, errlen);
        if (st != IBEX_OK)
            return st;
    } while (!opts->help && !opts->version && more);
    opts->nranks = opts->apps[0].nranks;
    opts->nranks_set = opts->apps[0].nranks_set;
    opts->prog_argv = opts->apps[0].argv;
    opts->prog_argc = opts->apps[0].argc;
    return IBEX_OK;
}

void ibex_run_opts_free(ibex_run_opts_t *opts)
{
    free(opts->env);
    opts->env = NULL;
    opts->nenv = 0;
    free(opts->hostlists);
    opts->hostlists = NULL;
    opts->nhostlists = 0;
}

void ibex_run_opts_usage(FILE *out)
{
    fprintf(out, "usage: ibexrun [options] [--] program [arguments] [: [-n N] program2 ...]\n\n"
                 "options (-n applies to its application, the rest to the whole job):\n");
    for (size_t i = 0; i < RUN_OPT_COUNT; i++) {
        const run_opt_t *o = &run_opts[i];
        char left[64];
        const char *dash = strlen(o->names[0]) == 1 ? "-" : "--";
        snprintf(left, sizeof(left), "%s%s%s%s", dash, o->names[0], o->arg_help ? " " : "",
                 o->arg_help ? o->arg_help : "");
        fprintf(out, "  %-26s %s\n", left, o->help);
    }
    fprintf(out, "\nexit code: the first failing rank's exit code, 128+signal if it was killed, "
                 "MPI_Abort's code,\n1 if a rank skipped MPI_Finalize, 2 for a usage error, 124 "
                 "on --timeout,\n125 if ibexrun itself failed. See launcher/README.md.\n");
}
