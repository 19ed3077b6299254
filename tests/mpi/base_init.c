/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI start-up and environment calls (runtime/mpi/init.c, misc.c): thread level, flags, versions,
 * timers, processor name, Alloc_mem, address arithmetic. Every rank prints "base_init: ok"
 * when all checks pass; any failure prints the check and exits 1.
 * Usage: base_init [single|funneled|serialized|multiple]   (the level to request)
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "base_init: check failed at line %d: %s\n", __LINE__, #cond);          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static int level_of(const char *name)
{
    static const char *names[] = {"single", "funneled", "serialized", "multiple"};
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

static void *thread_main(void *arg)
{
    int flag = -1;
    MPI_Is_thread_main(&flag);
    *(int *)arg = flag;
    return NULL;
}

static void check_before_init(void)
{
    int flag = -1, v = 0, sv = -1, len = 0;
    char str[MPI_MAX_LIBRARY_VERSION_STRING];
    CHECK(MPI_Initialized(&flag) == MPI_SUCCESS && flag == 0);
    CHECK(MPI_Finalized(&flag) == MPI_SUCCESS && flag == 0);
    /* callable before MPI_Init */
    CHECK(MPI_Get_version(&v, &sv) == MPI_SUCCESS && v == MPI_VERSION && sv == MPI_SUBVERSION);
    CHECK(MPI_Get_library_version(str, &len) == MPI_SUCCESS);
    CHECK(strncmp(str, "Ibex 0.1.0 (MPI 4.1 subset)", 27) == 0 && len == (int)strlen(str));
    CHECK(MPI_Error_string(MPI_ERR_TAG, str, &len) == MPI_SUCCESS);
    CHECK(strcmp(str, "MPI_ERR_TAG: invalid tag") == 0);
}

static void check_threads(int required, int provided)
{
    int q = -1, flag = -1, other = -1;
    int want = required < MPI_THREAD_MULTIPLE ? required : MPI_THREAD_MULTIPLE;
    CHECK(provided == want);
    CHECK(MPI_Query_thread(&q) == MPI_SUCCESS && q == provided);
    CHECK(MPI_Is_thread_main(&flag) == MPI_SUCCESS && flag == 1);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, thread_main, &other) == 0);
    pthread_join(t, NULL);
    CHECK(other == 0);
}

static void check_environment(void)
{
    int rank, size, len = 0;
    char name[MPI_MAX_PROCESSOR_NAME], host[256] = "";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(rank >= 0 && rank < size);
    CHECK(MPI_Get_processor_name(name, &len) == MPI_SUCCESS && len > 0);
    CHECK(len == (int)strlen(name));
    gethostname(host, sizeof(host) - 1);
    CHECK(strcmp(name, host) == 0);
    double t0 = MPI_Wtime(), tick = MPI_Wtick();
    CHECK(tick > 0 && tick < 0.01);
    usleep(20000);
    double dt = MPI_Wtime() - t0;
    CHECK(dt >= 0.019 && dt < 5.0);
    MPI_Errhandler eh;
    CHECK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh) == MPI_SUCCESS);
    CHECK(eh == MPI_ERRORS_ARE_FATAL);
}

static void check_memory(void)
{
    char *mem = NULL;
    CHECK(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &mem) == MPI_SUCCESS && mem != NULL);
    memset(mem, 0x5a, 1 << 20);
    CHECK(mem[12345] == 0x5a);
    CHECK(MPI_Free_mem(mem) == MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Alloc_mem(-1, MPI_INFO_NULL, &mem) == MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    int a[4];
    MPI_Aint p0, p3;
    CHECK(MPI_Get_address(&a[0], &p0) == MPI_SUCCESS);
    CHECK(MPI_Get_address(&a[3], &p3) == MPI_SUCCESS);
    CHECK(MPI_Aint_diff(p3, p0) == 3 * (MPI_Aint)sizeof(int));
    CHECK(MPI_Aint_add(p0, 3 * sizeof(int)) == p3);
}

int main(int argc, char **argv)
{
    int required = argc > 1 ? level_of(argv[1]) : MPI_THREAD_MULTIPLE;
    int provided = -1, flag = -1, rank;
    CHECK(required >= 0);
    check_before_init();
    CHECK(MPI_Init_thread(&argc, &argv, required, &provided) == MPI_SUCCESS);
    CHECK(MPI_Initialized(&flag) == MPI_SUCCESS && flag == 1);
    CHECK(MPI_Finalized(&flag) == MPI_SUCCESS && flag == 0);
    check_threads(required, provided);
    check_environment();
    check_memory();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(MPI_Finalize() == MPI_SUCCESS);
    CHECK(MPI_Initialized(&flag) == MPI_SUCCESS && flag == 1);
    CHECK(MPI_Finalized(&flag) == MPI_SUCCESS && flag == 1);
    printf("base_init: ok rank %d provided %d\n", rank, provided);
    return 0;
}
