/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicator and group additions (standard MPI only): Comm_dup_with_info, Comm_set_info /
 * get_info, Comm_idup / idup_with_info, Comm_create_group (members only, two disjoint groups
 * at once told apart by tag), Group_range_incl / range_excl against lists computed here,
 * Dims_create against an exhaustive reference, Comm_split_type with the hardware types (and
 * HW_UNGUIDED's level given back in its info), Comm_disconnect with inactive persistent
 * requests on the communicator, and the error classes of the new calls.
 */
#include <stdbool.h>

#include "mpitest.h"

static int wrank, wsize;

static int ecls(int rc)
{
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}

static bool info_has(MPI_Info info, const char *key, const char *value)
{
    char buf[MPI_MAX_INFO_VAL + 1];
    int flag = 0, len = sizeof(buf);
    CHECK_RC(MPI_Info_get_string(info, key, &len, buf, &flag));
    return flag && strcmp(buf, value) == 0;
}

static void check_info(void)
{
    MPI_Info in, used;
    MPI_Comm a, b, c;
    CHECK_RC(MPI_Info_create(&in));
    CHECK_RC(MPI_Info_set(in, "mpi_assert_no_any_tag", "true"));
    CHECK_RC(MPI_Comm_dup_with_info(MPI_COMM_WORLD, in, &a));
    CHECK_RC(MPI_Info_free(&in));
    int sum = 0, one = 1;
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, a)); /* a works */
    CHECK(sum == wsize);
    CHECK_RC(MPI_Comm_get_info(a, &used));
    CHECK(info_has(used, "mpi_assert_no_any_tag", "true"));
    CHECK(!info_has(used, "ibex_ignored_key", "x")); /* ignored hints are not given back */
    CHECK_RC(MPI_Info_free(&used));
    CHECK_RC(MPI_Info_create(&in));
    CHECK_RC(MPI_Info_set(in, "mpi_assert_exact_length", "true"));
    CHECK_RC(MPI_Comm_set_info(a, in));
    CHECK_RC(MPI_Info_free(&in));
    CHECK_RC(MPI_Comm_dup(a, &b)); /* Comm_dup keeps the hints */
    CHECK_RC(MPI_Comm_get_info(b, &used));
#ifdef IBEX_MPI_H
    /* MPI 4.1 7.4.2: Comm_dup copies the hints (MPICH 4.0 does not); Comm_set_info may
     * ignore creation-time hints, Ibex keeps them */
    CHECK(info_has(used, "mpi_assert_exact_length", "true"));
    CHECK(info_has(used, "mpi_assert_no_any_tag", "true"));
#endif
    CHECK_RC(MPI_Info_free(&used));
    CHECK_RC(MPI_Comm_dup_with_info(b, MPI_INFO_NULL, &c)); /* the given hints instead */
    CHECK_RC(MPI_Comm_get_info(c, &used));
    CHECK(!info_has(used, "mpi_assert_exact_length", "true"));
    CHECK_RC(MPI_Info_free(&used));
    CHECK_RC(MPI_Comm_free(&a));
    CHECK_RC(MPI_Comm_free(&b));
    CHECK_RC(MPI_Comm_free(&c));
}

static void check_idup(void)
{
    MPI_Comm d[2];
    MPI_Request r[2];
    MPI_Info in;
    CHECK_RC(MPI_Info_create(&in));
    CHECK_RC(MPI_Info_set(in, "mpi_assert_allow_overtaking", "true"));
    CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &d[0], &r[0]));
    CHECK_RC(MPI_Comm_idup_with_info(MPI_COMM_WORLD, in, &d[1], &r[1]));
    CHECK_RC(MPI_Info_free(&in));
    CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 2; i++) {
        int res, x = wrank, sum = 0;
        CHECK_RC(MPI_Comm_compare(MPI_COMM_WORLD, d[i], &res));
        CHECK(res == MPI_CONGRUENT);
        CHECK_RC(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, d[i]));
        CHECK(sum == wsize * (wsize - 1) / 2);
    }
    MPI_Info used;
    CHECK_RC(MPI_Comm_get_info(d[1], &used));
    CHECK(info_has(used, "mpi_assert_allow_overtaking", "true"));
    CHECK_RC(MPI_Info_free(&used));
    CHECK_RC(MPI_Comm_free(&d[0]));
    /* Comm_disconnect waits for what is still pending on the communicator, then frees it */
    int right = (wrank + 1) % wsize, left = (wrank + wsize - 1) % wsize, v = wrank, got = -1;
    MPI_Request s;
    CHECK_RC(MPI_Irecv(&got, 1, MPI_INT, left, 5, d[1], &r[0]));
    CHECK_RC(MPI_Isend(&v, 1, MPI_INT, right, 5, d[1], &s));
    CHECK_RC(MPI_Request_free(&s));
    CHECK_RC(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK(got == left);
    CHECK_RC(MPI_Comm_disconnect(&d[1]));
    CHECK(d[1] == MPI_COMM_NULL);
}

/* Even and odd world ranks each build their own communicator with Comm_create_group, at the
 * same time, with different tags; then the group of world ranks 0 and the last. */
static void check_create_group(void)
{
    MPI_Group wg, g;
    MPI_Comm c;
    int ranks[64], n = 0;
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    for (int r = wrank % 2; r < wsize; r += 2)
        ranks[n++] = r;
    CHECK_RC(MPI_Group_incl(wg, n, ranks, &g));
    CHECK_RC(MPI_Comm_create_group(MPI_COMM_WORLD, g, 10 + wrank % 2, &c));
    int size, rank, sum = 0;
    CHECK_RC(MPI_Comm_size(c, &size));
    CHECK_RC(MPI_Comm_rank(c, &rank));
    CHECK(size == n && rank == wrank / 2);
    CHECK_RC(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, c));
    int expect = 0;
    for (int i = 0; i < n; i++)
        expect += ranks[i];
    CHECK(sum == expect);
    CHECK_RC(MPI_Comm_free(&c));
    CHECK_RC(MPI_Group_free(&g));
    if (wrank == 0 || wrank == wsize - 1) {
        int two[2] = {0, wsize - 1};
        CHECK_RC(MPI_Group_incl(wg, wsize > 1 ? 2 : 1, two, &g));
        CHECK_RC(MPI_Comm_create_group(MPI_COMM_WORLD, g, 3, &c));
        CHECK_RC(MPI_Comm_size(c, &size));
        CHECK(size == (wsize > 1 ? 2 : 1));
        CHECK_RC(MPI_Barrier(c));
        CHECK_RC(MPI_Comm_free(&c));
        CHECK_RC(MPI_Group_free(&g));
    }
    CHECK_RC(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, 4, &c));
    CHECK(c == MPI_COMM_NULL);
    CHECK_RC(MPI_Group_free(&wg));
}

/* The world ranks of group g, through translate_ranks. */
static void group_world(MPI_Group g, int *out, int *n_p)
{
    MPI_Group wg;
    int idx[64];
    CHECK_RC(MPI_Group_size(g, n_p));
    for (int i = 0; i < *n_p; i++)
        idx[i] = i;
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    CHECK_RC(MPI_Group_translate_ranks(g, *n_p, idx, wg, out));
    CHECK_RC(MPI_Group_free(&wg));
}

static void check_ranges(void)
{
    MPI_Group wg, g;
    int got[64], n, expect[64], m = 0;
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    /* (last, 0, -2), then (last - 1, 0, -4): the other parity, so no rank twice */
    int ranges[2][3] = {{wsize - 1, 0, -2}, {wsize - 2, 0, -4}}, nr = wsize >= 2 ? 2 : 1;
    for (int r = wsize - 1; r >= 0; r -= 2)
        expect[m++] = r;
    for (int r = wsize - 2; nr == 2 && r >= 0; r -= 4)
        expect[m++] = r;
    CHECK_RC(MPI_Group_range_incl(wg, nr, ranges, &g));
    group_world(g, got, &n);
    CHECK(n == m);
    for (int i = 0; i < n; i++)
        CHECK(got[i] == expect[i]);
    CHECK_RC(MPI_Group_free(&g));
    CHECK_RC(MPI_Group_range_excl(wg, nr, ranges, &g));
    group_world(g, got, &n);
    CHECK(n == wsize - m);
    for (int i = 0, j = 0; i < wsize; i++) {
        bool in = false;
        for (int k = 0; k < m; k++)
            in = in || expect[k] == i;
        if (!in)
            CHECK(got[j++] == i);
    }
    CHECK_RC(MPI_Group_free(&g));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int zero[1][3] = {{0, 0, 0}}, out[1][3] = {{0, wsize, 1}}, dup[2][3] = {{0, 0, 1}, {0, 0, 1}};
#ifdef IBEX_MPI_H /* the standard names no class for these */
    CHECK(ecls(MPI_Group_range_incl(wg, 1, zero, &g)) == MPI_ERR_ARG);
    CHECK(ecls(MPI_Group_range_incl(wg, 1, out, &g)) == MPI_ERR_RANK);
    CHECK(ecls(MPI_Group_range_excl(wg, 2, dup, &g)) == MPI_ERR_RANK);
#endif
    CHECK(ecls(MPI_Group_range_incl(MPI_GROUP_NULL, 1, dup, &g)) == MPI_ERR_GROUP);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_RC(MPI_Group_free(&wg));
}

/* Smallest spread (largest - smallest) of k factors with product n, by brute force. */
static int best_spread(int n, int k, int max, int top)
{
    if (k == 1)
        return n <= max ? (top < 0 ? 0 : top - n) : -1;
    int best = -1;
    for (int d = max; d >= 1; d--)
        if (n % d == 0) {
            int s = best_spread(n / d, k - 1, d, top < 0 ? d : top);
            if (s >= 0 && (best < 0 || s < best))
                best = s;
        }
    return best;
}

static void check_dims_one(int nnodes, int ndims, const int *preset)
{
    int dims[8], prod = 1, k = 0, rest = nnodes, lo = 1 << 30, hi = 0;
    for (int i = 0; i < ndims; i++)
        dims[i] = preset[i];
    CHECK_RC(MPI_Dims_create(nnodes, ndims, dims));
    for (int i = 0; i < ndims; i++) {
        prod *= dims[i];
        if (preset[i] != 0) {
            CHECK(dims[i] == preset[i]);
            rest /= preset[i];
            continue;
        }
        k++;
        lo = dims[i] < lo ? dims[i] : lo;
        hi = dims[i] > hi ? dims[i] : hi;
    }
    CHECK(prod == nnodes);
    int last = 1 << 30; /* the filled entries do not increase */
    for (int i = 0; i < ndims; i++)
        if (preset[i] == 0) {
            CHECK(dims[i] <= last);
            last = dims[i];
        }
    if (k > 0)
        CHECK(hi - lo == best_spread(rest, k, rest, -1));
}

static void check_dims(void)
{
    int z[8] = {0}, d[3];
    for (int n = 1; n <= 64; n++)
        for (int nd = 1; nd <= 4; nd++)
            check_dims_one(n, nd, z);
    int p1[3] = {0, 3, 0}, p2[2] = {2, 0};
    check_dims_one(12, 3, p1);
    check_dims_one(30, 2, p2);
    check_dims_one(360, 3, z);
    check_dims_one(1000, 3, z);
    d[0] = d[1] = 0;
    CHECK_RC(MPI_Dims_create(6, 2, d));
    CHECK(d[0] == 3 && d[1] == 2);
    d[0] = d[1] = d[2] = 0;
    CHECK_RC(MPI_Dims_create(24, 3, d));
    CHECK(d[0] == 4 && d[1] == 3 && d[2] == 2);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    d[0] = 4, d[1] = 0;
    CHECK(ecls(MPI_Dims_create(6, 2, d)) == MPI_ERR_DIMS);
    d[0] = -1, d[1] = 0;
    CHECK(ecls(MPI_Dims_create(6, 2, d)) == MPI_ERR_DIMS);
#ifdef IBEX_MPI_H
    CHECK(ecls(MPI_Dims_create(6, -1, d)) == MPI_ERR_DIMS); /* MPICH: MPI_ERR_ARG */
#endif
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

static void check_errors(void)
{
    MPI_Comm c;
    MPI_Request r;
    MPI_Group wg;
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    CHECK(ecls(MPI_Comm_create_group(MPI_COMM_WORLD, wg, -1, &c)) == MPI_ERR_TAG);
    CHECK(ecls(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 0, &c)) == MPI_ERR_GROUP);
    CHECK(MPI_Comm_set_info(MPI_COMM_WORLD, MPI_INFO_NULL) != MPI_SUCCESS);
    CHECK(ecls(MPI_Comm_get_info(MPI_COMM_NULL, NULL)) == MPI_ERR_COMM);
    CHECK(ecls(MPI_Comm_idup(MPI_COMM_NULL, &c, &r)) == MPI_ERR_COMM);
    CHECK(ecls(MPI_Comm_dup_with_info(MPI_COMM_NULL, MPI_INFO_NULL, &c)) == MPI_ERR_COMM);
#ifdef IBEX_MPI_H /* NULL outputs: the standard does not name a class */
    CHECK(ecls(MPI_Comm_set_info(MPI_COMM_WORLD, MPI_INFO_NULL)) == MPI_ERR_INFO);
    CHECK(ecls(MPI_Comm_idup(MPI_COMM_WORLD, &c, NULL)) == MPI_ERR_ARG);
    CHECK(ecls(MPI_Comm_get_info(MPI_COMM_WORLD, NULL)) == MPI_ERR_ARG);
#endif
    CHECK_RC(MPI_Group_free(&wg));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

/* Split by a hardware level: every process in a result shares the node, and the type without
 * a hint or an unknown one gives MPI_COMM_NULL. */
static void check_split_type(void)
{
    MPI_Info in;
    MPI_Comm c;
    int size, sum = 0, one = 1;
    CHECK_RC(MPI_Info_create(&in));
    CHECK_RC(MPI_Info_set(in, "mpi_hw_resource_type", "mpi_shared_memory"));
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, wrank, in, &c));
    CHECK(c != MPI_COMM_NULL);
    CHECK_RC(MPI_Comm_size(c, &size));
    CHECK(size == wsize); /* one node here */
    CHECK_RC(MPI_Comm_free(&c));
    CHECK_RC(MPI_Info_set(in, "mpi_hw_resource_type", "no_such_level"));
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, in, &c));
    CHECK(c == MPI_COMM_NULL);
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL);
    CHECK_RC(MPI_Info_set(in, "mpi_hw_resource_type", "Core"));
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, in, &c));
    if (c != MPI_COMM_NULL) { /* bound to one core: those sharing it */
        CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK_RC(MPI_Comm_size(c, &size));
        CHECK(sum == size && size <= wsize);
        CHECK_RC(MPI_Comm_free(&c));
    }
    CHECK_RC(MPI_Info_free(&in));
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &c));
    if (c != MPI_COMM_NULL) { /* a strict subset of the world */
        CHECK_RC(MPI_Comm_size(c, &size));
        CHECK(size < wsize);
        CHECK_RC(MPI_Comm_free(&c));
    }
    /* with an info: the level used comes back in it, as in the new communicator's hints */
    CHECK_RC(MPI_Info_create(&in));
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, in, &c));
    if (c != MPI_COMM_NULL) {
        char got[MPI_MAX_INFO_VAL + 1] = "";
        int flag = 0, len = MPI_MAX_INFO_VAL;
        MPI_Info hints;
        CHECK_RC(MPI_Info_get_string(in, "mpi_hw_resource_type", &len, got, &flag));
        CHECK(flag && got[0]);
        CHECK_RC(MPI_Comm_get_info(c, &hints));
        CHECK(info_has(hints, "mpi_hw_resource_type", got));
        CHECK_RC(MPI_Info_free(&hints));
        CHECK_RC(MPI_Comm_free(&c));
    }
    CHECK_RC(MPI_Info_free(&in));
}

/* MPI_Comm_disconnect waits for pending communication only: inactive persistent requests on
 * the communicator (never started, or started and completed) do not hold it up. */
static void check_disconnect(void)
{
    MPI_Comm c;
    MPI_Request r[4];
    int to = (wrank + 1) % wsize, from = (wrank + wsize - 1) % wsize, x = wrank, y = -1;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_RC(MPI_Send_init(&x, 1, MPI_INT, to, 4, c, &r[0]));
    CHECK_RC(MPI_Recv_init(&y, 1, MPI_INT, from, 4, c, &r[1]));
    CHECK_RC(MPI_Startall(2, r));
    CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(y == from);
    CHECK_RC(MPI_Recv_init(&y, 1, MPI_INT, from, 5, c, &r[2]));
    CHECK_RC(MPI_Barrier_init(c, MPI_INFO_NULL, &r[3]));
    CHECK_RC(MPI_Comm_disconnect(&c));
    CHECK(c == MPI_COMM_NULL);
    for (int i = 0; i < 4; i++)
        CHECK_RC(MPI_Request_free(&r[i]));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(wsize <= 64);
    check_info();
    check_idup();
    check_create_group();
    check_ranges();
    check_dims();
    check_errors();
    check_split_type();
    check_disconnect();
    mt_barrier(MPI_COMM_WORLD);
    mt_done("comm_more");
    MPI_Finalize();
    return 0;
}
