/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibexrun --daemon ADDR:PORT NODE: the daemon of one remote host of a multi-host job, started
 * by the head's launch agent. It reads the job's token from stdin (one line), connects back to
 * the head, authenticates (HELLO: node, token), receives the job (the maps, the programs, their
 * arguments, the environment, the working directory) and runs the ranks of its host as a
 * one-node job of libibexlaunch whose PMIx server knows the whole job. Through the job's hooks
 * it hands its PMIx fences to the head and releases them with what comes back, reports the
 * first failure of its ranks (FAIL) and, once they are all gone, their exit (EXIT). A STOP from
 * the head, or the head's connection closing, stops the ranks. Its ranks' output goes to its
 * own stdout / stderr, which the agent carries to the head.
 */
#include "ibexrun.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ibex_log.h"
#include "run_config.h"

typedef struct daemon {
    ibex_wire_conn_t conn;
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
    bool head_gone;
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
        int rc = ibex_wire_next(&d->conn, type, b);
        if (rc != 0)
            return rc;
        struct pollfd p = {.fd = d->conn.fd, .events = POLLIN};
        long long left = until - ibex_run_now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) <= 0 || !ibex_wire_read(&d->conn))
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
    w->my_node = (int)ibex_wire_get_u32(b);
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

/* ---- the job's hooks ---- */

static int daemon_poll_add(void *ctx, struct pollfd *pfd, int max)
{
    daemon_t *d = ctx;
    if (d->conn.fd < 0 || max < 1)
        return 0;
    pfd[0] = (struct pollfd){.fd = d->conn.fd, .events = POLLIN};
    return 1;
}

static void daemon_on_frame(daemon_t *d, ibex_run_job_t *job, uint32_t type, ibex_wire_buf_t *b)
{
    if (type == IBEX_WIRE_FENCE_DOWN) {
        int status = (int)ibex_wire_get_u32(b);
        size_t len;
        const char *data = ibex_wire_get_bytes(b, &len);
        ibex_run_pmix_fence_release(ibex_run_job_pmix(job), b->bad ? -1 : status, data, len);
    } else if (type == IBEX_WIRE_STOP) {
        ibex_run_job_stop(job, (int)ibex_wire_get_u32(b), NULL);
    }
}

static void daemon_poll_ready(void *ctx, ibex_run_job_t *job, const struct pollfd *pfd, int n)
{
    daemon_t *d = ctx;
    if (n < 1 || !pfd[0].revents || d->conn.fd < 0)
        return;
    bool alive = ibex_wire_read(&d->conn);
    uint32_t type;
    ibex_wire_buf_t b;
    int rc;
    while ((rc = ibex_wire_next(&d->conn, &type, &b)) == 1) {
        daemon_on_frame(d, job, type, &b);
        ibex_wire_buf_free(&b);
    }
    if (!alive || rc < 0) {
        d->head_gone = true;
        ibex_wire_conn_close(&d->conn);
        ibex_run_job_stop(job, IBEX_RUN_EXIT_INTERNAL, "lost the connection to the head");
    }
}

static void daemon_tick(void *ctx, ibex_run_job_t *job)
{
    daemon_t *d = ctx;
    char *data;
    size_t len;
    if (d->conn.fd < 0 || !ibex_run_pmix_fence_take(ibex_run_job_pmix(job), &data, &len))
        return;
    ibex_wire_buf_t b = {0};
    ibex_wire_put_bytes(&b, data, len);
    ibex_wire_send(d->conn.fd, IBEX_WIRE_FENCE_UP, &b);
    ibex_wire_buf_free(&b);
    free(data);
}

static void daemon_on_fail(void *ctx, int code, const char *msg)
{
    daemon_t *d = ctx;
    if (d->conn.fd < 0) { /* no head to tell: say it here (the agent may still carry it) */
        ibex_run_say("%s", msg);
        return;
    }
    ibex_wire_buf_t b = {0};
    ibex_wire_put_u32(&b, (uint32_t)code);
    ibex_wire_put_str(&b, msg);
    ibex_wire_send(d->conn.fd, IBEX_WIRE_FAIL, &b);
    ibex_wire_buf_free(&b);
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
    hooks = (ibex_run_hooks_t){.ctx = d,
                               .poll_add = daemon_poll_add,
                               .poll_ready = daemon_poll_ready,
                               .tick = daemon_tick,
                               .on_fail = daemon_on_fail};
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
    if (p.env && ibex_run_job_create(&p, &job) == IBEX_OK)
        code = ibex_run_job_run(job);
    else
        daemon_on_fail(d, code, "cannot start the job on this host");
    ibex_wire_buf_t b = {0};
    ibex_wire_put_u32(&b, (uint32_t)code);
    if (d->conn.fd >= 0)
        ibex_wire_send(d->conn.fd, IBEX_WIRE_EXIT, &b);
    ibex_wire_buf_free(&b);
    ibex_wire_conn_close(&d->conn);
    bool clean = code == 0 && job && !ibex_run_job_failed(job);
    ibex_run_job_destroy(job, clean);
    return code;
}

int ibex_run_daemon_main(const char *addr, const char *node)
{
    daemon_t d = {.conn.fd = -1};
    char tok[IBEX_WIRE_TOKEN_LEN + 2], me[256] = "?";
    gethostname(me, sizeof(me) - 1);
    char name[300];
    snprintf(name, sizeof(name), "ibexrun --daemon (%s)", me);
    ibex_run_say_set_name(name);
    if (!daemon_read_token(tok)) {
        ibex_run_say("no token on stdin");
        return IBEX_RUN_EXIT_USAGE;
    }
    if ((d.conn.fd = daemon_connect(addr)) < 0)
        return IBEX_RUN_EXIT_INTERNAL;
    ibex_wire_buf_t b = {0};
    ibex_wire_put_u32(&b, (uint32_t)atoi(node));
    ibex_wire_put_str(&b, tok);
    bool sent = ibex_wire_send(d.conn.fd, IBEX_WIRE_HELLO, &b);
    ibex_wire_buf_free(&b);
    uint32_t type = 0;
    if (!sent || daemon_wait_frame(&d, &type, &b, 30000) != 1 || type != IBEX_WIRE_JOB) {
        ibex_run_say("the head at %s did not send the job (refused, or authentication failed)",
                     addr);
        return IBEX_RUN_EXIT_INTERNAL;
    }
    bool ok = daemon_get_world(&d, &b) && daemon_get_apps(&d, &b);
    ibex_wire_buf_free(&b);
    if (!ok) {
        ibex_run_say("the job from the head does not parse");
        return IBEX_RUN_EXIT_INTERNAL;
    }
    return daemon_run(&d, daemon_local_ranks(&d));
}
