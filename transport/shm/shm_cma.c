/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * put / get with cross-memory attach: process_vm_writev / readv are the node's RDMA WRITE / READ,
 * one copy from the source process's pages to the destination's, rights checked by the kernel
 * (same user, ptrace read access). They complete before returning, so put / get return IBEX_OK.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ibex_boot.h"
#include "ibex_log.h"
#include "shm.h"

/* Bytes per syscall: large enough to amortise the call, small enough to stay well under the
 * kernel's MAX_RW_COUNT (which would truncate anyway). */
#define SHM_CMA_CHUNK ((size_t)1 << 30)

static ibex_status_t shm_cma_error(ibex_tl_ep_t *ep, bool write, const ibex_tl_rma_t *desc,
                                   size_t done, int err)
{
    const char *op = write ? "put" : "get";
    if (err == ESRCH || !ibex_shm_ep_peer_alive(ep))
        return ibex_shm_ep_fail(ep, op);
    errno = err;
    ibex_error(TL,
               "shm: %s of %zu bytes %s peer rank %d on %s at 0x%llx failed after %zu bytes: "
               "%m%s",
               op, desc->len, write ? "to" : "from", ep->peer, ibex_boot_peer_host(ep->peer),
               (unsigned long long)desc->remote, done,
               err == EPERM ? " (ranks of different users, or ptrace restricted?)" : "");
    return err == EFAULT || err == EPERM ? IBEX_ERR_REMOTE : ibex_status_from_errno(err);
}

/* One batch: at most IOV_MAX local pieces against the remote range they add up to. */
static ssize_t shm_cma_batch(ibex_tl_ep_t *ep, struct iovec *liov, int n, uint64_t remote,
                             bool write)
{
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += liov[i].iov_len;
    struct iovec riov = {.iov_base = (void *)(uintptr_t)remote, .iov_len = total};
    return write ? process_vm_writev(ep->pid, liov, (unsigned long)n, &riov, 1, 0)
                 : process_vm_readv(ep->pid, liov, (unsigned long)n, &riov, 1, 0);
}

/* Steps the local pieces past `done` bytes (a partial transfer stops anywhere). */
static void shm_cma_advance(struct iovec **iov_p, int *cnt_p, size_t done)
{
    struct iovec *iov = *iov_p;
    int cnt = *cnt_p;
    while (cnt > 0 && done >= iov->iov_len) {
        done -= iov->iov_len;
        iov++, cnt--;
    }
    if (cnt > 0 && done) {
        iov->iov_base = (char *)iov->iov_base + done;
        iov->iov_len -= done;
    }
    *iov_p = iov, *cnt_p = cnt;
}

/* The local side as pieces (the caller's copy: partial transfers trim it), remote contiguous.
 * The remote side stays one range on purpose: the kernel pins remote pages per remote piece,
 * while local pieces cost it only an iterator step. */
static ibex_status_t shm_cma_xfer_iov(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc,
                                      struct iovec *iov, int cnt, bool write)
{
    uint64_t remote = desc->remote;
    size_t left = desc->len;
    while (cnt > 0 && left > 0) {
        int n = cnt < IOV_MAX ? cnt : IOV_MAX;
        ssize_t got = shm_cma_batch(ep, iov, n, remote, write);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return shm_cma_error(ep, write, desc, desc->len - left, got < 0 ? errno : EFAULT);
        shm_cma_advance(&iov, &cnt, (size_t)got);
        remote += (uint64_t)got;
        left -= (size_t)got;
    }
    return IBEX_OK;
}

static void shm_cma_self_iov(const ibex_tl_rma_t *desc, bool write)
{
    char *remote = (char *)(uintptr_t)desc->remote;
    for (int i = 0; i < desc->local_iovcnt; i++) {
        const struct iovec *v = &desc->local_iov[i];
        if (write)
            memcpy(remote, v->iov_base, v->iov_len);
        else
            memcpy(v->iov_base, remote, v->iov_len);
        remote += v->iov_len;
    }
}

/* The original single-range path: chunks of at most SHM_CMA_CHUNK bytes. */
static ibex_status_t shm_cma_xfer_contig(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc, bool write)
{
    char *local = desc->local;
    uint64_t remote = desc->remote;
    size_t left = desc->len;
    while (left > 0) {
        size_t chunk = left < SHM_CMA_CHUNK ? left : SHM_CMA_CHUNK;
        struct iovec liov = {.iov_base = local, .iov_len = chunk};
        struct iovec riov = {.iov_base = (void *)(uintptr_t)remote, .iov_len = chunk};
        ssize_t n = write ? process_vm_writev(ep->pid, &liov, 1, &riov, 1, 0)
                          : process_vm_readv(ep->pid, &liov, 1, &riov, 1, 0);
        if (n > 0) { /* partial transfers happen (a fault inside the range): continue */
            local += n;
            remote += (uint64_t)n;
            left -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            return shm_cma_error(ep, write, desc, desc->len - left, n < 0 ? errno : EFAULT);
        }
    }
    return IBEX_OK;
}

/* IOV_MAX pieces at a time, so the copy that partial transfers trim stays on the stack. */
static ibex_status_t shm_cma_xfer_iovs(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc, bool write)
{
    struct iovec copy[IOV_MAX];
    const struct iovec *src = desc->local_iov;
    ibex_status_t st = IBEX_OK;
    size_t base = 0;
    for (int i = 0; i < desc->local_iovcnt && st == IBEX_OK; i += IOV_MAX) {
        int n = desc->local_iovcnt - i < IOV_MAX ? desc->local_iovcnt - i : IOV_MAX;
        size_t bytes = 0;
        for (int k = 0; k < n; k++)
            copy[k] = src[i + k], bytes += src[i + k].iov_len;
        ibex_tl_rma_t part = *desc;
        part.remote = desc->remote + base;
        part.len = bytes;
        st = shm_cma_xfer_iov(ep, &part, copy, n, write);
        base += bytes;
    }
    return st;
}

static ibex_status_t shm_cma_xfer(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc, bool write)
{
    if (ep->is_self && desc->local_iov) {
        shm_cma_self_iov(desc, write);
        return IBEX_OK;
    }
    if (ep->is_self) {
        if (write)
            memcpy((void *)(uintptr_t)desc->remote, desc->local, desc->len);
        else
            memcpy(desc->local, (const void *)(uintptr_t)desc->remote, desc->len);
        return IBEX_OK;
    }
    if (ep->failed)
        return IBEX_ERR_PEER_FAILED;
    return desc->local_iov ? shm_cma_xfer_iovs(ep, desc, write)
                           : shm_cma_xfer_contig(ep, desc, write);
}

ibex_status_t ibex_shm_cma_put(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc)
{
    return shm_cma_xfer(ep, desc, true);
}

ibex_status_t ibex_shm_cma_get(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc)
{
    return shm_cma_xfer(ep, desc, false);
}

/* Yama's ptrace_scope 1 lets a process read another's memory only if it is a descendant or was
 * named by the target: name every process of ours (what Open MPI's vader does). Scope 2 and 3
 * forbid it whatever we do; the probe below cannot see that (a process may always read itself). */
static bool shm_cma_yama_allows(void)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    int scope = 0;
    if (!f)
        return true; /* no Yama */
    if (fscanf(f, "%d", &scope) != 1)
        scope = 0;
    fclose(f);
    if (scope == 1)
        prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    return scope <= 1;
}

bool ibex_shm_cma_probe(void)
{
    if (!shm_cma_yama_allows())
        return false;

    char src[8] = "cmaprob", dst[8] = {0};
    struct iovec liov = {.iov_base = dst, .iov_len = sizeof(dst)};
    struct iovec riov = {.iov_base = src, .iov_len = sizeof(src)};
    return process_vm_readv(getpid(), &liov, 1, &riov, 1, 0) == (ssize_t)sizeof(src) &&
           memcmp(src, dst, sizeof(src)) == 0;
}
