/* Intercommunicators, written against MPI 4.1: creation from a split world in both rank
 * orders, one process in several intercommunicators, point-to-point, merge, dup / idup /
 * split / create, remote groups. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int errs;
#include "conf_check.h"
static int wrank, wsize;

/* World rank of each remote rank, through the remote group. */
static void remote_world_ranks(MPI_Comm ic, int *out)
{
    MPI_Group rg, wg;
    int rs, i, *idx;
    MPI_Comm_remote_size(ic, &rs);
    MPI_Comm_remote_group(ic, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    idx = malloc(sizeof(int) * rs);
    for (i = 0; i < rs; i++)
        idx[i] = i;
    MPI_Group_translate_ranks(rg, rs, idx, wg, out);
    free(idx);
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);
}

/* Every local rank sends its world rank to every remote rank and receives from each. */
static void check_p2p(MPI_Comm ic, const char *what)
{
    int ls, rs, lr, j, *rw, *in, *outv;
    MPI_Request *rq;
    MPI_Status *st;
    MPI_Comm_size(ic, &ls);
    MPI_Comm_rank(ic, &lr);
    MPI_Comm_remote_size(ic, &rs);
    rw = malloc(sizeof(int) * rs);
    in = malloc(sizeof(int) * rs);
    outv = malloc(sizeof(int) * rs);
    rq = malloc(sizeof(MPI_Request) * 2 * rs);
    st = malloc(sizeof(MPI_Status) * 2 * rs);
    remote_world_ranks(ic, rw);
    for (j = 0; j < rs; j++) {
        in[j] = -1;
        outv[j] = wrank;
        MPI_Irecv(&in[j], 1, MPI_INT, j, 1000 + j, ic, &rq[j]);
    }
    for (j = 0; j < rs; j++)
        MPI_Isend(&outv[j], 1, MPI_INT, j, 1000 + lr, ic, &rq[rs + j]);
    MPI_Waitall(2 * rs, rq, st);
    for (j = 0; j < rs; j++) {
        CHECK(in[j] == rw[j], "%s: from remote %d got %d want %d", what, j, in[j], rw[j]);
        CHECK(st[j].MPI_SOURCE == j, "%s: source %d want %d", what, st[j].MPI_SOURCE, j);
        CHECK(st[j].MPI_TAG == 1000 + j, "%s: tag %d", what, st[j].MPI_TAG);
    }
    /* wildcard receive across an intercommunicator: the source is a remote rank */
    if (lr == 0) {
        int v = wrank, got = -1;
        MPI_Status s;
        MPI_Sendrecv(&v, 1, MPI_INT, 0, 7, &got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &s);
        CHECK(got == rw[0] && s.MPI_SOURCE == 0 && s.MPI_TAG == 7, "%s: wildcard got %d src %d",
              what, got, s.MPI_SOURCE);
    }
    free(rw);
    free(in);
    free(outv);
    free(rq);
    free(st);
}

static void check_merge(MPI_Comm ic, int high, const char *what)
{
    MPI_Comm m;
    int ls, rs, lr, mr, ms, flag;
    MPI_Comm_size(ic, &ls);
    MPI_Comm_rank(ic, &lr);
    MPI_Comm_remote_size(ic, &rs);
    MPI_Intercomm_merge(ic, high, &m);
    MPI_Comm_rank(m, &mr);
    MPI_Comm_size(m, &ms);
    MPI_Comm_test_inter(m, &flag);
    CHECK(!flag, "%s: merged is inter", what);
    CHECK(ms == ls + rs, "%s: merged size %d", what, ms);
    CHECK(mr == (high ? rs + lr : lr), "%s: high %d merged rank %d local %d rs %d", what, high, mr,
          lr, rs);
    {
        int sum = 0, want = ms * (ms - 1) / 2;
        MPI_Allreduce(&mr, &sum, 1, MPI_INT, MPI_SUM, m);
        CHECK(sum == want, "%s: merged allreduce %d", what, sum);
    }
    MPI_Comm_free(&m);
}

static void check_dups(MPI_Comm ic, const char *what)
{
    MPI_Comm d, d2;
    MPI_Request r;
    int flag, res, rs, rs2;
    MPI_Comm_dup(ic, &d);
    MPI_Comm_test_inter(d, &flag);
    CHECK(flag, "%s: dup not inter", what);
    MPI_Comm_compare(ic, d, &res);
    CHECK(res == MPI_CONGRUENT, "%s: compare dup %d", what, res);
    MPI_Comm_remote_size(ic, &rs);
    MPI_Comm_remote_size(d, &rs2);
    CHECK(rs == rs2, "%s: dup remote size", what);
    check_p2p(d, "dup");
    MPI_Comm_idup(ic, &d2, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Comm_test_inter(d2, &flag);
    CHECK(flag, "%s: idup not inter", what);
    check_p2p(d2, "idup");
    MPI_Comm_free(&d2);
    MPI_Comm_free(&d);
}

static void check_split(MPI_Comm ic, const char *what)
{
    MPI_Comm s;
    int lr, ls, rs, color, key;
    MPI_Comm_rank(ic, &lr);
    MPI_Comm_size(ic, &ls);
    MPI_Comm_remote_size(ic, &rs);
    color = lr % 2;
    key = ls - lr;
    MPI_Comm_split(ic, color, key, &s);
    /* remote processes of the same colour: ceil or floor of rs/2 */
    {
        int rsame = color == 0 ? (rs + 1) / 2 : rs / 2;
        int lsame = color == 0 ? (ls + 1) / 2 : ls / 2;
        if (rsame == 0) {
            CHECK(s == MPI_COMM_NULL, "%s: split without remote colour not null", what);
        } else {
            int a, b, c, flag;
            CHECK(s != MPI_COMM_NULL, "%s: split null", what);
            if (s == MPI_COMM_NULL)
                return;
            MPI_Comm_test_inter(s, &flag);
            MPI_Comm_size(s, &a);
            MPI_Comm_remote_size(s, &b);
            MPI_Comm_rank(s, &c);
            CHECK(flag && a == lsame && b == rsame, "%s: split sizes %d %d", what, a, b);
            /* keys reverse the order */
            CHECK(c == lsame - 1 - lr / 2, "%s: split rank %d (lr %d)", what, c, lr);
            check_p2p(s, "split");
            MPI_Comm_free(&s);
        }
    }
    /* MPI_UNDEFINED everywhere on one side gives MPI_COMM_NULL on both */
    MPI_Comm_split(ic, MPI_UNDEFINED, 0, &s);
    CHECK(s == MPI_COMM_NULL, "%s: split undefined", what);
}

static void check_create(MPI_Comm ic, const char *what)
{
    MPI_Group lg, sub;
    MPI_Comm c;
    int ls, rs, lr, r0 = 0;
    MPI_Comm_size(ic, &ls);
    MPI_Comm_remote_size(ic, &rs);
    MPI_Comm_rank(ic, &lr);
    MPI_Comm_group(ic, &lg);
    {
        int gs;
        MPI_Group_size(lg, &gs);
        CHECK(gs == ls, "%s: Comm_group of inter is local", what);
    }
    /* each side keeps its rank 0 only */
    MPI_Group_incl(lg, 1, &r0, &sub);
    MPI_Comm_create(ic, sub, &c);
    if (lr == 0) {
        int a, b;
        CHECK(c != MPI_COMM_NULL, "%s: create null at 0", what);
        if (c != MPI_COMM_NULL) {
            MPI_Comm_size(c, &a);
            MPI_Comm_remote_size(c, &b);
            CHECK(a == 1 && b == 1, "%s: create sizes %d %d", what, a, b);
            check_p2p(c, "create");
            MPI_Comm_free(&c);
        }
    } else {
        CHECK(c == MPI_COMM_NULL, "%s: create not null", what);
    }
    MPI_Group_free(&sub);
    MPI_Group_free(&lg);
}

static void even_odd(int reverse)
{
    MPI_Comm local, ic;
    int color = wrank % 2, key = reverse ? -wrank : wrank, flag, ls, rs, lr, rleader;
    const char *what = reverse ? "reversed" : "ordered";
    MPI_Comm_split(MPI_COMM_WORLD, color, key, &local);
    MPI_Comm_size(local, &ls);
    /* the remote leader: the world rank of the other colour's local rank 0 */
    if (!reverse)
        rleader = color == 0 ? 1 : 0;
    else {
        int top = wsize - 1;
        rleader = (top % 2 == color) ? top - 1 : top;
    }
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rleader, 42 + reverse, &ic);
    MPI_Comm_test_inter(ic, &flag);
    MPI_Comm_remote_size(ic, &rs);
    MPI_Comm_rank(ic, &lr);
    CHECK(flag, "%s: not inter", what);
    CHECK(rs == (color == 0 ? wsize / 2 : (wsize + 1) / 2), "%s: remote size %d", what, rs);
    {
        int lrl;
        MPI_Comm_rank(local, &lrl);
        CHECK(lr == lrl, "%s: rank in inter %d local %d", what, lr, lrl);
    }
    check_p2p(ic, what);
    check_merge(ic, color, what);
    check_merge(ic, !color, what);
    check_dups(ic, what);
    check_split(ic, what);
    check_create(ic, what);
    MPI_Barrier(ic);
    {
        int v = wrank, got = -1, root0 = reverse ? wsize - 1 - ((wsize - 1) % 2 == 0 ? 0 : 0) : 0;
        (void)root0;
        /* Bcast from the even side's local rank 0 */
        if (color == 0)
            MPI_Bcast(&v, 1, MPI_INT, lr == 0 ? MPI_ROOT : MPI_PROC_NULL, ic);
        else {
            int want[64];
            remote_world_ranks(ic, want);
            MPI_Bcast(&got, 1, MPI_INT, 0, ic);
            CHECK(got == want[0], "%s: inter bcast %d", what, got);
        }
    }
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
}

/* One intercommunicator per pair of world ranks with MPI_COMM_SELF as the local side: each
 * process is in size-1 of them at once (the groups of different intercommunicators overlap). */
static void pairs(void)
{
    MPI_Comm *ic = calloc(wsize, sizeof(MPI_Comm));
    int i, j;
    for (i = 0; i < wsize; i++)
        for (j = i + 1; j < wsize; j++) {
            if (wrank == i)
                MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, j, 100 + i * wsize + j,
                                     &ic[j]);
            else if (wrank == j)
                MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, i, 100 + i * wsize + j,
                                     &ic[i]);
        }
    for (i = 0; i < wsize; i++) {
        int got = -1, want;
        if (i == wrank)
            continue;
        remote_world_ranks(ic[i], &want);
        MPI_Sendrecv(&wrank, 1, MPI_INT, 0, 5, &got, 1, MPI_INT, 0, 5, ic[i], MPI_STATUS_IGNORE);
        CHECK(got == i && want == i, "pairs: with %d got %d", i, got);
    }
    for (i = 0; i < wsize; i++)
        if (i != wrank)
            MPI_Comm_free(&ic[i]);
    free(ic);
}

static void bad_args(void)
{
    int flag;
    MPI_Comm_test_inter(MPI_COMM_WORLD, &flag);
    CHECK(!flag, "world is inter");
}

int main(int argc, char **argv)
{
    int tot;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    bad_args();
    if (wsize >= 2) {
        even_odd(0);
        even_odd(1);
        pairs();
    }
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0 && tot == 0)
        printf("conf_inter: ok\n");
    MPI_Finalize();
    return tot != 0;
}
