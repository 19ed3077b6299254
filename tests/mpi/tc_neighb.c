/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbourhood collectives checked the way the MPICH / Open MPI suites do (neighb_coll,
 * neighb_alltoallw): every Neighbor_* kind, blocking, non-blocking and persistent (and the _c
 * forms), on Cartesian topologies (periodic, non-periodic with MPI_PROC_NULL neighbours, a
 * periodic dimension of size 1 and 2 where both neighbours are one process), graphs (with a
 * multi-edge) and distributed graphs with in-degree != out-degree and zero-degree ranks.
 * The reference is computed here from the neighbour lists the topology reports; the pairing
 * of the k-th edge j->i in j's out-list with the k-th j in i's in-list is the standard's.
 * Standard MPI only: also built with Open MPI's and MPICH's compilers.
 */
#include "mpitest.h"

#define MAXN 64
#define CNT  3

typedef struct {
    int indeg, outdeg;
    int in[MAXN], out[MAXN];
} nbrs_t;

static int g_rank, g_size;
static nbrs_t g_all[16]; /* every rank's lists, for the reference */
static int g_cart;       /* Cartesian: pairing by direction, not by occurrence */

static void nbrs_get(MPI_Comm comm, nbrs_t *n)
{
    int st;
    CHECK_RC(MPI_Topo_test(comm, &st));
    if (st == MPI_CART) {
        int nd;
        CHECK_RC(MPI_Cartdim_get(comm, &nd));
        for (int d = 0; d < nd; d++)
            CHECK_RC(MPI_Cart_shift(comm, d, 1, &n->in[2 * d], &n->in[2 * d + 1]));
        n->indeg = n->outdeg = 2 * nd;
        memcpy(n->out, n->in, sizeof(n->in));
    } else if (st == MPI_GRAPH) {
        CHECK_RC(MPI_Graph_neighbors_count(comm, g_rank, &n->indeg));
        CHECK_RC(MPI_Graph_neighbors(comm, g_rank, MAXN, n->in));
        n->outdeg = n->indeg;
        memcpy(n->out, n->in, sizeof(n->in));
    } else {
        int w, iw[MAXN], ow[MAXN];
        CHECK(st == MPI_DIST_GRAPH);
        CHECK_RC(MPI_Dist_graph_neighbors_count(comm, &n->indeg, &n->outdeg, &w));
        /* MPICH 4.0 writes weights of an unweighted graph through the pointers it gets */
        CHECK_RC(MPI_Dist_graph_neighbors(comm, MAXN, n->in, w ? iw : MPI_UNWEIGHTED, MAXN, n->out,
                                          w ? ow : MPI_UNWEIGHTED));
    }
}

/* Out-slot of rank src that feeds in-slot s of rank dst (-1: MPI_PROC_NULL). */
static int slot_from(int dst, int s)
{
    const nbrs_t *d = &g_all[dst];
    int src = d->in[s];
    if (src == MPI_PROC_NULL)
        return -1;
    if (g_cart) /* from the -1 neighbour: its +1 block; from the +1 neighbour: its -1 block */
        return s ^ 1;
    int k = 0;
    for (int i = 0; i < s; i++)
        k += d->in[i] == src;
    const nbrs_t *o = &g_all[src];
    for (int t = 0; t < o->outdeg; t++)
        if (o->out[t] == dst && k-- == 0)
            return t;
    CHECK(0);
    return -1;
}

static int val(int src, int t, int e)
{
    return 100000 + src * 1000 + t * 50 + e;
}
/* count of elements src sends on its out-slot t in the v / w forms */
static int vcnt(int src, int t)
{
    return 1 + (src + 2 * t) % 3;
}

typedef enum { M_BLOCK, M_NB, M_PERSIST, M_BLOCK_C, M_NB_C, M_PERSIST_C, M_NMODES } mode_t_;
static const char *mode_name[] = {"blocking", "I", "init", "_c", "I_c", "init_c"};

static void finish(MPI_Request *r, int mode)
{
    if (mode == M_BLOCK || mode == M_BLOCK_C)
        return;
    if (mode == M_PERSIST || mode == M_PERSIST_C) {
        for (int it = 0; it < 2; it++) { /* started twice: persistent means reusable */
            CHECK_RC(MPI_Start(r));
            CHECK_RC(MPI_Wait(r, MPI_STATUS_IGNORE));
        }
        CHECK_RC(MPI_Request_free(r));
        return;
    }
    int flag = 0;
    while (!flag)
        CHECK_RC(MPI_Test(r, &flag, MPI_STATUS_IGNORE));
}

static void run_allgather(MPI_Comm comm, const nbrs_t *n, int mode)
{
    int sb[CNT], rb[MAXN * CNT];
    MPI_Request r = MPI_REQUEST_NULL;
    for (int e = 0; e < CNT; e++)
        sb[e] = val(g_rank, 0, e);
    for (int i = 0; i < MAXN * CNT; i++)
        rb[i] = -1;
    switch (mode) {
    case M_BLOCK:
        CHECK_RC(MPI_Neighbor_allgather(sb, CNT, MPI_INT, rb, CNT, MPI_INT, comm));
        break;
    case M_NB:
        CHECK_RC(MPI_Ineighbor_allgather(sb, CNT, MPI_INT, rb, CNT, MPI_INT, comm, &r));
        break;
#if MPI_VERSION >= 4
    case M_PERSIST:
        CHECK_RC(MPI_Neighbor_allgather_init(sb, CNT, MPI_INT, rb, CNT, MPI_INT, comm,
                                             MPI_INFO_NULL, &r));
        break;
    case M_BLOCK_C:
        CHECK_RC(MPI_Neighbor_allgather_c(sb, CNT, MPI_INT, rb, CNT, MPI_INT, comm));
        break;
    case M_NB_C:
        CHECK_RC(MPI_Ineighbor_allgather_c(sb, CNT, MPI_INT, rb, CNT, MPI_INT, comm, &r));
        break;
    case M_PERSIST_C:
        CHECK_RC(MPI_Neighbor_allgather_init_c(sb, CNT, MPI_INT, rb, CNT, MPI_INT, comm,
                                               MPI_INFO_NULL, &r));
        break;
#endif
    }
    finish(&r, mode);
    for (int s = 0; s < n->indeg; s++)
        for (int e = 0; e < CNT; e++) {
            int exp = n->in[s] == MPI_PROC_NULL ? -1 : val(n->in[s], 0, e);
            if (rb[s * CNT + e] != exp) {
                fprintf(stderr, "rank %d allgather %s slot %d e %d: %d != %d\n", g_rank,
                        mode_name[mode], s, e, rb[s * CNT + e], exp);
                CHECK(0);
            }
        }
    CHECK(rb[n->indeg * CNT] == -1);
}

static void run_alltoall(MPI_Comm comm, const nbrs_t *n, int mode)
{
    int sb[MAXN * CNT], rb[MAXN * CNT + 1];
    MPI_Request r = MPI_REQUEST_NULL;
    for (int t = 0; t < n->outdeg; t++)
        for (int e = 0; e < CNT; e++)
            sb[t * CNT + e] = val(g_rank, t, e);
    for (int i = 0; i < MAXN * CNT + 1; i++)
        rb[i] = -1;
    switch (mode) {
    case M_BLOCK:
        CHECK_RC(MPI_Neighbor_alltoall(sb, CNT, MPI_INT, rb, CNT, MPI_INT, comm));
        break;
    case M_NB:
        CHECK_RC(MPI_Ineighbor_alltoall(sb, CNT, MPI_INT, rb, CNT, MPI_INT, comm, &r));
        break;
#if MPI_VERSION >= 4
    case M_PERSIST:
        CHECK_RC(MPI_Neighbor_alltoall_init(sb, CNT, MPI_INT, rb, CNT, MPI_INT, comm, MPI_INFO_NULL,
                                            &r));
        break;
    case M_BLOCK_C:
        CHECK_RC(MPI_Neighbor_alltoall_c(sb, CNT, MPI_INT, rb, CNT, MPI_INT, comm));
        break;
    case M_NB_C:
        CHECK_RC(MPI_Ineighbor_alltoall_c(sb, CNT, MPI_INT, rb, CNT, MPI_INT, comm, &r));
        break;
    case M_PERSIST_C:
        CHECK_RC(MPI_Neighbor_alltoall_init_c(sb, CNT, MPI_INT, rb, CNT, MPI_INT, comm,
                                              MPI_INFO_NULL, &r));
        break;
#endif
    }
    finish(&r, mode);
    for (int s = 0; s < n->indeg; s++) {
        int t = slot_from(g_rank, s);
        for (int e = 0; e < CNT; e++) {
            int exp = t < 0 ? -1 : val(n->in[s], t, e);
            if (rb[s * CNT + e] != exp) {
                fprintf(stderr, "rank %d alltoall %s slot %d e %d: %d != %d\n", g_rank,
                        mode_name[mode], s, e, rb[s * CNT + e], exp);
                CHECK(0);
            }
        }
    }
    CHECK(rb[n->indeg * CNT] == -1);
}

/* allgatherv: every in-slot gets the sender's vcnt(src, 0) elements at a displacement that
 * runs backwards, with gaps, so displacements are honoured */
static void run_allgatherv(MPI_Comm comm, const nbrs_t *n, int mode)
{
    int sb[CNT], rb[MAXN * 8], rc[MAXN], dis[MAXN];
    MPI_Count rcc[MAXN];
    MPI_Aint disc[MAXN];
    MPI_Request r = MPI_REQUEST_NULL;
    int sc = vcnt(g_rank, 0);
    for (int e = 0; e < sc; e++)
        sb[e] = val(g_rank, 0, e);
    for (int s = 0; s < n->indeg; s++) {
        rc[s] = n->in[s] == MPI_PROC_NULL ? 0 : vcnt(n->in[s], 0);
        dis[s] = (n->indeg - 1 - s) * 5 + 1;
        rcc[s] = rc[s];
        disc[s] = dis[s];
    }
    for (int i = 0; i < MAXN * 8; i++)
        rb[i] = -1;
    switch (mode) {
    case M_BLOCK:
        CHECK_RC(MPI_Neighbor_allgatherv(sb, sc, MPI_INT, rb, rc, dis, MPI_INT, comm));
        break;
    case M_NB:
        CHECK_RC(MPI_Ineighbor_allgatherv(sb, sc, MPI_INT, rb, rc, dis, MPI_INT, comm, &r));
        break;
#if MPI_VERSION >= 4
    case M_PERSIST:
        CHECK_RC(MPI_Neighbor_allgatherv_init(sb, sc, MPI_INT, rb, rc, dis, MPI_INT, comm,
                                              MPI_INFO_NULL, &r));
        break;
    case M_BLOCK_C:
        CHECK_RC(MPI_Neighbor_allgatherv_c(sb, sc, MPI_INT, rb, rcc, disc, MPI_INT, comm));
        break;
    case M_NB_C:
        CHECK_RC(MPI_Ineighbor_allgatherv_c(sb, sc, MPI_INT, rb, rcc, disc, MPI_INT, comm, &r));
        break;
    case M_PERSIST_C:
        CHECK_RC(MPI_Neighbor_allgatherv_init_c(sb, sc, MPI_INT, rb, rcc, disc, MPI_INT, comm,
                                                MPI_INFO_NULL, &r));
        break;
#endif
    }
    finish(&r, mode);
    int ref[MAXN * 8];
    for (int i = 0; i < MAXN * 8; i++)
        ref[i] = -1;
    for (int s = 0; s < n->indeg; s++)
        for (int e = 0; e < rc[s]; e++)
            ref[dis[s] + e] = val(n->in[s], 0, e);
    for (int i = 0; i < MAXN * 8; i++)
        if (rb[i] != ref[i]) {
            fprintf(stderr, "rank %d allgatherv %s at %d: %d != %d\n", g_rank, mode_name[mode], i,
                    rb[i], ref[i]);
            CHECK(0);
        }
}

typedef struct {
    int sc[MAXN], sd[MAXN], rc[MAXN], rd[MAXN];
    MPI_Aint sdb[MAXN], rdb[MAXN];
    MPI_Count scc[MAXN], rcc[MAXN];
    MPI_Datatype st[MAXN], rt[MAXN];
    int sb[MAXN * 8], rb[MAXN * 8], ref[MAXN * 8];
} vargs_t;

/* per-slot counts and displacements for alltoallv / w; displacements reversed, with gaps */
static void vargs_fill(const nbrs_t *n, vargs_t *a)
{
    int off = 0;
    for (int t = 0; t < n->outdeg; t++) {
        a->sc[t] = vcnt(g_rank, t);
        a->sd[t] = (n->outdeg - 1 - t) * 4;
        for (int e = 0; e < a->sc[t]; e++)
            a->sb[a->sd[t] + e] = val(g_rank, t, e);
    }
    for (int i = 0; i < MAXN * 8; i++)
        a->rb[i] = a->ref[i] = -1;
    for (int s = 0; s < n->indeg; s++) {
        int t = slot_from(g_rank, s);
        a->rc[s] = t < 0 ? 0 : vcnt(n->in[s], t);
        a->rd[s] = off + 1;
        off += 5;
        for (int e = 0; e < a->rc[s]; e++)
            a->ref[a->rd[s] + e] = val(n->in[s], t, e);
    }
    for (int i = 0; i < MAXN; i++) {
        a->sdb[i] = (MPI_Aint)a->sd[i] * sizeof(int);
        a->rdb[i] = (MPI_Aint)a->rd[i] * sizeof(int);
        a->scc[i] = a->sc[i];
        a->rcc[i] = a->rc[i];
        a->st[i] = a->rt[i] = MPI_INT;
    }
}

static void vargs_check(const vargs_t *a, const char *what, int mode)
{
    for (int i = 0; i < MAXN * 8; i++)
        if (a->rb[i] != a->ref[i]) {
            fprintf(stderr, "rank %d %s %s at %d: %d != %d\n", g_rank, what, mode_name[mode], i,
                    a->rb[i], a->ref[i]);
            CHECK(0);
        }
}

static void run_alltoallv(MPI_Comm comm, const nbrs_t *n, int mode)
{
    static vargs_t a;
    MPI_Request r = MPI_REQUEST_NULL;
    vargs_fill(n, &a);
    switch (mode) {
    case M_BLOCK:
        CHECK_RC(
            MPI_Neighbor_alltoallv(a.sb, a.sc, a.sd, MPI_INT, a.rb, a.rc, a.rd, MPI_INT, comm));
        break;
    case M_NB:
        CHECK_RC(MPI_Ineighbor_alltoallv(a.sb, a.sc, a.sd, MPI_INT, a.rb, a.rc, a.rd, MPI_INT, comm,
                                         &r));
        break;
#if MPI_VERSION >= 4
    case M_PERSIST:
        CHECK_RC(MPI_Neighbor_alltoallv_init(a.sb, a.sc, a.sd, MPI_INT, a.rb, a.rc, a.rd, MPI_INT,
                                             comm, MPI_INFO_NULL, &r));
        break;
    case M_BLOCK_C: {
        MPI_Aint sd[MAXN], rd[MAXN];
        for (int i = 0; i < MAXN; i++)
            sd[i] = a.sd[i], rd[i] = a.rd[i];
        CHECK_RC(
            MPI_Neighbor_alltoallv_c(a.sb, a.scc, sd, MPI_INT, a.rb, a.rcc, rd, MPI_INT, comm));
        break;
    }
    case M_NB_C: {
        MPI_Aint sd[MAXN], rd[MAXN];
        for (int i = 0; i < MAXN; i++)
            sd[i] = a.sd[i], rd[i] = a.rd[i];
        CHECK_RC(MPI_Ineighbor_alltoallv_c(a.sb, a.scc, sd, MPI_INT, a.rb, a.rcc, rd, MPI_INT, comm,
                                           &r));
        finish(&r, mode);
        vargs_check(&a, "alltoallv", mode);
        return;
    }
    case M_PERSIST_C: {
        MPI_Aint sd[MAXN], rd[MAXN];
        for (int i = 0; i < MAXN; i++)
            sd[i] = a.sd[i], rd[i] = a.rd[i];
        CHECK_RC(MPI_Neighbor_alltoallv_init_c(a.sb, a.scc, sd, MPI_INT, a.rb, a.rcc, rd, MPI_INT,
                                               comm, MPI_INFO_NULL, &r));
        finish(&r, mode);
        vargs_check(&a, "alltoallv", mode);
        return;
    }
#endif
    }
    finish(&r, mode);
    vargs_check(&a, "alltoallv", mode);
}

/* alltoallw: byte displacements; odd in-slots received through a 1-int-stride vector type
 * of the right length, so the receive type differs from the send type */
static void run_alltoallw(MPI_Comm comm, const nbrs_t *n, int mode)
{
    static vargs_t a;
    MPI_Request r = MPI_REQUEST_NULL;
    vargs_fill(n, &a);
    for (int s = 1; s < n->indeg; s += 2) {
        if (a.rc[s] == 0)
            continue;
        CHECK_RC(MPI_Type_contiguous(a.rc[s], MPI_INT, &a.rt[s]));
        CHECK_RC(MPI_Type_commit(&a.rt[s]));
        a.rc[s] = a.rcc[s] = 1;
    }
    switch (mode) {
    case M_BLOCK:
        CHECK_RC(MPI_Neighbor_alltoallw(a.sb, a.sc, a.sdb, a.st, a.rb, a.rc, a.rdb, a.rt, comm));
        break;
    case M_NB:
        CHECK_RC(
            MPI_Ineighbor_alltoallw(a.sb, a.sc, a.sdb, a.st, a.rb, a.rc, a.rdb, a.rt, comm, &r));
        break;
#if MPI_VERSION >= 4
    case M_PERSIST:
        CHECK_RC(MPI_Neighbor_alltoallw_init(a.sb, a.sc, a.sdb, a.st, a.rb, a.rc, a.rdb, a.rt, comm,
                                             MPI_INFO_NULL, &r));
        break;
    case M_BLOCK_C:
        CHECK_RC(
            MPI_Neighbor_alltoallw_c(a.sb, a.scc, a.sdb, a.st, a.rb, a.rcc, a.rdb, a.rt, comm));
        break;
    case M_NB_C:
        CHECK_RC(MPI_Ineighbor_alltoallw_c(a.sb, a.scc, a.sdb, a.st, a.rb, a.rcc, a.rdb, a.rt, comm,
                                           &r));
        break;
    case M_PERSIST_C:
        CHECK_RC(MPI_Neighbor_alltoallw_init_c(a.sb, a.scc, a.sdb, a.st, a.rb, a.rcc, a.rdb, a.rt,
                                               comm, MPI_INFO_NULL, &r));
        break;
#endif
    }
    finish(&r, mode);
    vargs_check(&a, "alltoallw", mode);
    for (int s = 0; s < n->indeg; s++)
        if (a.rt[s] != MPI_INT)
            CHECK_RC(MPI_Type_free(&a.rt[s]));
}

/* alltoall of 256 KiB blocks (past any eager limit: rendezvous, several to one peer when
 * edges repeat), blocking, non-blocking and persistent */
#define BIG 65536
static void run_alltoall_big(MPI_Comm comm, const nbrs_t *n)
{
    int *sb = malloc((size_t)(n->outdeg + 1) * BIG * sizeof(int));
    int *rb = malloc((size_t)(n->indeg + 1) * BIG * sizeof(int));
    CHECK(sb && rb);
    for (int t = 0; t < n->outdeg; t++)
        for (int e = 0; e < BIG; e++)
            sb[(size_t)t * BIG + e] = val(g_rank, t, e);
    for (int m = M_BLOCK; m <= (MPI_VERSION >= 4 ? M_PERSIST : M_NB); m++) {
        MPI_Request r = MPI_REQUEST_NULL;
        for (size_t i = 0; i < (size_t)(n->indeg + 1) * BIG; i++)
            rb[i] = -1;
        if (m == M_BLOCK)
            CHECK_RC(MPI_Neighbor_alltoall(sb, BIG, MPI_INT, rb, BIG, MPI_INT, comm));
        else if (m == M_NB)
            CHECK_RC(MPI_Ineighbor_alltoall(sb, BIG, MPI_INT, rb, BIG, MPI_INT, comm, &r));
#if MPI_VERSION >= 4
        else
            CHECK_RC(MPI_Neighbor_alltoall_init(sb, BIG, MPI_INT, rb, BIG, MPI_INT, comm,
                                                MPI_INFO_NULL, &r));
#endif
        finish(&r, m);
        for (int s = 0; s < n->indeg; s++) {
            int t = slot_from(g_rank, s);
            for (int e = 0; e < BIG; e += 997)
                CHECK(rb[(size_t)s * BIG + e] == (t < 0 ? -1 : val(n->in[s], t, e)));
        }
        CHECK(rb[(size_t)n->indeg * BIG] == -1);
    }
    free(sb);
    free(rb);
}

/* alltoallw from and to MPI_BOTTOM with absolute addresses as the displacements */
static void run_alltoallw_bottom(MPI_Comm comm, const nbrs_t *n)
{
    static vargs_t a;
    MPI_Aint sbase, rbase;
    vargs_fill(n, &a);
    CHECK_RC(MPI_Get_address(a.sb, &sbase));
    CHECK_RC(MPI_Get_address(a.rb, &rbase));
    for (int i = 0; i < MAXN; i++) {
        a.sdb[i] = MPI_Aint_add(sbase, a.sdb[i]);
        a.rdb[i] = MPI_Aint_add(rbase, a.rdb[i]);
    }
    CHECK_RC(
        MPI_Neighbor_alltoallw(MPI_BOTTOM, a.sc, a.sdb, a.st, MPI_BOTTOM, a.rc, a.rdb, a.rt, comm));
    vargs_check(&a, "alltoallw from MPI_BOTTOM", M_BLOCK);
}

/* MPI_IN_PLACE is not an option for the neighbourhood collectives (MPI 4.1 section 8.6): an
 * MPI that checks arguments refuses it; only Ibex's answer is asserted. */
static void check_in_place(MPI_Comm comm)
{
#ifdef IBEX_MPI_H
    int rb[MAXN * CNT], c[MAXN] = {0}, d[MAXN] = {0}, ec;
    MPI_Request r;
    CHECK_RC(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    int rc = MPI_Neighbor_allgather(MPI_IN_PLACE, CNT, MPI_INT, rb, CNT, MPI_INT, comm);
    CHECK(rc != MPI_SUCCESS);
    MPI_Error_class(rc, &ec);
    CHECK(ec == MPI_ERR_BUFFER || ec == MPI_ERR_ARG);
    rc = MPI_Ineighbor_alltoall(MPI_IN_PLACE, CNT, MPI_INT, rb, CNT, MPI_INT, comm, &r);
    CHECK(rc != MPI_SUCCESS);
    rc = MPI_Neighbor_alltoallv_init(MPI_IN_PLACE, c, d, MPI_INT, rb, c, d, MPI_INT, comm,
                                     MPI_INFO_NULL, &r);
    CHECK(rc != MPI_SUCCESS);
    rc = MPI_Neighbor_allgatherv(MPI_IN_PLACE, 0, MPI_INT, rb, c, d, MPI_INT, comm);
    CHECK(rc != MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
#else
    (void)comm;
#endif
}

static void run_all(MPI_Comm comm, const char *what, int cart)
{
    nbrs_t me;
    if (comm == MPI_COMM_NULL)
        return;
    int world_rank = g_rank;
    MPI_Comm_rank(comm, &g_rank); /* reorder may have moved this process */
    memset(&me, 0, sizeof(me));
    nbrs_get(comm, &me);
    CHECK_RC(MPI_Allgather(&me, sizeof(me), MPI_BYTE, g_all, sizeof(me), MPI_BYTE, comm));
    g_cart = cart;
    int nm = MPI_VERSION >= 4 ? M_NMODES : M_PERSIST;
    for (int m = 0; m < nm; m++) {
        if (getenv("TC_TRACE"))
            fprintf(stderr, "rank %d %s %s\n", g_rank, what, mode_name[m]);
        run_allgather(comm, &me, m);
        run_allgatherv(comm, &me, m);
        run_alltoall(comm, &me, m);
        run_alltoallv(comm, &me, m);
        run_alltoallw(comm, &me, m);
    }
    run_alltoallw_bottom(comm, &me);
    run_alltoall_big(comm, &me);
    check_in_place(comm);
    /* several non-blocking ones in flight at once complete independently */
    int sb[MAXN], rb1[MAXN], rb2[MAXN];
    MPI_Request rq[2];
    for (int t = 0; t < MAXN; t++)
        sb[t] = val(g_rank, t, 0);
    CHECK_RC(MPI_Ineighbor_alltoall(sb, 1, MPI_INT, rb1, 1, MPI_INT, comm, &rq[0]));
    CHECK_RC(MPI_Ineighbor_allgather(sb, 1, MPI_INT, rb2, 1, MPI_INT, comm, &rq[1]));
    CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    for (int s = 0; s < me.indeg; s++) {
        int t = slot_from(g_rank, s);
        if (t >= 0)
            CHECK(rb1[s] == val(me.in[s], t, 0) && rb2[s] == val(me.in[s], 0, 0));
    }
    if (g_rank == 0 && getenv("TC_VERBOSE"))
        printf("  %s ok\n", what);
    g_rank = world_rank;
}

static void run_carts(void)
{
    MPI_Comm c;
    int dims[3] = {0, 0, 0}, per[3] = {1, 1, 1};
    /* 1-D periodic and non-periodic */
    dims[0] = g_size;
    if (g_size > 2 || !getenv("TC_NO_DEGENERATE")) {
        CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &c));
        run_all(c, "cart 1d periodic", 1);
        MPI_Comm_free(&c);
    }
    per[0] = 0;
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &c));
    run_all(c, "cart 1d open", 1);
    MPI_Comm_free(&c);
    /* 2-D from Dims_create, mixed periods */
    dims[0] = dims[1] = 0;
    CHECK_RC(MPI_Dims_create(g_size, 2, dims));
    per[0] = 1, per[1] = 0;
    if (dims[0] <= 2 && getenv("TC_NO_DEGENERATE"))
        per[0] = 0;
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &c));
    run_all(c, "cart 2d mixed", 1);
    MPI_Comm_free(&c);
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 1, &c));
    run_all(c, "cart 2d mixed, reordered", 1);
    MPI_Comm_free(&c);
    /* MPICH 4.0 and Open MPI 4.1 still pair these blocks wrongly (mpi-forum issue 153):
     * TC_NO_DEGENERATE=1 leaves them out when the program itself is checked there */
    if (!getenv("TC_NO_DEGENERATE")) {
        /* 3-D {size/2, 1, 2} periodic: a process is its own neighbour twice, or one
         * process is both neighbours */
        dims[0] = g_size % 2 == 0 ? g_size / 2 : g_size, dims[1] = 1;
        dims[2] = g_size % 2 == 0 ? 2 : 1;
        per[0] = per[1] = per[2] = 1;
        CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 3, dims, per, 0, &c));
        run_all(c, "cart 3d with size-1 and size-2 periodic dims", 1);
        MPI_Comm_free(&c);
    }
    /* a cart on fewer ranks than the communicator */
    if (g_size > 2) {
        dims[0] = g_size - 1;
        per[0] = 0;
        CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &c));
        CHECK((c == MPI_COMM_NULL) == (g_rank == g_size - 1));
        if (c != MPI_COMM_NULL) {
            int r;
            MPI_Comm_rank(c, &r);
            CHECK(r == g_rank);
            run_all(c, "cart on a part", 1);
            MPI_Comm_free(&c);
        }
    }
}

static void run_graphs(void)
{
    MPI_Comm c;
    int index[16], edges[64], ne = 0;
    /* ring with a doubled edge 0<->1 and a self loop on the last rank */
    int dup = !getenv("TC_NO_DEGENERATE");
    for (int i = 0; i < g_size; i++) {
        if (g_size > 1) {
            edges[ne++] = (i + 1) % g_size;
            if (g_size > 2 || dup)
                edges[ne++] = (i + g_size - 1) % g_size;
        }
        if (i == 0 && g_size > 1 && dup)
            edges[ne++] = 1;
        if (i == 1 && dup)
            edges[ne++] = 0;
        if (i == g_size - 1 && dup)
            edges[ne++] = i;
        index[i] = ne;
    }
    for (int reorder = 0; reorder < 2; reorder++) {
        CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, g_size, index, edges, reorder, &c));
        run_all(c, reorder ? "graph, reordered" : "graph", 0);
        MPI_Comm_free(&c);
    }
}

static void run_dist_graphs(void)
{
    MPI_Comm c;
    int src[MAXN], dst[MAXN], nin = 0, nout = 0;
    /* asymmetric: rank i sends to i+1 and i+2 (if they exist); rank 0 also to itself;
     * the last rank sends nothing; in-degree differs from out-degree */
    for (int j = 0; j < g_size; j++) {
        for (int d = 1; d <= 2; d++)
            if (j + d < g_size) {
                if (j == g_rank)
                    dst[nout++] = j + d;
                if (j + d == g_rank)
                    src[nin++] = j;
            }
        if (j == 0 && g_rank == 0)
            dst[nout++] = 0, src[nin++] = 0;
    }
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, src, MPI_UNWEIGHTED, nout, dst,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
    run_all(c, "dist graph adjacent asymmetric", 0);
    MPI_Comm_free(&c);
    /* general form: rank 0 gives every edge, a star into rank 0 with duplicated edges from
     * rank 1; other ranks give none */
    int n = 0, srcs[16], degs[16], dsts[64], k = 0;
    if (g_rank == 0)
        for (int j = 1; j < g_size; j++) {
            srcs[n] = j;
            degs[n] = j == 1 && !getenv("TC_NO_DEGENERATE") ? 3 : 1;
            for (int e = 0; e < degs[n]; e++)
                dsts[k++] = 0;
            n++;
        }
    CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, degs, dsts, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &c));
    run_all(c, "dist graph general star", 0);
    MPI_Comm_free(&c);
    /* every rank zero degree */
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, src, MPI_WEIGHTS_EMPTY, 0, dst,
                                            MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &c));
    run_all(c, "dist graph empty", 0);
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    CHECK(g_size <= 16);
    run_carts();
    run_graphs();
    run_dist_graphs();
    /* no topology: MPI_ERR_TOPOLOGY */
    int ec, x = 0, y[16];
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD);
    CHECK(rc != MPI_SUCCESS);
    MPI_Error_class(rc, &ec);
#ifndef IBEX_MPI_H
    ec = MPI_ERR_TOPOLOGY; /* Open MPI 4.1 answers MPI_ERR_INTERN */
#endif
    if (ec != MPI_ERR_TOPOLOGY) {
        char m[MPI_MAX_ERROR_STRING];
        int l;
        MPI_Error_string(rc, m, &l);
        fprintf(stderr, "no topology: class %d: %s\n", ec, m);
        CHECK(0);
    }
    mt_done("tc_neighb");
    MPI_Finalize();
    return 0;
}
