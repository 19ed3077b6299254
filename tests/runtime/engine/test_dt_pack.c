/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for packing (runtime/engine/dt_pack.c) against a reference model: every constructor is
 * mirrored by a naive typemap (one entry per basic element, never merged) from which the test
 * computes the expected bounds and the expected packed bytes, independently of the library's
 * flattened blocks, prefix sums and fragment cursor. Every case runs twice: with the regular
 * (vector) fast path of dt_pack.c and with the block walk (IBEX_DT_VECTOR=0).
 */
#include <stdbool.h>
#include <stdio.h>

#include "dt_priv.h"
#include "dt_test_util.h"
#include "ibex_engine_cfg.h"

typedef struct ref_entry {
    ptrdiff_t disp;
    size_t len;
} ref_entry_t;

typedef struct ref {
    ref_entry_t *e;
    size_t n;
    size_t size, align;
    bool bounded, sticky;
    ptrdiff_t lb, ub;
} ref_t;

typedef struct dtcase {
    MPI_Datatype t;
    ref_t r;
    const char *what;
} dtcase_t;

static void ref_push(ref_t *r, ptrdiff_t disp, size_t len)
{
    r->e = realloc(r->e, (r->n + 1) * sizeof(*r->e));
    assert_non_null(r->e);
    r->e[r->n++] = (ref_entry_t){disp, len};
    r->size += len;
}

static ptrdiff_t ref_extent(const ref_t *r)
{
    return r->ub - r->lb;
}

/* One copy of old at disp: its entries, then its bounds (markers win over data). */
static void ref_copy(ref_t *r, const ref_t *old, ptrdiff_t disp)
{
    for (size_t i = 0; i < old->n; i++)
        ref_push(r, disp + old->e[i].disp, old->e[i].len);
    if (old->align > r->align)
        r->align = old->align;
    if ((!old->sticky && old->n == 0) || (r->sticky && !old->sticky))
        return;
    if (old->sticky && !r->sticky)
        r->bounded = false;
    ptrdiff_t lb = disp + old->lb, ub = disp + old->ub;
    r->lb = r->bounded && r->lb < lb ? r->lb : lb;
    r->ub = r->bounded && r->ub > ub ? r->ub : ub;
    r->sticky = old->sticky;
    r->bounded = true;
}

static void ref_copies(ref_t *r, const ref_t *old, ptrdiff_t disp, int count)
{
    if (count == 0 && old->align > r->align)
        r->align = old->align;
    for (int k = 0; k < count; k++)
        ref_copy(r, old, disp + k * ref_extent(old));
}

static void ref_struct_pad(ref_t *r)
{
    ptrdiff_t ext = ref_extent(r), a = (ptrdiff_t)r->align;
    if (!r->sticky && ext > 0 && ext % a)
        r->ub += a - ext % a;
}

static void ref_true(const ref_t *r, ptrdiff_t *lo, ptrdiff_t *hi)
{
    *lo = *hi = 0;
    for (size_t i = 0; i < r->n; i++) {
        ptrdiff_t a = r->e[i].disp, b = a + (ptrdiff_t)r->e[i].len;
        *lo = i == 0 || a < *lo ? a : *lo;
        *hi = i == 0 || b > *hi ? b : *hi;
    }
}

static dtcase_t basic(MPI_Datatype t, size_t size)
{
    dtcase_t c = {t, {0}, "basic"};
    ref_push(&c.r, 0, size);
    c.r.align = size > 16 ? 16 : size;
    c.r.bounded = true;
    c.r.ub = (ptrdiff_t)size;
    return c;
}

static dtcase_t pair(MPI_Datatype t, size_t a, size_t off, size_t b, size_t ext)
{
    dtcase_t c = {t, {0}, "pair"};
    ref_push(&c.r, 0, a);
    ref_push(&c.r, (ptrdiff_t)off, b);
    c.r.align = a > b ? a : b;
    c.r.bounded = true;
    c.r.ub = (ptrdiff_t)ext;
    return c;
}

static dtcase_t mk_contig(int count, const dtcase_t *o)
{
    dtcase_t c = {0, {0}, "contiguous"};
    assert_int_equal(MPI_Type_contiguous(count, o->t, &c.t), MPI_SUCCESS);
    ref_copies(&c.r, &o->r, 0, count);
    return c;
}

static dtcase_t mk_hvector(int count, int bl, MPI_Aint stride, bool bytes, const dtcase_t *o)
{
    dtcase_t c = {0, {0}, bytes ? "hvector" : "vector"};
    if (bytes)
        assert_int_equal(MPI_Type_create_hvector(count, bl, stride, o->t, &c.t), MPI_SUCCESS);
    else
        assert_int_equal(MPI_Type_vector(count, bl, (int)stride, o->t, &c.t), MPI_SUCCESS);
    ptrdiff_t step = bytes ? stride : stride * ref_extent(&o->r);
    for (int i = 0; i < count; i++)
        ref_copies(&c.r, &o->r, i * step, bl);
    return c;
}

static dtcase_t mk_indexed(int count, const int *lens, const int *disps, const dtcase_t *o)
{
    dtcase_t c = {0, {0}, "indexed"};
    assert_int_equal(MPI_Type_indexed(count, lens, disps, o->t, &c.t), MPI_SUCCESS);
    for (int i = 0; i < count; i++)
        ref_copies(&c.r, &o->r, disps[i] * ref_extent(&o->r), lens[i]);
    return c;
}

static dtcase_t mk_hindexed(int count, const int *lens, const MPI_Aint *disps, const dtcase_t *o)
{
    dtcase_t c = {0, {0}, "hindexed"};
    assert_int_equal(MPI_Type_create_hindexed(count, lens, disps, o->t, &c.t), MPI_SUCCESS);
    for (int i = 0; i < count; i++)
        ref_copies(&c.r, &o->r, disps[i], lens[i]);
    return c;
}

static dtcase_t mk_indexed_block(int count, int bl, const int *disps, const dtcase_t *o)
{
    dtcase_t c = {0, {0}, "indexed_block"};
    assert_int_equal(MPI_Type_create_indexed_block(count, bl, disps, o->t, &c.t), MPI_SUCCESS);
    for (int i = 0; i < count; i++)
        ref_copies(&c.r, &o->r, disps[i] * ref_extent(&o->r), bl);
    return c;
}

static dtcase_t mk_hindexed_block(int count, int bl, const MPI_Aint *disps, const dtcase_t *o)
{
    dtcase_t c = {0, {0}, "hindexed_block"};
    assert_int_equal(MPI_Type_create_hindexed_block(count, bl, disps, o->t, &c.t), MPI_SUCCESS);
    for (int i = 0; i < count; i++)
        ref_copies(&c.r, &o->r, disps[i], bl);
    return c;
}

static dtcase_t mk_struct(int count, const int *lens, const MPI_Aint *disps, const dtcase_t **o)
{
    dtcase_t c = {0, {0}, "struct"};
    MPI_Datatype types[8];
    for (int i = 0; i < count; i++)
        types[i] = o[i]->t;
    assert_int_equal(MPI_Type_create_struct(count, lens, disps, types, &c.t), MPI_SUCCESS);
    for (int i = 0; i < count; i++)
        ref_copies(&c.r, &o[i]->r, disps[i], lens[i]);
    ref_struct_pad(&c.r);
    return c;
}

static dtcase_t mk_resized(const dtcase_t *o, MPI_Aint lb, MPI_Aint extent)
{
    dtcase_t c = {0, {0}, "resized"};
    assert_int_equal(MPI_Type_create_resized(o->t, lb, extent, &c.t), MPI_SUCCESS);
    ref_copies(&c.r, &o->r, 0, 1);
    c.r.bounded = c.r.sticky = true;
    c.r.lb = lb;
    c.r.ub = lb + extent;
    return c;
}

static dtcase_t mk_dup(const dtcase_t *o)
{
    dtcase_t c = {0, {0}, "dup"};
    assert_int_equal(MPI_Type_dup(o->t, &c.t), MPI_SUCCESS);
    ref_copies(&c.r, &o->r, 0, 1);
    return c;
}

static void case_free(dtcase_t *c)
{
    ibex_dt_t *dt = ibex_dt_get(c->t);
    if (dt && !dt->predefined)
        MPI_Type_free(&c->t);
    free(c->r.e);
}

/* A buffer covering count elements of the reference layout; *base_p is where buf points. */
typedef struct span {
    char *mem, *buf;
    size_t bytes;
} span_t;

static span_t span_alloc(const ref_t *r, int count)
{
    ptrdiff_t lo, hi, ext = ref_extent(r), last = (ptrdiff_t)(count - 1) * ext;
    ref_true(r, &lo, &hi);
    lo += last < 0 ? last : 0;
    hi += last > 0 ? last : 0;
    span_t s;
    s.bytes = (size_t)(hi - lo) + 1;
    s.mem = calloc(1, s.bytes);
    assert_non_null(s.mem);
    s.buf = s.mem - lo;
    return s;
}

static size_t ref_pack(const ref_t *r, const char *buf, int count, char *out)
{
    size_t pos = 0;
    for (int i = 0; i < count; i++)
        for (size_t k = 0; k < r->n; k++) {
            memcpy(out + pos, buf + i * ref_extent(r) + r->e[k].disp, r->e[k].len);
            pos += r->e[k].len;
        }
    return pos;
}

static void ref_unpack(const ref_t *r, char *buf, int count, const char *in)
{
    size_t pos = 0;
    for (int i = 0; i < count; i++)
        for (size_t k = 0; k < r->n; k++) {
            memcpy(buf + i * ref_extent(r) + r->e[k].disp, in + pos, r->e[k].len);
            pos += r->e[k].len;
        }
}

static void check_bounds(const dtcase_t *c)
{
    MPI_Aint lb, ext, tlb, text;
    ptrdiff_t lo, hi;
    int size;
    ref_true(&c->r, &lo, &hi);
    assert_int_equal(MPI_Type_size(c->t, &size), MPI_SUCCESS);
    assert_int_equal(MPI_Type_get_extent(c->t, &lb, &ext), MPI_SUCCESS);
    assert_int_equal(MPI_Type_get_true_extent(c->t, &tlb, &text), MPI_SUCCESS);
    assert_int_equal(size, c->r.size);
    assert_int_equal(lb, c->r.bounded ? c->r.lb : 0);
    assert_int_equal(ext, c->r.bounded ? ref_extent(&c->r) : 0);
    assert_int_equal(tlb, lo);
    assert_int_equal(text, hi - lo);
    /* The flattened blocks span exactly the true extent. */
    const ibex_dt_t *dt = ibex_dt_get(c->t);
    for (int i = 0; i < dt->nblocks; i++) {
        assert_true(dt->blocks[i].disp >= tlb);
        assert_true(dt->blocks[i].disp + (MPI_Aint)dt->blocks[i].len <= tlb + text);
    }
}

/* Random cut points: the pieces packed at their offsets must equal the whole pack. */
static void check_fragments(const ibex_dt_t *dt, const char *src, char *dst, int count,
                            const char *whole, size_t total)
{
    char *pieces = malloc(total + 1);
    assert_non_null(pieces);
    for (int trial = 0; trial < 20; trial++) {
        size_t off = 0;
        memset(pieces, 0, total);
        while (off < total) {
            size_t len = 1 + (size_t)rand() % (trial < 10 ? 7 : total);
            size_t got = ibex_dt_pack(src, count, dt, off, pieces + off, len);
            assert_int_equal(got, len < total - off ? len : total - off);
            off += got;
        }
        assert_memory_equal(pieces, whole, total);
        for (off = 0; off < total;) { /* unpack in other random pieces */
            size_t len = 1 + (size_t)rand() % (trial < 10 ? 5 : total);
            off += ibex_dt_unpack(dst, count, dt, off, whole + off, len);
        }
    }
    assert_int_equal(ibex_dt_pack(src, count, dt, total, pieces, 8), 0);
    free(pieces);
}

static void check_case(dtcase_t *c)
{
    check_bounds(c);
    assert_int_equal(MPI_Type_commit(&c->t), MPI_SUCCESS);
    const ibex_dt_t *dt = ibex_dt_get(c->t);
    for (int count = 0; count <= 3; count++) {
        span_t src = span_alloc(&c->r, count), d1 = span_alloc(&c->r, count);
        span_t d2 = span_alloc(&c->r, count), d3 = span_alloc(&c->r, count);
        size_t total = c->r.size * (size_t)count;
        char *want = malloc(total + 1), *got = malloc(total + 1);
        for (size_t i = 0; i < src.bytes; i++)
            src.mem[i] = (char)rand();
        assert_int_equal(ref_pack(&c->r, src.buf, count, want), total);
        assert_int_equal(ibex_dt_pack(src.buf, count, dt, 0, got, total + 1), total);
        assert_memory_equal(got, want, total);
        int pos = 0;
        assert_int_equal(MPI_Pack(src.buf, count, c->t, got, (int)total, &pos, MPI_COMM_WORLD),
                         MPI_SUCCESS);
        assert_int_equal(pos, total);
        assert_memory_equal(got, want, total);
        /* Unpacking touches exactly the type's bytes, whole or in pieces. */
        ref_unpack(&c->r, d1.buf, count, want);
        assert_int_equal(ibex_dt_unpack(d2.buf, count, dt, 0, want, total), total);
        assert_memory_equal(d2.mem, d1.mem, d1.bytes);
        check_fragments(dt, src.buf, d3.buf, count, want, total);
        assert_memory_equal(d3.mem, d1.mem, d1.bytes);
        pos = 0;
        memset(d2.mem, 0, d2.bytes);
        assert_int_equal(MPI_Unpack(want, (int)total, &pos, d2.buf, count, c->t, MPI_COMM_WORLD),
                         MPI_SUCCESS);
        assert_memory_equal(d2.mem, d1.mem, d1.bytes);
        free(want);
        free(got);
        free(src.mem);
        free(d1.mem);
        free(d2.mem);
        free(d3.mem);
    }
}

static void test_every_constructor(void **state)
{
    (void)state;
    srand(12345);
    dtcase_t i4 = basic(MPI_INT, 4), d8 = basic(MPI_DOUBLE, 8), s2 = basic(MPI_SHORT, 2);
    dtcase_t f4 = basic(MPI_FLOAT, 4), c1 = basic(MPI_CHAR, 1);
    dtcase_t di = pair(MPI_DOUBLE_INT, 8, 8, 4, 16), si = pair(MPI_SHORT_INT, 2, 4, 4, 8);
    dtcase_t cases[24];
    int n = 0;
    cases[n++] = mk_contig(5, &i4);
    cases[n++] = mk_hvector(4, 2, 3, false, &d8);
    cases[n++] = mk_hvector(3, 2, -4, false, &s2);
    cases[n++] = mk_hvector(3, 1, 7, true, &i4);
    int il[] = {3, 0, 2, 1}, id[] = {6, 1, 0, 10};
    cases[n++] = mk_indexed(4, il, id, &i4);
    int hl[] = {2, 1};
    MPI_Aint hd[] = {-16, 24};
    cases[n++] = mk_hindexed(2, hl, hd, &d8);
    int bd[] = {5, 0, 9};
    cases[n++] = mk_indexed_block(3, 2, bd, &f4);
    MPI_Aint hbd[] = {0, -40};
    cases[n++] = mk_hindexed_block(2, 3, hbd, &s2);
    /* struct with gaps and mixed types: char[3] at 0, double at 8, int[2] at 20 */
    int sl[] = {3, 1, 2};
    MPI_Aint sd[] = {0, 8, 20};
    const dtcase_t *st[] = {&c1, &d8, &i4};
    dtcase_t gaps = mk_struct(3, sl, sd, st);
    cases[n++] = gaps;
    dtcase_t v2 = mk_hvector(2, 1, 3, false, &i4);
    cases[n++] = mk_resized(&v2, -8, 40);           /* negative lb */
    cases[n++] = mk_hvector(2, 2, 3, false, &gaps); /* nested */
    dtcase_t rs = mk_resized(&gaps, -4, 48);
    cases[n++] = mk_contig(2, &rs);
    cases[n++] = mk_dup(&cases[1]);
    cases[n++] = di;
    cases[n++] = mk_contig(3, &si); /* pair blocks merge across elements */
    int pl[] = {1, 2};
    MPI_Aint pd[] = {100, 0};
    const dtcase_t *pt[] = {&rs, &di};
    cases[n++] = mk_struct(2, pl, pd, pt); /* sticky member and a plain one */
    dtcase_t neg = mk_resized(&i4, 0, -8);
    cases[n++] = mk_contig(3, &neg);              /* copies run downwards */
    cases[n++] = mk_hvector(3, 1, 12, true, &di); /* overlapping extents, disjoint data */
    int ol[] = {1};
    MPI_Aint od[] = {8};
    const dtcase_t *ot[] = {&i4};
    dtcase_t shifted = mk_struct(1, ol, od, ot); /* one block at 8, extent 4: dense */
    cases[n] = mk_contig(3, &shifted);
    n++;
    cases[n] = mk_hvector(2, 1, 5, false, &cases[n - 1]); /* gaps between dense runs */
    n++;
    for (int i = 0; i < n; i++)
        for (int vec = 0; vec <= 1; vec++) {
            printf("# case %d: %s (vector path %s)\n", i, cases[i].what, vec ? "on" : "off");
            ibex_engine_cfg.dt_vector = vec;
            check_case(&cases[i]);
        }
    for (int i = 0; i < n; i++)
        if (cases[i].t != di.t)
            case_free(&cases[i]);
    case_free(&v2);
    case_free(&rs);
    case_free(&neg);
    case_free(&shifted);
    free(i4.r.e), free(d8.r.e), free(s2.r.e), free(f4.r.e), free(c1.r.e), free(di.r.e);
    free(si.r.e);
}

/* One case of test_vector_shapes: its regular shape (block length, blocks per row, rows), or
 * len 0 when it must walk its blocks. */
static void check_shape(dtcase_t *c, size_t len, size_t n_in, size_t n_out)
{
    assert_int_equal(MPI_Type_commit(&c->t), MPI_SUCCESS);
    const ibex_dt_vec_t *v = &ibex_dt_priv(ibex_dt_get(c->t))->vec;
    printf("# shape: %s, block %zu x %zu x %zu\n", c->what, v->len, v->n_in, v->n_out);
    assert_int_equal(v->len, len);
    if (len) {
        assert_int_equal(v->n_in, n_in);
        assert_int_equal(v->n_out, n_out);
    }
    for (int vec = 0; vec <= 1; vec++) {
        ibex_engine_cfg.dt_vector = vec;
        check_case(c);
    }
    case_free(c);
}

/* Regular layouts take the specialised loops (block lengths 8, 16, 32, 64 and others, nested
 * once, negative strides, strided resized types, indexed with empty blocks), and the pack is
 * the reference's at every offset (check_case's random fragments start and end inside
 * blocks); irregular ones keep the block walk. */
static void test_vector_shapes(void **state)
{
    (void)state;
    srand(777);
    dtcase_t d8 = basic(MPI_DOUBLE, 8), i4 = basic(MPI_INT, 4), c1 = basic(MPI_CHAR, 1);
    dtcase_t c;
    c = mk_hvector(37, 1, 2, false, &d8);
    check_shape(&c, 8, 37, 1);
    c = mk_hvector(29, 2, 3, false, &d8);
    check_shape(&c, 16, 29, 1);
    c = mk_hvector(17, 4, 7, false, &d8);
    check_shape(&c, 32, 17, 1);
    c = mk_hvector(9, 8, 9, false, &d8);
    check_shape(&c, 64, 9, 1);
    c = mk_hvector(11, 3, 40, true, &i4); /* 12-byte blocks: memcpy */
    check_shape(&c, 12, 11, 1);
    c = mk_hvector(6, 1, -24, true, &d8); /* downwards */
    check_shape(&c, 8, 6, 1);
    c = mk_hvector(5, 7, 9, false, &c1); /* 7-byte blocks */
    check_shape(&c, 7, 5, 1);
    dtcase_t col = mk_hvector(5, 1, 2, false, &d8);
    c = mk_hvector(3, 1, 1000, true, &col); /* a vector of vectors: 3 rows of 5 */
    check_shape(&c, 8, 5, 3);
    c = mk_hvector(4, 1, -200, true, &col); /* rows downwards */
    check_shape(&c, 8, 5, 4);
    dtcase_t rcol = mk_resized(&col, -16, 160); /* count > 1: elements 160 apart */
    c = mk_contig(1, &rcol);
    check_shape(&c, 8, 5, 1);
    c = mk_resized(&i4, 0, 12); /* one block, extent 12: every element one block */
    check_shape(&c, 4, 1, 1);
    int zl[] = {2, 0, 2, 2}, zd[] = {0, 1, 3, 6};
    c = mk_indexed(4, zl, zd, &i4); /* an empty block dropped, the rest 12 bytes apart */
    check_shape(&c, 8, 3, 1);
    int il[] = {3, 0, 2, 1}, id[] = {6, 1, 0, 10};
    c = mk_indexed(4, il, id, &i4);
    check_shape(&c, 0, 0, 0);
    int gl[] = {1, 1, 1}, gd[] = {0, 2, 5};
    c = mk_indexed(3, gl, gd, &i4); /* equal blocks, uneven gaps */
    check_shape(&c, 0, 0, 0);
    dtcase_t si = pair(MPI_SHORT_INT, 2, 4, 4, 8);
    c = mk_contig(3, &si); /* 2- and 4-byte blocks */
    check_shape(&c, 0, 0, 0);
    case_free(&col);
    case_free(&rcol);
    free(d8.r.e), free(i4.r.e), free(c1.r.e), free(si.r.e);
}

/* One layout of test_vector_kernels: n blocks of b bytes, stride apart (vector or hvector of
 * MPI_BYTE), resized to extent ext when ext > 0, count elements, the buffer off by align. */
typedef struct kcase {
    int n, b, count, align;
    MPI_Aint stride, ext;
    bool hvec;
} kcase_t;

static void ref_kpack(const kcase_t *k, const char *base, MPI_Aint ext, char *out)
{
    for (int e = 0; e < k->count; e++)
        for (int i = 0; i < k->n; i++, out += k->b)
            memcpy(out, base + e * ext + i * k->stride, (size_t)k->b);
}

static void ref_kunpack(const kcase_t *k, char *base, MPI_Aint ext, const char *in)
{
    for (int e = 0; e < k->count; e++)
        for (int i = 0; i < k->n; i++, in += k->b)
            memcpy(base + e * ext + i * k->stride, in, (size_t)k->b);
}

/* Whole and in random pieces, pack and unpack against the reference; unpacking leaves every
 * byte outside the blocks (the gaps, the margins) as it was. */
static void check_kcase(const kcase_t *k)
{
    MPI_Datatype v, t;
    if (k->hvec)
        assert_int_equal(MPI_Type_create_hvector(k->n, k->b, k->stride, MPI_BYTE, &v), 0);
    else
        assert_int_equal(MPI_Type_vector(k->n, k->b, (int)k->stride, MPI_BYTE, &v), 0);
    t = v;
    if (k->ext > 0)
        assert_int_equal(MPI_Type_create_resized(v, 0, k->ext, &t), 0);
    assert_int_equal(MPI_Type_commit(&t), MPI_SUCCESS);
    const ibex_dt_t *dt = ibex_dt_get(t);
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    if (k->n > 1 && k->stride != k->b)
        assert_int_equal(ibex_dt_priv(dt)->vec.len, k->b); /* it takes the kernels */
    size_t span = (size_t)((k->count - 1) * ext + text), total = (size_t)(k->n * k->b * k->count);
    char *src = malloc(span + 32), *d1 = malloc(span + 32), *d2 = malloc(span + 32);
    char *want = malloc(total), *got = malloc(total);
    for (size_t i = 0; i < span + 32; i++)
        src[i] = (char)rand(), d1[i] = d2[i] = (char)(0xa5 ^ i);
    /* the buffer at base: its lowest byte of data 16 + align bytes into the allocation */
    ptrdiff_t at = 16 + k->align - tlb;
    ref_kpack(k, src + at, ext, want);
    assert_int_equal(ibex_dt_pack(src + at, k->count, dt, 0, got, total), total);
    assert_memory_equal(got, want, total);
    memset(got, 0, total);
    for (size_t off = 0; off < total;) {
        size_t len = 1 + (size_t)rand() % (rand() % 2 ? 70 : total);
        off += ibex_dt_pack(src + at, k->count, dt, off, got + off, len);
    }
    assert_memory_equal(got, want, total);
    ref_kunpack(k, d1 + at, ext, want);
    for (size_t off = 0; off < total;) {
        size_t len = 1 + (size_t)rand() % (rand() % 2 ? 70 : total);
        off += ibex_dt_unpack(d2 + at, k->count, dt, off, want + off, len);
    }
    assert_memory_equal(d2, d1, span + 32);
    memcpy(d2, src, span + 32); /* whole, over other bytes */
    memcpy(d1, src, span + 32);
    ref_kunpack(k, d1 + at, ext, got);
    assert_int_equal(ibex_dt_unpack(d2 + at, k->count, dt, 0, got, total), total);
    assert_memory_equal(d2, d1, span + 32);
    free(src), free(d1), free(d2), free(want), free(got);
    if (t != v)
        MPI_Type_free(&t);
    MPI_Type_free(&v);
}

/* The copy kernels of dt_vec.c at every level this CPU has (plain C, SSE2, AVX2): block lengths
 * around the specialised 8, 16, 32, 64, odd and even block counts around the kernels' steps (4,
 * 8, 16), gaps of a block, a byte and 8 bytes, negative strides, vector and hvector, resized
 * elements (count 3), the buffer 0-7 bytes off any alignment. */
static void test_vector_kernels(void **state)
{
    (void)state;
    srand(4242);
    static const int blens[] = {1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 63, 64, 65, 128};
    static const int ns[] = {2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 101};
    int best = ibex_dt_vec_level(-1), cases = 0;
    ibex_engine_cfg.dt_vector = 1;
    for (int level = 0; level <= best; level++) {
        assert_int_equal(ibex_dt_vec_level(level), level);
        for (size_t bi = 0; bi < sizeof(blens) / sizeof(*blens); bi++)
            for (size_t ni = 0; ni < sizeof(ns) / sizeof(*ns); ni++)
                for (int g = 0; g < 4; g++) {
                    int b = blens[bi];
                    MPI_Aint gaps[] = {2 * b, b + 1, b + 8, -2 * b};
                    kcase_t k = {.n = ns[ni], .b = b, .count = 1, .stride = gaps[g]};
                    k.hvec = (bi + ni + (size_t)g) % 2;
                    k.align = (int)(bi * 3 + ni + (size_t)g) % 8;
                    check_kcase(&k);
                    k.count = 3; /* elements one resized extent apart, past the last gap */
                    k.ext = k.stride > 0 ? k.n * k.stride + 8 : 0;
                    k.align = (k.align + 5) % 8;
                    check_kcase(&k);
                    cases += 2;
                }
    }
    for (int align = 0; align < 8; align++) { /* the halo's shape at every misalignment */
        kcase_t k = {.n = 1000, .b = 8, .count = 1, .stride = 16, .align = align};
        check_kcase(&k);
        k.b = 64, k.stride = 128, k.n = 100;
        check_kcase(&k);
    }
    printf("# %d layouts at kernel levels 0-%d\n", cases, best);
    ibex_dt_vec_level(-1);
}

/* Fragments of a large, many-block message: 4 KiB windows at a random phase cover it exactly. */
static void test_large_fragments(void **state)
{
    (void)state;
    enum { N = 100000 };
    MPI_Datatype v;
    int *src = malloc(3 * N * sizeof(int)), *back = calloc(3 * N, sizeof(int));
    int *packed = malloc(N * sizeof(int));
    assert_int_equal(MPI_Type_vector(N, 1, 3, MPI_INT, &v), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&v), MPI_SUCCESS);
    const ibex_dt_t *dt = ibex_dt_get(v);
    assert_int_equal(dt->nblocks, N);
    for (int i = 0; i < 3 * N; i++)
        src[i] = i;
    size_t total = N * sizeof(int), off = 0, first = 1 + (size_t)rand() % 4096;
    ibex_engine_cfg.dt_vector = rand() % 2;
    while (off < total) {
        size_t len = off == 0 ? first : 4096;
        size_t got = ibex_dt_pack(src, 1, dt, off, (char *)packed + off, len);
        ibex_dt_unpack(back, 1, dt, off, (char *)packed + off, got);
        off += got;
    }
    for (int i = 0; i < N; i++) {
        assert_int_equal(packed[i], 3 * i);
        assert_int_equal(back[3 * i], 3 * i);
        assert_int_equal(back[3 * i + 1], 0);
    }
    MPI_Type_free(&v);
    free(src);
    free(back);
    free(packed);
}

/* ibex_dt_iov: the pieces of any stream window, in order, gather to exactly what pack gives;
 * adjacent blocks merge; too few slots answer -1. */
static void test_iov_pieces(void **state)
{
    (void)state;
    enum { N = 1000 };
    MPI_Datatype v, r;
    int *src = malloc(4 * N * sizeof(int)), *packed = malloc(2 * N * sizeof(int));
    struct iovec *iov = malloc(2 * N * sizeof(*iov));
    char *gathered = malloc(2 * N * sizeof(int));
    assert_int_equal(MPI_Type_vector(N, 2, 4, MPI_INT, &v), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&v), MPI_SUCCESS);
    const ibex_dt_t *dt = ibex_dt_get(v);
    for (int i = 0; i < 4 * N; i++)
        src[i] = i;
    size_t total = 2 * N * sizeof(int);
    for (int k = 0; k < 50; k++) {
        size_t off = (size_t)rand() % total, len = 1 + (size_t)rand() % (total - off);
        int n = ibex_dt_iov(src, 1, dt, off, len, iov, 2 * N);
        assert_true(n > 0 && n <= N + 1);
        size_t at = 0;
        for (int i = 0; i < n; i++) {
            assert_true(iov[i].iov_len > 0 && iov[i].iov_len <= 8);
            memcpy(gathered + at, iov[i].iov_base, iov[i].iov_len);
            at += iov[i].iov_len;
        }
        assert_int_equal(at, len);
        assert_int_equal(ibex_dt_pack(src, 1, dt, off, packed, len), len);
        assert_memory_equal(gathered, packed, len);
    }
    assert_int_equal(ibex_dt_iov(src, 1, dt, 0, total, iov, N - 1), -1);
    assert_int_equal(ibex_dt_iov(src, 1, dt, total, 8, iov, N), 0); /* past the end */
    /* a vector resized to its stride, count N: element i's block follows element i - 1's
     * gap, never its block, so nothing merges; a dense one is a single piece */
    assert_int_equal(MPI_Type_create_resized(MPI_INT, 0, 8, &r), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&r), MPI_SUCCESS);
    assert_int_equal(ibex_dt_iov(src, N, ibex_dt_get(r), 0, N * 4, iov, N), N);
    assert_int_equal(ibex_dt_iov(src, N, ibex_dt_get(MPI_INT), 0, N * 4, iov, N), 1);
    assert_int_equal(iov[0].iov_len, N * 4);
    MPI_Type_free(&v);
    MPI_Type_free(&r);
    free(src), free(packed), free(iov), free(gathered);
}

/* MPI_BOTTOM with absolute addresses: the displacements are the variables' addresses. */
static void test_bottom_absolute(void **state)
{
    (void)state;
    int a = 42;
    double b[2] = {1.5, -2.5};
    short c = 7;
    int lens[] = {1, 2, 1};
    MPI_Aint disps[] = {(MPI_Aint)(uintptr_t)&a, (MPI_Aint)(uintptr_t)b, (MPI_Aint)(uintptr_t)&c};
    MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE, MPI_SHORT}, t;
    char out[64], want[22];
    int pos = 0;
    assert_int_equal(MPI_Type_create_struct(3, lens, disps, types, &t), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&t), MPI_SUCCESS);
    assert_int_equal(MPI_Pack(MPI_BOTTOM, 1, t, out, sizeof(out), &pos, MPI_COMM_WORLD),
                     MPI_SUCCESS);
    assert_int_equal(pos, 22);
    memcpy(want, &a, 4);
    memcpy(want + 4, b, 16);
    memcpy(want + 20, &c, 2);
    assert_memory_equal(out, want, 22);
    a = 0, b[0] = b[1] = 0, c = 0;
    pos = 0;
    assert_int_equal(MPI_Unpack(out, 22, &pos, MPI_BOTTOM, 1, t, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_true(a == 42 && b[0] == 1.5 && b[1] == -2.5 && c == 7);
    MPI_Type_free(&t);
}

static void test_pack_positions_and_errors(void **state)
{
    (void)state;
    int x[3] = {1, 2, 3}, y[3] = {0};
    double d = 3.25, e = 0;
    char buf[32];
    int pos = 0, size;
    MPI_Datatype u;
    assert_int_equal(MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &size), MPI_SUCCESS);
    assert_int_equal(size, 12);
    assert_int_equal(MPI_Pack(x, 3, MPI_INT, buf, sizeof(buf), &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Pack(&d, 1, MPI_DOUBLE, buf, sizeof(buf), &pos, MPI_COMM_WORLD),
                     MPI_SUCCESS);
    assert_int_equal(pos, 20);
    /* 20 + 16 > 32: nothing written, position unchanged */
    assert_mpi_err(MPI_ERR_TRUNCATE, MPI_Pack(x, 2, MPI_DOUBLE, buf, sizeof(buf), &pos, 0));
    assert_int_equal(pos, 20);
    int end = pos;
    pos = 0;
    assert_int_equal(MPI_Unpack(buf, end, &pos, y, 3, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Unpack(buf, end, &pos, &e, 1, MPI_DOUBLE, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_true(y[0] == 1 && y[2] == 3 && e == 3.25 && pos == 20);
    assert_mpi_err(MPI_ERR_TRUNCATE, MPI_Unpack(buf, end, &pos, y, 1, MPI_INT, 0));
    pos = 0;
    assert_mpi_err(MPI_ERR_COUNT, MPI_Pack(x, -1, MPI_INT, buf, sizeof(buf), &pos, 0));
    assert_mpi_err(MPI_ERR_TYPE, MPI_Pack(x, 1, MPI_DATATYPE_NULL, buf, sizeof(buf), &pos, 0));
    assert_mpi_err(MPI_ERR_COUNT, MPI_Pack_size(-1, MPI_INT, 0, &size));
    assert_int_equal(MPI_Type_contiguous(2, MPI_INT, &u), MPI_SUCCESS);
    assert_mpi_err(MPI_ERR_TYPE, MPI_Pack(x, 1, u, buf, sizeof(buf), &pos, 0));
    assert_mpi_err(MPI_ERR_TYPE, MPI_Unpack(buf, 8, &pos, x, 1, u, 0));
    assert_int_equal(MPI_Pack_size(2, u, 0, &size), MPI_SUCCESS); /* sizes need no commit */
    assert_int_equal(size, 16);
    assert_mpi_err(MPI_ERR_ARG, MPI_Pack(x, 1, MPI_INT, buf, sizeof(buf), NULL, 0));
    MPI_Type_free(&u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_every_constructor),         T(test_vector_shapes), T(test_vector_kernels),
        T(test_large_fragments),           T(test_iov_pieces),    T(test_bottom_absolute),
        T(test_pack_positions_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
