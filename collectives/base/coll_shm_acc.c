/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared accumulator of the shared-memory Reduce and Allreduce (coll_shm.h).
 *
 * For a commutative op past the inline limit, on 3 to 16 ranks: the vector goes in pieces of a
 * staging slot (IBEX_COLL_SHM_STAGE, 1 MiB), each a generation g of its own; a piece is cut
 * into at most IBEX_COLL_SHM_ACC_CHUNKS chunks of about IBEX_COLL_SHM_CHUNK bytes, and its
 * accumulator is rank 0's staging slot of g (the same place whoever the root is). Every rank folds
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
#include <limits.h>
#include <string.h>

#include "coll_shm.h"
#include "ibex_datatype.h"
#include "ibex_engine_stats.h"
#include "ibex_request.h"

#define ACC_SHIFT 16
#define ACC_BUSY  1u

/* One piece of the vector: `count` elements from `in`, accumulated in `acc` in chunks of `ce`. */
typedef struct acc_piece {
    const ibex_coll_args_t *a;
    size_t esz;
    ptrdiff_t lb;
    const char *in;
    char *acc;
    int count, ce, chunks;
} acc_piece_t;

static uint64_t *acc_word(ibex_coll_shm_t *seg, uint64_t g, int c)
{
    char *words = seg->stage + (size_t)seg->size * 2 * seg->stage_slot;
    return (uint64_t *)(words + ((size_t)(g & 1) * IBEX_COLL_SHM_ACC_CHUNKS + (size_t)c) * 64);
}

bool ibex_coll_shm_acc_fits(const ibex_coll_shm_t *seg, const ibex_coll_args_t *a, size_t bytes,
                            bool rooted)
{
    size_t esz = ibex_dt_get(a->rdt)->size, from = ibex_coll_shm_acc_min();
    if (rooted && from < seg->slot_size)
        from = seg->slot_size;
    return ibex_coll_shm_acc_on() && a->op->commutative && seg->size >= 3 &&
           seg->size <= IBEX_COLL_SHM_STAGE_RANKS && bytes > from &&
           ibex_coll_shm_stage_max() >= esz;
}

ibex_status_t ibex_coll_shm_acc_use(ibex_coll_shm_t *seg, const ibex_coll_args_t *a, size_t bytes,
                                    bool rooted, bool *use)
{
    *use = false;
    if (!ibex_coll_shm_acc_fits(seg, a, bytes, rooted))
        return IBEX_OK;
    return ibex_coll_shm_stage_get(a->comm, seg, use);
}

/* Elements [lo, lo + k) of chunk c of the piece. */
static int acc_chunk(const acc_piece_t *pc, int c, int *lo_p)
{
    int lo = c * pc->ce;
    *lo_p = lo;
    return pc->count - lo < pc->ce ? pc->count - lo : pc->ce;
}

/* Folds chunk c of the piece into the accumulator if nobody holds it: true when it did. */
static bool acc_take(ibex_coll_shm_t *seg, uint64_t g, const acc_piece_t *pc, int c,
                     ibex_status_t *st)
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
    int lo, k = acc_chunk(pc, c, &lo);
    size_t off = (size_t)lo * pc->esz;
    if (folds == 0)
        memcpy(pc->acc + off, pc->in + off, (size_t)k * pc->esz);
    else if (*st == IBEX_OK) /* a failed fold still counts: nobody waits for it forever */
        *st = ibex_coll_fold(pc->a, pc->in + off, pc->acc + off, k, pc->lb);
    ibex_coll_shm_set(w, (g << ACC_SHIFT) | ((folds + 1) << 1));
    return true;
}

/* This rank's input into every chunk of the piece, starting from its own share of the chunks
 * so that the ranks start on different ones. */
static ibex_status_t acc_fold_in(ibex_coll_shm_t *seg, uint64_t g, const acc_piece_t *pc)
{
    int n = pc->chunks;
    uint64_t todo = n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
    int start = seg->rank * n / seg->size, idle = 0, spins = 0;
    bool rec = false;
    ibex_status_t st = IBEX_OK;
    while (todo) {
        bool moved = false;
        for (int j = 0; j < n; j++) {
            int c = (start + j) % n;
            if (((todo >> c) & 1) && acc_take(seg, g, pc, c, &st)) {
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

/* Elements [lo, lo + n) of the piece's result (piece indices) to out, chunk by chunk as each
 * counts every rank's fold, from this rank's share of them on. */
static void acc_copy_out(ibex_coll_shm_t *seg, uint64_t g, const acc_piece_t *pc, char *out, int lo,
                         int n)
{
    uint64_t full = (g << ACC_SHIFT) | ((uint64_t)seg->size << 1);
    int first = lo / pc->ce, span = (lo + n - 1) / pc->ce - first + 1;
    int start = seg->rank * span / seg->size;
    for (int j = 0; j < span; j++) {
        int c = first + (start + j) % span, clo, k = acc_chunk(pc, c, &clo);
        int b = clo > lo ? clo : lo, e = clo + k < lo + n ? clo + k : lo + n;
        ibex_coll_shm_wait(acc_word(seg, g, c), full);
        memcpy(out + (size_t)(b - lo) * pc->esz, pc->acc + (size_t)b * pc->esz,
               (size_t)(e - b) * pc->esz);
    }
}

/* Chunks of a piece: IBEX_COLL_SHM_CHUNK bytes, longer when there would be more than
 * IBEX_COLL_SHM_ACC_CHUNKS of them, shorter (down to 4 KiB) when there would be fewer than two
 * per rank, so that no rank waits for a chunk while another is free. */
static void acc_cut(acc_piece_t *pc, int ranks)
{
    int ce = (int)(ibex_coll_shm_chunk() / pc->esz);
    int spread = (pc->count + 2 * ranks - 1) / (2 * ranks), small = (int)(4096 / pc->esz);
    spread = spread > small ? spread : small;
    ce = ce < spread ? ce : spread;
    int least = (pc->count + IBEX_COLL_SHM_ACC_CHUNKS - 1) / IBEX_COLL_SHM_ACC_CHUNKS;
    ce = ce > least ? ce : least;
    pc->ce = ce > 0 ? ce : 1;
    pc->chunks = (pc->count + pc->ce - 1) / pc->ce;
}

ibex_status_t ibex_coll_shm_acc_reduce(ibex_coll_shm_t *seg, const ibex_coll_args_t *a,
                                       const char *in, char *out, int lo, int n)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    int per = (int)(seg->stage_slot / d->size < INT_MAX ? seg->stage_slot / d->size : INT_MAX);
    ibex_status_t st = IBEX_OK;
    ibex_engine_stats.coll_acc++;
    for (int p0 = 0; p0 < a->rcount; p0 += per) {
        uint64_t g = ibex_coll_shm_begin(seg);
        acc_piece_t pc = {.a = a,
                          .esz = d->size,
                          .lb = d->true_lb,
                          .in = in + (size_t)p0 * d->size,
                          .acc = ibex_coll_shm_stage_slot(seg, 0, g),
                          .count = a->rcount - p0 < per ? a->rcount - p0 : per};
        acc_cut(&pc, seg->size);
        ibex_coll_shm_claim(seg, g);
        ibex_coll_shm_arrive(seg, g);
        ibex_status_t fst = acc_fold_in(seg, g, &pc);
        st = st != IBEX_OK ? st : fst;
        /* the wanted elements within this piece, in piece indices */
        int b = lo > p0 ? lo : p0, e = lo + n < p0 + pc.count ? lo + n : p0 + pc.count;
        if (out && b < e)
            acc_copy_out(seg, g, &pc, out + (size_t)(b - lo) * d->size, b - p0, e - b);
    }
    return st;
}
