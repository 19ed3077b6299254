/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Window hints (MPI 4.1 section 12.2.7, and 7.4.4 for communicators): MPI_Win_get_info gives
 * "all hints that are supported by the implementation and have default values specified; any
 * user-supplied hints that were not ignored; any additional hints set by the implementation".
 * A key the implementation ignores is not given back (MPICH 4.0's rma/win_info sets
 * "invalid_test_key" with MPI_Win_set_info and fails when it comes back), neither at creation
 * nor by MPI_Win_set_info, and a value it ignores leaves the value in effect; the standard's
 * window hints come back with the values set (MPICH's win_info asks that too), the defaults
 * when none was set. Communicators follow the same rule (checked beside).
 */
#include <string.h>

#include "mpitest.h"

/* The value of key in the hints of win (NULL: not there); buf holds it. */
static const char *win_hint(MPI_Win win, const char *key, char *buf)
{
    MPI_Info info;
    int flag = 0;
    CHECK_RC(MPI_Win_get_info(win, &info));
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, buf, &flag);
    MPI_Info_free(&info);
    return flag ? buf : NULL;
}

static void hint_is(MPI_Win win, const char *key, const char *want)
{
    char buf[MPI_MAX_INFO_VAL];
    const char *v = win_hint(win, key, buf);
    if (!want ? v != NULL : !v || strcmp(v, want) != 0)
        fprintf(stderr, "win_info: %s is %s, expected %s\n", key, v ? v : "(not set)",
                want ? want : "(not set)");
    CHECK(!want ? v == NULL : v && strcmp(v, want) == 0);
}

static void win_set(MPI_Win win, const char *key, const char *value)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    CHECK_RC(MPI_Win_set_info(win, info));
    MPI_Info_free(&info);
}

static void at_creation(void)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "true");
    MPI_Info_set(info, "accumulate_ops", "same_op");
    MPI_Info_set(info, "invalid_test_key", "true");
    MPI_Info_set(info, "same_size", "perhaps");                 /* not a boolean: ignored */
    MPI_Info_set(info, "alloc_shared_noncontig", "true");       /* only for shared windows */
    MPI_Info_set(info, "mpi_accumulate_granularity", "8");      /* a request Ibex ignores */
    MPI_Info_set(info, "accumulate_ordering", "rar,war,bogus"); /* not a valid list */
    void *base;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &base, &win));
    MPI_Info_free(&info);
    hint_is(win, "no_locks", "true");
    hint_is(win, "accumulate_ops", "same_op");
    hint_is(win, "invalid_test_key", NULL);
    hint_is(win, "same_size", "false");
    hint_is(win, "alloc_shared_noncontig", NULL);
    hint_is(win, "mpi_accumulate_granularity", NULL);
    hint_is(win, "accumulate_ordering", "rar,raw,war,waw");
    MPI_Win_free(&win);
}

/* MPICH's win_info sequence, and the ignored keys and values of MPI_Win_set_info. */
static void by_set_info(void)
{
    void *base;
    MPI_Win win;
    CHECK_RC(
        MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    hint_is(win, "accumulate_ordering", "rar,raw,war,waw");
    hint_is(win, "accumulate_ops", "same_op_no_op");
    /* each step: set key to a value, then the value in effect (NULL: not given back) */
    static const char *const steps[][3] = {
        {"invalid_test_key", "true", NULL},
        {"no_locks", "true", "true"},
        {"no_locks", "false", "false"},
        {"accumulate_ordering", "none", "none"},
        {"accumulate_ordering", "rar,waw", "rar,waw"},
        {"accumulate_ordering", "sometimes", "rar,waw"}, /* ignored: the value in effect stays */
        {"accumulate_ops", "same_op", "same_op"},
        {"accumulate_ops", "any_op", "same_op"},
        {"same_size", "true", "true"},
        {"same_disp_unit", "true", "true"},
        {"alloc_shared_noncontig", "true", NULL}, /* not a shared window */
    };
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        win_set(win, steps[i][0], steps[i][1]);
        hint_is(win, steps[i][0], steps[i][2]);
    }
    MPI_Win_free(&win);
    /* a shared window keeps alloc_shared_noncontig, set at creation or later */
    MPI_Comm shm;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    MPI_Info_set(info, "invalid_test_key", "true");
    CHECK_RC(MPI_Win_allocate_shared(sizeof(int), sizeof(int), info, shm, &base, &win));
    MPI_Info_free(&info);
    hint_is(win, "alloc_shared_noncontig", "true");
    hint_is(win, "invalid_test_key", NULL);
    win_set(win, "alloc_shared_noncontig", "false");
    hint_is(win, "alloc_shared_noncontig", "false");
    MPI_Win_free(&win);
    MPI_Comm_free(&shm);
}

/* Communicators: the same rule (an ignored key is not given back). */
static void comm_hints(void)
{
    MPI_Comm dup;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "invalid_test_key", "true");
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    CHECK_RC(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dup));
    MPI_Info_free(&info);
    CHECK_RC(MPI_Comm_get_info(dup, &info));
    char buf[MPI_MAX_INFO_VAL];
    int flag = 0;
    MPI_Info_get(info, "invalid_test_key", MPI_MAX_INFO_VAL - 1, buf, &flag);
    CHECK(!flag);
    MPI_Info_get(info, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL - 1, buf, &flag);
    CHECK(flag && strcmp(buf, "true") == 0);
    MPI_Info_free(&info);
    MPI_Comm_free(&dup);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    at_creation();
    by_set_info();
    comm_hints();
    mt_done("win_info");
    MPI_Finalize();
    return 0;
}
