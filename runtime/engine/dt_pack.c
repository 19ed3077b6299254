/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packing: the packed stream of (buf, count, dt) is the bytes of the blocks of element 0, then
 * of element 1 (at buf + extent), and so on. Pack and unpack take any byte range of that stream
 * so that the protocols move a large non-contiguous message in fragments: the start is found
 * in O(log blocks) (element = offset / size, then a binary search of the block prefix sums),
 * and the copy costs O(blocks touched). A contiguous layout is one memcpy.
 *
 * A regular layout (a vector, possibly nested once, repeated every extent: priv->vec, found
 * when the type is built) skips the block list: the start is found with three divisions and the
 * blocks are copied by a loop specialised on their length (8, 16, 32, 64 bytes, else memcpy),
 * unrolled four times, reading no descriptor (IBEX_DT_VECTOR=0 turns it off).
 */
#include <string.h>

#include "dt_priv.h"
#include "ibex_engine_cfg.h"
#include "ibex_runtime.h"

/* Position in the stream: block `block` of element `elem`, `skip` bytes into that block. */
typedef struct dt_cursor {
    const ibex_dt_t *dt;
    char *base; /* start of the current element */
    int block;
    size_t skip;
} dt_cursor_t;

static void cursor_seek(dt_cursor_t *c, const ibex_dt_t *dt, const void *buf, size_t offset)
{
    const size_t *prefix = ibex_dt_priv(dt)->prefix;
    size_t elem = offset / dt->size, rest = offset % dt->size;
    int lo = 0, hi = dt->nblocks - 1;
    while (lo < hi) { /* last block whose prefix is <= rest */
        int mid = (lo + hi + 1) / 2;
        if (prefix[mid] <= rest)
            lo = mid;
        else
            hi = mid - 1;
    }
    c->dt = dt;
    c->base = ibex_dt_addr(buf, (ptrdiff_t)elem * dt->extent);
    c->block = lo;
    c->skip = rest - prefix[lo];
}

/* The next piece of at most max bytes at the cursor; advances past it. */
static inline __attribute__((always_inline)) char *cursor_next(dt_cursor_t *c, size_t max,
                                                               size_t *len_p)
{
    const ibex_dt_block_t *b = &c->dt->blocks[c->block];
    char *p = c->base + b->disp + c->skip;
    size_t len = b->len - c->skip;
    if (len > max) {
        c->skip += max;
        *len_p = max;
        return p;
    }
    c->skip = 0;
    if (++c->block == c->dt->nblocks) {
        c->block = 0;
        c->base += c->dt->extent;
    }
    *len_p = len;
    return p;
}

/* One block: the small sizes halo exchanges use get fixed-size copies the compiler inlines, not
 * a call to memcpy each (8-byte blocks: 28 us -> see runtime/engine/README.md per 64 KiB). */
static inline void dt_copy(char *dst, const char *src, size_t n)
{
    switch (n) {
    case 4:
        memcpy(dst, src, 4);
        return;
    case 8:
        memcpy(dst, src, 8);
        return;
    case 16:
        memcpy(dst, src, 16);
        return;
    case 32:
        memcpy(dst, src, 32);
        return;
    default:
        memcpy(dst, src, n);
    }
}

void ibex_dt_vec_detect(ibex_dt_t *dt)
{
    ibex_dt_vec_t *v = &ibex_dt_priv(dt)->vec;
    const ibex_dt_block_t *b = dt->blocks;
    int nb = dt->nblocks, n_in = 1;
    *v = (ibex_dt_vec_t){0};
    if (nb == 0 || dt->contiguous)
        return;
    ptrdiff_t s_in = nb > 1 ? b[1].disp - b[0].disp : 0;
    while (n_in < nb && b[n_in].len == b[0].len && b[n_in].disp == b[0].disp + n_in * s_in)
        n_in++;
    if (nb % n_in)
        return;
    ptrdiff_t s_out = nb > n_in ? b[n_in].disp - b[0].disp : 0;
    for (int i = n_in; i < nb; i += n_in) /* every further row: the first one moved by s_out */
        for (int k = 0; k < n_in; k++)
            if (b[i + k].len != b[0].len || b[i + k].disp != b[i - n_in + k].disp + s_out)
                return;
    *v = (ibex_dt_vec_t){.len = b[0].len,
                         .n_in = (size_t)n_in,
                         .n_out = (size_t)(nb / n_in),
                         .first = b[0].disp,
                         .stride_in = s_in,
                         .stride_out = s_out};
}

/* k blocks of n bytes, stride apart in memory, dense in the packed stream; n is a constant in
 * each of vec_blocks' cases, so every copy is a pair of moves. */
static inline __attribute__((always_inline)) void
vec_blocks_n(char *mem, ptrdiff_t stride, char *packed, size_t k, size_t n, bool pack)
{
#define VEC_COPY(m, p) (pack ? memcpy((p), (m), n) : memcpy((m), (p), n))
    size_t j = 0;
    for (; j + 4 <= k; j += 4, mem += 4 * stride, packed += 4 * n) {
        VEC_COPY(mem, packed);
        VEC_COPY(mem + stride, packed + n);
        VEC_COPY(mem + 2 * stride, packed + 2 * n);
        VEC_COPY(mem + 3 * stride, packed + 3 * n);
    }
    for (; j < k; j++, mem += stride, packed += n)
        VEC_COPY(mem, packed);
#undef VEC_COPY
}

static inline __attribute__((always_inline)) void
vec_blocks(char *mem, ptrdiff_t stride, char *packed, size_t k, size_t n, bool pack)
{
    switch (n) {
    case 8:
        vec_blocks_n(mem, stride, packed, k, 8, pack);
        return;
    case 16:
        vec_blocks_n(mem, stride, packed, k, 16, pack);
        return;
    case 32:
        vec_blocks_n(mem, stride, packed, k, 32, pack);
        return;
    case 64:
        vec_blocks_n(mem, stride, packed, k, 64, pack);
        return;
    default:
        vec_blocks_n(mem, stride, packed, k, n, pack);
    }
}

/* Position in a regular layout: block i_in of row i_out of the element at elem. */
typedef struct vec_cursor {
    char *elem;
    size_t i_in, i_out;
} vec_cursor_t;

static void vec_seek(vec_cursor_t *c, const ibex_dt_t *dt, const void *buf, size_t block)
{
    const ibex_dt_vec_t *v = &ibex_dt_priv(dt)->vec;
    size_t row = block / v->n_in;
    c->i_in = block % v->n_in;
    c->i_out = row % v->n_out;
    c->elem = ibex_dt_addr(buf, (ptrdiff_t)(row / v->n_out) * dt->extent);
}

/* Copies len bytes between stream position offset of (buf, dt) and packed; the caller has
 * clamped the range to the stream. */
static inline __attribute__((always_inline)) void
vec_copy(const void *buf, const ibex_dt_t *dt, size_t offset, char *packed, size_t len, bool pack)
{
    const ibex_dt_vec_t *v = &ibex_dt_priv(dt)->vec;
    vec_cursor_t c;
    size_t skip = offset % v->len;
    vec_seek(&c, dt, buf, offset / v->len);
    for (size_t done = 0, n; done < len; done += n) {
        char *row = c.elem + v->first + (ptrdiff_t)c.i_out * v->stride_out;
        char *p = row + (ptrdiff_t)c.i_in * v->stride_in;
        if (skip || len - done < v->len) { /* a partial block at either end of the range */
            n = len - done < v->len - skip ? len - done : v->len - skip;
            if (pack)
                memcpy(packed + done, p + skip, n);
            else
                memcpy(p + skip, packed + done, n);
            skip = 0;
            c.i_in++;
        } else {
            size_t k = v->n_in - c.i_in, fit = (len - done) / v->len;
            k = k < fit ? k : fit;
            vec_blocks(p, v->stride_in, packed + done, k, v->len, pack);
            n = k * v->len;
            c.i_in += k;
        }
        if (c.i_in < v->n_in)
            continue;
        c.i_in = 0;
        if (++c.i_out == v->n_out) {
            c.i_out = 0;
            c.elem += dt->extent;
        }
    }
}

static inline bool vec_use(const ibex_dt_t *dt)
{
    return ibex_dt_priv(dt)->vec.len > 0 && ibex_engine_cfg.dt_vector;
}

/* Clamps [offset, offset + len) to the stream; 0 when nothing is left. */
static size_t stream_clamp(MPI_Count count, const ibex_dt_t *dt, size_t offset, size_t len)
{
    size_t total = (size_t)count * dt->size;
    if (count <= 0 || offset >= total)
        return 0;
    return len < total - offset ? len : total - offset;
}

size_t ibex_dt_pack(const void *buf, MPI_Count count, const ibex_dt_t *dt, size_t offset, void *out,
                    size_t len)
{
    len = stream_clamp(count, dt, offset, len);
    if (len == 0)
        return 0;
    if (ibex_dt_is_contig(dt, count)) {
        memcpy(out, ibex_dt_addr(buf, dt->true_lb) + offset, len);
        return len;
    }
    if (vec_use(dt)) {
        vec_copy(buf, dt, offset, out, len, true);
        return len;
    }
    dt_cursor_t c;
    cursor_seek(&c, dt, buf, offset);
    for (size_t done = 0, n; done < len; done += n) {
        const char *p = cursor_next(&c, len - done, &n);
        dt_copy((char *)out + done, p, n);
    }
    return len;
}

size_t ibex_dt_unpack(void *buf, MPI_Count count, const ibex_dt_t *dt, size_t offset,
                      const void *in, size_t len)
{
    len = stream_clamp(count, dt, offset, len);
    if (len == 0)
        return 0;
    if (ibex_dt_is_contig(dt, count)) {
        memcpy(ibex_dt_addr(buf, dt->true_lb) + offset, in, len);
        return len;
    }
    if (vec_use(dt)) {
        vec_copy(buf, dt, offset, (char *)in, len, false);
        return len;
    }
    dt_cursor_t c;
    cursor_seek(&c, dt, buf, offset);
    for (size_t done = 0, n; done < len; done += n) {
        char *p = cursor_next(&c, len - done, &n);
        dt_copy(p, (const char *)in + done, n);
    }
    return len;
}

MPI_Count ibex_dt_elements(const ibex_dt_t *dt, MPI_Count bytes)
{
    const ibex_dt_priv_t *priv = ibex_dt_priv(dt);
    if (dt->size == 0 || bytes <= 0)
        return 0;
    if (dt->basic_type != -1 && dt->basic_size > 0)
        return bytes % (MPI_Count)dt->basic_size ? MPI_UNDEFINED
                                                 : bytes / (MPI_Count)dt->basic_size;
    MPI_Count n = bytes / (MPI_Count)dt->size * (MPI_Count)priv->nelems;
    size_t rest = (size_t)(bytes % (MPI_Count)dt->size);
    for (int i = 0; rest > 0 && i < priv->nruns; i++) {
        const ibex_dt_run_t *r = &priv->runs[i];
        size_t take = rest < r->n * r->bsize ? rest : r->n * r->bsize;
        if (take % r->bsize)
            return MPI_UNDEFINED;
        n += (MPI_Count)(take / r->bsize);
        rest -= take;
    }
    return n;
}

MPI_Count ibex_dt_elements_bytes(const ibex_dt_t *dt, MPI_Count nelems)
{
    const ibex_dt_priv_t *priv = ibex_dt_priv(dt);
    if (nelems <= 0 || priv->nelems == 0)
        return 0;
    MPI_Count bytes = nelems / (MPI_Count)priv->nelems * (MPI_Count)dt->size;
    MPI_Count rest = nelems % (MPI_Count)priv->nelems;
    for (int i = 0; rest > 0 && i < priv->nruns; i++) {
        MPI_Count take = rest < (MPI_Count)priv->runs[i].n ? rest : (MPI_Count)priv->runs[i].n;
        bytes += take * (MPI_Count)priv->runs[i].bsize;
        rest -= take;
    }
    return bytes;
}

int ibex_dt_iov(void *buf, MPI_Count count, const ibex_dt_t *dt, size_t offset, size_t len,
                struct iovec *iov, int max)
{
    len = stream_clamp(count, dt, offset, len);
    if (len == 0)
        return 0;
    dt_cursor_t c;
    cursor_seek(&c, dt, buf, offset);
    int k = 0;
    for (size_t done = 0, n; done < len; done += n) {
        char *p = cursor_next(&c, len - done, &n);
        if (k > 0 && (char *)iov[k - 1].iov_base + iov[k - 1].iov_len == p) {
            iov[k - 1].iov_len += n; /* adjacent blocks (of neighbouring elements) merge */
            continue;
        }
        if (k == max)
            return -1;
        iov[k++] = (struct iovec){.iov_base = p, .iov_len = n};
    }
    return k;
}
