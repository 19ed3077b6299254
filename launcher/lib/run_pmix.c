/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The embedded PMIx server (OpenPMIx 4.2, the flow of its examples/server.c): server init under
 * a private temporary directory, the job's namespace registered with PMIX_NODE_MAP and
 * PMIX_PROC_MAP (from which PMIx derives sizes, local peers and local ranks), then per rank
 * setup_fork + register_client before the fork.
 *
 * The upcalls run on the PMIx progress thread. They only record what happened (connected,
 * finalized, aborted) under a mutex and poke the main loop through a non-blocking pipe, so the
 * progress thread never waits on the main thread. Each upcall records its event before it
 * releases the client, so by the time a rank has exited the main loop can see everything that
 * rank told the server.
 */
#include "ibex_launch.h"
#include "run_pmix_int.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "ibex_log.h"

struct ibex_run_pmix {
    char nspace[PMIX_MAX_NSLEN + 1];
    char tmpdir[PATH_MAX]; /* ours alone; removed at the end */
    int nranks;            /* started here */
    int size;              /* in the whole job (nranks on one node) */
    int *local;            /* the job-wide rank of each local one */
    int *idx_of;           /* the local index of each rank of the job, -1 if elsewhere */
    int *app_of;           /* the application (PMIX_APPNUM) of each rank of the job */
    int napps;
    const ibex_run_world_t *world; /* during init only; NULL: one node */
    bool multi;                    /* fences span hosts: hand them to the launcher */
    struct {
        bool pending, taken; /* a fence waits for the other hosts */
        char *data;          /* our contribution, until taken */
        size_t len;
        pmix_modex_cbfunc_t cbfunc;
        void *cbdata;
    } fence;
    int wake_fd;
    bool server_up;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    ibex_run_pmix_rank_t *ranks;
    bool aborted; /* the first MPI_Abort only */
    int abort_rank, abort_code;
    char abort_msg[256];
};

/* The upcalls carry no context pointer: there is one server per process. */
static ibex_run_pmix_t *run_srv;

/* A completion the main thread can wait for (register_nspace, register_client). */
typedef struct run_op {
    bool done;
    pmix_status_t status;
} run_op_t;

static void run_wake(ibex_run_pmix_t *s)
{
    char c = 1;
    /* Non-blocking: a full pipe already means "wake up". */
    while (write(s->wake_fd, &c, 1) < 0 && errno == EINTR)
        ;
}

/* The local index of a client of ours, or -1. */
static int run_proc_idx(const pmix_proc_t *proc)
{
    if (!run_srv || strncmp(proc->nspace, run_srv->nspace, PMIX_MAX_NSLEN) != 0 ||
        proc->rank >= (pmix_rank_t)run_srv->size)
        return -1;
    return run_srv->idx_of[proc->rank];
}

static bool run_proc_ok(const pmix_proc_t *proc)
{
    return run_proc_idx(proc) >= 0;
}

static pmix_status_t run_connected(const pmix_proc_t *proc, void *server_object,
                                   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (run_proc_ok(proc)) {
        pthread_mutex_lock(&run_srv->lock);
        run_srv->ranks[run_proc_idx(proc)].connected = true;
        pthread_mutex_unlock(&run_srv->lock);
        run_wake(run_srv);
        ibex_debug(LAUNCH, "rank %u connected", proc->rank);
    }
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t run_finalized(const pmix_proc_t *proc, void *server_object,
                                   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (run_proc_ok(proc)) {
        pthread_mutex_lock(&run_srv->lock);
        run_srv->ranks[run_proc_idx(proc)].finalized = true;
        pthread_mutex_unlock(&run_srv->lock);
        run_wake(run_srv);
        ibex_debug(LAUNCH, "rank %u finalized", proc->rank);
    }
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

/* Any abort ends the whole job, whatever subset of procs it names. */
static pmix_status_t run_abort(const pmix_proc_t *proc, void *server_object, int status,
                               const char msg[], pmix_proc_t procs[], size_t nprocs,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (run_proc_ok(proc)) {
        pthread_mutex_lock(&run_srv->lock);
        if (!run_srv->aborted) {
            run_srv->aborted = true;
            run_srv->abort_rank = run_proc_idx(proc); /* local index, as the job counts */
            run_srv->abort_code = status;
            snprintf(run_srv->abort_msg, sizeof(run_srv->abort_msg), "%s", msg ? msg : "");
        }
        pthread_mutex_unlock(&run_srv->lock);
        run_wake(run_srv);
    }
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static void run_fence_release(void *cbdata)
{
    free(cbdata);
}

/* Across hosts: the launcher's loop takes our contribution, the head gathers every host's and
 * sends back their concatenation (the server library unpacks one blob per server), released
 * here. */
static pmix_status_t run_fence_forward(char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                                       void *cbdata)
{
    pthread_mutex_lock(&run_srv->lock);
    bool busy = run_srv->fence.pending;
    if (!busy) {
        run_srv->fence.pending = true;
        run_srv->fence.taken = false;
        run_srv->fence.data = data;
        run_srv->fence.len = ndata;
        run_srv->fence.cbfunc = cbfunc;
        run_srv->fence.cbdata = cbdata;
    }
    pthread_mutex_unlock(&run_srv->lock);
    if (busy) {
        free(data);
        return PMIX_ERR_NOT_SUPPORTED; /* one fence at a time (MPI's are sequential) */
    }
    run_wake(run_srv);
    return PMIX_SUCCESS;
}

/* One node: every participant is local, so the collected data is already complete. The
 * library malloc'd it; we hand it back and free it in the release callback. */
static pmix_status_t run_fence_nb(const pmix_proc_t procs[], size_t nprocs,
                                  const pmix_info_t info[], size_t ninfo, char *data, size_t ndata,
                                  pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    pmix_status_t status = PMIX_SUCCESS;
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_LOCAL_COLLECTIVE_STATUS))
            status = info[i].value.data.status;
    if (run_srv && run_srv->multi) {
        bool whole = nprocs == 1 && procs[0].rank == PMIX_RANK_WILDCARD;
        if (!whole) { /* a fence over part of a multi-host job: not needed by Ibex */
            free(data);
            return PMIX_ERR_NOT_SUPPORTED;
        }
        return run_fence_forward(data, ndata, cbfunc, cbdata);
    }
    if (cbfunc)
        cbfunc(status, data, ndata, cbdata, run_fence_release, data);
    else
        free(data);
    return PMIX_SUCCESS;
}

bool ibex_run_pmix_fence_take(ibex_run_pmix_t *s, char **data_p, size_t *len_p)
{
    pthread_mutex_lock(&s->lock);
    bool ready = s->fence.pending && !s->fence.taken;
    if (ready) {
        s->fence.taken = true;
        *data_p = s->fence.data;
        *len_p = s->fence.len;
        s->fence.data = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    return ready;
}

void ibex_run_pmix_fence_release(ibex_run_pmix_t *s, int status, const char *data, size_t len)
{
    pthread_mutex_lock(&s->lock);
    bool pending = s->fence.pending && s->fence.taken;
    pmix_modex_cbfunc_t cbfunc = s->fence.cbfunc;
    void *cbdata = s->fence.cbdata;
    s->fence.pending = false;
    pthread_mutex_unlock(&s->lock);
    if (!pending || !cbfunc)
        return;
    char *copy = malloc(len ? len : 1);
    if (!copy) {
        cbfunc(PMIX_ERR_NOMEM, NULL, 0, cbdata, NULL, NULL);
        return;
    }
    if (len)
        memcpy(copy, data, len);
    cbfunc(status, copy, len, cbdata, run_fence_release, copy);
}

static pmix_server_module_t run_module = {
    .client_connected = run_connected,
    .client_finalized = run_finalized,
    .abort = run_abort,
    .fence_nb = run_fence_nb,
    .direct_modex = ibex_run_pmix_dmodex_upcall, /* run_pmix_dmodex.c */
};

static void run_op_done(pmix_status_t status, void *cbdata)
{
    run_op_t *op = cbdata;
    pthread_mutex_lock(&run_srv->lock);
    op->status = status;
    op->done = true;
    pthread_cond_broadcast(&run_srv->cond);
    pthread_mutex_unlock(&run_srv->lock);
}

/* Waits at most 30 s: a PMIx library that never calls back must not hang the launcher. The
 * op is freed here, except after a timeout: a late callback must find it alive. */
static pmix_status_t run_op_wait(ibex_run_pmix_t *s, run_op_t *op)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&s->lock);
    while (!op->done)
        if (pthread_cond_timedwait(&s->cond, &s->lock, &until) == ETIMEDOUT)
            break;
    bool done = op->done;
    pmix_status_t status = done ? op->status : PMIX_ERR_TIMEOUT;
    pthread_mutex_unlock(&s->lock);
    if (done)
        free(op);
    return status;
}

/* The outcome of a non-blocking call that completes through run_op_done. */
static pmix_status_t run_op_result(ibex_run_pmix_t *s, run_op_t *op, pmix_status_t rc)
{
    if (rc == PMIX_SUCCESS)
        return run_op_wait(s, op);
    free(op); /* no callback will come */
    return rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
}

static int run_rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    if (remove(path) != 0 && errno != ENOENT)
        ibex_warn(LAUNCH, "cannot remove %s: %m", path);
    return 0;
}

/* Whether launcher `pid` still runs: a zombie does not (a SIGKILLed daemon whose parent is
 * gone stays one until whoever inherits it reaps it, which may take a while under load). */
static bool run_pid_alive(int pid)
{
    char path[64], stat[256] = "";
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return false;
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return true; /* no /proc: trust kill() */
    size_t n = fread(stat, 1, sizeof(stat) - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *paren = strrchr(stat, ')'); /* "pid (comm) S ...", comm may hold blanks */
    return !(paren && paren[1] == ' ' && paren[2] == 'Z');
}

/* An ibexrun killed with SIGKILL cannot remove its directory (its ranks die with it through
 * PR_SET_PDEATHSIG): the next ibexrun removes the directories of launchers that are gone. */
static void run_tmpdir_sweep(const char *base)
{
    DIR *dir = opendir(base);
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
        int pid;
        char rest[16], path[PATH_MAX];
        struct stat sb;
        if (sscanf(e->d_name, "ibexrun.%d.%15s", &pid, rest) != 2 || pid <= 0 || run_pid_alive(pid))
            continue;
        snprintf(path, sizeof(path), "%s/%s", base, e->d_name);
        if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode) && sb.st_uid == geteuid()) {
            ibex_debug(LAUNCH, "removing %s, left by a launcher that was killed", path);
            nftw(path, run_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        }
    }
    if (dir)
        closedir(dir);
}

static ibex_status_t run_tmpdir_create(ibex_run_pmix_t *s)
{
    const char *base = getenv("TMPDIR"); /* not a tunable: the system's temp dir */
    if (!base || !*base)
        base = "/tmp";
    run_tmpdir_sweep(base);
    snprintf(s->tmpdir, sizeof(s->tmpdir), "%s/ibexrun.%d.XXXXXX", base, (int)getpid());
    if (!mkdtemp(s->tmpdir)) {
        ibex_error(LAUNCH, "cannot create a temporary directory in %s: %m", base);
        s->tmpdir[0] = '\0';
        return IBEX_ERR_IO;
    }
    return IBEX_OK;
}

static ibex_status_t run_server_start(ibex_run_pmix_t *s)
{
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, s->tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, s->tmpdir, PMIX_STRING);
    /* The hash store: faster client start-up and nothing in shared memory to leak. */
    setenv("PMIX_MCA_gds", "hash", 0);
    pmix_status_t rc = PMIx_server_init(&run_module, info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS) {
        ibex_error(LAUNCH, "PMIx_server_init failed: %s", PMIx_Error_string(rc));
        return IBEX_ERR_BOOTSTRAP;
    }
    s->server_up = true;
    return IBEX_OK;
}

/* A comma-separated list of n rank numbers. */
static char *run_rank_list(const int *ranks, int n)
{
    size_t cap = (size_t)n * 6 + 1, pos = 0;
    char *list = malloc(cap);
    if (!list)
        return NULL;
    list[0] = '\0';
    for (int i = 0; i < n; i++)
        pos += (size_t)snprintf(list + pos, cap - pos, "%s%d", i ? "," : "", ranks[i]);
    return list;
}

typedef struct run_maps {
    char *ranks, *node_map, *proc_map;
} run_maps_t;

static void run_maps_free(run_maps_t *m)
{
    free(m->ranks);
    free(m->node_map);
    free(m->proc_map);
}

/* The hosts "h1,h2" and ranks per host "0,2;1,3" of the whole job (one node: this one). */
static ibex_status_t run_maps_text(const ibex_run_pmix_t *s, char **hosts_p, char **ppn_p)
{
    const ibex_run_world_t *w = s->world;
    char me[256] = "localhost";
    gethostname(me, sizeof(me) - 1);
    int nnodes = w ? w->nnodes : 1;
    size_t hcap = 1, pcap = (size_t)s->size * 12 + (size_t)nnodes + 1;
    for (int k = 0; k < nnodes; k++)
        hcap += strlen(w ? w->node_names[k] : me) + 1;
    char *hosts = calloc(1, hcap), *ppn = calloc(1, pcap);
    if (!hosts || !ppn) {
        free(hosts);
        free(ppn);
        return IBEX_ERR_NO_MEMORY;
    }
    size_t hp = 0, pp = 0;
    /* Hosts without ranks (a head whose ranks all run elsewhere) are not in the maps. */
    for (int k = 0; k < nnodes; k++) {
        size_t mark = pp;
        pp += (size_t)snprintf(ppn + pp, pcap - pp, "%s", hp ? ";" : "");
        bool first = true;
        for (int r = 0; r < s->size; r++) {
            if ((w ? w->node_of[r] : 0) != k)
                continue;
            pp += (size_t)snprintf(ppn + pp, pcap - pp, "%s%d", first ? "" : ",", r);
            first = false;
        }
        if (first) {
            pp = mark;
            ppn[pp] = '\0';
            continue;
        }
        const char *name = w ? w->node_names[k] : me;
        hp += (size_t)snprintf(hosts + hp, hcap - hp, "%s%s", hp ? "," : "", name);
    }
    *hosts_p = hosts;
    *ppn_p = ppn;
    return IBEX_OK;
}

static ibex_status_t run_maps_make(const ibex_run_pmix_t *s, run_maps_t *m)
{
    char *hosts = NULL, *ppn = NULL;
    memset(m, 0, sizeof(*m));
    m->ranks = run_rank_list(s->local, s->nranks);
    if (!m->ranks || run_maps_text(s, &hosts, &ppn) != IBEX_OK) {
        free(m->ranks);
        return IBEX_ERR_NO_MEMORY;
    }
    pmix_status_t rc = PMIx_generate_regex(hosts, &m->node_map);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_generate_ppn(ppn, &m->proc_map);
    free(hosts);
    free(ppn);
    if (rc != PMIX_SUCCESS) {
        ibex_error(LAUNCH, "cannot generate the PMIx node/proc maps: %s", PMIx_Error_string(rc));
        run_maps_free(m);
        return IBEX_ERR_BOOTSTRAP;
    }
    return IBEX_OK;
}

/* An info whose value is an array of n infos (PMIX_PROC_DATA, PMIX_APP_INFO); takes `arr`. */
static void run_info_array(pmix_info_t *dst, const char *key, pmix_info_t *arr, size_t n)
{
    pmix_data_array_t *da = calloc(1, sizeof(*da));
    PMIX_LOAD_KEY(dst->key, key);
    dst->value.type = PMIX_DATA_ARRAY;
    dst->value.data.darray = da;
    if (!da) {
        PMIX_INFO_FREE(arr, n);
        dst->value.type = PMIX_UNDEF;
        return;
    }
    da->type = PMIX_INFO;
    da->size = n;
    da->array = arr;
}

/* Per rank: its PMIX_APPNUM (PMIX_PROC_DATA), so MPI_APPNUM can answer it. */
static void run_info_proc_data(const ibex_run_pmix_t *s, pmix_info_t *dst, int rank)
{
    pmix_info_t *arr;
    pmix_rank_t r = (pmix_rank_t)rank;
    uint32_t app = (uint32_t)s->app_of[rank];
    PMIX_INFO_CREATE(arr, 2);
    PMIX_INFO_LOAD(&arr[0], PMIX_RANK, &r, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&arr[1], PMIX_APPNUM, &app, PMIX_UINT32);
    run_info_array(dst, PMIX_PROC_DATA, arr, 2);
}

/* Per application: its number, size and first rank (PMIX_APP_INFO). */
static void run_info_app(const ibex_run_pmix_t *s, pmix_info_t *dst, int a)
{
    pmix_info_t *arr;
    uint32_t num = (uint32_t)a, size = 0;
    pmix_rank_t leader = PMIX_RANK_INVALID;
    for (int r = 0; r < s->size; r++) {
        if (s->app_of[r] != a)
            continue;
        leader = size++ ? leader : (pmix_rank_t)r;
    }
    PMIX_INFO_CREATE(arr, 3);
    PMIX_INFO_LOAD(&arr[0], PMIX_APPNUM, &num, PMIX_UINT32);
    PMIX_INFO_LOAD(&arr[1], PMIX_APP_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&arr[2], PMIX_APPLDR, &leader, PMIX_PROC_RANK);
    run_info_array(dst, PMIX_APP_INFO, arr, 3);
}

/* The job-level facts: sizes, maps, this node's peers. */
static void run_info_job(const ibex_run_pmix_t *s, const run_maps_t *maps, pmix_info_t *info)
{
    uint32_t n = (uint32_t)s->size, nlocal = (uint32_t)s->nranks, napps = (uint32_t)s->napps;
    uint32_t nnodes = s->world ? (uint32_t)s->world->nnodes : 1;
    PMIX_INFO_LOAD(&info[0], PMIX_NODE_MAP, maps->node_map, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_PROC_MAP, maps->proc_map, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_JOB_SIZE, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[3], PMIX_UNIV_SIZE, &n, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[4], PMIX_LOCAL_SIZE, &nlocal, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[5], PMIX_LOCAL_PEERS, maps->ranks, PMIX_STRING);
    PMIX_INFO_LOAD(&info[6], PMIX_JOB_NUM_APPS, &napps, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[7], PMIX_TMPDIR, s->tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[8], PMIX_NUM_NODES, &nnodes, PMIX_UINT32);
}

#define RUN_JOB_INFOS 9

static ibex_status_t run_nspace_register(ibex_run_pmix_t *s)
{
    run_maps_t maps;
    ibex_status_t st = run_maps_make(s, &maps);
    if (st != IBEX_OK)
        return st;
    pmix_info_t *info;
    size_t ninfo = RUN_JOB_INFOS + (size_t)s->napps + (size_t)s->size;
    PMIX_INFO_CREATE(info, ninfo);
    run_info_job(s, &maps, info);
    for (int a = 0; a < s->napps; a++)
        run_info_app(s, &info[RUN_JOB_INFOS + a], a);
    for (int r = 0; r < s->size; r++)
        run_info_proc_data(s, &info[RUN_JOB_INFOS + s->napps + r], r);
    run_op_t *op = calloc(1, sizeof(*op));
    pmix_status_t rc =
        op ? PMIx_server_register_nspace(s->nspace, s->nranks, info, ninfo, run_op_done, op)
           : PMIX_ERR_NOMEM;
    rc = run_op_result(s, op, rc);
    PMIX_INFO_FREE(info, ninfo);
    run_maps_free(&maps);
    if (rc != PMIX_SUCCESS) {
        ibex_error(LAUNCH, "cannot register namespace %s: %s", s->nspace, PMIx_Error_string(rc));
        return IBEX_ERR_BOOTSTRAP;
    }
    return IBEX_OK;
}

/* The application of each rank, and how many there are. */
static ibex_status_t run_apps_copy(ibex_run_pmix_t *s, const int *app_of)
{
    s->app_of = calloc((size_t)s->size, sizeof(*s->app_of));
    if (!s->app_of)
        return IBEX_ERR_NO_MEMORY;
    s->napps = 1;
    for (int r = 0; app_of && r < s->size; r++) {
        s->app_of[r] = app_of[r];
        s->napps = app_of[r] + 1 > s->napps ? app_of[r] + 1 : s->napps;
    }
    return IBEX_OK;
}

/* Which ranks of the job start here (all of them on one node). */
static ibex_status_t run_world_copy(ibex_run_pmix_t *s, const ibex_run_world_t *w)
{
    s->world = w;
    s->size = w ? w->size : s->nranks;
    s->multi = w && w->nnodes > 1;
    s->local = calloc((size_t)s->nranks + 1, sizeof(*s->local));
    s->idx_of = calloc((size_t)s->size, sizeof(*s->idx_of));
    if (!s->local || !s->idx_of)
        return IBEX_ERR_NO_MEMORY;
    for (int r = 0; r < s->size; r++)
        s->idx_of[r] = -1;
    for (int i = 0; i < s->nranks; i++) {
        s->local[i] = w ? w->local[i] : i;
        s->idx_of[s->local[i]] = i;
    }
    return IBEX_OK;
}

static void run_srv_free(ibex_run_pmix_t *s)
{
    free(s->ranks);
    free(s->local);
    free(s->idx_of);
    free(s->app_of);
    free(s->fence.data);
    free(s);
}

ibex_status_t ibex_run_pmix_init(int nranks, const int *app_of, const ibex_run_world_t *world,
                                 int wake_fd, ibex_run_pmix_t **srv_p)
{
    ibex_run_pmix_t *s = calloc(1, sizeof(*s));
    if (!s || !(s->ranks = calloc((size_t)nranks + 1, sizeof(*s->ranks)))) {
        free(s);
        return IBEX_ERR_NO_MEMORY;
    }
    s->nranks = nranks;
    if (run_world_copy(s, world) != IBEX_OK || run_apps_copy(s, app_of) != IBEX_OK) {
        run_srv_free(s);
        return IBEX_ERR_NO_MEMORY;
    }
    s->wake_fd = wake_fd;
    if (world)
        snprintf(s->nspace, sizeof(s->nspace), "%s", world->nspace);
    else
        snprintf(s->nspace, sizeof(s->nspace), "ibexrun-%d", (int)getpid());
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    run_srv = s;
    ibex_run_pmix_dmodex_setup(s->nspace, s->size, s->multi, wake_fd);
    ibex_status_t st = run_tmpdir_create(s);
    if (st == IBEX_OK)
        st = run_server_start(s);
    if (st == IBEX_OK && nranks > 0) /* nothing to serve here otherwise */
        st = run_nspace_register(s);
    s->world = NULL; /* the caller's, valid during init only */
    if (st != IBEX_OK) {
        ibex_run_pmix_fini(s, false);
        return st;
    }
    *srv_p = s;
    return IBEX_OK;
}

ibex_status_t ibex_run_pmix_setup_rank(ibex_run_pmix_t *s, int rank, char ***env_p)
{
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, s->nspace, (pmix_rank_t)s->local[rank]);
    pmix_status_t rc = PMIx_server_setup_fork(&proc, env_p);
    if (rc != PMIX_SUCCESS) {
        ibex_error(LAUNCH, "PMIx_server_setup_fork for rank %d: %s", rank, PMIx_Error_string(rc));
        return IBEX_ERR_BOOTSTRAP;
    }
    run_op_t *op = calloc(1, sizeof(*op));
    /* Registered before the fork, so the client can never connect to an unknown rank. */
    rc = op ? PMIx_server_register_client(&proc, geteuid(), getegid(), NULL, run_op_done, op)
            : PMIX_ERR_NOMEM;
    rc = run_op_result(s, op, rc);
    if (rc != PMIX_SUCCESS) {
        ibex_error(LAUNCH, "PMIx_server_register_client for rank %d: %s", rank,
                   PMIx_Error_string(rc));
        return IBEX_ERR_BOOTSTRAP;
    }
    return IBEX_OK;
}

void ibex_run_pmix_rank_state(ibex_run_pmix_t *s, int rank, ibex_run_pmix_rank_t *st_p)
{
    pthread_mutex_lock(&s->lock);
    *st_p = s->ranks[rank];
    pthread_mutex_unlock(&s->lock);
}

bool ibex_run_pmix_any_connected(ibex_run_pmix_t *s)
{
    bool any = false;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < s->nranks && !any; i++)
        any = s->ranks[i].connected;
    pthread_mutex_unlock(&s->lock);
    return any;
}

bool ibex_run_pmix_abort_info(ibex_run_pmix_t *s, int *rank_p, int *code_p, char *msg, size_t len)
{
    pthread_mutex_lock(&s->lock);
    bool aborted = s->aborted;
    if (aborted) {
        *rank_p = s->abort_rank;
        *code_p = s->abort_code;
        snprintf(msg, len, "%s", s->abort_msg);
    }
    pthread_mutex_unlock(&s->lock);
    return aborted;
}

void ibex_run_pmix_fini(ibex_run_pmix_t *s, bool clean)
{
    if (!s)
        return;
    /* After a client vanished in the middle of a fence, OpenPMIx 4.2's PMIx_server_finalize
     * can block forever on an internal lock (seen here) or crash. The process is about to end
     * and everything the server created lives in our temporary directory, which we remove
     * ourselves (first, so that even a hang in finalize leaves nothing behind), so a failed
     * job skips the library's finalize. ibexrun's main bounds a clean finalize with alarm(). */
    if (s->tmpdir[0])
        nftw(s->tmpdir, run_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (s->server_up && clean)
        PMIx_server_finalize();
    if (clean || !s->server_up)
        ibex_run_pmix_dmodex_fini(); /* else the PMIx thread may still upcall */
    run_srv = NULL;
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cond);
    run_srv_free(s);
}
