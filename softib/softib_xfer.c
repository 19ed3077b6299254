/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib data movement: copies between our memory and a peer's (cross-memory
 * attach), the stale-registration check and fault-injection helpers.
 */
#include "softib.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PM_PFN_MASK ((1ull << 55) - 1)
#define PM_PRESENT  (1ull << 63)

static size_t iov_total(const struct iovec *v, int n)
{
    size_t t = 0;
    int i;

    for (i = 0; i < n; i++)
        t += v[i].iov_len;
    return t;
}

/* Same process: walk both lists with memcpy (loopback QPs, tests). */
static void iov_copy(const struct iovec *dst, int nd, const struct iovec *src, int ns)
{
    size_t di = 0, doff = 0, si = 0, soff = 0;

    while ((int)di < nd && (int)si < ns) {
        size_t n = dst[di].iov_len - doff;

        if (src[si].iov_len - soff < n)
            n = src[si].iov_len - soff;
        memmove((char *)dst[di].iov_base + doff, (char *)src[si].iov_base + soff, n);
        doff += n;
        soff += n;
        if (doff == dst[di].iov_len) {
            di++;
            doff = 0;
        }
        if (soff == src[si].iov_len) {
            si++;
            soff = 0;
        }
    }
}

/*
 * Moves bytes between local and remote iovecs of process pid: write = local to
 * remote. A real HCA needs no help from the target; neither does this.
 * Returns 0, ESRCH (peer gone) or EFAULT (memory not mapped there).
 */
int sib_xfer(pid_t pid, const struct iovec *local, int nl, const struct iovec *remote, int nr,
             bool write)
{
    size_t want = iov_total(local, nl);
    ssize_t n;

    if (want == 0)
        return 0;
    if (pid == sib_pid()) {
        if (write)
            iov_copy(remote, nr, local, nl);
        else
            iov_copy(local, nl, remote, nr);
        return 0;
    }
    if (write)
        n = process_vm_writev(pid, local, (unsigned long)nl, remote, (unsigned long)nr, 0);
    else
        n = process_vm_readv(pid, local, (unsigned long)nl, remote, (unsigned long)nr, 0);
    if (n < 0)
        return errno == ESRCH ? ESRCH : EFAULT;
    return (size_t)n == want ? 0 : EFAULT;
}

/* xorshift64*: deterministic under SOFTIB_SEED. */
uint64_t sib_rand(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

void sib_fault_delay(void)
{
    struct timespec ts;

    if (!sib_cfg.delay_us)
        return;
    ts.tv_sec = (time_t)(sib_cfg.delay_us / 1000000);
    ts.tv_nsec = (long)(sib_cfg.delay_us % 1000000) * 1000;
    nanosleep(&ts, NULL);
}

/*
 * Identity of the mapping that holds addr, for when PFNs read as 0 (no
 * CAP_SYS_ADMIN): the VMA bounds, offset, device and inode from
 * /proc/<pid>/maps. Weaker than PFNs: an anonymous mapping replaced by one of
 * the same size at the same address looks the same (see README).
 */
static uint64_t vma_ident(pid_t pid, uint64_t addr)
{
    unsigned long long lo, hi, off, ino;
    char path[64], line[512];
    uint64_t id = 0;
    unsigned mj, mn;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
    f = fopen(path, "re");
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu", &lo, &hi, &off, &mj, &mn, &ino) != 6)
            continue;
        if (addr >= lo && addr < hi) {
            id = (lo * 31 + hi) * 31 + off * 7 + ino + ((uint64_t)mj << 40 | (uint64_t)mn << 32);
            break;
        }
    }
    fclose(f);
    return id | 1;
}

static int page_idents(pid_t pid, uint64_t first, uint64_t n, uint64_t *out)
{
    long pg = sysconf(_SC_PAGESIZE);
    char path[64];
    uint64_t i;
    int fd;

    snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    if (pread(fd, out, n * 8, (off_t)(first / (uint64_t)pg * 8)) != (ssize_t)(n * 8)) {
        close(fd);
        return EIO;
    }
    close(fd);
    for (i = 0; i < n; i++) {
        if ((out[i] & PM_PRESENT) && (out[i] & PM_PFN_MASK))
            out[i] = (out[i] & PM_PFN_MASK) << 1;
        else
            out[i] = vma_ident(pid, first + i * (uint64_t)pg);
    }
    return 0;
}

/*
 * Holds a reference on the registered pages, as an HCA's pin does, by
 * vmsplice()ing them into a pipe: after munmap the old frames cannot be
 * handed out again, so a PFN comparison cannot be fooled by their reuse. A
 * pipe holds at most pipe-max-size bytes unless root: beyond that the pages are
 * recorded but not held (see README).
 */
static int stale_pin(uint64_t first, uint64_t bytes)
{
    struct iovec v = {(void *)first, bytes};
    int fds[2];
    ssize_t n;

    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
        return -1;
    fcntl(fds[1], F_SETPIPE_SZ, (int)(bytes > (1u << 30) ? (1u << 30) : bytes));
    while (v.iov_len) {
        n = vmsplice(fds[1], &v, 1, SPLICE_F_NONBLOCK);
        if (n <= 0)
            break;
        v.iov_base = (char *)v.iov_base + n;
        v.iov_len -= (size_t)n;
    }
    close(fds[1]); /* the read end alone keeps the buffers, and their pages */
    return fds[0];
}

/*
 * Called at registration: fault the pages in and hold them (a real HCA pins
 * them) and note what backs each page so a later access can tell if the
 * memory was replaced. Returns the pin's fd in *pin_p (-1 if none).
 */
int sib_stale_record(struct sib_seg *seg, struct sib_mr_shm *m, int *pin_p)
{
    uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t first = m->uaddr & ~(pg - 1);
    uint64_t n = (m->uaddr + m->len + pg - 1) / pg - first / pg;
    uint64_t off;

    *pin_p = -1;
    if (!m->len)
        return 0;
    if (madvise((void *)first, n * pg, MADV_POPULATE_WRITE) != 0)
        madvise((void *)first, n * pg, MADV_POPULATE_READ);
    off = sib_alloc(seg, n * 8);
    if (!off)
        return ENOMEM;
    if (page_idents(sib_pid(), first, n, sib_at(seg, off)) != 0) {
        sib_free(seg, off, n * 8);
        return EIO;
    }
    m->ident_off = off;
    m->npages = n;
    *pin_p = stale_pin(first, n * pg);
    return 0;
}

static bool stale_loud(const struct sib_mr_shm *m, uint64_t ua)
{
    fprintf(stderr,
            "softib: STALE REGISTRATION: MR key 0x%x (addr 0x%" PRIx64 " len %" PRIu64
            ") accessed at 0x%" PRIx64 ": the memory behind it was unmapped or replaced after "
            "ibv_reg_mr; a real HCA would still access the old pages\n",
            m->key, m->uaddr, m->len, ua);
    return false;
}

/* Compares the pages of [ua, ua + len) with what was recorded at registration. */
bool sib_stale_ok(pid_t pid, struct sib_seg *seg, struct sib_mr_shm *m, uint64_t ua, uint64_t len)
{
    uint64_t pg, base, first, n, i, now[64];
    const uint64_t *rec;

    if (!sib_cfg.stale_check || !m->ident_off || !len)
        return true; /* before sysconf: this runs for every WRITE / READ / atomic */
    pg = (uint64_t)sysconf(_SC_PAGESIZE);
    base = m->uaddr & ~(pg - 1);
    rec = sib_at(seg, m->ident_off);
    first = ua & ~(pg - 1);
    n = (ua + len + pg - 1) / pg - first / pg;
    for (i = 0; i < n; i += 64) {
        uint64_t k = n - i < 64 ? n - i : 64, j;

        if (page_idents(pid, first + i * pg, k, now) != 0)
            return stale_loud(m, ua);
        for (j = 0; j < k; j++)
            if (now[j] != rec[(first - base) / pg + i + j])
                return stale_loud(m, first + (i + j) * pg);
    }
    return true;
}
