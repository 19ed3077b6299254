/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Intercommunicator collectives (collectives/sched_inter.c), written against MPI 4.1 only:
 * world splits into two uneven, interleaved groups (world rank % 3 == 0 and the rest), joined
 * by MPI_Intercomm_create, once with each group in world order and once reversed. Every
 * collective the standard defines on an intercommunicator, blocking, non-blocking (completed
 * by a Test loop) and persistent (started twice), at counts 0, 1, 7 and past the eager limit,
 * every root of both groups (MPI_ROOT / MPI_PROC_NULL / the remote rank; NULL for the
 * root-side buffers of Gather(v) / Scatter(v) in the other group, where they are not
 * significant), SUM and a non-commutative op (2x2 matrix product, so the remote
 * group's rank order matters); results against a reference computed here from the data rule
 * val(). Then a Barrier's semantics (no rank of one group leaves before the other group
 * entered), several collectives in flight at once, a non-blocking collective pending across
 * MPI_Comm_dup of the intercommunicator, and the error classes (root, MPI_IN_PLACE, Scan /
 * Exscan). Any rank count >= 2 (at 1 it only prints); prints "coll_inter: ok". With
 * INTER_PORTABLE=1 it leaves out the persistent forms and the error classes, to run under MPICH
 * 4.0 (whose persistent collectives do not restart correctly): it passes there at 2 and 3 ranks.
 */
#include <string.h>
#include <unistd.h>

#include "comm_check.h"

#define BIG 20000 /* ints: past the eager limit of every transport */
#define MOD 7919

typedef struct ic {
    MPI_Comm inter;
    int g, r, n, m; /* my group (0 or 1), local rank, local and remote sizes */
    int mode;       /* 0 blocking, 1 non-blocking, 2 persistent */
} ic_t;

static MPI_Datatype mat;
static MPI_Op matprod;
static int portable; /* INTER_PORTABLE=1: no persistent forms, no error classes (for MPICH) */

static int val(int g, int r, int i)
{
    return (g * 7919 + r * 1009 + i * 7 + 1) % 100003;
}

static void mat_mul(const int *a, int *b)
{
    int c[4] = {(a[0] * b[0] + a[1] * b[2]) % MOD, (a[0] * b[1] + a[1] * b[3]) % MOD,
                (a[2] * b[0] + a[3] * b[2]) % MOD, (a[2] * b[1] + a[3] * b[3]) % MOD};
    memcpy(b, c, sizeof(c));
}

static void matprod_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        mat_mul((int *)in + 4 * i, (int *)inout + 4 * i);
}

static void mat_of(int g, int r, int i, int *m)
{
    for (int k = 0; k < 4; k++)
        m[k] = val(g, r, i * 4 + k) % 5 + (k == 0 || k == 3);
}

static void wait_req(const ic_t *c, MPI_Request *rq)
{
    int flag = 0;
    volatile double x = 1.0;
    while (!flag) { /* compute between polls, as a program overlapping would */
        for (int k = 0; k < 100; k++)
            x = x * 1.0000001 + (double)c->r;
        CHECK_OK(MPI_Test(rq, &flag, MPI_STATUS_IGNORE));
    }
}

/* One collective in the mode under test (name, and its lower-case name for the I-form):
 * MPI_X, MPI_Ix + Test loop, or MPI_X_init started
 * twice. */
#define COLL(c, name, lname, ...)                                                                  \
    do {                                                                                           \
        MPI_Request rq_;                                                                           \
        if ((c)->mode == 0) {                                                                      \
            CHECK_OK(MPI_##name(__VA_ARGS__, (c)->inter));                                         \
        } else if ((c)->mode == 1) {                                                               \
            CHECK_OK(MPI_I##lname(__VA_ARGS__, (c)->inter, &rq_));                                 \
            wait_req(c, &rq_);                                                                     \
        } else {                                                                                   \
            CHECK_OK(MPI_##name##_init(__VA_ARGS__, (c)->inter, MPI_INFO_NULL, &rq_));             \
            for (int k_ = 0; k_ < 2; k_++) {                                                       \
                CHECK_OK(MPI_Start(&rq_));                                                         \
                CHECK_OK(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                                       \
            }                                                                                      \
            CHECK_OK(MPI_Request_free(&rq_));                                                      \
        }                                                                                          \
    } while (0)

static int *ints(size_t n, int fill)
{
    int *p = malloc((n ? n : 1) * sizeof(int));
    CHECK(p != NULL);
    for (size_t i = 0; i < n; i++)
        p[i] = fill;
    return p;
}

/* The root argument of root (group rg, local rank rr) at this process. */
static int root_arg(const ic_t *c, int rg, int rr)
{
    if (c->g != rg)
        return rr;
    return c->r == rr ? MPI_ROOT : MPI_PROC_NULL;
}

static int gsize(const ic_t *c, int g)
{
    return g == c->g ? c->n : c->m;
}

static void t_bcast(const ic_t *c, int cnt)
{
    for (int rg = 0; rg < 2; rg++)
        for (int rr = 0; rr < gsize(c, rg); rr++) {
            int root = root_arg(c, rg, rr), *b = ints((size_t)cnt, -1);
            for (int i = 0; root == MPI_ROOT && i < cnt; i++)
                b[i] = val(rg, rr, i);
            COLL(c, Bcast, bcast, b, cnt, MPI_INT, root);
            for (int i = 0; root >= 0 && i < cnt; i++)
                CHECK(b[i] == val(rg, rr, i));
            free(b);
        }
}

/* The reduction of the other group's data (remote sizes m) at element i: SUM or matrices. */
static int sum_of(int other, int m, int i)
{
    int s = 0;
    for (int j = 0; j < m; j++)
        s += val(other, j, i);
    return s;
}

static void mat_ref(int other, int m, int i, int *out)
{
    int acc[4];
    mat_of(other, m - 1, i, acc);
    for (int j = m - 2; j >= 0; j--) { /* M0 * (M1 * (... * Mm-1)) */
        int x[4];
        mat_of(other, j, i, x);
        mat_mul(x, acc);
    }
    memcpy(out, acc, sizeof(acc));
}

/* Fills n elements of (g, r)'s contribution: ints or matrices. */
static void fill_red(int *b, int g, int r, int cnt, int matrices)
{
    for (int i = 0; i < cnt; i++) {
        if (matrices)
            mat_of(g, r, i, b + 4 * i);
        else
            b[i] = val(g, r, i);
    }
}

static void check_red(const int *b, int other, int m, int cnt, int matrices)
{
    for (int i = 0; i < cnt; i++) {
        if (!matrices) {
            CHECK(b[i] == sum_of(other, m, i));
            continue;
        }
        int ref[4];
        mat_ref(other, m, i, ref);
        CHECK(memcmp(b + 4 * i, ref, sizeof(ref)) == 0);
    }
}

static void t_reduce(const ic_t *c, int cnt, int matrices)
{
    MPI_Datatype dt = matrices ? mat : MPI_INT;
    MPI_Op op = matrices ? matprod : MPI_SUM;
    size_t w = (size_t)cnt * (matrices ? 4 : 1);
    for (int rg = 0; rg < 2; rg++)
        for (int rr = 0; rr < gsize(c, rg); rr++) {
            int root = root_arg(c, rg, rr), *s = ints(w, 0), *r = ints(w, -1);
            fill_red(s, c->g, c->r, cnt, matrices);
            COLL(c, Reduce, reduce, s, r, cnt, dt, op, root);
            if (root == MPI_ROOT)
                check_red(r, 1 - c->g, c->m, cnt, matrices);
            free(s);
            free(r);
        }
}

static void t_allreduce(const ic_t *c, int cnt, int matrices)
{
    size_t w = (size_t)cnt * (matrices ? 4 : 1);
    int *s = ints(w, 0), *r = ints(w, -1);
    fill_red(s, c->g, c->r, cnt, matrices);
    COLL(c, Allreduce, allreduce, s, r, cnt, matrices ? mat : MPI_INT,
         matrices ? matprod : MPI_SUM);
    check_red(r, 1 - c->g, c->m, cnt, matrices);
    free(s);
    free(r);
}

static void t_gather(const ic_t *c, int cnt)
{
    for (int rg = 0; rg < 2; rg++)
        for (int rr = 0; rr < gsize(c, rg); rr++) {
            int root = root_arg(c, rg, rr), *s = ints((size_t)cnt, 0);
            int *r = ints((size_t)cnt * (size_t)c->m, -1);
            for (int i = 0; i < cnt; i++)
                s[i] = val(c->g, c->r, i);
            COLL(c, Gather, gather, s, cnt, MPI_INT, root >= 0 ? NULL : r, cnt, MPI_INT, root);
            for (int j = 0; root == MPI_ROOT && j < c->m; j++)
                for (int i = 0; i < cnt; i++)
                    CHECK(r[j * cnt + i] == val(1 - c->g, j, i));
            free(s);
            free(r);
        }
}

static void t_scatter(const ic_t *c, int cnt)
{
    for (int rg = 0; rg < 2; rg++)
        for (int rr = 0; rr < gsize(c, rg); rr++) {
            int root = root_arg(c, rg, rr), *r = ints((size_t)cnt, -1);
            int *s = ints((size_t)cnt * (size_t)c->m, 0);
            for (int j = 0; j < c->m; j++)
                for (int i = 0; i < cnt; i++)
                    s[j * cnt + i] = val(c->g, j + 50, i);
            COLL(c, Scatter, scatter, root >= 0 ? NULL : s, cnt, MPI_INT, r, cnt, MPI_INT, root);
            for (int i = 0; root >= 0 && i < cnt; i++)
                CHECK(r[i] == val(rg, c->r + 50, i));
            free(s);
            free(r);
        }
}

/* v-forms: block j holds cv(j) elements, laid out in reverse order with a one-element gap. */
static int cv(int j, int cnt)
{
    return (j % 3) * cnt;
}

static int layout(int m, int cnt, int *counts, int *displs)
{
    int off = 0;
    for (int j = m - 1; j >= 0; j--) {
        counts[j] = cv(j, cnt);
        displs[j] = off;
        off += counts[j] + 1;
    }
    return off;
}

/* Every block j of b (layout above) holds val(g, j + base, i); the gaps are still -1. */
static void check_v(const int *b, int m, int cnt, int g, int base)
{
    int counts[16], displs[16], end = layout(m, cnt, counts, displs);
    for (int j = 0; j < m; j++) {
        for (int i = 0; i < counts[j]; i++)
            CHECK(b[displs[j] + i] == val(g, j + base, i));
        CHECK(b[displs[j] + counts[j]] == -1);
    }
    (void)end;
}

static void t_gatherv(const ic_t *c, int cnt)
{
    int counts[16], displs[16], len = layout(c->m, cnt, counts, displs);
    for (int rg = 0; rg < 2; rg++)
        for (int rr = 0; rr < gsize(c, rg); rr++) {
            int root = root_arg(c, rg, rr), mine = cv(c->r, cnt);
            int *s = ints((size_t)mine, 0), *r = ints((size_t)len, -1);
            for (int i = 0; i < mine; i++)
                s[i] = val(c->g, c->r, i);
            COLL(c, Gatherv, gatherv, s, mine, MPI_INT, root >= 0 ? NULL : r, counts, displs,
                 MPI_INT, root);
            if (root == MPI_ROOT)
                check_v(r, c->m, cnt, 1 - c->g, 0);
            free(s);
            free(r);
        }
}

static void t_scatterv(const ic_t *c, int cnt)
{
    int counts[16], displs[16], len = layout(c->m, cnt, counts, displs);
    for (int rg = 0; rg < 2; rg++)
        for (int rr = 0; rr < gsize(c, rg); rr++) {
            int root = root_arg(c, rg, rr), mine = cv(c->r, cnt);
            int *s = ints((size_t)len, -1), *r = ints((size_t)mine + 1, -1);
            for (int j = 0; j < c->m; j++)
                for (int i = 0; i < counts[j]; i++)
                    s[displs[j] + i] = val(c->g, j + 50, i);
            COLL(c, Scatterv, scatterv, root >= 0 ? NULL : s, counts, displs, MPI_INT, r, mine,
                 MPI_INT, root);
            for (int i = 0; root >= 0 && i < mine; i++)
                CHECK(r[i] == val(rg, c->r + 50, i));
            CHECK(r[mine] == -1);
            free(s);
            free(r);
        }
}

static void t_allgather(const ic_t *c, int cnt)
{
    int *s = ints((size_t)cnt, 0), *r = ints((size_t)cnt * (size_t)c->m, -1);
    for (int i = 0; i < cnt; i++)
        s[i] = val(c->g, c->r, i);
    COLL(c, Allgather, allgather, s, cnt, MPI_INT, r, cnt, MPI_INT);
    for (int j = 0; j < c->m; j++)
        for (int i = 0; i < cnt; i++)
            CHECK(r[j * cnt + i] == val(1 - c->g, j, i));
    free(s);
    free(r);
}

static void t_allgatherv(const ic_t *c, int cnt)
{
    int counts[16], displs[16], len = layout(c->m, cnt, counts, displs), mine = cv(c->r, cnt);
    int *s = ints((size_t)mine, 0), *r = ints((size_t)len, -1);
    for (int i = 0; i < mine; i++)
        s[i] = val(c->g, c->r, i);
    COLL(c, Allgatherv, allgatherv, s, mine, MPI_INT, r, counts, displs, MPI_INT);
    check_v(r, c->m, cnt, 1 - c->g, 0);
    free(s);
    free(r);
}

/* The large-count v-forms in the non-blocking / persistent modes (their arrays are converted
 * by generated wrappers): the arrays have one entry per rank of the remote group, and at the
 * root of a rooted one the root argument is MPI_ROOT. */
#define COLL_C(c, name, lname, ...)                                                                \
    do {                                                                                           \
        MPI_Request rq_;                                                                           \
        if ((c)->mode == 1) {                                                                      \
            CHECK_OK(MPI_I##lname##_c(__VA_ARGS__, (c)->inter, &rq_));                             \
            wait_req(c, &rq_);                                                                     \
        } else if ((c)->mode == 2) {                                                               \
            CHECK_OK(MPI_##name##_init_c(__VA_ARGS__, (c)->inter, MPI_INFO_NULL, &rq_));           \
            CHECK_OK(MPI_Start(&rq_));                                                             \
            CHECK_OK(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                                           \
            CHECK_OK(MPI_Request_free(&rq_));                                                      \
        }                                                                                          \
    } while (0)

static void t_v_large(const ic_t *c, int cnt)
{
    int counts[16], displs[16], len = layout(c->m, cnt, counts, displs), mine = cv(c->r, cnt);
    MPI_Count ccounts[16];
    MPI_Aint cdispls[16];
    for (int j = 0; j < c->m; j++) {
        ccounts[j] = counts[j];
        cdispls[j] = displs[j];
    }
    int *s = ints((size_t)mine, 0), *r = ints((size_t)len, -1);
    for (int i = 0; i < mine; i++)
        s[i] = val(c->g, c->r, i);
    COLL_C(c, Allgatherv, allgatherv, s, mine, MPI_INT, r, ccounts, cdispls, MPI_INT);
    if (c->mode != 0)
        check_v(r, c->m, cnt, 1 - c->g, 0);
    for (int rg = 0; rg < 2 && c->mode != 0; rg++)
        for (int rr = 0; rr < gsize(c, rg); rr++) {
            int root = root_arg(c, rg, rr);
            for (int i = 0; i < len; i++)
                r[i] = -1;
            COLL_C(c, Gatherv, gatherv, s, mine, MPI_INT, root >= 0 ? NULL : r, ccounts, cdispls,
                   MPI_INT, root);
            if (root == MPI_ROOT)
                check_v(r, c->m, cnt, 1 - c->g, 0);
        }
    free(s);
    free(r);
}

/* Alltoall(v, w): (g, r) sends val(g, r * 31 + j, i) to remote rank j; block sizes for the
 * v / w forms a2c(sender, receiver). */
static int a2c(int from, int to, int cnt)
{
    return ((from + 2 * to) % 3) * cnt;
}

static void t_alltoall(const ic_t *c, int cnt)
{
    int *s = ints((size_t)cnt * (size_t)c->m, 0), *r = ints((size_t)cnt * (size_t)c->m, -1);
    for (int j = 0; j < c->m; j++)
        for (int i = 0; i < cnt; i++)
            s[j * cnt + i] = val(c->g, c->r * 31 + j, i);
    COLL(c, Alltoall, alltoall, s, cnt, MPI_INT, r, cnt, MPI_INT);
    for (int j = 0; j < c->m; j++)
        for (int i = 0; i < cnt; i++)
            CHECK(r[j * cnt + i] == val(1 - c->g, j * 31 + c->r, i));
    free(s);
    free(r);
}

typedef struct vplan {
    int sc[16], sd[16], rc[16], rd[16], sbytes[16], rbytes[16];
    MPI_Datatype st[16], rt[16];
    int slen, rlen;
} vplan_t;

/* Blocks packed in reverse peer order (receive side with a one-element gap each). */
static void vplan_make(const ic_t *c, int cnt, vplan_t *p)
{
    p->slen = p->rlen = 0;
    for (int j = c->m - 1; j >= 0; j--) {
        p->sc[j] = a2c(c->r, j, cnt);
        p->rc[j] = a2c(j, c->r, cnt);
        p->sd[j] = p->slen;
        p->rd[j] = p->rlen;
        p->sbytes[j] = p->slen * (int)sizeof(int);
        p->rbytes[j] = p->rlen * (int)sizeof(int);
        p->st[j] = p->sc[j] ? MPI_INT : MPI_DATATYPE_NULL;
        p->rt[j] = p->rc[j] ? MPI_INT : MPI_DATATYPE_NULL;
        p->slen += p->sc[j];
        p->rlen += p->rc[j] + 1;
    }
}

static void t_alltoallvw(const ic_t *c, int cnt, int w)
{
    vplan_t p;
    vplan_make(c, cnt, &p);
    int *s = ints((size_t)p.slen, 0), *r = ints((size_t)p.rlen, -1);
    for (int j = 0; j < c->m; j++)
        for (int i = 0; i < p.sc[j]; i++)
            s[p.sd[j] + i] = val(c->g, c->r * 31 + j, i);
    if (w)
        COLL(c, Alltoallw, alltoallw, s, p.sc, p.sbytes, p.st, r, p.rc, p.rbytes, p.rt);
    else
        COLL(c, Alltoallv, alltoallv, s, p.sc, p.sd, MPI_INT, r, p.rc, p.rd, MPI_INT);
    for (int j = 0; j < c->m; j++) {
        for (int i = 0; i < p.rc[j]; i++)
            CHECK(r[p.rd[j] + i] == val(1 - c->g, j * 31 + c->r, i));
        CHECK(r[p.rd[j] + p.rc[j]] == -1);
    }
    free(s);
    free(r);
}

/* Reduce_scatter: both groups reduce vectors of total elements; my block of the other group's
 * reduction starts at *start_p. */
static void t_reduce_scatter(const ic_t *c, int cnt, int block)
{
    int counts[16], total = block ? cnt * c->n * c->m : 6 * cnt, start = 0;
    for (int k = 0; k < c->n; k++) {
        counts[k] = block ? cnt * c->m : total / c->n + (k < total % c->n);
        if (k < c->r)
            start += counts[k];
    }
    int *s = ints((size_t)total, 0), *r = ints((size_t)counts[c->r] + 1, -1);
    for (int i = 0; i < total; i++)
        s[i] = val(c->g, c->r, i);
    if (block)
        COLL(c, Reduce_scatter_block, reduce_scatter_block, s, r, counts[0], MPI_INT, MPI_SUM);
    else
        COLL(c, Reduce_scatter, reduce_scatter, s, r, counts, MPI_INT, MPI_SUM);
    for (int e = 0; e < counts[c->r]; e++)
        CHECK(r[e] == sum_of(1 - c->g, c->m, start + e));
    CHECK(r[counts[c->r]] == -1);
    free(s);
    free(r);
}

/* Group 1 enters 100 ms late: no rank of group 0 may leave before the last rank of group 1
 * entered (times on one host's monotonic clock, exchanged afterwards). */
static void t_barrier(const ic_t *c)
{
    MPI_Request rq;
    if (c->g == 1)
        usleep(100000);
    double t = MPI_Wtime(), *theirs = malloc((size_t)c->m * sizeof(double));
    CHECK(theirs != NULL);
    if (c->mode == 0) {
        CHECK_OK(MPI_Barrier(c->inter));
    } else if (c->mode == 1) {
        CHECK_OK(MPI_Ibarrier(c->inter, &rq));
        wait_req(c, &rq);
    } else {
        CHECK_OK(MPI_Barrier_init(c->inter, MPI_INFO_NULL, &rq));
        CHECK_OK(MPI_Start(&rq));
        CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Request_free(&rq));
    }
    if (c->g == 0)
        t = MPI_Wtime(); /* group 0 sends when it left, group 1 when it entered */
    CHECK_OK(MPI_Allgather(&t, 1, MPI_DOUBLE, theirs, 1, MPI_DOUBLE, c->inter));
    for (int j = 0; c->g == 0 && j < c->m; j++)
        CHECK(t >= theirs[j]);
    free(theirs);
}

static void suite(ic_t *c)
{
    static const int counts[] = {0, 1, 7, BIG};
    for (c->mode = 0; c->mode < (portable ? 2 : 3); c->mode++) {
        t_barrier(c);
        for (int k = 0; k < 4; k++) {
            int cnt = counts[k];
            t_bcast(c, cnt);
            t_reduce(c, cnt, 0);
            t_reduce(c, cnt > 7 ? 300 : cnt, 1);
            t_allreduce(c, cnt, 0);
            t_allreduce(c, cnt > 7 ? 300 : cnt, 1);
            t_gather(c, cnt);
            t_scatter(c, cnt);
            t_gatherv(c, cnt);
            t_scatterv(c, cnt);
            t_allgather(c, cnt);
            t_allgatherv(c, cnt);
            if (!portable)
                t_v_large(c, cnt);
            t_alltoall(c, cnt);
            t_alltoallvw(c, cnt, 0);
            t_alltoallvw(c, cnt, 1);
            t_reduce_scatter(c, cnt, 0);
            t_reduce_scatter(c, cnt, 1);
        }
    }
}

/* Three collectives in flight at once, completed by one Waitall; then an Ibarrier pending
 * across MPI_Comm_dup (the constructor and the schedule share the collective context). */
static void t_overlap(const ic_t *c)
{
    enum { N = 1000 };
    int *s = ints(N, 0), *r = ints(N, -1), *b = ints(N, -1);
    int *as = ints((size_t)c->m, 0), *ar = ints((size_t)c->m, -1);
    for (int i = 0; i < N; i++)
        s[i] = val(c->g, c->r, i);
    for (int j = 0; j < c->m; j++)
        as[j] = val(c->g, c->r * 31 + j, 0);
    int root = root_arg(c, 0, 0);
    for (int i = 0; root == MPI_ROOT && i < N; i++)
        b[i] = val(0, 0, i);
    MPI_Request rq[3];
    CHECK_OK(MPI_Iallreduce(s, r, N, MPI_INT, MPI_SUM, c->inter, &rq[0]));
    CHECK_OK(MPI_Ibcast(b, N, MPI_INT, root, c->inter, &rq[1]));
    CHECK_OK(MPI_Ialltoall(as, 1, MPI_INT, ar, 1, MPI_INT, c->inter, &rq[2]));
    CHECK_OK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    check_red(r, 1 - c->g, c->m, N, 0);
    for (int i = 0; root >= 0 && i < N; i++)
        CHECK(b[i] == val(0, 0, i));
    for (int j = 0; j < c->m; j++)
        CHECK(ar[j] == val(1 - c->g, j * 31 + c->r, 0));
    MPI_Comm d, d2;
    CHECK_OK(MPI_Comm_dup(c->inter, &d));
    CHECK_OK(MPI_Ibarrier(d, &rq[0])); /* d's first schedule */
    CHECK_OK(MPI_Comm_dup(d, &d2));
    CHECK_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Allreduce(s, r, N, MPI_INT, MPI_SUM, d2));
    check_red(r, 1 - c->g, c->m, N, 0);
    CHECK_OK(MPI_Comm_free(&d2));
    CHECK_OK(MPI_Comm_free(&d));
    free(s), free(r), free(b), free(as), free(ar);
}

static int err_class(int rc)
{
    int cls;
    MPI_Error_class(rc, &cls);
    return cls;
}

static void t_errors(const ic_t *c)
{
    int x[4] = {0}, y[4];
    MPI_Request rq;
    CHECK_OK(MPI_Comm_set_errhandler(c->inter, MPI_ERRORS_RETURN));
    CHECK(err_class(MPI_Bcast(x, 1, MPI_INT, c->m + 3, c->inter)) == MPI_ERR_ROOT);
    CHECK(err_class(MPI_Gather(x, 1, MPI_INT, y, 1, MPI_INT, -7, c->inter)) == MPI_ERR_ROOT);
    CHECK(err_class(MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_INT, MPI_SUM, c->inter)) ==
          MPI_ERR_BUFFER);
    CHECK(err_class(MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, c->inter)) ==
          MPI_ERR_BUFFER);
    CHECK(err_class(MPI_Scan(x, y, 1, MPI_INT, MPI_SUM, c->inter)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Exscan(x, y, 1, MPI_INT, MPI_SUM, c->inter)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Iscan(x, y, 1, MPI_INT, MPI_SUM, c->inter, &rq)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Allreduce(x, y, 1, MPI_INT, MPI_OP_NULL, c->inter)) == MPI_ERR_OP);
    CHECK_OK(MPI_Comm_set_errhandler(c->inter, MPI_ERRORS_ARE_FATAL));
}

/* The intercommunicator between {world % 3 == 0} and the rest, local ranks in world order or
 * reversed; each leader is its group's local rank 0. */
static void make_inter(int wrank, int wsize, int reversed, ic_t *c)
{
    MPI_Comm local;
    c->g = wrank % 3 != 0;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, c->g, reversed ? -wrank : wrank, &local));
    int remote_leader = -1;
    for (int w = 0; w < wsize; w++)
        if ((w % 3 != 0) != c->g && (remote_leader < 0 || reversed))
            remote_leader = w;
    CHECK_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 77, &c->inter));
    CHECK_OK(MPI_Comm_free(&local));
    MPI_Comm_rank(c->inter, &c->r);
    MPI_Comm_size(c->inter, &c->n);
    MPI_Comm_remote_size(c->inter, &c->m);
}

int main(int argc, char **argv)
{
    int wrank, wsize;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(wsize <= 16);
    portable = getenv("INTER_PORTABLE") != NULL;
    CHECK_OK(MPI_Type_contiguous(4, MPI_INT, &mat));
    CHECK_OK(MPI_Type_commit(&mat));
    CHECK_OK(MPI_Op_create(matprod_fn, 0, &matprod));
    for (int reversed = 0; wsize > 1 && reversed < 2; reversed++) {
        ic_t c;
        make_inter(wrank, wsize, reversed, &c);
        suite(&c);
        t_overlap(&c);
        if (!portable)
            t_errors(&c);
        CHECK_OK(MPI_Comm_free(&c.inter));
    }
    MPI_Op_free(&matprod);
    MPI_Type_free(&mat);
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_inter: ok\n");
    return 0;
}
