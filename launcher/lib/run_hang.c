/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hang reports: the job's blocked-call record (runtime/base/ibex_blocked.h) read without the
 * ranks' help, and one report of who waits for whom.
 *
 * The record is one memfd per job: ibexrun makes it (owner-only, no name in any file system,
 * gone with the last descriptor), passes it to every rank (IBEX_BLOCKED_FD) and samples each
 * rank's MPI call count to know when it last entered MPI; ibex_stack finds the same memfd
 * through /proc/PID/fd of a running ibexrun and maps it read-only.
 *
 * The analysis is the AND/OR wait-for graph: a rank blocked in a call waits for all of its
 * items (Wait, Waitall, a blocking call) or any one (Waitany, Waitsome: an OR-wait); an
 * MPI_ANY_SOURCE item is an OR over the communicator; a collective's item with no known peer
 * waits for the members that are not in the same collective. Ranks not blocked (computing, in
 * MPI but not waiting, not yet in MPI) can still act. Reduction: a blocked rank whose wait can
 * be satisfied by ranks that can act can act too; repeat until nothing changes. What is left
 * is deadlocked: exactly the ranks in a knot of the AND/OR graph (the rule of the MUST
 * checker), so a deadlock is reported only when there is one.
 */
#include "run_hang_int.h"
#include "run_job.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ibex_log.h"

#define HANG_NAME "ibex-blocked"

long long ibex_run_hang_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static size_t hang_size(int nranks)
{
    return (size_t)IBEX_BLK_OFFSET(nranks);
}

static ibex_run_hang_t *hang_new(void *base, int fd, int nranks, bool owner)
{
    ibex_run_hang_t *h = calloc(1, sizeof(*h));
    if (!h)
        return NULL;
    h->base = base;
    h->fd = fd;
    h->n = nranks;
    h->owner = owner;
    h->head = base;
    return h;
}

ibex_status_t ibex_run_hang_create(int nranks, ibex_run_hang_t **h_p)
{
    if (nranks > IBEX_BLK_MAX_RANKS)
        return IBEX_ERR_INVALID;
    /* Not close-on-exec: every rank inherits it (and closes it once mapped). */
    int fd = memfd_create(HANG_NAME, 0);
    if (fd < 0 || ftruncate(fd, (off_t)hang_size(nranks)) != 0) {
        ibex_error(LAUNCH, "cannot make the blocked-call record: %m");
        if (fd >= 0)
            close(fd);
        return IBEX_ERR_IO;
    }
    void *base = mmap(NULL, hang_size(nranks), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ibex_run_hang_t *h = base == MAP_FAILED ? NULL : hang_new(base, fd, nranks, true);
    if (!h) {
        if (base != MAP_FAILED)
            munmap(base, hang_size(nranks));
        close(fd);
        return IBEX_ERR_NO_MEMORY;
    }
    long long now = ibex_run_hang_now_ns();
    *h->head = (ibex_blk_head_t){.magic = IBEX_BLK_MAGIC,
                                 .version = IBEX_BLK_VERSION,
                                 .nranks = nranks,
                                 .launcher_pid = (int32_t)getpid(),
                                 .start_ns = now};
    for (int i = 0; i < nranks; i++)
        h->head->changed_ns[i] = now;
    *h_p = h;
    return IBEX_OK;
}

int ibex_run_hang_fd(const ibex_run_hang_t *h)
{
    return h ? h->fd : -1;
}

/* ibex_stack's side: the memfd among the launcher's descriptors. */
static int hang_find_fd(int pid, char *err, size_t len)
{
    char dir[64], link[PATH_MAX + 32], target[256];
    snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, len, "cannot read %s: %s", dir, strerror(errno));
        return -1;
    }
    int fd = -1;
    struct dirent *e;
    while (fd < 0 && (e = readdir(d))) {
        snprintf(link, sizeof(link), "%s/%s", dir, e->d_name);
        ssize_t n = readlink(link, target, sizeof(target) - 1);
        target[n > 0 ? n : 0] = '\0';
        if (strncmp(target, "/memfd:" HANG_NAME, strlen("/memfd:" HANG_NAME)) == 0)
            fd = open(link, O_RDONLY | O_CLOEXEC);
    }
    closedir(d);
    if (fd < 0)
        snprintf(err, len,
                 "process %d has no blocked-call record (not an ibexrun of this "
                 "version, or its job has not started)",
                 pid);
    return fd;
}

ibex_status_t ibex_run_hang_attach(int pid, ibex_run_hang_t **h_p, char *err, size_t len)
{
    int fd = hang_find_fd(pid, err, len);
    if (fd < 0)
        return IBEX_ERR_INVALID;
    ibex_blk_head_t head;
    if (pread(fd, &head, sizeof(head), 0) != (ssize_t)sizeof(head) ||
        head.magic != IBEX_BLK_MAGIC || head.version != IBEX_BLK_VERSION || head.nranks < 1 ||
        head.nranks > IBEX_BLK_MAX_RANKS) {
        snprintf(err, len, "process %d: the blocked-call record has an unknown format", pid);
        close(fd);
        return IBEX_ERR_INVALID;
    }
    void *base = mmap(NULL, hang_size(head.nranks), PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    ibex_run_hang_t *h = base == MAP_FAILED ? NULL : hang_new(base, -1, head.nranks, false);
    if (!h) {
        snprintf(err, len, "cannot map the blocked-call record of process %d", pid);
        return IBEX_ERR_NO_MEMORY;
    }
    *h_p = h;
    return IBEX_OK;
}

void ibex_run_hang_destroy(ibex_run_hang_t *h)
{
    if (!h)
        return;
    munmap(h->base, hang_size(h->n));
    if (h->fd >= 0)
        close(h->fd);
    free(h);
}

const ibex_blk_page_t *ibex_run_hang_page(const ibex_run_hang_t *h, int rank)
{
    return (const ibex_blk_page_t *)((const char *)h->base + IBEX_BLK_OFFSET(rank));
}

/* ---- sampling (ibexrun) ---- */

void ibex_run_hang_sample(ibex_run_hang_t *h)
{
    long long now = ibex_run_hang_now_ns();
    for (int i = 0; i < h->n; i++) {
        uint64_t c = __atomic_load_n(&ibex_run_hang_page(h, i)->ncalls, __ATOMIC_RELAXED);
        if (c != h->head->seen_calls[i]) {
            h->head->seen_calls[i] = c;
            h->head->changed_ns[i] = now;
        }
    }
}

/* When rank i last made progress: its last new MPI call, or, if it polls without progress
 * (MPI_Test in a loop), when that began. */
static long long hang_progress_ns(const ibex_run_hang_t *h, int i)
{
    const ibex_blk_page_t *pg = ibex_run_hang_page(h, i);
    long long t = h->head->changed_ns[i];
    if (__atomic_load_n(&pg->waiting, __ATOMIC_RELAXED) == 2 && pg->since_ns < t)
        t = pg->since_ns;
    return t;
}

long long ibex_run_hang_idle_ms(const ibex_run_hang_t *h)
{
    long long last = h->head->start_ns;
    for (int i = 0; i < h->n; i++)
        if (hang_progress_ns(h, i) > last)
            last = hang_progress_ns(h, i);
    return (ibex_run_hang_now_ns() - last) / 1000000;
}

/* ---- a consistent copy of a page ---- */

bool ibex_run_hang_snapshot(const ibex_run_hang_t *h, int rank, ibex_blk_page_t *out)
{
    const ibex_blk_page_t *pg = ibex_run_hang_page(h, rank);
    for (int tries = 0; tries < 1000; tries++) {
        uint32_t s1 = __atomic_load_n(&pg->seq, __ATOMIC_ACQUIRE);
        memcpy(out, (const void *)pg, sizeof(*out));
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        uint32_t s2 = __atomic_load_n(&pg->seq, __ATOMIC_RELAXED);
        if (s1 == s2 && !(s1 & 1))
            return out->magic == IBEX_BLK_MAGIC;
        usleep(100);
    }
    return false; /* the rank keeps rewriting it: it is making progress */
}

/* ---- the job's side (run_job.c, run_supervise.c call these) ---- */

#define HANG_TICK_MS 200

ibex_status_t ibex_run_job_hang_setup(ibex_run_job_t *job)
{
    if (ibex_run_hang_create(job->n, &job->hang) != IBEX_OK) {
        ibex_run_say("warning: no blocked-call record, so no hang report for this job");
        return IBEX_OK;
    }
    char fd[16];
    snprintf(fd, sizeof(fd), "%d", ibex_run_hang_fd(job->hang));
    job->hang_tick_at_ms = ibex_run_now_ms() + HANG_TICK_MS;
    return ibex_run_env_set(&job->p.env, "IBEX_BLOCKED_FD", fd);
}

void ibex_run_job_hang_report(ibex_run_job_t *job, const char *why)
{
    if (!job->hang)
        return;
    bool *gone = calloc((size_t)job->n, sizeof(*gone));
    if (!gone)
        return;
    for (int i = 0; i < job->n; i++)
        gone[i] = job->ranks[i].reaped || job->ranks[i].pid == 0;
    ibex_run_hang_sample(job->hang);
    ibex_run_hang_report(job->hang, gone, 2, "ibexrun", why);
    free(gone);
}

/* Samples the call counts; --hang-report S: once per quiet period of S seconds. */
void ibex_run_job_hang_tick(ibex_run_job_t *job)
{
    long long now = ibex_run_now_ms();
    if (!job->hang || job->failed || now < job->hang_tick_at_ms)
        return;
    job->hang_tick_at_ms = now + HANG_TICK_MS;
    ibex_run_hang_sample(job->hang);
    long long idle = ibex_run_hang_idle_ms(job->hang);
    if (job->p.hang_report_s <= 0 || idle < 1000LL * job->p.hang_report_s) {
        job->hang->reported = false;
        return;
    }
    if (job->hang->reported)
        return;
    job->hang->reported = true;
    char why[96];
    snprintf(why, sizeof(why), "no rank entered an MPI call for %d s", job->p.hang_report_s);
    ibex_run_job_hang_report(job, why);
}
