/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tree of daemons: what every node of a multi-host job does for its children and between
 * its parent and them (see run_tree.h for the contract). The root is the head (ibexrun), the
 * other nodes its daemons (ibexrun --daemon). The parent side started as run_head.c's star:
 * the launch agents, the token, authentication and the failures of a host are the same, done
 * now by whichever node is the host's parent.
 */
#include "run_tree.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ibex_log.h"
#include "run_config.h"

/* ---- set-up ---- */

static ibex_status_t tree_listen(ibex_tree_t *t, const char *ip)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    socklen_t len = sizeof(sa);
    t->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (t->listen_fd < 0 || bind(t->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        listen(t->listen_fd, 64) != 0 ||
        getsockname(t->listen_fd, (struct sockaddr *)&sa, &len) != 0) {
        ibex_run_say("cannot listen for the daemons: %s", strerror(errno));
        return IBEX_ERR_IO;
    }
    snprintf(t->addr, sizeof(t->addr), "%s:%d", ip, ntohs(sa.sin_port));
    return IBEX_OK;
}

ibex_status_t ibex_tree_init(ibex_tree_t *t, const char *ip)
{
    t->listen_fd = -1;
    for (int i = 0; i < 16; i++)
        t->pend[i].fd = -1;
    t->nkids = 0;
    for (int c = t->me * t->fanout + 1; c < t->nnodes && t->nkids < t->fanout; c++)
        t->kids[t->nkids++] = (ibex_tree_kid_t){
            .node = c, .name = t->names[c], .conn.fd = -1, .out.fd = -1, .err.fd = -1};
    ibex_debug(LAUNCH, "node %d of %d: %d children, fanout %d, depth %d", t->me, t->nnodes,
               t->nkids, t->fanout, ibex_tree_depth(t->nnodes, t->fanout));
    return t->nkids ? tree_listen(t, ip) : IBEX_OK;
}

/* ---- launch agents ---- */

/* 'text' for a POSIX shell: the agent hands COMMAND to the remote shell, as ssh does. */
static void tree_quote(char *dst, size_t len, const char *src)
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
static char **tree_srun_argv(const ibex_tree_kid_t *kid, char *cmd)
{
    static char nodelist[300];
    char **argv = calloc(16, sizeof(*argv));
    if (!argv)
        return NULL;
    snprintf(nodelist, sizeof(nodelist), "--nodelist=%s", kid->name);
    const char *words[] = {
        "srun",   "--nodes=1", "--ntasks=1", "--overlap", "--mpi=none", "--kill-on-bad-exit=1",
        nodelist, "sh",        "-c",         cmd};
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        argv[i] = (char *)words[i];
    return argv;
}

/* argv of the agent: the words of CMD, then HOST and COMMAND. */
static char **tree_agent_argv(const ibex_tree_t *t, const ibex_tree_kid_t *kid, char *cmd,
                              size_t cmdlen)
{
    static char words[1024];
    char self[4096] = "", qself[8200], qaddr[300];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = '\0';
    tree_quote(qself, sizeof(qself), self);
    tree_quote(qaddr, sizeof(qaddr), t->addr);
    snprintf(cmd, cmdlen, "%s%s --daemon %s %d", t->slurm ? "exec " : "", qself, qaddr, kid->node);
    if (t->slurm)
        return tree_srun_argv(kid, cmd);
    snprintf(words, sizeof(words), "%s", t->agent ? t->agent : "ssh -o BatchMode=yes");
    char **argv = calloc(64, sizeof(*argv));
    int k = 0;
    for (char *save = NULL, *w = strtok_r(words, " \t", &save); argv && w && k < 60;
         w = strtok_r(NULL, " \t", &save))
        argv[k++] = w;
    if (argv) {
        argv[k++] = (char *)kid->name;
        argv[k++] = cmd;
    }
    return argv;
}

/* The child: pipes on 0 / 1 / 2, signals as they were before the job blocked them. */
static void tree_agent_child(char **argv, const int in[2], const int out[2], const int err[2])
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    execvp(argv[0], argv);
    static const char msg[] = "ibexrun: cannot run the launch agent\n";
    (void)!write(2, msg, sizeof(msg) - 1);
    _exit(127);
}

static ibex_status_t tree_agent_start(ibex_tree_t *t, ibex_tree_kid_t *kid)
{
    char cmd[8700];
    char **argv = tree_agent_argv(t, kid, cmd, sizeof(cmd));
    int in[2], out[2], err[2];
    if (!argv || pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
        free(argv);
        return IBEX_ERR_IO;
    }
    ibex_debug(LAUNCH, "host %s: %s %s %s", kid->name, argv[0], kid->name, cmd);
    kid->agent = fork();
    if (kid->agent == 0)
        tree_agent_child(argv, in, out, err);
    free(argv);
    close(in[0]);
    close(out[1]);
    close(err[1]);
    char line[IBEX_WIRE_TOKEN_LEN + 2];
    snprintf(line, sizeof(line), "%s\n", t->token);
    /* An agent that exits at once (unreachable host) closes the pipe: its end is noticed later. */
    if (kid->agent > 0 && !ibex_run_io_write_all(in[1], line, strlen(line)))
        ibex_debug(LAUNCH, "host %s: the launch agent did not take the token", kid->name);
    close(in[1]);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    ibex_run_io_stream_init(&kid->out, out[0], -1, 1);
    ibex_run_io_stream_init(&kid->err, err[0], -1, 2);
    return kid->agent > 0 ? IBEX_OK : IBEX_ERR_IO;
}

static void tree_kid_lost(ibex_tree_t *t, ibex_tree_kid_t *kid, const char *what);

void ibex_tree_start(ibex_tree_t *t, ibex_run_job_t *job)
{
    t->job = job;
    signal(SIGPIPE, SIG_IGN);
    t->connect_by_ms = ibex_run_now_ms() + ibex_run_daemon_timeout_ms;
    for (int i = 0; i < t->nkids; i++)
        if (tree_agent_start(t, &t->kids[i]) != IBEX_OK)
            tree_kid_lost(t, &t->kids[i], "cannot start the launch agent");
}

/* ---- failures ---- */

void ibex_tree_fail(ibex_tree_t *t, int code, const char *msg)
{
    if (t->me == 0) { /* the root */
        if (!ibex_run_job_failed(t->job))
            ibex_run_job_stop(t->job, code, msg);
        return;
    }
    if (t->fail_sent || t->up.fd < 0)
        return;
    t->fail_sent = true;
    ibex_wire_buf_t b = {0};
    ibex_wire_put_u32(&b, (uint32_t)code);
    ibex_wire_put_str(&b, msg);
    ibex_wire_send(t->up.fd, IBEX_WIRE_FAIL, &b);
    ibex_wire_buf_free(&b);
}

void ibex_tree_stop_kids(ibex_tree_t *t, int code)
{
    ibex_wire_buf_t b = {0};
    ibex_wire_put_u32(&b, (uint32_t)code);
    for (int i = 0; i < t->nkids; i++) {
        ibex_tree_kid_t *kid = &t->kids[i];
        if (kid->conn.fd >= 0)
            ibex_wire_send(kid->conn.fd, IBEX_WIRE_STOP, &b);
        else if (kid->agent > 0 && kid->state == TREE_KID_STARTING)
            kill(kid->agent, SIGTERM); /* not connected yet: nothing runs there */
    }
    ibex_wire_buf_free(&b);
    if (!t->give_up_ms) /* the deepest subtree stops one grace after another at most */
        t->give_up_ms = ibex_run_now_ms() + ibex_run_abort_grace_ms + 3000 +
                        1000LL * ibex_tree_depth(t->nnodes, t->fanout);
}

static void tree_kid_lost(ibex_tree_t *t, ibex_tree_kid_t *kid, const char *what)
{
    if (kid->state == TREE_KID_DONE)
        return;
    kid->state = TREE_KID_DONE;
    ibex_wire_conn_close(&kid->conn);
    char msg[512];
    snprintf(msg, sizeof(msg), "host %s: %s", kid->name, what);
    ibex_tree_fail(t, IBEX_RUN_EXIT_INTERNAL, msg);
}

/* ---- fences: the subtree's contributions go up; the root's concatenation comes down ---- */

static void tree_fence_reset(ibex_tree_t *t)
{
    for (int i = 0; i < t->nkids; i++) {
        free(t->kids[i].fence);
        t->kids[i].fence = NULL;
        t->kids[i].fence_len = 0;
        t->kids[i].fenced = false;
    }
    free(t->local_fence);
    t->local_fence = NULL;
    t->local_fence_len = 0;
    t->local_fenced = false;
}

/* Sends a FENCE_DOWN payload (status, data) to every child and releases our own ranks. */
static void tree_fence_down(ibex_tree_t *t, ibex_wire_buf_t *b)
{
    for (int i = 0; i < t->nkids; i++)
        if (t->kids[i].conn.fd >= 0)
            ibex_wire_send(t->kids[i].conn.fd, IBEX_WIRE_FENCE_DOWN, b);
    int status = (int)ibex_wire_get_u32(b);
    size_t len;
    const char *data = ibex_wire_get_bytes(b, &len);
    if (t->local_ranks)
        ibex_run_pmix_fence_release(ibex_run_job_pmix(t->job), b->bad ? -1 : status, data, len);
}

static void tree_fence_try(ibex_tree_t *t)
{
    if (t->local_ranks && !t->local_fenced)
        return;
    size_t total = t->local_fence_len;
    for (int i = 0; i < t->nkids; i++) {
        if (!t->kids[i].fenced)
            return;
        total += t->kids[i].fence_len;
    }
    ibex_wire_buf_t all = {0};
    if (t->up.fd < 0) {
        ibex_debug(LAUNCH, "fence across %d hosts: %zu bytes of data for %d ranks", t->nnodes,
                   total, t->size);
        ibex_wire_put_u32(&all, 0); /* status */
    }
    ibex_wire_put_u32(&all, (uint32_t)total); /* one byte string: ours, then each subtree's */
    ibex_wire_put_raw(&all, t->local_fence, t->local_fence_len);
    for (int i = 0; i < t->nkids; i++)
        ibex_wire_put_raw(&all, t->kids[i].fence, t->kids[i].fence_len);
    tree_fence_reset(t);
    if (t->up.fd >= 0)
        ibex_wire_send(t->up.fd, IBEX_WIRE_FENCE_UP, &all);
    else
        tree_fence_down(t, &all);
    ibex_wire_buf_free(&all);
}

static void tree_on_fence_up(ibex_tree_t *t, ibex_tree_kid_t *kid, ibex_wire_buf_t *b)
{
    size_t len;
    const char *d = ibex_wire_get_bytes(b, &len);
    if (kid->fenced || b->bad || !(kid->fence = malloc(len ? len : 1))) {
        tree_kid_lost(t, kid, "the daemon sent a fence out of turn");
        return;
    }
    memcpy(kid->fence, d, len);
    kid->fence_len = len;
    kid->fenced = true;
    tree_fence_try(t);
}

/* ---- direct modex: requests and answers routed along the tree ---- */

/* A frame for a child that has not connected yet (a local rank asked for a rank of its
 * subtree first): kept whole, sent after the job. */
static void tree_hold(ibex_tree_kid_t *kid, uint32_t type, const ibex_wire_buf_t *b)
{
    ibex_wire_put_u32(&kid->held, type);
    ibex_wire_put_u32(&kid->held, (uint32_t)b->len);
    ibex_wire_put_raw(&kid->held, b->data, b->len);
}

/* Sends a frame toward node dest: to the child whose subtree holds it, else to the parent. */
static void tree_route(ibex_tree_t *t, int dest, uint32_t type, const ibex_wire_buf_t *b)
{
    int c = ibex_tree_child_toward(t->me, dest, t->fanout, t->nnodes);
    int fd = c < 0 && t->me > 0 ? t->up.fd : -1; /* not below the root: no such node */
    for (int i = 0; c >= 0 && i < t->nkids; i++) {
        ibex_tree_kid_t *kid = &t->kids[i];
        if (kid->node != c)
            continue;
        if (kid->state == TREE_KID_STARTING) {
            tree_hold(kid, type, b);
            return;
        }
        fd = kid->conn.fd;
    }
    if (fd >= 0)
        ibex_wire_send(fd, type, b);
    else
        ibex_debug(LAUNCH, "dmodex frame for node %d dropped: no way there", dest);
}

static void tree_dmodex_answer_up(ibex_tree_t *t, uint32_t origin, uint32_t id, int status,
                                  const char *data, size_t len)
{
    ibex_wire_buf_t r = {0};
    ibex_wire_put_u32(&r, origin);
    ibex_wire_put_u32(&r, id);
    ibex_wire_put_u32(&r, (uint32_t)status);
    ibex_wire_put_bytes(&r, data, len);
    tree_route(t, (int)origin, IBEX_WIRE_DMODEX_RESP, &r);
    ibex_wire_buf_free(&r);
}

/* DMODEX_REQ: origin node, request id, rank. DMODEX_RESP: origin, id, status, data. */
static void tree_on_dmodex(ibex_tree_t *t, uint32_t type, ibex_wire_buf_t *b)
{
    uint32_t origin = ibex_wire_get_u32(b), id = ibex_wire_get_u32(b);
    uint32_t third = ibex_wire_get_u32(b);
    bool req = type == IBEX_WIRE_DMODEX_REQ;
    if (b->bad || origin >= (uint32_t)t->nnodes || (req && third >= (uint32_t)t->size))
        return; /* malformed: dropped (the asking rank's PMIx_Get then waits for its timeout) */
    int dest = req ? t->node_of[third] : (int)origin;
    ibex_run_pmix_t *pmix = ibex_run_job_pmix(t->job);
    if (dest != t->me) {
        tree_route(t, dest, type, b);
    } else if (req && pmix) {
        ibex_run_pmix_dmodex_serve(pmix, (int)third, origin, id);
    } else if (pmix) {
        size_t len;
        const char *data = ibex_wire_get_bytes(b, &len);
        ibex_run_pmix_dmodex_answer(pmix, id, b->bad ? -1 : (int)third, data, len);
    }
}

/* Local clients' requests for other hosts' ranks go out; answers we served go back. */
static void tree_dmodex_tick(ibex_tree_t *t, ibex_run_pmix_t *pmix)
{
    uint32_t id, origin;
    int rank, status;
    char *data;
    size_t len;
    while (ibex_run_pmix_dmodex_take(pmix, &id, &rank)) {
        ibex_wire_buf_t r = {0};
        ibex_wire_put_u32(&r, (uint32_t)t->me);
        ibex_wire_put_u32(&r, id);
        ibex_wire_put_u32(&r, (uint32_t)rank);
        tree_route(t, t->node_of[rank], IBEX_WIRE_DMODEX_REQ, &r);
        ibex_wire_buf_free(&r);
    }
    while (ibex_run_pmix_dmodex_served(pmix, &origin, &id, &status, &data, &len)) {
        tree_dmodex_answer_up(t, origin, id, status, data, len);
        free(data);
    }
}

/* ---- frames from a child ---- */

static void tree_on_kid_frame(ibex_tree_t *t, ibex_tree_kid_t *kid, uint32_t type,
                              ibex_wire_buf_t *b)
{
    if (type == IBEX_WIRE_FENCE_UP) {
        tree_on_fence_up(t, kid, b);
    } else if (type == IBEX_WIRE_FAIL) { /* already names its host */
        int code = (int)ibex_wire_get_u32(b);
        char *msg = ibex_wire_get_str(b);
        ibex_tree_fail(t, code, msg ? msg : "a host failed");
        free(msg);
    } else if (type == IBEX_WIRE_EXIT) {
        int code = (int)ibex_wire_get_u32(b);
        if (code && !t->remote_code)
            t->remote_code = code;
        kid->state = TREE_KID_DONE;
        ibex_wire_conn_close(&kid->conn);
    } else if (type == IBEX_WIRE_DMODEX_REQ || type == IBEX_WIRE_DMODEX_RESP) {
        tree_on_dmodex(t, type, b);
    } else {
        tree_kid_lost(t, kid, "the daemon sent an unexpected message");
    }
}

static void tree_read_kid(ibex_tree_t *t, ibex_tree_kid_t *kid)
{
    bool alive = ibex_wire_read(&kid->conn);
    uint32_t type;
    ibex_wire_buf_t b;
    int rc = 0;
    while (kid->conn.fd >= 0 && (rc = ibex_wire_next(&kid->conn, &type, &b)) == 1) {
        tree_on_kid_frame(t, kid, type, &b);
        ibex_wire_buf_free(&b);
    }
    if (kid->state != TREE_KID_DONE && (!alive || rc < 0))
        tree_kid_lost(t, kid,
                      rc < 0 ? "the daemon sent a malformed message"
                             : "lost the daemon (its connection closed before it reported the "
                               "end of its ranks)");
}

/* ---- frames from the parent ---- */

static void tree_on_up_frame(ibex_tree_t *t, uint32_t type, ibex_wire_buf_t *b)
{
    if (type == IBEX_WIRE_FENCE_DOWN) {
        tree_fence_down(t, b);
    } else if (type == IBEX_WIRE_STOP) {
        int code = (int)ibex_wire_get_u32(b);
        ibex_tree_stop_kids(t, code);
        ibex_run_job_stop(t->job, code, NULL);
    } else if (type == IBEX_WIRE_DMODEX_REQ || type == IBEX_WIRE_DMODEX_RESP) {
        tree_on_dmodex(t, type, b);
    }
}

static void tree_read_up(ibex_tree_t *t)
{
    bool alive = ibex_wire_read(&t->up);
    uint32_t type;
    ibex_wire_buf_t b;
    int rc = 0;
    while (t->up.fd >= 0 && (rc = ibex_wire_next(&t->up, &type, &b)) == 1) {
        tree_on_up_frame(t, type, &b);
        ibex_wire_buf_free(&b);
    }
    if (alive && rc >= 0)
        return;
    /* No parent: nobody to report to; the subtree below stops with us. */
    ibex_wire_conn_close(&t->up);
    t->fail_sent = true;
    ibex_tree_stop_kids(t, IBEX_RUN_EXIT_INTERNAL);
    ibex_run_job_stop(t->job, IBEX_RUN_EXIT_INTERNAL, "lost the connection to the parent");
}

/* ---- authentication of a new connection ---- */

static bool tree_token_ok(const ibex_tree_t *t, const char *tok, size_t len)
{
    unsigned char diff = len != IBEX_WIRE_TOKEN_LEN;
    for (size_t i = 0; i < IBEX_WIRE_TOKEN_LEN; i++) /* constant time */
        diff |= (unsigned char)(t->token[i] ^ (i < len ? tok[i] : 0));
    return diff == 0;
}

static ibex_tree_kid_t *tree_kid_of(ibex_tree_t *t, uint32_t node)
{
    for (int i = 0; i < t->nkids; i++)
        if ((uint32_t)t->kids[i].node == node)
            return &t->kids[i];
    return NULL;
}

/* The job for one child: its node, the tree's shape and agent, then what every node gets. */
static bool tree_send_job(ibex_tree_t *t, ibex_tree_kid_t *kid)
{
    ibex_wire_buf_t job = {0};
    ibex_wire_put_u32(&job, (uint32_t)kid->node);
    ibex_wire_put_u32(&job, (uint32_t)t->fanout);
    ibex_wire_put_u32(&job, (uint32_t)t->slurm);
    ibex_wire_put_str(&job, t->agent ? t->agent : "");
    ibex_wire_put_raw(&job, t->common.data, t->common.len);
    bool ok = !t->common.bad && ibex_wire_send(kid->conn.fd, IBEX_WIRE_JOB, &job);
    ibex_wire_buf_free(&job);
    return ok;
}

static void tree_hello(ibex_tree_t *t, ibex_wire_conn_t *c, ibex_wire_buf_t *b)
{
    uint32_t node = ibex_wire_get_u32(b);
    size_t len;
    const char *tok = ibex_wire_get_bytes(b, &len);
    ibex_tree_kid_t *kid = b->bad ? NULL : tree_kid_of(t, node);
    bool known = kid && kid->state == TREE_KID_STARTING;
    if (!known || !tree_token_ok(t, tok, len)) {
        ibex_wire_conn_close(c);
        if (known)
            tree_kid_lost(t, kid, "authentication failed (wrong token)");
        else
            ibex_run_say("warning: refused a connection that does not belong to this job");
        return;
    }
    struct sockaddr_in from;
    socklen_t flen = sizeof(from);
    char ip[64] = "?";
    if (getpeername(c->fd, (struct sockaddr *)&from, &flen) == 0)
        inet_ntop(AF_INET, &from.sin_addr, ip, sizeof(ip));
    ibex_debug(LAUNCH, "host %s: daemon connected from %s", kid->name, ip);
    kid->conn = *c;
    memset(c, 0, sizeof(*c));
    c->fd = -1;
    kid->state = TREE_KID_RUNNING;
    bool sent = tree_send_job(t, kid);
    if (sent && kid->held.len)
        sent = !kid->held.bad && ibex_run_io_write_all(kid->conn.fd, kid->held.data, kid->held.len);
    ibex_wire_buf_free(&kid->held);
    if (!sent)
        tree_kid_lost(t, kid, "cannot send the job to the daemon");
}

static void tree_read_pending(ibex_tree_t *t, ibex_wire_conn_t *c)
{
    bool alive = ibex_wire_read(c);
    uint32_t type;
    ibex_wire_buf_t b;
    int rc = ibex_wire_next(c, &type, &b);
    if (rc == 1) {
        if (type == IBEX_WIRE_HELLO)
            tree_hello(t, c, &b);
        else
            ibex_wire_conn_close(c);
        ibex_wire_buf_free(&b);
    } else if (rc < 0 || !alive) {
        ibex_wire_conn_close(c);
    }
}

static void tree_accept(ibex_tree_t *t)
{
    int fd;
    while ((fd = accept4(t->listen_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
        int slot = -1;
        for (int i = 0; i < 16 && slot < 0; i++)
            slot = t->pend[i].fd < 0 ? i : -1;
        if (slot < 0) {
            close(fd);
            continue;
        }
        t->pend[slot] = (ibex_wire_conn_t){.fd = fd};
    }
}

/* ---- the job's hooks ---- */

static int tree_poll_add(void *ctx, struct pollfd *pfd, int max)
{
    ibex_tree_t *t = ctx;
    int k = 0;
    if (t->up.fd >= 0)
        pfd[k++] = (struct pollfd){.fd = t->up.fd, .events = POLLIN};
    if (t->listen_fd >= 0)
        pfd[k++] = (struct pollfd){.fd = t->listen_fd, .events = POLLIN};
    for (int i = 0; i < 16 && k < max; i++)
        if (t->pend[i].fd >= 0)
            pfd[k++] = (struct pollfd){.fd = t->pend[i].fd, .events = POLLIN};
    for (int i = 0; i < t->nkids && k + 3 <= max; i++) {
        ibex_tree_kid_t *kid = &t->kids[i];
        if (kid->conn.fd >= 0)
            pfd[k++] = (struct pollfd){.fd = kid->conn.fd, .events = POLLIN};
        if (kid->out.fd >= 0)
            pfd[k++] = (struct pollfd){.fd = kid->out.fd, .events = POLLIN};
        if (kid->err.fd >= 0)
            pfd[k++] = (struct pollfd){.fd = kid->err.fd, .events = POLLIN};
    }
    return k;
}

/* Which of ours a ready descriptor is (the set may change while we handle them). */
static void tree_dispatch_fd(ibex_tree_t *t, int fd)
{
    if (fd == t->up.fd) {
        tree_read_up(t);
        return;
    }
    if (fd == t->listen_fd) {
        tree_accept(t);
        return;
    }
    for (int i = 0; i < 16; i++)
        if (t->pend[i].fd == fd)
            tree_read_pending(t, &t->pend[i]);
    for (int i = 0; i < t->nkids; i++) {
        ibex_tree_kid_t *kid = &t->kids[i];
        if (kid->conn.fd == fd)
            tree_read_kid(t, kid);
        else if (kid->out.fd == fd)
            ibex_run_io_stream_read(&kid->out);
        else if (kid->err.fd == fd)
            ibex_run_io_stream_read(&kid->err);
    }
}

static void tree_poll_ready(void *ctx, ibex_run_job_t *job, const struct pollfd *pfd, int n)
{
    for (int i = 0; i < n; i++)
        if (pfd[i].revents)
            tree_dispatch_fd(ctx, pfd[i].fd);
}

/* Agents that ended before their daemon connected; daemons that never came; the give-up
 * deadline after a failure. */
static void tree_kids_tick(ibex_tree_t *t, long long now)
{
    for (int i = 0; i < t->nkids; i++) {
        ibex_tree_kid_t *kid = &t->kids[i];
        if (kid->state == TREE_KID_STARTING && kid->out.fd < 0 && kid->err.fd < 0)
            tree_kid_lost(t, kid,
                          "the launch agent ended before the daemon connected "
                          "(unreachable host? see the agent's messages above)");
        else if (kid->state == TREE_KID_STARTING && now >= t->connect_by_ms)
            tree_kid_lost(t, kid,
                          "timeout: the daemon did not connect back in time "
                          "(IBEX_DAEMON_TIMEOUT_MS)");
        else if (kid->state != TREE_KID_DONE && t->give_up_ms && now >= t->give_up_ms)
            tree_kid_lost(t, kid, "the daemon did not stop in time");
    }
}

static void tree_tick(void *ctx, ibex_run_job_t *job)
{
    ibex_tree_t *t = ctx;
    ibex_run_pmix_t *pmix = ibex_run_job_pmix(job);
    char *data;
    size_t len;
    if (pmix && ibex_run_pmix_fence_take(pmix, &data, &len)) {
        t->local_fence = data;
        t->local_fence_len = len;
        t->local_fenced = true;
        tree_fence_try(t);
    }
    if (pmix)
        tree_dmodex_tick(t, pmix);
    tree_kids_tick(t, ibex_run_now_ms());
}

static bool tree_busy(void *ctx)
{
    ibex_tree_t *t = ctx;
    for (int i = 0; i < t->nkids; i++)
        if (t->kids[i].state != TREE_KID_DONE || t->kids[i].out.fd >= 0 || t->kids[i].err.fd >= 0)
            return !(t->give_up_ms && ibex_run_now_ms() >= t->give_up_ms + 2000);
    return false;
}

static int tree_timeout(void *ctx)
{
    ibex_tree_t *t = ctx;
    return t->give_up_ms ? 200 : 500; /* the deadlines above are checked at this pace */
}

void ibex_tree_hooks(ibex_tree_t *t, ibex_run_hooks_t *hooks)
{
    hooks->ctx = t;
    hooks->poll_add = tree_poll_add;
    hooks->poll_ready = tree_poll_ready;
    hooks->tick = tree_tick;
    hooks->busy = tree_busy;
    hooks->timeout_ms = tree_timeout;
}

void ibex_tree_free(ibex_tree_t *t)
{
    for (int i = 0; i < t->nkids; i++) {
        ibex_tree_kid_t *kid = &t->kids[i];
        ibex_wire_conn_close(&kid->conn);
        ibex_run_io_stream_drain(&kid->out);
        ibex_run_io_stream_drain(&kid->err);
        if (kid->agent > 0)
            kill(kid->agent, SIGKILL);
        free(kid->fence);
        ibex_wire_buf_free(&kid->held);
    }
    for (int i = 0; i < 16; i++)
        ibex_wire_conn_close(&t->pend[i]);
    if (t->listen_fd >= 0)
        close(t->listen_fd);
    ibex_wire_conn_close(&t->up);
    free(t->local_fence);
    ibex_wire_buf_free(&t->common);
}
