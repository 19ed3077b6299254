/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Moving one rank's block through the segment (base/coll_shm.h), for gather_shm.c,
 * allgather_shm.c, scatter_shm.c and alltoall_shm.c (these two at an offset of the packed data):
 * inline through the slot of generation g, or single copy from an address the owner publishes (its
 * buffer when dense, else a packed temporary). Each rank packs and unpacks its own side, since
 * ranks' datatypes need only match in type signature.
 */
#include <stdlib.h>
#include <string.h>

#include "coll_shm.h"
#include "ibex_datatype.h"

void ibex_coll_shm_put_inline(ibex_coll_shm_t *seg, uint64_t g, const void *buf, int count,
                              MPI_Datatype dt)
{
    const ibex_dt_t *d = ibex_dt_get(dt);
    ibex_dt_pack(buf, count, d, 0, ibex_coll_shm_slot(seg, seg->rank, g, (size_t)count * d->size),
                 (size_t)count * d->size);
}

void ibex_coll_shm_get_inline(ibex_coll_shm_t *seg, uint64_t g, int src, void *buf, int count,
                              MPI_Datatype dt)
{
    const ibex_dt_t *d = ibex_dt_get(dt);
    ibex_dt_unpack(buf, count, d, 0, ibex_coll_shm_slot(seg, src, g, (size_t)count * d->size),
                   (size_t)count * d->size);
}

void ibex_coll_shm_get_inline_at(ibex_coll_shm_t *seg, uint64_t g, int src, size_t slot_bytes,
                                 size_t off, void *buf, int count, MPI_Datatype dt)
{
    const ibex_dt_t *d = ibex_dt_get(dt);
    const char *slot = ibex_coll_shm_slot(seg, src, g, slot_bytes);
    ibex_dt_unpack(buf, count, d, 0, slot + off, (size_t)count * d->size);
}

ibex_status_t ibex_coll_shm_publish(ibex_coll_shm_t *seg, const void *buf, int count,
                                    MPI_Datatype dt, void **tmp_p)
{
    const ibex_dt_t *d = ibex_dt_get(dt);
    const char *src = (const char *)buf + d->true_lb;
    *tmp_p = NULL;
    if (!ibex_dt_is_contig(d, count)) {
        size_t bytes = (size_t)count * d->size;
        char *tmp = malloc(bytes ? bytes : 1);
        if (!tmp)
            return IBEX_ERR_NO_MEMORY;
        ibex_dt_pack(buf, count, d, 0, tmp, bytes);
        src = *tmp_p = tmp;
    }
    seg->ctl[seg->rank].saddr = (uint64_t)(uintptr_t)src;
    return IBEX_OK;
}

ibex_status_t ibex_coll_shm_fetch(ibex_coll_shm_t *seg, int src, void *buf, int count,
                                  MPI_Datatype dt)
{
    return ibex_coll_shm_fetch_at(seg, src, 0, buf, count, dt);
}

ibex_status_t ibex_coll_shm_fetch_at(ibex_coll_shm_t *seg, int src, size_t off, void *buf,
                                     int count, MPI_Datatype dt)
{
    return ibex_coll_shm_fetch_addr(seg, src, ibex_coll_shm_load(&seg->ctl[src].saddr) + off, buf,
                                    count, dt);
}

ibex_status_t ibex_coll_shm_fetch_addr(ibex_coll_shm_t *seg, int src, uint64_t addr, void *buf,
                                       int count, MPI_Datatype dt)
{
    const ibex_dt_t *d = ibex_dt_get(dt);
    size_t bytes = (size_t)count * d->size;
    if (ibex_dt_is_contig(d, count))
        return ibex_coll_shm_read(seg, src, addr, (char *)buf + d->true_lb, bytes);
    char *tmp = malloc(bytes ? bytes : 1);
    if (!tmp)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st = ibex_coll_shm_read(seg, src, addr, tmp, bytes);
    if (st == IBEX_OK)
        ibex_dt_unpack(buf, count, d, 0, tmp, bytes);
    free(tmp);
    return st;
}

ibex_status_t ibex_coll_shm_gather_leaf(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                        bool inline_)
{
    if (inline_) {
        ibex_coll_shm_claim(seg, g);
        ibex_coll_shm_put_inline(seg, g, a->sbuf, a->scount, a->sdt);
        ibex_coll_shm_arrive(seg, g);
        return IBEX_OK;
    }
    void *tmp;
    ibex_status_t st = ibex_coll_shm_publish(seg, a->sbuf, a->scount, a->sdt, &tmp);
    if (st != IBEX_OK)
        return st; /* fatal for the job: the root waits for this block */
    ibex_coll_shm_arrive(seg, g);
    ibex_coll_shm_wait(&seg->ctl[a->root].done, g);
    free(tmp);
    return IBEX_OK;
}

ibex_status_t ibex_coll_shm_each_arrived(ibex_coll_shm_t *seg, uint64_t g, ibex_coll_shm_visit_t fn,
                                         void *ctx)
{
    ibex_status_t st = IBEX_OK;
    int left = seg->size - 1;
    bool todo[seg->size]; /* by rank: still to visit */
    for (int r = 0; r < seg->size; r++)
        todo[r] = r != seg->rank;
    while (left > 0) {
        int took = 0;
        for (int i = 1; i < seg->size; i++) {
            int src = (seg->rank + i) % seg->size;
            if (!todo[src] || ibex_coll_shm_load(&seg->ctl[src].arrive) < g)
                continue;
            ibex_status_t rst = fn(seg, src, ctx);
            st = st != IBEX_OK ? st : rst;
            todo[src] = false;
            took++;
        }
        left -= took;
        if (left > 0 && took == 0)
            ibex_coll_shm_wait_any(seg, offsetof(ibex_coll_shm_ctl_t, arrive), g, todo);
    }
    return st;
}
