/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Derived-type round trips through whichever protocol the sizes and the environment choose
 * (p2p_dt_paths.sh forces each: eager, PIPE, READ / WRITE / SPLIT rendezvous, piece-list
 * receives, with and without the vector pack path): vector, hvector with a negative stride,
 * indexed with zero-length blocks, struct with gaps, resized with a negative lower bound,
 * a vector of vectors, 64-byte and 4 KiB blocks, each at counts giving a small, a mid-sized
 * and a large message. Every case is checked against a pack done naively here from the
 * typemap the test writes out by hand (one (displacement, length) entry per block, elements
 * one extent apart): typed to contiguous gives the packed bytes, contiguous to typed writes
 * exactly the typemap's bytes (gaps untouched), typed to typed both.
 */
#include "mpitest.h"

typedef struct entry {
    MPI_Aint disp;
    int len;
} entry_t;

typedef struct tcase {
    const char *what;
    MPI_Datatype t;
    entry_t e[64];
    int n;
    MPI_Aint lb, extent; /* the type's, as the standard defines them for its constructor */
} tcase_t;

static void add(tcase_t *c, MPI_Aint disp, int len)
{
    if (len > 0) {
        CHECK(c->n < 64);
        c->e[c->n++] = (entry_t){disp, len};
    }
}

static int tsize(const tcase_t *c)
{
    int s = 0;
    for (int i = 0; i < c->n; i++)
        s += c->e[i].len;
    return s;
}

/* The lowest and one past the highest byte count elements touch. */
static void tspan(const tcase_t *c, int count, MPI_Aint *lo, MPI_Aint *hi)
{
    *lo = *hi = 0;
    for (int k = 0; k < count; k++)
        for (int i = 0; i < c->n; i++) {
            MPI_Aint a = (MPI_Aint)k * c->extent + c->e[i].disp, b = a + c->e[i].len;
            *lo = (k == 0 && i == 0) || a < *lo ? a : *lo;
            *hi = (k == 0 && i == 0) || b > *hi ? b : *hi;
        }
}

static void ref_pack(const tcase_t *c, const unsigned char *buf, int count, unsigned char *out)
{
    size_t pos = 0;
    for (int k = 0; k < count; k++)
        for (int i = 0; i < c->n; i++) {
            memcpy(out + pos, buf + (MPI_Aint)k * c->extent + c->e[i].disp, (size_t)c->e[i].len);
            pos += (size_t)c->e[i].len;
        }
}

static void ref_unpack(const tcase_t *c, unsigned char *buf, int count, const unsigned char *in)
{
    size_t pos = 0;
    for (int k = 0; k < count; k++)
        for (int i = 0; i < c->n; i++) {
            memcpy(buf + (MPI_Aint)k * c->extent + c->e[i].disp, in + pos, (size_t)c->e[i].len);
            pos += (size_t)c->e[i].len;
        }
}

static void commit(tcase_t *c)
{
    MPI_Aint lb, ext;
    int size;
    CHECK_RC(MPI_Type_commit(&c->t));
    CHECK_RC(MPI_Type_get_extent(c->t, &lb, &ext));
    CHECK_RC(MPI_Type_size(c->t, &size));
    CHECK(lb == c->lb && ext == c->extent && size == tsize(c));
}

static int make_cases(tcase_t *cs)
{
    int n = 0;
    tcase_t *c;
    MPI_Datatype in;
    c = &cs[n++], *c = (tcase_t){"vector of doubles, every other one", 0, {{0}}, 0, 0, 0};
    CHECK_RC(MPI_Type_vector(32, 1, 2, MPI_DOUBLE, &c->t));
    for (int i = 0; i < 32; i++)
        add(c, 16 * i, 8);
    c->extent = 63 * 8;
    c = &cs[n++], *c = (tcase_t){"hvector of int pairs, stride -48", 0, {{0}}, 0, 0, 0};
    CHECK_RC(MPI_Type_create_hvector(20, 2, -48, MPI_INT, &c->t));
    for (int i = 0; i < 20; i++)
        add(c, -48 * i, 8);
    c->lb = -48 * 19, c->extent = 48 * 19 + 8;
    c = &cs[n++], *c = (tcase_t){"indexed with empty blocks", 0, {{0}}, 0, 0, 0};
    int il[] = {3, 0, 2, 1, 0, 4}, id[] = {0, 4, 5, 9, 10, 12};
    CHECK_RC(MPI_Type_indexed(6, il, id, MPI_DOUBLE, &c->t));
    for (int i = 0; i < 6; i++)
        add(c, 8 * id[i], 8 * il[i]);
    c->extent = 16 * 8;
    c = &cs[n++], *c = (tcase_t){"struct with gaps", 0, {{0}}, 0, 0, 0};
    int sl[] = {1, 2, 1};
    MPI_Aint sd[] = {0, 8, 28};
    MPI_Datatype st[] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    CHECK_RC(MPI_Type_create_struct(3, sl, sd, st, &c->t));
    add(c, 0, 1), add(c, 8, 16), add(c, 28, 4);
    c->extent = 32; /* padded to the double's alignment */
    c = &cs[n++], *c = (tcase_t){"resized vector, lb -16", 0, {{0}}, 0, 0, 0};
    CHECK_RC(MPI_Type_vector(8, 1, 3, MPI_INT, &in));
    CHECK_RC(MPI_Type_create_resized(in, -16, 128, &c->t));
    CHECK_RC(MPI_Type_free(&in));
    for (int i = 0; i < 8; i++)
        add(c, 12 * i, 4);
    c->lb = -16, c->extent = 128;
    c = &cs[n++], *c = (tcase_t){"vector of vectors", 0, {{0}}, 0, 0, 0};
    CHECK_RC(MPI_Type_vector(12, 1, 2, MPI_DOUBLE, &in));
    CHECK_RC(MPI_Type_create_hvector(4, 1, 512, in, &c->t));
    CHECK_RC(MPI_Type_free(&in));
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < 12; i++)
            add(c, 512 * r + 16 * i, 8);
    c->extent = 3 * 512 + 23 * 8;
    c = &cs[n++], *c = (tcase_t){"64-byte blocks", 0, {{0}}, 0, 0, 0};
    CHECK_RC(MPI_Type_vector(16, 8, 24, MPI_DOUBLE, &c->t));
    for (int i = 0; i < 16; i++)
        add(c, 192 * i, 64);
    c->extent = 15 * 192 + 64;
    c = &cs[n++], *c = (tcase_t){"4 KiB blocks", 0, {{0}}, 0, 0, 0};
    CHECK_RC(MPI_Type_vector(4, 512, 1024, MPI_DOUBLE, &c->t));
    for (int i = 0; i < 4; i++)
        add(c, 8192 * i, 4096);
    c->extent = 3 * 8192 + 4096;
    for (int i = 0; i < n; i++)
        commit(&cs[i]);
    return n;
}

/* A buffer for count elements: mem[0] is byte lo of the layout; every byte starts as fill. */
typedef struct span {
    unsigned char *mem, *buf;
    size_t bytes;
} span_t;

static span_t span_new(const tcase_t *c, int count, unsigned char fill)
{
    MPI_Aint lo, hi;
    tspan(c, count, &lo, &hi);
    span_t s = {malloc((size_t)(hi - lo) + 1), NULL, (size_t)(hi - lo) + 1};
    CHECK(s.mem != NULL);
    memset(s.mem, fill, s.bytes);
    s.buf = s.mem - lo;
    return s;
}

static void check_same(const unsigned char *got, const unsigned char *want, size_t n,
                       const char *what, int count, const char *dir)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "p2p_dt_paths: %s x %d (%s): byte %zu is %u, want %u\n", what, count,
                    dir, i, got[i], want[i]);
            CHECK(got[i] == want[i]);
        }
}

/* Rank 0 sends count elements three ways; rank 1 checks each against the reference. */
static void round_trip(const tcase_t *c, int count, int rank)
{
    size_t total = (size_t)tsize(c) * (size_t)count;
    unsigned seed = (unsigned)(count * 31 + c->n);
    span_t src = span_new(c, count, 0);
    unsigned char *packed = malloc(total + 1);
    CHECK(packed != NULL);
    mt_fill(src.mem, src.bytes, seed);
    ref_pack(c, src.buf, count, packed);
    if (rank == 0) {
        CHECK_RC(MPI_Send(src.buf, count, c->t, 1, 1, MPI_COMM_WORLD)); /* typed -> contiguous */
        CHECK_RC(MPI_Send(packed, (int)total, MPI_BYTE, 1, 2, MPI_COMM_WORLD)); /* -> typed */
        CHECK_RC(MPI_Send(src.buf, count, c->t, 1, 3, MPI_COMM_WORLD));         /* typed both */
    } else if (rank == 1) {
        unsigned char *got = malloc(total + 1);
        span_t dst = span_new(c, count, 0xA5), want = span_new(c, count, 0xA5);
        MPI_Status status;
        int n;
        CHECK(got != NULL);
        ref_unpack(c, want.buf, count, packed);
        CHECK_RC(MPI_Recv(got, (int)total, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &status));
        CHECK_RC(MPI_Get_count(&status, MPI_BYTE, &n));
        CHECK((size_t)n == total);
        check_same(got, packed, total, c->what, count, "typed to bytes");
        CHECK_RC(MPI_Recv(dst.buf, count, c->t, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        check_same(dst.mem, want.mem, want.bytes, c->what, count, "bytes to typed");
        memset(dst.mem, 0xA5, dst.bytes);
        CHECK_RC(MPI_Recv(dst.buf, count, c->t, 0, 3, MPI_COMM_WORLD, &status));
        CHECK_RC(MPI_Get_count(&status, c->t, &n));
        CHECK(n == count);
        check_same(dst.mem, want.mem, want.bytes, c->what, count, "typed to typed");
        free(got), free(dst.mem), free(want.mem);
    }
    free(src.mem);
    free(packed);
}

int main(int argc, char **argv)
{
    static const size_t targets[] = {600, 48 << 10, 320 << 10}; /* eager, PIPE, READ / SPLIT */
    tcase_t cs[16];
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = make_cases(cs);
    for (int i = 0; i < n; i++) {
        size_t size = (size_t)tsize(&cs[i]);
        for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
            int count = (int)((targets[t] + size - 1) / size);
            round_trip(&cs[i], count, rank);
            if (count > 1)
                round_trip(&cs[i], count - 1, rank); /* a count that ends mid-fragment */
        }
        MPI_Type_free(&cs[i].t);
    }
    mt_done("p2p_dt_paths");
    MPI_Finalize();
    return 0;
}
