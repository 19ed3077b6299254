/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packing: the packed stream of (buf, count, dt) is the bytes of the blocks of element 0, then
 * of element 1 (at buf + extent), and so on. Pack and unpack take any byte range of that stream
 * so that the protocols move a large non-contiguous message in fragments: the start is found
 * in O(log blocks) (element = offset / size, then a binary search of the block prefix sums),
 * and the copy costs O(blocks touched). A contiguous layout is one memcpy.
 *
 * A regular layout (a vector, possibly nested once, repeated every extent: priv->vec, found
 * when the type is built) skips the block list: dt_vec.c finds the start with three divisions
 * and copies the blocks with kernels specialised on their length (8, 16, 32, 64 bytes; SSE2 /
 * AVX2 where the CPU has them), reading no descriptor (IBEX_DT_VECTOR=0 turns it off).
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
        ibex_dt_vec_pack(buf, dt, offset, out, len);
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

void ibex_dt_fill(void *dst, size_t len, void *ctx)
{
    const ibex_dt_fill_t *f = ctx;
    ibex_dt_pack(f->buf, f->count, f->dt, f->offset, dst, len);
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
        ibex_dt_vec_unpack(buf, dt, offset, in, len);
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
