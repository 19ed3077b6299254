/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bcast in the communicator's shared segment (base/coll_shm.h).
 *
 * Up to IBEX_COLL_SHM_INLINE bytes the root writes the data into its slot of generation g and
 * publishes arrive = g; each other rank waits for that flag and copies out. The root does not
 * wait for anyone: its slot (g & 1) is rewritten only at g + 2, after every rank arrived at
 * g + 1. Cost: 2 n beta (copy in, copy out, the p - 1 copies out in parallel) + one cache-line
 * latency; pipelined in 8 KiB chunks from 16 KiB (pipe_root below): n beta + one chunk's.
 * On an oversubscribed node, past the inline limit and up to IBEX_COLL_SHM_STAGE, the same
 * through the root's staging slot (use_stage below).
 *
 * Larger: single copy. The root publishes its buffer's address; every other rank reads it with
 * process_vm_readv straight into its own buffer and sets done = g; the root returns when every
 * done >= g. Cost: n beta per receiver (in parallel, limited by the cores and the memory
 * bandwidth) + two flag latencies + one system call per receiver, against ceil(log2 p)
 * (alpha + n beta) for the binomial tree. A non-contiguous buffer is packed (root) or unpacked
 * (others) through a temporary, each rank on its own, since only the type signatures match.
 */
#include <stdlib.h>

#include "coll_shm.h"
#include "ibex_datatype.h"
#include "ibex_request.h"

/* The dense bytes of (buf, count, dt), or NULL if it is not one run. */
static char *dense(void *buf, int count, const ibex_dt_t *d)
{
    return ibex_dt_is_contig(d, count) ? (char *)buf + d->true_lb : NULL;
}

/* On an oversubscribed node small payloads go through the root's ring (coll_shm.h), so the
 * root waits for the others only every IBEX_COLL_SHM_RING - 1 bcasts: with a core shared, a
 * waiting rank yields it, and each yield is a trip through the scheduler (strace -c of a 16-byte
 * bcast at 4 ranks on 2 cores: 0.65 sched_yield per bcast and rank with the two slots). The
 * choice is the same on every rank (seg->oversub is a fact of the node). */
static bool use_ring(const ibex_coll_shm_t *seg, size_t bytes)
{
    return seg->oversub && bytes <= IBEX_COLL_SHM_RING_SLOT;
}

/* On an oversubscribed node, past the inline limit and within IBEX_COLL_SHM_STAGE (coll_shm.h):
 * the inline scheme through the root's staging slot, so the root returns at once instead of
 * waiting for p - 1 readers that share the cores with it, and the readers copy with memcpy
 * instead of process_vm_readv (collectives/README.md, "Bcast, Allgather and Alltoall at 4 and 8
 * ranks"). The same on every rank (oversub and the slots' limits are facts of the segment). */
static bool use_stage(const ibex_coll_shm_t *seg, size_t bytes)
{
    return seg->oversub && ibex_coll_shm_stage_fits(seg, bytes);
}

/* A payload of several chunks (use_pipe below): the root writes its slot chunk by chunk and the
 * others copy each chunk out as it lands, so the copy in and the copies out overlap: n beta +
 * one chunk's beta, against 2 n beta. */
static void pipe_root(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a, char *slot,
                      size_t bytes)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    ibex_coll_shm_ctl_t *me = &seg->ctl[seg->rank];
    ibex_coll_shm_pipe_begin(seg, g);
    for (size_t off = 0; off < bytes; off += IBEX_COLL_SHM_PIPE_CHUNK) {
        size_t len =
            bytes - off < IBEX_COLL_SHM_PIPE_CHUNK ? bytes - off : IBEX_COLL_SHM_PIPE_CHUNK;
        ibex_dt_pack(a->rbuf, a->rcount, d, off, slot + off, len);
        ibex_coll_shm_set(&me->pbytes, off + len);
    }
}

/* Pipelined (pipe_root / pipe_leaf) with a core per rank from two chunks
 * (ibex_coll_shm_use_pipe), and on an oversubscribed node too unless IBEX_COLL_SHM_BCAST_PIPE=0:
 * there the leaves on the other core than the root's copy each chunk as it lands, where with the
 * slot written whole they yield to each other until the root has written it all (4 ranks on 2
 * cores, 64 KiB: 3.7-3.9 context switches per call at ranks 1 and 3 whole, 0.5 pipelined; 1 MiB
 * through the staging slot 40 against 0.25: collectives/README.md, "Bcast, Allgather and
 * Alltoall at 4 and 8 ranks on 2 cores"). The same on every rank. */
static bool use_pipe(const ibex_coll_shm_t *seg, size_t bytes)
{
    if (!seg->oversub)
        return ibex_coll_shm_use_pipe(seg, bytes);
    return ibex_coll_shm_bcast_pipe() && bytes >= 2 * IBEX_COLL_SHM_PIPE_CHUNK;
}

static void pipe_leaf(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a, const char *slot,
                      size_t bytes)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    const ibex_coll_shm_ctl_t *root = &seg->ctl[a->root];
    ibex_coll_shm_wait(&root->pgen, g); /* the long wait (hang records); then the root streams */
    for (size_t off = 0; off < bytes; off += IBEX_COLL_SHM_PIPE_CHUNK) {
        size_t len =
            bytes - off < IBEX_COLL_SHM_PIPE_CHUNK ? bytes - off : IBEX_COLL_SHM_PIPE_CHUNK;
        ibex_coll_shm_pipe_wait(root, g, off + len);
        ibex_dt_unpack(a->rbuf, a->rcount, d, off, slot + off, len);
    }
}

/* Through the root's inline slot, its ring slot, or (stage) its staging slot (coll_shm.h). */
static void bcast_inline(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a, size_t bytes,
                         bool stage)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    bool ring = !stage && use_ring(seg, bytes), pipe = !ring && use_pipe(seg, bytes);
    void *slot = stage  ? ibex_coll_shm_stage_slot(seg, a->root, g)
                 : ring ? ibex_coll_shm_ring_slot(seg, a->root, g)
                        : ibex_coll_shm_slot(seg, a->root, g, bytes);
    if (seg->rank == a->root) {
        if (ring)
            ibex_coll_shm_claim_ring(seg, g);
        else
            ibex_coll_shm_claim(seg, g);
        if (pipe)
            pipe_root(seg, g, a, slot, bytes);
        else
            ibex_dt_pack(a->rbuf, a->rcount, d, 0, slot, bytes);
        ibex_coll_shm_arrive(seg, g);
        if (!stage && !pipe && bytes <= IBEX_COLL_SHM_TINY)
            seg->tiny_gen = g;
        return;
    }
    ibex_coll_shm_arrive(seg, g);
    if (!stage && !pipe && bytes <= IBEX_COLL_SHM_TINY)
        seg->tiny_gen = g; /* what the short path does (its note, coll_shm.h) */
    if (pipe) {
        pipe_leaf(seg, g, a, slot, bytes);
        return;
    }
    ibex_coll_shm_wait(&seg->ctl[a->root].arrive, g);
    ibex_dt_unpack(a->rbuf, a->rcount, d, 0, slot, bytes);
}

static ibex_status_t bcast_root_single(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                       size_t bytes)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    char *src = dense(a->rbuf, a->rcount, d), *tmp = NULL;
    if (!src) {
        src = tmp = malloc(bytes);
        if (!tmp)
            return IBEX_ERR_NO_MEMORY; /* fatal for the job: the others wait for this root */
        ibex_dt_pack(a->rbuf, a->rcount, d, 0, tmp, bytes);
    }
    seg->ctl[seg->rank].saddr = (uint64_t)(uintptr_t)src;
    ibex_coll_shm_arrive(seg, g);
    ibex_coll_shm_wait_all(seg, offsetof(ibex_coll_shm_ctl_t, done), g);
    free(tmp);
    return IBEX_OK;
}

static ibex_status_t bcast_leaf_single(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                       size_t bytes)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    char *dst = dense(a->rbuf, a->rcount, d), *tmp = NULL;
    if (!dst && !(dst = tmp = malloc(bytes)))
        return IBEX_ERR_NO_MEMORY;
    ibex_coll_shm_arrive(seg, g);
    ibex_coll_shm_wait(&seg->ctl[a->root].arrive, g);
    ibex_status_t st = ibex_coll_shm_read(seg, a->root, seg->ctl[a->root].saddr, dst, bytes);
    ibex_coll_shm_set(&seg->ctl[seg->rank].done, g);
    if (tmp && st == IBEX_OK)
        ibex_dt_unpack(a->rbuf, a->rcount, d, 0, tmp, bytes);
    free(tmp);
    return st;
}

/* Two ranks with a core each, from IBEX_COLL_SHM_PAIR_SPLIT bytes: the root writes the second
 * half into the other rank's buffer while that rank reads the first half from the root's, so
 * both cores copy (the point-to-point SPLIT rendezvous does the same: it beat one reader from
 * 32 KiB, runtime/engine/README.md). The root publishes its buffer and waits for the other's
 * address; each says when its half is in (root: ready, the other: done); the root returns once
 * the other has read its half, the other once the root's half has landed. A failed write is
 * told by saddr = 0 before ready: the other rank then fails too. */
static bool use_split(const ibex_coll_shm_t *seg, size_t bytes)
{
    size_t split = ibex_coll_shm_pair_split();
    return seg->size == 2 && !seg->oversub && seg->cma && split > 0 && bytes >= split;
}

static ibex_status_t bcast_split(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                 size_t bytes)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    int other = 1 - seg->rank;
    bool root = seg->rank == a->root;
    char *mine = dense(a->rbuf, a->rcount, d), *tmp = NULL;
    if (!mine && !(mine = tmp = malloc(bytes)))
        return IBEX_ERR_NO_MEMORY; /* fatal for the job: the other rank waits */
    if (tmp && root)
        ibex_dt_pack(a->rbuf, a->rcount, d, 0, tmp, bytes);
    size_t half = bytes / 2;
    ibex_coll_shm_ctl_t *me = &seg->ctl[seg->rank], *peer = &seg->ctl[other];
    ibex_status_t st;
    if (root) {
        me->saddr = (uint64_t)(uintptr_t)mine;
        ibex_coll_shm_arrive(seg, g);
        ibex_coll_shm_wait(&peer->arrive, g); /* its raddr for g is published */
        st = ibex_coll_shm_write(seg, other, peer->raddr + half, mine + half, bytes - half);
        if (st != IBEX_OK)
            __atomic_store_n(&me->saddr, 0, __ATOMIC_RELAXED);
        ibex_coll_shm_set(&me->ready, g);
        ibex_coll_shm_wait(&peer->done, g); /* it has read its half of this buffer */
    } else {
        me->raddr = (uint64_t)(uintptr_t)mine;
        ibex_coll_shm_arrive(seg, g);
        ibex_coll_shm_wait(&peer->arrive, g);
        st = ibex_coll_shm_read(seg, other, peer->saddr, mine, half);
        ibex_coll_shm_set(&me->done, g);
        ibex_coll_shm_wait(&peer->ready, g);
        if (st == IBEX_OK && __atomic_load_n(&peer->saddr, __ATOMIC_RELAXED) == 0)
            st = IBEX_ERR_IO; /* the root could not write its half (it said why) */
        if (tmp && st == IBEX_OK)
            ibex_dt_unpack(a->rbuf, a->rcount, d, 0, tmp, bytes);
    }
    free(tmp);
    return st;
}

ibex_status_t ibex_coll_bcast_shm(const ibex_coll_args_t *args)
{
    size_t bytes = (size_t)args->rcount * ibex_dt_get(args->rdt)->size;
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(args->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg || (bytes > seg->slot_size && !seg->cma))
        return ibex_coll_fallback(IBEX_COLL_BCAST, args, bytes);
    uint64_t g = ibex_coll_shm_begin(seg);
    size_t single = ibex_coll_shm_bcast_single(); /* IBEX_COLL_SHM_BCAST_SINGLE, 0: none */
    bool forced = single > 0 && bytes > single && seg->cma;
    if (bytes <= seg->slot_size && !ibex_coll_shm_pair_single(seg, bytes) && !forced) {
        bcast_inline(seg, g, args, bytes, false);
        return IBEX_OK;
    }
    bool staged = false;
    if (use_stage(seg, bytes) && !forced &&
        (st = ibex_coll_shm_stage_get(args->comm, seg, &staged)) != IBEX_OK)
        return st;
    if (staged) {
        bcast_inline(seg, g, args, bytes, true);
        return IBEX_OK;
    }
    if (use_split(seg, bytes))
        return bcast_split(seg, g, args, bytes);
    return seg->rank == args->root ? bcast_root_single(seg, g, args, bytes)
                                   : bcast_leaf_single(seg, g, args, bytes);
}

/* ---- the short path of MPI_Bcast (coll_shm.h: ibex_coll_short_t) ----
 * At most IBEX_COLL_SHM_TINY bytes of a predefined contiguous type, on a communicator where the
 * table gave that size to this algorithm and it went through bcast_inline's small slots (the
 * tiny slot in the root's flag line, or on an oversubscribed node its ring slot): the same
 * steps (the root claims, copies in and arrives; the others arrive, wait for the root and copy
 * out), so ranks on either path meet. A bad root, buffer, type or handle goes the general way,
 * which raises the error. */
static void tiny_run(ibex_coll_shm_t *seg, const ibex_coll_short_t *sp, ibex_comm_t *c, char *buf,
                     int root, size_t bytes)
{
    uint64_t g =
        ibex_coll_short_begin(seg, sp, IBEX_COLL_SHORT_BCAST, IBEX_COLL_BCAST, c, bytes, false);
    bool ring = use_ring(seg, bytes); /* the root claims below, as bcast_inline */
    char *slot =
        ring ? ibex_coll_shm_ring_slot(seg, root, g) : ibex_coll_shm_slot(seg, root, g, bytes);
    if (seg->rank == root) {
        if (ring)
            ibex_coll_shm_claim_ring(seg, g);
        else if (g >= 3 && seg->all_seen < g - 1)
            ibex_coll_shm_claim(seg, g);
        ibex_coll_tiny_copy(slot, buf, bytes);
        ibex_coll_shm_arrive(seg, g);
    } else {
        ibex_coll_shm_arrive(seg, g);
        ibex_coll_shm_wait(&seg->ctl[root].arrive, g);
        ibex_coll_tiny_copy(buf, slot, bytes);
    }
    ibex_blk_coll_leave();
}

bool ibex_coll_bcast_tiny(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    ibex_comm_t *c = NULL;
    ibex_coll_short_t *sp = ibex_coll_short_enter(comm, IBEX_COLL_SHORT_BCAST, &c);
    if (!sp || (dt != sp->dt && !ibex_coll_short_type(sp, dt)))
        return false;
    size_t bytes = (size_t)count * sp->dsize;
    if (count <= 0 || bytes > IBEX_COLL_SHM_TINY || !((sp->sizes >> bytes) & 1u) || !buf ||
        buf == MPI_IN_PLACE || (unsigned)root >= (unsigned)c->size)
        return false;
    tiny_run(c->coll_shm, sp, c, buf, root, bytes);
    return true;
}
