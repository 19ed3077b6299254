/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A job across (simulated) hosts (tests/launcher/hosts_sim.sh): every pair of ranks exchanges
 * messages from 0 B to 1 MiB (eager and rendezvous), collectives and one-sided puts and
 * accumulates, each checked against a reference computed here. Then, from Ibex's performance
 * variables (MPI_T), the endpoints made to ranks on other nodes and how many of them went over
 * a node-local transport (shared memory): rank 0 prints
 *   "hosts H offnode_eps E shm_offnode_eps S errors X"
 * where H is the number of distinct processor names, then "rss_kb_max M" (the largest resident
 * set of a rank). With the argument "small", only 8-byte messages and no one-sided (for the
 * start-up measurements of docs/SCALING.md). Exit 1 on any wrong value.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int errors;

static unsigned char pattern(int from, int to, size_t i)
{
    return (unsigned char)(from * 31 + to * 7 + i * 13);
}

static void pairs(int rank, int size, int small)
{
    static const size_t sizes[] = {8, 0, 1, 1000, 65536, 1 << 20};
    unsigned char *sbuf = malloc(1 << 20), *rbuf = malloc(1 << 20);
    for (size_t k = 0; k < (small ? 1 : sizeof(sizes) / sizeof(sizes[0])); k++)
        for (int d = 1; d < size; d++) {
            int to = (rank + d) % size, from = (rank - d + size) % size;
            size_t n = sizes[k];
            for (size_t i = 0; i < n; i++)
                sbuf[i] = pattern(rank, to, i);
            MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, to, (int)k, rbuf, (int)n, MPI_BYTE, from, (int)k,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (size_t i = 0; i < n; i++)
                if (rbuf[i] != pattern(from, rank, i)) {
                    fprintf(stderr, "rank %d: %zu B from %d wrong at %zu\n", rank, n, from, i);
                    errors++;
                    break;
                }
        }
    free(sbuf);
    free(rbuf);
}

static void collectives(int rank, int size)
{
    enum { N = 20000 }; /* past the eager limits */
    int *in = malloc(N * sizeof(int)), *out = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        in[i] = rank * 3 + i;
    MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        if (out[i] != 3 * size * (size - 1) / 2 + size * i) {
            fprintf(stderr, "rank %d: allreduce wrong at %d\n", rank, i);
            errors++;
            break;
        }
    for (int root = 0; root < size; root++) {
        int v = rank == root ? 1000 + root : -1;
        MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD);
        errors += v != 1000 + root;
    }
    int *all = malloc((size_t)size * sizeof(int));
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        errors += all[r] != r;
    MPI_Barrier(MPI_COMM_WORLD);
    free(all);
    free(in);
    free(out);
}

static void onesided(int rank, int size)
{
    int *base;
    MPI_Win win;
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = -1;
    base[1] = 0;
    MPI_Win_fence(0, win);
    int right = (rank + 1) % size, one = 1;
    MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    for (int t = 0; t < size; t++)
        MPI_Accumulate(&one, 1, MPI_INT, t, 1, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    if (base[0] != (rank - 1 + size) % size || base[1] != size) {
        fprintf(stderr, "rank %d: one-sided got %d %d\n", rank, base[0], base[1]);
        errors++;
    }
    MPI_Win_free(&win);
}

/* Ibex performance variables by name, counted from pvar_start (MPI_T counters count from
 * their handle's start); absent ones read 0. */
static MPI_T_pvar_session pv_session;
static MPI_T_pvar_handle pv_handles[2];
static int pv_found[2];
static const char *const pv_names[2] = {"ibex_eps_offnode", "ibex_eps_offnode_cpu_copy"};

static void pvar_start(void)
{
    int n = 0;
    MPI_T_pvar_get_num(&n);
    MPI_T_pvar_session_create(&pv_session);
    for (int i = 0; i < n; i++) {
        char name[128], desc[512];
        int nlen = sizeof(name), dlen = sizeof(desc), verb, cls, bind, ro, cont, atomic, count;
        MPI_Datatype dt;
        MPI_T_enum en;
        MPI_T_pvar_get_info(i, name, &nlen, &verb, &cls, &dt, &en, desc, &dlen, &bind, &ro, &cont,
                            &atomic);
        for (int k = 0; k < 2; k++) {
            if (strcmp(name, pv_names[k]) != 0)
                continue;
            MPI_T_pvar_handle_alloc(pv_session, i, NULL, &pv_handles[k], &count);
            if (!cont)
                MPI_T_pvar_start(pv_session, pv_handles[k]);
            pv_found[k] = 1;
        }
    }
}

static unsigned long long pvar_read(int k)
{
    unsigned long long v = 0;
    if (pv_found[k])
        MPI_T_pvar_read(pv_session, pv_handles[k], &v);
    return v;
}

int main(int argc, char **argv)
{
    int rank, size, provided, len;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pvar_start();
    int small = argc > 1 && strcmp(argv[1], "small") == 0;
    pairs(rank, size, small);
    collectives(rank, size);
    if (!small)
        onesided(rank, size);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long rss = ru.ru_maxrss, rss_max = 0;
    MPI_Reduce(&rss, &rss_max, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    char host[MPI_MAX_PROCESSOR_NAME] = "", *hosts = malloc((size_t)size * MPI_MAX_PROCESSOR_NAME);
    MPI_Get_processor_name(host, &len);
    MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    unsigned long long mine[3] = {pvar_read(0), pvar_read(1), (unsigned long long)errors}, sum[3];
    MPI_Reduce(mine, sum, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int distinct = 0;
        for (int r = 0; r < size; r++) {
            int seen = 0;
            for (int q = 0; q < r; q++)
                seen |= strcmp(hosts + q * MPI_MAX_PROCESSOR_NAME,
                               hosts + r * MPI_MAX_PROCESSOR_NAME) == 0;
            distinct += !seen;
        }
        printf("hosts %d offnode_eps %llu shm_offnode_eps %llu errors %llu\n", distinct, sum[0],
               sum[1], sum[2]);
        printf("rss_kb_max %ld\n", rss_max);
    }
    free(hosts);
    for (int k = 0; k < 2; k++)
        if (pv_found[k])
            MPI_T_pvar_handle_free(pv_session, &pv_handles[k]);
    MPI_T_pvar_session_free(&pv_session);
    MPI_Finalize();
    MPI_T_finalize();
    return errors ? 1 : 0;
}
