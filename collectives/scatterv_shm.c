/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scatterv in the communicator's shared segment (base/coll_shm.h, base/coll_shm_data.c).
 *
 * Only the root knows every count, so the way each block travels is fixed by that block's size
 * alone, which its receiver knows too (its own count, the same type signature): the root's slot
 * of generation g is cut into p shares of `share` bytes (slot / p, whole cache lines), rank r's
 * block goes inline at share r when it fits, and otherwise share r holds the address of the
 * block in the root's memory (a packed copy when its type is not dense; at two ranks with a
 * core each always past IBEX_COLL_SHM_PAIR_INLINE), which rank r reads
 * with process_vm_readv and then says done = g. The root publishes arrive = g and returns at
 * once when every block went inline (its slot is rewritten only at g + 2, after every rank
 * arrived at g + 1: ibex_coll_shm_claim), else once the readers of its memory are done. Each
 * leaf publishes arrive = g on entry (it has finished g - 1), waits for the root's flag and
 * copies its share out.
 *
 * Cost, all blocks inline: sum(n_r) beta at the root and no wait, n_r beta + one flag latency
 * at leaf r (one cache line per 64 bytes of its own block, none shared with another leaf),
 * against (p - 1) alpha + sum(n_r) beta and p - 1 messages for the linear scatterv. Without
 * process_vm_readv between the ranks (seg->cma false, the same on every rank) or with shares
 * too small to hold an address, the linear scatterv runs.
 */
#include <stdlib.h>
#include <string.h>

#include "coll_shm.h"
#include "ibex_datatype.h"

/* Bytes of one rank's share of the root's slot: whole cache lines (0 if less than one). */
static size_t share(const ibex_coll_shm_t *seg)
{
    return seg->slot_size / (size_t)seg->size / 64 * 64;
}

/* Whether a block of n bytes goes inline in its share (else it is read by address): when it
 * fits, but at two ranks with a core each only up to IBEX_COLL_SHM_PAIR_INLINE (single copy
 * past it, as Scatter; collectives/README.md, "Two-rank defaults"). The same on both sides. */
static bool share_inline(const ibex_coll_shm_t *seg, size_t n)
{
    return n <= share(seg) && !ibex_coll_shm_pair_single(seg, n);
}

/* The root's slot of generation g (always the full one: the leaves cannot know the total). */
static char *root_slot(ibex_coll_shm_t *seg, int root, uint64_t g)
{
    return ibex_coll_shm_slot(seg, root, g, SIZE_MAX);
}

/* The type of block r of the root's send side (per peer, or the one). */
static const ibex_dt_t *block_dt(const ibex_coll_args_t *a, int r, const ibex_dt_t *d0)
{
    return a->sdts ? ibex_dt_get(a->sdts[r]) : d0;
}

/* Bytes of the packed copies of the read (too large) blocks whose type is not dense. */
static size_t packed_bytes(ibex_coll_shm_t *seg, const ibex_coll_args_t *a, const ibex_dt_t *d0)
{
    size_t total = 0;
    for (int r = 0; r < seg->size; r++) {
        const ibex_dt_t *d = block_dt(a, r, d0);
        size_t n = (size_t)a->scounts[r] * d->size;
        if (r != seg->rank && !share_inline(seg, n) && !ibex_dt_is_contig(d, a->scounts[r]))
            total += n;
    }
    return total;
}

/* Writes every other rank's share: its block, or the address of it; true if any is read. */
static bool fill_shares(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a, char *tmp)
{
    size_t sh = share(seg);
    char *slot = root_slot(seg, seg->rank, g);
    bool readers = false;
    for (int r = 0; r < seg->size; r++) {
        if (r == seg->rank)
            continue;
        MPI_Datatype dt;
        char *blk = ibex_coll_vblock(a->sbuf, a->sdt, a->sdts, a->sdispls, r, &dt);
        const ibex_dt_t *d = ibex_dt_get(dt);
        size_t n = (size_t)a->scounts[r] * d->size;
        if (share_inline(seg, n)) {
            ibex_dt_pack(blk, a->scounts[r], d, 0, slot + (size_t)r * sh, n);
            continue;
        }
        uint64_t addr = (uint64_t)(uintptr_t)(blk + d->true_lb);
        if (!ibex_dt_is_contig(d, a->scounts[r])) {
            ibex_dt_pack(blk, a->scounts[r], d, 0, tmp, n);
            addr = (uint64_t)(uintptr_t)tmp;
            tmp += n;
        }
        memcpy(slot + (size_t)r * sh, &addr, sizeof(addr));
        readers = true;
    }
    return readers;
}

static void wait_readers(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                         const ibex_dt_t *d0)
{
    for (int r = 0; r < seg->size; r++)
        if (r != seg->rank && !share_inline(seg, (size_t)a->scounts[r] * block_dt(a, r, d0)->size))
            ibex_coll_shm_wait(&seg->ctl[r].done, g);
}

static ibex_status_t scatterv_root(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a)
{
    const ibex_dt_t *d0 = ibex_dt_get(a->sdt);
    size_t tmp_bytes = packed_bytes(seg, a, d0);
    char *tmp = tmp_bytes ? malloc(tmp_bytes) : NULL;
    if (tmp_bytes && !tmp)
        return IBEX_ERR_NO_MEMORY; /* fatal for the job: the leaves wait for the blocks */
    ibex_coll_shm_claim(seg, g);
    bool readers = fill_shares(seg, g, a, tmp);
    ibex_coll_shm_arrive(seg, g);
    ibex_status_t st = IBEX_OK;
    if (a->rbuf != MPI_IN_PLACE) {
        MPI_Datatype dt;
        char *mine = ibex_coll_vblock(a->sbuf, a->sdt, a->sdts, a->sdispls, seg->rank, &dt);
        st = ibex_coll_copy(mine, a->scounts[seg->rank], dt, a->rbuf, a->rcount, a->rdt);
    }
    if (readers)
        wait_readers(seg, g, a, d0);
    free(tmp);
    return st;
}

static ibex_status_t scatterv_leaf(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    size_t sh = share(seg), n = (size_t)a->rcount * d->size;
    ibex_coll_shm_arrive(seg, g);
    ibex_coll_shm_wait(&seg->ctl[a->root].arrive, g);
    const char *at = root_slot(seg, a->root, g) + (size_t)seg->rank * sh;
    if (share_inline(seg, n)) {
        ibex_dt_unpack(a->rbuf, a->rcount, d, 0, at, n);
        return IBEX_OK;
    }
    uint64_t addr;
    memcpy(&addr, at, sizeof(addr));
    ibex_status_t st = ibex_coll_shm_fetch_addr(seg, a->root, addr, a->rbuf, a->rcount, a->rdt);
    ibex_coll_shm_set(&seg->ctl[seg->rank].done, g); /* even after a failure: free the root */
    return st;
}

ibex_status_t ibex_coll_scatterv_shm(const ibex_coll_args_t *args)
{
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(args->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg || !seg->cma || share(seg) < sizeof(uint64_t))
        return ibex_coll_fallback(IBEX_COLL_SCATTERV, args, 0);
    uint64_t g = ibex_coll_shm_begin(seg);
    return args->comm->rank == args->root ? scatterv_root(seg, g, args)
                                          : scatterv_leaf(seg, g, args);
}
