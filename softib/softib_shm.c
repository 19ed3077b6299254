/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib shared memory: the per-user registry, per-context segments, the
 * segment allocator, the QP directory, the cache of peers' segments and the
 * FIFOs that carry completion / async events between processes.
 */
#include "softib.h"
#include "softib_sweep.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SIB_REG_MAGIC 0x534f46544942524bULL

struct sib_config sib_cfg;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_reg_fd = -1;
static struct sib_reg *g_reg;
static struct sib_rctx *g_rctx;

static uint64_t env_u64(const char *name, uint64_t def)
{
    const char *v = getenv(name);

    return v && *v ? strtoull(v, NULL, 0) : def;
}

/*
 * SOFTIB_NAMESPACE isolates groups of processes (e.g. parallel tests) from
 * each other: it becomes part of every shared-memory name. Alphanumeric only.
 */
static char g_ns[17];

static void ns_set(const char *v)
{
    size_t i;

    for (i = 0; v && v[i] && i < sizeof(g_ns) - 1; i++)
        g_ns[i] = isalnum((unsigned char)v[i]) ? v[i] : 'x';
    g_ns[i] = 0;
}

/*
 * SOFTIB_FABRIC_DIR: a directory that stands for the fabric instead of /dev/shm, like a switch
 * that processes with different /dev/shm plug into (simulated hosts: mount namespaces with
 * private /dev/shm and /tmp). Every softib file (registry, segments, channel FIFOs) lives there
 * under the same names. It must be ours and owner-only, or softib refuses to open anything.
 * At most 40 characters: the FIFO paths the callers build are SIB_NAME_LEN + 32 long.
 */
#define SIB_FABRIC_DIR_MAX 40
static char g_fabric[SIB_FABRIC_DIR_MAX + 1];
static bool g_fabric_bad;

static void fabric_set(const char *v)
{
    struct stat st;

    g_fabric[0] = 0;
    g_fabric_bad = false;
    if (!v || !*v)
        return;
    if (strlen(v) > SIB_FABRIC_DIR_MAX || v[0] != '/' || stat(v, &st) != 0 ||
        !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
        fprintf(stderr,
                "softib: SOFTIB_FABRIC_DIR=%s: not an absolute path (at most %d "
                "characters) to a directory of ours with mode 0700\n",
                v, SIB_FABRIC_DIR_MAX);
        g_fabric_bad = true;
        return;
    }
    snprintf(g_fabric, sizeof(g_fabric), "%s", v);
}

static const char *fab_dir(void)
{
    return g_fabric[0] ? g_fabric : "/dev/shm";
}

/* shm_open / shm_unlink, or their equivalents in the fabric directory ("/name" names). */
static int fab_open(const char *name, int flags, mode_t mode)
{
    char path[sizeof(g_fabric) + SIB_NAME_LEN + 32];

    if (g_fabric_bad) {
        errno = EACCES;
        return -1;
    }
    if (!g_fabric[0])
        return shm_open(name, flags, mode);
    snprintf(path, sizeof(path), "%s%s", g_fabric, name);
    return open(path, flags, mode);
}

static int fab_unlink(const char *name)
{
    char path[sizeof(g_fabric) + SIB_NAME_LEN + 32];

    if (!g_fabric[0])
        return shm_unlink(name);
    snprintf(path, sizeof(path), "%s%s", g_fabric, name);
    return unlink(path);
}

static void config_parse(void)
{
    const char *d = getenv("SOFTIB_DROP_RATE");

    sib_cfg.log = (int)env_u64("SOFTIB_LOG", 0);
    sib_cfg.roce = (int)env_u64("SOFTIB_ROCE", 0);
    sib_cfg.stale_check = (int)env_u64("SOFTIB_STALE_CHECK", 0);
    sib_cfg.seed = env_u64("SOFTIB_SEED", 1);
    sib_cfg.delay_us = env_u64("SOFTIB_DELAY_US", 0);
    sib_cfg.fail_after = env_u64("SOFTIB_FAIL_AFTER", 0);
    sib_cfg.drop_rate = d ? strtod(d, NULL) : 0.0;
    if (sib_cfg.drop_rate < 0 || sib_cfg.drop_rate > 0.95)
        sib_cfg.drop_rate = sib_cfg.drop_rate < 0 ? 0 : 0.95;
    sib_cfg.timeout_cap_us = env_u64("SOFTIB_TIMEOUT_CAP_US", 100000);
    ns_set(getenv("SOFTIB_NAMESPACE"));
    fabric_set(getenv("SOFTIB_FABRIC_DIR"));
    sib_fault_config_load();
    sib_cfg.faults =
        sib_cfg.delay_us || sib_cfg.fail_after || sib_cfg.drop_rate > 0 || sib_fault_active();
}

/* Parsed at each device list / open, so a test may change variables between contexts. */
void sib_config_load(void)
{
    config_parse();
}

void sib_log_write(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    int n;

    n = snprintf(buf, sizeof(buf), "softib[%d]: ", (int)getpid());
    va_start(ap, fmt);
    vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", buf);
}

pid_t sib_g_pid; /* 0 until asked, and again in a forked child */

static void pid_reset(void);

static void pthread_atfork_child_reset(void)
{
    pthread_atfork(NULL, NULL, pid_reset);
}

static void pid_reset(void)
{
    sib_g_pid = 0;
}

/* getpid() is a real system call, and costly on virtual machines: cache it. */
pid_t sib_pid_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    pthread_once(&once, pthread_atfork_child_reset);
    sib_g_pid = getpid();
    return sib_g_pid;
}

uint64_t sib_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool pid_alive(pid_t pid)
{
    return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

void sib_spin_lock_wait(sib_spin_t *l)
{
    int32_t me = sib_pid(), cur;
    unsigned n = 0;

    for (;;) {
        cur = 0;
        if (atomic_compare_exchange_weak_explicit(&l->owner, &cur, me, memory_order_acquire,
                                                  memory_order_relaxed))
            return;
        if (++n % 1024) {
            __builtin_ia32_pause();
            continue;
        }
        /* Long wait: the holder may be preempted (yield) or dead (take over). */
        if (cur && cur != me && !pid_alive(cur) &&
            atomic_compare_exchange_strong(&l->owner, &cur, me)) {
            sib_log("took over a lock held by dead pid %d", (int)cur);
            return;
        }
        sched_yield();
    }
}

/* Robust locks: a process that dies holding one must not wedge its peers. */
int sib_lock(pthread_mutex_t *m)
{
    int rc = pthread_mutex_lock(m);

    if (rc == EOWNERDEAD) {
        pthread_mutex_consistent(m);
        rc = 0;
    }
    return rc;
}

void sib_unlock(pthread_mutex_t *m)
{
    pthread_mutex_unlock(m);
}

int sib_mutex_init_shared(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    int rc;

    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    rc = pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
    return rc;
}

static uint64_t netns_inode(void)
{
    struct stat st;

    return stat("/proc/self/ns/net", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/*
 * The registry is a well-known name, so it is validated before use: a regular
 * file, ours, mode 0600, of the expected size and magic. Another user cannot
 * plant it because the name carries our uid and O_NOFOLLOW refuses links.
 */
static int reg_validate(int fd, bool *fresh)
{
    struct stat st;

    if (fstat(fd, &st) != 0)
        return errno;
    if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
        fprintf(stderr, "softib: refusing registry with bad owner or mode\n");
        return EPERM;
    }
    if (st.st_nlink == 0)
        return EAGAIN;
    *fresh = st.st_size == 0;
    if (!*fresh && st.st_size != (off_t)sizeof(struct sib_reg))
        return EINVAL;
    return 0;
}

static int reg_map(int fd, bool fresh)
{
    struct sib_reg *r;

    if (fresh && ftruncate(fd, sizeof(*r)) != 0)
        return errno;
    r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (r == MAP_FAILED)
        return errno;
    if (fresh) {
        r->magic = SIB_REG_MAGIC;
        r->size = sizeof(*r);
    } else if (r->magic != SIB_REG_MAGIC || r->size != sizeof(*r)) {
        munmap(r, sizeof(*r));
        return EINVAL;
    }
    g_reg = r;
    return 0;
}

static void reg_name(char *buf, size_t len)
{
    snprintf(buf, len, "/softib-%u%s.reg", (unsigned)geteuid(), g_ns);
}

static void reg_drop(void)
{
    if (g_reg)
        munmap(g_reg, sizeof(*g_reg));
    if (g_reg_fd >= 0)
        close(g_reg_fd);
    g_reg = NULL;
    g_reg_fd = -1;
}

/* Takes the registry's flock, (re)opening it if it was removed meanwhile. */
static int reg_lock(void)
{
    char name[64];
    bool fresh = false;
    int rc;

    reg_name(name, sizeof(name));
    for (;;) {
        if (g_reg_fd < 0) {
            g_reg_fd = fab_open(name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (g_reg_fd < 0)
                return errno;
        }
        if (flock(g_reg_fd, LOCK_EX) != 0)
            return errno;
        rc = reg_validate(g_reg_fd, &fresh);
        if (rc == 0 && !g_reg)
            rc = reg_map(g_reg_fd, fresh);
        if (rc != EAGAIN)
            break;
        reg_drop(); /* unlinked by the last closer: start over */
    }
    if (rc) {
        flock(g_reg_fd, LOCK_UN);
        reg_drop();
    }
    return rc;
}

static void reg_unlock(void)
{
    flock(g_reg_fd, LOCK_UN);
}

static struct sib_reg_host *reg_host(void)
{
    uint64_t ns = netns_inode();
    uint32_t i;

    for (i = 0; i < g_reg->nhosts; i++)
        if (g_reg->host[i].netns == ns)
            return &g_reg->host[i];
    if (g_reg->nhosts == SIB_REG_HOSTS)
        return NULL;
    i = g_reg->nhosts++;
    g_reg->host[i].netns = ns;
    g_reg->host[i].lid = i + 1;
    g_reg->host[i].next_qpn = 0x100 + 0x40 * i;
    return &g_reg->host[i];
}

static bool reg_empty(void)
{
    int i;

    for (i = 0; i < SIB_REG_CTXS; i++)
        if (g_reg->ctx[i].pid)
            return false;
    return true;
}

/* The last one out removes the registry; openers notice (nlink 0) and retry. */
static void reg_remove_if_empty(void)
{
    char name[64];

    if (!reg_empty())
        return;
    reg_name(name, sizeof(name));
    fab_unlink(name);
}

int sib_host_lid(uint32_t *lid_p)
{
    struct sib_reg_host *h;
    int rc;

    pthread_mutex_lock(&g_lock);
    rc = reg_lock();
    if (rc == 0) {
        h = reg_host();
        rc = h ? 0 : ENOSPC;
        if (h)
            *lid_p = h->lid;
        reg_remove_if_empty(); /* a GUID query alone leaves nothing behind */
        reg_unlock();
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

static void seg_unlink_all(const char *seg)
{
    char path[SIB_NAME_LEN + 32];
    int i;

    fab_unlink(seg);
    for (i = 0; i < SIB_MAX_CHAN; i++) {
        snprintf(path, sizeof(path), "%s%s-c%d", fab_dir(), seg, i);
        unlink(path);
    }
}

/* Forgets contexts of dead processes: their names and their QP numbers. */
static void reg_sweep(void)
{
    int i, j;

    for (i = 0; i < SIB_REG_CTXS; i++) {
        struct sib_reg_ctx *c = &g_reg->ctx[i];

        if (c->pid == 0 || pid_alive(c->pid))
            continue;
        sib_log("sweeping context of dead pid %d (%s)", c->pid, c->seg);
        seg_unlink_all(c->seg);
        for (j = 0; j < SIB_MAX_QP; j++)
            if (g_reg->qp[j].qpn && g_reg->qp[j].ctx == i)
                g_reg->qp[j].qpn = 0;
        memset(c, 0, sizeof(*c));
    }
}

static int seg_name(char *buf, size_t len)
{
    uint64_t rnd;

    if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
        return EIO;
    snprintf(buf, len, "/softib-%u%s-%016llx", (unsigned)geteuid(), g_ns, (unsigned long long)rnd);
    return 0;
}

static void seg_init(struct sib_seg *s, uint32_t lid)
{
    s->magic = SIB_SEG_MAGIC;
    s->pid = getpid();
    s->lid = lid;
    s->size = SIB_SEG_SIZE;
    s->brk = (sizeof(*s) + 4095) & ~4095ull;
    s->pd_next = 1;
    s->mr_gen = 1;
    sib_mutex_init_shared(&s->alloc_lock);
    sib_mutex_init_shared(&s->atomic_lock);
    sib_mutex_init_shared(&s->async_lock);
    atomic_store(&s->alive, 1);
}

static struct sib_rctx *rctx_new(const char *name, struct sib_seg *seg)
{
    struct sib_rctx *r = calloc(1, sizeof(*r));
    int i;

    if (!r)
        return NULL;
    snprintf(r->name, sizeof(r->name), "%s", name);
    r->seg = seg;
    r->pid = seg->pid;
    for (i = 0; i < SIB_MAX_CHAN; i++)
        r->fifo[i] = -1;
    r->next = g_rctx;
    g_rctx = r;
    return r;
}

/* Creates our segment O_EXCL with an unguessable name, mode 0600. */
static int seg_open_new(char *name, size_t len, struct sib_seg **seg_p)
{
    void *p;
    int fd, rc;

    rc = seg_name(name, len);
    if (rc)
        return rc;
    fd = fab_open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return errno;
    if (ftruncate(fd, (off_t)SIB_SEG_SIZE) != 0) {
        rc = errno;
        close(fd);
        fab_unlink(name);
        return rc;
    }
    p = mmap(NULL, SIB_SEG_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    rc = p == MAP_FAILED ? errno : 0;
    close(fd);
    if (rc)
        fab_unlink(name);
    else
        *seg_p = p;
    return rc;
}

static int reg_add_ctx(const char *name, uint32_t lid)
{
    int i;

    for (i = 0; i < SIB_REG_CTXS; i++) {
        struct sib_reg_ctx *c = &g_reg->ctx[i];

        if (c->pid)
            continue;
        c->pid = getpid();
        c->lid = lid;
        snprintf(c->seg, sizeof(c->seg), "%s", name);
        return i;
    }
    return -1;
}

static int seg_create_locked(struct sib_ctx *ctx, uint32_t lid)
{
    char name[SIB_NAME_LEN];
    struct sib_seg *seg = NULL;
    int rc, idx;

    rc = seg_open_new(name, sizeof(name), &seg);
    if (rc)
        return rc;
    seg_init(seg, lid);
    idx = reg_add_ctx(name, lid);
    ctx->self = idx < 0 ? NULL : rctx_new(name, seg);
    if (!ctx->self) {
        munmap(seg, SIB_SEG_SIZE);
        fab_unlink(name);
        return idx < 0 ? ENOSPC : ENOMEM;
    }
    ctx->self->self = true;
    ctx->self->reg_idx = idx;
    ctx->seg = seg;
    ctx->reg_idx = idx;
    return 0;
}

int sib_seg_create(struct sib_ctx *ctx)
{
    struct sib_reg_host *h;
    int rc;

    pthread_mutex_lock(&g_lock);
    rc = reg_lock();
    if (rc == 0) {
        reg_sweep();
        h = reg_host();
        rc = h ? seg_create_locked(ctx, h->lid) : ENOSPC;
        reg_unlock();
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

/*
 * Our segment stays mapped (peers may still hold pointers computed from our
 * cache entry in their process, never in ours) but its names go away now.
 */
static void seg_forget(struct sib_rctx *self)
{
    int j;

    atomic_store(&self->seg->alive, 0);
    if (reg_lock() == 0) {
        seg_unlink_all(self->name);
        for (j = 0; j < SIB_MAX_QP; j++)
            if (g_reg->qp[j].qpn && g_reg->qp[j].ctx == self->reg_idx)
                g_reg->qp[j].qpn = 0;
        memset(&g_reg->ctx[self->reg_idx], 0, sizeof(g_reg->ctx[0]));
        reg_sweep();
        reg_remove_if_empty();
        reg_unlock();
    }
    self->dead = true;
}

void sib_seg_destroy(struct sib_ctx *ctx)
{
    pthread_mutex_lock(&g_lock);
    seg_forget(ctx->self);
    pthread_mutex_unlock(&g_lock);
}

/*
 * A segment name of ours in the fabric directory: "softib-<uid><ns>-" then 16 hex digits, alone
 * (the segment) or followed by "-c<n>" (a channel FIFO). The 16 digits go to seg_p.
 */
static bool sweep_is_ours(const char *file, char *seg_p, size_t len)
{
    char pre[64];
    size_t n = (size_t)snprintf(pre, sizeof(pre), "softib-%u%s-", (unsigned)geteuid(), g_ns);
    size_t i;

    if (strncmp(file, pre, n) != 0)
        return false;
    for (i = 0; i < 16; i++)
        if (!isxdigit((unsigned char)file[n + i]))
            return false;
    if (file[n + 16] != 0 && strncmp(file + n + 16, "-c", 2) != 0)
        return false;
    snprintf(seg_p, len, "/%.*s", (int)(n + 16), file);
    return true;
}

static bool sweep_registered(const char *seg)
{
    int i;

    for (i = 0; i < SIB_REG_CTXS; i++)
        if (g_reg->ctx[i].pid && strcmp(g_reg->ctx[i].seg, seg) == 0)
            return true;
    return false;
}

/*
 * Under the registry's lock a segment is created and registered in one step, so a segment file
 * of ours that no context names belongs to a process killed between the two (or to a registry
 * removed under it): its names go too.
 */
static void sweep_orphans(void)
{
    char seg[SIB_NAME_LEN];
    struct dirent *e;
    struct stat st;
    DIR *d = opendir(fab_dir());

    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        if (!sweep_is_ours(e->d_name, seg, sizeof(seg)) || sweep_registered(seg))
            continue;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != geteuid())
            continue;
        sib_log("sweeping orphan %s", e->d_name);
        unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

__attribute__((visibility("default"))) int softib_sweep(const char *ns, const char *fabric_dir)
{
    int rc;

    pthread_mutex_lock(&g_lock);
    if (g_rctx || g_reg) { /* this process uses softib: its own opens and closes sweep */
        pthread_mutex_unlock(&g_lock);
        return EBUSY;
    }
    ns_set(ns);
    fabric_set(fabric_dir);
    rc = reg_lock();
    if (rc == 0) {
        reg_sweep();
        sweep_orphans();
        reg_remove_if_empty();
        reg_unlock();
        reg_drop();
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

/*
 * A program that exits without ibv_close_device leaves no names behind
 * either. Only our own contexts: a forked child inherits its parent's list.
 */
__attribute__((destructor)) static void seg_exit_cleanup(void)
{
    struct sib_rctx *r;

    pthread_mutex_lock(&g_lock);
    for (r = g_rctx; r; r = r->next)
        if (r->self && !r->dead && r->seg->pid == getpid())
            seg_forget(r);
    pthread_mutex_unlock(&g_lock);
}

/* A first-fit bump allocator with an exact-size free list; 64-byte aligned. */
uint64_t sib_alloc(struct sib_seg *seg, uint64_t size)
{
    uint64_t off = 0;
    int i;

    size = (size + 63) & ~63ull;
    sib_lock(&seg->alloc_lock);
    for (i = 0; i < 128 && !off; i++) {
        if (seg->freel[i].size == size) {
            off = seg->freel[i].off;
            seg->freel[i].size = 0;
        }
    }
    if (!off && seg->brk + size <= seg->size) {
        off = seg->brk;
        seg->brk += size;
    }
    sib_unlock(&seg->alloc_lock);
    if (off)
        memset(sib_at(seg, off), 0, size);
    return off;
}

void sib_free(struct sib_seg *seg, uint64_t off, uint64_t size)
{
    int i;

    size = (size + 63) & ~63ull;
    sib_lock(&seg->alloc_lock);
    for (i = 0; i < 128; i++) {
        if (seg->freel[i].size == 0) {
            seg->freel[i].off = off;
            seg->freel[i].size = size;
            break;
        }
    }
    sib_unlock(&seg->alloc_lock);
}

int sib_qp_register(struct sib_ctx *ctx, uint64_t off, uint32_t *qpn_p)
{
    struct sib_reg_host *h;
    int rc, i;

    pthread_mutex_lock(&g_lock);
    rc = reg_lock();
    if (rc)
        goto out;
    h = reg_host();
    rc = ENOMEM;
    for (i = 0; h && i < SIB_MAX_QP; i++) {
        if (g_reg->qp[i].qpn)
            continue;
        g_reg->qp[i].qpn = h->next_qpn++ & 0xffffff;
        g_reg->qp[i].lid = (uint16_t)h->lid;
        g_reg->qp[i].ctx = (uint16_t)ctx->reg_idx;
        g_reg->qp[i].off = off;
        *qpn_p = g_reg->qp[i].qpn;
        rc = 0;
        break;
    }
    reg_unlock();
out:
    pthread_mutex_unlock(&g_lock);
    return rc;
}

void sib_qp_unregister(uint32_t qpn, uint32_t lid)
{
    int i;

    pthread_mutex_lock(&g_lock);
    if (reg_lock() == 0) {
        for (i = 0; i < SIB_MAX_QP; i++)
            if (g_reg->qp[i].qpn == qpn && g_reg->qp[i].lid == lid)
                g_reg->qp[i].qpn = 0;
        reg_unlock();
    }
    pthread_mutex_unlock(&g_lock);
}

/* Maps a peer's segment read-write; peers are the same user by construction. */
static struct sib_rctx *rctx_map(const char *name)
{
    struct sib_rctx *r;
    struct stat st;
    void *p;
    int fd;

    for (r = g_rctx; r; r = r->next)
        if (!strcmp(r->name, name) && !r->dead)
            return r;
    fd = fab_open(name, O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || st.st_size != (off_t)SIB_SEG_SIZE) {
        close(fd);
        return NULL;
    }
    p = mmap(NULL, SIB_SEG_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return NULL;
    if (((struct sib_seg *)p)->magic != SIB_SEG_MAGIC) {
        munmap(p, SIB_SEG_SIZE);
        return NULL;
    }
    return rctx_new(name, p);
}

struct sib_rctx *sib_qp_lookup(uint32_t lid, uint32_t qpn, uint64_t *off_p)
{
    struct sib_rctx *r = NULL;
    int i;

    pthread_mutex_lock(&g_lock);
    if (reg_lock() != 0)
        goto out;
    for (i = 0; i < SIB_MAX_QP; i++) {
        struct sib_reg_qp *q = &g_reg->qp[i];

        if (q->qpn != qpn || q->lid != lid)
            continue;
        r = rctx_map(g_reg->ctx[q->ctx].seg);
        *off_p = q->off;
        break;
    }
    reg_unlock();
out:
    pthread_mutex_unlock(&g_lock);
    return r;
}

/*
 * kill(pid, 0) is a system call and even clock_gettime costs ~0.3 us on this
 * kind of VM, so a peer's pid is checked on every retry (force) but otherwise
 * only every 1024 operations, at most once per ms. A graceful close is seen at
 * once through the segment's alive flag.
 */
bool sib_rctx_alive(struct sib_rctx *r, bool force)
{
    uint64_t now;

    if (r->self)
        return true;
    if (r->dead || !atomic_load_explicit(&r->seg->alive, memory_order_acquire))
        return false;
    if (!force && (++r->nops & 1023))
        return true;
    now = sib_now_ns();
    if (!force && now - r->checked_ns < 1000000)
        return true;
    if (!pid_alive(r->pid)) {
        r->dead = true;
        return false;
    }
    r->checked_ns = now;
    return true;
}

int sib_chan_fifo_path(struct sib_rctx *r, int idx, char *buf, size_t len)
{
    return snprintf(buf, len, "%s%s-c%d", fab_dir(), r->name, idx) >= (int)len ? ENAMETOOLONG : 0;
}

/* Writes one byte per event: the owner reads exactly one byte per event taken. */
void sib_chan_signal(struct sib_rctx *r, int idx)
{
    uint32_t gen = atomic_load(&r->seg->chan[idx].gen);
    char path[SIB_NAME_LEN + 32];
    char b = 1;

    pthread_mutex_lock(&g_lock);
    if (r->fifo[idx] >= 0 && r->fifo_gen[idx] != gen) {
        close(r->fifo[idx]);
        r->fifo[idx] = -1;
    }
    if (r->fifo[idx] < 0 && (gen & 1) && !sib_chan_fifo_path(r, idx, path, sizeof(path))) {
        r->fifo[idx] = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
        r->fifo_gen[idx] = gen;
    }
    if (r->fifo[idx] >= 0 && write(r->fifo[idx], &b, 1) != 1)
        sib_log("event lost on channel %d of %s: %s", idx, r->name, strerror(errno));
    pthread_mutex_unlock(&g_lock);
}
