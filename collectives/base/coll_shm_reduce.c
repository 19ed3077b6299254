/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reduction steps shared by reduce_shm.c and allreduce_shm.c (base/coll_shm.h).
 *
 * Inline: every rank's contribution sits in its slot; a combining rank folds them in rank
 * order, s_0 op (s_1 op (... op s_{p-1})), so a non-commutative op is right and every rank that
 * combines gets the same bits. Its own contribution it reads where it lies (unless in place),
 * so a Reduce root need not copy it into its slot at all.
 *
 * Single copy: rank r owns slice r of the vector and reduces it from every rank's published
 * send buffer, chunk by chunk so the running result stays in cache: the first source is read
 * (process_vm_readv) straight into the result, each further one into a scratch chunk and folded
 * in. For a commutative op the sources go in rotated order starting after r (ranks read from
 * different peers at once, and r's own data is folded from its buffer with no copy); for a
 * non-commutative one in rank order from the top. In place with a commutative op the running
 * result starts as this rank's own input where it lies, so nothing is copied for it.
 */
#include <stdlib.h>
#include <string.h>

#include "coll_shm.h"
#include "ibex_datatype.h"

/* Rank i's contribution at g: its slot, or this rank's own input where it lies. */
static const char *input(ibex_coll_shm_t *seg, uint64_t g, int i, size_t bytes, const char *own)
{
    return i == seg->rank && own ? own : ibex_coll_shm_slot(seg, i, g, bytes);
}

ibex_status_t ibex_coll_shm_combine_prefix(ibex_coll_shm_t *seg, uint64_t g,
                                           const ibex_coll_args_t *a, const char *own, char *dst,
                                           int last)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    size_t bytes = (size_t)a->rcount * d->size;
    own = own == dst ? NULL : own; /* in place: dst is overwritten first, so use the slot */
    if (last != seg->rank)
        ibex_coll_shm_wait(&seg->ctl[last].arrive, g);
    memcpy(dst, input(seg, g, last, bytes, own), bytes);
    for (int i = last - 1; i >= 0; i--) {
        if (i != seg->rank)
            ibex_coll_shm_wait(&seg->ctl[i].arrive, g);
        const char *in = input(seg, g, i, bytes, own);
        ibex_status_t st = ibex_coll_fold(a, in, dst, a->rcount, d->true_lb);
        if (st != IBEX_OK)
            return st;
    }
    return IBEX_OK;
}

ibex_status_t ibex_coll_shm_combine(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                    const char *own, char *dst)
{
    ibex_status_t st = ibex_coll_shm_combine_prefix(seg, g, a, own, dst, seg->size - 1);
    seg->all_seen = st == IBEX_OK ? g : seg->all_seen;
    return st;
}

/* Folds elements [lo, lo + n) of the result: the slots from the top, each chunk waited for
 * (a slot's writer publishes it chunk by chunk; this rank's own input needs no wait). */
static ibex_status_t combine_chunk(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                   const char *own, char *dst, int lo, int n)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    size_t bytes = (size_t)a->rcount * d->size, off = (size_t)lo * d->size;
    size_t end = off + (size_t)n * d->size;
    for (int i = seg->size - 1; i >= 0; i--) {
        if (i != seg->rank || !own)
            ibex_coll_shm_pipe_wait(&seg->ctl[i], g, end);
        const char *in = input(seg, g, i, bytes, own) + off;
        if (i == seg->size - 1) {
            memcpy(dst + off, in, end - off);
            continue;
        }
        ibex_status_t st = ibex_coll_fold(a, in, dst + off, n, d->true_lb);
        if (st != IBEX_OK)
            return st;
    }
    return IBEX_OK;
}

ibex_status_t ibex_coll_shm_combine_pipe(ibex_coll_shm_t *seg, uint64_t g,
                                         const ibex_coll_args_t *a, const char *own, char *dst)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    int step = (int)(IBEX_COLL_SHM_PIPE_CHUNK / d->size);
    step = step > 0 ? step : 1;
    own = own == dst ? NULL : own; /* in place: the root streamed its input into its slot */
    int top = seg->size - 1;
    if (top != seg->rank || !own)
        ibex_coll_shm_wait(&seg->ctl[top].pgen, g); /* the long wait (hang records) */
    for (int lo = 0; lo < a->rcount; lo += step) {
        int n = a->rcount - lo < step ? a->rcount - lo : step;
        ibex_status_t st = combine_chunk(seg, g, a, own, dst, lo, n);
        if (st != IBEX_OK)
            return st;
    }
    return IBEX_OK; /* all_seen is not moved: a slot's last chunk may be seen before its arrive */
}

void ibex_coll_shm_slice(int count, int p, int r, int *lo_p, int *n_p)
{
    int base = count / p, rem = count % p;
    *lo_p = r * base + (r < rem ? r : rem);
    *n_p = base + (r < rem);
}

char *ibex_coll_shm_scratch(ibex_coll_shm_t *seg, size_t bytes)
{
    if (seg->scratch_size < bytes) {
        free(seg->scratch);
        seg->scratch = malloc(bytes);
        seg->scratch_size = seg->scratch ? bytes : 0;
    }
    return seg->scratch;
}

/* The i-th source in combining order: see the header comment. */
static int source(const ibex_coll_shm_t *seg, bool commutative, int i)
{
    return commutative ? (seg->rank + 1 + i) % seg->size : seg->size - 1 - i;
}

/* Reads [off, off + len) of rank src's send buffer (this rank's own from `own`). */
static ibex_status_t fetch(ibex_coll_shm_t *seg, int src, const char *own, size_t off, char *dst,
                           size_t len)
{
    if (src == seg->rank) {
        memcpy(dst, own + off, len);
        return IBEX_OK;
    }
    return ibex_coll_shm_read(seg, src, seg->ctl[src].saddr + off, dst, len);
}

/* One chunk of elements [lo, lo + n): into acc, folded over every source. With `has_own` (a
 * commutative op, the result in place over this rank's own input) acc already holds this
 * rank's part, so only the others are folded in. */
static ibex_status_t reduce_chunk(ibex_coll_shm_t *seg, const ibex_coll_args_t *a, const char *own,
                                  int lo, int n, char *acc, char *tmp, bool has_own)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    size_t off = (size_t)lo * d->size, len = (size_t)n * d->size;
    bool comm = a->op->commutative;
    ibex_status_t st = has_own ? IBEX_OK : fetch(seg, source(seg, comm, 0), own, off, acc, len);
    for (int i = has_own ? 0 : 1; i < seg->size && st == IBEX_OK; i++) {
        int src = source(seg, comm, i);
        if (has_own && src == seg->rank)
            continue;
        const char *in = src == seg->rank ? own + off : tmp;
        if (src != seg->rank)
            st = fetch(seg, src, own, off, tmp, len);
        if (st == IBEX_OK)
            st = ibex_coll_fold(a, in, acc, n, d->true_lb);
    }
    return st;
}

ibex_status_t ibex_coll_shm_reduce_range(ibex_coll_shm_t *seg, uint64_t g,
                                         const ibex_coll_args_t *a, const char *own, char *dst,
                                         int lo, int n)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    int ce = (int)(ibex_coll_shm_chunk() / d->size);
    ce = ce > 0 ? ce : 1;
    ce = ce < n ? ce : (n > 0 ? n : 1);
    /* dst may be this rank's own input (in place): for a commutative op the running result
     * starts as that input and is folded in place; for a non-commutative one (rank order) it
     * needs a chunk of its own, copied out once the chunk is folded */
    bool alias = dst == own, has_own = alias && a->op->commutative, copy = alias && !has_own;
    char *tmp = ibex_coll_shm_scratch(seg, (size_t)ce * d->size * (copy ? 2 : 1));
    if (!tmp)
        return IBEX_ERR_NO_MEMORY;
    ibex_coll_shm_wait_all(seg, offsetof(ibex_coll_shm_ctl_t, arrive), g);
    seg->all_seen = g;
    ibex_status_t st = IBEX_OK;
    for (int c = lo; c < lo + n && st == IBEX_OK; c += ce) {
        int k = lo + n - c < ce ? lo + n - c : ce;
        size_t off = (size_t)c * d->size;
        char *acc = copy ? tmp + (size_t)ce * d->size : dst + off;
        st = reduce_chunk(seg, a, own, c, k, acc, tmp, has_own);
        if (copy && st == IBEX_OK)
            memcpy(dst + off, acc, (size_t)k * d->size);
    }
    return st;
}

ibex_status_t ibex_coll_shm_reduce_slice(ibex_coll_shm_t *seg, uint64_t g,
                                         const ibex_coll_args_t *a, const char *own, char *dst)
{
    int lo, n;
    ibex_coll_shm_slice(a->rcount, seg->size, seg->rank, &lo, &n);
    return ibex_coll_shm_reduce_range(seg, g, a, own, dst, lo, n);
}

ibex_status_t ibex_coll_shm_collect_slices(ibex_coll_shm_t *seg, uint64_t g,
                                           const ibex_coll_args_t *a, char *out)
{
    size_t esz = ibex_dt_get(a->rdt)->size;
    for (int i = 1; i < seg->size; i++) {
        int k = (seg->rank + i) % seg->size, lo, n;
        ibex_coll_shm_slice(a->rcount, seg->size, k, &lo, &n);
        ibex_coll_shm_wait(&seg->ctl[k].ready, g);
        size_t off = (size_t)lo * esz;
        ibex_status_t st =
            ibex_coll_shm_read(seg, k, seg->ctl[k].raddr + off, out + off, (size_t)n * esz);
        if (st != IBEX_OK)
            return st;
    }
    return IBEX_OK;
}

/* Elements per chunk of a shared reduction: IBEX_COLL_SHM_CHUNK, larger when the vector would
 * need more chunks than a work word counts. */
static int chunk_elems(const ibex_coll_args_t *a)
{
    size_t esz = ibex_dt_get(a->rdt)->size;
    int ce = (int)(ibex_coll_shm_chunk() / esz);
    int least = (int)(((int64_t)a->rcount + IBEX_COLL_SHM_WORK_MAX - 1) / IBEX_COLL_SHM_WORK_MAX);
    ce = ce > least ? ce : least;
    return ce > 0 ? ce : 1;
}

/* Chunk [lo, lo + k) of the reduction into the root's result: at the root straight into out
 * (through a scratch chunk when out is its own input and the op keeps rank order), elsewhere
 * into scratch and then written to the root's buffer (its ctl.raddr) with process_vm_writev. */
static ibex_status_t shared_chunk(ibex_coll_shm_t *seg, const ibex_coll_args_t *a, const char *own,
                                  char *out, int lo, int k, char *tmp)
{
    size_t esz = ibex_dt_get(a->rdt)->size, off = (size_t)lo * esz, len = (size_t)k * esz;
    char *acc = tmp + (size_t)chunk_elems(a) * esz;
    if (seg->rank != a->root) {
        ibex_status_t st = reduce_chunk(seg, a, own, lo, k, acc, tmp, false);
        uint64_t at = ibex_coll_shm_load(&seg->ctl[a->root].raddr) + off;
        return st != IBEX_OK ? st : ibex_coll_shm_write(seg, a->root, at, acc, len);
    }
    bool alias = own == out, has_own = alias && a->op->commutative;
    if (!alias || has_own)
        return reduce_chunk(seg, a, own, lo, k, out + off, tmp, has_own);
    ibex_status_t st = reduce_chunk(seg, a, own, lo, k, acc, tmp, false);
    if (st == IBEX_OK)
        memcpy(out + off, acc, len);
    return st;
}

ibex_status_t ibex_coll_shm_reduce_shared(ibex_coll_shm_t *seg, uint64_t g,
                                          const ibex_coll_args_t *a, const char *own, char *out)
{
    size_t esz = ibex_dt_get(a->rdt)->size;
    int ce = chunk_elems(a), chunks = (int)(((int64_t)a->rcount + ce - 1) / ce);
    char *tmp = ibex_coll_shm_scratch(seg, 2 * (size_t)ce * esz);
    ibex_status_t st = tmp ? IBEX_OK : IBEX_ERR_NO_MEMORY;
    ibex_coll_shm_wait_all(seg, offsetof(ibex_coll_shm_ctl_t, arrive), g);
    seg->all_seen = g;
    for (int c; (c = ibex_coll_shm_work_claim(seg, g, chunks)) >= 0;) {
        int lo = c * ce, k = a->rcount - lo < ce ? a->rcount - lo : ce;
        /* a failed chunk still counts as finished, so no rank waits for it forever; this
         * rank reports the failure */
        if (st == IBEX_OK)
            st = shared_chunk(seg, a, own, out, lo, k, tmp);
        ibex_coll_shm_work_finish(seg, g);
    }
    ibex_coll_shm_work_wait(seg, g, chunks);
    return st;
}
