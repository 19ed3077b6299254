/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libibexlaunch (launcher/lib/): the parts of a launcher that do not depend on its command line,
 * for ibexrun and for the per-host daemon to come. Uses runtime/base only (logging, status
 * codes), plus OpenPMIx (server side) and hwloc.
 *
 * The contract:
 *   - One job per process: n ranks of one program on this node. ibex_run_job_create() plans the
 *     bindings, takes over SIGCHLD / SIGINT / SIGTERM / SIGHUP / SIGQUIT (blocked, read from a
 *     signalfd; SIGPIPE ignored) and starts the embedded PMIx server; it must run before any
 *     other thread exists. ibex_run_job_run() starts the ranks and supervises them on the calling
 *     thread until every rank is gone, and returns the exit code: the first failure is reported
 *     in one line on stderr ("<name>: ...; stopping the job") and decides it; every other rank
 *     is then sent SIGTERM, and SIGKILL after abort_grace_ms. ibex_run_job_destroy() removes
 *     everything the job created; after a failed job the process must end with _exit() (the
 *     PMIx library may still run a thread, see run_pmix.c).
 *   - The building blocks (host files, the map, hwloc binding, the PMIx server, processes and
 *     environments, I/O forwarding) are usable on their own; they are what the job is made of.
 *   - Messages of the launcher itself go through ibex_run_say ("<name>: text" on stderr, one
 *     write); the name is set once with ibex_run_say_set_name.
 *   - Not yet parameters: the PMIx namespace ("ibexrun-PID"), the server's temporary directory
 *     ("$TMPDIR/ibexrun.PID.XXXXXX") and the messages of a rank that cannot exec name ibexrun.
 *
 *   run_job.c        the job: create, start the ranks, the poll loop, destroy
 *   run_supervise.c  supervision: failures and the one message, exits, signals, deadlines
 *   run_map.c        (ranks, cores, policy) -> core of every rank (pure, unit-tested)
 *   run_hostfile.c   host file parser (pure, unit-tested)
 *   run_bind.c       hwloc: core count and the cpu set of a core
 *   run_pmix.c       the embedded PMIx server and what its upcalls report
 *   run_pmix_dmodex.c  its direct modex across hosts (requests queued for the launcher)
 *   run_proc.c       fork/exec of ranks, signals to them, reaping, environment arrays
 *   run_io.c         line-by-line forwarding of stdout/stderr, stdin to rank 0, ibex_run_say
 */
#ifndef IBEX_LAUNCH_H
#define IBEX_LAUNCH_H

#include <sched.h> /* cpu_set_t: needs _GNU_SOURCE, set by launcher.am */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "ibex_status.h"

/* Exit codes of a job and of ibexrun (see launcher/README.md). */
#define IBEX_RUN_EXIT_USAGE    2   /* bad command line */
#define IBEX_RUN_EXIT_TIMEOUT  124 /* the job's timeout expired, like timeout(1) */
#define IBEX_RUN_EXIT_INTERNAL 125 /* the launcher itself failed (PMIx, fork, ...) */
#define IBEX_RUN_MAX_RANKS     1024

/* Monotonic milliseconds. */
long long ibex_run_now_ms(void);

/* ---- messages ---- */
/* "<name>: <text>\n" on stderr in one write (the name: "ibexrun" until set). */
void ibex_run_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ibex_run_say_set_name(const char *name);

/* ---- the job (run_job.c, run_supervise.c) ---- */
typedef enum {
    IBEX_RUN_BIND_DEFAULT, /* cores while ranks fit or divide evenly over them, else none */
    IBEX_RUN_BIND_CORE,
    IBEX_RUN_BIND_NONE,
} ibex_run_bind_t;

typedef struct ibex_run_job ibex_run_job_t;
typedef struct ibex_run_pmix ibex_run_pmix_t; /* the PMIx server, below */

/* A job spanning hosts (params.world; NULL: this node alone). Every host's launcher registers
 * the same namespace with the whole job's maps; params.nranks ranks start here. */
typedef struct ibex_run_world {
    const char *nspace;      /* the job's PMIx namespace, the same on every host */
    int size;                /* ranks in the whole job */
    int nnodes;              /* hosts, in node order */
    char *const *node_names; /* their names (PMIX_NODE_MAP, the ranks' PMIX_HOSTNAME) */
    const int *node_of;      /* node of every rank (size entries) */
    int my_node;
    const int *local; /* the global ranks started here, params.nranks of them, ascending */
} ibex_run_world_t;

/* How a launcher of a multi-host job (ibexrun's head, the per-host daemon) joins the job's
 * loop: extra file descriptors in its poll(), a say in how failures are reported, and the PMIx
 * fences (ibex_run_pmix_fence_take / _release from tick). Every callback runs on the job's
 * thread. */
struct pollfd;
typedef struct ibex_run_hooks {
    void *ctx;
    int (*poll_add)(void *ctx, struct pollfd *pfd, int max); /* returns how many it added */
    void (*poll_ready)(void *ctx, ibex_run_job_t *job, const struct pollfd *pfd, int n);
    void (*tick)(void *ctx, ibex_run_job_t *job); /* after every poll round */
    bool (*busy)(void *ctx);                      /* keeps the loop going without local ranks */
    int (*timeout_ms)(void *ctx); /* the longest poll() may wait for the hooks' sake (-1: any) */
    /* The job's first failure, instead of printing it (msg has no "; stopping the job"). */
    void (*on_fail)(void *ctx, int code, const char *msg);
} ibex_run_hooks_t;

/* One application of an MPMD job: its ranks follow the previous application's. */
typedef struct ibex_run_job_app {
    const char *path; /* as ibex_run_proc_resolve found it */
    char **argv;      /* NULL-terminated */
    int nranks;
} ibex_run_job_app_t;

typedef struct ibex_run_job_params {
    int nranks;       /* 1 .. IBEX_RUN_MAX_RANKS */
    const char *path; /* the program, as ibex_run_proc_resolve found it */
    char **argv;      /* program and arguments, NULL-terminated (argv[0] as given) */
    char **env;       /* every rank's environment before PMIx's variables (an env array,
                       * see below): the job owns it from ibex_run_job_create on */
    ibex_run_bind_t bind;
    bool report_bindings; /* one line per rank: "rank 0 bound to core 0 (cpus 0)" */
    int timeout_s;        /* stop the job after this long (IBEX_RUN_EXIT_TIMEOUT); 0: none */
    int abort_grace_ms;   /* SIGTERM -> SIGKILL when stopping the job */
    int hang_report_s;    /* a hang report when no rank entered MPI for this long; 0: none */
    /* MPMD: napps > 0 applications whose nranks add up to nranks (copied by create; path and
     * argv above are then ignored). 0: one application, path and argv. Each rank's PMIx
     * APPNUM is its application's index. */
    int napps;
    const ibex_run_job_app_t *apps;
    const ibex_run_world_t *world; /* NULL: one node; else app_of is indexed by global rank */
    const int *world_app_of;       /* with world: the application of every rank of the job */
    const ibex_run_hooks_t *hooks; /* NULL: none */
} ibex_run_job_params_t;

/* Prepares the job (see the contract above). On error *job_p may still be set: destroy it. */
ibex_status_t ibex_run_job_create(const ibex_run_job_params_t *params, ibex_run_job_t **job_p);
/* Starts every rank, supervises until all are gone; returns the job's exit code. */
int ibex_run_job_run(ibex_run_job_t *job);
/* Ends the job from outside (a host failed, the head said so): code, and msg reported as the
 * job's first failure unless msg is NULL. */
void ibex_run_job_stop(ibex_run_job_t *job, int code, const char *msg);
/* The job's PMIx server (for the fence hooks). */
ibex_run_pmix_t *ibex_run_job_pmix(ibex_run_job_t *job);
/* Whether a failure was reported (then the PMIx server must not be finalized). */
bool ibex_run_job_failed(const ibex_run_job_t *job);
/* Finalizes the PMIx server if clean, removes its directory, frees everything. NULL is fine. */
void ibex_run_job_destroy(ibex_run_job_t *job, bool clean);

/* ---- hang reports (run_hang.c, run_hang_report.c) ---- */
/* The job's blocked-call record (runtime/base/ibex_blocked.h) and the report made from it:
 * what each rank waits in, for how long, and the AND/OR wait-for graph's verdict. A job makes
 * its record in ibex_run_job_create and also takes over SIGUSR1 there: a report on stderr, the
 * job goes on; --timeout (params.timeout_s) reports first, params.hang_report_s when quiet. */
typedef struct ibex_run_hang ibex_run_hang_t;

/* ibexrun: makes the record (a memfd the ranks inherit: ibex_run_hang_fd). */
ibex_status_t ibex_run_hang_create(int nranks, ibex_run_hang_t **h_p);
int ibex_run_hang_fd(const ibex_run_hang_t *h);
/* ibex_stack: maps the record of the running ibexrun `pid`, read-only. */
ibex_status_t ibex_run_hang_attach(int pid, ibex_run_hang_t **h_p, char *err, size_t len);
/* ibexrun: notes which ranks entered an MPI call since the last sample. */
void ibex_run_hang_sample(ibex_run_hang_t *h);
/* Milliseconds since any rank last entered an MPI call (as sampled). */
long long ibex_run_hang_idle_ms(const ibex_run_hang_t *h);
/* Writes the report to fd, each line prefixed with "<prefix>: ". gone[r]: rank r has exited
 * (NULL: judged by its pid). why: what asked for it ("timeout after 10 s"). */
void ibex_run_hang_report(const ibex_run_hang_t *h, const bool *gone, int fd, const char *prefix,
                          const char *why);
void ibex_run_hang_destroy(ibex_run_hang_t *h);

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
/* Adds the hosts of a -H list ("host1:4,host2": slots 1 without a count) to *hf (zeroed or
 * already filled by a host file or an earlier -H); messages start with "-H: ". */
ibex_status_t ibex_run_hostlist_parse(const char *list, ibex_run_hostfile_t *hf, char *err,
                                      size_t errlen);

/* The hosts of a Slurm allocation (SLURM_JOB_NODELIST, e.g. "n[1-3],gpu07") with their slots
 * (SLURM_TASKS_PER_NODE, e.g. "2(x3),1"; NULL or "" for 1 each), added to *hf. */
ibex_status_t ibex_run_hostlist_slurm(const char *nodelist, const char *tasks,
                                      ibex_run_hostfile_t *hf, char *err, size_t errlen);

/* ---- mapping and binding plan (run_map.c) ---- */
/* Fills core_of[rank] (nranks entries) with the core each rank is bound to, or -1 for none:
 * rank i -> core i % ncores. Default policy binds only when nranks <= ncores. */
ibex_status_t ibex_run_map_plan(int nranks, int ncores, ibex_run_bind_t bind, int *core_of);
/* Places nranks ranks on the hosts: host_of[rank] is an index into hf->hosts. By slot (and core)
 * fills each host's slots in order, by node deals one rank per host in turn, npernode > 0 puts
 * that many on each host in order. Slots are a hard limit unless oversubscribe (then up to
 * max_slots). Errors say why in err. */
typedef enum { IBEX_RUN_MAP_SLOT, IBEX_RUN_MAP_NODE, IBEX_RUN_MAP_CORE } ibex_run_mapby_t;
ibex_status_t ibex_run_map_hosts(const ibex_run_hostfile_t *hf, int nranks, ibex_run_mapby_t by,
                                 int npernode, bool oversubscribe, int *host_of, char *err,
                                 size_t len);
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
/* app_of: the application of each rank of the job (its PMIX_APPNUM), or NULL for one
 * application. world: NULL for one node, else the whole job (nranks of it start here). */
ibex_status_t ibex_run_pmix_init(int nranks, const int *app_of, const ibex_run_world_t *world,
                                 int wake_fd, ibex_run_pmix_t **srv_p);
/* Multi-host fences: the local contribution of a fence the PMIx server started (the data is
 * malloc'd, the caller's), or false if none is pending; then, once the job's collected data is
 * there, release it (status PMIX_SUCCESS or an error) with the concatenated contributions of
 * every host (copied). One fence at a time. */
bool ibex_run_pmix_fence_take(ibex_run_pmix_t *srv, char **data_p, size_t *len_p);
void ibex_run_pmix_fence_release(ibex_run_pmix_t *srv, int status, const char *data, size_t len);
/* Direct modex across hosts (run_pmix_dmodex.c): a local client's PMIx_Get of a remote rank's
 * data this server lacks. take: the next such request (its id and the rank), for the launcher
 * to route to the rank's host; answer: its outcome (status PMIX_SUCCESS or an error, the
 * rank's blob as the other host's server gave it; copied). serve: the other side, asks this
 * server for a local rank's blob for node `origin`'s request `id` (answered once the rank has
 * committed); served: the next such blob (malloc'd, the caller's). */
bool ibex_run_pmix_dmodex_take(ibex_run_pmix_t *srv, uint32_t *id_p, int *rank_p);
void ibex_run_pmix_dmodex_answer(ibex_run_pmix_t *srv, uint32_t id, int status, const char *data,
                                 size_t len);
void ibex_run_pmix_dmodex_serve(ibex_run_pmix_t *srv, int rank, uint32_t origin, uint32_t id);
bool ibex_run_pmix_dmodex_served(ibex_run_pmix_t *srv, uint32_t *origin_p, uint32_t *id_p,
                                 int *status_p, char **data_p, size_t *len_p);
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

/* After the ranks of env are gone: if their LD_PRELOAD names libsoftib.so, its softib_sweep()
 * removes what dead ranks left in their softib fabric (run_softib.c). */
void ibex_run_softib_sweep(char **env);

/* ---- I/O forwarding (run_io.c) ---- */
typedef struct ibex_run_stream {
    int fd; /* the pipe we read, -1 once closed */
    int rank;
    int dest;  /* 1 or 2: our stdout or stderr */
    char *buf; /* a partial line */
    size_t len, cap;
} ibex_run_stream_t;

void ibex_run_io_setup(bool tag_output);
/* rank < 0: a stream that is not a rank's (a daemon's output, already tagged): never tagged. */
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
