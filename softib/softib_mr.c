/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib protection domains and memory regions. The MR table lives in the
 * context's shared segment so an initiator in another process checks our
 * rkeys, bounds and access flags itself, as a responder HCA would.
 */
#include "softib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SIB_ACCESS_OK                                                                              \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |                   \
     IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND | IBV_ACCESS_RELAXED_ORDERING)

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
    struct sib_ctx *c = sib_ctx_of(context);
    struct sib_pd *pd = calloc(1, sizeof(*pd));

    if (!pd) {
        errno = ENOMEM;
        return NULL;
    }
    pd->ibv.context = context;
    sib_lock(&c->seg->alloc_lock);
    pd->handle = c->seg->pd_next++;
    sib_unlock(&c->seg->alloc_lock);
    pd->ibv.handle = pd->handle;
    return &pd->ibv;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
    struct sib_seg *seg = sib_ctx_of(pd->context)->seg;
    struct sib_qp *q;
    int i;

    /* A PD still holding MRs, QPs or address handles is busy, as on a real device. */
    if (atomic_load(&((struct sib_pd *)pd)->nah))
        return EBUSY;
    for (i = 0; i < SIB_MAX_MR; i++)
        if (atomic_load(&seg->mr[i].valid) && seg->mr[i].pd == pd->handle)
            return EBUSY;
    for (q = sib_ctx_of(pd->context)->qps; q; q = q->next)
        if (q->ibv.pd == pd)
            return EBUSY;
    free(pd);
    return 0;
}

struct sib_mr_shm *sib_mr_find(struct sib_seg *seg, uint32_t key)
{
    uint32_t idx = key >> 8;
    struct sib_mr_shm *m;

    if (idx >= SIB_MAX_MR)
        return NULL;
    m = &seg->mr[idx];
    if (!atomic_load_explicit(&m->valid, memory_order_acquire) || m->key != key)
        return NULL;
    return m;
}

int sib_mr_check(struct sib_seg *seg, pid_t pid, const struct sib_mr_shm *mr, uint64_t addr,
                 uint64_t len, uint32_t access, uint64_t *ua_p)
{
    if (addr < mr->iova || len > mr->len || addr - mr->iova > mr->len - len)
        return EFAULT;
    if ((mr->access & access) != access)
        return EACCES;
    *ua_p = mr->uaddr + (addr - mr->iova);
    /* the flag first: the check's frame costs more than the rest of this function */
    if (sib_cfg.stale_check && !sib_stale_ok(pid, seg, (struct sib_mr_shm *)mr, *ua_p, len))
        return EFAULT;
    return 0;
}

static int access_valid(unsigned int access)
{
    if (access & ~(unsigned)SIB_ACCESS_OK)
        return EINVAL;
    if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
        !(access & IBV_ACCESS_LOCAL_WRITE))
        return EINVAL;
    return 0;
}

/* A real registration pins pages: unmapped memory fails with EFAULT. */
static int range_mapped(void *addr, size_t len)
{
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)addr & ~(pg - 1);

    if (!len)
        return 0;
    return msync((void *)lo, (uintptr_t)addr + len - lo, MS_ASYNC) == 0 ? 0 : EFAULT;
}

static int mr_slot(struct sib_seg *seg)
{
    int i;

    sib_lock(&seg->alloc_lock);
    for (i = 0; i < SIB_MAX_MR; i++) {
        if (!atomic_load(&seg->mr[i].valid) && !seg->mr[i].key)
            break;
    }
    if (i < SIB_MAX_MR)
        seg->mr[i].key = ((uint32_t)i << 8) | (seg->mr_gen++ & 0xff) | (i == 0);
    sib_unlock(&seg->alloc_lock);
    return i < SIB_MAX_MR ? i : -1;
}

static int mr_fill(struct sib_seg *seg, struct sib_mr_shm *m, struct ibv_pd *pd, void *addr,
                   size_t length, uint64_t iova, unsigned int access, int *pin_p)
{
    m->pd = pd->handle;
    m->access = access;
    m->iova = iova;
    m->uaddr = (uintptr_t)addr;
    m->len = length;
    m->ident_off = 0;
    *pin_p = -1;
    if (sib_cfg.stale_check)
        return sib_stale_record(seg, m, pin_p);
    return 0;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
                                unsigned int access)
{
    struct sib_seg *seg = sib_ctx_of(pd->context)->seg;
    struct sib_mr *mr;
    int rc, idx;

    rc = access_valid(access);
    if (!rc)
        rc = range_mapped(addr, length);
    mr = rc ? NULL : calloc(1, sizeof(*mr));
    idx = mr ? mr_slot(seg) : -1;
    if (idx < 0) {
        free(mr);
        errno = rc ? rc : ENOMEM;
        return NULL;
    }
    rc = mr_fill(seg, &seg->mr[idx], pd, addr, length, iova, access, &mr->pin);
    if (rc) {
        seg->mr[idx].key = 0;
        free(mr);
        errno = rc;
        return NULL;
    }
    atomic_store_explicit(&seg->mr[idx].valid, 1, memory_order_release);
    mr->idx = idx;
    mr->ibv = (struct ibv_mr){.context = pd->context,
                              .pd = pd,
                              .addr = addr,
                              .length = length,
                              .handle = (uint32_t)idx,
                              .lkey = seg->mr[idx].key,
                              .rkey = seg->mr[idx].key};
    sib_log("reg_mr key 0x%x addr %p len %zu access 0x%x", mr->ibv.lkey, addr, length, access);
    return &mr->ibv;
}

#undef ibv_reg_mr
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
    return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

#undef ibv_reg_mr_iova
struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
                               int access)
{
    return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

static void mr_release(struct sib_seg *seg, struct sib_mr_shm *m)
{
    atomic_store_explicit(&m->valid, 0, memory_order_release);
    if (m->ident_off)
        sib_free(seg, m->ident_off, m->npages * 8);
    m->ident_off = 0;
    sib_lock(&seg->alloc_lock);
    m->key = 0;
    sib_unlock(&seg->alloc_lock);
}

int ibv_dereg_mr(struct ibv_mr *ibmr)
{
    struct sib_mr *mr = (struct sib_mr *)ibmr;
    struct sib_seg *seg = sib_ctx_of(ibmr->context)->seg;

    sib_log("dereg_mr key 0x%x", ibmr->lkey);
    mr_release(seg, &seg->mr[mr->idx]);
    if (mr->pin >= 0)
        close(mr->pin);
    free(mr);
    return 0;
}

int ibv_rereg_mr(struct ibv_mr *ibmr, int flags, struct ibv_pd *pd, void *addr, size_t length,
                 int access)
{
    struct sib_seg *seg = sib_ctx_of(ibmr->context)->seg;
    struct sib_mr_shm *m = &seg->mr[((struct sib_mr *)ibmr)->idx];

    if (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED || !flags)
        return IBV_REREG_MR_ERR_INPUT;
    if ((flags & IBV_REREG_MR_CHANGE_ACCESS) && access_valid((unsigned)access))
        return IBV_REREG_MR_ERR_INPUT;
    if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) && range_mapped(addr, length))
        return IBV_REREG_MR_ERR_INPUT;
    atomic_store(&m->valid, 0);
    if (flags & IBV_REREG_MR_CHANGE_PD) {
        m->pd = pd->handle;
        ibmr->pd = pd;
    }
    if (flags & IBV_REREG_MR_CHANGE_ACCESS)
        m->access = (uint32_t)access;
    if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
        m->uaddr = m->iova = (uintptr_t)addr;
        m->len = length;
        ibmr->addr = addr;
        ibmr->length = length;
    }
    if (m->ident_off)
        sib_free(seg, m->ident_off, m->npages * 8);
    m->ident_off = 0;
    if (((struct sib_mr *)ibmr)->pin >= 0)
        close(((struct sib_mr *)ibmr)->pin);
    ((struct sib_mr *)ibmr)->pin = -1;
    if (sib_cfg.stale_check && sib_stale_record(seg, m, &((struct sib_mr *)ibmr)->pin) != 0)
        return IBV_REREG_MR_ERR_CMD;
    atomic_store(&m->valid, 1);
    return 0;
}
