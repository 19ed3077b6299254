/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The datatype builder behind the constructors (runtime/mpi/dt_create.c). Every constructor is a
 * list of members "count copies of oldtype at byte displacement disp, one old extent apart", fed to
 * one builder that flattens them at once into (disp, len) blocks in packed order (adjacent blocks
 * merged), so commit has nothing left to do and the constructors accept uncommitted old types. A
 * dense old type (one block as long as its extent) makes a run of copies one block, so contiguous(1
 * << 30, MPI_BYTE) costs O(1).
 *
 * Bounds follow the MPI standard's typemap rules: without explicit markers lb / ub are the
 * lowest / highest data of the copies (old lb / ub per copy, as MPICH does); markers set by
 * MPI_Type_create_resized stick and win over data; MPI_Type_create_struct also pads the extent
 * to the largest member alignment when no marker is present.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dt_priv.h"
#include "ibex_log.h"
#include "ibex_runtime.h"

/* Types are flattened, so a type's blocks cost memory: past IBEX_DT_MAX_BLOCKS (1 GiB of block
 * list) a constructor fails with MPI_ERR_UNSUPPORTED_OPERATION at once instead of filling the
 * node's memory (MPI_Type_vector(INT_MAX / 2, 1, 3, ...) would take 16 GiB). */
static bool build_grow(ibex_dt_build_t *b, void **arr, size_t *cap, size_t elem)
{
    size_t ncap = *cap ? *cap * 2 : 8;
    if (ncap > IBEX_DT_MAX_BLOCKS) {
        b->err = MPI_ERR_UNSUPPORTED_OPERATION;
        return false;
    }
    void *p = realloc(*arr, ncap * elem);
    if (!p) {
        b->err = MPI_ERR_NO_MEM;
        return false;
    }
    *arr = p;
    *cap = ncap;
    return true;
}

static void build_block(ibex_dt_build_t *b, ptrdiff_t disp, size_t len)
{
    ibex_dt_t *dt = b->dt;
    if (len == 0 || b->err)
        return;
    if (dt->nblocks > 0) {
        ibex_dt_block_t *last = &dt->blocks[dt->nblocks - 1];
        if (last->disp + (ptrdiff_t)last->len == disp) {
            last->len += len;
            return;
        }
    }
    if ((size_t)dt->nblocks == b->cap_blocks &&
        !build_grow(b, (void **)&dt->blocks, &b->cap_blocks, sizeof(*dt->blocks)))
        return;
    dt->blocks[dt->nblocks++] = (ibex_dt_block_t){disp, len};
}

static void build_run(ibex_dt_build_t *b, size_t n, size_t bsize)
{
    ibex_dt_priv_t *priv = ibex_dt_priv(b->dt);
    if (n == 0 || b->err)
        return;
    if (priv->nruns > 0 && priv->runs[priv->nruns - 1].bsize == bsize) {
        priv->runs[priv->nruns - 1].n += n;
        return;
    }
    if ((size_t)priv->nruns == b->cap_runs &&
        !build_grow(b, (void **)&priv->runs, &b->cap_runs, sizeof(*priv->runs)))
        return;
    priv->runs[priv->nruns++] = (ibex_dt_run_t){n, bsize};
}

static void build_layout(ibex_dt_build_t *b, const ibex_dt_t *old, ptrdiff_t disp, size_t count)
{
    const ibex_dt_priv_t *op = ibex_dt_priv(old);
    if (old->nblocks == 0 && op->nruns == 0)
        return; /* an empty type: count copies of nothing (count may be past an int) */
    if (old->nblocks == 1 && (ptrdiff_t)old->blocks[0].len == old->extent)
        build_block(b, disp + old->blocks[0].disp, count * old->blocks[0].len);
    else
        for (size_t k = 0; k < count && !b->err; k++)
            for (int i = 0; i < old->nblocks; i++)
                build_block(b, disp + (ptrdiff_t)k * old->extent + old->blocks[i].disp,
                            old->blocks[i].len);
    if (op->nruns == 1)
        build_run(b, count * op->runs[0].n, op->runs[0].bsize);
    else
        for (size_t k = 0; k < count && !b->err; k++)
            for (int i = 0; i < op->nruns; i++)
                build_run(b, op->runs[i].n, op->runs[i].bsize);
}

static void build_types(ibex_dt_build_t *b, const ibex_dt_t *old)
{
    ibex_dt_t *dt = b->dt;
    ibex_dt_priv_t *priv = ibex_dt_priv(dt);
    int op_type = ibex_dt_priv(old)->op_type;
    if (!b->typed) {
        b->typed = true;
        dt->basic_type = old->basic_type;
        dt->basic_size = old->basic_size;
        priv->op_type = op_type;
        return;
    }
    if (dt->basic_type != old->basic_type) {
        dt->basic_type = -1;
        dt->basic_size = 0;
    }
    if (priv->op_type != op_type)
        priv->op_type = -1;
}

static void build_bounds(ibex_dt_build_t *b, const ibex_dt_t *old, ptrdiff_t disp, size_t count)
{
    bool old_sticky = ibex_dt_priv(old)->sticky;
    ptrdiff_t last = disp + (ptrdiff_t)(count - 1) * old->extent;
    ptrdiff_t lo = last < disp ? last : disp, hi = last < disp ? disp : last;
    if (old->size > 0) {
        ptrdiff_t tlb = lo + old->true_lb, tub = hi + old->true_lb + old->true_extent;
        b->tlb = b->data && b->tlb < tlb ? b->tlb : tlb;
        b->tub = b->data && b->tub > tub ? b->tub : tub;
        b->data = true;
    }
    /* A copy without markers and without data has an empty typemap: no bounds. */
    if ((b->sticky && !old_sticky) || (!old_sticky && old->size == 0))
        return;
    if (old_sticky && !b->sticky)
        b->bounded = false;
    ptrdiff_t lb = lo + old->lb, ub = hi + old->lb + old->extent;
    b->lb = b->bounded && b->lb < lb ? b->lb : lb;
    b->ub = b->bounded && b->ub > ub ? b->ub : ub;
    b->bounded = true;
    b->sticky = old_sticky;
}

/* Adds count copies of old at byte displacement disp, old->extent apart. */
void ibex_dt_build_add(ibex_dt_build_t *b, const ibex_dt_t *old, ptrdiff_t disp, size_t count)
{
    ibex_dt_t *dt = b->dt;
    ibex_dt_priv_t *priv = ibex_dt_priv(dt);
    size_t bytes, elems;
    if (!b->first)
        b->first = old;
    if (ibex_dt_priv(old)->align > priv->align)
        priv->align = ibex_dt_priv(old)->align;
    if (count == 0 || b->err)
        return;
    if (__builtin_mul_overflow(count, old->size, &bytes) ||
        __builtin_add_overflow(dt->size, bytes, &dt->size) ||
        __builtin_mul_overflow(count, ibex_dt_priv(old)->nelems, &elems) ||
        __builtin_add_overflow(priv->nelems, elems, &priv->nelems)) {
        b->err = MPI_ERR_ARG;
        return;
    }
    if (old->size > 0)
        build_types(b, old);
    build_bounds(b, old, disp, count);
    build_layout(b, old, disp, count);
}

static void build_finish_bounds(ibex_dt_build_t *b, bool pad)
{
    ibex_dt_t *dt = b->dt;
    size_t align = ibex_dt_priv(dt)->align;
    ptrdiff_t lb = b->bounded ? b->lb : 0, ub = b->bounded ? b->ub : 0;
    if (pad && !b->sticky && align > 1 && ub > lb)
        ub = lb + (ub - lb + (ptrdiff_t)align - 1) / (ptrdiff_t)align * (ptrdiff_t)align;
    dt->lb = lb;
    dt->extent = ub - lb;
    dt->true_lb = b->data ? b->tlb : 0;
    dt->true_extent = b->data ? b->tub - b->tlb : 0;
    ibex_dt_priv(dt)->sticky = b->sticky;
}

int ibex_dt_build_finish(ibex_dt_build_t *b, bool pad)
{
    ibex_dt_t *dt = b->dt;
    if (b->err)
        return b->err;
    if (!b->typed && b->first)
        build_types(b, b->first);
    build_finish_bounds(b, pad);
    dt->contiguous = dt->size == 0 || (dt->nblocks == 1 && dt->extent == (ptrdiff_t)dt->size);
    if (!ibex_dt_prefix_build(dt))
        return MPI_ERR_NO_MEM;
    return MPI_SUCCESS;
}
