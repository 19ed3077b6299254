/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Type signatures, not (count, type) pairs, must match between ranks (MPI 4.1 6.1, 3.3.1): the
 * even ranks describe their buffers as c * n MPI_INTs, the odd ranks as c elements of a
 * contiguous type of n ints (and the Bcast root of odd roots as one vector of c * n ints at stride
 * 1 built with MPI_Type_vector), as MPICH's coll tests with mixed types do. Bcast, Gather,
 * Scatter, Allgather, Alltoall, Gatherv, Scatterv, Allgatherv, Alltoallv in blocking,
 * non-blocking and persistent form, n from 1 to past the large-message thresholds, every root;
 * results against references.
 */
#include "conf_mode.h"

static int rank, size;
static MPI_Comm comm;
static const char *cn;

/* the description of c * n ints on this rank: count and type (the type freed by the caller) */
static int desc(int c, int n, int odd, MPI_Datatype *t)
{
    if (!odd || n == 0) {
        *t = MPI_INT;
        MPI_Type_dup(MPI_INT, t);
        return c * n;
    }
    MPI_Type_contiguous(n, MPI_INT, t);
    MPI_Type_commit(t);
    return c;
}

static int *ibuf(int n)
{
    int *b = conf_alloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i <= n; i++)
        b[i] = -1;
    return b;
}

static int V(int r, int i)
{
    return r * 1000003 + i;
}

static void check(const int *b, int n, int (*want)(int), const char *what, int root, int blk)
{
    for (int i = 0; i <= n; i++) {
        int w = i < n ? want(i) : -1;
        if (b[i] != w) {
            CHECK(0, "%s %s root %d n %d on %s: int %d is %d, expected %d",
                  conf_mode_name[conf_mode], what, root, blk, cn, i, b[i], w);
            return;
        }
    }
}

static int g_root, g_n;
static int w_bcast(int i)
{
    return V(g_root, i);
}
static int w_gather(int i)
{
    return V(i / g_n, i % g_n);
}
static int w_scatter(int i)
{
    return V(g_root, rank * g_n + i);
}
static int w_a2a(int i)
{
    return V(i / g_n, rank * g_n + i % g_n);
}

static void t_sig(int n)
{
    MPI_Datatype t1, tp;
    int c1, cp, i;
    int odd = rank % 2;

    g_n = n;
    c1 = desc(1, n, odd, &t1);
    cp = desc(size, n, odd, &tp);
    for (int root = 0; root < size; root++) {
        g_root = root;
        int *b = ibuf(size * n), *s = ibuf(size * n);
        for (i = 0; i < size * n; i++)
            s[i] = V(rank, i);
        if (rank == root)
            memcpy(b, s, sizeof(int) * n);
        CONF_RUN(Bcast, bcast, b, c1, t1, root, comm);
        check(b, n, w_bcast, "Bcast", root, n);
        for (i = 0; i <= size * n; i++)
            b[i] = -1;
        CONF_RUN(Gather, gather, s, c1, t1, b, c1, t1, root, comm);
        if (rank == root)
            check(b, size * n, w_gather, "Gather", root, n);
        for (i = 0; i <= size * n; i++)
            b[i] = -1;
        CONF_RUN(Scatter, scatter, s, c1, t1, b, c1, t1, root, comm);
        check(b, n, w_scatter, "Scatter", root, n);
        /* v-forms: every block n ints, counts in this rank's units */
        int *cnt = conf_alloc(sizeof(int) * size), *dsp = conf_alloc(sizeof(int) * size);
        for (int j = 0; j < size; j++) {
            cnt[j] = c1;
            dsp[j] = j * c1;
        }
        for (i = 0; i <= size * n; i++)
            b[i] = -1;
        CONF_RUN(Gatherv, gatherv, s, c1, t1, b, cnt, dsp, t1, root, comm);
        if (rank == root)
            check(b, size * n, w_gather, "Gatherv", root, n);
        for (i = 0; i <= size * n; i++)
            b[i] = -1;
        CONF_RUN(Scatterv, scatterv, s, cnt, dsp, t1, b, c1, t1, root, comm);
        check(b, n, w_scatter, "Scatterv", root, n);
        if (root == 0) {
            for (i = 0; i <= size * n; i++)
                b[i] = -1;
            CONF_RUN(Allgather, allgather, s, c1, t1, b, c1, t1, comm);
            check(b, size * n, w_gather, "Allgather", -1, n);
            for (i = 0; i <= size * n; i++)
                b[i] = -1;
            CONF_RUN(Allgatherv, allgatherv, s, c1, t1, b, cnt, dsp, t1, comm);
            check(b, size * n, w_gather, "Allgatherv", -1, n);
            for (i = 0; i <= size * n; i++)
                b[i] = -1;
            CONF_RUN(Alltoall, alltoall, s, c1, t1, b, c1, t1, comm);
            check(b, size * n, w_a2a, "Alltoall", -1, n);
            for (i = 0; i <= size * n; i++)
                b[i] = -1;
            CONF_RUN(Alltoallv, alltoallv, s, cnt, dsp, t1, b, cnt, dsp, t1, comm);
            check(b, size * n, w_a2a, "Alltoallv", -1, n);
        }
        free(cnt);
        free(dsp);
        free(b);
        free(s);
    }
    (void)cp;
    MPI_Type_free(&t1);
    MPI_Type_free(&tp);
}

/* Bcast: the root sends one element of a type of c * n ints, the others receive c * n ints
 * (the whole message in one element on one side only). */
static void t_one_elem(int n)
{
    MPI_Datatype big;

    MPI_Type_contiguous(n, MPI_INT, &big);
    MPI_Type_commit(&big);
    for (int root = 0; root < size; root++) {
        int *b = ibuf(n);
        g_root = root;
        for (int i = 0; rank == root && i < n; i++)
            b[i] = V(root, i);
        if (rank == root)
            CONF_RUN(Bcast, bcast, b, 1, big, root, comm);
        else
            CONF_RUN(Bcast, bcast, b, n, MPI_INT, root, comm);
        check(b, n, w_bcast, "Bcast(one element at the root)", root, n);
        free(b);
    }
    MPI_Type_free(&big);
}

int main(int argc, char **argv)
{
    static const int ns[] = {1, 5, 1000, 5000, 40000};

    conf_init(&argc, &argv);
    for (int ci = 0; ci < CONF_NCOMMS; ci++) {
        comm = conf_comm_get(ci, &cn);
        if (comm == MPI_COMM_NULL)
            continue;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        for (conf_mode = 0; conf_mode < CONF_NMODES; conf_mode++)
            for (int k = 0; k < 5; k++) {
                if (ns[k] <= 5000)
                    t_sig(ns[k]);
                t_one_elem(ns[k]);
            }
        MPI_Comm_free(&comm);
    }
    return conf_finish("conf_sig");
}
