/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Intercommunicators (standard MPI only): built from MPI_COMM_WORLD split two ways (even / odd
 * ranks, lower / upper half) with each side's leader; sizes, groups, point-to-point across
 * (ranks name the remote group, MPI_SOURCE too), Intercomm_merge with both orders of `high` and
 * with equal `high`, Comm_dup / split / create / compare / free of an intercommunicator, its
 * collectives refused, and the error classes of the new calls. Every expected value is
 * computed here from the world ranks.
 */
#include <stdbool.h>

#include "mpitest.h"

static int wrank, wsize;

/* The class of an error code (implementations may return codes, not classes). */
static int ecls(int rc)
{
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}

/* The world ranks of colour c under split kind k, in world order. */
static int side_ranks(int kind, int c, int *out)
{
    int n = 0;
    for (int r = 0; r < wsize; r++)
        if ((kind == 0 ? r % 2 : r >= wsize / 2) == c)
            out[n++] = r;
    return n;
}

static void check_group_is(MPI_Group g, const int *world, int n)
{
    MPI_Group wg;
    int size, *idx = malloc(sizeof(int) * (n + 1)), *tr = malloc(sizeof(int) * (n + 1));
    CHECK_RC(MPI_Group_size(g, &size));
    CHECK(size == n);
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    for (int i = 0; i < n; i++)
        idx[i] = i;
    CHECK_RC(MPI_Group_translate_ranks(g, n, idx, wg, tr));
    for (int i = 0; i < n; i++)
        CHECK(tr[i] == world[i]);
    CHECK_RC(MPI_Group_free(&wg));
    free(idx);
    free(tr);
}

/* Every local rank sends to every remote rank and receives from each once (ANY_SOURCE),
 * the payload naming the sender's world rank; then a Sendrecv with a partner. */
static void check_p2p(MPI_Comm inter, const int *remote, int rsize)
{
    int lrank, lsize, *in = malloc(sizeof(int) * rsize), *out = malloc(sizeof(int) * rsize);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * rsize);
    MPI_Status *st = malloc(sizeof(MPI_Status) * 2 * rsize);
    CHECK_RC(MPI_Comm_rank(inter, &lrank));
    CHECK_RC(MPI_Comm_size(inter, &lsize));
    for (int i = 0; i < rsize; i++) {
        CHECK_RC(MPI_Irecv(&in[i], 1, MPI_INT, MPI_ANY_SOURCE, 7, inter, &reqs[i]));
        out[i] = wrank * 1000 + i;
        CHECK_RC(MPI_Isend(&out[i], 1, MPI_INT, i, 7, inter, &reqs[rsize + i]));
    }
    CHECK_RC(MPI_Waitall(2 * rsize, reqs, st));
    int seen = 0;
    for (int i = 0; i < rsize; i++) {
        int src = st[i].MPI_SOURCE;
        CHECK(src >= 0 && src < rsize);
        CHECK(in[i] == remote[src] * 1000 + lrank); /* the source names the remote rank */
        seen |= 1 << src;
    }
    CHECK(seen == (1 << rsize) - 1);
    int partner = lrank % rsize, got = -1;
    MPI_Status s;
    if (lrank < rsize) { /* partners pair one to one on the common ranks */
        CHECK_RC(
            MPI_Sendrecv(&wrank, 1, MPI_INT, partner, 8, &got, 1, MPI_INT, partner, 8, inter, &s));
        CHECK(got == remote[partner] && s.MPI_SOURCE == partner);
    }
    int bad = 0;
    CHECK_RC(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    CHECK(ecls(MPI_Send(&bad, 1, MPI_INT, rsize, 9, inter)) ==
          MPI_ERR_RANK); /* remote size bounds */
    CHECK_RC(MPI_Comm_set_errhandler(inter, MPI_ERRORS_ARE_FATAL));
    free(in);
    free(out);
    free(reqs);
    free(st);
}

/* Merge and check the order: the side with high = 0 first (equal: one side first, each in its
 * local order). */
static void check_merge(MPI_Comm inter, int my_high, int their_high, const int *mine, int lsize,
                        const int *theirs, int rsize)
{
    MPI_Comm m;
    MPI_Group g;
    int size, flag;
    CHECK_RC(MPI_Intercomm_merge(inter, my_high, &m));
    CHECK_RC(MPI_Comm_test_inter(m, &flag));
    CHECK(!flag);
    CHECK_RC(MPI_Comm_size(m, &size));
    CHECK(size == lsize + rsize);
    int *expect = malloc(sizeof(int) * size);
    bool mine_first = my_high != their_high ? !my_high : false;
    if (my_high == their_high) { /* either order, but one side after the other */
        int first;
        CHECK_RC(MPI_Comm_group(m, &g));
        int zero = 0, w;
        MPI_Group wg;
        CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &wg));
        CHECK_RC(MPI_Group_translate_ranks(g, 1, &zero, wg, &w));
        first = w;
        CHECK_RC(MPI_Group_free(&g));
        CHECK_RC(MPI_Group_free(&wg));
        mine_first = first == mine[0];
    }
    memcpy(expect + (mine_first ? 0 : rsize), mine, sizeof(int) * lsize);
    memcpy(expect + (mine_first ? lsize : 0), theirs, sizeof(int) * rsize);
    CHECK_RC(MPI_Comm_group(m, &g));
    check_group_is(g, expect, size);
    CHECK_RC(MPI_Group_free(&g));
    int sum = 0, one = 1; /* the merged communicator works for collectives */
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, m));
    CHECK(sum == size);
    CHECK_RC(MPI_Comm_free(&m));
    free(expect);
}

/* Comm_split of the intercommunicator by local rank parity, key reversing the order; the
 * colour 2 exists only on the side of world rank 0, so it has no partner there. */
static void check_split(MPI_Comm inter, const int *mine, int lsize, const int *theirs, int rsize)
{
    int lrank, colour, flag;
    MPI_Comm s;
    CHECK_RC(MPI_Comm_rank(inter, &lrank));
    colour = lrank % 2;
    if (mine[0] == 0 && lrank == lsize - 1 && lsize > 2)
        colour = 2;
    CHECK_RC(MPI_Comm_split(inter, colour, -lrank, &s));
    if (colour == 2) {
        CHECK(s == MPI_COMM_NULL);
        return;
    }
    int el[64], er[64], nl = 0, nr = 0;
    for (int i = lsize - 1; i >= 0; i--) /* key -rank: reversed */
        if (i % 2 == colour && !(mine[0] == 0 && i == lsize - 1 && lsize > 2))
            el[nl++] = mine[i];
    for (int i = rsize - 1; i >= 0; i--)
        if (i % 2 == colour && !(theirs[0] == 0 && i == rsize - 1 && rsize > 2))
            er[nr++] = theirs[i];
    if (nr == 0) {
        CHECK(s == MPI_COMM_NULL);
        return;
    }
    CHECK(s != MPI_COMM_NULL);
    CHECK_RC(MPI_Comm_test_inter(s, &flag));
    CHECK(flag);
    MPI_Group g;
    CHECK_RC(MPI_Comm_group(s, &g));
    check_group_is(g, el, nl);
    CHECK_RC(MPI_Group_free(&g));
    CHECK_RC(MPI_Comm_remote_group(s, &g));
    check_group_is(g, er, nr);
    CHECK_RC(MPI_Group_free(&g));
    check_p2p(s, er, nr);
    CHECK_RC(MPI_Comm_free(&s));
}

/* Comm_create with the local group less its last member (when it has more than one). */
static void check_create(MPI_Comm inter, const int *mine, int lsize, const int *theirs, int rsize)
{
    MPI_Group lg, sub;
    MPI_Comm c;
    int lrank, drop = lsize - 1;
    CHECK_RC(MPI_Comm_rank(inter, &lrank));
    CHECK_RC(MPI_Comm_group(inter, &lg));
    if (lsize > 1)
        CHECK_RC(MPI_Group_excl(lg, 1, &drop, &sub));
    else
        CHECK_RC(MPI_Group_incl(lg, 1, &lrank, &sub));
    CHECK_RC(MPI_Comm_create(inter, sub, &c));
    int nl = lsize > 1 ? lsize - 1 : 1, nr = rsize > 1 ? rsize - 1 : 1;
    if (lsize > 1 && lrank == lsize - 1) {
        CHECK(c == MPI_COMM_NULL);
    } else {
        int rs;
        CHECK(c != MPI_COMM_NULL);
        CHECK_RC(MPI_Comm_remote_size(c, &rs));
        CHECK(rs == nr);
        MPI_Group g;
        CHECK_RC(MPI_Comm_group(c, &g));
        check_group_is(g, mine, nl);
        CHECK_RC(MPI_Group_free(&g));
        check_p2p(c, theirs, nr);
        CHECK_RC(MPI_Comm_free(&c));
    }
    CHECK_RC(MPI_Group_free(&sub));
    CHECK_RC(MPI_Group_free(&lg));
}

/* Ibex: what MPI does not define on an intercommunicator says so (its collectives are
 * tested in tests/collectives/coll_inter.c). */
static void check_refusals(MPI_Comm inter)
{
#ifdef IBEX_MPI_H
    int x = 0, y = 0;
    CHECK_RC(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    CHECK(ecls(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, inter)) == MPI_ERR_COMM);
    CHECK(ecls(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, inter)) == MPI_ERR_COMM);
    MPI_Comm bad;
    CHECK(ecls(MPI_Intercomm_create(inter, 0, MPI_COMM_WORLD, 0, 1, &bad)) == MPI_ERR_COMM);
    CHECK(ecls(MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &bad)) ==
          MPI_ERR_COMM);
    CHECK_RC(MPI_Comm_set_errhandler(inter, MPI_ERRORS_ARE_FATAL));
#else
    (void)inter;
#endif
}

static void one_layout(int kind, int swap_high)
{
    int mine[64], theirs[64], colour = kind == 0 ? wrank % 2 : wrank >= wsize / 2;
    int lsize = side_ranks(kind, colour, mine), rsize = side_ranks(kind, !colour, theirs);
    MPI_Comm local, inter, dup;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, colour, wrank, &local));
    CHECK_RC(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, theirs[0], 42 + kind, &inter));
    int flag, size, rs, cmp;
    CHECK_RC(MPI_Comm_test_inter(inter, &flag));
    CHECK(flag);
    CHECK_RC(MPI_Comm_size(inter, &size));
    CHECK(size == lsize);
    CHECK_RC(MPI_Comm_remote_size(inter, &rs));
    CHECK(rs == rsize);
    MPI_Group g;
    CHECK_RC(MPI_Comm_group(inter, &g));
    check_group_is(g, mine, lsize);
    CHECK_RC(MPI_Group_free(&g));
    CHECK_RC(MPI_Comm_remote_group(inter, &g));
    check_group_is(g, theirs, rsize);
    CHECK_RC(MPI_Group_free(&g));
    check_p2p(inter, theirs, rsize);
    int high = swap_high ? !colour : colour;
    check_merge(inter, high, !high, mine, lsize, theirs, rsize);
    check_merge(inter, !high, high, mine, lsize, theirs, rsize);
    check_merge(inter, 0, 0, mine, lsize, theirs, rsize);
    CHECK_RC(MPI_Comm_dup(inter, &dup));
    CHECK_RC(MPI_Comm_compare(inter, dup, &cmp));
    CHECK(cmp == MPI_CONGRUENT);
    CHECK_RC(MPI_Comm_compare(inter, inter, &cmp));
    CHECK(cmp == MPI_IDENT);
    CHECK_RC(MPI_Comm_compare(inter, local, &cmp));
    CHECK(cmp == MPI_UNEQUAL);
    check_p2p(dup, theirs, rsize);
    check_split(dup, mine, lsize, theirs, rsize);
    check_create(inter, mine, lsize, theirs, rsize);
    check_refusals(dup);
    CHECK_RC(MPI_Comm_free(&dup));
    CHECK_RC(MPI_Comm_free(&inter));
    CHECK(inter == MPI_COMM_NULL);
    CHECK_RC(MPI_Comm_free(&local));
}

static void check_errors(void)
{
    MPI_Comm bad;
    int x;
    MPI_Group wg;
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
#ifdef IBEX_MPI_H /* the standard names these classes without requiring the checks */
    CHECK(ecls(MPI_Comm_remote_size(MPI_COMM_WORLD, &x)) == MPI_ERR_COMM);
    CHECK(ecls(MPI_Comm_remote_group(MPI_COMM_WORLD, &wg)) == MPI_ERR_COMM);
    CHECK(ecls(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &bad)) == MPI_ERR_COMM);
    CHECK(ecls(MPI_Intercomm_create(MPI_COMM_SELF, 1, MPI_COMM_WORLD, 0, 1, &bad)) == MPI_ERR_RANK);
    CHECK(ecls(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, wsize, 1, &bad)) ==
          MPI_ERR_RANK);
    CHECK(ecls(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, (wrank + 1) % wsize, -1,
                                    &bad)) == MPI_ERR_TAG);
    CHECK(ecls(MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, 0, 1, &bad)) == MPI_ERR_COMM);
    CHECK(ecls(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 0, 1, NULL)) == MPI_ERR_ARG);
    CHECK(ecls(MPI_Comm_remote_size(MPI_COMM_NULL, &x)) == MPI_ERR_COMM);
    CHECK_RC(MPI_Comm_group(MPI_COMM_SELF, &wg)); /* the two groups overlap */
    CHECK(ecls(MPI_Intercomm_create_from_groups(wg, 0, wg, 0, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                                &bad)) == MPI_ERR_GROUP);
    CHECK_RC(MPI_Group_free(&wg));
#endif
    CHECK(MPI_Comm_test_inter(MPI_COMM_WORLD, &x) == MPI_SUCCESS && x == 0);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

/* Pairs of single processes: MPI_COMM_SELF as local_comm, world as peer (0-1, 2-3, ...). */
static void check_self_pairs(void)
{
    int partner = wrank ^ 1, rs, got = -1;
    if (partner >= wsize)
        return;
    MPI_Comm inter;
    CHECK_RC(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, partner, 5, &inter));
    CHECK_RC(MPI_Comm_remote_size(inter, &rs));
    CHECK(rs == 1);
    CHECK_RC(
        MPI_Sendrecv(&wrank, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE));
    CHECK(got == partner);
    CHECK_RC(MPI_Comm_free(&inter));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(wsize <= 16);
    check_errors();
    if (wsize >= 2) {
        one_layout(0, 0); /* even / odd */
        one_layout(0, 1);
        one_layout(1, 0); /* lower / upper half */
        one_layout(1, 1);
        check_self_pairs();
    }
    mt_barrier(MPI_COMM_WORLD);
    mt_done("inter_basic");
    MPI_Finalize();
    return 0;
}
