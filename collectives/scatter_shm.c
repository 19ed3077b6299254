/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scatter in the communicator's shared segment (base/coll_shm.h, base/coll_shm_data.c).
 *
 * All p blocks together up to IBEX_COLL_SHM_INLINE bytes: the root packs them, in rank order,
 * into its slot of generation g and publishes arrive = g; every leaf publishes arrive = g too
 * (it has finished g - 1, so the root may reuse its slot at g + 2), waits for the root's flag
 * and unpacks its block. The root returns at once. Cost: p n beta at the root, n beta at a
 * leaf + one flag latency, against (p - 1) (alpha + n beta) for the linear scatter.
 *
 * Larger: the root publishes its send buffer's address (a packed copy when the type is not
 * dense); each leaf reads its own block with process_vm_readv straight into its receive
 * buffer and sets done = g; the root returns once every leaf is done. Cost: n beta per leaf,
 * all at once, + one system call + two flag latencies.
 */
#include <stdlib.h>

#include "coll_shm.h"
#include "ibex_datatype.h"

static ibex_status_t scatter_root(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                  bool inline_)
{
    ibex_status_t st = IBEX_OK;
    void *tmp = NULL;
    int all = a->scount * seg->size;
    if (inline_) {
        ibex_coll_shm_claim(seg, g);
        ibex_coll_shm_put_inline(seg, g, a->sbuf, all, a->sdt);
    } else if ((st = ibex_coll_shm_publish(seg, a->sbuf, all, a->sdt, &tmp)) != IBEX_OK) {
        return st; /* fatal for the job: the leaves wait for the blocks */
    }
    ibex_coll_shm_arrive(seg, g);
    if (a->rbuf != MPI_IN_PLACE) {
        void *mine = ibex_coll_block(a->sbuf, a->sdt, (size_t)seg->rank * (size_t)a->scount);
        st = ibex_coll_copy(mine, a->scount, a->sdt, a->rbuf, a->rcount, a->rdt);
    }
    if (!inline_) {
        ibex_coll_shm_wait_all(seg, offsetof(ibex_coll_shm_ctl_t, done), g);
        free(tmp);
    }
    return st;
}

static ibex_status_t scatter_leaf(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                  size_t bytes, bool inline_)
{
    ibex_coll_shm_arrive(seg, g);
    ibex_coll_shm_wait(&seg->ctl[a->root].arrive, g);
    size_t off = (size_t)seg->rank * bytes;
    if (inline_) {
        ibex_coll_shm_get_inline_at(seg, g, a->root, bytes * (size_t)seg->size, off, a->rbuf,
                                    a->rcount, a->rdt);
        return IBEX_OK;
    }
    ibex_status_t st = ibex_coll_shm_fetch_at(seg, a->root, off, a->rbuf, a->rcount, a->rdt);
    ibex_coll_shm_set(&seg->ctl[seg->rank].done, g); /* even after a failure: free the root */
    return st;
}

ibex_status_t ibex_coll_scatter_shm(const ibex_coll_args_t *args)
{
    bool root = args->comm->rank == args->root;
    size_t bytes = root ? (size_t)args->scount * ibex_dt_get(args->sdt)->size
                        : (size_t)args->rcount * ibex_dt_get(args->rdt)->size;
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(args->comm, &seg);
    if (st != IBEX_OK)
        return st;
    size_t total = bytes * (size_t)args->comm->size;
    if (!seg || (total > seg->slot_size && !seg->cma))
        return ibex_coll_fallback(IBEX_COLL_SCATTER, args, bytes);
    uint64_t g = ibex_coll_shm_begin(seg);
    bool inline_ = ibex_coll_shm_goes_inline(seg, total);
    return root ? scatter_root(seg, g, args, inline_) : scatter_leaf(seg, g, args, bytes, inline_);
}
