/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The head of a multi-host job: ibexrun when the plan puts ranks on other hosts. It runs the
 * ranks of its own host like a one-node job (libibexlaunch), and, through the job's hooks:
 *   - starts one daemon per remote host with the launch agent ("ssh -o BatchMode=yes" or
 *     --launch-agent CMD, called as CMD HOST COMMAND). COMMAND is fixed and quoted: ibexrun's
 *     path, --daemon, the head's address and the host's node index. The per-job token (32 random
 *     bytes, hex) goes to the agent's stdin, never on a command line; the program, arguments,
 *     environment and the job's maps go over the daemon's TCP connection once it authenticated;
 *   - forwards the agents' stdout / stderr line by line (the daemons write their ranks' lines
 *     there, tagged already);
 *   - gathers the PMIx fences: every host with ranks gives its contribution (its PMIx server's
 *     blob), the head sends back their concatenation (a star, not a tree: see README);
 *   - supervises the daemons: a daemon's first failure (FAIL) is the job's, naming the host; a
 *     connection or agent that ends before the daemon reported its exit, a wrong token, or no
 *     connection within IBEX_DAEMON_TIMEOUT_MS ends the job naming the host and what failed.
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

typedef enum { NODE_STARTING, NODE_RUNNING, NODE_DONE } node_state_t;

typedef struct head_node {
    const char *name;
    int node;
    pid_t agent;
    ibex_run_stream_t out, err; /* the agent's stdout / stderr */
    ibex_wire_conn_t conn;      /* fd -1 until authenticated */
    node_state_t state;
    int nranks;
    bool fenced; /* contributed to the current fence */
    char *fence;
    size_t fence_len;
} head_node_t;

typedef struct head {
    const ibex_run_opts_t *opts;
    char (*paths)[4096];
    char **env;
    ibex_run_world_t world;
    int *node_of, *app_of, *local;
    char **names;
    head_node_t *nodes; /* nnodes, node 0 is this host (no daemon) */
    int listen_fd;
    char addr[128];
    char token[IBEX_WIRE_TOKEN_LEN + 1];
    ibex_wire_conn_t pend[16]; /* accepted, not yet authenticated */
    long long connect_by_ms, give_up_ms;
    bool local_fenced;
    char *local_fence;
    size_t local_fence_len;
    int remote_code; /* a daemon's non-zero exit without a FAIL before */
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
    h->nodes = calloc((size_t)nnodes, sizeof(*h->nodes));
    if (!h->nodes)
        return IBEX_ERR_NO_MEMORY;
    for (int k = 0; k < nnodes; k++)
        h->nodes[k] = (head_node_t){.name = h->names[k], .node = k, .conn.fd = -1};
    for (int r = 0; r < n; r++)
        h->nodes[h->node_of[r]].nranks++;
    return IBEX_OK;
}

/* ---- listening socket, token ---- */

/* The address daemons connect to: this host's first address that is not loopback, else
 * 127.0.0.1 (simulated hosts on one machine). */
static void head_pick_addr(head_t *h, int port)
{
    char me[256] = "localhost", ip[64] = "127.0.0.1";
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
    gethostname(me, sizeof(me) - 1);
    if (getaddrinfo(me, NULL, &hints, &res) == 0) {
        for (struct addrinfo *a = res; a; a = a->ai_next) {
            struct sockaddr_in *in = (struct sockaddr_in *)a->ai_addr;
            if ((ntohl(in->sin_addr.s_addr) >> 24) == 127)
                continue;
            inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
            break;
        }
        freeaddrinfo(res);
    }
    snprintf(h->addr, sizeof(h->addr), "%s:%d", ip, port);
}

static ibex_status_t head_listen(head_t *h)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    socklen_t len = sizeof(sa);
    h->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (h->listen_fd < 0 || bind(h->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        listen(h->listen_fd, 64) != 0 ||
        getsockname(h->listen_fd, (struct sockaddr *)&sa, &len) != 0) {
        ibex_run_say("cannot listen for the daemons: %s", strerror(errno));
        return IBEX_ERR_IO;
    }
    head_pick_addr(h, ntohs(sa.sin_port));
    unsigned char rnd[IBEX_WIRE_TOKEN_LEN / 2];
    if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
        ibex_run_say("cannot make the job's token: %s", strerror(errno));
        return IBEX_ERR_IO;
    }
    for (size_t i = 0; i < sizeof(rnd); i++)
        snprintf(h->token + 2 * i, 3, "%02x", rnd[i]);
    return IBEX_OK;
}

/* ---- launch agents ---- */

/* 'text' for a POSIX shell: the agent hands COMMAND to the remote shell, as ssh does. */
static void head_quote(char *dst, size_t len, const char *src)
{
    size_t o = 0;
    dst[o++] = '\'';
    for (; *src && o + 5 < len; src++) {
        if (*src == '\'') {
            memcpy(dst + o, "'\\''", 4);
            o += 4;
        } else {
            dst[o++] = *src;
        }
    }
    dst[o++] = '\'';
    dst[o] = '\0';
}

/* Inside a Slurm allocation (and no --launch-agent) the daemons start with srun, one task on
 * the host; srun hands our stdin (the token) to that task. */
static char **head_srun_argv(const head_node_t *nd, char *cmd)
{
    static char nodelist[300];
    char **argv = calloc(16, sizeof(*argv));
    if (!argv)
        return NULL;
    snprintf(nodelist, sizeof(nodelist), "--nodelist=%s", nd->name);
    const char *words[] = {
        "srun",   "--nodes=1", "--ntasks=1", "--overlap", "--mpi=none", "--kill-on-bad-exit=1",
        nodelist, "sh",        "-c",         cmd};
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        argv[i] = (char *)words[i];
    return argv;
}

/* argv of the agent: the words of CMD, then HOST and COMMAND. */
static char **head_agent_argv(const head_t *h, const head_node_t *nd, char *cmd, size_t cmdlen)
{
    static char words[1024];
    const char *agent = h->opts->launch_agent ? h->opts->launch_agent : "ssh -o BatchMode=yes";
    bool slurm = !h->opts->launch_agent && getenv("SLURM_JOB_ID"); /* the allocation's fact */
    char self[4096] = "", qself[8200], qaddr[300];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = '\0';
    head_quote(qself, sizeof(qself), self);
    head_quote(qaddr, sizeof(qaddr), h->addr);
    snprintf(cmd, cmdlen, "%s%s --daemon %s %d", slurm ? "exec " : "", qself, qaddr, nd->node);
    if (slurm)
        return head_srun_argv(nd, cmd);
    snprintf(words, sizeof(words), "%s", agent);
    char **argv = calloc(64, sizeof(*argv));
    int k = 0;
    for (char *save = NULL, *w = strtok_r(words, " \t", &save); w && k < 60;
         w = strtok_r(NULL, " \t", &save))
        argv[k++] = w;
    if (argv) {
        argv[k++] = (char *)nd->name;
        argv[k++] = cmd;
    }
    return argv;
}

/* The child: pipes on 0 / 1 / 2, signals as they were before the job blocked them. */
static void head_agent_child(char **argv, const int in[2], const int out[2], const int err[2])
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    execvp(argv[0], argv);
    static const char msg[] = "ibexrun: cannot run the launch agent\n";
    (void)!write(2, msg, sizeof(msg) - 1);
    _exit(127);
}

static ibex_status_t head_agent_start(head_t *h, head_node_t *nd)
{
    char cmd[8700];
    char **argv = head_agent_argv(h, nd, cmd, sizeof(cmd));
    int in[2], out[2], err[2];
    if (!argv || pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
        free(argv);
        return IBEX_ERR_IO;
    }
    ibex_debug(LAUNCH, "host %s: %s %s %s", nd->name, argv[0], nd->name, cmd);
    nd->agent = fork();
    if (nd->agent == 0)
        head_agent_child(argv, in, out, err);
    free(argv);
    close(in[0]);
    close(out[1]);
    close(err[1]);
    char line[IBEX_WIRE_TOKEN_LEN + 2];
    snprintf(line, sizeof(line), "%s\n", h->token);
    signal(SIGPIPE, SIG_IGN);
    /* An agent that exits at once (unreachable host) closes the pipe: its end is noticed below. */
    if (nd->agent > 0 && !ibex_run_io_write_all(in[1], line, strlen(line)))
        ibex_debug(LAUNCH, "host %s: the launch agent did not take the token", nd->name);
    close(in[1]);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    ibex_run_io_stream_init(&nd->out, out[0], -1, 1);
    ibex_run_io_stream_init(&nd->err, err[0], -1, 2);
    return nd->agent > 0 ? IBEX_OK : IBEX_ERR_IO;
}

/* ---- the job sent to a daemon ---- */

static void head_put_job(const head_t *h, int node, ibex_wire_buf_t *b)
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
    ibex_wire_put_u32(b, (uint32_t)node);
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

/* ---- failures ---- */

static void head_stop_all(head_t *h, int code)
{
    ibex_wire_buf_t b = {0};
    ibex_wire_put_u32(&b, (uint32_t)code);
    for (int k = 1; k < h->world.nnodes; k++) {
        head_node_t *nd = &h->nodes[k];
        if (nd->conn.fd >= 0)
            ibex_wire_send(nd->conn.fd, IBEX_WIRE_STOP, &b);
        else if (nd->agent > 0 && nd->state == NODE_STARTING)
            kill(nd->agent, SIGTERM); /* not connected yet: nothing runs there */
    }
    ibex_wire_buf_free(&b);
    h->give_up_ms = ibex_run_now_ms() + ibex_run_abort_grace_ms + 3000;
}

/* The job's first failure (here, or a host's): one line, then every daemon stops its ranks. */
static void head_on_fail(void *ctx, int code, const char *msg)
{
    head_t *h = ctx;
    ibex_run_say("%s; stopping the job", msg);
    head_stop_all(h, code);
}

static void head_node_lost(head_t *h, head_node_t *nd, const char *what)
{
    if (nd->state == NODE_DONE)
        return;
    nd->state = NODE_DONE;
    ibex_wire_conn_close(&nd->conn);
    if (!ibex_run_job_failed(h->job)) {
        char msg[512];
        snprintf(msg, sizeof(msg), "host %s: %s", nd->name, what);
        ibex_run_job_stop(h->job, IBEX_RUN_EXIT_INTERNAL, msg);
    }
}

/* ---- fences: every host with ranks contributes; then all get the concatenation ---- */

static void head_fence_try(head_t *h)
{
    if (h->nodes[0].nranks && !h->local_fenced)
        return;
    size_t total = h->local_fence_len;
    for (int k = 1; k < h->world.nnodes; k++) {
        if (h->nodes[k].nranks && !h->nodes[k].fenced)
            return;
        total += h->nodes[k].fence_len;
    }
    ibex_debug(LAUNCH, "fence across %d hosts: %zu bytes of data for %d ranks", h->world.nnodes,
               total, h->world.size);
    ibex_wire_buf_t all = {0};
    ibex_wire_put_u32(&all, 0); /* status */
    ibex_wire_put_u32(&all, (uint32_t)total);
    for (int k = 0; k < h->world.nnodes; k++) /* in node order, as one byte string */
        ibex_wire_put_raw(&all, k ? h->nodes[k].fence : h->local_fence,
                          k ? h->nodes[k].fence_len : h->local_fence_len);
    for (int k = 1; k < h->world.nnodes; k++) {
        if (h->nodes[k].conn.fd >= 0 && h->nodes[k].nranks)
            ibex_wire_send(h->nodes[k].conn.fd, IBEX_WIRE_FENCE_DOWN, &all);
        free(h->nodes[k].fence);
        h->nodes[k].fence = NULL;
        h->nodes[k].fence_len = 0;
        h->nodes[k].fenced = false;
    }
    if (h->nodes[0].nranks && !all.bad)
        ibex_run_pmix_fence_release(ibex_run_job_pmix(h->job), 0, all.data + 8, total);
    free(h->local_fence);
    h->local_fence = NULL;
    h->local_fence_len = 0;
    h->local_fenced = false;
    ibex_wire_buf_free(&all);
}

/* ---- frames from a daemon ---- */

static void head_on_frame(head_t *h, head_node_t *nd, uint32_t type, ibex_wire_buf_t *b)
{
    if (type == IBEX_WIRE_FENCE_UP && !nd->fenced) {
        size_t len;
        const char *d = ibex_wire_get_bytes(b, &len);
        nd->fence = malloc(len ? len : 1);
        if (nd->fence && len)
            memcpy(nd->fence, d, len);
        nd->fence_len = len;
        nd->fenced = !b->bad && nd->fence;
        head_fence_try(h);
    } else if (type == IBEX_WIRE_FAIL) {
        int code = (int)ibex_wire_get_u32(b);
        char *msg = ibex_wire_get_str(b), line[1024];
        snprintf(line, sizeof(line), "host %s: %s", nd->name, msg ? msg : "failed");
        if (!ibex_run_job_failed(h->job))
            ibex_run_job_stop(h->job, code, line);
        free(msg);
    } else if (type == IBEX_WIRE_EXIT) {
        int code = (int)ibex_wire_get_u32(b);
        if (code && !h->remote_code)
            h->remote_code = code;
        nd->state = NODE_DONE;
        ibex_wire_conn_close(&nd->conn);
    } else {
        head_node_lost(h, nd, "the daemon sent an unexpected message");
    }
}

static void head_read_node(head_t *h, head_node_t *nd)
{
    bool alive = ibex_wire_read(&nd->conn);
    uint32_t type;
    ibex_wire_buf_t b;
    int rc;
    while (nd->conn.fd >= 0 && (rc = ibex_wire_next(&nd->conn, &type, &b)) == 1) {
        head_on_frame(h, nd, type, &b);
        ibex_wire_buf_free(&b);
    }
    if (nd->state != NODE_DONE && (!alive || rc < 0))
        head_node_lost(h, nd,
                       rc < 0 ? "the daemon sent a malformed message"
                              : "lost the daemon (its connection closed before it reported the "
                                "end of its ranks)");
}

/* ---- authentication of a new connection ---- */

static bool head_token_ok(const head_t *h, const char *tok, size_t len)
{
    unsigned char diff = len != IBEX_WIRE_TOKEN_LEN;
    for (size_t i = 0; i < IBEX_WIRE_TOKEN_LEN; i++) /* constant time */
        diff |= (unsigned char)(h->token[i] ^ (i < len ? tok[i] : 0));
    return diff == 0;
}

static void head_hello(head_t *h, ibex_wire_conn_t *c, ibex_wire_buf_t *b)
{
    uint32_t node = ibex_wire_get_u32(b);
    size_t len;
    const char *tok = ibex_wire_get_bytes(b, &len);
    bool known = !b->bad && node >= 1 && node < (uint32_t)h->world.nnodes &&
                 h->nodes[node].state == NODE_STARTING;
    if (!known || !head_token_ok(h, tok, len)) {
        ibex_wire_conn_close(c);
        if (known)
            head_node_lost(h, &h->nodes[node], "authentication failed (wrong token)");
        else
            ibex_run_say("warning: refused a connection that does not belong to this job");
        return;
    }
    head_node_t *nd = &h->nodes[node];
    struct sockaddr_in from;
    socklen_t flen = sizeof(from);
    char ip[64] = "?";
    if (getpeername(c->fd, (struct sockaddr *)&from, &flen) == 0)
        inet_ntop(AF_INET, &from.sin_addr, ip, sizeof(ip));
    ibex_debug(LAUNCH, "host %s: daemon connected from %s", nd->name, ip);
    ibex_wire_buf_t job = {0};
    head_put_job(h, (int)node, &job);
    nd->conn = *c;
    memset(c, 0, sizeof(*c));
    c->fd = -1;
    nd->state = NODE_RUNNING;
    if (!ibex_wire_send(nd->conn.fd, IBEX_WIRE_JOB, &job))
        head_node_lost(h, nd, "cannot send the job to the daemon");
    ibex_wire_buf_free(&job);
}

static void head_read_pending(head_t *h, ibex_wire_conn_t *c)
{
    bool alive = ibex_wire_read(c);
    uint32_t type;
    ibex_wire_buf_t b;
    int rc = ibex_wire_next(c, &type, &b);
    if (rc == 1) {
        if (type == IBEX_WIRE_HELLO)
            head_hello(h, c, &b);
        else
            ibex_wire_conn_close(c);
        ibex_wire_buf_free(&b);
    } else if (rc < 0 || !alive) {
        ibex_wire_conn_close(c);
    }
}

static void head_accept(head_t *h)
{
    int fd;
    while ((fd = accept4(h->listen_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
        int slot = -1;
        for (int i = 0; i < 16 && slot < 0; i++)
            slot = h->pend[i].fd < 0 ? i : -1;
        if (slot < 0) {
            close(fd);
            continue;
        }
        h->pend[slot] = (ibex_wire_conn_t){.fd = fd};
    }
}

/* ---- the job's hooks ---- */

enum { SLOT_LISTEN, SLOT_PEND, SLOT_CONN, SLOT_OUT, SLOT_ERR };

static int head_poll_add(void *ctx, struct pollfd *pfd, int max)
{
    head_t *h = ctx;
    int k = 0;
    if (h->listen_fd >= 0)
        pfd[k++] = (struct pollfd){.fd = h->listen_fd, .events = POLLIN};
    for (int i = 0; i < 16 && k < max; i++)
        if (h->pend[i].fd >= 0)
            pfd[k++] = (struct pollfd){.fd = h->pend[i].fd, .events = POLLIN};
    for (int n = 1; n < h->world.nnodes && k + 3 <= max; n++) {
        head_node_t *nd = &h->nodes[n];
        if (nd->conn.fd >= 0)
            pfd[k++] = (struct pollfd){.fd = nd->conn.fd, .events = POLLIN};
        if (nd->out.fd >= 0)
            pfd[k++] = (struct pollfd){.fd = nd->out.fd, .events = POLLIN};
        if (nd->err.fd >= 0)
            pfd[k++] = (struct pollfd){.fd = nd->err.fd, .events = POLLIN};
    }
    return k;
}

/* Which of ours a ready descriptor is (the set may change while we handle them). */
static void head_dispatch_fd(head_t *h, int fd)
{
    if (fd == h->listen_fd) {
        head_accept(h);
        return;
    }
    for (int i = 0; i < 16; i++)
        if (h->pend[i].fd == fd)
            head_read_pending(h, &h->pend[i]);
    for (int n = 1; n < h->world.nnodes; n++) {
        head_node_t *nd = &h->nodes[n];
        if (nd->conn.fd == fd)
            head_read_node(h, nd);
        else if (nd->out.fd == fd)
            ibex_run_io_stream_read(&nd->out);
        else if (nd->err.fd == fd)
            ibex_run_io_stream_read(&nd->err);
    }
}

static void head_poll_ready(void *ctx, ibex_run_job_t *job, const struct pollfd *pfd, int n)
{
    for (int i = 0; i < n; i++)
        if (pfd[i].revents)
            head_dispatch_fd(ctx, pfd[i].fd);
}

/* Agents that ended before their daemon connected; daemons that never came; the give-up
 * deadline after a failure. */
static void head_tick(void *ctx, ibex_run_job_t *job)
{
    head_t *h = ctx;
    long long now = ibex_run_now_ms();
    char *data;
    size_t len;
    if (ibex_run_pmix_fence_take(ibex_run_job_pmix(job), &data, &len)) {
        h->local_fence = data;
        h->local_fence_len = len;
        h->local_fenced = true;
        head_fence_try(h);
    }
    for (int k = 1; k < h->world.nnodes; k++) {
        head_node_t *nd = &h->nodes[k];
        if (nd->state == NODE_STARTING && nd->out.fd < 0 && nd->err.fd < 0)
            head_node_lost(h, nd,
                           "the launch agent ended before the daemon connected "
                           "(unreachable host? see the agent's messages above)");
        else if (nd->state == NODE_STARTING && now >= h->connect_by_ms)
            head_node_lost(h, nd,
                           "timeout: the daemon did not connect back in time "
                           "(IBEX_DAEMON_TIMEOUT_MS)");
        else if (nd->state != NODE_DONE && h->give_up_ms && now >= h->give_up_ms)
            head_node_lost(h, nd, "the daemon did not stop in time");
    }
}

static bool head_busy(void *ctx)
{
    head_t *h = ctx;
    for (int k = 1; k < h->world.nnodes; k++)
        if (h->nodes[k].state != NODE_DONE || h->nodes[k].out.fd >= 0 || h->nodes[k].err.fd >= 0)
            return !(h->give_up_ms && ibex_run_now_ms() >= h->give_up_ms + 2000);
    return false;
}

static int head_timeout(void *ctx)
{
    head_t *h = ctx;
    return h->give_up_ms ? 200 : 500; /* the deadlines above are checked at this pace */
}

/* ---- the whole ---- */

static void head_free(head_t *h)
{
    for (int k = 1; h->nodes && k < h->world.nnodes; k++) {
        head_node_t *nd = &h->nodes[k];
        ibex_wire_conn_close(&nd->conn);
        ibex_run_io_stream_drain(&nd->out);
        ibex_run_io_stream_drain(&nd->err);
        if (nd->agent > 0)
            kill(nd->agent, SIGKILL);
        free(nd->fence);
    }
    for (int i = 0; i < 16; i++)
        ibex_wire_conn_close(&h->pend[i]);
    if (h->listen_fd >= 0)
        close(h->listen_fd);
    free(h->local_fence);
    free(h->nodes);
    free(h->names);
    free(h->node_of);
    free(h->local);
}

static ibex_status_t head_setup(head_t *h, const ibex_run_plan_t *plan, ibex_run_job_t **job_p)
{
    static char nspace[64];
    static ibex_run_hooks_t hooks;
    hooks = (ibex_run_hooks_t){.ctx = h,
                               .poll_add = head_poll_add,
                               .poll_ready = head_poll_ready,
                               .tick = head_tick,
                               .busy = head_busy,
                               .on_fail = head_on_fail,
                               .timeout_ms = head_timeout};
    snprintf(nspace, sizeof(nspace), "ibexrun-%d", (int)getpid());
    h->world.nspace = nspace;
    ibex_run_job_app_t apps[IBEX_RUN_MAX_APPS];
    for (int a = 0; a < h->opts->napps; a++)
        apps[a] = (ibex_run_job_app_t){
            .path = h->paths[a], .argv = h->opts->apps[a].argv, .nranks = h->opts->apps[a].nranks};
    ibex_run_job_params_t p = {.nranks = h->nodes[0].nranks,
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
    head_t h = {.opts = opts, .paths = paths, .env = env, .listen_fd = -1};
    for (int i = 0; i < 16; i++)
        h.pend[i].fd = -1;
    ibex_status_t st = head_world(&h, plan);
    if (st == IBEX_OK)
        st = head_listen(&h);
    if (st == IBEX_OK)
        st = head_setup(&h, plan, &h.job);
    h.connect_by_ms = ibex_run_now_ms() + ibex_run_daemon_timeout_ms;
    for (int k = 1; st == IBEX_OK && k < h.world.nnodes; k++)
        if (head_agent_start(&h, &h.nodes[k]) != IBEX_OK)
            head_node_lost(&h, &h.nodes[k], "cannot start the launch agent");
    int code = st == IBEX_OK ? ibex_run_job_run(h.job) : IBEX_RUN_EXIT_INTERNAL;
    if (code == 0 && !ibex_run_job_failed(h.job))
        code = h.remote_code;
    bool clean = code == 0 && h.job && !ibex_run_job_failed(h.job);
    head_free(&h);
    ibex_run_job_destroy(h.job, clean);
    return code;
}
