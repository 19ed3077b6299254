/*
 * Datatype constructors. Every constructor is a list of members "count copies of oldtype at
 * byte displacement disp, one old extent apart", fed to one builder that flattens them at once
 * into (disp, len) blocks in packed order (adjacent blocks merged), so commit has nothing left
 * to do and the constructors accept uncommitted old types. A dense old type (one block as long
 * as its extent) makes a run of copies one block, so contiguous(1 << 30, MPI_BYTE) costs O(1).
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
#include "ibex_err.h"
#include "ibex_log.h"
#include "ibex_runtime.h"

typedef struct dt_build {
    ibex_dt_t *dt;
    const ibex_dt_t *first; /* first member's type: types of a type with no data */
    size_t cap_blocks, cap_runs;
    bool typed;           /* basic / op type taken from a member with data */
    bool bounded, sticky; /* lb / ub seen; they come from markers */
    ptrdiff_t lb, ub;
    bool data; /* true_lb / true_ub seen */
    ptrdiff_t tlb, tub;
    int err; /* MPI error class of the first failure */
} dt_build_t;

static bool build_grow(dt_build_t *b, void **arr, size_t *cap, size_t elem)
{
    size_t ncap = *cap ? *cap * 2 : 8;
    void *p = ncap > (size_t)INT_MAX ? NULL : realloc(*arr, ncap * elem);
    if (!p) {
        b->err = MPI_ERR_NO_MEM;
        return false;
    }
    *arr = p;
    *cap = ncap;
    return true;
}

static void build_block(dt_build_t *b, ptrdiff_t disp, size_t len)
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

static void build_run(dt_build_t *b, size_t n, size_t bsize)
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

static void build_layout(dt_build_t *b, const ibex_dt_t *old, ptrdiff_t disp, size_t count)
{
    const ibex_dt_priv_t *op = ibex_dt_priv(old);
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

static void build_types(dt_build_t *b, const ibex_dt_t *old)
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

static void build_bounds(dt_build_t *b, const ibex_dt_t *old, ptrdiff_t disp, size_t count)
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
static void build_add(dt_build_t *b, const ibex_dt_t *old, ptrdiff_t disp, size_t count)
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

static void build_finish_bounds(dt_build_t *b, bool pad)
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

static int build_finish(dt_build_t *b, bool pad)
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

/* Argument checks shared by every constructor; on success *b holds a fresh type. */
static int create_begin(const char *call, int count, MPI_Datatype *newtype, dt_build_t *b)
{
    memset(b, 0, sizeof(*b));
    if (count < 0)
        return ibex_mpi_error(NULL, MPI_ERR_COUNT, call, "negative count %d", count);
    if (!newtype)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "newtype is NULL");
    b->dt = ibex_dt_alloc();
    if (!b->dt)
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory for a datatype");
    return MPI_SUCCESS;
}

static int create_end(const char *call, dt_build_t *b, int combiner, bool pad, MPI_Datatype *out)
{
    int rc = build_finish(b, pad);
    if (rc != MPI_SUCCESS)
        goto err_destroy;
    ibex_dt_priv(b->dt)->combiner = combiner;
    int handle = ibex_dt_register(b->dt);
    if (handle < 0) {
        rc = MPI_ERR_NO_MEM;
        goto err_destroy;
    }
    *out = handle;
    return MPI_SUCCESS;
err_destroy:
    ibex_dt_destroy(b->dt);
    return ibex_mpi_error(NULL, rc, call, "%s",
                          rc == MPI_ERR_ARG ? "datatype size overflows"
                                            : "out of memory for a datatype");
}

static int create_fail(dt_build_t *b, int rc)
{
    ibex_dt_destroy(b->dt);
    return rc;
}

static int check_blocklen(const char *call, int len)
{
    if (len < 0)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "negative blocklength %d", len);
    return MPI_SUCCESS;
}

static int check_array(const char *call, int count, const void *arr, const char *what)
{
    if (count > 0 && !arr)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "%s is NULL", what);
    return MPI_SUCCESS;
}

IBEX_WEAK_ALIAS(Type_contiguous)
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_contiguous";
    ibex_dt_t *old = NULL;
    dt_build_t b;
    int rc = create_begin(call, count, newtype, &b);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = ibex_dt_lookup(oldtype, call, false, &old)) != MPI_SUCCESS)
        return create_fail(&b, rc);
    build_add(&b, old, 0, (size_t)count);
    return create_end(call, &b, IBEX_DT_COMBINER_CONTIGUOUS, false, newtype);
}

/* vector and hvector: stride in bytes. */
static int create_hvector(const char *call, int count, int blocklength, MPI_Aint stride,
                          MPI_Datatype oldtype, int combiner, MPI_Datatype *newtype)
{
    ibex_dt_t *old = NULL;
    dt_build_t b;
    int rc = create_begin(call, count, newtype, &b);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = check_blocklen(call, blocklength)) != MPI_SUCCESS ||
        (rc = ibex_dt_lookup(oldtype, call, false, &old)) != MPI_SUCCESS)
        return create_fail(&b, rc);
    if (combiner == IBEX_DT_COMBINER_VECTOR)
        stride *= old->extent;
    for (int i = 0; i < count; i++)
        build_add(&b, old, (ptrdiff_t)i * stride, (size_t)blocklength);
    return create_end(call, &b, combiner, false, newtype);
}

IBEX_WEAK_ALIAS(Type_vector)
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    return create_hvector("MPI_Type_vector", count, blocklength, stride, oldtype,
                          IBEX_DT_COMBINER_VECTOR, newtype);
}

IBEX_WEAK_ALIAS(Type_create_hvector)
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    return create_hvector("MPI_Type_create_hvector", count, blocklength, stride, oldtype,
                          IBEX_DT_COMBINER_HVECTOR, newtype);
}

/* The indexed family: blocklengths (or one constant blocklength for the _block variants) and
 * displacements in old extents (idisps) or bytes (adisps). */
typedef struct indexed_args {
    int count;
    bool block;
    const int *lens;
    int len;
    const int *idisps;
    const MPI_Aint *adisps;
    int combiner;
} indexed_args_t;

static int create_indexed(const char *call, const indexed_args_t *a, MPI_Datatype oldtype,
                          MPI_Datatype *newtype)
{
    ibex_dt_t *old = NULL;
    dt_build_t b;
    int rc = create_begin(call, a->count, newtype, &b);
    if (rc != MPI_SUCCESS)
        return rc;
    const void *disps = a->idisps ? (const void *)a->idisps : (const void *)a->adisps;
    if ((rc = check_array(call, a->count, disps, "array_of_displacements")) != MPI_SUCCESS ||
        (a->block && (rc = check_blocklen(call, a->len)) != MPI_SUCCESS) ||
        (!a->block && (rc = check_array(call, a->count, a->lens, "array_of_blocklengths"))) ||
        (rc = ibex_dt_lookup(oldtype, call, false, &old)) != MPI_SUCCESS)
        return create_fail(&b, rc);
    for (int i = 0; i < a->count; i++) {
        int len = a->block ? a->len : a->lens[i];
        if ((rc = check_blocklen(call, len)) != MPI_SUCCESS)
            return create_fail(&b, rc);
        ptrdiff_t d = a->idisps ? (ptrdiff_t)a->idisps[i] * old->extent : a->adisps[i];
        build_add(&b, old, d, (size_t)len);
    }
    return create_end(call, &b, a->combiner, false, newtype);
}

IBEX_WEAK_ALIAS(Type_indexed)
int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    indexed_args_t a = {count,
                        false,
                        array_of_blocklengths,
                        0,
                        array_of_displacements,
                        NULL,
                        IBEX_DT_COMBINER_INDEXED};
    return create_indexed("MPI_Type_indexed", &a, oldtype, newtype);
}

IBEX_WEAK_ALIAS(Type_create_hindexed)
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    indexed_args_t a = {count,
                        false,
                        array_of_blocklengths,
                        0,
                        NULL,
                        array_of_displacements,
                        IBEX_DT_COMBINER_HINDEXED};
    return create_indexed("MPI_Type_create_hindexed", &a, oldtype, newtype);
}

IBEX_WEAK_ALIAS(Type_create_indexed_block)
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    indexed_args_t a = {count,
                        true,
                        NULL,
                        blocklength,
                        array_of_displacements,
                        NULL,
                        IBEX_DT_COMBINER_INDEXED_BLOCK};
    return create_indexed("MPI_Type_create_indexed_block", &a, oldtype, newtype);
}

IBEX_WEAK_ALIAS(Type_create_hindexed_block)
int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    indexed_args_t a = {count,
                        true,
                        NULL,
                        blocklength,
                        NULL,
                        array_of_displacements,
                        IBEX_DT_COMBINER_HINDEXED_BLOCK};
    return create_indexed("MPI_Type_create_hindexed_block", &a, oldtype, newtype);
}

IBEX_WEAK_ALIAS(Type_create_struct)
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_struct";
    ibex_dt_t *old = NULL;
    dt_build_t b;
    int rc = create_begin(call, count, newtype, &b);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = check_array(call, count, array_of_blocklengths, "array_of_blocklengths")) ||
        (rc = check_array(call, count, array_of_displacements, "array_of_displacements")) ||
        (rc = check_array(call, count, array_of_types, "array_of_types")))
        return create_fail(&b, rc);
    for (int i = 0; i < count; i++) {
        if ((rc = check_blocklen(call, array_of_blocklengths[i])) != MPI_SUCCESS ||
            (rc = ibex_dt_lookup(array_of_types[i], call, false, &old)) != MPI_SUCCESS)
            return create_fail(&b, rc);
        build_add(&b, old, array_of_displacements[i], (size_t)array_of_blocklengths[i]);
    }
    return create_end(call, &b, IBEX_DT_COMBINER_STRUCT, true, newtype);
}

IBEX_WEAK_ALIAS(Type_create_resized)
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_resized";
    ibex_dt_t *old = NULL;
    dt_build_t b;
    int rc = create_begin(call, 0, newtype, &b);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = ibex_dt_lookup(oldtype, call, false, &old)) != MPI_SUCCESS)
        return create_fail(&b, rc);
    build_add(&b, old, 0, 1);
    /* The new bounds are markers: they stick through later constructors. */
    b.bounded = b.sticky = true;
    b.lb = lb;
    b.ub = lb + extent;
    return create_end(call, &b, IBEX_DT_COMBINER_RESIZED, false, newtype);
}

IBEX_WEAK_ALIAS(Type_dup)
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_dup";
    ibex_dt_t *old = NULL;
    dt_build_t b;
    int rc = create_begin(call, 0, newtype, &b);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = ibex_dt_lookup(oldtype, call, false, &old)) != MPI_SUCCESS)
        return create_fail(&b, rc);
    build_add(&b, old, 0, 1);
    b.dt->committed = old->committed;
    return create_end(call, &b, IBEX_DT_COMBINER_DUP, false, newtype);
}
