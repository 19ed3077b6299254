/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allgather through the staging slots of the communicator's segment (base/coll_shm.h), for
 * blocks past the inline limit and within IBEX_COLL_SHM_STAGE: every rank packs its block into
 * its staging slot of generation g and publishes arrive = g, copies its own block into its
 * receive buffer, then copies every other block out of its owner's slot, any arrived owner
 * first (ibex_coll_shm_each_arrived). Nobody waits for its readers: a slot is rewritten at g + 2
 * only once every rank has arrived at g + 1 (ibex_coll_shm_claim), so a rank returns as soon as
 * it has every block. Cost per rank: n beta in + (p - 1) n beta out + the own block's n beta, no
 * system call, one flag per peer; allgather_shm.c's single copy moves n less but through p - 1
 * process_vm_readv calls (each pins the source's pages) and waits for every reader to finish
 * everything; the ring makes p - 1 rounds, each waiting for a neighbour that may not have a core.
 * Blocks of another size, or no staging slots, run allgather_shm.c.
 */
#include "coll_shm.h"
#include "ibex_datatype.h"

/* Block src of the result, from src's staging slot. */
static ibex_status_t take(ibex_coll_shm_t *seg, int src, void *ctx)
{
    const ibex_coll_args_t *a = ctx;
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    void *block = ibex_coll_block(a->rbuf, a->rdt, (size_t)src * (size_t)a->rcount);
    ibex_dt_unpack(block, a->rcount, d, 0, ibex_coll_shm_stage_slot(seg, src, seg->gen),
                   (size_t)a->rcount * d->size);
    return IBEX_OK;
}

ibex_status_t ibex_coll_allgather_shm_staged(const ibex_coll_args_t *a)
{
    size_t bytes = (size_t)a->rcount * ibex_dt_get(a->rdt)->size;
    ibex_coll_shm_t *seg;
    bool staged = false;
    ibex_status_t st = ibex_coll_shm_get(a->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg)
        return ibex_coll_fallback(IBEX_COLL_ALLGATHER, a, bytes);
    if (ibex_coll_shm_stage_fits(seg, bytes) &&
        (st = ibex_coll_shm_stage_get(a->comm, seg, &staged)) != IBEX_OK)
        return st;
    if (!staged)
        return ibex_coll_allgather_shm(a);
    uint64_t g = ibex_coll_shm_begin(seg);
    bool inplace = a->sbuf == MPI_IN_PLACE;
    void *mine = ibex_coll_block(a->rbuf, a->rdt, (size_t)seg->rank * (size_t)a->rcount);
    ibex_coll_shm_claim(seg, g);
    if (inplace)
        ibex_dt_pack(mine, a->rcount, ibex_dt_get(a->rdt), 0,
                     ibex_coll_shm_stage_slot(seg, seg->rank, g), bytes);
    else
        ibex_dt_pack(a->sbuf, a->scount, ibex_dt_get(a->sdt), 0,
                     ibex_coll_shm_stage_slot(seg, seg->rank, g), bytes);
    ibex_coll_shm_arrive(seg, g);
    if (!inplace)
        st = ibex_coll_copy(a->sbuf, a->scount, a->sdt, mine, a->rcount, a->rdt);
    ibex_status_t cst = ibex_coll_shm_each_arrived(seg, g, take, (void *)a);
    seg->all_seen = g;
    return st != IBEX_OK ? st : cst;
}
