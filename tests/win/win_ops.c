/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Window creation flavors, queries and every communication call under fence: Put, Get,
 * Accumulate (every op class, MPI_REPLACE, MPI_NO_OP), Get_accumulate, Fetch_and_op,
 * Compare_and_swap, with derived datatypes at origin and target, MPI_PROC_NULL (the R* forms
 * too), sizes across the active-message framing limit; shared_query under
 * alloc_shared_noncontig. Results are checked against values computed here.
 */
#include "mpitest.h"

#define N 4096

static int rank, size;

static void check_attrs(MPI_Win win, void *base, MPI_Aint bytes, int du, int flavor)
{
    void *b;
    MPI_Aint *sz;
    int *p, flag;
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag));
    CHECK(flag && b == base);
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
    CHECK(flag && *sz == bytes);
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &p, &flag));
    CHECK(flag && *p == du);
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &p, &flag));
    CHECK(flag && *p == flavor);
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_MODEL, &p, &flag));
    CHECK(flag && (*p == MPI_WIN_UNIFIED || *p == MPI_WIN_SEPARATE));
}

static void queries(MPI_Win win)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len, res;
    CHECK_RC(MPI_Win_set_name(win, "ops window"));
    CHECK_RC(MPI_Win_get_name(win, name, &len));
    CHECK(strcmp(name, "ops window") == 0 && len == 10);
    MPI_Group g, wg;
    CHECK_RC(MPI_Win_get_group(win, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &res);
    CHECK(res == MPI_IDENT);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Info info;
    CHECK_RC(MPI_Win_get_info(win, &info));
    char v[MPI_MAX_INFO_VAL];
    int flag;
    MPI_Info_get(info, "accumulate_ordering", MPI_MAX_INFO_VAL - 1, v, &flag);
    CHECK(flag);
    MPI_Info_free(&info);
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "false");
    CHECK_RC(MPI_Win_set_info(win, info));
    MPI_Info_free(&info);
    MPI_Errhandler eh;
    CHECK_RC(MPI_Win_get_errhandler(win, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL);
    CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
}

/* Put a pattern into the right neighbour, read it back from the left one with Get. */
static void put_get(MPI_Win win, int *base, int count)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *src = malloc(count * sizeof(int)), *got = malloc(count * sizeof(int));
    for (int i = 0; i < count; i++)
        src[i] = rank * 100000 + i;
    MPI_Win_fence(0, win);
    CHECK_RC(MPI_Put(src, count, MPI_INT, right, 0, count, MPI_INT, win));
    CHECK_RC(MPI_Put(src, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
    MPI_Win_fence(0, win);
    for (int i = 0; i < count; i++)
        CHECK(base[i] == left * 100000 + i);
    CHECK_RC(MPI_Get(got, count, MPI_INT, left, 0, count, MPI_INT, win));
    MPI_Win_fence(0, win);
    for (int i = 0; i < count; i++)
        CHECK(got[i] == ((left + size - 1) % size) * 100000 + i);
    free(src);
    free(got);
}

/* A vector at the origin into an indexed layout at the target, and back. */
static void derived(MPI_Win win, int *base)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Datatype vec, idx;
    int blens[3] = {1, 2, 3}, displs[3] = {10, 3, 20};
    MPI_Type_vector(6, 1, 2, MPI_INT, &vec);
    MPI_Type_indexed(3, blens, displs, MPI_INT, &idx);
    MPI_Type_commit(&vec);
    MPI_Type_commit(&idx);
    int src[12], got[12];
    for (int i = 0; i < 12; i++)
        src[i] = rank * 1000 + i;
    MPI_Win_fence(0, win);
    for (int i = 0; i < 64; i++)
        base[i] = -1;
    MPI_Win_fence(0, win);
    CHECK_RC(MPI_Put(src, 1, vec, right, 0, 1, idx, win));
    MPI_Win_fence(0, win);
    /* element k of the vector (src[2k]) lands at the k-th int of the indexed layout */
    int where[6] = {10, 3, 4, 20, 21, 22};
    for (int k = 0; k < 6; k++)
        CHECK(base[where[k]] == left * 1000 + 2 * k);
    CHECK(base[0] == -1 && base[5] == -1 && base[23] == -1);
    memset(got, 0, sizeof(got));
    CHECK_RC(MPI_Get(got, 1, vec, right, 0, 1, idx, win));
    MPI_Win_fence(0, win);
    for (int k = 0; k < 6; k++)
        CHECK(got[2 * k] == rank * 1000 + 2 * k && got[2 * k + 1] == 0);
    /* accumulate with derived types on both sides */
    CHECK_RC(MPI_Accumulate(src, 1, vec, right, 0, 1, idx, MPI_SUM, win));
    MPI_Win_fence(0, win);
    for (int k = 0; k < 6; k++)
        CHECK(base[where[k]] == 2 * (left * 1000 + 2 * k));
    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
}

static void accumulates(MPI_Win win, int *base)
{
    int one = 1, two = 2, res[4];
    MPI_Win_fence(0, win);
    base[0] = 0;
    base[1] = 1;
    base[2] = -1;
    base[3] = 7;
    MPI_Win_fence(0, win);
    for (int t = 0; t < size; t++) {
        CHECK_RC(MPI_Accumulate(&one, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, win));
        CHECK_RC(MPI_Accumulate(&two, 1, MPI_INT, t, 1, 1, MPI_INT, MPI_PROD, win));
        int v = rank;
        CHECK_RC(MPI_Accumulate(&v, 1, MPI_INT, t, 2, 1, MPI_INT, MPI_MAX, win));
    }
    MPI_Win_fence(0, win);
    CHECK(base[0] == size);
    CHECK(base[1] == 1 << size);
    CHECK(base[2] == size - 1);
    /* Get_accumulate with NO_OP reads, with REPLACE swaps */
    int mine = 1000 + rank;
    CHECK_RC(MPI_Get_accumulate(NULL, 0, MPI_INT, &res[0], 1, MPI_INT, 0, 3, 1, MPI_INT, MPI_NO_OP,
                                win));
    MPI_Win_fence(0, win);
    CHECK(res[0] == 7);
    if (rank == 0)
        base[3] = 7;
    MPI_Win_fence(0, win);
    CHECK_RC(MPI_Fetch_and_op(&one, &res[1], MPI_INT, 0, 3, MPI_SUM, win));
    MPI_Win_fence(0, win);
    CHECK(res[1] >= 7 && res[1] < 7 + size);
    if (rank == 0 && base[3] != 7 + size)
        fprintf(stderr, "base3 %d res1 %d\n", base[3], res[1]);
    if (rank == 0)
        CHECK(base[3] == 7 + size);
    MPI_Win_fence(0, win); /* the check above is a local load: its own epoch */
    CHECK_RC(MPI_Get_accumulate(&mine, 1, MPI_INT, &res[2], 1, MPI_INT, 0, 3, 1, MPI_INT,
                                MPI_REPLACE, win));
    MPI_Win_fence(0, win);
    if (rank == 0)
        CHECK(base[3] >= 1000 && base[3] < 1000 + size);
    /* doubles, a pair type with MAXLOC, logical and bit ops */
    double d = rank + 0.5, dres;
    MPI_Win_fence(0, win);
    ((double *)base)[10] = 0;
    MPI_Win_fence(0, win);
    CHECK_RC(MPI_Accumulate(&d, 1, MPI_DOUBLE, 0, 10 * 2, 1, MPI_DOUBLE, MPI_SUM, win));
    MPI_Win_fence(0, win);
    if (rank == 0)
        CHECK(((double *)base)[10] == size * size / 2.0);
    struct {
        double v;
        int i;
    } pair = {rank * 1.0, rank}, *tp = (void *)&base[40];
    if (rank == 0)
        tp->v = -1, tp->i = -1;
    MPI_Win_fence(0, win);
    CHECK_RC(MPI_Accumulate(&pair, 1, MPI_DOUBLE_INT, 0, 40, 1, MPI_DOUBLE_INT, MPI_MAXLOC, win));
    MPI_Win_fence(0, win);
    if (rank == 0)
        CHECK(tp->v == size - 1 && tp->i == size - 1);
    unsigned bits = 1u << rank;
    if (rank == 0)
        base[50] = 0;
    MPI_Win_fence(0, win);
    CHECK_RC(MPI_Accumulate(&bits, 1, MPI_UNSIGNED, 0, 50, 1, MPI_UNSIGNED, MPI_BOR, win));
    MPI_Win_fence(0, win);
    if (rank == 0)
        CHECK(base[50] == (1 << size) - 1);
    (void)dres;
}

static void cas(MPI_Win win, long long *base)
{
    MPI_Win_fence(0, win);
    base[0] = -1;
    MPI_Win_fence(0, win);
    long long me = rank, cmp = -1, old;
    CHECK_RC(MPI_Compare_and_swap(&me, &cmp, &old, MPI_LONG_LONG, 0, 0, win));
    MPI_Win_fence(0, win);
    int won = old == -1, total;
    MPI_Allreduce(&won, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == 1);
    if (rank == 0)
        CHECK(base[0] >= 0 && base[0] < size);
}

/* MPI_PROC_NULL is a valid target of every call: the request-based forms inside the "epoch" a
   lock of MPI_PROC_NULL opens (none) succeed, their requests complete, nothing is touched. */
static void proc_null(MPI_Win win, int *base)
{
    int src[4] = {1, 2, 3, 4}, res[4] = {-1, -1, -1, -1}, keep = base[0];
    MPI_Request rq[4];
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, MPI_PROC_NULL, 0, win));
    CHECK_RC(MPI_Rput(src, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win, &rq[0]));
    CHECK_RC(MPI_Rget(res, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win, &rq[1]));
    CHECK_RC(MPI_Raccumulate(src, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, MPI_SUM, win, &rq[2]));
    CHECK_RC(MPI_Rget_accumulate(src, 4, MPI_INT, res, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT,
                                 MPI_SUM, win, &rq[3]));
    CHECK_RC(MPI_Win_flush(MPI_PROC_NULL, win));
    CHECK_RC(MPI_Win_unlock(MPI_PROC_NULL, win));
    int done = 0;
    CHECK_RC(MPI_Testall(4, rq, &done, MPI_STATUSES_IGNORE));
    CHECK(done);
    for (int i = 0; i < 4; i++)
        CHECK(res[i] == -1 && rq[i] == MPI_REQUEST_NULL);
    CHECK(base[0] == keep);
}

/* alloc_shared_noncontig: a rank that gave size 0 is answered size 0 and NULL (as MPICH and
   Open MPI do); the others' parts are reachable through the queried pointers. */
static void shared_noncontig(void)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    int *mine, n = rank % 2 ? 0 : 8;
    MPI_Win win;
    CHECK_RC(
        MPI_Win_allocate_shared(n * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &mine, &win));
    MPI_Info_free(&info);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < n; i++)
        mine[i] = rank * 100 + i;
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    for (int r = 0; r < size; r++) {
        MPI_Aint sz;
        int du, *p;
        CHECK_RC(MPI_Win_shared_query(win, r, &sz, &du, &p));
        if (r % 2) {
            CHECK(sz == 0 && p == NULL);
            continue;
        }
        CHECK(sz == 8 * (MPI_Aint)sizeof(int) && du == sizeof(int) && p != NULL);
        for (int i = 0; p && i < 8; i++)
            CHECK(p[i] == r * 100 + i);
    }
    MPI_Win_unlock_all(win);
    CHECK_RC(MPI_Win_free(&win));
}

static void flavors(void)
{
    MPI_Win win;
    int *mem = malloc(N * sizeof(int));
    CHECK_RC(
        MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    check_attrs(win, mem, N * sizeof(int), sizeof(int), MPI_WIN_FLAVOR_CREATE);
    queries(win);
    proc_null(win, mem);
    put_get(win, mem, N);
    derived(win, mem);
    accumulates(win, mem);
    cas(win, (long long *)mem);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    CHECK_RC(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL);
    free(mem);

    int *abase;
    CHECK_RC(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &abase,
                              &win));
    check_attrs(win, abase, N * sizeof(int), sizeof(int), MPI_WIN_FLAVOR_ALLOCATE);
    put_get(win, abase, N);
    put_get(win, abase, 3);
    accumulates(win, abase);
    MPI_Win_fence(0, win);
    CHECK_RC(MPI_Win_free(&win));

    /* shared: rank r has r + 1 ints; everyone reads the others' parts directly */
    int *sbase;
    CHECK_RC(MPI_Win_allocate_shared((rank + 1) * sizeof(int), sizeof(int), MPI_INFO_NULL,
                                     MPI_COMM_WORLD, &sbase, &win));
    check_attrs(win, sbase, (rank + 1) * sizeof(int), sizeof(int), MPI_WIN_FLAVOR_SHARED);
    MPI_Win_fence(0, win);
    for (int i = 0; i <= rank; i++)
        sbase[i] = rank * 10 + i;
    MPI_Win_fence(0, win);
    for (int r = 0; r < size; r++) {
        MPI_Aint sz;
        int du, *p;
        CHECK_RC(MPI_Win_shared_query(win, r, &sz, &du, &p));
        CHECK(sz == (MPI_Aint)((r + 1) * sizeof(int)) && du == sizeof(int));
        for (int i = 0; i <= r; i++)
            CHECK(p[i] == r * 10 + i);
    }
    MPI_Aint sz;
    int du, *p;
    CHECK_RC(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p));
    CHECK(sz == sizeof(int) && p[0] == 0);
    put_get(win, sbase, 1);
    MPI_Win_fence(0, win);
    CHECK_RC(MPI_Win_free(&win));
}

static void dynamic(void)
{
    MPI_Win win;
    CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int *mem = calloc(100, sizeof(int));
    CHECK_RC(MPI_Win_attach(win, mem, 100 * sizeof(int)));
    MPI_Aint addr, *all = malloc(size * sizeof(MPI_Aint));
    MPI_Get_address(mem, &addr);
    MPI_Allgather(&addr, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
    int right = (rank + 1) % size, left = (rank + size - 1) % size, v = rank + 1, got = 0;
    MPI_Win_fence(0, win);
    CHECK_RC(MPI_Put(&v, 1, MPI_INT, right, all[right] + 5 * sizeof(int), 1, MPI_INT, win));
    MPI_Win_fence(0, win);
    CHECK(mem[5] == left + 1);
    CHECK_RC(MPI_Get(&got, 1, MPI_INT, right, all[right] + 5 * sizeof(int), 1, MPI_INT, win));
    MPI_Win_fence(0, win);
    CHECK(got == rank + 1);
    /* outside the attached region: refused at the origin */
    int rc = MPI_Put(&v, 1, MPI_INT, right, all[right] + 100 * sizeof(int), 1, MPI_INT, win);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE);
    MPI_Win_fence(0, win);
    CHECK_RC(MPI_Win_detach(win, mem));
    MPI_Win_fence(0, win);
    rc = MPI_Put(&v, 1, MPI_INT, right, all[right], 1, MPI_INT, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE);
    MPI_Win_fence(0, win);
    CHECK_RC(MPI_Win_free(&win));
    free(mem);
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    flavors();
    shared_noncontig();
    dynamic();
    mt_done("win_ops");
    MPI_Finalize();
    return 0;
}
