/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibexrun: the command line and the flow, over libibexlaunch (launcher/lib/ibex_launch.h).
 *   run_options.c  command line -> ibex_run_opts_t (pure, unit-tested)
 *   run_hosts.c    the host plan: hosts of --hostfile / -H, ranks per application, host of
 *                  every rank
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
#define IBEX_RUN_MAX_APPS 64

/* One application of an MPMD command line ("-n 2 ./a : -n 4 ./b"). */
typedef struct ibex_run_app {
    int nranks;      /* -n of this application (1 if not given) */
    bool nranks_set; /* -n given for it */
    char **argv;     /* program and arguments (point into argv), NULL-terminated */
    int argc;
} ibex_run_app_t;

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
    /* Hosts and MPMD: the first application is also nranks / nranks_set / prog_argv above. */
    ibex_run_app_t apps[IBEX_RUN_MAX_APPS];
    int napps;
    const char **hostlists; /* every -H value, in order (point into argv) */
    int nhostlists;
    ibex_run_mapby_t map_by;  /* --map-by slot|node|core (default slot) */
    int npernode;             /* --npernode N / -N N, 0: not given */
    const char *launch_agent; /* --launch-agent CMD, or NULL */
} ibex_run_opts_t;

/* Parses argv (argv[0] is the launcher). A word ":" separates MPMD applications and is
 * replaced by NULL in argv, so each application's argv ends there. On a usage error returns
 * IBEX_ERR_INVALID and writes a one-line reason to err; *opts is then left unusable (free it
 * anyway). */
ibex_status_t ibex_run_opts_parse(int argc, char **argv, ibex_run_opts_t *opts, char *err,
                                  size_t errlen);
void ibex_run_opts_free(ibex_run_opts_t *opts);
void ibex_run_opts_usage(FILE *out);

/* ---- the host plan (run_hosts.c) ---- */
typedef struct ibex_run_plan {
    ibex_run_hostfile_t hosts; /* the hosts given, or this host alone */
    int nranks;                /* over every application */
    int *host_of;              /* host index (into hosts) of each rank */
    int *app_of;               /* application of each rank */
} ibex_run_plan_t;

/* Whether a host name means this node (localhost, 127.0.0.1, ::1, the host name, short or not). */
bool ibex_run_host_is_local(const char *name);
/* Reads the host file and -H lists, sets each application's rank count (o->apps[a].nranks) and
 * places every rank. Returns -1 when the job can start, else the exit code after one message. */
int ibex_run_hosts_plan(ibex_run_opts_t *o, ibex_run_plan_t *p);
void ibex_run_hosts_plan_free(ibex_run_plan_t *p);
/* Whether every rank of the plan runs on this host (no daemon needed). */
bool ibex_run_plan_is_local(const ibex_run_plan_t *p);

/* ---- multi-host jobs: the wire (run_wire.c), the head (run_head.c), the daemon
 * (run_daemon.c) ---- */
#include <stdint.h>

enum {
    /* Between a node of the tree of daemons and its parent (run_tree.h): */
    IBEX_WIRE_HELLO = 1,   /* child -> parent: node index, token */
    IBEX_WIRE_JOB,         /* parent -> child: node, fanout, srun?, agent, the job (run_head.c) */
    IBEX_WIRE_FENCE_UP,    /* child -> parent: its subtree's fence contributions */
    IBEX_WIRE_FENCE_DOWN,  /* parent -> child: status, every host's contributions */
    IBEX_WIRE_FAIL,        /* child -> parent: the first failure in its subtree: code, message */
    IBEX_WIRE_EXIT,        /* child -> parent: every rank of its subtree is gone: code */
    IBEX_WIRE_STOP,        /* parent -> child: stop the ranks: code */
    IBEX_WIRE_DMODEX_REQ,  /* either way: origin node, request id, rank (routed to its node) */
    IBEX_WIRE_DMODEX_RESP, /* either way: origin node, request id, status, data (to origin) */
};
#define IBEX_WIRE_TOKEN_LEN 64 /* hex characters of the per-job token */

typedef struct ibex_wire_buf {
    char *data;
    size_t len, cap, off;
    bool bad; /* out of memory, or a payload that does not parse */
} ibex_wire_buf_t;

typedef struct ibex_wire_conn {
    int fd;
    char *rx;
    size_t rlen, rcap;
} ibex_wire_conn_t;

void ibex_wire_put_u32(ibex_wire_buf_t *b, uint32_t v);
void ibex_wire_put_bytes(ibex_wire_buf_t *b, const void *p, size_t n);
void ibex_wire_put_raw(ibex_wire_buf_t *b, const void *p, size_t n); /* no length prefix */
void ibex_wire_put_str(ibex_wire_buf_t *b, const char *s);
uint32_t ibex_wire_get_u32(ibex_wire_buf_t *b);
const char *ibex_wire_get_bytes(ibex_wire_buf_t *b, size_t *len_p);
char *ibex_wire_get_str(ibex_wire_buf_t *b);
void ibex_wire_buf_free(ibex_wire_buf_t *b);
bool ibex_wire_send(int fd, uint32_t type, const ibex_wire_buf_t *b);
bool ibex_wire_read(ibex_wire_conn_t *c);
int ibex_wire_next(ibex_wire_conn_t *c, uint32_t *type_p, ibex_wire_buf_t *payload);
void ibex_wire_conn_close(ibex_wire_conn_t *c);

/* The head's side: starts one daemon per remote host of the plan, runs the local ranks, and
 * supervises the whole job. Returns the exit code. */
int ibex_run_head_main(const ibex_run_opts_t *opts, char (*paths)[4096],
                       const ibex_run_plan_t *plan, char **env);
/* ibexrun --daemon ADDR:PORT NODE: the daemon of one remote host (token on stdin). */
int ibex_run_daemon_main(const char *addr, const char *node);

#endif
