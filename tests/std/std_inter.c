/* SPDX-License-Identifier: BSD-3-Clause */
/* Intercommunicators: create both orders, merge, collectives with MPI_ROOT / MPI_PROC_NULL. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CHECK_RANK wrank
#include "std_check.h"
static int wrank, wsize;
static void colls(MPI_Comm ic, int blocking)
{
    int rank, lsize, rsize, low;
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_Comm_rank(ic, &rank);
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_remote_size(ic, &rsize);
    low = wrank % 2 == 0; /* group A = even world ranks */
#define GO(b, nb)                                                                                  \
    do {                                                                                           \
        if (blocking) {                                                                            \
            b;                                                                                     \
        } else {                                                                                   \
            nb;                                                                                    \
            MPI_Wait(&rq, MPI_STATUS_IGNORE);                                                      \
        }                                                                                          \
    } while (0)
    /* Bcast from A's rank 0 */
    int v[4] = {0};
    int root = low ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    if (low && rank == 0)
        for (int i = 0; i < 4; i++)
            v[i] = 77 + i;
    GO(MPI_Bcast(v, 4, MPI_INT, root, ic), MPI_Ibcast(v, 4, MPI_INT, root, ic, &rq));
    if (!low)
        CHECK(v[3] == 80, "inter bcast %d", v[3]);
    if (low && rank)
        CHECK(v[3] == 0, "procnull untouched");
    /* Allreduce: each side gets the sum of the other side's values */
    int x = wrank + 1, s = 0, exp = 0;
    for (int r = 0; r < wsize; r++)
        if ((r % 2 == 0) != low)
            exp += r + 1;
    GO(MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, ic),
       MPI_Iallreduce(&x, &s, 1, MPI_INT, MPI_SUM, ic, &rq));
    CHECK(s == exp, "inter allreduce %d != %d", s, exp);
    /* Reduce to B's rank 0 */
    s = -1;
    root = low ? 0 : (rank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    GO(MPI_Reduce(&x, &s, 1, MPI_INT, MPI_SUM, root, ic),
       MPI_Ireduce(&x, &s, 1, MPI_INT, MPI_SUM, root, ic, &rq));
    if (!low && rank == 0)
        CHECK(s == exp, "inter reduce");
    /* Allgather: get the remote group's world ranks */
    int *g = malloc(rsize * sizeof(int));
    GO(MPI_Allgather(&wrank, 1, MPI_INT, g, 1, MPI_INT, ic),
       MPI_Iallgather(&wrank, 1, MPI_INT, g, 1, MPI_INT, ic, &rq));
    for (int i = 0; i < rsize; i++)
        CHECK(g[i] % 2 == (low ? 1 : 0), "inter allgather");
    /* Gather to A root */
    int *gg = malloc((rsize + 1) * sizeof(int));
    root = low ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    GO(MPI_Gather(&wrank, 1, MPI_INT, gg, 1, MPI_INT, root, ic),
       MPI_Igather(&wrank, 1, MPI_INT, gg, 1, MPI_INT, root, ic, &rq));
    if (low && rank == 0)
        for (int i = 0; i < rsize; i++)
            CHECK(gg[i] == g[i], "inter gather");
    /* Scatter from B root */
    int got = -1;
    root = low ? 0 : (rank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    int *sc = malloc((rsize + 1) * sizeof(int));
    for (int i = 0; i < rsize; i++)
        sc[i] = 500 + i;
    GO(MPI_Scatter(sc, 1, MPI_INT, &got, 1, MPI_INT, root, ic),
       MPI_Iscatter(sc, 1, MPI_INT, &got, 1, MPI_INT, root, ic, &rq));
    if (low)
        CHECK(got == 500 + rank, "inter scatter");
    /* Alltoall */
    int *a = malloc(rsize * sizeof(int)), *b = malloc(rsize * sizeof(int));
    for (int i = 0; i < rsize; i++)
        a[i] = wrank * 100 + i;
    GO(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, ic),
       MPI_Ialltoall(a, 1, MPI_INT, b, 1, MPI_INT, ic, &rq));
    for (int i = 0; i < rsize; i++)
        CHECK(b[i] == g[i] * 100 + rank, "inter alltoall");
    /* Reduce_scatter_block: remote group contributes lsize ints each */
    int *rs = malloc((size_t)(rsize > lsize ? rsize : lsize) * 2 * sizeof(int));
    /* recvcount = remote size on both sides keeps recvcount * group size equal */
    int *rsb = malloc(rsize * lsize * sizeof(int)), *one = malloc(rsize * sizeof(int));
    for (int i = 0; i < rsize * lsize; i++)
        rsb[i] = 1;
    GO(MPI_Reduce_scatter_block(rsb, one, rsize, MPI_INT, MPI_SUM, ic),
       MPI_Ireduce_scatter_block(rsb, one, rsize, MPI_INT, MPI_SUM, ic, &rq));
    for (int i = 0; i < rsize; i++)
        CHECK(one[i] == rsize, "inter rsb %d vs %d", one[i], rsize);
    free(one);
    GO(MPI_Barrier(ic), MPI_Ibarrier(ic, &rq));
    free(g);
    free(gg);
    free(sc);
    free(a);
    free(b);
    free(rs);
    free(rsb);
}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2) {
        printf("std_inter: ok\n");
        MPI_Finalize();
        return 0;
    }
    MPI_Comm local, ic, ic2, merged, dup;
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wsize - wrank, &local); /* reordered */
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD,
                         wrank % 2 ? (wsize - 1) - ((wsize - 1) % 2 == 1)
                                   : (wsize - 1) - ((wsize - 1) % 2 == 0),
                         12, &ic);
    int flag;
    MPI_Comm_test_inter(ic, &flag);
    CHECK(flag, "test_inter");
    int rs;
    MPI_Comm_remote_size(ic, &rs);
    CHECK(rs == (wrank % 2 ? (wsize + 1) / 2 : wsize / 2), "remote size");
    MPI_Group rg;
    MPI_Comm_remote_group(ic, &rg);
    int rgs;
    MPI_Group_size(rg, &rgs);
    CHECK(rgs == rs, "remote group");
    MPI_Group_free(&rg);
    colls(ic, 1);
    colls(ic, 0);
    MPI_Comm_dup(ic, &dup);
    colls(dup, 1);
    /* p2p across */
    int lr;
    MPI_Comm_rank(ic, &lr);
    if (lr == 0) {
        int v = wrank, w;
        MPI_Sendrecv(&v, 1, MPI_INT, 0, 3, &w, 1, MPI_INT, 0, 3, ic, MPI_STATUS_IGNORE);
        CHECK(w % 2 != wrank % 2, "inter p2p");
    }
    /* merge in both orders */
    MPI_Intercomm_merge(ic, wrank % 2, &merged);
    int mr, ms;
    MPI_Comm_rank(merged, &mr);
    MPI_Comm_size(merged, &ms);
    CHECK(ms == wsize, "merge size");
    int *all = malloc(wsize * sizeof(int));
    MPI_Allgather(&wrank, 1, MPI_INT, all, 1, MPI_INT, merged);
    for (int i = 0; i < wsize; i++)
        CHECK((i < (wsize + 1) / 2) == (all[i] % 2 == 0), "merge order low first");
    MPI_Comm_free(&merged);
    MPI_Intercomm_merge(ic, wrank % 2 == 0, &merged);
    MPI_Allgather(&wrank, 1, MPI_INT, all, 1, MPI_INT, merged);
    for (int i = 0; i < wsize; i++)
        CHECK((i < wsize / 2) == (all[i] % 2 == 1), "merge order high first");
    MPI_Comm_free(&merged);
    /* split of an intercomm */
    MPI_Comm_split(ic, 0, 0, &ic2);
    int f2;
    MPI_Comm_test_inter(ic2, &f2);
    CHECK(f2, "split inter");
    colls(ic2, 0);
    MPI_Comm_free(&ic2);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    free(all);
    int tot;
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return std_report("std_inter", tot, wrank);
}
