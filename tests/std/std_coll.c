/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives against the MPI standard: blocking, non-blocking, persistent. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CHECK_RANK wrank
#include "std_check.h"
;
static int wrank;
/* non-commutative: 2x2 matrix multiply, stored as 4 ints */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        int c[4];
        c[0] = a[0] * b[0] + a[1] * b[2];
        c[1] = a[0] * b[1] + a[1] * b[3];
        c[2] = a[2] * b[0] + a[3] * b[2];
        c[3] = a[2] * b[1] + a[3] * b[3];
        memcpy(b, c, sizeof c);
    }
    (void)dt;
}
static void mat_of(int r, int *m)
{
    m[0] = 1;
    m[1] = r + 1;
    m[2] = 0;
    m[3] = 1;
    if (r % 2) {
        m[2] = 1;
        m[1] = 1;
        m[0] = 0;
        m[3] = r;
    }
}
static void mat_ref(int lo, int hi, int *m)
{ /* product m_lo * ... * m_hi */
    int acc[4] = {1, 0, 0, 1};
    for (int r = hi; r >= lo; r--) {
        int a[4];
        mat_of(r, a);
        int len = 1;
        matmul(a, acc, &len, NULL);
    }
    memcpy(m, acc, sizeof acc);
}
enum { BLK, NB, PERS };
/* The blocking, non-blocking or persistent form of one collective (by `mode`), completed. */
#define BY_MODE(blk, nb, init)                                                                     \
    do {                                                                                           \
        if (mode == BLK)                                                                           \
            blk;                                                                                   \
        else if (mode == NB)                                                                       \
            nb;                                                                                    \
        else                                                                                       \
            init;                                                                                  \
        wait_or(mode, &rq);                                                                        \
    } while (0)
static void wait_or(int mode, MPI_Request *r)
{
    if (mode == BLK)
        return;
    if (mode == NB) {
        int flag = 0;
        while (!flag)
            MPI_Test(r, &flag, MPI_STATUS_IGNORE);
        return;
    }
    MPI_Start(r);
    MPI_Wait(r, MPI_STATUS_IGNORE);
    MPI_Start(r);
    MPI_Wait(r, MPI_STATUS_IGNORE);
    MPI_Request_free(r);
}
static void run(MPI_Comm comm, int mode)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_Op op;
    MPI_Op_create(matmul, 0, &op);
    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    int m[4], out[4], ref[4];
    /* Allreduce non-commutative */
    mat_of(rank, m);
    BY_MODE(MPI_Allreduce(m, out, 1, mat, op, comm), MPI_Iallreduce(m, out, 1, mat, op, comm, &rq),
            MPI_Allreduce_init(m, out, 1, mat, op, comm, MPI_INFO_NULL, &rq));
    mat_ref(0, size - 1, ref);
    CHECK(!memcmp(out, ref, sizeof ref), "allreduce noncomm mode %d", mode);
    /* Reduce noncomm, each root */
    for (int root = 0; root < size; root++) {
        memset(out, 0, sizeof out);
        BY_MODE(MPI_Reduce(m, out, 1, mat, op, root, comm),
                MPI_Ireduce(m, out, 1, mat, op, root, comm, &rq),
                MPI_Reduce_init(m, out, 1, mat, op, root, comm, MPI_INFO_NULL, &rq));
        if (rank == root)
            CHECK(!memcmp(out, ref, sizeof ref), "reduce noncomm root %d mode %d", root, mode);
    }
    /* Scan / Exscan noncomm */
    BY_MODE(MPI_Scan(m, out, 1, mat, op, comm), MPI_Iscan(m, out, 1, mat, op, comm, &rq),
            MPI_Scan_init(m, out, 1, mat, op, comm, MPI_INFO_NULL, &rq));
    mat_ref(0, rank, ref);
    CHECK(!memcmp(out, ref, sizeof ref), "scan mode %d got %d %d %d %d", mode, out[0], out[1],
          out[2], out[3]);
    BY_MODE(MPI_Exscan(m, out, 1, mat, op, comm), MPI_Iexscan(m, out, 1, mat, op, comm, &rq),
            MPI_Exscan_init(m, out, 1, mat, op, comm, MPI_INFO_NULL, &rq));
    if (rank > 0) {
        mat_ref(0, rank - 1, ref);
        CHECK(!memcmp(out, ref, sizeof ref), "exscan mode %d", mode);
    }
    /* Reduce_scatter noncomm, counts rank%2+1 each */
    {
        int tot = 0, *rc = malloc(size * sizeof(int));
        for (int i = 0; i < size; i++) {
            rc[i] = i % 2 + 1;
            tot += rc[i];
        }
        int *sb = malloc(tot * 4 * sizeof(int)), rb[8];
        for (int i = 0; i < tot; i++)
            mat_of(rank, sb + 4 * i);
        BY_MODE(MPI_Reduce_scatter(sb, rb, rc, mat, op, comm),
                MPI_Ireduce_scatter(sb, rb, rc, mat, op, comm, &rq),
                MPI_Reduce_scatter_init(sb, rb, rc, mat, op, comm, MPI_INFO_NULL, &rq));
        mat_ref(0, size - 1, ref);
        for (int i = 0; i < rc[rank]; i++)
            CHECK(!memcmp(rb + 4 * i, ref, sizeof ref), "reduce_scatter mode %d", mode);
        /* in place, block, sum */
        int *ib = malloc(size * 3 * sizeof(int));
        for (int i = 0; i < size * 3; i++)
            ib[i] = rank + i;
        if (mode == BLK)
            MPI_Reduce_scatter_block(MPI_IN_PLACE, ib, 3, MPI_INT, MPI_SUM, comm);
        else if (mode == NB)
            MPI_Ireduce_scatter_block(MPI_IN_PLACE, ib, 3, MPI_INT, MPI_SUM, comm, &rq);
        else {
            MPI_Reduce_scatter_block_init(MPI_IN_PLACE, ib, 3, MPI_INT, MPI_SUM, comm,
                                          MPI_INFO_NULL, &rq);
            MPI_Start(&rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            MPI_Request_free(&rq);
        }
        if (mode != PERS)
            wait_or(mode, &rq);
        for (int i = 0; i < 3; i++)
            CHECK(ib[i] == size * (size - 1) / 2 + size * (rank * 3 + i),
                  "rsb inplace mode %d [%d]=%d", mode, i, ib[i]);
        free(ib);
        free(sb);
        free(rc);
    }
    /* Gatherv with vector type on the receive side, reversed displacements */
    {
        int *rcnt = malloc(size * sizeof(int)), *disp = malloc(size * sizeof(int)), tot = 0;
        for (int i = 0; i < size; i++)
            rcnt[i] = i + 1, tot += i + 1;
        for (int i = size - 1, d = 0; i >= 0; i--)
            disp[i] = d, d += rcnt[i];
        MPI_Datatype v2;
        MPI_Type_vector(1, 1, 2, MPI_INT, &v2); /* extent 1 int */
        MPI_Datatype str;
        MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &str);
        MPI_Type_commit(&str);
        int *sb = malloc((rank + 1) * sizeof(int)), *rb = malloc(2 * tot * sizeof(int));
        for (int i = 0; i <= rank; i++)
            sb[i] = 100 * rank + i;
        for (int root = 0; root < size; root++) {
            for (int i = 0; i < 2 * tot; i++)
                rb[i] = -1;
            BY_MODE(MPI_Gatherv(sb, rank + 1, MPI_INT, rb, rcnt, disp, str, root, comm),
                    MPI_Igatherv(sb, rank + 1, MPI_INT, rb, rcnt, disp, str, root, comm, &rq),
                    MPI_Gatherv_init(sb, rank + 1, MPI_INT, rb, rcnt, disp, str, root, comm,
                                     MPI_INFO_NULL, &rq));
            if (rank == root)
                for (int r = 0; r < size; r++)
                    for (int i = 0; i <= r; i++)
                        CHECK(rb[2 * (disp[r] + i)] == 100 * r + i &&
                                  rb[2 * (disp[r] + i) + 1] == -1,
                              "gatherv mode %d root %d", mode, root);
            /* scatterv back, in place at root */
            int got[16];
            for (int i = 0; i < 16; i++)
                got[i] = -7;
            if (mode == BLK)
                MPI_Scatterv(rb, rcnt, disp, str, rank == root ? MPI_IN_PLACE : got, rank + 1,
                             MPI_INT, root, comm);
            else if (mode == NB)
                MPI_Iscatterv(rb, rcnt, disp, str, rank == root ? MPI_IN_PLACE : got, rank + 1,
                              MPI_INT, root, comm, &rq);
            else
                MPI_Scatterv_init(rb, rcnt, disp, str, rank == root ? MPI_IN_PLACE : got, rank + 1,
                                  MPI_INT, root, comm, MPI_INFO_NULL, &rq);
            wait_or(mode, &rq);
            if (rank != root)
                for (int i = 0; i <= rank; i++)
                    CHECK(got[i] == 100 * rank + i, "scatterv mode %d", mode);
        }
        MPI_Type_free(&v2);
        MPI_Type_free(&str);
        free(sb);
        free(rb);
        free(rcnt);
        free(disp);
    }
    /* Allgatherv in place, Alltoallv, Alltoallw with zero counts */
    {
        int *rcnt = malloc(size * sizeof(int)), *disp = malloc(size * sizeof(int)), tot = 0;
        for (int i = 0; i < size; i++)
            rcnt[i] = (i == 1) ? 0 : i + 2, disp[i] = tot, tot += rcnt[i];
        int *b = malloc((tot + 1) * sizeof(int));
        for (int i = 0; i < tot; i++)
            b[i] = -1;
        for (int i = 0; i < rcnt[rank]; i++)
            b[disp[rank] + i] = rank * 10 + i;
        BY_MODE(
            MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, rcnt, disp, MPI_INT, comm),
            MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, rcnt, disp, MPI_INT, comm, &rq),
            MPI_Allgatherv_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, rcnt, disp, MPI_INT, comm,
                                MPI_INFO_NULL, &rq));
        for (int r = 0; r < size; r++)
            for (int i = 0; i < rcnt[r]; i++)
                CHECK(b[disp[r] + i] == r * 10 + i, "allgatherv inplace mode %d", mode);
        /* alltoallw: send to j (j+rank)%3 ints of type int, as bytes displacements; recv with
         * doubles? keep int */
        int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int)),
            *rcn = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
        MPI_Datatype *st = malloc(size * sizeof(MPI_Datatype)),
                     *rt = malloc(size * sizeof(MPI_Datatype));
        int so = 0, ro = 0;
        for (int j = 0; j < size; j++) {
            sc[j] = (j + rank) % 3;
            sd[j] = so * sizeof(int);
            so += sc[j];
            st[j] = MPI_INT;
            rcn[j] = (j + rank) % 3;
            rd[j] = ro * sizeof(int);
            ro += rcn[j];
            rt[j] = MPI_INT;
        }
        int *sb = malloc((so + 1) * sizeof(int)), *rb = malloc((ro + 1) * sizeof(int));
        for (int j = 0, k = 0; j < size; j++)
            for (int i = 0; i < sc[j]; i++)
                sb[k++] = rank * 1000 + j * 10 + i;
        BY_MODE(MPI_Alltoallw(sb, sc, sd, st, rb, rcn, rd, rt, comm),
                MPI_Ialltoallw(sb, sc, sd, st, rb, rcn, rd, rt, comm, &rq),
                MPI_Alltoallw_init(sb, sc, sd, st, rb, rcn, rd, rt, comm, MPI_INFO_NULL, &rq));
        for (int j = 0, k = 0; j < size; j++)
            for (int i = 0; i < rcn[j]; i++, k++)
                CHECK(rb[k] == j * 1000 + rank * 10 + i, "alltoallw mode %d", mode);
        /* alltoallv in place */
        int *ab = malloc((ro + 1) * sizeof(int)), *ad = malloc(size * sizeof(int));
        for (int j = 0, k = 0; j < size; j++) {
            ad[j] = k;
            for (int i = 0; i < rcn[j]; i++)
                ab[k++] = rank * 1000 + j * 10 + i;
        }
        if (mode == BLK)
            MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, ab, rcn, ad, MPI_INT, comm);
        else if (mode == NB)
            MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, ab, rcn, ad, MPI_INT, comm,
                           &rq);
        else {
            MPI_Alltoallv_init(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, ab, rcn, ad, MPI_INT,
                               comm, MPI_INFO_NULL, &rq);
            MPI_Start(&rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            MPI_Request_free(&rq);
        }
        if (mode != PERS)
            wait_or(mode, &rq);
        for (int j = 0, k = 0; j < size; j++)
            for (int i = 0; i < rcn[j]; i++, k++)
                CHECK(ab[k] == j * 1000 + rank * 10 + i, "alltoallv inplace mode %d got %d", mode,
                      ab[k]);
        free(ab);
        free(ad);
        free(sb);
        free(rb);
        free(sc);
        free(sd);
        free(rcn);
        free(rd);
        free(st);
        free(rt);
        free(b);
        free(rcnt);
        free(disp);
    }
    /* Bcast of a struct type, large count; Allgather; Alltoall; Barrier; MINLOC */
    {
        struct {
            double d;
            int i;
            char c;
        } s[3000];
        MPI_Datatype t, ts;
        int bl[3] = {1, 1, 1};
        MPI_Aint dp[3] = {0, 8, 12};
        MPI_Datatype ty[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR};
        MPI_Type_create_struct(3, bl, dp, ty, &t);
        MPI_Type_create_resized(t, 0, sizeof s[0], &ts);
        MPI_Type_commit(&ts);
        int root = size - 1;
        for (int i = 0; i < 3000; i++) {
            s[i].d = rank == root ? i * 0.5 : -1;
            s[i].i = rank == root ? i : -1;
            s[i].c = rank == root ? 'a' + i % 26 : 0;
        }
        BY_MODE(MPI_Bcast(s, 3000, ts, root, comm), MPI_Ibcast(s, 3000, ts, root, comm, &rq),
                MPI_Bcast_init(s, 3000, ts, root, comm, MPI_INFO_NULL, &rq));
        for (int i = 0; i < 3000; i++)
            if (s[i].d != i * 0.5 || s[i].i != i || s[i].c != 'a' + i % 26) {
                CHECK(0, "bcast struct mode %d at %d", mode, i);
                break;
            }
        MPI_Type_free(&t);
        MPI_Type_free(&ts);
        struct {
            double v;
            int i;
        } in[2], res[2];
        in[0].v = (rank * 7) % size;
        in[0].i = rank;
        in[1].v = 5;
        in[1].i = size - rank;
        BY_MODE(
            MPI_Allreduce(in, res, 2, MPI_DOUBLE_INT, MPI_MINLOC, comm),
            MPI_Iallreduce(in, res, 2, MPI_DOUBLE_INT, MPI_MINLOC, comm, &rq),
            MPI_Allreduce_init(in, res, 2, MPI_DOUBLE_INT, MPI_MINLOC, comm, MPI_INFO_NULL, &rq));
        CHECK(res[0].v == 0 && res[0].i == 0 && res[1].v == 5 && res[1].i == 1, "minloc mode %d",
              mode);
        int *ag = malloc(size * 2 * sizeof(int)), mine[2] = {rank, -rank};
        BY_MODE(MPI_Allgather(mine, 2, MPI_INT, ag, 2, MPI_INT, comm),
                MPI_Iallgather(mine, 2, MPI_INT, ag, 2, MPI_INT, comm, &rq),
                MPI_Allgather_init(mine, 2, MPI_INT, ag, 2, MPI_INT, comm, MPI_INFO_NULL, &rq));
        for (int r = 0; r < size; r++)
            CHECK(ag[2 * r] == r && ag[2 * r + 1] == -r, "allgather mode %d", mode);
        int *a2 = malloc(size * sizeof(int)), *a3 = malloc(size * sizeof(int));
        for (int j = 0; j < size; j++)
            a2[j] = rank * 100 + j;
        BY_MODE(MPI_Alltoall(a2, 1, MPI_INT, a3, 1, MPI_INT, comm),
                MPI_Ialltoall(a2, 1, MPI_INT, a3, 1, MPI_INT, comm, &rq),
                MPI_Alltoall_init(a2, 1, MPI_INT, a3, 1, MPI_INT, comm, MPI_INFO_NULL, &rq));
        for (int j = 0; j < size; j++)
            CHECK(a3[j] == j * 100 + rank, "alltoall mode %d", mode);
        /* zero-count bcast / reduce / gather */
        if (mode == BLK) {
            int z0[1], z1[1];
            MPI_Bcast(z0, 0, MPI_INT, 0, comm);
            MPI_Reduce(z0, z1, 0, MPI_INT, MPI_SUM, 0, comm);
            MPI_Allreduce(MPI_IN_PLACE, z1, 0, MPI_INT, MPI_SUM, comm);
            MPI_Gather(z0, 0, MPI_INT, z1, 0, MPI_INT, 0, comm);
            MPI_Alltoall(z0, 0, MPI_INT, z1, 0, MPI_INT, comm);
        }
        if (mode == BLK)
            MPI_Barrier(comm);
        else if (mode == NB) {
            MPI_Ibarrier(comm, &rq);
            wait_or(mode, &rq);
        } else {
            MPI_Barrier_init(comm, MPI_INFO_NULL, &rq);
            wait_or(mode, &rq);
        }
        /* Gather / Scatter in place, every root */
        for (int root = 0; root < size; root++) {
            for (int j = 0; j < size; j++)
                a2[j] = rank == root ? -1 : 0;
            a2[rank] = rank + 40;
            int v = rank + 40;
            if (mode == BLK)
                MPI_Gather(rank == root ? MPI_IN_PLACE : &v, 1, MPI_INT, a2, 1, MPI_INT, root,
                           comm);
            else if (mode == NB)
                MPI_Igather(rank == root ? MPI_IN_PLACE : &v, 1, MPI_INT, a2, 1, MPI_INT, root,
                            comm, &rq);
            else
                MPI_Gather_init(rank == root ? MPI_IN_PLACE : &v, 1, MPI_INT, a2, 1, MPI_INT, root,
                                comm, MPI_INFO_NULL, &rq);
            wait_or(mode, &rq);
            if (rank == root)
                for (int j = 0; j < size; j++)
                    CHECK(a2[j] == j + 40, "gather inplace mode %d", mode);
            int w = -1;
            if (mode == BLK)
                MPI_Scatter(a2, 1, MPI_INT, rank == root ? MPI_IN_PLACE : &w, 1, MPI_INT, root,
                            comm);
            else if (mode == NB)
                MPI_Iscatter(a2, 1, MPI_INT, rank == root ? MPI_IN_PLACE : &w, 1, MPI_INT, root,
                             comm, &rq);
            else
                MPI_Scatter_init(a2, 1, MPI_INT, rank == root ? MPI_IN_PLACE : &w, 1, MPI_INT, root,
                                 comm, MPI_INFO_NULL, &rq);
            wait_or(mode, &rq);
            if (rank != root)
                CHECK(w == rank + 40, "scatter mode %d", mode);
        }
        /* Reduce in place at root, sum of long over lcount */
        int lcount = getenv("LCOUNT") ? atoi(getenv("LCOUNT")) : 5000;
        long *lb = malloc(lcount * sizeof(long)), *lb2 = malloc(lcount * sizeof(long));
        for (int root = 0; root < size; root++) {
            for (int i = 0; i < lcount; i++)
                lb[i] = rank + i;
            if (mode == BLK)
                MPI_Reduce(rank == root ? MPI_IN_PLACE : lb, rank == root ? lb : lb2, lcount,
                           MPI_LONG, MPI_SUM, root, comm);
            else if (mode == NB)
                MPI_Ireduce(rank == root ? MPI_IN_PLACE : lb, rank == root ? lb : lb2, lcount,
                            MPI_LONG, MPI_SUM, root, comm, &rq);
            else {
                MPI_Reduce_init(rank == root ? MPI_IN_PLACE : lb, rank == root ? lb : lb2, lcount,
                                MPI_LONG, MPI_SUM, root, comm, MPI_INFO_NULL, &rq);
                MPI_Start(&rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
                MPI_Request_free(&rq);
            }
            if (mode != PERS)
                wait_or(mode, &rq);
            if (rank == root)
                for (int i = 0; i < lcount; i++)
                    if (lb[i] != (long)size * (size - 1) / 2 + (long)size * i) {
                        CHECK(0, "reduce inplace mode %d root %d i %d got %ld", mode, root, i,
                              lb[i]);
                        break;
                    }
        }
        free(lb);
        free(lb2);
        free(ag);
        free(a2);
        free(a3);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&mat);
}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm rev, half;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - wrank, &rev);
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &half);
    int only = getenv("ONLY") ? atoi(getenv("ONLY")) : -1;
    for (int mode = 0; mode < 3; mode++) {
        if (only >= 0 && only != mode)
            continue;
        run(MPI_COMM_WORLD, mode);
        run(rev, mode);
        run(half, mode);
        run(MPI_COMM_SELF, mode);
    }
    /* several non-blocking outstanding at once on different comms */
    {
        MPI_Request r[3];
        int a = wrank, b = 0, c = wrank, d = 0, e[64];
        MPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
        MPI_Iallreduce(&c, &d, 1, MPI_INT, MPI_MAX, rev, &r[1]);
        if (wrank == 0)
            for (int i = 0; i < 64; i++)
                e[i] = i;
        MPI_Ibcast(e, 64, MPI_INT, 0, MPI_COMM_WORLD, &r[2]);
        MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
        CHECK(b == size * (size - 1) / 2 && d == size - 1 && e[63] == 63, "outstanding");
    }
    MPI_Comm_free(&rev);
    MPI_Comm_free(&half);
    int tot;
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return std_report("std_coll", tot, wrank);
}
