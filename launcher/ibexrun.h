/*
 * ibexrun internals. The launcher is split by object:
 *   run_options.c  command line -> ibex_run_opts_t (pure, unit-tested)
 *   run_map.c      (ranks, cores, policy) -> core of every rank (pure, unit-tested)
 *   run_bind.c     hwloc: core count and the cpu set of a core
 *   run_pmix.c     the embedded PMIx server and what its upcalls report
 *   run_proc.c     fork/exec of ranks, signals to them, reaping
 *   run_io.c       line-by-line forwarding of stdout/stderr, stdin to rank 0
 *   run_main.c     the main loop and supervision
 */
#ifndef IBEX_LAUNCHER_IBEXRUN_H
#define IBEX_LAUNCHER_IBEXRUN_H

#include <sched.h> /* cpu_set_t: needs _GNU_SOURCE, set by launcher.am */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "ibex_status.h"

/* Exit codes of ibexrun (see launcher/README.md). */
#define IBEX_RUN_EXIT_USAGE    2   /* bad command line */
#define IBEX_RUN_EXIT_TIMEOUT  124 /* --timeout expired, like timeout(1) */
#define IBEX_RUN_EXIT_INTERNAL 125 /* the launcher itself failed (PMIx, fork, ...) */
#define IBEX_RUN_MAX_RANKS     1024

/* ---- options (run_options.c) ---- */
typedef enum {
    IBEX_RUN_BIND_DEFAULT, /* cores while ranks fit, none when oversubscribed */
    IBEX_RUN_BIND_CORE,
    IBEX_RUN_BIND_NONE,
} ibex_run_bind_t;

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

/* ---- host files (run_hostfile.c) ---- */
typedef struct ibex_run_host {
    char name[256];
    int slots;     /* default 1 */
    int max_slots; /* 0: no limit */
} ibex_run_host_t;

typedef struct ibex_run_hostfile {
    ibex_run_host_t *hosts;
    int nhosts;
} ibex_run_hostfile_t;

/* Parses the text of a host file; `name` is used in messages ("hosts:3: ..."). */
ibex_status_t ibex_run_hostfile_parse(const char *text, const char *name, ibex_run_hostfile_t *hf_p,
                                      char *err, size_t errlen);
void ibex_run_hostfile_free(ibex_run_hostfile_t *hf);

/* ---- mapping and binding plan (run_map.c) ---- */
/* Fills core_of[rank] (nranks entries) with the core each rank is bound to, or -1 for none:
 * rank i -> core i % ncores. Default policy binds only when nranks <= ncores. */
ibex_status_t ibex_run_map_plan(int nranks, int ncores, ibex_run_bind_t bind, int *core_of);
/* Formats a rank list compactly: "0-2,5,7-8". */
void ibex_run_map_format_ranks(const int *ranks, int n, char *buf, size_t len);

/* ---- hwloc (run_bind.c) ---- */
ibex_status_t ibex_run_bind_init(int *ncores_p);
/* The cpus of core `core` (0-based, logical index) as a cpu_set_t and as a list "0,1". */
ibex_status_t ibex_run_bind_cpuset(int core, cpu_set_t *set_p, char *desc, size_t len);
void ibex_run_bind_fini(void);

/* ---- PMIx server (run_pmix.c) ---- */
typedef struct ibex_run_pmix ibex_run_pmix_t;

typedef struct ibex_run_pmix_rank {
    bool connected; /* PMIx_Init seen (MPI_Init) */
    bool finalized; /* PMIx_Finalize seen (MPI_Finalize) */
} ibex_run_pmix_rank_t;

/* Starts the server under a private temporary directory and registers the job's namespace.
 * wake_fd is written (one byte, non-blocking) whenever an upcall changes the state. */
ibex_status_t ibex_run_pmix_init(int nranks, int wake_fd, ibex_run_pmix_t **srv_p);
/* setup_fork + register_client for one rank: adds the PMIx variables to *env_p (a malloc'd,
 * NULL-terminated array of malloc'd strings, which PMIx may grow). */
ibex_status_t ibex_run_pmix_setup_rank(ibex_run_pmix_t *srv, int rank, char ***env_p);
void ibex_run_pmix_rank_state(ibex_run_pmix_t *srv, int rank, ibex_run_pmix_rank_t *st_p);
/* The first MPI_Abort of the job: returns true and fills rank, code, msg if there was one. */
bool ibex_run_pmix_abort_info(ibex_run_pmix_t *srv, int *rank_p, int *code_p, char *msg,
                              size_t len);
bool ibex_run_pmix_any_connected(ibex_run_pmix_t *srv);
/* Finalizes the server (only if clean: see run_pmix.c) and removes its directory. After an
 * unclean fini the process must end with _exit(). NULL is fine. */
void ibex_run_pmix_fini(ibex_run_pmix_t *srv, bool clean);

/* ---- processes (run_proc.c) ---- */
typedef struct ibex_run_rank {
    int rank;
    pid_t pid;  /* 0: not started */
    int out_fd; /* our end of the rank's stdout pipe, -1 when closed */
    int err_fd; /* same for stderr */
    int in_fd;  /* our end of the rank's stdin pipe (rank 0 only), else -1 */
    bool reaped;
    int wstatus;    /* waitpid status once reaped */
    int core;       /* bound core or -1 */
    cpu_set_t cpus; /* binding, applied in the child before exec */
} ibex_run_rank_t;

/* Finds the program like execvp would; writes a reason to err if it cannot be run. */
ibex_status_t ibex_run_proc_resolve(const char *prog, char *path, size_t len, char *err,
                                    size_t errlen);
/* Forks and execs one rank in its own process group, with pipes for stdout/stderr and, if
 * with_stdin, for stdin (else /dev/null). */
ibex_status_t ibex_run_proc_spawn(ibex_run_rank_t *r, const char *path, char *const argv[],
                                  char *const envp[], bool with_stdin);
/* Sends sig to every rank not yet reaped (its process group, then the process). */
void ibex_run_proc_signal_all(ibex_run_rank_t *ranks, int n, int sig);
/* Reaps one exited child without blocking: false when there is none. Gives its rank index and
 * when it last ran (ns, comparable between ranks; -1 if unknown), to order a batch of exits. */
bool ibex_run_proc_reap_one(ibex_run_rank_t *ranks, int n, int *rank_p, long long *ran_p);

/* Environment helpers: a malloc'd NULL-terminated array of malloc'd "NAME=VALUE" strings. */
char **ibex_run_env_dup(char **env);
ibex_status_t ibex_run_env_set(char ***env_p, const char *name, const char *value);
const char *ibex_run_env_get(char **env, const char *name);
void ibex_run_env_free(char **env);

/* ---- I/O forwarding (run_io.c) ---- */
typedef struct ibex_run_stream {
    int fd; /* the pipe we read, -1 once closed */
    int rank;
    int dest;  /* 1 or 2: our stdout or stderr */
    char *buf; /* a partial line */
    size_t len, cap;
} ibex_run_stream_t;

void ibex_run_io_setup(bool tag_output);
void ibex_run_io_stream_init(ibex_run_stream_t *s, int fd, int rank, int dest);
/* Reads what is available and writes out complete lines. Returns false at EOF or error (the
 * partial line is flushed and the fd closed). */
bool ibex_run_io_stream_read(ibex_run_stream_t *s);
/* Reads everything left without blocking, then closes. */
void ibex_run_io_stream_drain(ibex_run_stream_t *s);

typedef struct ibex_run_stdin {
    int src; /* our stdin, -1 when done */
    int dst; /* rank 0's stdin pipe, -1 when closed */
    char buf[16384];
    size_t off, len;
} ibex_run_stdin_t;

void ibex_run_io_stdin_init(ibex_run_stdin_t *in, int src, int dst);
/* poll() events wanted on src and dst now */
short ibex_run_io_stdin_src_events(const ibex_run_stdin_t *in);
short ibex_run_io_stdin_dst_events(const ibex_run_stdin_t *in);
void ibex_run_io_stdin_on_src(ibex_run_stdin_t *in);
void ibex_run_io_stdin_on_dst(ibex_run_stdin_t *in);
void ibex_run_io_stdin_close(ibex_run_stdin_t *in);

/* Writes the whole buffer, retrying on EINTR and short writes; false on error (EPIPE...). */
bool ibex_run_io_write_all(int fd, const char *buf, size_t len);

#endif
