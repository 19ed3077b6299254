/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Levels inside a node (IBEX_COLL_NODE_LEVEL, collectives/base/coll_level.c) under an hwloc
 * synthetic topology (HWLOC_SYNTHETIC, set by tests/collectives/coll_level.sh): arguments NPACK
 * NPU, the level's objects and the PUs of that topology. Checks that the collectives see one
 * node per object, local rank i on object (i % NPU) / (NPU / NPACK), that MPI_COMM_WORLD is then
 * a hierarchical communicator when an object holds two ranks, and that the hierarchical Bcast,
 * Reduce, Allreduce and Barrier (forced, then by the table) give the reference results at
 * counts 1, 1000 and 100000 (past the inline limit), every root, SUM and a non-commutative op
 * (rank order kept: an op picking its left operand, so the result is rank 0's). Prints
 * "coll_level: ok".
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll.h"
#include "coll_shm.h"
#include "comm_check.h"
#include "ibex_comm.h"

static int wrank, wsize;

static int val(int r, int i)
{
    return r * 1009 + i % 5003 + 1;
}

static void left_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt; /* inout = in: the lowest rank's value wins, if rank order is kept */
    memcpy(inout, in, (size_t)*len * sizeof(int));
}

static void check_levels(int npack, int npu)
{
    ibex_comm_t *w = ibex_comm_get(MPI_COMM_WORLD);
    CHECK(w != NULL);
    int per = npu / npack, shared = 0;
    for (int a = 0; a < wsize; a++)
        for (int b = 0; b < wsize; b++) {
            int same = (a % npu) / per == (b % npu) / per;
            CHECK((ibex_coll_node_of(w, a) == ibex_coll_node_of(w, b)) == same);
            shared |= same && a != b;
        }
    int several = wsize > per;
    CHECK(ibex_coll_comm_span(w) == (several && shared ? IBEX_COLL_SPAN_NODES
                                     : several         ? IBEX_COLL_SPAN_ANY
                                                       : IBEX_COLL_SPAN_NODE));
}

static void suite(MPI_Op left)
{
    static const int counts[] = {1, 1000, 100000};
    int *a = malloc(100000 * sizeof(int)), *b = malloc(100000 * sizeof(int));
    CHECK(a && b);
    for (int c = 0; c < 3; c++) {
        int n = counts[c];
        for (int root = 0; root < wsize; root++) {
            for (int i = 0; i < n; i++)
                a[i] = wrank == root ? val(root, i) : -1;
            CHECK_OK(MPI_Bcast(a, n, MPI_INT, root, MPI_COMM_WORLD));
            for (int i = 0; i < n; i++)
                CHECK(a[i] == val(root, i));
            for (int i = 0; i < n; i++)
                a[i] = val(wrank, i);
            CHECK_OK(MPI_Reduce(a, b, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
            for (int i = 0; wrank == root && i < n; i++) {
                long long s = 0;
                for (int r = 0; r < wsize; r++)
                    s += val(r, i);
                CHECK(b[i] == (int)s);
            }
            CHECK_OK(MPI_Reduce(a, b, n, MPI_INT, left, root, MPI_COMM_WORLD));
            for (int i = 0; wrank == root && i < n; i++)
                CHECK(b[i] == val(0, i));
        }
        CHECK_OK(MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++) {
            long long s = 0;
            for (int r = 0; r < wsize; r++)
                s += val(r, i);
            CHECK(b[i] == (int)s);
        }
        CHECK_OK(MPI_Allreduce(a, b, n, MPI_INT, left, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++)
            CHECK(b[i] == val(0, i));
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    alarm(170);
    CHECK(argc == 3);
    CHECK_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    check_levels(atoi(argv[1]), atoi(argv[2]));
    MPI_Op left;
    CHECK_OK(MPI_Op_create(left_fn, 0, &left));
    ibex_coll_kind_t kinds[] = {IBEX_COLL_BARRIER, IBEX_COLL_BCAST, IBEX_COLL_REDUCE,
                                IBEX_COLL_ALLREDUCE};
    const char *modes[] = {"hier", "auto"};
    for (int m = 0; m < 2; m++) {
        for (int k = 0; k < 4; k++)
            CHECK(ibex_coll_force(kinds[k], modes[m]) == IBEX_OK);
        suite(left);
    }
    MPI_Op_free(&left);
    CHECK_OK(MPI_Finalize());
    if (wrank == 0)
        printf("coll_level: ok\n");
    return 0;
}
