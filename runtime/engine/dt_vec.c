/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Regular (vector-shaped) layouts: finding the shape when a type is built, and copying any
 * stream window of such a type without reading a block descriptor (dt_pack.c calls
 * ibex_dt_vec_copy). A window is cut into runs of whole blocks inside one row; a run of 4 or more
 * blocks of 8, 16, 32 or 64 bytes goes to a kernel for that block length, the rest (partial
 * blocks, short runs, other lengths) to an inline loop of fixed-size or memcpy moves.
 *
 * Kernels by level (chosen once at load, from the CPU; ibex_dt_vec_level for the tests):
 *   0  plain C: one fixed-size move per block (two instructions for 8 bytes);
 *   1  SSE2 (every x86-64): 8-byte blocks two to a 16-byte register (movq + movhpd loads, one
 *      16-byte store; unpack: one load, movlpd + movhpd stores): 1.5 moves a block;
 *   2  AVX2: 8-byte blocks as SSE2 (four to a 32-byte store needs two inserts more, on the
 *      shuffle port that movhpd already loads), 16-byte blocks two to a 32-byte register either
 *      way, 32- and 64-byte blocks in 32-byte moves (one and two a block, SSE2 needs twice that).
 * No kernel reads or writes a byte outside the blocks (the gaps belong to the user, and the last
 * block may end a page), and none needs alignment (a halo's rows start anywhere).
 */
#include <string.h>

#include "dt_priv.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define DT_VEC_X86 1
#else
#define DT_VEC_X86 0
#endif

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
 * each use, so every copy is a few fixed moves. */
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

/* A kernel: k blocks of its length between mem (stride apart) and packed. */
typedef void vec_kernel_t(char *mem, ptrdiff_t stride, char *packed, size_t k);

#define VEC_PLAIN(n)                                                                               \
    static void vec_pack##n##_c(char *mem, ptrdiff_t stride, char *packed, size_t k)               \
    {                                                                                              \
        vec_blocks_n(mem, stride, packed, k, n, true);                                             \
    }                                                                                              \
    static void vec_unpack##n##_c(char *mem, ptrdiff_t stride, char *packed, size_t k)             \
    {                                                                                              \
        vec_blocks_n(mem, stride, packed, k, n, false);                                            \
    }
VEC_PLAIN(8)
VEC_PLAIN(16)
VEC_PLAIN(32)
VEC_PLAIN(64)
#undef VEC_PLAIN

#if DT_VEC_X86
/* Two 8-byte blocks of memory as one register: movsd, then movhpd (no alignment needed). The
 * low half goes through memcpy because _mm_load_sd dereferences a double pointer, which the
 * user's buffer need not align (undefined behaviour, and UBSan says so); movhpd is a builtin. */
static inline __attribute__((always_inline)) __m128d load2x8(const char *a, const char *b)
{
    double lo;
    memcpy(&lo, a, sizeof(lo));
    return _mm_loadh_pd(_mm_set_sd(lo), (const double *)b);
}

/* One 16-byte load stored as two 8-byte blocks: movlpd, movhpd (memcpy of each half, for the
 * same reason: _mm_storel_pd / _mm_storeh_pd store through a double pointer). The empty asm
 * keeps the register whole (gcc would otherwise split the load into two 8-byte ones: 4 moves,
 * not 3). */
static inline __attribute__((always_inline)) void store2x8(char *a, char *b, __m128d x)
{
    __asm__("" : "+x"(x));
    double lo = _mm_cvtsd_f64(x), hi = _mm_cvtsd_f64(_mm_unpackhi_pd(x, x));
    memcpy(a, &lo, sizeof(lo));
    memcpy(b, &hi, sizeof(hi));
}

/* Four 8-byte blocks from m (s apart) to 32 packed bytes, and back. */
static inline __attribute__((always_inline)) void pack4x8(const char *m, ptrdiff_t s, char *p)
{
    _mm_storeu_pd((double *)p, load2x8(m, m + s));
    _mm_storeu_pd((double *)(p + 16), load2x8(m + 2 * s, m + 3 * s));
}

static inline __attribute__((always_inline)) void unpack4x8(char *m, ptrdiff_t s, const char *p)
{
    store2x8(m, m + s, _mm_loadu_pd((const double *)p));
    store2x8(m + 2 * s, m + 3 * s, _mm_loadu_pd((const double *)(p + 16)));
}

/* 8 blocks a step: 12 moves and 5 of loop (16 a step spills the stride's multiples). */
static void vec_pack8_sse2(char *mem, ptrdiff_t s, char *packed, size_t k)
{
    char *end = packed + (k & ~(size_t)7) * 8;
    for (; packed < end; packed += 64, mem += 8 * s) {
        pack4x8(mem, s, packed);
        pack4x8(mem + 4 * s, s, packed + 32);
    }
    vec_blocks_n(mem, s, packed, k & 7, 8, true);
}

static void vec_unpack8_sse2(char *mem, ptrdiff_t s, char *packed, size_t k)
{
    char *end = packed + (k & ~(size_t)7) * 8;
    for (; packed < end; packed += 64, mem += 8 * s) {
        unpack4x8(mem, s, packed);
        unpack4x8(mem + 4 * s, s, packed + 32);
    }
    vec_blocks_n(mem, s, packed, k & 7, 8, false);
}

#define AVX2 __attribute__((target("avx2")))

/* Two 16-byte blocks into one 32-byte register: a load and an insert from memory. */
static AVX2 void vec_pack16_avx2(char *mem, ptrdiff_t s, char *packed, size_t k)
{
    char *end = packed + (k & ~(size_t)3) * 16;
    for (; packed < end; packed += 64, mem += 4 * s) {
        __m128i a = _mm_loadu_si128((const __m128i *)mem);
        __m128i b = _mm_loadu_si128((const __m128i *)(mem + s));
        __m128i c = _mm_loadu_si128((const __m128i *)(mem + 2 * s));
        __m128i d = _mm_loadu_si128((const __m128i *)(mem + 3 * s));
        _mm256_storeu_si256((__m256i *)packed, _mm256_set_m128i(b, a));
        _mm256_storeu_si256((__m256i *)(packed + 32), _mm256_set_m128i(d, c));
    }
    vec_blocks_n(mem, s, packed, k & 3, 16, true);
}

static AVX2 void vec_unpack16_avx2(char *mem, ptrdiff_t s, char *packed, size_t k)
{
    char *end = packed + (k & ~(size_t)3) * 16;
    for (; packed < end; packed += 64, mem += 4 * s) {
        __m256i a = _mm256_loadu_si256((const __m256i *)packed);
        __m256i b = _mm256_loadu_si256((const __m256i *)(packed + 32));
        _mm_storeu_si128((__m128i *)mem, _mm256_castsi256_si128(a));
        _mm_storeu_si128((__m128i *)(mem + s), _mm256_extracti128_si256(a, 1));
        _mm_storeu_si128((__m128i *)(mem + 2 * s), _mm256_castsi256_si128(b));
        _mm_storeu_si128((__m128i *)(mem + 3 * s), _mm256_extracti128_si256(b, 1));
    }
    vec_blocks_n(mem, s, packed, k & 3, 16, false);
}

/* 32- and 64-byte blocks in 32-byte moves (gcc's own expansion of a fixed 32-byte memcpy
 * stays at 16-byte moves under its generic tuning). */
static inline __attribute__((always_inline, target("avx2"))) void mov32(char *d, const char *s)
{
    _mm256_storeu_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)s));
}

/* k blocks of n (32 or 64) bytes, 128 packed bytes a step, then the rest one by one. */
static inline __attribute__((always_inline, target("avx2"))) void
vec_big_avx2(char *mem, ptrdiff_t s, char *packed, size_t k, size_t n, bool pack)
{
#define MOV(m, p) (pack ? mov32((p), (m)) : mov32((m), (p)))
    size_t u = 128 / n, j = 0;
    for (; j + u <= k; j += u, mem += (ptrdiff_t)u * s, packed += 128)
        for (size_t b = 0; b < u; b++)
            for (size_t i = 0; i < n; i += 32)
                MOV(mem + (ptrdiff_t)b * s + (ptrdiff_t)i, packed + b * n + i);
    for (; j < k; j++, mem += s, packed += n)
        for (size_t i = 0; i < n; i += 32)
            MOV(mem + i, packed + i);
#undef MOV
}

#define VEC_AVX2_BIG(n)                                                                            \
    static AVX2 void vec_pack##n##_avx2(char *mem, ptrdiff_t s, char *packed, size_t k)            \
    {                                                                                              \
        vec_big_avx2(mem, s, packed, k, n, true);                                                  \
    }                                                                                              \
    static AVX2 void vec_unpack##n##_avx2(char *mem, ptrdiff_t s, char *packed, size_t k)          \
    {                                                                                              \
        vec_big_avx2(mem, s, packed, k, n, false);                                                 \
    }
VEC_AVX2_BIG(32)
VEC_AVX2_BIG(64)
#undef VEC_AVX2_BIG
#undef AVX2
#define VEC_LEVEL_MAX 2
#else
#define VEC_LEVEL_MAX 0
#endif

/* [level][pack][log2(len) - 3] */
static vec_kernel_t *const vec_kernels[VEC_LEVEL_MAX + 1][2][4] = {
    {{vec_unpack8_c, vec_unpack16_c, vec_unpack32_c, vec_unpack64_c},
     {vec_pack8_c, vec_pack16_c, vec_pack32_c, vec_pack64_c}},
#if DT_VEC_X86
    {{vec_unpack8_sse2, vec_unpack16_c, vec_unpack32_c, vec_unpack64_c},
     {vec_pack8_sse2, vec_pack16_c, vec_pack32_c, vec_pack64_c}},
    {{vec_unpack8_sse2, vec_unpack16_avx2, vec_unpack32_avx2, vec_unpack64_avx2},
     {vec_pack8_sse2, vec_pack16_avx2, vec_pack32_avx2, vec_pack64_avx2}},
#endif
};

static int vec_level_best(void)
{
#if DT_VEC_X86
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 2 : 1;
#else
    return 0;
#endif
}

/* Set before main (no lock, no first-use test on the copy path). */
static int vec_level;
__attribute__((constructor)) static void vec_level_init(void)
{
    vec_level = vec_level_best();
}

int ibex_dt_vec_level(int level)
{
    int best = vec_level_best();
    vec_level = level < 0 || level > best ? best : level;
    return vec_level;
}

/* k whole blocks of len bytes: a kernel for long runs of the lengths it has, else inline. */
static inline __attribute__((always_inline)) void
vec_blocks(char *mem, ptrdiff_t stride, char *packed, size_t k, size_t n, bool pack)
{
    int idx = n == 8 ? 0 : n == 16 ? 1 : n == 32 ? 2 : n == 64 ? 3 : -1;
    if (idx >= 0 && k >= 4) {
        vec_kernels[vec_level][pack][idx](mem, stride, packed, k);
        return;
    }
    switch (n) {
    case 8:
        vec_blocks_n(mem, stride, packed, k, 8, pack);
        return;
    case 16:
        vec_blocks_n(mem, stride, packed, k, 16, pack);
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

void ibex_dt_vec_pack(const void *buf, const ibex_dt_t *dt, size_t offset, void *out, size_t len)
{
    vec_copy(buf, dt, offset, out, len, true);
}

void ibex_dt_vec_unpack(void *buf, const ibex_dt_t *dt, size_t offset, const void *in, size_t len)
{
    vec_copy(buf, dt, offset, (char *)in, len, false);
}
