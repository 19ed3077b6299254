/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gather in the communicator's shared segment (base/coll_shm.h, base/coll_shm_data.c).
 *
 * Blocks up to IBEX_COLL_SHM_INLINE bytes: every rank packs its block into its slot of
 * generation g, publishes arrive = g and, if not the root, returns at once (the slot is
 * rewritten only at g + 2); the root copies each block out as its flag appears. Cost: n beta
 * at a leaf, (p - 1) n beta + one flag latency at the root, against (p - 1) (alpha + n beta)
 * for the linear gather.
 *
 * Larger: each leaf publishes its send buffer's address; the root reads every block with
 * process_vm_readv straight into its receive buffer (one copy instead of two, no rendezvous
 * handshake) and sets done = g, which releases the leaves. Cost: (p - 1) n beta at the root +
 * p - 1 system calls + two flag latencies.
 */
#include <stdlib.h>

#include "coll_shm.h"
#include "ibex_datatype.h"

static ibex_status_t gather_root(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                 bool inline_)
{
    ibex_coll_shm_arrive(seg, g);
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
    if (!inline_)
        ibex_coll_shm_set(&seg->ctl[seg->rank].done, g);
    if (st == IBEX_OK && a->sbuf != MPI_IN_PLACE) {
        void *mine = ibex_coll_block(a->rbuf, a->rdt, (size_t)seg->rank * (size_t)a->rcount);
        st = ibex_coll_copy(a->sbuf, a->scount, a->sdt, mine, a->rcount, a->rdt);
    }
    return st;
}

ibex_status_t ibex_coll_gather_shm(const ibex_coll_args_t *args)
{
    bool root = args->comm->rank == args->root;
    size_t bytes = root ? (size_t)args->rcount * ibex_dt_get(args->rdt)->size
                        : (size_t)args->scount * ibex_dt_get(args->sdt)->size;
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(args->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg || (bytes > seg->slot_size && !seg->cma))
        return ibex_coll_fallback(IBEX_COLL_GATHER, args, bytes);
    uint64_t g = ibex_coll_shm_begin(seg);
    bool inline_ = ibex_coll_shm_goes_inline(seg, bytes);
    return root ? gather_root(seg, g, args, inline_)
                : ibex_coll_shm_gather_leaf(seg, g, args, inline_);
}
