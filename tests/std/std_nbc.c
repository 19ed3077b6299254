/* SPDX-License-Identifier: BSD-3-Clause */
/* Against MPI 4.1 alone: several non-blocking collectives outstanding at once on one
 * communicator and on different ones, with point-to-point traffic between their starts and
 * waits and completion in a scrambled order (Waitall, Waitany, Test loops); persistent
 * collectives started several times with the buffers changed between starts (Startall of
 * several); a non-commutative user op in rank order on a communicator split with reversed keys;
 * the neighbourhood collectives (Neighbor_allgather(v), _alltoall(v, w)), blocking,
 * non-blocking and persistent, on a periodic and a non-periodic Cartesian topology, a graph and
 * distributed graphs (one with an asymmetric, weighted neighbourhood). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CHECK_RANK wrank
#include "std_check.h"

static int wrank, wsize, modes;

/* x -> a x + b (mod 2^32) maps, composed lower rank first: associative, not commutative */
static void affine(void *in, void *io, int *n, MPI_Datatype *t)
{
    unsigned *a = in, *b = io;
    for (int i = 0; i < *n; i++, a += 2, b += 2) {
        unsigned na = b[0] * a[0], nb = b[0] * a[1] + b[1];
        b[0] = na;
        b[1] = nb;
    }
}
static void aff_of(int r, int i, int v, unsigned *m)
{
    m[0] = 2u * (unsigned)(r + i + v) + 3u;
    m[1] = (unsigned)(r * 7 + i + 11 * v);
}
static void aff_ref(int lo, int hi, int i, int v, unsigned *m)
{
    m[0] = 1, m[1] = 0;
    for (int r = lo; r <= hi; r++) {
        unsigned a[2];
        int one = 1;
        aff_of(r, i, v, a);
        affine(m, a, &one, NULL); /* a = m op a: the lower ranks' fold on the left */
        m[0] = a[0], m[1] = a[1];
    }
}

/* several collectives in flight on `c` and `d` with point-to-point between */
static void overlap(MPI_Comm c, MPI_Comm d, MPI_Op aff, MPI_Datatype pair)
{
    int r, n, dr, dn;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(d, &dr);
    MPI_Comm_size(d, &dn);
    enum { N = 1000 };
    MPI_Request q[9];
    unsigned *ain = malloc(N * 2 * sizeof(unsigned)), *aout = malloc(N * 2 * sizeof(unsigned));
    for (int i = 0; i < N; i++)
        aff_of(r, i, 0, ain + 2 * i);
    int bc[N], root = n - 1, sum_in = r + 1, sum_out = -1, ag[64], dsum = -1, din = dr * 10;
    int sc_in[N], sc_out[N];
    for (int i = 0; i < N; i++)
        bc[i] = r == root ? i * 3 + 1 : -1;
    for (int i = 0; i < N; i++)
        sc_in[i] = r * N + i;
    MPI_Iallreduce(ain, aout, N, pair, aff, c, &q[0]);
    MPI_Ibcast(bc, N, MPI_INT, root, c, &q[1]);
    MPI_Iallreduce(&din, &dsum, 1, MPI_INT, MPI_SUM, d, &q[2]);
    MPI_Iallgather(&sum_in, 1, MPI_INT, ag, 1, MPI_INT, c, &q[3]);
    MPI_Ibarrier(d, &q[4]);
    MPI_Iscan(&sum_in, &sum_out, 1, MPI_INT, MPI_SUM, c, &q[5]);
    /* point-to-point on c between: a ring, tag 0, while the collectives are in flight */
    int to = (r + 1) % n, from = (r + n - 1) % n, got = -1, mine = r * 100;
    MPI_Irecv(&got, 1, MPI_INT, from, 0, c, &q[6]);
    MPI_Isend(&mine, 1, MPI_INT, to, 0, c, &q[7]);
    MPI_Iexscan(sc_in, sc_out, N, MPI_INT, MPI_SUM, c, &q[8]);
    /* complete in a scrambled order */
    int idx;
    MPI_Waitany(9, q, &idx, MPI_STATUS_IGNORE);
    MPI_Wait(&q[8], MPI_STATUS_IGNORE);
    int flag = 0;
    while (!flag)
        MPI_Testall(3, q + 4, &flag, MPI_STATUSES_IGNORE);
    MPI_Waitall(9, q, MPI_STATUSES_IGNORE);
    for (int i = 0; i < N; i++) {
        unsigned ref[2];
        aff_ref(0, n - 1, i, 0, ref);
        if (aout[2 * i] != ref[0] || aout[2 * i + 1] != ref[1]) {
            CHECK(0, "overlap iallreduce affine [%d]", i);
            break;
        }
        if (bc[i] != i * 3 + 1) {
            CHECK(0, "overlap ibcast [%d] %d", i, bc[i]);
            break;
        }
        if (r > 0 && sc_out[i] != N * (r * (r - 1) / 2) + r * i) {
            CHECK(0, "overlap iexscan [%d] %d", i, sc_out[i]);
            break;
        }
    }
    CHECK(dsum == 10 * dn * (dn - 1) / 2, "overlap iallreduce on the other communicator %d", dsum);
    for (int i = 0; i < n; i++)
        CHECK(ag[i] == i + 1, "overlap iallgather [%d] %d", i, ag[i]);
    CHECK(sum_out == (r + 1) * (r + 2) / 2, "overlap iscan %d", sum_out);
    CHECK(got == from * 100, "overlap p2p %d", got);
    /* the same kind twice in flight on one communicator: order of start decides the match */
    int x1 = r, x2 = 100 * r, y1 = -1, y2 = -1;
    MPI_Iallreduce(&x1, &y1, 1, MPI_INT, MPI_MAX, c, &q[0]);
    MPI_Iallreduce(&x2, &y2, 1, MPI_INT, MPI_MIN, c, &q[1]);
    MPI_Wait(&q[1], MPI_STATUS_IGNORE);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    CHECK(y1 == n - 1 && y2 == 0, "two iallreduce in flight %d %d", y1, y2);
    free(ain);
    free(aout);
}

/* persistent: one set started 4 times, inputs changed between starts, all together by Startall */
static void persist(MPI_Comm c, MPI_Op aff, MPI_Datatype pair)
{
    int r, n;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    enum { N = 300 };
    unsigned ain[2 * N], aout[2 * N];
    int bc[N], ag_in[3], *ag = malloc(3 * n * sizeof(int)), *a2a_in = malloc(2 * n * sizeof(int));
    int *a2a = malloc(2 * n * sizeof(int)), red = -1, rin;
    MPI_Request q[6];
    int root = r == 0 ? 0 : 0, broot = n / 2;
    MPI_Allreduce_init(ain, aout, N, pair, aff, c, MPI_INFO_NULL, &q[0]);
    MPI_Bcast_init(bc, N, MPI_INT, broot, c, MPI_INFO_NULL, &q[1]);
    MPI_Allgather_init(ag_in, 3, MPI_INT, ag, 3, MPI_INT, c, MPI_INFO_NULL, &q[2]);
    MPI_Alltoall_init(a2a_in, 2, MPI_INT, a2a, 2, MPI_INT, c, MPI_INFO_NULL, &q[3]);
    MPI_Reduce_init(&rin, &red, 1, MPI_INT, MPI_SUM, root, c, MPI_INFO_NULL, &q[4]);
    MPI_Barrier_init(c, MPI_INFO_NULL, &q[5]);
    for (int v = 0; v < 4; v++) {
        for (int i = 0; i < N; i++) {
            aff_of(r, i, v, ain + 2 * i);
            bc[i] = r == broot ? v * 1000 + i : -1;
        }
        for (int j = 0; j < 3; j++)
            ag_in[j] = v * 100 + r * 3 + j;
        for (int j = 0; j < 2 * n; j++)
            a2a_in[j] = v * 10000 + r * 100 + j;
        rin = r + v;
        if (v % 2)
            MPI_Startall(6, q);
        else
            for (int k = 5; k >= 0; k--)
                MPI_Start(&q[k]);
        /* point-to-point while they run */
        int to = (r + 1) % n, from = (r + n - 1) % n, got = -1, mine = v * 7 + r;
        MPI_Sendrecv(&mine, 1, MPI_INT, to, 5, &got, 1, MPI_INT, from, 5, c, MPI_STATUS_IGNORE);
        CHECK(got == v * 7 + from, "persist p2p");
        if (v == 2) {
            int done = 0;
            while (!done)
                MPI_Testall(6, q, &done, MPI_STATUSES_IGNORE);
        } else
            MPI_Waitall(6, q, MPI_STATUSES_IGNORE);
        for (int i = 0; i < N; i++) {
            unsigned ref[2];
            aff_ref(0, n - 1, i, v, ref);
            if (aout[2 * i] != ref[0] || aout[2 * i + 1] != ref[1]) {
                CHECK(0, "persistent allreduce start %d [%d]", v, i);
                break;
            }
            if (bc[i] != v * 1000 + i) {
                CHECK(0, "persistent bcast start %d [%d] %d", v, i, bc[i]);
                break;
            }
        }
        for (int i = 0; i < 3 * n; i++)
            if (ag[i] != v * 100 + i) {
                CHECK(0, "persistent allgather start %d [%d] %d", v, i, ag[i]);
                break;
            }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < 2; j++)
                CHECK(a2a[2 * i + j] == v * 10000 + i * 100 + 2 * r + j,
                      "persistent alltoall start %d from %d", v, i);
        if (r == root)
            CHECK(red == n * (n - 1) / 2 + n * v, "persistent reduce start %d %d", v, red);
    }
    for (int k = 0; k < 6; k++)
        MPI_Request_free(&q[k]);
    free(ag);
    free(a2a_in);
    free(a2a);
}

enum { BLK, NB, PERS };
/* the neighbourhood collectives on `t` in `mode`; the neighbours from the topology queries */
static void neigh(MPI_Comm t, int mode, const char *what)
{
    int r, indeg, outdeg, wtd, kind;
    MPI_Comm_rank(t, &r);
    MPI_Topo_test(t, &kind);
    int *src, *dst;
    if (kind == MPI_CART) {
        int nd;
        MPI_Cartdim_get(t, &nd);
        indeg = outdeg = 2 * nd;
        src = malloc(indeg * sizeof(int)), dst = malloc(outdeg * sizeof(int));
        for (int k = 0; k < nd; k++) /* MPI 4.1 7.6: per dimension, the -1 then the +1 shift */
            MPI_Cart_shift(t, k, 1, &src[2 * k], &src[2 * k + 1]);
        memcpy(dst, src, indeg * sizeof(int));
    } else if (kind == MPI_GRAPH) {
        MPI_Graph_neighbors_count(t, r, &indeg);
        outdeg = indeg;
        src = malloc((indeg + 1) * sizeof(int)), dst = malloc((outdeg + 1) * sizeof(int));
        MPI_Graph_neighbors(t, r, indeg, src);
        memcpy(dst, src, indeg * sizeof(int));
    } else {
        MPI_Dist_graph_neighbors_count(t, &indeg, &outdeg, &wtd);
        src = malloc((indeg + 1) * sizeof(int)), dst = malloc((outdeg + 1) * sizeof(int));
        MPI_Dist_graph_neighbors(t, indeg, src, MPI_UNWEIGHTED, outdeg, dst, MPI_UNWEIGHTED);
    }
    /* the direction of a Cartesian block is known to the receiver only when no neighbour is
     * repeated (a periodic dimension of 1 or 2 processes lists one rank twice; how those
     * messages pair up is where implementations differ): else equal counts, pairs checked */
    int dirs = kind == MPI_CART;
    for (int i = 0; i < indeg; i++)
        for (int j = 0; j < i; j++)
            if (src[i] != MPI_PROC_NULL && src[i] == src[j])
                dirs = 0;
    if (kind == MPI_CART) { /* the same answer at every rank: dims of 1 or 2 periodic */
        int all;
        MPI_Allreduce(&dirs, &all, 1, MPI_INT, MPI_MIN, t);
        dirs = all;
    }
    /* what a source s sends its k-th out neighbour: s*1000 + k*10 + j; a receiver must find which
     * k it is among s's out-neighbours: it is the position where s lists r... ambiguous for
     * repeated edges, so the sender tags by the position and the receiver checks the set */
    int K = 3, *sb = malloc((outdeg * K + 1) * sizeof(int)),
        *rb = malloc((indeg * K + 1) * sizeof(int));
    int me_val[3] = {r * 1000 + 1, r * 1000 + 2, r * 1000 + 3};
    MPI_Request q;
    MPI_Info in = MPI_INFO_NULL;
    /* Neighbor_allgather: every in-neighbour's 3 ints, in in-neighbour order; PROC_NULL: untouched
     */
    for (int i = 0; i < indeg * K; i++)
        rb[i] = -7;
    if (mode == BLK)
        MPI_Neighbor_allgather(me_val, K, MPI_INT, rb, K, MPI_INT, t);
    else if (mode == NB)
        MPI_Ineighbor_allgather(me_val, K, MPI_INT, rb, K, MPI_INT, t, &q);
    else
        MPI_Neighbor_allgather_init(me_val, K, MPI_INT, rb, K, MPI_INT, t, in, &q);
    if (mode == NB)
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    if (mode == PERS) {
        for (int s = 0; s < 2; s++) {
            MPI_Start(&q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&q);
    }
    for (int i = 0; i < indeg; i++)
        for (int j = 0; j < K; j++) {
            int want = src[i] == MPI_PROC_NULL ? -7 : src[i] * 1000 + j + 1;
            CHECK(rb[i * K + j] == want, "%s neighbor_allgather mode %d in %d [%d]: %d want %d",
                  what, mode, i, j, rb[i * K + j], want);
        }
    /* Neighbor_allgatherv: into reversed slots with a hole */
    int *rc = malloc((indeg + 1) * sizeof(int)), *rd = malloc((indeg + 1) * sizeof(int));
    int *rb2 = malloc(((K + 1) * indeg + 1) * sizeof(int));
    for (int i = 0; i < indeg; i++) {
        rc[i] = K;
        rd[i] = (indeg - 1 - i) * (K + 1);
    }
    for (int i = 0; i < (K + 1) * indeg; i++)
        rb2[i] = -7;
    if (mode == BLK)
        MPI_Neighbor_allgatherv(me_val, K, MPI_INT, rb2, rc, rd, MPI_INT, t);
    else if (mode == NB) {
        MPI_Ineighbor_allgatherv(me_val, K, MPI_INT, rb2, rc, rd, MPI_INT, t, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else {
        MPI_Neighbor_allgatherv_init(me_val, K, MPI_INT, rb2, rc, rd, MPI_INT, t, in, &q);
        MPI_Start(&q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Request_free(&q);
    }
    for (int i = 0; i < indeg; i++) {
        for (int j = 0; j < K; j++) {
            int want = src[i] == MPI_PROC_NULL ? -7 : src[i] * 1000 + j + 1;
            CHECK(rb2[rd[i] + j] == want, "%s neighbor_allgatherv mode %d", what, mode);
        }
        CHECK(rb2[rd[i] + K] == -7, "%s neighbor_allgatherv hole written", what);
    }
    /* Neighbor_alltoall: block k of the send buffer goes to out-neighbour k, block i of the
     * receive buffer comes from in-neighbour i. A receiver knows which block of a sender it
     * gets only by the topology: for Cartesian, it is the opposite direction; for symmetric
     * graphs, the position of r in the sender's list (first occurrence for multi-edges is not
     * determined): the send value carries the sender and the destination, checked as a pair */
    for (int k = 0; k < outdeg; k++)
        for (int j = 0; j < K; j++)
            sb[k * K + j] =
                r * 1000000 + (dst[k] == MPI_PROC_NULL ? 999 : dst[k]) * 1000 + k * 10 + j;
    for (int i = 0; i < indeg * K; i++)
        rb[i] = -7;
    if (mode == BLK)
        MPI_Neighbor_alltoall(sb, K, MPI_INT, rb, K, MPI_INT, t);
    else if (mode == NB) {
        MPI_Ineighbor_alltoall(sb, K, MPI_INT, rb, K, MPI_INT, t, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else {
        MPI_Neighbor_alltoall_init(sb, K, MPI_INT, rb, K, MPI_INT, t, in, &q);
        MPI_Start(&q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Request_free(&q);
    }
    for (int i = 0; i < indeg; i++) {
        if (src[i] == MPI_PROC_NULL) {
            CHECK(rb[i * K] == -7, "%s neighbor_alltoall from PROC_NULL written", what);
            continue;
        }
        int v = rb[i * K];
        CHECK(v / 1000000 == src[i] && v / 1000 % 1000 == r,
              "%s neighbor_alltoall mode %d in %d: %d", what, mode, i, v);
        if (dirs) { /* in-neighbour 2k (the -1 side) sent its block 2k + 1 (+1 side) */
            int want_k = i ^ 1;
            CHECK(v / 10 % 100 == want_k, "%s neighbor_alltoall cart block %d from in %d", what,
                  v / 10 % 100, i);
        }
        for (int j = 1; j < K; j++)
            CHECK(rb[i * K + j] == v + j, "%s neighbor_alltoall contiguity", what);
    }
    /* Neighbor_alltoallv / w: out-neighbour k gets k % 2 + 1 ints; in-neighbour i sends me
     * (its position of me) % 2 + 1: only for the Cartesian case is that position known
     * (i ^ 1); for graphs each block gets 2 ints both ways */
    int *sc = malloc((outdeg + 1) * sizeof(int)), *sd = malloc((outdeg + 1) * sizeof(int));
    int *rc2 = malloc((indeg + 1) * sizeof(int)), *rd2 = malloc((indeg + 1) * sizeof(int));
    MPI_Aint *sdw = malloc((outdeg + 1) * sizeof(MPI_Aint)),
             *rdw = malloc((indeg + 1) * sizeof(MPI_Aint));
    MPI_Datatype *stw = malloc((outdeg + 1) * sizeof(MPI_Datatype)),
                 *rtw = malloc((indeg + 1) * sizeof(MPI_Datatype));
    for (int k = 0; k < outdeg; k++) {
        sc[k] = dirs ? k % 2 + 1 : 2;
        sd[k] = k * K;
        sdw[k] = (MPI_Aint)(k * K * sizeof(int));
        stw[k] = MPI_INT;
    }
    for (int i = 0; i < indeg; i++) {
        rc2[i] = dirs ? (i ^ 1) % 2 + 1 : 2;
        rd2[i] = (indeg - 1 - i) * K;
        rdw[i] = (MPI_Aint)(rd2[i] * sizeof(int));
        rtw[i] = MPI_INT;
    }
    for (int w = 0; w < 2; w++) {
        for (int i = 0; i < indeg * K; i++)
            rb[i] = -7;
        if (!w) {
            if (mode == BLK)
                MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc2, rd2, MPI_INT, t);
            else if (mode == NB) {
                MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc2, rd2, MPI_INT, t, &q);
                MPI_Wait(&q, MPI_STATUS_IGNORE);
            } else {
                MPI_Neighbor_alltoallv_init(sb, sc, sd, MPI_INT, rb, rc2, rd2, MPI_INT, t, in, &q);
                MPI_Start(&q);
                MPI_Wait(&q, MPI_STATUS_IGNORE);
                MPI_Request_free(&q);
            }
        } else {
            if (mode == BLK)
                MPI_Neighbor_alltoallw(sb, sc, sdw, stw, rb, rc2, rdw, rtw, t);
            else if (mode == NB) {
                MPI_Ineighbor_alltoallw(sb, sc, sdw, stw, rb, rc2, rdw, rtw, t, &q);
                MPI_Wait(&q, MPI_STATUS_IGNORE);
            } else {
                MPI_Neighbor_alltoallw_init(sb, sc, sdw, stw, rb, rc2, rdw, rtw, t, in, &q);
                MPI_Start(&q);
                MPI_Wait(&q, MPI_STATUS_IGNORE);
                MPI_Request_free(&q);
            }
        }
        for (int i = 0; i < indeg; i++) {
            int *b = rb + rd2[i];
            if (src[i] == MPI_PROC_NULL) {
                CHECK(b[0] == -7, "%s neighbor_alltoall%c from PROC_NULL", what, w ? 'w' : 'v');
                continue;
            }
            CHECK(b[0] / 1000000 == src[i] && b[0] / 1000 % 1000 == r,
                  "%s neighbor_alltoall%c mode %d in %d: %d", what, w ? 'w' : 'v', mode, i, b[0]);
            for (int j = 1; j < rc2[i]; j++)
                CHECK(b[j] == b[0] + j, "%s neighbor_alltoall%c contiguity", what, w ? 'w' : 'v');
            if (rc2[i] < K)
                CHECK(b[rc2[i]] == -7, "%s neighbor_alltoall%c wrote past its count", what,
                      w ? 'w' : 'v');
        }
    }
    free(src), free(dst), free(sb), free(rb), free(rc), free(rd), free(rb2);
    free(sc), free(sd), free(rc2), free(rd2), free(sdw), free(rdw), free(stw), free(rtw);
}

static void topologies(MPI_Comm c)
{
    int r, n;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    MPI_Comm t;
    for (int mode = BLK; mode <= PERS; mode++) {
        if (!(modes & (1 << mode)))
            continue;
        /* 1-D periodic ring (at 2 ranks both neighbours are the same rank) */
        int dims[2] = {n, 0}, per[2] = {1, 0};
        MPI_Cart_create(c, 1, dims, per, 0, &t);
        neigh(t, mode, "cart ring");
        MPI_Comm_free(&t);
        /* 2-D non-periodic: PROC_NULL neighbours at the edges */
        dims[0] = dims[1] = 0;
        MPI_Dims_create(n, 2, dims);
        per[0] = 0;
        per[1] = 1;
        MPI_Cart_create(c, 2, dims, per, 0, &t);
        neigh(t, mode, "cart 2d");
        MPI_Comm_free(&t);
        /* graph: a star around 0 plus a ring, symmetric */
        int *idx = malloc(n * sizeof(int)), *edges = malloc(4 * n * sizeof(int)), ne = 0;
        for (int i = 0; i < n; i++) {
            if (i == 0)
                for (int j = 1; j < n; j++)
                    edges[ne++] = j;
            else {
                edges[ne++] = 0;
                if (i + 1 < n)
                    edges[ne++] = i + 1;
                if (i > 1)
                    edges[ne++] = i - 1;
            }
            idx[i] = ne;
        }
        MPI_Graph_create(c, n, idx, edges, 0, &t);
        neigh(t, mode, "graph");
        MPI_Comm_free(&t);
        free(idx);
        free(edges);
        /* dist graph, adjacent, asymmetric: r sends to r+1 and r+2, receives from r-1 and r-2 */
        int srcs[2], dsts[2], sw[2] = {1, 2}, dw[2] = {2, 1};
        int nd = n > 2 ? 2 : 1;
        for (int k = 0; k < nd; k++) {
            srcs[k] = (r - 1 - k + 2 * n) % n;
            dsts[k] = (r + 1 + k) % n;
        }
        MPI_Dist_graph_create_adjacent(c, nd, srcs, sw, nd, dsts, dw, MPI_INFO_NULL, 0, &t);
        neigh(t, mode, "dist graph adjacent");
        MPI_Comm_free(&t);
        /* dist graph from edges given by one rank: each r -> (r * 2) % n, non-adjacent form */
        int src0 = r, dst0 = (r * 2 + 1) % n, deg = 1;
        MPI_Dist_graph_create(c, 1, &src0, &deg, &dst0, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &t);
        neigh(t, mode, "dist graph");
        MPI_Comm_free(&t);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Op aff;
    MPI_Op_create(affine, 0, &aff);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &pair);
    MPI_Type_commit(&pair);
    MPI_Comm rev, halves, dup;
    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &rev);
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wsize - wrank, &halves);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    overlap(MPI_COMM_WORLD, dup, aff, pair);
    overlap(rev, halves, aff, pair);
    overlap(halves, MPI_COMM_WORLD, aff, pair);
    overlap(rev, rev, aff, pair);
    /* STD_MODES (bit 0 blocking, 1 non-blocking, 2 persistent): MPICH 4.0.2's persistent
     * collectives read some inputs only at init and fail a Testall of them */
    modes = getenv("STD_MODES") ? atoi(getenv("STD_MODES")) : 7;
    if (modes & 4) {
        persist(MPI_COMM_WORLD, aff, pair);
        persist(rev, aff, pair);
    }
    topologies(MPI_COMM_WORLD);
    topologies(rev);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&halves);
    MPI_Comm_free(&dup);
    MPI_Op_free(&aff);
    MPI_Type_free(&pair);
    int tot = 0;
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rc = std_report("std_nbc", tot, wrank);
    MPI_Finalize();
    return rc;
}
