/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A strided halo exchange: every rank swaps a column (MPI_Type_vector / hvector of bytes) with
 * both neighbours of a ring at once, for block sizes from 8 bytes to 16 KiB and message sizes
 * from below the eager limit to past the rendezvous thresholds; sender and receiver use
 * different strides, vector to contiguous and back, count > 1 of a resized vector, and a
 * receive smaller than the message (MPI_ERR_TRUNCATE, only what fits written). Every byte is
 * checked against a reference computed here: the message's bytes where the receive layout
 * puts them, the gaps untouched. Then one request slot used in turn by a receive into pieces, a
 * contiguous rendezvous receive and an eager synchronous send: the rendezvous state of a
 * request is zeroed when a rendezvous starts, not at allocation (runtime/engine/README.md), so
 * nothing of the first may leak into the others.
 */
#include "mpitest.h"

/* Where byte j of a message lands in a layout of blocks of blk bytes every stride bytes
 * (stride 0: contiguous). */
static size_t halo_at(size_t j, size_t blk, size_t stride)
{
    return stride ? j / blk * stride + j % blk : j;
}

static unsigned halo_seed(int from, int to, size_t total, size_t blk)
{
    return (unsigned)(from * 7919 + to * 104729 + (int)total * 3 + (int)blk);
}

/* A layout of total bytes in blocks of blk bytes every stride bytes, as `count` elements of a
 * resized vector (count 1: one vector), or total bytes of MPI_BYTE when stride is 0. */
typedef struct halo_layout {
    size_t blk, stride;
    int count;
} halo_layout_t;

static MPI_Datatype halo_type(const halo_layout_t *l, size_t total, int *count_p)
{
    MPI_Datatype vec, t;
    if (l->stride == 0) {
        *count_p = (int)total;
        return MPI_BYTE;
    }
    int nblk = (int)(total / l->blk) / l->count;
    CHECK_RC(MPI_Type_create_hvector(nblk, (int)l->blk, (MPI_Aint)l->stride, MPI_BYTE, &vec));
    CHECK_RC(MPI_Type_create_resized(vec, 0, (MPI_Aint)l->stride * nblk, &t));
    CHECK_RC(MPI_Type_free(&vec));
    CHECK_RC(MPI_Type_commit(&t));
    *count_p = l->count;
    return t;
}

static size_t halo_span(const halo_layout_t *l, size_t total)
{
    return l->stride ? total / l->blk * l->stride : total;
}

static void halo_fill(unsigned char *buf, const halo_layout_t *l, size_t total, unsigned seed)
{
    memset(buf, 0xEE, halo_span(l, total));
    for (size_t j = 0; j < total; j++)
        buf[halo_at(j, l->blk, l->stride)] = mt_pattern(seed, j);
}

/* The first got bytes of the message are in place, the rest of the layout and the gaps still
 * hold 0x5A. */
static void halo_check(const unsigned char *buf, const halo_layout_t *l, size_t total, size_t got,
                       unsigned seed)
{
    size_t span = halo_span(l, total);
    unsigned char *want = malloc(span ? span : 1);
    memset(want, 0x5A, span);
    for (size_t j = 0; j < got; j++)
        want[halo_at(j, l->blk, l->stride)] = mt_pattern(seed, j);
    for (size_t i = 0; i < span; i++)
        if (buf[i] != want[i]) {
            fprintf(stderr, "halo: %zu bytes blk %zu stride %zu: byte %zu is %u, want %u\n", total,
                    l->blk, l->stride, i, buf[i], want[i]);
            CHECK(buf[i] == want[i]);
        }
    free(want);
}

/* Both neighbours at once: send to right and left, receive from left and right. */
static void halo_swap(const halo_layout_t *sl, const halo_layout_t *rl, size_t total)
{
    int rank, size, sc, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nb[2] = {(rank + size - 1) % size, (rank + 1) % size};
    MPI_Datatype st = halo_type(sl, total, &sc), rt = halo_type(rl, total, &rc);
    unsigned char *s[2], *r[2];
    MPI_Request req[4];
    for (int d = 0; d < 2; d++) {
        s[d] = malloc(halo_span(sl, total) + 1);
        r[d] = malloc(halo_span(rl, total) + 1);
        /* s[0] goes right with tag 0, s[1] left with tag 1; r[d] comes from nb[d] with tag d */
        halo_fill(s[d], sl, total, halo_seed(rank, nb[1 - d], total, sl->blk) + (unsigned)d);
        memset(r[d], 0x5A, halo_span(rl, total));
        CHECK_RC(MPI_Irecv(r[d], rc, rt, nb[d], d, MPI_COMM_WORLD, &req[d]));
    }
    for (int d = 0; d < 2; d++)
        CHECK_RC(MPI_Isend(s[d], sc, st, nb[1 - d], d, MPI_COMM_WORLD, &req[2 + d]));
    CHECK_RC(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    for (int d = 0; d < 2; d++) {
        halo_check(r[d], rl, total, total, halo_seed(nb[d], rank, total, sl->blk) + (unsigned)d);
        free(s[d]);
        free(r[d]);
    }
    if (st != MPI_BYTE)
        MPI_Type_free(&st);
    if (rt != MPI_BYTE)
        MPI_Type_free(&rt);
}

/* Rank 0 sends total bytes, rank 1 receives into a layout with room for half: truncation. */
static void halo_truncate(size_t total, size_t blk)
{
    int rank, sc, rc;
    MPI_Comm comm;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_RC(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    halo_layout_t sl = {blk, 2 * blk, 1}, rl = {blk, 3 * blk, 1};
    unsigned seed = halo_seed(0, 1, total, blk);
    if (rank == 0) {
        MPI_Datatype st = halo_type(&sl, total, &sc);
        unsigned char *s = malloc(halo_span(&sl, total));
        halo_fill(s, &sl, total, seed);
        CHECK_RC(MPI_Send(s, sc, st, 1, 5, comm));
        MPI_Type_free(&st);
        free(s);
    } else if (rank == 1) {
        MPI_Datatype rt = halo_type(&rl, total / 2, &rc);
        unsigned char *r = malloc(halo_span(&rl, total));
        MPI_Status status;
        int cls, n;
        memset(r, 0x5A, halo_span(&rl, total));
        MPI_Error_class(MPI_Recv(r, rc, rt, 0, 5, comm, &status), &cls);
        CHECK(cls == MPI_ERR_TRUNCATE);
        CHECK_RC(MPI_Get_count(&status, MPI_BYTE, &n));
        CHECK((size_t)n == total / 2);
        halo_check(r, &rl, total, total / 2, seed);
        MPI_Type_free(&rt);
        free(r);
    }
    MPI_Comm_free(&comm);
}

static void slot_reuse(void)
{
    enum { N = 256 * 1024, BLK = 4096 };
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || rank > 1)
        return;
    unsigned char *buf = malloc(2 * (size_t)N), *src = malloc(N);
    MPI_Datatype vec;
    CHECK_RC(MPI_Type_vector(N / BLK, BLK, 2 * BLK, MPI_BYTE, &vec));
    CHECK_RC(MPI_Type_commit(&vec));
    for (int round = 0; round < 3; round++) {
        int v = -1;
        if (rank == 1) {
            for (size_t k = 0; k < N; k++)
                src[k] = (unsigned char)(k * 7 + (size_t)round);
            CHECK_RC(MPI_Send(src, N, MPI_BYTE, 0, 1, MPI_COMM_WORLD)); /* into pieces */
            CHECK_RC(MPI_Send(src, N, MPI_BYTE, 0, 2, MPI_COMM_WORLD)); /* contiguous */
            CHECK_RC(MPI_Recv(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v == round);
            continue;
        }
        memset(buf, 0, 2 * (size_t)N);
        CHECK_RC(MPI_Recv(buf, 1, vec, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (size_t k = 0; k < N; k++)
            CHECK(buf[k / BLK * 2 * BLK + k % BLK] == (unsigned char)(k * 7 + (size_t)round));
        for (size_t k = 0; k < N; k++) /* the gaps */
            CHECK(buf[k / BLK * 2 * BLK + BLK + k % BLK] == 0);
        memset(buf, 0, (size_t)N);
        MPI_Status st;
        CHECK_RC(MPI_Recv(buf, N, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &st));
        int got = -1;
        MPI_Get_count(&st, MPI_BYTE, &got);
        CHECK(got == N);
        for (size_t k = 0; k < N; k++)
            CHECK(buf[k] == (unsigned char)(k * 7 + (size_t)round));
        CHECK_RC(MPI_Ssend(&round, 1, MPI_INT, 1, 3, MPI_COMM_WORLD));
    }
    MPI_Type_free(&vec);
    free(buf);
    free(src);
}

int main(int argc, char **argv)
{
    static const size_t blks[] = {8, 64, 512, 4096, 16384};
    static const size_t totals[] = {2048, 65536, 1 << 20};
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (size_t b = 0; b < sizeof blks / sizeof blks[0]; b++)
        for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++) {
            size_t blk = blks[b], total = totals[t];
            if (total < 4 * blk)
                continue;
            halo_layout_t vec2 = {blk, 2 * blk, 1}, vec3 = {blk, 3 * blk, 1};
            halo_layout_t res4 = {blk, 2 * blk, 4}, contig = {blk, 0, 1};
            /* blocks 8 apart: a sparse receive (over verbs, through a bounce buffer) */
            halo_layout_t vec8 = {blk, 8 * blk, 1};
            halo_swap(&vec2, &vec2, total);   /* the same layout on both sides */
            halo_swap(&vec2, &vec3, total);   /* different strides */
            halo_swap(&vec3, &contig, total); /* vector to contiguous */
            halo_swap(&contig, &vec2, total); /* contiguous to vector */
            halo_swap(&contig, &vec8, total); /* into blocks 8 apart */
            halo_swap(&res4, &vec3, total);   /* count > 1 of a resized vector */
            if (size >= 2)
                halo_truncate(total, blk);
        }
    slot_reuse();
    mt_done("p2p_halo");
    MPI_Finalize();
    return 0;
}
