/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibexrun --daemon ADDR:PORT NODE: the daemon of one remote host of a multi-host job, a node
 * of the tree of daemons (run_tree.h), started by its parent's launch agent. It reads the job's
 * token from stdin (one line), connects to its parent (the head or another daemon),
 * authenticates (HELLO: node, token), receives the job (its place in the tree, the launch
 * agent, the maps, the programs, their arguments, the environment, the working directory),
 * starts its own children's daemons and sends them the job, and runs the ranks of its host as a
 * one-node job of libibexlaunch whose PMIx server knows the whole job. Through the tree it
 * gathers its subtree's fences, routes direct-modex requests, reports the first failure of its
 * subtree up (FAIL, naming the host) and, once its ranks and its children are all gone, their
 * exit (EXIT). A STOP from the parent, or the parent's connection closing, stops the ranks and
 * the subtree. Its ranks' output, and its children's, goes to its own stdout / stderr, which
 * its agent carries to the parent.
 */
#include "ibexrun.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ibex_log.h"
#include "run_config.h"
#include "run_tree.h"

typedef struct daemon {
    ibex_tree_t tree; /* first: the hooks' context is the tree */
    ibex_run_world_t world;
    char **names;
    int *node_of, *app_of, *local;
    ibex_run_job_app_t apps[IBEX_RUN_MAX_APPS];
    char **argvs[IBEX_RUN_MAX_APPS];
    int napps;
    char **env;
    char *cwd;
    bool tag;
    int bind, grace;
    char *agent;
} daemon_t;

static bool daemon_read_token(char *tok)
{
    size_t got = 0;
    while (got < IBEX_WIRE_TOKEN_LEN + 1) {
        ssize_t n = read(0, tok + got, IBEX_WIRE_TOKEN_LEN + 1 - got);
        if (n <= 0 && !(n < 0 && errno == EINTR))
            return false;
        got += n > 0 ? (size_t)n : 0;
    }
    tok[IBEX_WIRE_TOKEN_LEN] = '\0';
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0) { /* nothing more comes on stdin: the ranks must not wait for it */
        dup2(null, 0);
        close(null);
    }
    return true;
}

/* The connection leaves from this host's own address (its host name's first IPv4 address),
 * so that the head sees which host connects; simulated hosts each have a loopback address of
 * their own (127.0.0.2, ...). Where that address is not ours, the kernel's choice stays. */
static void daemon_bind_own(int fd)
{
    char me[256] = "";
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
    if (gethostname(me, sizeof(me) - 1) != 0 || getaddrinfo(me, NULL, &hints, &res) != 0)
        return;
    if (bind(fd, res->ai_addr, res->ai_addrlen) != 0)
        ibex_debug(LAUNCH, "not binding to %s's address: %m", me);
    freeaddrinfo(res);
}

static int daemon_connect(const char *addr)
{
    char host[128];
    const char *colon = strrchr(addr, ':');
    if (!colon || colon - addr >= (long)sizeof(host))
        return -1;
    snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0)
        return -1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0)
        daemon_bind_own(fd);
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
        ibex_run_say("cannot connect to the head at %s: %s", addr, strerror(errno));
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

/* Waits for one whole frame (blocking, at most timeout_ms). */
static int daemon_wait_frame(daemon_t *d, uint32_t *type, ibex_wire_buf_t *b, int timeout_ms)
{
    long long until = ibex_run_now_ms() + timeout_ms;
    for (;;) {
        int rc = ibex_wire_next(&d->tree.up, type, b);
        if (rc != 0)
            return rc;
        struct pollfd p = {.fd = d->tree.up.fd, .events = POLLIN};
        long long left = until - ibex_run_now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) <= 0 || !ibex_wire_read(&d->tree.up))
            return -1;
    }
}

/* ---- the job from the head ---- */

static bool daemon_get_world(daemon_t *d, ibex_wire_buf_t *b)
{
    ibex_run_world_t *w = &d->world;
    w->nspace = ibex_wire_get_str(b);
    w->size = (int)ibex_wire_get_u32(b);
    w->nnodes = (int)ibex_wire_get_u32(b);
    if (b->bad || w->size < 1 || w->size > IBEX_RUN_MAX_RANKS || w->nnodes < 1 ||
        w->nnodes > w->size + 1)
        return false;
    d->names = calloc((size_t)w->nnodes, sizeof(char *));
    d->node_of = calloc((size_t)w->size, sizeof(int));
    d->app_of = calloc((size_t)w->size, sizeof(int));
    d->local = calloc((size_t)w->size, sizeof(int));
    if (!d->names || !d->node_of || !d->app_of || !d->local)
        return false;
    for (int k = 0; k < w->nnodes; k++)
        d->names[k] = ibex_wire_get_str(b);
    for (int r = 0; r < w->size; r++) {
        d->node_of[r] = (int)ibex_wire_get_u32(b);
        d->app_of[r] = (int)ibex_wire_get_u32(b);
    }
    w->node_names = d->names;
    w->node_of = d->node_of;
    w->local = d->local;
    return !b->bad;
}

static bool daemon_get_apps(daemon_t *d, ibex_wire_buf_t *b)
{
    d->napps = (int)ibex_wire_get_u32(b);
    if (b->bad || d->napps < 1 || d->napps > IBEX_RUN_MAX_APPS)
        return false;
    for (int a = 0; a < d->napps; a++) {
        d->apps[a].path = ibex_wire_get_str(b);
        uint32_t argc = ibex_wire_get_u32(b);
        if (b->bad || argc < 1 || argc > 4096 || !(d->argvs[a] = calloc(argc + 1, sizeof(char *))))
            return false;
        for (uint32_t i = 0; i < argc; i++)
            d->argvs[a][i] = ibex_wire_get_str(b);
        d->apps[a].argv = d->argvs[a];
    }
    uint32_t nenv = ibex_wire_get_u32(b);
    if (b->bad || nenv > 65536 || !(d->env = calloc(nenv + 1, sizeof(char *))))
        return false;
    for (uint32_t i = 0; i < nenv; i++)
        d->env[i] = ibex_wire_get_str(b);
    d->cwd = ibex_wire_get_str(b);
    d->tag = ibex_wire_get_u32(b) != 0;
    d->bind = (int)ibex_wire_get_u32(b);
    d->grace = (int)ibex_wire_get_u32(b);
    return !b->bad;
}

/* The ranks of this host, and the count of each application here. */
static int daemon_local_ranks(daemon_t *d)
{
    int n = 0;
    for (int r = 0; r < d->world.size; r++) {
        if (d->node_of[r] != d->world.my_node)
            continue;
        d->local[n++] = r;
        if (d->app_of[r] >= 0 && d->app_of[r] < d->napps)
            d->apps[d->app_of[r]].nranks++;
    }
    return n;
}

/* ---- the job's hooks (the tree's, but for the failures of this host) ---- */

static void daemon_on_fail(void *ctx, int code, const char *msg)
{
    daemon_t *d = ctx;     /* the tree is its first member */
    if (d->tree.fail_sent) /* the subtree's first failure went up already */
        return;
    if (d->tree.up.fd < 0) { /* no parent: say it here */
        ibex_run_say("%s", msg);
        return;
    }
    char line[1024];
    snprintf(line, sizeof(line), "host %s: %s", d->names[d->world.my_node], msg);
    ibex_tree_fail(&d->tree, code, line);
}

/* The tree below this node: its shape from the job, the listening socket on the address this
 * host reached its parent from (an address the other hosts can reach too). */
static ibex_status_t daemon_tree(daemon_t *d, const char *token)
{
    ibex_tree_t *t = &d->tree;
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);
    char ip[64] = "127.0.0.1";
    if (getsockname(t->up.fd, (struct sockaddr *)&sa, &len) == 0)
        inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip));
    t->me = d->world.my_node;
    t->nnodes = d->world.nnodes;
    t->names = d->names;
    t->node_of = d->node_of;
    t->size = d->world.size;
    t->local_ranks = true;
    t->agent = d->agent && *d->agent ? d->agent : NULL;
    memcpy(t->token, token, IBEX_WIRE_TOKEN_LEN); /* daemon_read_token read exactly that */
    t->token[IBEX_WIRE_TOKEN_LEN] = '\0';
    return ibex_tree_init(t, ip);
}

/* ---- the whole ---- */

/* The head's TMPDIR may not exist here (another machine, or a simulated host's private /tmp):
 * then this host's default is used, by the daemon and its ranks. */
static void daemon_fix_tmpdir(daemon_t *d)
{
    struct stat st;
    const char *t = ibex_run_env_get(d->env, "TMPDIR");
    if (!t || (stat(t, &st) == 0 && S_ISDIR(st.st_mode)))
        return;
    unsetenv("TMPDIR");
    for (char **e = d->env; *e; e++) {
        if (strncmp(*e, "TMPDIR=", 7) != 0)
            continue;
        free(*e);
        for (char **m = e; *m; m++)
            m[0] = m[1];
        break;
    }
}

static int daemon_run(daemon_t *d, int nlocal)
{
    static ibex_run_hooks_t hooks;
    ibex_tree_hooks(&d->tree, &hooks);
    hooks.on_fail = daemon_on_fail;
    daemon_fix_tmpdir(d);
    ibex_run_job_params_t p = {.nranks = nlocal,
                               .path = d->apps[0].path,
                               .argv = d->apps[0].argv,
                               .env = ibex_run_env_dup(d->env),
                               .bind = (ibex_run_bind_t)d->bind,
                               .abort_grace_ms = d->grace,
                               .napps = d->napps,
                               .apps = d->apps,
                               .world = &d->world,
                               .world_app_of = d->app_of,
                               .hooks = &hooks};
    ibex_run_job_t *job = NULL;
    if (d->cwd && chdir(d->cwd) != 0)
        ibex_run_say("warning: cannot change to %s here: %s", d->cwd, strerror(errno));
    ibex_run_io_setup(d->tag);
    int code = IBEX_RUN_EXIT_INTERNAL;
    if (p.env && ibex_run_job_create(&p, &job) == IBEX_OK) {
        ibex_tree_start(&d->tree, job); /* the children's daemons, then our ranks */
        code = ibex_run_job_run(job);
    } else {
        d->tree.job = job;
        daemon_on_fail(d, code, "cannot start the job on this host");
    }
    if (code == 0 && job && !ibex_run_job_failed(job))
        code = d->tree.remote_code;
    ibex_wire_buf_t b = {0};
    ibex_wire_put_u32(&b, (uint32_t)code);
    if (d->tree.up.fd >= 0)
        ibex_wire_send(d->tree.up.fd, IBEX_WIRE_EXIT, &b);
    ibex_wire_buf_free(&b);
    ibex_tree_free(&d->tree);
    bool clean = code == 0 && job && !ibex_run_job_failed(job);
    ibex_run_job_destroy(job, clean);
    return code;
}

/* The JOB frame: this node's header (node, fanout, srun?, agent), then what every node gets,
 * kept as it came for our children. */
static bool daemon_get_job(daemon_t *d, ibex_wire_buf_t *b)
{
    d->world.my_node = (int)ibex_wire_get_u32(b);
    int fanout = (int)ibex_wire_get_u32(b);
    d->tree.slurm = ibex_wire_get_u32(b) != 0;
    d->agent = ibex_wire_get_str(b);
    if (b->bad || fanout < 1 || fanout > IBEX_TREE_MAX_FANOUT)
        return false;
    d->tree.fanout = fanout;
    ibex_wire_put_raw(&d->tree.common, b->data + b->off, b->len - b->off);
    if (!daemon_get_world(d, b) || !daemon_get_apps(d, b) || d->tree.common.bad)
        return false;
    return d->world.my_node >= 1 && d->world.my_node < d->world.nnodes;
}

/* Connects to the parent, authenticates and waits for the job. */
static bool daemon_join(daemon_t *d, const char *addr, const char *node, const char *tok)
{
    if ((d->tree.up.fd = daemon_connect(addr)) < 0)
        return false;
    ibex_wire_buf_t b = {0};
    ibex_wire_put_u32(&b, (uint32_t)atoi(node));
    ibex_wire_put_str(&b, tok);
    bool sent = ibex_wire_send(d->tree.up.fd, IBEX_WIRE_HELLO, &b);
    ibex_wire_buf_free(&b);
    uint32_t type = 0;
    if (!sent || daemon_wait_frame(d, &type, &b, 30000) != 1 || type != IBEX_WIRE_JOB) {
        ibex_run_say("the parent at %s did not send the job (refused, or authentication failed)",
                     addr);
        return false;
    }
    bool ok = daemon_get_job(d, &b);
    ibex_wire_buf_free(&b);
    if (!ok)
        ibex_run_say("the job from the parent does not parse");
    return ok;
}

int ibex_run_daemon_main(const char *addr, const char *node)
{
    daemon_t d = {.tree.up.fd = -1, .tree.listen_fd = -1};
    char tok[IBEX_WIRE_TOKEN_LEN + 2], me[256] = "?";
    gethostname(me, sizeof(me) - 1);
    char name[300];
    snprintf(name, sizeof(name), "ibexrun --daemon (%s)", me);
    ibex_run_say_set_name(name);
    /* A launch agent that execs the daemon (srun, a local one) may pass on its own
     * PR_SET_PDEATHSIG: the daemon watches its parent's connection instead, so that a lost
     * parent stops this host's ranks and cleans up rather than killing it mid-way. */
    prctl(PR_SET_PDEATHSIG, 0);
    if (!daemon_read_token(tok)) {
        ibex_run_say("no token on stdin");
        return IBEX_RUN_EXIT_USAGE;
    }
    if (!daemon_join(&d, addr, node, tok))
        return IBEX_RUN_EXIT_INTERNAL;
    int nlocal = daemon_local_ranks(&d);
    if (daemon_tree(&d, tok) != IBEX_OK) {
        daemon_on_fail(&d, IBEX_RUN_EXIT_INTERNAL, "cannot listen for its children's daemons");
        return IBEX_RUN_EXIT_INTERNAL;
    }
    return daemon_run(&d, nlocal);
}
