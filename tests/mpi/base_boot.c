/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bootstrap under a real PMIx server (runtime/boot/boot.c): job facts on one node, put / commit
 * / fence / get of every peer's key, a lazy get (no fence) of a neighbour's key, peer host names.
 * Prints "base_boot: ok" per rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_boot.h"
#include "ibex_runtime.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "base_boot: check failed at line %d: %s\n", __LINE__, #cond);          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static void check_facts(const ibex_boot_info_t *b)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(b->rank == rank && b->size == size);
    /* every launcher of these tests runs one node */
    CHECK(b->local_size == size && b->local_rank == rank);
    for (int i = 0; i < size; i++)
        CHECK(b->local_peers[i] == i && b->node_of[i] == b->node_id);
    CHECK(b->num_nodes == 1 && b->num_cores >= 1);
    CHECK(b->singleton == (getenv("PMIX_NAMESPACE") == NULL));
    for (int r = 0; r < size; r++)
        CHECK(strcmp(ibex_boot_peer_host(r), b->hostname) == 0);
    CHECK(strcmp(ibex_boot_peer_host(size), "unknown host") == 0);
}

static void check_get(int peer, const char *key, int want)
{
    void *data = NULL;
    size_t len = 0;
    CHECK(ibex_boot_get(peer, key, &data, &len) == IBEX_OK);
    CHECK(len == sizeof(int) * 64 && ((int *)data)[0] == want && ((int *)data)[63] == -want);
    free(data);
}

static void put_key(const char *key, int value)
{
    int blob[64] = {0};
    blob[0] = value;
    blob[63] = -value;
    CHECK(ibex_boot_put(key, blob, sizeof(blob)) == IBEX_OK);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const ibex_boot_info_t *b = &ibex_rt.boot;
    check_facts(b);
    put_key("base-fenced", 1000 + b->rank);
    CHECK(ibex_boot_commit() == IBEX_OK);
    CHECK(ibex_boot_fence(true) == IBEX_OK);
    for (int r = 0; r < b->size; r++)
        check_get(r, "base-fenced", 1000 + r);
    /* Lazy: no fence; the get waits for the neighbour's commit. */
    put_key("base-lazy", 2000 + b->rank);
    CHECK(ibex_boot_commit() == IBEX_OK);
    check_get((b->rank + 1) % b->size, "base-lazy", 2000 + (b->rank + 1) % b->size);
    CHECK(ibex_boot_fence(false) == IBEX_OK);
    printf("base_boot: ok rank %d of %d\n", b->rank, b->size);
    MPI_Finalize();
    return 0;
}
