/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The head of a multi-host job: ibexrun when the plan puts ranks on other hosts, the root of
 * the tree of daemons (run_tree.h). It runs the ranks of its own host like a one-node job
 * (libibexlaunch) and, through the tree:
 *   - starts the daemons of its children (IBEX_DAEMON_FANOUT hosts; each daemon starts its
 *     own) with the launch agent ("ssh -o BatchMode=yes", --launch-agent CMD called as CMD HOST
 *     COMMAND, or srun in a Slurm allocation). COMMAND is fixed and quoted: ibexrun's path,
 *     --daemon, the parent's address and the host's node index. The per-job token (32 random
 *     bytes, hex) goes to the agent's stdin, never on a command line; the program, arguments,
 *     environment and the job's maps go over the TCP connections of the tree once each
 *     daemon authenticated;
 *   - forwards the agents' stdout / stderr line by line (the daemons write their ranks' lines
 *     there, tagged already, and their own children's);
 *   - completes the PMIx fences (every subtree's contributions come up; the concatenation goes
 *     down) and routes direct-modex requests;
 *   - supervises: the first failure anywhere in the tree (a rank, a daemon, a host that cannot
 *     be reached or fails to authenticate) is the job's, named by its host.
 * Every callback runs on the job's thread.
 */
#include "ibexrun.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ibex_log.h"
#include "run_config.h"
#include "run_tree.h"

typedef struct head {
    const ibex_run_opts_t *opts;
    char (*paths)[4096];
    char **env;
    ibex_run_world_t world;
    int *node_of, *app_of, *local;
    char **names;
    int nranks0; /* ranks on this host */
    ibex_tree_t tree;
    ibex_run_job_t *job;
} head_t;

/* ---- the world: node 0 is this host, then each remote host with ranks ---- */

static int head_node_index(head_t *h, const char *name, int *nnodes)
{
    if (ibex_run_host_is_local(name))
        return 0;
    for (int k = 1; k < *nnodes; k++)
        if (strcmp(h->names[k], name) == 0)
            return k;
    h->names[*nnodes] = (char *)name;
    return (*nnodes)++;
}

static ibex_status_t head_world(head_t *h, const ibex_run_plan_t *plan)
{
    static char me[256];
    int n = plan->nranks, nnodes = 1, nlocal = 0;
    gethostname(me, sizeof(me) - 1);
    h->names = calloc((size_t)plan->hosts.nhosts + 1, sizeof(*h->names));
    h->node_of = calloc((size_t)n, sizeof(int));
    h->local = calloc((size_t)n + 1, sizeof(int));
    if (!h->names || !h->node_of || !h->local)
        return IBEX_ERR_NO_MEMORY;
    h->names[0] = me;
    for (int r = 0; r < n; r++) {
        h->node_of[r] = head_node_index(h, plan->hosts.hosts[plan->host_of[r]].name, &nnodes);
        if (h->node_of[r] == 0)
            h->local[nlocal++] = r;
    }
    h->app_of = plan->app_of;
    h->world = (ibex_run_world_t){.size = n,
                                  .nnodes = nnodes,
                                  .node_names = h->names,
                                  .node_of = h->node_of,
                                  .my_node = 0,
                                  .local = h->local};
    h->nranks0 = nlocal;
    return IBEX_OK;
}

/* ---- the tree's root: address, token ---- */

/* The address daemons connect to: this host's first address that is not loopback, else
 * 127.0.0.1 (simulated hosts on one machine). */
static void head_pick_ip(char *ip, size_t len)
{
    char me[256] = "localhost";
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
    snprintf(ip, len, "127.0.0.1");
    gethostname(me, sizeof(me) - 1);
    if (getaddrinfo(me, NULL, &hints, &res) != 0)
        return;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        struct sockaddr_in *in = (struct sockaddr_in *)a->ai_addr;
        if ((ntohl(in->sin_addr.s_addr) >> 24) == 127)
            continue;
        inet_ntop(AF_INET, &in->sin_addr, ip, (socklen_t)len);
        break;
    }
    freeaddrinfo(res);
}

static ibex_status_t head_token(head_t *h)
{
    unsigned char rnd[IBEX_WIRE_TOKEN_LEN / 2];
    if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
        ibex_run_say("cannot make the job's token: %s", strerror(errno));
        return IBEX_ERR_IO;
    }
    for (size_t i = 0; i < sizeof(rnd); i++)
        snprintf(h->tree.token + 2 * i, 3, "%02x", rnd[i]);
    return IBEX_OK;
}

static ibex_status_t head_tree(head_t *h)
{
    ibex_tree_t *t = &h->tree;
    char ip[64];
    int k = ibex_run_daemon_fanout;
    if (k < 1 || k > IBEX_TREE_MAX_FANOUT)
        ibex_run_say("warning: IBEX_DAEMON_FANOUT=%d is not in 1..%d; using %d", k,
                     IBEX_TREE_MAX_FANOUT, k < 1 ? 1 : IBEX_TREE_MAX_FANOUT);
    t->me = 0;
    t->nnodes = h->world.nnodes;
    t->fanout = k < 1 ? 1 : k > IBEX_TREE_MAX_FANOUT ? IBEX_TREE_MAX_FANOUT : k;
    t->names = h->names;
    t->node_of = h->node_of;
    t->size = h->world.size;
    t->local_ranks = h->nranks0 > 0;
    t->up.fd = -1;
    t->agent = h->opts->launch_agent;
    t->slurm = !h->opts->launch_agent && getenv("SLURM_JOB_ID"); /* the allocation's fact */
    ibex_status_t st = head_token(h);
    head_pick_ip(ip, sizeof(ip));
    return st == IBEX_OK ? ibex_tree_init(t, ip) : st;
}

/* ---- the job every daemon gets (after its node's header, see run_tree.c) ---- */

static void head_put_job(const head_t *h, ibex_wire_buf_t *b)
{
    const ibex_run_opts_t *o = h->opts;
    char cwd[4096] = "/";
    if (!getcwd(cwd, sizeof(cwd)))
        snprintf(cwd, sizeof(cwd), "/");
    ibex_wire_put_str(b, h->world.nspace);
    ibex_wire_put_u32(b, (uint32_t)h->world.size);
    ibex_wire_put_u32(b, (uint32_t)h->world.nnodes);
    for (int k = 0; k < h->world.nnodes; k++)
        ibex_wire_put_str(b, h->names[k]);
    for (int r = 0; r < h->world.size; r++) {
        ibex_wire_put_u32(b, (uint32_t)h->node_of[r]);
        ibex_wire_put_u32(b, (uint32_t)h->app_of[r]);
    }
    ibex_wire_put_u32(b, (uint32_t)o->napps);
    for (int a = 0; a < o->napps; a++) {
        ibex_wire_put_str(b, h->paths[a]);
        ibex_wire_put_u32(b, (uint32_t)o->apps[a].argc);
        for (int i = 0; i < o->apps[a].argc; i++)
            ibex_wire_put_str(b, o->apps[a].argv[i]);
    }
    int nenv = 0;
    while (h->env[nenv])
        nenv++;
    ibex_wire_put_u32(b, (uint32_t)nenv);
    for (int i = 0; i < nenv; i++)
        ibex_wire_put_str(b, h->env[i]);
    ibex_wire_put_str(b, cwd);
    ibex_wire_put_u32(b, (uint32_t)o->tag_output);
    ibex_wire_put_u32(b, (uint32_t)o->bind);
    ibex_wire_put_u32(b, (uint32_t)ibex_run_abort_grace_ms);
}

/* The job's first failure (here, or a host's): one line, then every daemon stops its ranks. */
static void head_on_fail(void *ctx, int code, const char *msg)
{
    ibex_tree_t *tree = ctx; /* the hooks' context */
    ibex_run_say("%s; stopping the job", msg);
    ibex_tree_stop_kids(tree, code);
}

/* ---- the whole ---- */

static void head_free(head_t *h)
{
    ibex_tree_free(&h->tree);
    free(h->names);
    free(h->node_of);
    free(h->local);
}

static ibex_status_t head_setup(head_t *h, ibex_run_job_t **job_p)
{
    static char nspace[64];
    static ibex_run_hooks_t hooks;
    ibex_tree_hooks(&h->tree, &hooks);
    hooks.on_fail = head_on_fail;
    snprintf(nspace, sizeof(nspace), "ibexrun-%d", (int)getpid());
    h->world.nspace = nspace;
    head_put_job(h, &h->tree.common);
    ibex_run_job_app_t apps[IBEX_RUN_MAX_APPS];
    for (int a = 0; a < h->opts->napps; a++)
        apps[a] = (ibex_run_job_app_t){
            .path = h->paths[a], .argv = h->opts->apps[a].argv, .nranks = h->opts->apps[a].nranks};
    ibex_run_job_params_t p = {.nranks = h->nranks0,
                               .path = h->paths[0],
                               .argv = h->opts->prog_argv,
                               .env = ibex_run_env_dup(h->env),
                               .bind = h->opts->bind,
                               .report_bindings = h->opts->report_bindings,
                               .timeout_s = h->opts->timeout_s,
                               .abort_grace_ms = ibex_run_abort_grace_ms,
                               .napps = h->opts->napps,
                               .apps = apps,
                               .world = &h->world,
                               .world_app_of = h->app_of,
                               .hooks = &hooks};
    if (!p.env)
        return IBEX_ERR_NO_MEMORY;
    return ibex_run_job_create(&p, job_p);
}

int ibex_run_head_main(const ibex_run_opts_t *opts, char (*paths)[4096],
                       const ibex_run_plan_t *plan, char **env)
{
    head_t h = {.opts = opts, .paths = paths, .env = env};
    h.tree.listen_fd = -1;
    h.tree.up.fd = -1;
    ibex_status_t st = head_world(&h, plan);
    if (st == IBEX_OK)
        st = head_tree(&h);
    if (st == IBEX_OK)
        st = head_setup(&h, &h.job);
    if (st == IBEX_OK)
        ibex_tree_start(&h.tree, h.job);
    int code = st == IBEX_OK ? ibex_run_job_run(h.job) : IBEX_RUN_EXIT_INTERNAL;
    if (code == 0 && !ibex_run_job_failed(h.job))
        code = h.tree.remote_code;
    bool clean = code == 0 && h.job && !ibex_run_job_failed(h.job);
    head_free(&h);
    ibex_run_job_destroy(h.job, clean);
    return code;
}
