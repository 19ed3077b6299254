/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gatherv in the communicator's shared segment (base/coll_shm.h, base/coll_shm_data.c), as
 * gather_shm.c with one rule per block: each rank knows its own count and the root knows every
 * count, so each block's way is fixed by its size alone. A block of up to IBEX_COLL_SHM_INLINE
 * bytes is packed into its sender's slot of generation g, the sender publishes arrive = g and
 * returns at once (the slot is rewritten only at g + 2); a larger one is published by address
 * (a packed copy when its type is not dense), read by the root with process_vm_readv, and its
 * sender returns once the root says done = g. The root copies each block out as its flag
 * appears.
 *
 * Cost, blocks inline: n_r beta at leaf r and no wait; sum(n_r) beta + one flag latency at the
 * root; against (p - 1) alpha + sum(n_r) beta and p - 1 messages for the linear gatherv.
 * Without process_vm_readv between the ranks (seg->cma false, the same on every rank) the
 * linear gatherv runs.
 */
#include <stdlib.h>

#include "coll_shm.h"
#include "ibex_datatype.h"

static ibex_status_t gatherv_root(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a)
{
    ibex_coll_shm_arrive(seg, g);
    ibex_status_t st = IBEX_OK;
    bool read = false;
    MPI_Datatype dt;
    for (int i = 1; i < seg->size && st == IBEX_OK; i++) {
        int src = (seg->rank + i) % seg->size;
        void *blk = ibex_coll_vblock(a->rbuf, a->rdt, a->rdts, a->rdispls, src, &dt);
        size_t n = (size_t)a->rcounts[src] * ibex_dt_get(dt)->size;
        ibex_coll_shm_wait(&seg->ctl[src].arrive, g);
        if (ibex_coll_shm_goes_inline(seg, n)) {
            ibex_coll_shm_get_inline(seg, g, src, blk, a->rcounts[src], dt);
            continue;
        }
        st = ibex_coll_shm_fetch(seg, src, blk, a->rcounts[src], dt);
        read = true;
    }
    if (read || st != IBEX_OK)
        ibex_coll_shm_set(&seg->ctl[seg->rank].done, g); /* frees the senders it read */
    if (st == IBEX_OK && a->sbuf != MPI_IN_PLACE) {
        void *mine = ibex_coll_vblock(a->rbuf, a->rdt, a->rdts, a->rdispls, seg->rank, &dt);
        st = ibex_coll_copy(a->sbuf, a->scount, a->sdt, mine, a->rcounts[seg->rank], dt);
    }
    return st;
}

ibex_status_t ibex_coll_gatherv_shm(const ibex_coll_args_t *args)
{
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(args->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg || !seg->cma)
        return ibex_coll_fallback(IBEX_COLL_GATHERV, args, 0);
    uint64_t g = ibex_coll_shm_begin(seg);
    if (args->comm->rank == args->root)
        return gatherv_root(seg, g, args);
    size_t n = (size_t)args->scount * ibex_dt_get(args->sdt)->size;
    return ibex_coll_shm_gather_leaf(seg, g, args, ibex_coll_shm_goes_inline(seg, n));
}
