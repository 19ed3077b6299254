/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibexrun: the command line and the flow, over libibexlaunch (launcher/lib/ibex_launch.h).
 *   run_options.c  command line -> ibex_run_opts_t (pure, unit-tested)
 *   run_main.c     main: options, what ibexrun sets up before the job (the host file check,
 *                  the ranks' environment with -x and --softib, an outer launcher's
 *                  variables), the job, the exit
 */
#ifndef IBEX_LAUNCHER_IBEXRUN_H
#define IBEX_LAUNCHER_IBEXRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ibex_launch.h"
#include "ibex_status.h"

/* ---- options (run_options.c) ---- */
typedef struct ibex_run_opts {
    int nranks;
    ibex_run_bind_t bind;
    bool report_bindings;
    bool tag_output;
    bool oversubscribe; /* accepted; one node always allows it */
    bool softib;
    bool help;
    bool version;
    bool nranks_set;      /* -n given (else a host file's slots decide) */
    int timeout_s;        /* 0: none */
    int hang_report_s;    /* --hang-report S: report when no rank entered MPI for S s; 0: none */
    const char *hostfile; /* --hostfile FILE (points into argv), or NULL */
    char **env;           /* -x entries, "VAR" or "VAR=VALUE" (point into argv) */
    int nenv;
    char **prog_argv; /* program and its arguments (point into argv), NULL-terminated */
    int prog_argc;
} ibex_run_opts_t;

/* Parses argv (argv[0] is the launcher). On a usage error returns IBEX_ERR_INVALID and writes a
 * one-line reason to err; *opts is then left unusable (free it anyway). */
ibex_status_t ibex_run_opts_parse(int argc, char **argv, ibex_run_opts_t *opts, char *err,
                                  size_t errlen);
void ibex_run_opts_free(ibex_run_opts_t *opts);
void ibex_run_opts_usage(FILE *out);

#endif
