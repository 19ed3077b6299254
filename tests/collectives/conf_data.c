/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data-movement collectives as MPICH's bcasttest, bcastzerotype, gather2, scatter2, scatter3,
 * scattern, coll2-coll13, alltoallv0, alltoallw1 / 2 and nonblocking check them, each in
 * blocking, non-blocking and persistent form: Bcast, Gather(v), Scatter(v), Allgather(v),
 * Alltoall(v, w), Barrier; every root, counts 0 to past the eager and inline limits, MPI_IN_PLACE
 * wherever allowed, a derived type (an int resized to the extent of two, so every other int is a
 * hole that must stay untouched) on the odd ranks against MPI_INT on the even ones (the type
 * signatures match), v-forms with zero blocks and reversed displacements with gaps, Alltoallw
 * with a different type per peer, a zero-size type. Every receive buffer, holes and gaps
 * included, is compared with one built in the program.
 */
#include "conf_mode.h"

static MPI_Datatype tstride; /* one int, extent two ints */
static MPI_Comm comm;
static int rank, size;
static const char *cn;

static int V(int r, int i)
{
    return r * 100000 + i + 1;
}

/* A buffer of n elements at stride st (ints), every int -1, one more int as a guard. */
static int *ibuf(int n, int st)
{
    int *b = conf_alloc(sizeof(int) * (size_t)(n * st + 1));

    for (int i = 0; i < n * st + 1; i++)
        b[i] = -1;
    return b;
}

static MPI_Datatype tof(int st)
{
    return st == 1 ? MPI_INT : tstride;
}

static void cmp(const int *got, const int *want, int nints, const char *what, int root, int n)
{
    for (int i = 0; i < nints + 1; i++)
        if (got[i] != want[i]) {
            CHECK(0, "%s %s root %d n %d on %s: int %d is %d, expected %d",
                  conf_mode_name[conf_mode], what, root, n, cn, i, got[i], want[i]);
            return;
        }
}

static void t_bcast(int n)
{
    int st = rank % 2 + 1;

    for (int root = 0; root < size; root++) {
        int *b = ibuf(n, st), *w = ibuf(n, st);
        for (int i = 0; i < n; i++) {
            w[i * st] = V(root, i);
            if (rank == root)
                b[i * st] = V(root, i);
        }
        CONF_RUN(Bcast, bcast, b, n, tof(st), root, comm);
        cmp(b, w, n * st, "Bcast", root, n);
        free(b);
        free(w);
    }
}

/* Gather and Scatter at every root, the root's side strided on odd roots, in place on every
 * other call (gather2, scatter2, scatter3, scattern). */
static void t_gather_scatter(int n)
{
    for (int root = 0; root < size; root++) {
        int st = root % 2 + 1, inplace = (root + n) % 2 && rank == root;
        int *s = ibuf(n, 1), *r = ibuf(size * n, st), *w = ibuf(size * n, st);
        for (int i = 0; i < n; i++)
            s[i] = V(rank, i);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < n; i++) {
                w[(j * n + i) * st] = V(j, i);
                if (inplace && j == rank)
                    r[(j * n + i) * st] = V(j, i);
            }
        CONF_RUN(Gather, gather, inplace ? MPI_IN_PLACE : s, n, MPI_INT,
                 rank == root ? r : CONF_NONROOT_BUF(r), n, tof(st), root, comm);
        if (rank == root)
            cmp(r, w, size * n * st, inplace ? "Gather(in place)" : "Gather", root, n);
        /* Scatter back what the root holds: each rank gets its own block. */
        free(s);
        s = ibuf(n, 1);
        int *ws = ibuf(n, 1);
        for (int i = 0; i < n; i++) {
            ws[i] = V(rank, i);
            if (inplace)
                s[i] = V(rank, i);
        }
        CONF_RUN(Scatter, scatter, rank == root ? w : CONF_NONROOT_BUF(w), n, tof(st),
                 inplace ? MPI_IN_PLACE : s, n, MPI_INT, root, comm);
        cmp(s, ws, n, inplace ? "Scatter(in place)" : "Scatter", root, n);
        free(s);
        free(r);
        free(w);
        free(ws);
    }
}

static void t_allgather_alltoall(int n)
{
    int st = rank % 2 + 1;

    for (int inplace = 0; inplace < 2; inplace++) {
        int *s = ibuf(n, 1), *r = ibuf(size * n, st), *w = ibuf(size * n, st);
        for (int i = 0; i < n; i++)
            s[i] = V(rank, i);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < n; i++) {
                w[(j * n + i) * st] = V(j, i);
                if (inplace && j == rank)
                    r[(j * n + i) * st] = V(j, i);
            }
        if (inplace)
            CONF_RUN(Allgather, allgather, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, n, tof(st), comm);
        else
            CONF_RUN(Allgather, allgather, s, n, MPI_INT, r, n, tof(st), comm);
        cmp(r, w, size * n * st, inplace ? "Allgather(in place)" : "Allgather", -1, n);
        free(s);
        free(r);
        free(w);
        /* Alltoall: block j of rank r holds V(r, j * n + i); rank q receives V(j, q * n + i). */
        s = ibuf(size * n, 1);
        r = ibuf(size * n, st);
        w = ibuf(size * n, st);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < n; i++) {
                s[j * n + i] = V(rank, j * n + i);
                w[(j * n + i) * st] = V(j, rank * n + i);
                if (inplace)
                    r[(j * n + i) * st] = V(rank, j * n + i);
            }
        if (inplace)
            CONF_RUN(Alltoall, alltoall, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, n, tof(st), comm);
        else
            CONF_RUN(Alltoall, alltoall, s, n, MPI_INT, r, n, tof(st), comm);
        cmp(r, w, size * n * st, inplace ? "Alltoall(in place)" : "Alltoall", -1, n);
        free(s);
        free(r);
        free(w);
    }
}

/* v-forms: rank j's block has (j + n) % 3 * n elements (some zero), laid out in reverse rank
 * order with a one-element gap after each (coll3, coll5, coll6, gatherv, scatterv). */
static int vcount(int j, int n)
{
    return (j + n) % 3 * n;
}

static int vlayout(int n, int *cnt, int *dsp)
{
    int off = 0;

    for (int j = size - 1; j >= 0; j--) {
        cnt[j] = vcount(j, n);
        dsp[j] = off;
        off += cnt[j] + 1;
    }
    return off;
}

static void t_v(int n)
{
    int *cnt = conf_alloc(sizeof(int) * size), *dsp = conf_alloc(sizeof(int) * size);
    int tot = vlayout(n, cnt, dsp), me = cnt[rank];

    for (int root = 0; root < size; root++) {
        int st = root % 2 + 1, inplace = (root + n) % 2 && rank == root;
        int *s = ibuf(me, 1), *r = ibuf(tot, st), *w = ibuf(tot, st);
        for (int i = 0; i < me; i++)
            s[i] = V(rank, i);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < cnt[j]; i++) {
                w[(dsp[j] + i) * st] = V(j, i);
                if (inplace && j == rank)
                    r[(dsp[j] + i) * st] = V(j, i);
            }
        CONF_RUN(Gatherv, gatherv, inplace ? MPI_IN_PLACE : s, me, MPI_INT,
                 rank == root ? r : CONF_NONROOT_BUF(r), rank == root ? cnt : CONF_NONROOT_BUF(cnt),
                 rank == root ? dsp : CONF_NONROOT_BUF(dsp), tof(st), root, comm);
        if (rank == root)
            cmp(r, w, tot * st, inplace ? "Gatherv(in place)" : "Gatherv", root, n);
        int *ws = ibuf(me, 1);
        free(s);
        s = ibuf(me, 1);
        for (int i = 0; i < me; i++) {
            ws[i] = V(rank, i);
            if (inplace)
                s[i] = V(rank, i);
        }
        CONF_RUN(Scatterv, scatterv, rank == root ? w : CONF_NONROOT_BUF(w),
                 rank == root ? cnt : CONF_NONROOT_BUF(cnt),
                 rank == root ? dsp : CONF_NONROOT_BUF(dsp), tof(st), inplace ? MPI_IN_PLACE : s,
                 me, MPI_INT, root, comm);
        cmp(s, ws, me, inplace ? "Scatterv(in place)" : "Scatterv", root, n);
        free(s);
        free(r);
        free(w);
        free(ws);
    }
    for (int inplace = 0; inplace < 2; inplace++) {
        int st = rank % 2 + 1;
        int *s = ibuf(me, 1), *r = ibuf(tot, st), *w = ibuf(tot, st);
        for (int i = 0; i < me; i++)
            s[i] = V(rank, i);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < cnt[j]; i++) {
                w[(dsp[j] + i) * st] = V(j, i);
                if (inplace && j == rank)
                    r[(dsp[j] + i) * st] = V(j, i);
            }
        if (inplace)
            CONF_RUN(Allgatherv, allgatherv, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, cnt, dsp,
                     tof(st), comm);
        else
            CONF_RUN(Allgatherv, allgatherv, s, me, MPI_INT, r, cnt, dsp, tof(st), comm);
        cmp(r, w, tot * st, inplace ? "Allgatherv(in place)" : "Allgatherv", -1, n);
        free(s);
        free(r);
        free(w);
    }
    free(cnt);
    free(dsp);
}

/* Alltoallv / Alltoallw: rank q sends (q + j) % 3 * n elements to rank j (so j expects as many
 * from q), blocks in reverse peer order with gaps (alltoallv0: zero blocks). Alltoallw sends to
 * odd peers through the strided type and receives from odd peers through it too; its
 * displacements are in bytes. */
static void a2a_layout(int n, int *cnt, int *dsp)
{
    int off = 0;

    for (int j = size - 1; j >= 0; j--) {
        cnt[j] = (rank + j) % 3 * n;
        dsp[j] = off;
        off += cnt[j] + 1;
    }
}

static void t_alltoallvw(int n)
{
    int *cnt = conf_alloc(sizeof(int) * size), *dsp = conf_alloc(sizeof(int) * size);
    int *bd = conf_alloc(sizeof(int) * size), *sbd = conf_alloc(sizeof(int) * size);
    MPI_Datatype *ty = conf_alloc(sizeof(MPI_Datatype) * size);
    int tot;

    a2a_layout(n, cnt, dsp);
    tot = dsp[0] + cnt[0] + 1;
    for (int w_form = 0; w_form < 2; w_form++)
        for (int inplace = 0; inplace < 2; inplace++) {
            /* ints at stride 2 everywhere, so the strided type fits the same buffers */
            int *s = ibuf(tot, 2), *r = ibuf(tot, 2), *w = ibuf(tot, 2);
            int st_of_j;
            for (int j = 0; j < size; j++) {
                st_of_j = w_form && j % 2 ? 2 : 1;
                ty[j] = tof(st_of_j);
                /* element e of a block at displacement d: int d * ... (MPI_INT: unit 4 bytes)*/
                bd[j] = w_form ? dsp[j] * 2 * (int)sizeof(int) : 0;
                sbd[j] = w_form ? dsp[j] * 2 * (int)sizeof(int) : 2 * dsp[j];
                for (int i = 0; i < cnt[j]; i++) {
                    int si = w_form ? 2 * dsp[j] + i * st_of_j : 2 * dsp[j] + i;
                    s[si] = V(rank, j * 1000 + i);
                    w[si] = V(j, rank * 1000 + i);
                    if (inplace)
                        r[si] = V(rank, j * 1000 + i);
                }
            }
            if (!w_form) {
                if (inplace)
                    CONF_RUN(Alltoallv, alltoallv, MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r,
                             cnt, sbd, MPI_INT, comm);
                else
                    CONF_RUN(Alltoallv, alltoallv, s, cnt, sbd, MPI_INT, r, cnt, sbd, MPI_INT,
                             comm);
            } else {
                if (inplace)
                    CONF_RUN(Alltoallw, alltoallw, MPI_IN_PLACE, NULL, NULL, NULL, r, cnt, bd, ty,
                             comm);
                else
                    CONF_RUN(Alltoallw, alltoallw, s, cnt, bd, ty, r, cnt, bd, ty, comm);
            }
            cmp(r, w, 2 * tot,
                w_form ? (inplace ? "Alltoallw(in place)" : "Alltoallw")
                       : (inplace ? "Alltoallv(in place)" : "Alltoallv"),
                -1, n);
            free(s);
            free(r);
            free(w);
        }
    free(cnt);
    free(dsp);
    free(bd);
    free(sbd);
    free(ty);
}

/* A zero-size type (bcastzerotype) and a Barrier. */
static void t_misc(void)
{
    MPI_Datatype zero;
    int buf[4] = {1, 2, 3, 4};

    MPI_Type_contiguous(0, MPI_INT, &zero);
    MPI_Type_commit(&zero);
    for (int root = 0; root < size; root++) {
        CONF_RUN(Bcast, bcast, buf, 10, zero, root, comm);
        CHECK(buf[0] == 1 && buf[3] == 4, "Bcast of a zero-size type wrote data on %s", cn);
    }
    MPI_Type_free(&zero);
    CONF_RUN(Barrier, barrier, comm);
}

int main(int argc, char **argv)
{
    static const int ns[] = {0, 1, 7, 3000, 20000};

    conf_init(&argc, &argv);
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &tstride);
    MPI_Type_commit(&tstride);
    for (int ci = 0; ci < CONF_NCOMMS; ci++) {
        comm = conf_comm_get(ci, &cn);
        if (comm == MPI_COMM_NULL)
            continue;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        for (conf_mode = 0; conf_mode < CONF_NMODES; conf_mode++) {
            for (int k = 0; k < 5; k++) {
                t_bcast(ns[k]);
                t_gather_scatter(ns[k]);
                t_allgather_alltoall(ns[k]);
                if (ns[k] <= 3000) {
                    t_v(ns[k]);
                    t_alltoallvw(ns[k]);
                }
            }
            t_misc();
        }
        MPI_Comm_free(&comm);
    }
    MPI_Type_free(&tstride);
    return conf_finish("conf_data");
}
