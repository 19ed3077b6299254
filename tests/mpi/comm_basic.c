/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicators and groups at the MPI level (runtime/comm*.c, group*.c): rank / size, dup,
 * compare, names, attributes, Comm_group and every group operation, Comm_create, Comm_free of
 * predefined communicators, and error classes under MPI_ERRORS_RETURN. Any rank count >= 1.
 * Prints "comm_basic: ok" on rank 0.
 */
#include <string.h>
#include <unistd.h>

#include "comm_check.h"

static int rank, size;

static void check_attrs(void)
{
    int *val, flag = 0;
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag));
    CHECK(flag == 1 && *val >= 32767 && *val == 1073741823);
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &val, &flag));
    CHECK(flag == 1 && *val == MPI_PROC_NULL);
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &val, &flag));
    CHECK(flag == 1 && (*val == MPI_ANY_SOURCE || (*val >= 0 && *val < size)));
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &val, &flag));
    CHECK(flag == 1 && (*val == 0 || *val == 1));
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &val, &flag));
    CHECK(flag == 1 && *val >= size);
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_SELF, MPI_APPNUM, &val, &flag));
    CHECK(flag == 1 && *val == 0);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, 12345, &val, &flag) == MPI_ERR_KEYVAL);
    int inter = -1;
    CHECK_OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &inter));
    CHECK(inter == 0);
}

static void check_names_and_dup(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len, cmp;
    CHECK_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14);
    CHECK_OK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0);
    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_get_name(dup, name, &len));
    CHECK(len == 0 && name[0] == '\0'); /* names are not copied by Comm_dup */
    CHECK_OK(MPI_Comm_set_name(dup, "my dup"));
    CHECK_OK(MPI_Comm_get_name(dup, name, &len));
    CHECK(strcmp(name, "my dup") == 0 && len == 6);
    int r, s;
    CHECK_OK(MPI_Comm_rank(dup, &r));
    CHECK_OK(MPI_Comm_size(dup, &s));
    CHECK(r == rank && s == size);
    CHECK_OK(MPI_Comm_compare(dup, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_CONGRUENT);
    CHECK_OK(MPI_Comm_compare(dup, dup, &cmp));
    CHECK(cmp == MPI_IDENT);
    CHECK_OK(MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL));
    /* the error handler is inherited */
    MPI_Errhandler eh;
    CHECK_OK(MPI_Comm_get_errhandler(dup, &eh));
    CHECK(eh == MPI_ERRORS_RETURN);
    CHECK_OK(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL);
}

static void check_groups(void)
{
    MPI_Group world, self, rev, odd, uni, inter, diff;
    int n, r, cmp;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    CHECK_OK(MPI_Comm_group(MPI_COMM_SELF, &self));
    CHECK_OK(MPI_Group_size(world, &n));
    CHECK_OK(MPI_Group_rank(world, &r));
    CHECK(n == size && r == rank);
    int *ranks = malloc(sizeof(int) * (size_t)size), *out = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        ranks[i] = size - 1 - i;
    CHECK_OK(MPI_Group_incl(world, size, ranks, &rev));
    CHECK_OK(MPI_Group_rank(rev, &r));
    CHECK(r == size - 1 - rank);
    CHECK_OK(MPI_Group_compare(world, rev, &cmp));
    CHECK(cmp == (size == 1 ? MPI_IDENT : MPI_SIMILAR));
    CHECK_OK(MPI_Group_translate_ranks(rev, size, ranks, world, out));
    for (int i = 0; i < size; i++)
        CHECK(out[i] == ranks[ranks[i]]);
    /* odd ranks of world: excl the even ones */
    int neven = (size + 1) / 2;
    for (int i = 0; i < neven; i++)
        ranks[i] = 2 * i;
    CHECK_OK(MPI_Group_excl(world, neven, ranks, &odd));
    CHECK_OK(MPI_Group_size(odd, &n));
    CHECK(n == size / 2);
    CHECK_OK(MPI_Group_rank(odd, &r));
    CHECK(r == (rank % 2 ? rank / 2 : MPI_UNDEFINED));
    ranks[0] = 0;
    ranks[1] = MPI_PROC_NULL;
    CHECK_OK(MPI_Group_translate_ranks(world, 2, ranks, odd, out));
    CHECK(out[0] == MPI_UNDEFINED && out[1] == MPI_PROC_NULL);
    CHECK_OK(MPI_Group_union(odd, self, &uni));
    CHECK_OK(MPI_Group_size(uni, &n));
    CHECK(n == size / 2 + (rank % 2 == 0));
    CHECK_OK(MPI_Group_intersection(world, odd, &inter));
    CHECK_OK(MPI_Group_compare(inter, odd, &cmp));
    CHECK(cmp == MPI_IDENT);
    CHECK_OK(MPI_Group_difference(world, odd, &diff));
    CHECK_OK(MPI_Group_size(diff, &n));
    CHECK(n == neven);
    MPI_Group empty;
    CHECK_OK(MPI_Group_difference(odd, world, &empty));
    CHECK(empty == MPI_GROUP_EMPTY);
    CHECK_OK(MPI_Group_size(MPI_GROUP_EMPTY, &n));
    CHECK(n == 0);
    CHECK_OK(MPI_Group_rank(MPI_GROUP_EMPTY, &r));
    CHECK(r == MPI_UNDEFINED);
    CHECK_OK(MPI_Group_free(&empty));
    /* errors */
    ranks[0] = size;
    CHECK(MPI_Group_incl(world, 1, ranks, &empty) == MPI_ERR_RANK);
    ranks[0] = ranks[1] = 0;
    CHECK(MPI_Group_incl(world, 2, ranks, &empty) == MPI_ERR_RANK || size == 1);
    CHECK(MPI_Group_excl(world, 1, (int[]){-1}, &empty) == MPI_ERR_RANK);
    CHECK(MPI_Group_size(MPI_GROUP_NULL, &n) == MPI_ERR_GROUP);
    CHECK(MPI_Group_incl(world, -1, ranks, &empty) == MPI_ERR_ARG);
    MPI_Group *all[] = {&world, &self, &rev, &odd, &uni, &inter, &diff};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        CHECK_OK(MPI_Group_free(all[i]));
        CHECK(*all[i] == MPI_GROUP_NULL);
    }
    free(ranks);
    free(out);
}

/* Comm_create over the even ranks in reverse order: members get a communicator ordered like
 * the group, others MPI_COMM_NULL. */
static void check_create(void)
{
    MPI_Group world, evens;
    MPI_Comm comm;
    int n = (size + 1) / 2, ranks[64];
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    for (int i = 0; i < n; i++)
        ranks[i] = 2 * (n - 1 - i);
    CHECK_OK(MPI_Group_incl(world, n, ranks, &evens));
    CHECK_OK(MPI_Comm_create(MPI_COMM_WORLD, evens, &comm));
    if (rank % 2) {
        CHECK(comm == MPI_COMM_NULL);
    } else {
        int r, s, sum = 0;
        CHECK_OK(MPI_Comm_rank(comm, &r));
        CHECK_OK(MPI_Comm_size(comm, &s));
        CHECK(s == n && r == n - 1 - rank / 2);
        CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
        CHECK(sum == n * (n - 1)); /* 0 + 2 + 4 + ... */
        CHECK_OK(MPI_Comm_free(&comm));
    }
    CHECK_OK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &comm));
    CHECK(comm == MPI_COMM_NULL);
    CHECK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &comm) == MPI_ERR_GROUP);
    /* a group with ranks outside the communicator */
    MPI_Comm half;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, 0, &half));
    CHECK_OK(MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN));
    CHECK(MPI_Comm_create(half, world, &comm) == (size > 1 ? MPI_ERR_GROUP : MPI_SUCCESS));
    if (size == 1)
        CHECK_OK(MPI_Comm_free(&comm));
    CHECK_OK(MPI_Comm_free(&half));
    CHECK_OK(MPI_Group_free(&evens));
    CHECK_OK(MPI_Group_free(&world));
}

static void check_errors(void)
{
    MPI_Comm c = MPI_COMM_WORLD;
    int x;
    CHECK(MPI_Comm_free(&c) == MPI_ERR_COMM);
    c = MPI_COMM_SELF;
    CHECK(MPI_Comm_free(&c) == MPI_ERR_COMM);
    c = MPI_COMM_NULL;
    CHECK(MPI_Comm_free(&c) == MPI_ERR_COMM);
    CHECK(MPI_Comm_rank(MPI_COMM_NULL, &x) == MPI_ERR_COMM);
    CHECK(MPI_Comm_size(12345, &x) == MPI_ERR_COMM);
    CHECK(MPI_Comm_dup(MPI_COMM_NULL, &c) == MPI_ERR_COMM);
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c) == MPI_ERR_ARG);
    CHECK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &x) == MPI_ERR_COMM);
    CHECK(MPI_Comm_set_name(MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);
}

int main(int argc, char **argv)
{
    alarm(60);
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size <= 64);
    check_attrs();
    check_names_and_dup();
    check_groups();
    check_create();
    check_errors();
    CHECK_OK(MPI_Finalize());
    if (rank == 0)
        printf("comm_basic: ok\n");
    return 0;
}
