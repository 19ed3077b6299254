/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared segments. Each process keeps its receive rings in an anonymous memfd: nothing is ever
 * created in /dev/shm, so nothing can be left behind when a rank is killed; the memory goes away
 * with the last mapping. A sender opens the segment through /proc/<pid>/fd/<fd> (same user or
 * root), or with pidfd_getfd when /proc is not usable, checks the header against the cookie of
 * the published address (a recycled pid cannot fool it), maps only its own ring and closes the fd.
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

size_t ibex_shm_seg_ring_offset(const ibex_shm_seg_hdr_t *hdr, int idx)
{
    return hdr->ring_offset + (size_t)idx * hdr->ring_stride;
}

static void seg_fill_hdr(struct ibex_tl *tl, ibex_shm_seg_hdr_t *hdr, size_t stride, size_t size)
{
    hdr->cookie = tl->cookie;
    hdr->nrings = (uint32_t)tl->local_size;
    hdr->nslots = tl->nslots;
    hdr->slot_size = tl->slot_size;
    hdr->ring_offset = page_size();
    hdr->ring_stride = stride;
    hdr->seg_size = size;
    /* Written last: a reader that sees the magic sees the rest. */
    __atomic_store_n(&hdr->magic, IBEX_SHM_SEG_MAGIC, __ATOMIC_RELEASE);
}

ibex_status_t ibex_shm_seg_create(struct ibex_tl *tl)
{
    size_t stride = ibex_shm_ring_bytes(tl->nslots, tl->slot_size, page_size());
    size_t size = page_size() + (size_t)tl->local_size * stride;
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
        ibex_error(TL, "shm: sizing the %zu-byte ring segment failed: %m", size);
        goto err_close;
    }
    void *seg = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (seg == MAP_FAILED) {
        ibex_error(TL, "shm: mapping the %zu-byte ring segment failed: %m", size);
        goto err_close;
    }
    tl->memfd = fd;
    tl->seg = seg;
    tl->hdr = seg;
    seg_fill_hdr(tl, seg, stride, size);
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
    if (hdr->nslots != tl->nslots || hdr->slot_size != tl->slot_size ||
        hdr->nrings != (uint32_t)tl->local_size) {
        ibex_error(TL,
                   "shm: peer rank %d on %s has rings of %u x %llu bytes for %u ranks, we "
                   "have %u x %zu for %d: IBEX_SHM_* must be equal on every rank",
                   peer, ibex_boot_peer_host(peer), hdr->nslots, (unsigned long long)hdr->slot_size,
                   hdr->nrings, tl->nslots, tl->slot_size, tl->local_size);
        return IBEX_ERR_INVALID;
    }
    struct stat st;
    if (!ibex_shm_geometry_ok(hdr->ring_offset, hdr->ring_stride, hdr->nrings, hdr->seg_size,
                              ibex_shm_ring_bytes(tl->nslots, tl->slot_size, page_size()),
                              page_size()) ||
        fstat(fd, &st) != 0 || (uint64_t)st.st_size < hdr->seg_size) {
        ibex_error(TL,
                   "shm: the segment of peer rank %d on %s has a broken layout (rings at %llu, "
                   "%llu apart, %llu bytes): not connecting to it",
                   peer, ibex_boot_peer_host(peer), (unsigned long long)hdr->ring_offset,
                   (unsigned long long)hdr->ring_stride, (unsigned long long)hdr->seg_size);
        return IBEX_ERR_INVALID;
    }
    return IBEX_OK;
}

ibex_status_t ibex_shm_seg_attach(struct ibex_tl *tl, int peer, const ibex_shm_addr_t *addr,
                                  int pidfd, void **map_p, size_t *len_p)
{
    ibex_shm_seg_hdr_t hdr;
    int fd = seg_open_peer(peer, addr, pidfd);
    if (fd < 0)
        return IBEX_ERR_UNREACHABLE; /* the caller tells a dead peer from a bad address */
    ibex_status_t status = seg_check_hdr(tl, peer, fd, addr, &hdr);
    if (status != IBEX_OK)
        goto out_close;
    /* Only our own ring, populated now: the first messages take no page faults. */
    void *map = mmap(NULL, hdr.ring_stride, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
                     (off_t)ibex_shm_seg_ring_offset(&hdr, tl->local_rank));
    if (map == MAP_FAILED) {
        ibex_error(TL, "shm: mapping our ring in the segment of peer rank %d on %s failed: %m",
                   peer, ibex_boot_peer_host(peer));
        status = IBEX_ERR_NO_MEMORY;
        goto out_close;
    }
    *map_p = map;
    *len_p = hdr.ring_stride;
out_close:
    close(fd);
    return status;
}
