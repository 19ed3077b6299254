/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Alltoall in the communicator's shared segment (base/coll_shm.h, base/coll_shm_data.c).
 *
 * All p blocks of a rank together up to IBEX_COLL_SHM_INLINE bytes: every rank packs its p
 * blocks, in rank order, into its slot of generation g and publishes arrive = g, then copies
 * block `rank` out of every other rank's slot as its flag appears, starting after itself so
 * the ranks read different peers at once. No message, no matching, no rendezvous: one flag per
 * peer. Cost: p n beta + (p - 1) n beta (cache to cache) + one flag latency per peer, against
 * (p - 1) (alpha + n beta) for pairwise exchange, whose p - 1 rounds each wait for a peer that
 * may not have a core when ranks outnumber cores.
 *
 * Larger: every rank publishes its send buffer's address (a packed copy when the type is not
 * dense or under MPI_IN_PLACE, since the receive buffer is overwritten while others read it)
 * and reads its block of every other rank with process_vm_readv straight into its receive
 * buffer; done = g when it has read all, and it returns when every rank is done. Cost:
 * (p - 1) n beta per rank, all ranks at once, + p - 1 system calls + two flag latencies.
 */
#include <stdlib.h>

#include "coll_shm.h"
#include "ibex_datatype.h"

static ibex_status_t collect(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                             size_t bytes, bool inline_)
{
    ibex_status_t st = IBEX_OK;
    size_t off = (size_t)seg->rank * bytes;
    for (int i = 1; i < seg->size && st == IBEX_OK; i++) {
        int src = (seg->rank + i) % seg->size;
        void *block = ibex_coll_block(a->rbuf, a->rdt, (size_t)src * (size_t)a->rcount);
        ibex_coll_shm_wait(&seg->ctl[src].arrive, g);
        if (inline_)
            ibex_coll_shm_get_inline_at(seg, g, src, bytes * (size_t)seg->size, off, block,
                                        a->rcount, a->rdt);
        else
            st = ibex_coll_shm_fetch_at(seg, src, off, block, a->rcount, a->rdt);
    }
    return st;
}

/* The bytes others read from this rank: the send buffer, or under MPI_IN_PLACE a packed copy
 * of the receive buffer (*tmp_p, to free). */
static ibex_status_t publish(ibex_coll_shm_t *seg, const ibex_coll_args_t *a, void **tmp_p)
{
    int all = a->rcount * seg->size;
    if (a->sbuf != MPI_IN_PLACE)
        return ibex_coll_shm_publish(seg, a->sbuf, a->scount * seg->size, a->sdt, tmp_p);
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    size_t total = (size_t)all * d->size;
    char *tmp = malloc(total ? total : 1);
    if (!tmp)
        return IBEX_ERR_NO_MEMORY;
    ibex_dt_pack(a->rbuf, all, d, 0, tmp, total);
    seg->ctl[seg->rank].saddr = (uint64_t)(uintptr_t)tmp;
    *tmp_p = tmp;
    return IBEX_OK;
}

/* This rank's own block, from where the data was at the start to the receive buffer. */
static ibex_status_t copy_own(ibex_coll_shm_t *seg, const ibex_coll_args_t *a, const void *tmp)
{
    void *mine = ibex_coll_block(a->rbuf, a->rdt, (size_t)seg->rank * (size_t)a->rcount);
    if (a->sbuf != MPI_IN_PLACE) {
        const void *own = ibex_coll_block(a->sbuf, a->sdt, (size_t)seg->rank * (size_t)a->scount);
        return ibex_coll_copy(own, a->scount, a->sdt, mine, a->rcount, a->rdt);
    }
    (void)tmp; /* in place, the own block is already where it belongs */
    return IBEX_OK;
}

ibex_status_t ibex_coll_alltoall_shm(const ibex_coll_args_t *a)
{
    size_t bytes = (size_t)a->rcount * ibex_dt_get(a->rdt)->size;
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(a->comm, &seg);
    if (st != IBEX_OK)
        return st;
    size_t total = bytes * (size_t)a->comm->size;
    if (!seg || (total > seg->slot_size && !seg->cma))
        return ibex_coll_fallback(IBEX_COLL_ALLTOALL, a, bytes);
    uint64_t g = ibex_coll_shm_begin(seg);
    bool inline_ = total <= seg->slot_size;
    void *tmp = NULL;
    if (inline_) {
        ibex_coll_shm_claim(seg, g);
        if (a->sbuf == MPI_IN_PLACE)
            ibex_coll_shm_put_inline(seg, g, a->rbuf, a->rcount * seg->size, a->rdt);
        else
            ibex_coll_shm_put_inline(seg, g, a->sbuf, a->scount * seg->size, a->sdt);
    } else if ((st = publish(seg, a, &tmp)) != IBEX_OK) {
        return st; /* fatal for the job: the others wait for these blocks */
    }
    ibex_coll_shm_arrive(seg, g);
    st = copy_own(seg, a, tmp);
    ibex_status_t cst = collect(seg, g, a, bytes, inline_);
    if (!inline_) {
        ibex_coll_shm_set(&seg->ctl[seg->rank].done, g);
        ibex_coll_shm_wait_all(seg, offsetof(ibex_coll_shm_ctl_t, done), g);
        free(tmp);
    } else {
        seg->all_seen = g;
    }
    return st != IBEX_OK ? st : cst;
}
