/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided against the MPI standard. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define CHECK_RANK rank
#include "std_check.h"
static int rank, size;
static void cas_lock(void)
{
    /* contended spin lock on rank 0's word 0 by Compare_and_swap, guarding a counter at word 1 */
    int *base;
    MPI_Win win;
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = 0;
    base[1] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    int iters = 50;
    for (int it = 0; it < iters; it++) {
        int one = 1, zero = 0, prev = 1;
        do {
            MPI_Compare_and_swap(&one, &zero, &prev, MPI_INT, 0, 0, win);
            MPI_Win_flush(0, win);
        } while (prev != 0);
        int v;
        MPI_Get(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        v++;
        MPI_Put(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        MPI_Compare_and_swap(&zero, &one, &prev, MPI_INT, 0, 0, win);
        MPI_Win_flush(0, win);
        CHECK(prev == 1, "unlock saw %d", prev);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        CHECK(base[1] == iters * size, "cas counter %d", base[1]);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
}
static void passive_sleeper(void)
{
    /* last rank sleeps outside MPI while the others put / get / accumulate on its window */
    int n = 1024, t = size - 1;
    long *base;
    MPI_Win win;
    MPI_Win_allocate(n * sizeof(long) * size, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                     &win);
    for (int i = 0; i < n * size; i++)
        base[i] = 0;
    MPI_Win_fence(0, win);
    if (rank == t) {
        sleep(2);
    } else {
        long *b = malloc(n * sizeof(long)), *g = malloc(n * sizeof(long));
        for (int i = 0; i < n; i++)
            b[i] = rank * 100000 + i;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
        MPI_Put(b, n, MPI_LONG, t, rank * n, n, MPI_LONG, win);
        MPI_Win_unlock(t, win);
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        MPI_Get(g, n, MPI_LONG, t, rank * n, n, MPI_LONG, win);
        MPI_Win_unlock(t, win);
        for (int i = 0; i < n; i++)
            if (g[i] != b[i]) {
                CHECK(0, "sleeper get %d", i);
                break;
            }
        long one = 1;
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        for (int k = 0; k < 10; k++)
            MPI_Accumulate(&one, 1, MPI_LONG, t, size * n - 1, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_unlock(t, win);
        free(b);
        free(g);
    }
    MPI_Win_fence(0, win);
    if (rank == t) {
        for (int r = 0; r < t; r++)
            for (int i = 0; i < n; i++)
                if (base[r * n + i] != r * 100000 + i && !(r * n + i == size * n - 1)) {
                    CHECK(0, "sleeper data r %d i %d", r, i);
                    break;
                }
        CHECK(base[size * n - 1] == 10L * t, "sleeper accumulate %ld", base[size * n - 1]);
    }
    MPI_Win_free(&win);
}
static void sync_modes(void)
{
    int n = 8, *base;
    MPI_Win win;
    MPI_Win_allocate((n * size + 1) * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &base, &win);
    for (int i = 0; i <= n * size; i++)
        base[i] = -1;
    int right = (rank + 1) % size, left = (rank + size - 1) % size, b[8];
    for (int i = 0; i < n; i++)
        b[i] = rank * 10 + i;
    /* fence with assertions */
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Put(b, n, MPI_INT, right, rank * n, n, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOSTORE, win);
    for (int i = 0; i < n; i++)
        CHECK(base[left * n + i] == left * 10 + i, "fence put");
    /* PSCW ring: expose to left, access right */
    MPI_Group wg, gl, gr;
    MPI_Win_get_group(win, &wg);
    MPI_Group_incl(wg, 1, &left, &gl);
    MPI_Group_incl(wg, 1, &right, &gr);
    MPI_Win_post(gl, MPI_MODE_NOCHECK * 0, win);
    MPI_Win_start(gr, 0, win);
    for (int i = 0; i < n; i++)
        b[i] = rank * 20 + i;
    MPI_Accumulate(b, n, MPI_INT, right, rank * n, n, MPI_INT, MPI_REPLACE, win);
    MPI_Win_complete(win);
    int flag = 0;
    while (!flag)
        MPI_Win_test(win, &flag);
    for (int i = 0; i < n; i++)
        CHECK(base[left * n + i] == left * 20 + i, "pscw");
    /* lock_all + flush_local + Rput / Rget + Get_accumulate + Fetch_and_op */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Request rq[2];
    int g[8], pre[8];
    for (int i = 0; i < n; i++)
        b[i] = rank * 30 + i;
    MPI_Rput(b, n, MPI_INT, right, rank * n, n, MPI_INT, win, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Win_flush(right, win);
    MPI_Rget(g, n, MPI_INT, right, rank * n, n, MPI_INT, win, &rq[1]);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++)
        CHECK(g[i] == rank * 30 + i, "rget");
    MPI_Get_accumulate(b, n, MPI_INT, pre, n, MPI_INT, right, rank * n, n, MPI_INT, MPI_SUM, win);
    MPI_Win_flush_local_all(win);
    for (int i = 0; i < n; i++)
        CHECK(pre[i] == rank * 30 + i, "get_acc");
    int inc = 1, old;
    MPI_Fetch_and_op(&inc, &old, MPI_INT, 0, n * size, MPI_SUM, win);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    MPI_Win_sync(win);
    for (int i = 0; i < n; i++)
        CHECK(base[left * n + i] == 2 * (left * 30 + i), "acc sum %d", base[left * n + i]);
    if (rank == 0)
        CHECK(base[n * size] == size - 1, "fetch_and_op counter %d", base[n * size]);
    MPI_Win_unlock(rank, win);
    /* errors: out of range, bad epoch */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int ec, cls;
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    ec = MPI_Put(b, n, MPI_INT, right, n * size - 2, n, MPI_INT, win);
    if (ec == MPI_SUCCESS)
        ec = MPI_Win_flush(right, win);
    MPI_Error_class(ec, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "range class %d", cls);
    MPI_Win_unlock(right, win);
    ec = MPI_Put(b, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Error_class(ec, &cls);
    CHECK(cls == MPI_ERR_RMA_SYNC, "sync class %d", cls);
    ec = MPI_Win_unlock(right, win);
    MPI_Error_class(ec, &cls);
    CHECK(cls == MPI_ERR_RMA_SYNC, "unlock sync class %d", cls);
    MPI_Group_free(&wg);
    MPI_Group_free(&gl);
    MPI_Group_free(&gr);
    MPI_Win_free(&win);
}
static void dynamic_and_types(void)
{
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int n = 64;
    double *mem = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++)
        mem[i] = -1;
    MPI_Win_attach(win, mem, n * sizeof(double));
    MPI_Aint addr, *addrs = malloc(size * sizeof(MPI_Aint));
    MPI_Get_address(mem, &addr);
    MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    /* origin: vector of 8 doubles stride 2; target: indexed blocks */
    double src[16];
    for (int i = 0; i < 16; i++)
        src[i] = rank + i * 0.25;
    MPI_Datatype ov, tv;
    MPI_Type_vector(8, 1, 2, MPI_DOUBLE, &ov);
    MPI_Type_commit(&ov);
    int bl[3] = {2, 3, 3}, dp[3] = {1, 10, 20};
    MPI_Type_indexed(3, bl, dp, MPI_DOUBLE, &tv);
    MPI_Type_commit(&tv);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(src, 1, ov, right, addrs[right], 1, tv, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    int k = 0;
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < bl[b]; j++, k++)
            CHECK(mem[dp[b] + j] == left + 2 * k * 0.25, "dyn put types");
    CHECK(mem[0] == -1 && mem[3] == -1, "dyn untouched");
    MPI_Win_unlock(rank, win);
    /* accumulate with derived types both sides */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Accumulate(src, 1, ov, right, addrs[right], 1, tv, MPI_SUM, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    k = 0;
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < bl[b]; j++, k++)
            CHECK(mem[dp[b] + j] == 2 * (left + 2 * k * 0.25), "dyn acc types");
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
    free(mem);
    free(addrs);
    MPI_Type_free(&ov);
    MPI_Type_free(&tv);
}
static void shared(void)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nr, ns;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &ns);
    int *base;
    MPI_Win win;
    MPI_Win_allocate_shared((nr + 1) * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &base, &win);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i <= nr; i++)
        base[i] = nr * 100 + i;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    for (int r = 0; r < ns; r++) {
        MPI_Aint sz;
        int du;
        int *p;
        MPI_Win_shared_query(win, r, &sz, &du, &p);
        CHECK(sz == (MPI_Aint)((r + 1) * sizeof(int)) && du == sizeof(int), "shared query size");
        for (int i = 0; i <= r; i++)
            CHECK(p[i] == r * 100 + i, "shared read");
    }
    MPI_Aint sz;
    int du;
    int *p;
    MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p);
    CHECK(sz == (MPI_Aint)sizeof(int) && du == sizeof(int),
          "shared query MPI_PROC_NULL: the lowest rank with memory");
    MPI_Win_unlock_all(win);
    int *fl;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &du);
    CHECK(du && *fl == MPI_WIN_FLAVOR_SHARED, "flavor");
    int *model;
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &du);
    CHECK(du && *model == MPI_WIN_UNIFIED, "model");
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}
static void create_user(void)
{
    int n = 100, *mem = malloc(n * sizeof(int));
    MPI_Win win;
    for (int i = 0; i < n; i++)
        mem[i] = rank;
    MPI_Win_create(mem, n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    int v = 1;
    for (int t = 0; t < size; t++)
        MPI_Accumulate(&v, 1, MPI_INT, t, 5, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    CHECK(mem[5] == rank + size, "create acc %d", mem[5]);
    int got[100];
    MPI_Get(got, n, MPI_INT, (rank + 1) % size, 0, n, MPI_INT, win);
    MPI_Win_fence(0, win);
    CHECK(got[0] == (rank + 1) % size && got[5] == (rank + 1) % size + size, "create get");
    MPI_Win_free(&win);
    free(mem);
}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cas_lock();
    passive_sleeper();
    sync_modes();
    dynamic_and_types();
    shared();
    create_user();
    int tot;
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return std_report("std_rma", tot, rank);
}
