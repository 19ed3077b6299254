/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared segments. Each process keeps its queue, fast boxes and fragment pool in an anonymous
 * memfd: nothing is ever created in /dev/shm, so nothing can be left behind when a rank is killed;
 * the memory goes away with the last mapping. A peer opens the segment through /proc/<pid>/fd/<fd>
 * (same user or root), or with pidfd_getfd when /proc is not usable, checks the header against
 * the cookie of the published address (a recycled pid cannot fool it) and against the layout it
 * would make itself, maps it and closes the fd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ibex_boot.h"
#include "ibex_log.h"
#include "shm.h"

static size_t page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

static uint64_t round_up(uint64_t v, uint64_t to)
{
    return (v + to - 1) / to * to;
}

void ibex_shm_seg_layout(const struct ibex_tl *tl, ibex_shm_seg_hdr_t *hdr)
{
    uint64_t page = page_size();
    *hdr = (ibex_shm_seg_hdr_t){.nranks = (uint32_t)tl->local_size,
                                .nboxes = tl->nboxes,
                                .nslots = tl->nslots,
                                .ncells = tl->ncells,
                                .nfrags = tl->nfrags,
                                .slot_size = tl->slot_size};
    hdr->table_offset = round_up(sizeof(*hdr), IBEX_SHM_CTL_ALIGN);
    uint64_t table_end = hdr->table_offset + (uint64_t)tl->local_size * sizeof(ibex_shm_addr_t);
    hdr->fifo_offset = round_up(table_end, page);
    uint64_t fifo_bytes =
        sizeof(ibex_shm_fifo_ctl_t) + (uint64_t)tl->ncells * sizeof(ibex_shm_cell_t);
    hdr->box_offset = round_up(hdr->fifo_offset + fifo_bytes, page);
    hdr->box_stride = ibex_shm_ring_bytes(tl->nslots, tl->slot_stride, page);
    hdr->pool_offset = hdr->box_offset + (uint64_t)tl->nboxes * hdr->box_stride;
    hdr->seg_size = round_up(hdr->pool_offset + (uint64_t)tl->nfrags * tl->slot_stride, page);
}

/* Writes the header (magic last: a reader that sees it sees the rest) and the empty queue. */
static void seg_init(struct ibex_tl *tl, void *seg, const ibex_shm_seg_hdr_t *layout)
{
    ibex_shm_seg_hdr_t *hdr = seg;
    *hdr = *layout;
    hdr->magic = 0;
    hdr->cookie = tl->cookie;
    tl->fifo = ibex_shm_seg_at(seg, layout->fifo_offset);
    tl->fifo_mask = tl->ncells - 1;
    ibex_shm_fifo_init(tl->fifo, tl->ncells);
    tl->pool = ibex_shm_seg_at(seg, layout->pool_offset);
    __atomic_store_n(&hdr->magic, IBEX_SHM_SEG_MAGIC, __ATOMIC_RELEASE);
}

ibex_status_t ibex_shm_seg_create(struct ibex_tl *tl)
{
    ibex_shm_seg_hdr_t layout;
    ibex_shm_seg_layout(tl, &layout);
    size_t size = layout.seg_size;
    if (getrandom(&tl->cookie, sizeof(tl->cookie), 0) != sizeof(tl->cookie)) {
        ibex_error(TL, "shm: getrandom for the segment cookie failed: %m");
        return IBEX_ERR_IO;
    }
    int fd = memfd_create("ibex-shm", MFD_CLOEXEC);
    if (fd < 0) {
        ibex_error(TL, "shm: memfd_create failed: %m");
        return ibex_status_from_errno(errno);
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        ibex_error(TL, "shm: sizing the %zu-byte segment failed: %m", size);
        goto err_close;
    }
    /* populated now: the segment is this rank's whole shared memory, whatever the node size */
    void *seg = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (seg == MAP_FAILED) {
        ibex_error(TL, "shm: mapping the %zu-byte segment failed: %m", size);
        goto err_close;
    }
    tl->memfd = fd;
    tl->seg = seg;
    tl->hdr = seg;
    seg_init(tl, seg, &layout);
    return IBEX_OK;

err_close:
    close(fd);
    return IBEX_ERR_NO_MEMORY;
}

void ibex_shm_seg_destroy(struct ibex_tl *tl)
{
    if (tl->seg)
        munmap(tl->seg, tl->hdr->seg_size);
    if (tl->memfd >= 0)
        close(tl->memfd);
    tl->seg = NULL;
    tl->memfd = -1;
}

/* Gets our own descriptor for the peer's segment. */
static int seg_open_peer(int peer, const ibex_shm_addr_t *addr, int pidfd)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)addr->pid, (int)addr->fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd >= 0)
        return fd;
    int open_errno = errno;
    if (pidfd >= 0) {
        fd = (int)syscall(SYS_pidfd_getfd, pidfd, addr->fd, 0);
        if (fd >= 0)
            return fd;
    }
    errno = open_errno;
    ibex_error(TL,
               "shm: cannot open the ring segment of peer rank %d on %s (%s: %m; is it "
               "running as another user?)",
               peer, ibex_boot_peer_host(peer), path);
    return -1;
}

/* Whether a header a peer wrote is the layout we would make (every IBEX_SHM_* equal), inside a
 * file of file_size bytes (issue 16: a header that lies must not make us map or write past it). */
static bool seg_layout_ok(const ibex_shm_seg_hdr_t *got, const ibex_shm_seg_hdr_t *want,
                          uint64_t file_size)
{
    return got->nranks == want->nranks && got->nboxes == want->nboxes &&
           got->nslots == want->nslots && got->ncells == want->ncells &&
           got->nfrags == want->nfrags && got->slot_size == want->slot_size &&
           got->table_offset == want->table_offset && got->fifo_offset == want->fifo_offset &&
           got->box_stride == want->box_stride && got->box_offset == want->box_offset &&
           got->pool_offset == want->pool_offset && got->seg_size == want->seg_size &&
           file_size >= got->seg_size;
}

static ibex_status_t seg_check_hdr(struct ibex_tl *tl, int peer, int fd,
                                   const ibex_shm_addr_t *addr, ibex_shm_seg_hdr_t *hdr)
{
    if (pread(fd, hdr, sizeof(*hdr), 0) != (ssize_t)sizeof(*hdr) ||
        hdr->magic != IBEX_SHM_SEG_MAGIC || hdr->cookie != addr->cookie ||
        hdr->seg_size != addr->seg_size) {
        ibex_error(TL,
                   "shm: the segment of peer rank %d on %s (pid %d fd %d) is not the one it "
                   "published (process gone and its pid reused?)",
                   peer, ibex_boot_peer_host(peer), (int)addr->pid, (int)addr->fd);
        return IBEX_ERR_PEER_FAILED;
    }
    ibex_shm_seg_hdr_t want;
    ibex_shm_seg_layout(tl, &want);
    struct stat st;
    if (fstat(fd, &st) != 0 || !seg_layout_ok(hdr, &want, (uint64_t)st.st_size)) {
        ibex_error(TL,
                   "shm: peer rank %d on %s has a segment of %u boxes x %u slots x %llu bytes, "
                   "%u cells, %u fragments for %u ranks (%llu bytes); we have %u x %u x %zu, %u, "
                   "%u for %d: IBEX_SHM_* must be equal on every rank",
                   peer, ibex_boot_peer_host(peer), hdr->nboxes, hdr->nslots,
                   (unsigned long long)hdr->slot_size, hdr->ncells, hdr->nfrags, hdr->nranks,
                   (unsigned long long)hdr->seg_size, tl->nboxes, tl->nslots, tl->slot_size,
                   tl->ncells, tl->nfrags, tl->local_size);
        return IBEX_ERR_INVALID;
    }
    return IBEX_OK;
}

ibex_status_t ibex_shm_seg_map_peer(struct ibex_tl *tl, int idx, const ibex_shm_addr_t *addr,
                                    int pidfd, uint64_t offset, uint64_t len, void **map_p)
{
    int peer = tl->local_peers[idx];
    ibex_shm_seg_hdr_t hdr;
    int fd = seg_open_peer(peer, addr, pidfd);
    if (fd < 0)
        return IBEX_ERR_UNREACHABLE; /* the caller tells a dead peer from a bad address */
    ibex_status_t status = seg_check_hdr(tl, peer, fd, addr, &hdr);
    if (status != IBEX_OK)
        goto out_close;
    /* populated: the owner touched every page already, so this only fills our page tables */
    void *map =
        mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, (off_t)offset);
    if (map == MAP_FAILED) {
        ibex_error(TL, "shm: mapping %llu bytes of the segment of peer rank %d on %s failed: %m",
                   (unsigned long long)len, peer, ibex_boot_peer_host(peer));
        status = IBEX_ERR_NO_MEMORY;
        goto out_close;
    }
    *map_p = map;
out_close:
    close(fd);
    return status;
}
