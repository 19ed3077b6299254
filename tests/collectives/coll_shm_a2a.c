/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared-memory Scatter and Alltoall (collectives/scatter_shm.c, alltoall_shm.c), forced:
 * per-block counts 0, 1, 5, 7, either side of where all p blocks fill the inline slot
 * (IBEX_COLL_SHM_INLINE, 64 KiB) and past it, every root, MPI_IN_PLACE, a strided type on one
 * side, on MPI_COMM_WORLD and a Comm_split with reversed ranks; results against references
 * computed here; back-to-back single-copy Alltoalls whose send buffer is rewritten as each call
 * returns, one rank late by turns. Then the segment itself: it is an anonymous memory file (its
 * mapping reads
 * "/memfd:ibex-coll" in /proc/self/maps) and nothing named ibex-coll exists in /dev/shm while
 * it is in use; with COLL_A2A_NOSEG=1 (the script sets it with IBEX_TRANSPORTS=verbs) there must
 * be no segment at all. With the argument "die" the last rank exits right after (the job must end
 * with nothing left behind: tests/collectives/coll_shm.sh checks). Prints "coll_shm_a2a: ok".
 */
#include <dirent.h>
#include <string.h>
#include <unistd.h>

#include "coll.h"
#include "coll_shm.h"
#include "comm_check.h"

static MPI_Datatype strided; /* one int in an extent of two */

static int val(int r, int i)
{
    return r * 7919 + i * 3 + 1;
}

static int *ints(size_t n, int fill)
{
    int *p = malloc((n ? n : 1) * sizeof(int));
    CHECK(p != NULL);
    for (size_t i = 0; i < n; i++)
        p[i] = fill;
    return p;
}

/* Scatter from root: block j of the root's data is val(root * 100 + j, i). */
static void t_scatter(MPI_Comm comm, int n, int root, int mode)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int stride = mode == 2 ? 2 : 1, *s = ints((size_t)n * (size_t)p * stride, -1);
    int *r = ints((size_t)n, -1);
    for (int j = 0; rank == root && j < p; j++)
        for (int i = 0; i < n; i++)
            s[((size_t)j * n + i) * stride] = val(root * 100 + j, i);
    MPI_Datatype sdt = mode == 2 ? strided : MPI_INT;
    void *rb = mode == 1 && rank == root ? MPI_IN_PLACE : r;
    CHECK_OK(MPI_Scatter(s, n, sdt, rb, n, MPI_INT, root, comm));
    for (int i = 0; rb != MPI_IN_PLACE && i < n; i++)
        CHECK(r[i] == val(root * 100 + rank, i));
    for (int j = 0; rb == MPI_IN_PLACE && j < p; j++) /* in place: the root's data untouched */
        for (int i = 0; i < n; i++)
            CHECK(s[(size_t)j * n + i] == val(root * 100 + j, i));
    free(s);
    free(r);
}

/* Alltoall: rank r sends val(r * 31 + j, i) to rank j. mode 1: in place; 2: strided receive;
 * 3: strided send (packed by the sender, which then writes its blocks from the packed copy). */
static void t_alltoall(MPI_Comm comm, int n, int mode)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    size_t all = (size_t)n * (size_t)p;
    int rstride = mode == 2 ? 2 : 1, sstride = mode == 3 ? 2 : 1;
    int *s = ints(all * sstride, -1), *r = ints(all * rstride, -1);
    int *src = mode == 1 ? r : s;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            src[((size_t)j * n + i) * sstride] = val(rank * 31 + j, i);
    CHECK_OK(MPI_Alltoall(mode == 1 ? MPI_IN_PLACE : s, n, mode == 3 ? strided : MPI_INT, r, n,
                          mode == 2 ? strided : MPI_INT, comm));
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++) {
            size_t at = ((size_t)j * n + i) * rstride;
            CHECK(r[at] == val(j * 31 + rank, i));
            if (rstride == 2)
                CHECK(r[at + 1] == -1);
        }
    free(s);
    free(r);
}

/* Oversubscribed, past the inline limit, from IBEX_COLL_SHM_A2A_PAIRS ranks (coll_shm.sh sets 2):
 * every block s -> d was claimed at this call's generation and moved exactly once, by s or by d
 * (the moves of all ranks add up to p (p - 1)); below that size nobody moves a block that way. */
static void t_alltoall_pairs(MPI_Comm comm)
{
    int rank, p, n = 70000;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    ibex_comm_t *c = ibex_comm_get(comm);
    ibex_coll_shm_t *seg = c ? ibex_coll_state(c) : NULL;
    CHECK(seg != NULL);
    uint64_t before = seg->a2a_moved;
    t_alltoall(comm, n, 0);
    if (!seg->ctl || p < 2)
        return;
    bool on = seg->oversub && p >= ibex_coll_shm_a2a_pairs();
    uint64_t g = seg->gen; /* the Alltoall's (the Allreduce below takes the next) */
    long moved = (long)(seg->a2a_moved - before), all = 0;
    CHECK_OK(MPI_Allreduce(&moved, &all, 1, MPI_LONG, MPI_SUM, comm));
    CHECK(all == (on ? (long)p * (p - 1) : 0));
    for (int q = 0; on && q < p; q++)
        if (q != rank)
            CHECK(seg->pair[(size_t)q * p + rank] == g && seg->pair[(size_t)rank * p + q] == g);
}

/* Back-to-back single-copy Alltoalls on one send buffer, rewritten as soon as each call returns,
 * with one rank late by turns: a rank returns once every other rank has read its block from it
 * (alltoall_shm.c), so a reader still busy with other sources must never see the next round's
 * values (or the poison written in between) in a block it reads after that. */
static void t_alltoall_reuse(MPI_Comm comm)
{
    int rank, p, n = 20000;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    size_t all = (size_t)n * (size_t)p;
    int *s = ints(all, -1), *r = ints(all, -1);
    for (int it = 0; it < 12; it++) {
        for (size_t k = 0; k < all; k++)
            s[k] = val(rank * 31 + (int)(k / (size_t)n), (int)(k % (size_t)n) + it);
        if (rank == it % p)
            usleep(2000);
        CHECK_OK(MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, comm));
        for (size_t k = 0; k < all; k++)
            s[k] = -7; /* poison: whoever still read this block would get it */
        for (int j = 0; j < p; j++)
            for (int i = 0; i < n; i += 997)
                CHECK(r[(size_t)j * n + i] == val(j * 31 + rank, i + it));
    }
    free(s);
    free(r);
}

static void suite(MPI_Comm comm)
{
    t_alltoall_reuse(comm);
    t_alltoall_pairs(comm);
    int p;
    MPI_Comm_size(comm, &p);
    int fill = 16384 / p; /* ints per block at which p blocks fill the 64 KiB slot */
    int counts[] = {0, 1, 5, 7, fill, fill + 1, 70000};
    for (int c = 0; c < 7; c++)
        for (int mode = 0; mode < 4; mode++) {
            t_alltoall(comm, counts[c], mode);
            for (int root = 0; mode < 3 && root < p; root++)
                t_scatter(comm, counts[c], root, mode);
        }
}

/* The segment is a memfd mapping (none at all under COLL_A2A_NOSEG=1, set when IBEX_TRANSPORTS
 * leaves shared memory out), and /dev/shm holds no collective segment name. */
static void check_memfd(void)
{
    int expect = getenv("COLL_A2A_NOSEG") == NULL;
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int found = 0;
    CHECK(f != NULL);
    while (fgets(line, sizeof(line), f))
        found |= strstr(line, "/memfd:ibex-coll") != NULL;
    fclose(f);
    CHECK(found == expect);
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    while (d && (e = readdir(d)))
        CHECK(strstr(e->d_name, "ibex-coll") == NULL);
    if (d)
        closedir(d);
}

int main(int argc, char **argv)
{
    int wrank, wsize;
    alarm(170);
    CHECK_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(ibex_coll_force(IBEX_COLL_SCATTER, "shmem") == IBEX_OK);
    CHECK(ibex_coll_force(IBEX_COLL_ALLTOALL, "shmem") == IBEX_OK);
    CHECK_OK(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &strided));
    CHECK_OK(MPI_Type_commit(&strided));
    suite(MPI_COMM_WORLD);
    if (wsize > 1)
        check_memfd();
    MPI_Comm rev;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &rev));
    suite(rev);
    CHECK_OK(MPI_Comm_free(&rev));
    if (argc > 1 && strcmp(argv[1], "die") == 0 && wrank == wsize - 1)
        _exit(3); /* with the segment mapped everywhere */
    MPI_Type_free(&strided);
    CHECK_OK(MPI_Finalize());
    if (wrank == 0)
        printf("coll_shm_a2a: ok\n");
    return 0;
}
