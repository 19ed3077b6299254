/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI 4.0 large-count forms whose outputs change: each _c query against its int form and
 * against values computed here, Pack_c / Unpack_c at a position past what an int holds for
 * the room left (the buffer is small, the position is real), the external32 _c forms, every
 * _c constructor against the int constructor (same size, extent and packed bytes), the buffer
 * detach _c calls, the window and neighbourhood _c forms, a message received with Recv_c and
 * counted with Get_count_c, and counts that do not fit an int refused with MPI_ERR_COUNT. Run at 1
 * and 2 ranks.
 */
#include <limits.h>

#include "mpitest.h"

/* t and u have the same size, extent, true extent and packed image of 3 elements. */
static void same_type(MPI_Datatype t, MPI_Datatype u)
{
    MPI_Count s1, s2, lb1, lb2, ex1, ex2, tlb1, tlb2, tex1, tex2;
    CHECK_RC(MPI_Type_size_c(t, &s1));
    CHECK_RC(MPI_Type_size_c(u, &s2));
    CHECK_RC(MPI_Type_get_extent_c(t, &lb1, &ex1));
    CHECK_RC(MPI_Type_get_extent_c(u, &lb2, &ex2));
    CHECK_RC(MPI_Type_get_true_extent_c(t, &tlb1, &tex1));
    CHECK_RC(MPI_Type_get_true_extent_c(u, &tlb2, &tex2));
    CHECK(s1 == s2 && lb1 == lb2 && ex1 == ex2 && tlb1 == tlb2 && tex1 == tex2);
    int isz;
    MPI_Aint alb, aex;
    CHECK_RC(MPI_Type_size(t, &isz));
    CHECK_RC(MPI_Type_get_extent(t, &alb, &aex));
    CHECK(isz == s1 && alb == lb1 && aex == ex1);
    static int src[4096];
    static char p1[16384], p2[16384];
    for (int i = 0; i < 4096; i++)
        src[i] = i * 3 + 1;
    MPI_Count pos1 = 0;
    int pos2 = 0;
    CHECK(3 * s1 <= (MPI_Count)sizeof(p1) && ex1 * 3 <= (MPI_Count)sizeof(src));
    CHECK_RC(MPI_Pack_c(src, 3, t, p1, sizeof(p1), &pos1, MPI_COMM_SELF));
    CHECK_RC(MPI_Pack(src, 3, u, p2, sizeof(p2), &pos2, MPI_COMM_SELF));
    CHECK(pos1 == pos2 && pos1 == 3 * s1 && memcmp(p1, p2, (size_t)pos2) == 0);
}

static void constructors(void)
{
    MPI_Datatype t, u;
    MPI_Count bl[3] = {2, 1, 3}, dc[3] = {0, 5, 9}, db[3] = {0, 20, 36};
    int ibl[3] = {2, 1, 3}, idc[3] = {0, 5, 9};
    MPI_Aint adb[3] = {0, 20, 36};
    MPI_Datatype types[3] = {MPI_INT, MPI_SHORT, MPI_DOUBLE};
#define PAIR(make_c, make_i)                                                                       \
    do {                                                                                           \
        CHECK_RC(make_c);                                                                          \
        CHECK_RC(make_i);                                                                          \
        CHECK_RC(MPI_Type_commit(&t));                                                             \
        CHECK_RC(MPI_Type_commit(&u));                                                             \
        same_type(t, u);                                                                           \
        CHECK_RC(MPI_Type_free(&t));                                                               \
        CHECK_RC(MPI_Type_free(&u));                                                               \
    } while (0)
    PAIR(MPI_Type_vector_c(3, 2, 5, MPI_INT, &t), MPI_Type_vector(3, 2, 5, MPI_INT, &u));
    PAIR(MPI_Type_create_hvector_c(3, 2, 24, MPI_INT, &t),
         MPI_Type_create_hvector(3, 2, 24, MPI_INT, &u));
    PAIR(MPI_Type_indexed_c(3, bl, dc, MPI_INT, &t), MPI_Type_indexed(3, ibl, idc, MPI_INT, &u));
    PAIR(MPI_Type_create_hindexed_c(3, bl, db, MPI_INT, &t),
         MPI_Type_create_hindexed(3, ibl, adb, MPI_INT, &u));
    PAIR(MPI_Type_create_indexed_block_c(3, 2, dc, MPI_INT, &t),
         MPI_Type_create_indexed_block(3, 2, idc, MPI_INT, &u));
    PAIR(MPI_Type_create_hindexed_block_c(3, 2, db, MPI_INT, &t),
         MPI_Type_create_hindexed_block(3, 2, adb, MPI_INT, &u));
    PAIR(MPI_Type_create_struct_c(3, bl, db, types, &t),
         MPI_Type_create_struct(3, ibl, adb, types, &u));
    PAIR(MPI_Type_create_resized_c(MPI_INT, -4, 16, &t),
         MPI_Type_create_resized(MPI_INT, -4, 16, &u));
    PAIR(MPI_Type_contiguous_c(7, MPI_SHORT, &t), MPI_Type_contiguous(7, MPI_SHORT, &u));
    MPI_Count sizes[2] = {6, 8}, subs[2] = {2, 3}, starts[2] = {1, 4};
    int isizes[2] = {6, 8}, isubs[2] = {2, 3}, istarts[2] = {1, 4};
    PAIR(MPI_Type_create_subarray_c(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t),
         MPI_Type_create_subarray(2, isizes, isubs, istarts, MPI_ORDER_C, MPI_INT, &u));
    MPI_Count gs[2] = {6, 8};
    int igs[2] = {6, 8}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
        dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 2};
    PAIR(MPI_Type_create_darray_c(4, 3, 2, gs, dist, dargs, ps, MPI_ORDER_FORTRAN, MPI_INT, &t),
         MPI_Type_create_darray(4, 3, 2, igs, dist, dargs, ps, MPI_ORDER_FORTRAN, MPI_INT, &u));
    /* more blocks than a flattened layout holds: refused, nothing made */
    t = MPI_DATATYPE_NULL;
    CHECK(MPI_Type_vector_c((MPI_Count)INT_MAX + 1, 1, 1, MPI_INT, &t) == MPI_ERR_COUNT);
    CHECK(t == MPI_DATATYPE_NULL);
    /* block lengths and displacements past an int: sizes and bounds in MPI_Count */
    MPI_Count huge[2] = {(MPI_Count)1 << 40, 3}, hd[2] = {0, (MPI_Count)1 << 41};
    CHECK_RC(MPI_Type_indexed_c(2, huge, hd, MPI_INT, &t));
    MPI_Count sz, lb, ex, ni, na, nc, nd, got[6];
    int comb;
    CHECK_RC(MPI_Type_size_c(t, &sz));
    CHECK_RC(MPI_Type_get_extent_c(t, &lb, &ex));
    CHECK(sz == (huge[0] + huge[1]) * 4 && lb == 0 && ex == (hd[1] + huge[1]) * 4);
    /* a _c constructor's record is large counts (count, lengths, displacements) */
    CHECK_RC(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
    CHECK(comb == MPI_COMBINER_INDEXED && ni == 0 && na == 0 && nc == 5 && nd == 1);
    MPI_Datatype old;
    CHECK_RC(MPI_Type_get_contents_c(t, 0, 0, 5, 1, NULL, NULL, got, &old));
    CHECK(got[0] == 2 && got[1] == huge[0] && got[2] == huge[1] && got[3] == 0 && got[4] == hd[1] &&
          old == MPI_INT);
    /* the int decoders cannot describe it */
    int i1, i2, i3;
    CHECK(MPI_Type_get_envelope(t, &i1, &i2, &i3, &comb) == MPI_ERR_TYPE);
    CHECK_RC(MPI_Type_free(&t));
    /* a contiguous type of 2^33 bytes */
    CHECK_RC(MPI_Type_contiguous_c((MPI_Count)1 << 33, MPI_BYTE, &t));
    CHECK_RC(MPI_Type_size_c(t, &sz));
    CHECK(sz == (MPI_Count)1 << 33);
    CHECK_RC(MPI_Type_free(&t));
    /* a subarray of a 2^33 x 4 char array past an int: 3 x 2 chars from (2^32, 1) */
    MPI_Count asz[2] = {(MPI_Count)1 << 33, 4}, asub[2] = {3, 2}, ast[2] = {(MPI_Count)1 << 32, 1};
    CHECK_RC(MPI_Type_create_subarray_c(2, asz, asub, ast, MPI_ORDER_C, MPI_CHAR, &t));
    MPI_Count tlb, tex;
    CHECK_RC(MPI_Type_size_c(t, &sz));
    CHECK_RC(MPI_Type_get_extent_c(t, &lb, &ex));
    CHECK_RC(MPI_Type_get_true_extent_c(t, &tlb, &tex));
    CHECK(sz == 6 && lb == 0 && ex == asz[0] * 4 && tlb == ast[0] * 4 + 1 && tex == 2 * 4 + 2);
    CHECK_RC(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
    CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 2 && na == 0 && nc == 6 && nd == 1);
    int iv[2];
    CHECK_RC(MPI_Type_get_contents_c(t, 2, 0, 6, 1, iv, NULL, got, &old));
    CHECK(iv[0] == 2 && iv[1] == MPI_ORDER_C && got[0] == asz[0] && got[2] == asub[0] &&
          got[4] == ast[0] && got[5] == ast[1] && old == MPI_CHAR);
    CHECK_RC(MPI_Type_free(&t));
    /* a darray of 2^33 + 6 chars in blocks over 2 processes: rank 1 holds the second half */
    MPI_Count dg = ((MPI_Count)1 << 33) + 6;
    int bd = MPI_DISTRIBUTE_BLOCK, bdarg = MPI_DISTRIBUTE_DFLT_DARG, bp = 2;
    CHECK_RC(MPI_Type_create_darray_c(2, 1, 1, &dg, &bd, &bdarg, &bp, MPI_ORDER_C, MPI_CHAR, &t));
    CHECK_RC(MPI_Type_size_c(t, &sz));
    CHECK_RC(MPI_Type_get_extent_c(t, &lb, &ex));
    CHECK_RC(MPI_Type_get_true_extent_c(t, &tlb, &tex));
    CHECK(sz == dg / 2 && lb == 0 && ex == dg && tlb == dg / 2 && tex == dg / 2);
    CHECK_RC(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
    CHECK(comb == MPI_COMBINER_DARRAY && ni == 7 && nc == 1 && nd == 1);
    CHECK_RC(MPI_Type_free(&t));
}

/* Pack_c / Unpack_c with a position beyond the int range: the call works at buf + position. */
static void pack_positions(void)
{
    double v[3] = {1.5, -2.25, 1e300}, w[3] = {0};
    char *mem = malloc(64);
    CHECK(mem);
    MPI_Count base = (MPI_Count)INT_MAX + 5;
    char *fake = mem - base; /* never dereferenced below position */
    MPI_Count pos = base;
    CHECK_RC(MPI_Pack_c(v, 3, MPI_DOUBLE, fake, base + 64, &pos, MPI_COMM_WORLD));
    CHECK(pos == base + 24);
    pos = base;
    CHECK_RC(MPI_Unpack_c(fake, base + 24, &pos, w, 3, MPI_DOUBLE, MPI_COMM_WORLD));
    CHECK(pos == base + 24 && w[0] == 1.5 && w[1] == -2.25 && w[2] == 1e300);
    MPI_Count size;
    CHECK_RC(MPI_Pack_size_c((MPI_Count)1 << 33, MPI_INT, MPI_COMM_WORLD, &size));
    CHECK(size == ((MPI_Count)1 << 35));
    /* external32: big-endian ints */
    int ints[2] = {1, 0x01020304};
    unsigned char ext[8];
    pos = 0;
    CHECK_RC(MPI_Pack_external_size_c("external32", 2, MPI_INT, &size));
    CHECK(size == 8);
    CHECK_RC(MPI_Pack_external_c("external32", ints, 2, MPI_INT, ext, 8, &pos));
    CHECK(pos == 8 && ext[3] == 1 && ext[4] == 1 && ext[7] == 4);
    int back[2] = {0, 0};
    pos = 0;
    CHECK_RC(MPI_Unpack_external_c("external32", ext, 8, &pos, back, 2, MPI_INT));
    CHECK(pos == 8 && back[0] == 1 && back[1] == 0x01020304);
    free(mem);
}

static void counts_and_buffers(int rank, int size)
{
    int data[10], got[10];
    MPI_Status st;
    MPI_Count n, e;
    for (int i = 0; i < 10; i++)
        data[i] = rank * 100 + i;
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Request r;
    CHECK_RC(MPI_Irecv_c(got, 10, MPI_INT, from, 4, MPI_COMM_WORLD, &r));
    CHECK_RC(MPI_Send_c(data, 7, MPI_INT, to, 4, MPI_COMM_WORLD));
    CHECK_RC(MPI_Wait(&r, &st));
    CHECK_RC(MPI_Get_count_c(&st, MPI_INT, &n));
    CHECK_RC(MPI_Get_elements_c(&st, MPI_INT, &e));
    CHECK(n == 7 && e == 7 && got[6] == from * 100 + 6);
    CHECK_RC(MPI_Get_count_c(&st, MPI_DOUBLE, &n)); /* 28 bytes: not whole doubles */
    CHECK(n == MPI_UNDEFINED);
    CHECK_RC(MPI_Status_set_elements_c(&st, MPI_INT, 3));
    CHECK_RC(MPI_Get_count_c(&st, MPI_INT, &n));
    CHECK(n == 3);
    static char buf[4096 + MPI_BSEND_OVERHEAD];
    void *addr;
    MPI_Count bsize;
    CHECK_RC(MPI_Buffer_attach_c(buf, sizeof(buf)));
    CHECK_RC(MPI_Buffer_detach_c(&addr, &bsize));
    CHECK(addr == buf && bsize == (MPI_Count)sizeof(buf));
    CHECK_RC(MPI_Comm_attach_buffer_c(MPI_COMM_WORLD, buf, sizeof(buf)));
    CHECK_RC(MPI_Comm_detach_buffer_c(MPI_COMM_WORLD, &addr, &bsize));
    CHECK(addr == buf && bsize == (MPI_Count)sizeof(buf));
}

/* The neighbourhood _c forms on a periodic ring, against the left and right ranks. */
static void neighbors(int rank, int size)
{
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int sb[2] = {rank * 10, rank * 10 + 1}, rb[2] = {-1, -1};
    MPI_Request r;
    CHECK_RC(MPI_Ineighbor_allgather_c(&rank, 1, MPI_INT, rb, 1, MPI_INT, ring, &r));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(rb[0] == left && rb[1] == right);
    MPI_Count sc[2] = {1, 1}, rc[2] = {1, 1};
    MPI_Aint sd[2] = {0, 1}, rd[2] = {1, 0};
    CHECK_RC(MPI_Neighbor_alltoallv_c(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, ring));
    /* the left neighbour sent me its block 1 (for its right), the right one its block 0 */
    CHECK(rb[1] == left * 10 + 1 && rb[0] == right * 10);
    MPI_Aint sdb[2] = {0, sizeof(int)}, rdb[2] = {0, sizeof(int)};
    MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
    CHECK_RC(
        MPI_Neighbor_alltoallw_init_c(sb, sc, sdb, ty, rb, rc, rdb, ty, ring, MPI_INFO_NULL, &r));
    for (int k = 0; k < 2; k++) {
        rb[0] = rb[1] = -1;
        CHECK_RC(MPI_Start(&r));
        CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(rb[0] == left * 10 + 1 && rb[1] == right * 10);
    }
    CHECK_RC(MPI_Request_free(&r));
    CHECK_RC(MPI_Comm_free(&ring));
}

static void max_abs_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;
    (void)dt;
    for (MPI_Count i = 0; i < *len; i++)
        b[i] = abs(a[i]) > abs(b[i]) ? a[i] : b[i];
}

/* A user op with an MPI_Count length, through Allreduce_c. */
static void user_op(int rank, int size)
{
    MPI_Op op;
    int v[3] = {rank % 2 ? -rank : rank, 1, -1}, w[3];
    CHECK_RC(MPI_Op_create_c(max_abs_c, 1, &op));
    CHECK_RC(MPI_Allreduce_c(v, w, 3, MPI_INT, op, MPI_COMM_WORLD));
    int top = size - 1;
    CHECK(w[0] == (top % 2 ? -top : top) && abs(w[1]) == 1 && abs(w[2]) == 1);
    CHECK_RC(MPI_Op_free(&op));
}

/* Windows with an MPI_Aint displacement unit. */
static void windows(void)
{
    MPI_Win win;
    int *base = NULL, *qbase = NULL;
    MPI_Aint qsize = 0, qunit = 0;
    CHECK_RC(MPI_Win_allocate_shared_c(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF,
                                       &base, &win));
    CHECK_RC(MPI_Win_shared_query_c(win, 0, &qsize, &qunit, &qbase));
    CHECK(qsize == 4 * sizeof(int) && qunit == sizeof(int) && qbase == base);
    CHECK_RC(MPI_Win_free(&win));
    static int mem[8];
    CHECK_RC(MPI_Win_create_c(mem, sizeof(mem), 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_RC(MPI_Win_free(&win));
    /* the _c forms take a displacement unit past an int (an MPI_Aint) */
    CHECK_RC(MPI_Win_allocate_c(8, (MPI_Aint)1 << 40, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    CHECK_RC(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    constructors();
    pack_positions();
    counts_and_buffers(rank, size);
    neighbors(rank, size);
    windows();
    user_op(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    mt_done("large_out");
    MPI_Finalize();
    return 0;
}
