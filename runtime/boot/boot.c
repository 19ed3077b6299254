/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bootstrap over the PMIx client API (OpenPMIx 4.2). See ibex_boot.h.
 *
 * Job facts (size, local peers, node ids, host names) are read with PMIX_OPTIONAL: the server
 * hands them to the client at PMIx_Init, so looking only in the local store never waits and
 * never hangs on a server that does not know a key. Only peer data published with
 * ibex_boot_put is fetched without it (a lazy get waits for the peer's commit).
 *
 * A process with no PMIx server in its environment never calls PMIx_Init (it would try to
 * find or start a server): it is rank 0 of 1 with an in-process key store.
 *
 * The PMIx client stays connected from the first ibex_boot_init to the process's exit, even
 * when the engine stops and starts again (sessions after MPI_Finalize). A rank that called
 * PMIx_Finalize and PMIx_Init again at once could contribute to the next start-up fence
 * before the server had seen a slower rank disconnect; the server then counted that rank as
 * lost from the new fence and failed it with PARTIAL SUCCESS. Each start after the first
 * publishes its keys under a new suffix ("KEY#EPOCH"), so no value of an earlier start is
 * read. PMIx_Finalize runs at exit, and only if the engine was stopped: a process that exits
 * without MPI_Finalize still looks to the launcher as one that never finalized.
 */
#include "ibex_boot.h"

#include <hwloc.h>
#include <pmix.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibex_boot_util.h"
#include "ibex_log.h"

extern char **environ;

static struct {
    bool active;    /* between ibex_boot_init and ibex_boot_finalize */
    bool pmix_up;   /* PMIx_Init done; PMIx_Finalize at exit (boot_pmix_exit) */
    pid_t pmix_pid; /* the process that connected (a forked child must not disconnect it) */
    unsigned epoch; /* engine starts before this one: the suffix of our keys */
    bool singleton;
    pmix_proc_t me;
    ibex_boot_info_t *info;
    char **hosts;         /* host name of each rank, filled on first use */
    ibex_boot_kvs_t *kvs; /* singleton only */
} boot;

/* Integer values arrive in whatever width the server chose; accept all of them. */
static int boot_value_int(const pmix_value_t *v, long long *out)
{
    switch (v->type) {
    case PMIX_UINT8:
        *out = v->data.uint8;
        return 0;
    case PMIX_UINT16:
        *out = v->data.uint16;
        return 0;
    case PMIX_UINT32:
        *out = v->data.uint32;
        return 0;
    case PMIX_UINT64:
        *out = (long long)v->data.uint64;
        return 0;
    case PMIX_INT:
        *out = v->data.integer;
        return 0;
    case PMIX_INT32:
        *out = v->data.int32;
        return 0;
    case PMIX_UINT:
        *out = v->data.uint;
        return 0;
    case PMIX_SIZE:
        *out = (long long)v->data.size;
        return 0;
    case PMIX_PROC_RANK:
        *out = v->data.rank;
        return 0;
    default:
        return -1;
    }
}

/* PMIx_Get from the local store only; NULL when absent. The caller releases the value. */
static pmix_value_t *boot_get_local(pmix_rank_t rank, const char *key)
{
    pmix_proc_t proc;
    pmix_info_t opt;
    pmix_value_t *val = NULL;
    bool yes = true;
    PMIX_LOAD_PROCID(&proc, boot.me.nspace, rank);
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(&proc, key, &opt, 1, &val);
    PMIX_INFO_DESTRUCT(&opt);
    return rc == PMIX_SUCCESS ? val : NULL;
}

static int boot_get_int(pmix_rank_t rank, const char *key, long long *out)
{
    pmix_value_t *val = boot_get_local(rank, key);
    if (!val)
        return -1;
    int rc = boot_value_int(val, out);
    PMIX_VALUE_RELEASE(val);
    return rc;
}

/* A malloc'd copy of a string value, or NULL. */
static char *boot_get_string(pmix_rank_t rank, const char *key)
{
    pmix_value_t *val = boot_get_local(rank, key);
    char *s = NULL;
    if (val && val->type == PMIX_STRING && val->data.string)
        s = strdup(val->data.string);
    if (val)
        PMIX_VALUE_RELEASE(val);
    return s;
}

static int boot_count_cores(void)
{
    hwloc_topology_t topo;
    int n = -1;
    if (hwloc_topology_init(&topo) == 0) {
        /* Only cores and PUs are needed: skip caches, NUMA details and devices (cheaper). */
        hwloc_topology_set_all_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
        hwloc_topology_set_type_filter(topo, HWLOC_OBJ_CORE, HWLOC_TYPE_FILTER_KEEP_ALL);
        hwloc_topology_set_type_filter(topo, HWLOC_OBJ_PU, HWLOC_TYPE_FILTER_KEEP_ALL);
        if (hwloc_topology_load(topo) == 0) {
            n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
            if (n <= 0)
                n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        }
        hwloc_topology_destroy(topo);
    }
    if (n <= 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        ibex_debug(BOOT, "hwloc found no cores; using %ld online processors", online);
        n = online > 0 ? (int)online : 1;
    }
    return n;
}

static void boot_own_hostname(ibex_boot_info_t *info)
{
    if (gethostname(info->hostname, sizeof(info->hostname) - 1) != 0)
        snprintf(info->hostname, sizeof(info->hostname), "localhost");
    info->hostname[sizeof(info->hostname) - 1] = '\0';
}

static ibex_status_t boot_init_singleton(ibex_boot_info_t *info)
{
    info->rank = 0;
    info->size = 1;
    info->local_rank = 0;
    info->local_size = 1;
    info->node_id = 0;
    info->num_nodes = 1;
    info->local_peers = calloc(1, sizeof(int));
    info->node_of = calloc(1, sizeof(int));
    if (!info->local_peers || !info->node_of)
        return IBEX_ERR_NO_MEMORY;
    info->singleton = true;
    boot_own_hostname(info);
    snprintf(info->nspace, sizeof(info->nspace), "ibex-singleton-%ld", (long)getpid());
    ibex_debug(BOOT, "no PMIx server in the environment: running as a singleton (1 rank)");
    return IBEX_OK;
}

static ibex_status_t boot_read_peers(ibex_boot_info_t *info)
{
    char *list = boot_get_string(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS);
    if (!list) {
        ibex_error(BOOT, "the PMIx server gave no local peers (%s)", PMIX_LOCAL_PEERS);
        return IBEX_ERR_BOOTSTRAP;
    }
    ibex_status_t st =
        ibex_boot_parse_peers(list, info->size, &info->local_peers, &info->local_size);
    if (st != IBEX_OK)
        ibex_error(BOOT, "cannot parse the local peers '%s' from PMIx (job size %d)", list,
                   info->size);
    free(list);
    if (st != IBEX_OK)
        return st;
    long long lrank;
    info->local_rank = -1;
    if (boot_get_int(info->rank, PMIX_LOCAL_RANK, &lrank) == 0)
        info->local_rank = (int)lrank;
    for (int i = 0; i < info->local_size && info->local_rank < 0; i++)
        if (info->local_peers[i] == info->rank)
            info->local_rank = i;
    return IBEX_OK;
}

/* Fallback when the server gives no PMIX_NODEID per rank: number nodes by host name. */
static bool boot_nodes_by_hostname(ibex_boot_info_t *info)
{
    char **hosts = calloc((size_t)info->size, sizeof(*hosts));
    bool ok = hosts != NULL;
    for (int r = 0; ok && r < info->size; r++)
        ok = (hosts[r] = boot_get_string((pmix_rank_t)r, PMIX_HOSTNAME)) != NULL;
    if (ok)
        info->num_nodes =
            ibex_boot_nodes_from_hosts((const char *const *)hosts, info->size, info->node_of);
    for (int r = 0; hosts && r < info->size; r++)
        free(hosts[r]);
    free(hosts);
    return ok;
}

static void boot_read_nodes(ibex_boot_info_t *info)
{
    long long v = 0;
    bool ok = true;
    for (int r = 0; ok && r < info->size; r++) {
        ok = boot_get_int((pmix_rank_t)r, PMIX_NODEID, &v) == 0;
        info->node_of[r] = (int)v;
    }
    info->num_nodes = 0;
    if (ok && boot_get_int(PMIX_RANK_WILDCARD, PMIX_NUM_NODES, &v) == 0)
        info->num_nodes = (int)v;
    if (!ok)
        ibex_debug(BOOT, "no %s for every rank from PMIx; numbering nodes by host name",
                   PMIX_NODEID);
    if (!ok && !boot_nodes_by_hostname(info)) {
        /* Nothing better known: our local peers share a node, everyone else is elsewhere. */
        ibex_debug(BOOT, "no node ids or host names from PMIx; using the local peers only");
        for (int r = 0; r < info->size; r++)
            info->node_of[r] = 1;
        for (int i = 0; i < info->local_size; i++)
            info->node_of[info->local_peers[i]] = 0;
        info->num_nodes = info->local_size < info->size ? 2 : 1;
    }
    for (int r = 0; r < info->size; r++)
        if (info->node_of[r] >= info->num_nodes)
            info->num_nodes = info->node_of[r] + 1;
    info->node_id = info->node_of[info->rank];
}

static void boot_pmix_exit(void)
{
    if (boot.pmix_up && !boot.active && getpid() == boot.pmix_pid)
        PMIx_Finalize(NULL, 0);
    boot.pmix_up = false;
}

/* Connects once per process (see the top of this file). */
static ibex_status_t boot_pmix_connect(void)
{
    if (boot.pmix_up)
        return IBEX_OK;
    pmix_status_t rc = PMIx_Init(&boot.me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        ibex_error(BOOT, "PMIx_Init failed: %s (the launcher's PMIx server is not reachable)",
                   PMIx_Error_string(rc));
        return IBEX_ERR_BOOTSTRAP;
    }
    static bool registered;
    if (!registered && atexit(boot_pmix_exit) == 0)
        registered = true;
    boot.pmix_up = true;
    boot.pmix_pid = getpid();
    return IBEX_OK;
}

static ibex_status_t boot_init_pmix(ibex_boot_info_t *info)
{
    if (boot_pmix_connect() != IBEX_OK)
        return IBEX_ERR_BOOTSTRAP;
    long long size;
    if (boot_get_int(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &size) != 0 || size <= 0) {
        ibex_error(BOOT, "the PMIx server gave no job size (%s)", PMIX_JOB_SIZE);
        goto err_fini;
    }
    info->rank = (int)boot.me.rank;
    info->size = (int)size;
    snprintf(info->nspace, sizeof(info->nspace), "%s", boot.me.nspace);
    if (boot_read_peers(info) != IBEX_OK)
        goto err_fini;
    info->node_of = calloc((size_t)info->size, sizeof(int));
    if (!info->node_of)
        goto err_fini;
    boot_read_nodes(info);
    long long app = 0;
    /* MPMD (ibexrun -n 2 ./a : -n 4 ./b, srun --multi-prog): this rank's application. */
    info->appnum = boot_get_int(boot.me.rank, PMIX_APPNUM, &app) == 0 && app >= 0 ? (int)app : 0;
    char *host = boot_get_string(boot.me.rank, PMIX_HOSTNAME);
    if (host)
        snprintf(info->hostname, sizeof(info->hostname), "%s", host);
    else
        boot_own_hostname(info);
    free(host);
    return IBEX_OK;
err_fini:
    return IBEX_ERR_BOOTSTRAP; /* still connected: boot_pmix_exit disconnects */
}

ibex_status_t ibex_boot_init(ibex_boot_info_t *info)
{
    ibex_status_t st;
    memset(info, 0, sizeof(*info));
    boot.singleton = ibex_boot_env_is_singleton(environ);
    st = boot.singleton ? boot_init_singleton(info) : boot_init_pmix(info);
    if (st == IBEX_OK)
        boot.hosts = calloc((size_t)info->size, sizeof(*boot.hosts));
    if (st != IBEX_OK || !boot.hosts) {
        free(info->local_peers);
        free(info->node_of);
        memset(info, 0, sizeof(*info));
        return st != IBEX_OK ? st : IBEX_ERR_NO_MEMORY;
    }
    info->num_cores = boot_count_cores();
    boot.info = info;
    boot.active = true;
    ibex_debug(BOOT, "rank %d of %d (%s), local rank %d of %d, node %d of %d, %d cores", info->rank,
               info->size, info->nspace, info->local_rank, info->local_size, info->node_id,
               info->num_nodes, info->num_cores);
    return IBEX_OK;
}

void ibex_boot_finalize(void)
{
    if (!boot.active)
        return;
    boot.epoch++; /* the next start publishes under new keys; PMIx stays connected */
    ibex_boot_kvs_free(&boot.kvs);
    for (int r = 0; boot.hosts && r < boot.info->size; r++)
        free(boot.hosts[r]);
    free(boot.hosts);
    free(boot.info->local_peers);
    free(boot.info->node_of);
    boot.info->local_peers = NULL;
    boot.info->node_of = NULL;
    boot.hosts = NULL;
    boot.info = NULL;
    boot.active = false;
}

/* KEY, or KEY#EPOCH after the engine's first start. */
static const char *boot_key(const char *key, char *buf, size_t size)
{
    if (boot.epoch == 0)
        return key;
    int n = snprintf(buf, size, "%s#%u", key, boot.epoch);
    return n > 0 && (size_t)n < size ? buf : key;
}

ibex_status_t ibex_boot_put(const char *key, const void *data, size_t len)
{
    if (!boot.active)
        return IBEX_ERR_INVALID;
    if (boot.singleton)
        return ibex_boot_kvs_put(&boot.kvs, key, data, len);
    char kbuf[PMIX_MAX_KEYLEN + 1];
    pmix_value_t val;
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)data;
    val.data.bo.size = len;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, boot_key(key, kbuf, sizeof(kbuf)), &val); /* copies */
    if (rc != PMIX_SUCCESS) {
        ibex_error(BOOT, "PMIx_Put of key %s (%zu bytes) failed: %s", key, len,
                   PMIx_Error_string(rc));
        return IBEX_ERR_BOOTSTRAP;
    }
    return IBEX_OK;
}

ibex_status_t ibex_boot_commit(void)
{
    if (!boot.active)
        return IBEX_ERR_INVALID;
    if (boot.singleton)
        return IBEX_OK;
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        ibex_error(BOOT, "PMIx_Commit failed: %s", PMIx_Error_string(rc));
        return IBEX_ERR_BOOTSTRAP;
    }
    return IBEX_OK;
}

ibex_status_t ibex_boot_fence(bool collect_data)
{
    if (!boot.active)
        return IBEX_ERR_INVALID;
    if (boot.singleton)
        return IBEX_OK;
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect_data, PMIX_BOOL);
    /* NULL procs: every process of our namespace. */
    pmix_status_t rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        ibex_error(BOOT, "PMIx_Fence failed: %s (a rank may have died)", PMIx_Error_string(rc));
        return IBEX_ERR_BOOTSTRAP;
    }
    return IBEX_OK;
}

static ibex_status_t boot_copy_bytes(const pmix_value_t *val, int rank, const char *key,
                                     void **data_p, size_t *len_p)
{
    if (val->type != PMIX_BYTE_OBJECT) {
        ibex_error(BOOT, "key %s of rank %d has PMIx type %s, expected a byte object", key, rank,
                   PMIx_Data_type_string(val->type));
        return IBEX_ERR_BOOTSTRAP;
    }
    size_t len = val->data.bo.size;
    void *copy = malloc(len ? len : 1);
    if (!copy)
        return IBEX_ERR_NO_MEMORY;
    if (len)
        memcpy(copy, val->data.bo.bytes, len);
    *data_p = copy;
    *len_p = len;
    return IBEX_OK;
}

ibex_status_t ibex_boot_get(int rank, const char *key, void **data_p, size_t *len_p)
{
    if (!boot.active || rank < 0 || rank >= boot.info->size)
        return IBEX_ERR_INVALID;
    if (boot.singleton)
        return ibex_boot_kvs_get(boot.kvs, key, data_p, len_p);
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    char kbuf[PMIX_MAX_KEYLEN + 1];
    const char *ekey = boot_key(key, kbuf, sizeof(kbuf));
    PMIX_LOAD_PROCID(&proc, boot.me.nspace, (pmix_rank_t)rank);
    /* No PMIX_OPTIONAL: ibexrun's server holds the request until the peer has committed. Open
     * MPI 4.1's mpirun answers NOT-FOUND instead while the peer has not committed yet: ask
     * again, with a growing pause, for up to a minute. */
    pmix_status_t rc = PMIx_Get(&proc, ekey, NULL, 0, &val);
    for (useconds_t pause = 100; rc == PMIX_ERR_NOT_FOUND && pause < 60000000; pause *= 2) {
        usleep(pause);
        rc = PMIx_Get(&proc, ekey, NULL, 0, &val);
    }
    if (rc != PMIX_SUCCESS) {
        ibex_error(BOOT, "PMIx_Get of key %s from rank %d (%s) failed: %s", key, rank,
                   ibex_boot_peer_host(rank), PMIx_Error_string(rc));
        return IBEX_ERR_BOOTSTRAP;
    }
    ibex_status_t st = boot_copy_bytes(val, rank, key, data_p, len_p);
    PMIX_VALUE_RELEASE(val);
    return st;
}

const char *ibex_boot_peer_host(int rank)
{
    if (!boot.active || rank < 0 || rank >= boot.info->size)
        return "unknown host";
    if (rank == boot.info->rank)
        return boot.info->hostname;
    if (!boot.hosts[rank] && !boot.singleton)
        boot.hosts[rank] = boot_get_string((pmix_rank_t)rank, PMIX_HOSTNAME);
    if (!boot.hosts[rank]) {
        char name[32];
        snprintf(name, sizeof(name), "node %d", boot.info->node_of[rank]);
        boot.hosts[rank] = strdup(name);
    }
    /* Out of memory for the name: still never NULL. */
    return boot.hosts[rank] ? boot.hosts[rank] : "unknown host";
}

/* Exit statuses are 8 bits: keep a non-zero code non-zero. */
static int boot_exit_status(int code)
{
    if (code == 0)
        return 0;
    return (code & 0xff) ? (code & 0xff) : 1;
}

/* The rank prints the message itself: every launcher forwards stderr, but not every one shows
 * PMIx_Abort's message (Open MPI's mpirun does not), and ibexrun adds its own line with the pid
 * and code, which would repeat it. */
void ibex_boot_abort(int code, const char *msg)
{
    if (msg && *msg) {
        fprintf(stderr, "%s\n", msg);
        fflush(stderr);
    }
    fflush(stdout);
    if (boot.pmix_up) {
        /* The launcher ends every rank and exits with code; returns only if it cannot. */
        pmix_status_t rc = PMIx_Abort(code, "", NULL, 0);
        if (rc != PMIX_SUCCESS)
            ibex_debug(BOOT, "PMIx_Abort failed: %s", PMIx_Error_string(rc));
    }
    _exit(boot_exit_status(code));
}
