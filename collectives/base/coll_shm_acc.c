/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared accumulator of the shared-memory Reduce and Allreduce (coll_shm.h).
 *
 * For a commutative op past the inline limit, on 3 to 16 ranks: the vector is cut into at most
 * IBEX_COLL_SHM_ACC_CHUNKS chunks of about IBEX_COLL_SHM_CHUNK bytes, and the accumulator is
 * rank 0's staging slot of generation g (the same place whoever the root is). Every rank folds
 * its own input into every chunk, one chunk at a time, taking whichever chunk nobody holds: a
 * chunk word (g << 16 | folds << 1 | busy) is taken with a compare-and-swap, the first rank to
 * take a chunk copies its input there, the next ones fold theirs in place (acc = mine op acc),
 * and each gives the word back with one more fold counted. Once a chunk counts p folds the
 * root (Reduce) or every rank (Allreduce; Reduce_scatter: its own block) copies it out.
 *
 * Against the single-copy chunks (coll_shm_reduce.c: each chunk read from every rank's buffer
 * with process_vm_readv into a scratch chunk, then folded) nothing is read across processes
 * into a scratch chunk: a rank folds its input where it lies into a chunk of shared memory,
 * so the (p - 1) n bytes of reads and their system calls go, and what is left is p n of folds
 * and the copies out. With more ranks than cores a rank without a core holds at most the one
 * chunk it was folding, and the running ranks take the others meanwhile: nobody waits for a
 * descheduled rank's slice, only for its own folds.
 *
 * The chunk words of generation g (parity g & 1) and the accumulator are reused at g + 2, once
 * every rank arrived at g + 1 (ibex_coll_shm_claim): by then every rank has folded in all of g
 * and copied out what it wanted. A rank publishes arrive = g once it may start, nothing else:
 * nobody reads another rank's buffers.
 */
#include <string.h>

#include "coll_shm.h"
#include "ibex_datatype.h"
#include "ibex_engine_stats.h"
#include "ibex_request.h"

#define ACC_SHIFT 16
#define ACC_BUSY  1u

static uint64_t *acc_word(ibex_coll_shm_t *seg, uint64_t g, int c)
{
    char *words = seg->stage + (size_t)seg->size * 2 * seg->stage_slot;
    return (uint64_t *)(words + ((size_t)(g & 1) * IBEX_COLL_SHM_ACC_CHUNKS + (size_t)c) * 64);
}

/* Elements per chunk: IBEX_COLL_SHM_CHUNK bytes, more when the vector would need more than
 * IBEX_COLL_SHM_ACC_CHUNKS chunks. */
static int acc_chunk_elems(const ibex_coll_args_t *a, size_t esz)
{
    int ce = (int)(ibex_coll_shm_chunk() / esz);
    int least = (a->rcount + IBEX_COLL_SHM_ACC_CHUNKS - 1) / IBEX_COLL_SHM_ACC_CHUNKS;
    ce = ce > least ? ce : least;
    return ce > 0 ? ce : 1;
}

bool ibex_coll_shm_acc_fits(const ibex_coll_shm_t *seg, const ibex_coll_args_t *a, size_t bytes)
{
    return ibex_coll_shm_acc_on() && a->op->commutative && seg->size >= 3 &&
           ibex_coll_shm_stage_fits(seg, bytes);
}

/* Folds chunk c of `in` into the accumulator if nobody holds it: true when it did. */
static bool acc_take(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a, const char *in,
                     char *acc, int c, int ce, ibex_status_t *st)
{
    uint64_t *w = acc_word(seg, g, c);
    uint64_t v = ibex_coll_shm_load(w);
    bool ours = (v >> ACC_SHIFT) == g;
    if (ours && (v & ACC_BUSY))
        return false;
    uint64_t folds = ours ? (v >> 1) & 0x7fff : 0;
    if (!__atomic_compare_exchange_n(w, &v, (g << ACC_SHIFT) | (folds << 1) | ACC_BUSY, false,
                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return false;
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    int lo = c * ce, k = a->rcount - lo < ce ? a->rcount - lo : ce;
    size_t off = (size_t)lo * d->size;
    if (folds == 0)
        memcpy(acc + off, in + off, (size_t)k * d->size);
    else if (*st == IBEX_OK) /* a failed fold still counts: nobody waits for it forever */
        *st = ibex_coll_fold(a, in + off, acc + off, k, d->true_lb);
    ibex_coll_shm_set(w, (g << ACC_SHIFT) | ((folds + 1) << 1));
    return true;
}

/* This rank's input into every chunk, starting from its own part of the vector so that the
 * ranks start on different chunks. */
static ibex_status_t acc_fold_in(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                 const char *in, char *acc, int ce, int n)
{
    uint64_t todo = n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
    int start = seg->rank * n / seg->size, idle = 0, spins = 0;
    bool rec = false;
    ibex_status_t st = IBEX_OK;
    while (todo) {
        bool moved = false;
        for (int j = 0; j < n; j++) {
            int c = (start + j) % n;
            if (((todo >> c) & 1) && acc_take(seg, g, a, in, acc, c, ce, &st)) {
                todo &= ~((uint64_t)1 << c);
                moved = true;
            }
        }
        if (!moved && todo) { /* every chunk left is held by a rank that may have no core */
            ibex_wait_step(&idle);
            if (!rec && ibex_blk_due(&spins))
                rec = ibex_blk_wait_coll();
        }
    }
    if (rec)
        ibex_blk_end();
    return st;
}

ibex_status_t ibex_coll_shm_acc_reduce(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                       const char *in, char *out, int lo, int n)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    int ce = acc_chunk_elems(a, d->size), chunks = (a->rcount + ce - 1) / ce;
    char *acc = ibex_coll_shm_stage_slot(seg, 0, g);
    ibex_engine_stats.coll_acc++;
    ibex_coll_shm_claim(seg, g);
    ibex_coll_shm_arrive(seg, g);
    ibex_status_t st = acc_fold_in(seg, g, a, in, acc, ce, chunks);
    if (!out || n <= 0)
        return st;
    /* the chunks over [lo, lo + n), from this rank's own part of them on */
    uint64_t full = (g << ACC_SHIFT) | ((uint64_t)seg->size << 1);
    int first = lo / ce, last = (lo + n - 1) / ce, span = last - first + 1;
    int start = seg->rank * span / seg->size;
    for (int j = 0; j < span; j++) {
        int c = first + (start + j) % span;
        int b = c * ce > lo ? c * ce : lo, e = (c + 1) * ce < lo + n ? (c + 1) * ce : lo + n;
        ibex_coll_shm_wait(acc_word(seg, g, c), full);
        memcpy(out + (size_t)(b - lo) * d->size, acc + (size_t)b * d->size,
               (size_t)(e - b) * d->size);
    }
    return st;
}
