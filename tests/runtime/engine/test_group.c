/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of runtime/engine/group.c and group_api.c in one process of a fake 8-rank job (world
 * rank 3): incl / excl ordering and my_rank, translate_ranks with MPI_PROC_NULL and absent
 * ranks, compare, the set operations and their order, MPI_GROUP_EMPTY, reference counting
 * of handles, and error classes (out-of-range and duplicate ranks, bad handles).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "comm_impl.h"
#include "ibex_err.h"
#include "ibex_runtime.h"

ibex_runtime_t ibex_rt;
static int last_error;

int ibex_check_initialized(const char *call)
{
    return MPI_SUCCESS;
}

int ibex_mpi_error(struct ibex_comm *comm, int errclass, const char *call, const char *fmt, ...)
{
    last_error = errclass;
    return errclass;
}

static MPI_Group world;

static int setup(void **state)
{
    ibex_rt.boot.rank = 3;
    ibex_rt.boot.size = 8;
    ibex_group_init();
    int ranks[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    ibex_group_t *g = ibex_group_from_world(ranks, 8);
    world = ibex_group_handle_new(g);
    ibex_group_release(g);
    return 0;
}

static int teardown(void **state)
{
    assert_int_equal(PMPI_Group_free(&world), MPI_SUCCESS);
    ibex_group_fini();
    return 0;
}

static void assert_members(MPI_Group h, int n, const int *want)
{
    ibex_group_t *g = ibex_group_get(h);
    assert_non_null(g);
    assert_int_equal(g->size, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(g->world_ranks[i], want[i]);
}

static void test_incl_excl(void **state)
{
    MPI_Group a, b;
    int rank;
    assert_int_equal(PMPI_Group_incl(world, 3, (int[]){6, 3, 1}, &a), MPI_SUCCESS);
    assert_members(a, 3, (int[]){6, 3, 1});
    assert_int_equal(PMPI_Group_rank(a, &rank), MPI_SUCCESS);
    assert_int_equal(rank, 1);
    assert_int_equal(PMPI_Group_excl(a, 1, (int[]){1}, &b), MPI_SUCCESS);
    assert_members(b, 2, (int[]){6, 1});
    assert_int_equal(PMPI_Group_rank(b, &rank), MPI_SUCCESS);
    assert_int_equal(rank, MPI_UNDEFINED);
    assert_int_equal(PMPI_Group_free(&a), MPI_SUCCESS);
    assert_int_equal(PMPI_Group_free(&b), MPI_SUCCESS);
    assert_int_equal(a, MPI_GROUP_NULL);
    assert_int_equal(PMPI_Group_incl(world, 0, NULL, &a), MPI_SUCCESS);
    assert_int_equal(a, MPI_GROUP_EMPTY);
    assert_int_equal(PMPI_Group_excl(world, 8, (int[]){7, 6, 5, 4, 3, 2, 1, 0}, &b), MPI_SUCCESS);
    assert_int_equal(b, MPI_GROUP_EMPTY);
    assert_int_equal(PMPI_Group_free(&a), MPI_SUCCESS);
    assert_int_equal(a, MPI_GROUP_NULL);
}

static void test_rank_errors(void **state)
{
    MPI_Group a = MPI_GROUP_NULL;
    assert_int_equal(PMPI_Group_incl(world, 2, (int[]){1, 8}, &a), MPI_ERR_RANK);
    assert_int_equal(PMPI_Group_incl(world, 2, (int[]){-1, 2}, &a), MPI_ERR_RANK);
    assert_int_equal(PMPI_Group_incl(world, 3, (int[]){1, 2, 1}, &a), MPI_ERR_RANK);
    assert_int_equal(PMPI_Group_excl(world, 2, (int[]){4, 4}, &a), MPI_ERR_RANK);
    assert_int_equal(PMPI_Group_incl(world, -1, (int[]){0}, &a), MPI_ERR_ARG);
    assert_int_equal(PMPI_Group_incl(world, 9, (int[9]){0}, &a), MPI_ERR_ARG);
    assert_int_equal(a, MPI_GROUP_NULL); /* output untouched on error */
    int n;
    assert_int_equal(PMPI_Group_size(MPI_GROUP_NULL, &n), MPI_ERR_GROUP);
    assert_int_equal(PMPI_Group_size(MPI_COMM_WORLD, &n), MPI_ERR_GROUP);
    assert_int_equal(PMPI_Group_size(world + 1000, &n), MPI_ERR_GROUP);
    MPI_Group null = MPI_GROUP_NULL;
    assert_int_equal(PMPI_Group_free(&null), MPI_ERR_GROUP);
    int out[1];
    assert_int_equal(PMPI_Group_translate_ranks(world, 1, (int[]){8}, world, out), MPI_ERR_RANK);
    assert_int_equal(last_error, MPI_ERR_RANK);
}

static void test_translate_compare(void **state)
{
    MPI_Group rev, part;
    int r8[8], out[8], cmp;
    for (int i = 0; i < 8; i++)
        r8[i] = 7 - i;
    assert_int_equal(PMPI_Group_incl(world, 8, r8, &rev), MPI_SUCCESS);
    assert_int_equal(PMPI_Group_incl(world, 2, (int[]){5, 2}, &part), MPI_SUCCESS);
    assert_int_equal(PMPI_Group_translate_ranks(part, 2, (int[]){0, 1}, rev, out), MPI_SUCCESS);
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], 5);
    assert_int_equal(PMPI_Group_translate_ranks(world, 3, (int[]){MPI_PROC_NULL, 5, 0}, part, out),
                     MPI_SUCCESS);
    assert_int_equal(out[0], MPI_PROC_NULL);
    assert_int_equal(out[1], 0);
    assert_int_equal(out[2], MPI_UNDEFINED);
    assert_int_equal(PMPI_Group_compare(world, world, &cmp), MPI_SUCCESS);
    assert_int_equal(cmp, MPI_IDENT);
    assert_int_equal(PMPI_Group_compare(world, rev, &cmp), MPI_SUCCESS);
    assert_int_equal(cmp, MPI_SIMILAR);
    assert_int_equal(PMPI_Group_compare(world, part, &cmp), MPI_SUCCESS);
    assert_int_equal(cmp, MPI_UNEQUAL);
    assert_int_equal(PMPI_Group_compare(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY, &cmp), MPI_SUCCESS);
    assert_int_equal(cmp, MPI_IDENT);
    assert_int_equal(PMPI_Group_free(&rev), MPI_SUCCESS);
    assert_int_equal(PMPI_Group_free(&part), MPI_SUCCESS);
}

static void test_set_ops(void **state)
{
    MPI_Group a, b, u, i, d, e;
    assert_int_equal(PMPI_Group_incl(world, 4, (int[]){5, 1, 3, 7}, &a), MPI_SUCCESS);
    assert_int_equal(PMPI_Group_incl(world, 4, (int[]){2, 3, 6, 5}, &b), MPI_SUCCESS);
    assert_int_equal(PMPI_Group_union(a, b, &u), MPI_SUCCESS);
    assert_members(u, 6, (int[]){5, 1, 3, 7, 2, 6}); /* a's order, then b's others */
    assert_int_equal(PMPI_Group_intersection(a, b, &i), MPI_SUCCESS);
    assert_members(i, 2, (int[]){5, 3}); /* a's order */
    assert_int_equal(PMPI_Group_difference(a, b, &d), MPI_SUCCESS);
    assert_members(d, 2, (int[]){1, 7});
    int rank;
    assert_int_equal(PMPI_Group_rank(i, &rank), MPI_SUCCESS);
    assert_int_equal(rank, 1);
    assert_int_equal(PMPI_Group_rank(d, &rank), MPI_SUCCESS);
    assert_int_equal(rank, MPI_UNDEFINED);
    assert_int_equal(PMPI_Group_difference(i, a, &e), MPI_SUCCESS);
    assert_int_equal(e, MPI_GROUP_EMPTY);
    MPI_Group *all[] = {&a, &b, &u, &i, &d, &e};
    for (int k = 0; k < 6; k++)
        assert_int_equal(PMPI_Group_free(all[k]), MPI_SUCCESS);
}

/* A group handed out twice (as Comm_group does) stays valid until both are freed. */
static void test_refcount(void **state)
{
    ibex_group_t *g = ibex_group_from_world((int[]){4, 3}, 2);
    MPI_Group h1 = ibex_group_handle_new(g), h2 = ibex_group_handle_new(g);
    assert_int_equal(h1, h2);
    assert_int_equal(g->refcount, 3);
    assert_int_equal(PMPI_Group_free(&h1), MPI_SUCCESS);
    assert_ptr_equal(ibex_group_get(h2), g);
    ibex_group_release(g); /* the "communicator's" reference */
    assert_ptr_equal(ibex_group_get(h2), g);
    MPI_Group h = h2;
    assert_int_equal(PMPI_Group_free(&h2), MPI_SUCCESS);
    assert_null(ibex_group_get(h));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_incl_excl),         cmocka_unit_test(test_rank_errors),
        cmocka_unit_test(test_translate_compare), cmocka_unit_test(test_set_ops),
        cmocka_unit_test(test_refcount),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
