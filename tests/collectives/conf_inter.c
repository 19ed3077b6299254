/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Intercommunicator collectives as MPICH's icbarrier, icbcast, icreduce, icallreduce, icgather,
 * icgatherv, icscatter, icscatterv, icallgather, icallgatherv, icalltoall, icalltoallv,
 * icalltoallw, icredscat (and their non-blocking / persistent forms) check them: MPI 4.1
 * semantics (6.2.2, each operation's intercommunicator paragraph): rooted calls with MPI_ROOT at
 * the root, MPI_PROC_NULL at the rest of its group and the root's rank in the other group; every
 * root of both groups; results are the other group's data; Reduce / Allreduce with SUM and a
 * non-commutative user op (rank order of the other group); Reduce_scatter(_block) with the two
 * groups' totals equal and uneven counts. Two layouts: even / odd world ranks, and world rank 0
 * against the rest. Counts 0, 1, 7, 3000.
 */
#include "conf_mode.h"

static MPI_Comm ic;
static int lrank, lsize, rsize, grp;
static const char *lay;

static int V(int g, int r, int i)
{
    return g * 1000000 + r * 1000 + i + 1;
}

/* sum over the ranks of group g (size s) of V(g, r, i) */
static int vsum(int g, int s, int i)
{
    return s * (g * 1000000 + i + 1) + 1000 * s * (s - 1) / 2;
}

typedef struct {
    unsigned a, b;
} aff_t;
static MPI_Datatype aff_type;
static MPI_Op aff_op;
static aff_t aff_val(int g, int r, int i)
{
    aff_t v = {2u * (unsigned)r + 3u + 5u * (unsigned)i + (unsigned)g,
               7u * (unsigned)r + (unsigned)i + 1u};
    return v;
}
static aff_t aff_comp(aff_t x, aff_t y)
{
    aff_t v = {x.a * y.a, x.b * y.a + y.b};
    return v;
}
static void aff_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    aff_t *x = in, *y = inout;
    (void)dt;
    for (int k = 0; k < *len; k++)
        y[k] = aff_comp(x[k], y[k]);
}
static aff_t aff_fold(int g, int s, int i)
{
    aff_t acc = aff_val(g, 0, i);
    for (int r = 1; r < s; r++)
        acc = aff_comp(acc, aff_val(g, r, i));
    return acc;
}

#define FAIL_AT(what, n, i, got, want)                                                             \
    CHECK(0, "%s %s n %d (%s, group %d rank %d): element %d is %d, expected %d",                   \
          conf_mode_name[conf_mode], what, n, lay, grp, lrank, i, got, want)

static int *ibuf(int n)
{
    int *b = conf_alloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i <= n; i++)
        b[i] = -1;
    return b;
}

/* The root argument of local rank lrank when rank rr of group rg is the root. */
static int root_arg(int rg, int rr)
{
    if (rg != grp)
        return rr;
    return lrank == rr ? MPI_ROOT : MPI_PROC_NULL;
}

static void t_rooted(int n)
{
    for (int rg = 0; rg < 2; rg++) {
        int rs = rg == grp ? lsize : rsize; /* the root group's size */
        for (int rr = 0; rr < rs; rr++) {
            int root = root_arg(rg, rr), i, j, ok;
            int amroot = root == MPI_ROOT, inother = rg != grp;
            int *b = ibuf(rsize * n), *s = ibuf(n);
            /* Bcast: the root's data reaches the other group */
            for (i = 0; i < n; i++)
                b[i] = amroot ? V(rg, rr, i) : -1;
            CONF_RUN(Bcast, bcast, b, n, MPI_INT, root, ic);
            for (i = 0, ok = 1; inother && ok && i < n; i++)
                if (b[i] != V(rg, rr, i)) {
                    FAIL_AT("Bcast", n, i, b[i], V(rg, rr, i));
                    ok = 0;
                }
            /* Reduce SUM: the other group's data, reduced at the root */
            for (i = 0; i < n; i++)
                s[i] = V(grp, lrank, i);
            CONF_RUN(Reduce, reduce, s, b, n, MPI_INT, MPI_SUM, root, ic);
            for (i = 0, ok = 1; amroot && ok && i < n; i++)
                if (b[i] != vsum(!grp, rsize, i)) {
                    FAIL_AT("Reduce(SUM)", n, i, b[i], vsum(!grp, rsize, i));
                    ok = 0;
                }
            /* Gather: the other group's blocks in its rank order */
            CONF_RUN(Gather, gather, s, n, MPI_INT, amroot ? b : NULL, n, MPI_INT, root, ic);
            for (j = 0, ok = 1; amroot && ok && j < rsize; j++)
                for (i = 0; ok && i < n; i++)
                    if (b[j * n + i] != V(!grp, j, i)) {
                        FAIL_AT("Gather", n, j * n + i, b[j * n + i], V(!grp, j, i));
                        ok = 0;
                    }
            /* Scatter: block j of the root to rank j of the other group */
            for (j = 0; amroot && j < rsize; j++)
                for (i = 0; i < n; i++)
                    b[j * n + i] = V(rg, j, i) + 7;
            CONF_RUN(Scatter, scatter, amroot ? b : NULL, n, MPI_INT, s, n, MPI_INT, root, ic);
            for (i = 0, ok = 1; inother && ok && i < n; i++)
                if (s[i] != V(rg, lrank, i) + 7) {
                    FAIL_AT("Scatter", n, i, s[i], V(rg, lrank, i) + 7);
                    ok = 0;
                }
            free(b);
            free(s);
        }
    }
}

/* Reduce with the non-commutative op, Gatherv / Scatterv with uneven (some zero) counts laid
 * out in reverse order with gaps, at root 0 of each group. */
static void t_rooted_more(int n)
{
    for (int rg = 0; rg < 2; rg++) {
        int root = root_arg(rg, 0), amroot = root == MPI_ROOT, inother = rg != grp, i, j, ok;
        aff_t *as = conf_alloc(sizeof(aff_t) * (n + 1)), *ar = conf_alloc(sizeof(aff_t) * (n + 1));
        int *cnt = conf_alloc(sizeof(int) * rsize), *dsp = conf_alloc(sizeof(int) * rsize);
        int tot = 0, me = (lrank + n) % 3 * n;

        for (i = 0; i < n; i++)
            as[i] = aff_val(grp, lrank, i);
        CONF_RUN(Reduce, reduce, as, ar, n, aff_type, aff_op, root, ic);
        for (i = 0, ok = 1; amroot && ok && i < n; i++) {
            aff_t w = aff_fold(!grp, rsize, i);
            if (ar[i].a != w.a || ar[i].b != w.b) {
                FAIL_AT("Reduce(non-commutative)", n, i, (int)ar[i].a, (int)w.a);
                ok = 0;
            }
        }
        for (j = rsize - 1; j >= 0; j--) {
            cnt[j] = (j + n) % 3 * n;
            dsp[j] = tot;
            tot += cnt[j] + 1;
        }
        int *b = ibuf(tot), *s = ibuf(me);
        for (i = 0; i < me; i++)
            s[i] = V(grp, lrank, i);
        CONF_RUN(Gatherv, gatherv, s, me, MPI_INT, amroot ? b : NULL, amroot ? cnt : NULL,
                 amroot ? dsp : NULL, MPI_INT, root, ic);
        for (j = 0, ok = 1; amroot && ok && j < rsize; j++) {
            for (i = 0; ok && i < cnt[j]; i++)
                if (b[dsp[j] + i] != V(!grp, j, i)) {
                    FAIL_AT("Gatherv", n, dsp[j] + i, b[dsp[j] + i], V(!grp, j, i));
                    ok = 0;
                }
            if (ok && b[dsp[j] + cnt[j]] != -1) {
                FAIL_AT("Gatherv(gap)", n, dsp[j] + cnt[j], b[dsp[j] + cnt[j]], -1);
                ok = 0;
            }
        }
        for (j = 0; amroot && j < rsize; j++)
            for (i = 0; i < cnt[j]; i++)
                b[dsp[j] + i] = V(rg, j, i) + 3;
        for (i = 0; i <= me; i++)
            s[i] = -1;
        CONF_RUN(Scatterv, scatterv, amroot ? b : NULL, amroot ? cnt : NULL, amroot ? dsp : NULL,
                 MPI_INT, s, me, MPI_INT, root, ic);
        for (i = 0, ok = 1; inother && ok && i <= me; i++) {
            int w = i < me ? V(rg, lrank, i) + 3 : -1;
            if (s[i] != w) {
                FAIL_AT("Scatterv", n, i, s[i], w);
                ok = 0;
            }
        }
        free(b);
        free(s);
        free(as);
        free(ar);
        free(cnt);
        free(dsp);
    }
}

static void t_all(int n)
{
    int i, j, ok;
    int *s = ibuf(rsize * n), *r = ibuf(rsize * n);
    aff_t *as = conf_alloc(sizeof(aff_t) * (n + 1)), *ar = conf_alloc(sizeof(aff_t) * (n + 1));

    CONF_RUN(Barrier, barrier, ic);
    for (i = 0; i < n; i++)
        s[i] = V(grp, lrank, i);
    CONF_RUN(Allreduce, allreduce, s, r, n, MPI_INT, MPI_SUM, ic);
    for (i = 0, ok = 1; ok && i < n; i++)
        if (r[i] != vsum(!grp, rsize, i)) {
            FAIL_AT("Allreduce(SUM)", n, i, r[i], vsum(!grp, rsize, i));
            ok = 0;
        }
    for (i = 0; i < n; i++)
        as[i] = aff_val(grp, lrank, i);
    CONF_RUN(Allreduce, allreduce, as, ar, n, aff_type, aff_op, ic);
    for (i = 0, ok = 1; ok && i < n; i++) {
        aff_t w = aff_fold(!grp, rsize, i);
        if (ar[i].a != w.a || ar[i].b != w.b) {
            FAIL_AT("Allreduce(non-commutative)", n, i, (int)ar[i].a, (int)w.a);
            ok = 0;
        }
    }
    CONF_RUN(Allgather, allgather, s, n, MPI_INT, r, n, MPI_INT, ic);
    for (j = 0, ok = 1; ok && j < rsize; j++)
        for (i = 0; ok && i < n; i++)
            if (r[j * n + i] != V(!grp, j, i)) {
                FAIL_AT("Allgather", n, j * n + i, r[j * n + i], V(!grp, j, i));
                ok = 0;
            }
    /* Alltoall: block j goes to remote rank j */
    for (j = 0; j < rsize; j++)
        for (i = 0; i < n; i++)
            s[j * n + i] = V(grp, lrank, j * 100 + i);
    CONF_RUN(Alltoall, alltoall, s, n, MPI_INT, r, n, MPI_INT, ic);
    for (j = 0, ok = 1; ok && j < rsize; j++)
        for (i = 0; ok && i < n; i++)
            if (r[j * n + i] != V(!grp, j, lrank * 100 + i)) {
                FAIL_AT("Alltoall", n, j * n + i, r[j * n + i], V(!grp, j, lrank * 100 + i));
                ok = 0;
            }
    free(s);
    free(r);
    free(as);
    free(ar);
}

/* Allgatherv, Alltoallv, Alltoallw: remote rank j's block has (j + n) % 3 * n elements in
 * Allgatherv; in the all-to-all ones the block between local rank q and remote rank j has
 * (q + j + grp) % 3 * n... both sides must agree, so the count of a pair is (a + b) % 3 * n
 * with a the rank in group 0 and b the rank in group 1. */
static int pair_cnt(int me, int peer, int n)
{
    int a = grp == 0 ? me : peer, b = grp == 0 ? peer : me;
    return (a + 2 * b) % 3 * n;
}

static void t_allv(int n)
{
    int *cnt = conf_alloc(sizeof(int) * rsize), *dsp = conf_alloc(sizeof(int) * rsize);
    int *scnt = conf_alloc(sizeof(int) * rsize), *sdsp = conf_alloc(sizeof(int) * rsize);
    int *bd = conf_alloc(sizeof(int) * rsize), *sbd = conf_alloc(sizeof(int) * rsize);
    MPI_Datatype *ty = conf_alloc(sizeof(MPI_Datatype) * rsize);
    int tot = 0, stot = 0, me = (lrank + n) % 3 * n, i, j, ok;

    for (j = rsize - 1; j >= 0; j--) {
        cnt[j] = (j + n) % 3 * n;
        dsp[j] = tot;
        tot += cnt[j] + 1;
    }
    int *s = ibuf(me), *r = ibuf(tot);
    for (i = 0; i < me; i++)
        s[i] = V(grp, lrank, i);
    CONF_RUN(Allgatherv, allgatherv, s, me, MPI_INT, r, cnt, dsp, MPI_INT, ic);
    for (j = 0, ok = 1; ok && j < rsize; j++)
        for (i = 0; ok && i <= cnt[j]; i++) {
            int w = i < cnt[j] ? V(!grp, j, i) : -1;
            if (r[dsp[j] + i] != w) {
                FAIL_AT("Allgatherv", n, dsp[j] + i, r[dsp[j] + i], w);
                ok = 0;
            }
        }
    free(s);
    free(r);
    tot = 0;
    for (j = rsize - 1; j >= 0; j--) {
        cnt[j] = scnt[j] = pair_cnt(lrank, j, n);
        dsp[j] = tot;
        tot += cnt[j] + 1;
    }
    for (j = 0; j < rsize; j++) {
        sdsp[j] = stot;
        stot += scnt[j];
        bd[j] = dsp[j] * (int)sizeof(int);
        sbd[j] = sdsp[j] * (int)sizeof(int);
        ty[j] = MPI_INT;
    }
    for (int w_form = 0; w_form < 2; w_form++) {
        s = ibuf(stot);
        r = ibuf(tot);
        for (j = 0; j < rsize; j++)
            for (i = 0; i < scnt[j]; i++)
                s[sdsp[j] + i] = V(grp, lrank, j * 100 + i);
        if (w_form)
            CONF_RUN(Alltoallw, alltoallw, s, scnt, sbd, ty, r, cnt, bd, ty, ic);
        else
            CONF_RUN(Alltoallv, alltoallv, s, scnt, sdsp, MPI_INT, r, cnt, dsp, MPI_INT, ic);
        for (j = 0, ok = 1; ok && j < rsize; j++)
            for (i = 0; ok && i <= cnt[j]; i++) {
                int w = i < cnt[j] ? V(!grp, j, lrank * 100 + i) : -1;
                if (r[dsp[j] + i] != w) {
                    FAIL_AT(w_form ? "Alltoallw" : "Alltoallv", n, dsp[j] + i, r[dsp[j] + i], w);
                    ok = 0;
                }
            }
        free(s);
        free(r);
    }
    free(cnt);
    free(dsp);
    free(scnt);
    free(sdsp);
    free(bd);
    free(sbd);
    free(ty);
}

/* Reduce_scatter_block and Reduce_scatter: group A's vectors reduced, scattered over group B,
 * and the other way; both totals T = lsize * rsize * m, so each group's input is T long. */
static void t_redscat(int m)
{
    int T = lsize * rsize * m, i, ok, off = 0;
    int rcb = rsize * m; /* recvcount x local size = T */
    int *s = ibuf(T), *r = ibuf(T), *rc = conf_alloc(sizeof(int) * lsize);

    for (i = 0; i < T; i++)
        s[i] = V(grp, lrank, i);
    CONF_RUN(Reduce_scatter_block, reduce_scatter_block, s, r, rcb, MPI_INT, MPI_SUM, ic);
    for (i = 0, ok = 1; ok && i <= rcb; i++) {
        int w = i < rcb ? vsum(!grp, rsize, lrank * rcb + i) : -1;
        if (r[i] != w) {
            FAIL_AT("Reduce_scatter_block", m, i, r[i], w);
            ok = 0;
        }
    }
    /* uneven: the first rank one more, the last one less (totals stay T) */
    for (i = 0; i < lsize; i++)
        rc[i] = rsize * m + (lsize > 1 && m > 0 ? (i == 0) - (i == lsize - 1) : 0);
    for (i = 0; i < lrank; i++)
        off += rc[i];
    for (i = 0; i <= T; i++)
        r[i] = -1;
    CONF_RUN(Reduce_scatter, reduce_scatter, s, r, rc, MPI_INT, MPI_SUM, ic);
    for (i = 0, ok = 1; ok && i <= rc[lrank]; i++) {
        int w = i < rc[lrank] ? vsum(!grp, rsize, off + i) : -1;
        if (r[i] != w) {
            FAIL_AT("Reduce_scatter", m, i, r[i], w);
            ok = 0;
        }
    }
    free(s);
    free(r);
    free(rc);
}

int main(int argc, char **argv)
{
    static const int ns[] = {0, 1, 7, 3000};
    int wrank, wsize;
    MPI_Comm local;

    conf_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2)
        return conf_finish("conf_inter");
    MPI_Type_contiguous(2, MPI_UNSIGNED, &aff_type);
    MPI_Type_commit(&aff_type);
    MPI_Op_create(aff_fn, 0, &aff_op);
    for (int l = 0; l < 2; l++) {
        lay = l == 0 ? "even/odd" : "0/rest";
        grp = l == 0 ? wrank % 2 : wrank > 0;
        MPI_Comm_split(MPI_COMM_WORLD, grp, l == 0 ? wrank : -wrank, &local);
        /* group 1 of the second layout is in reverse world order: its leader is the last rank */
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, grp == 0 ? (l == 0 ? 1 : wsize - 1) : 0,
                             17 + l, &ic);
        MPI_Comm_rank(ic, &lrank);
        MPI_Comm_size(ic, &lsize);
        MPI_Comm_remote_size(ic, &rsize);
        for (conf_mode = 0; conf_mode < CONF_NMODES; conf_mode++)
            for (int k = 0; k < 4; k++) {
                t_rooted(ns[k]);
                t_rooted_more(ns[k]);
                t_all(ns[k]);
                t_allv(ns[k]);
                t_redscat(ns[k] > 7 ? 300 : ns[k]);
            }
        MPI_Comm_free(&ic);
        MPI_Comm_free(&local);
    }
    MPI_Op_free(&aff_op);
    MPI_Type_free(&aff_type);
    return conf_finish("conf_inter");
}
