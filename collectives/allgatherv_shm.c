/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allgatherv in the communicator's shared segment (base/coll_shm.h, base/coll_shm_data.c),
 * built on the Allgather ones (allgather_shm.c, allgather_shm_staged.c) with one rule per
 * block: every rank knows every count, so each block's way is fixed by its own byte count alone,
 * the same on every rank:
 *   inline   up to the inline limit (at two ranks with a core each up to
 *            IBEX_COLL_SHM_PAIR_INLINE: ibex_coll_shm_goes_inline): packed into its owner's slot
 *            of generation g, copied out by every reader;
 *   staged   (shmem_staged only) past it and within IBEX_COLL_SHM_STAGE: packed into its owner's
 *            staging slot, copied out by every reader, no system call;
 *   single   otherwise: its owner publishes its address (a packed copy when the type is not
 *            dense; under MPI_IN_PLACE its own block of the receive buffer) and every reader
 *            reads it with process_vm_readv straight into its receive buffer.
 * Each rank publishes its block, says arrive = g, copies its own block, then takes every other
 * block as its owner arrives, any arrived owner first (ibex_coll_shm_each_arrived). Slots are
 * rewritten at g + 2 only once every rank arrived at g + 1 (ibex_coll_shm_claim), so nobody
 * waits for readers of inline or staged blocks; when some block goes single copy every rank says
 * done = g after reading everything, and the owners of single-copy blocks return once every rank
 * is done. Zero counts are inline blocks of no bytes. Without process_vm_readv between the ranks
 * (seg->cma, the same on every rank) a call with a single-copy block runs the point-to-point
 * algorithm.
 */
#include <stdlib.h>

#include "coll_shm.h"
#include "ibex_datatype.h"

typedef enum { WAY_INLINE, WAY_STAGED, WAY_SINGLE } agv_way_t;

typedef struct agv {
    const ibex_coll_args_t *a;
    uint64_t g;
    bool staged; /* the staging slots exist and this call uses them */
} agv_t;

static size_t block_bytes(const ibex_coll_args_t *a, int r)
{
    return (size_t)a->rcounts[r] * ibex_dt_get(a->rdt)->size;
}

static agv_way_t block_way(const ibex_coll_shm_t *seg, bool staged, size_t n)
{
    if (ibex_coll_shm_goes_inline(seg, n))
        return WAY_INLINE;
    if (staged && ibex_coll_shm_stage_fits(seg, n))
        return WAY_STAGED;
    return WAY_SINGLE;
}

/* Some block of the call goes single copy (or, with want_stage, fits the staging slots). */
static bool any_block(const ibex_coll_shm_t *seg, const ibex_coll_args_t *a, bool staged,
                      bool want_stage)
{
    for (int r = 0; r < seg->size; r++) {
        size_t n = block_bytes(a, r);
        if (want_stage ? ibex_coll_shm_stage_fits(seg, n) : block_way(seg, staged, n) == WAY_SINGLE)
            return true;
    }
    return false;
}

/* Block src of the result, by its way. */
static ibex_status_t take(ibex_coll_shm_t *seg, int src, void *ctx)
{
    const agv_t *v = ctx;
    const ibex_coll_args_t *a = v->a;
    MPI_Datatype dt;
    void *blk = ibex_coll_vblock(a->rbuf, a->rdt, NULL, a->rdispls, src, &dt);
    size_t n = block_bytes(a, src);
    switch (block_way(seg, v->staged, n)) {
    case WAY_INLINE:
        ibex_coll_shm_get_inline(seg, v->g, src, blk, a->rcounts[src], dt);
        return IBEX_OK;
    case WAY_STAGED:
        ibex_dt_unpack(blk, a->rcounts[src], ibex_dt_get(dt), 0,
                       ibex_coll_shm_stage_slot(seg, src, v->g), n);
        return IBEX_OK;
    default:
        return ibex_coll_shm_fetch(seg, src, blk, a->rcounts[src], dt);
    }
}

/* This rank's block where the others find it; *tmp_p a packed copy to free (single copy). */
static ibex_status_t put_own(ibex_coll_shm_t *seg, const agv_t *v, agv_way_t way, void **tmp_p)
{
    const ibex_coll_args_t *a = v->a;
    bool inplace = a->sbuf == MPI_IN_PLACE;
    MPI_Datatype rdt;
    void *mine = ibex_coll_vblock(a->rbuf, a->rdt, NULL, a->rdispls, seg->rank, &rdt);
    const void *src = inplace ? mine : a->sbuf;
    int count = inplace ? a->rcounts[seg->rank] : a->scount;
    MPI_Datatype dt = inplace ? rdt : a->sdt;
    if (way == WAY_SINGLE)
        return ibex_coll_shm_publish(seg, src, count, dt, tmp_p);
    ibex_coll_shm_claim(seg, v->g);
    if (way == WAY_INLINE)
        ibex_coll_shm_put_inline(seg, v->g, src, count, dt);
    else
        ibex_dt_pack(src, count, ibex_dt_get(dt), 0, ibex_coll_shm_stage_slot(seg, seg->rank, v->g),
                     block_bytes(a, seg->rank));
    return IBEX_OK;
}

static ibex_status_t own_copy(const ibex_coll_shm_t *seg, const ibex_coll_args_t *a)
{
    if (a->sbuf == MPI_IN_PLACE)
        return IBEX_OK;
    MPI_Datatype dt;
    void *mine = ibex_coll_vblock(a->rbuf, a->rdt, NULL, a->rdispls, seg->rank, &dt);
    return ibex_coll_copy(a->sbuf, a->scount, a->sdt, mine, a->rcounts[seg->rank], dt);
}

static ibex_status_t run(ibex_coll_shm_t *seg, agv_t *v, bool single)
{
    agv_way_t way = block_way(seg, v->staged, block_bytes(v->a, seg->rank));
    void *tmp = NULL;
    v->g = ibex_coll_shm_begin(seg);
    ibex_status_t st = put_own(seg, v, way, &tmp);
    if (st != IBEX_OK)
        return st; /* fatal for the job: the others wait for this block */
    ibex_coll_shm_arrive(seg, v->g);
    st = own_copy(seg, v->a);
    ibex_status_t cst = ibex_coll_shm_each_arrived(seg, v->g, take, v);
    seg->all_seen = v->g;
    if (single) {
        ibex_coll_shm_set(&seg->ctl[seg->rank].done, v->g);
        if (way == WAY_SINGLE)
            ibex_coll_shm_wait_all(seg, offsetof(ibex_coll_shm_ctl_t, done), v->g);
        free(tmp);
    }
    return st != IBEX_OK ? st : cst;
}

static ibex_status_t allgatherv_shm(const ibex_coll_args_t *a, bool staged)
{
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(a->comm, &seg);
    if (st != IBEX_OK)
        return st;
    agv_t v = {.a = a};
    if (seg && staged && any_block(seg, a, false, true) &&
        (st = ibex_coll_shm_stage_get(a->comm, seg, &v.staged)) != IBEX_OK)
        return st;
    bool single = seg && any_block(seg, a, v.staged, false);
    if (!seg || (single && !seg->cma)) {
        size_t all = 0;
        for (int r = 0; r < a->comm->size; r++)
            all += block_bytes(a, r);
        return ibex_coll_fallback(IBEX_COLL_ALLGATHERV, a, all / (size_t)a->comm->size);
    }
    return run(seg, &v, single);
}

ibex_status_t ibex_coll_allgatherv_shm(const ibex_coll_args_t *args)
{
    return allgatherv_shm(args, false);
}

ibex_status_t ibex_coll_allgatherv_shm_staged(const ibex_coll_args_t *args)
{
    return allgatherv_shm(args, true);
}
