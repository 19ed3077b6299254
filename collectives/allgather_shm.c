/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allgather in the communicator's shared segment (base/coll_shm.h, base/coll_shm_data.c).
 *
 * Blocks up to IBEX_COLL_SHM_INLINE bytes: every rank packs its block into its slot of
 * generation g and publishes arrive = g, then copies every other block out as its flag
 * appears. Cost: n beta + (p - 1) n beta (cache to cache) + one flag latency, against
 * (p - 1) (alpha + n beta) for the ring.
 *
 * Larger, or at two ranks with a core each past IBEX_COLL_SHM_PAIR_INLINE (8 KiB; 64 KiB at
 * two ranks: 5.3 us single copy against 13 inline, Open MPI 5.5, quiet machine in its slower
 * mode, collectives/README.md "Two-rank defaults"): every rank publishes its block's address (its
 * send buffer, or its own block of the receive buffer in place) and reads every other block with
 * process_vm_readv straight into its receive buffer, starting after itself so the ranks read from
 * different peers at once; done = g when it has read all, and it returns when every rank is done.
 * Cost: (p - 1) n beta per rank, all ranks at once, + p - 1 system calls + two flag latencies.
 */
#include <stdlib.h>

#include "coll_shm.h"
#include "ibex_datatype.h"

static ibex_status_t collect(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                             bool inline_)
{
    ibex_status_t st = IBEX_OK;
    for (int i = 1; i < seg->size && st == IBEX_OK; i++) {
        int src = (seg->rank + i) % seg->size;
        void *block = ibex_coll_block(a->rbuf, a->rdt, (size_t)src * (size_t)a->rcount);
        ibex_coll_shm_wait(&seg->ctl[src].arrive, g);
        if (inline_)
            ibex_coll_shm_get_inline(seg, g, src, block, a->rcount, a->rdt);
        else
            st = ibex_coll_shm_fetch(seg, src, block, a->rcount, a->rdt);
    }
    return st;
}

ibex_status_t ibex_coll_allgather_shm(const ibex_coll_args_t *a)
{
    size_t bytes = (size_t)a->rcount * ibex_dt_get(a->rdt)->size;
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(a->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg || (bytes > seg->slot_size && !seg->cma))
        return ibex_coll_fallback(IBEX_COLL_ALLGATHER, a, bytes);
    uint64_t g = ibex_coll_shm_begin(seg);
    bool inline_ = ibex_coll_shm_goes_inline(seg, bytes), inplace = a->sbuf == MPI_IN_PLACE;
    void *mine = ibex_coll_block(a->rbuf, a->rdt, (size_t)seg->rank * (size_t)a->rcount),
         *tmp = NULL;
    const void *src = inplace ? mine : a->sbuf;
    int count = inplace ? a->rcount : a->scount;
    MPI_Datatype dt = inplace ? a->rdt : a->sdt;
    if (inline_) {
        ibex_coll_shm_claim(seg, g);
        ibex_coll_shm_put_inline(seg, g, src, count, dt);
    } else if ((st = ibex_coll_shm_publish(seg, src, count, dt, &tmp)) != IBEX_OK) {
        return st; /* fatal for the job: the others wait for this block */
    }
    ibex_coll_shm_arrive(seg, g);
    st = collect(seg, g, a, inline_);
    if (!inline_) {
        ibex_coll_shm_set(&seg->ctl[seg->rank].done, g);
        ibex_coll_shm_wait_all(seg, offsetof(ibex_coll_shm_ctl_t, done), g);
        free(tmp);
    } else {
        seg->all_seen = g;
    }
    if (st == IBEX_OK && !inplace)
        st = ibex_coll_copy(a->sbuf, a->scount, a->sdt, mine, a->rcount, a->rdt);
    return st;
}
