/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Non-blocking and persistent collectives (collectives/base/coll_sched.c) with checked
 * results: every kind at counts 0, 1, 7 and one past the eager limit, every root, MPI_IN_PLACE
 * where allowed, a strided derived type, a non-commutative user op (2x2 matrix product, so
 * rank order matters), compared with a reference the test computes itself from the data rule
 * val(). Between start and completion each rank computes and exchanges point-to-point traffic
 * with its neighbours; completion by MPI_Wait, Waitall, a Test loop and Testany in turn.
 * Persistent forms are started three times with new data each time, also by one Startall with
 * persistent point-to-point requests (Waitsome, Testall), and the large-count forms with
 * MPI_Count / MPI_Aint arrays. Then several collectives
 * outstanding at once on two communicators, MPI_Request_free on a running collective, and the
 * error classes (root, op, count, type, communicator, buffer, NULL arrays and request, cancel,
 * start while active). Any rank count >= 1; prints "coll_nbc: ok". Environment: NBC_QUICK=1
 * runs a smaller matrix (counts to 7, world only), NBC_VERBOSE=1 names each case on stderr,
 * NBC_PORTABLE=1 leaves out the persistent forms, MPI_Request_free on a running collective
 * (which MPI calls erroneous; Ibex lets it complete) and the error classes, to run this program
 * under MPICH 4.0, whose persistent collectives do not restart correctly.
 */
#include <string.h>

#include "comm_check.h"

#define BIG 20000 /* ints: past the eager limit of every transport */
#define MOD 7919

enum { M_WAIT, M_WAITALL, M_TEST, M_TESTANY, M_COUNT };
enum { DT_INT, DT_STRIDED, DT_MAT };

typedef struct ctx {
    MPI_Comm comm;
    int rank, size;
    int kind; /* index into kinds[] */
    int count, root, inplace, dtmode, it;
    int *s, *r; /* send / receive buffers (room for size * BIG elements, stride 2) */
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Datatype *sdts, *rdts;
} ctx_t;

static MPI_Datatype strided, mat;
static MPI_Op matprod;
static int wrank, wsize, quick, ncases, verbose, portable;

static int val(int r, int i, int it)
{
    return (r * 1009 + i * 7 + it * 131 + 1) % 100000;
}

/* ---- the non-commutative op: 2x2 matrix product mod MOD, inout = in * inout ---- */
static void mat_mul(const int *a, int *b)
{
    int c[4] = {(a[0] * b[0] + a[1] * b[2]) % MOD, (a[0] * b[1] + a[1] * b[3]) % MOD,
                (a[2] * b[0] + a[3] * b[2]) % MOD, (a[2] * b[1] + a[3] * b[3]) % MOD};
    memcpy(b, c, sizeof(c));
}

static void matprod_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        mat_mul((int *)in + 4 * i, (int *)inout + 4 * i);
}

static void mat_of(int r, int i, int it, int *m)
{
    for (int k = 0; k < 4; k++)
        m[k] = (val(r, i * 4 + k, it) % 5) + (k == 0 || k == 3);
}

/* ---- element access by the datatype under test ---- */
static MPI_Datatype dt_of(const ctx_t *c)
{
    return c->dtmode == DT_STRIDED ? strided : c->dtmode == DT_MAT ? mat : MPI_INT;
}

static int stride(const ctx_t *c)
{
    return c->dtmode == DT_STRIDED ? 2 : c->dtmode == DT_MAT ? 4 : 1;
}

/* element i of a buffer (the first int of a matrix) */
static int *el(const ctx_t *c, int *buf, int i)
{
    return buf + (size_t)stride(c) * (size_t)i;
}

static void fill(const ctx_t *c, int *buf, int from, int n, int r, int base)
{
    for (int i = 0; i < n; i++) {
        if (c->dtmode == DT_MAT)
            mat_of(r, base + i, c->it, el(c, buf, from + i));
        else
            *el(c, buf, from + i) = val(r, base + i, c->it);
    }
}

/* the reduction over ranks lo..hi of element i (sum, or matrix product in rank order) */
static void reduced(const ctx_t *c, int lo, int hi, int i, int *out)
{
    if (c->dtmode != DT_MAT) {
        long sum = 0;
        for (int r = lo; r <= hi; r++)
            sum += val(r, i, c->it);
        *out = (int)sum;
        return;
    }
    int m[4];
    mat_of(hi, i, c->it, out);
    for (int r = hi - 1; r >= lo; r--) {
        mat_of(r, i, c->it, m);
        mat_mul(m, out);
    }
}

static void expect_reduced(const ctx_t *c, int *buf, int at, int lo, int hi, int i)
{
    int want[4];
    reduced(c, lo, hi, i, want);
    int n = c->dtmode == DT_MAT ? 4 : 1;
    for (int k = 0; k < n; k++)
        CHECK(el(c, buf, at)[k] == want[k]);
}

static MPI_Op op_of(const ctx_t *c)
{
    return c->dtmode == DT_MAT ? matprod : MPI_SUM;
}

#include "coll_nbc_kinds.h"

static void arrays_alloc(ctx_t *c)
{
    size_t p = (size_t)c->size;
    c->scounts = malloc(sizeof(int) * p);
    c->sdispls = malloc(sizeof(int) * p);
    c->rcounts = malloc(sizeof(int) * p);
    c->rdispls = malloc(sizeof(int) * p);
    c->sdts = malloc(sizeof(MPI_Datatype) * p);
    c->rdts = malloc(sizeof(MPI_Datatype) * p);
    CHECK(c->scounts && c->sdispls && c->rcounts && c->rdispls && c->sdts && c->rdts);
}

static void arrays_free(ctx_t *c)
{
    free(c->scounts);
    free(c->sdispls);
    free(c->rcounts);
    free(c->rdispls);
    free(c->sdts);
    free(c->rdts);
}

/* ---- traffic and computation between start and completion ---- */
static volatile double sink;

static void compute(void)
{
    double x = 0;
    for (int i = 0; i < 2000; i++)
        x += i * 0.5;
    sink = x;
}

/* One round of point-to-point traffic with the neighbours, checked. */
static void p2p_round(int round)
{
    int right = (wrank + 1) % wsize, left = (wrank - 1 + wsize) % wsize, out = round * 100 + wrank,
        in = -1;
    MPI_Request r[2];
    CHECK_OK(MPI_Irecv(&in, 1, MPI_INT, left, 77, MPI_COMM_WORLD, &r[0]));
    CHECK_OK(MPI_Isend(&out, 1, MPI_INT, right, 77, MPI_COMM_WORLD, &r[1]));
    compute();
    CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(in == round * 100 + left);
}

static void complete(MPI_Request *reqs, int n, int mode)
{
    p2p_round(mode);
    if (mode == M_WAIT) {
        for (int i = 0; i < n; i++) {
            MPI_Status st;
            CHECK_OK(MPI_Wait(&reqs[i], &st));
            CHECK(reqs[i] == MPI_REQUEST_NULL || n == 0);
        }
    } else if (mode == M_WAITALL) {
        CHECK_OK(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
    } else if (mode == M_TEST) {
        for (int i = 0; i < n; i++)
            for (int flag = 0; !flag;) {
                compute();
                CHECK_OK(MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE));
            }
    } else {
        for (int left = n; left > 0;) {
            int idx, flag;
            compute();
            CHECK_OK(MPI_Testany(n, reqs, &idx, &flag, MPI_STATUS_IGNORE));
            if (flag && idx != MPI_UNDEFINED)
                left--;
        }
    }
}

/* Persistent requests stay allocated; Wait leaves them inactive. */
static void complete_persistent(MPI_Request *req, int mode)
{
    int flag = 0;
    if (mode == M_TEST)
        while (!flag)
            CHECK_OK(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
    else
        CHECK_OK(MPI_Wait(req, MPI_STATUS_IGNORE));
    CHECK(*req != MPI_REQUEST_NULL);
}

/* One case: start, traffic, complete, check; `persistent` starts it three times. */
static void run_case(ctx_t *c, int mode, int persistent)
{
    const kind_t *k = &kinds[c->kind];
    MPI_Request req;
    c->it = 0;
    k->prepare(c);
    ncases++;
    if (verbose)
        fprintf(stderr, "rank %d: %s count %d root %d in place %d type %d mode %d persistent %d\n",
                wrank, k->name, c->count, c->root, c->inplace, c->dtmode, mode, persistent);
    if (!persistent) {
        CHECK_OK(k->start(c, 0, &req));
        complete(&req, 1, mode);
        k->check(c);
        return;
    }
    CHECK_OK(k->start(c, 1, &req));
    for (c->it = 0; c->it < 3; c->it++) {
        if (c->it > 0)
            k->prepare(c);
        CHECK_OK(c->it == 1 ? MPI_Startall(1, &req) : MPI_Start(&req));
        p2p_round(c->it);
        complete_persistent(&req, mode);
        k->check(c);
    }
    CHECK_OK(MPI_Request_free(&req));
    CHECK(req == MPI_REQUEST_NULL);
}

static void run_kind(ctx_t *c, int k)
{
    static const int counts[] = {0, 1, 7, BIG};
    int ncounts = quick ? 3 : 4, mode = 0;
    c->kind = k;
    for (int ci = 0; ci < ncounts; ci++)
        for (int dtm = 0; dtm < 3; dtm++) {
            /* predefined ops on derived types are outside the standard (MPICH refuses) */
            if ((dtm == DT_MAT) != (kinds[k].reduction && dtm != DT_INT) ||
                (dtm == DT_STRIDED && counts[ci] > 7))
                continue;
            for (c->root = 0; c->root < (kinds[k].rooted ? c->size : 1); c->root++)
                for (c->inplace = 0; c->inplace <= kinds[k].inplace; c->inplace++) {
                    c->count = dtm == DT_MAT && counts[ci] == BIG ? 100 : counts[ci];
                    c->dtmode = dtm;
                    run_case(c, mode++ % M_COUNT, 0);
                    if (!portable && (ci == 2 || (ci == 3 && c->root == 0)))
                        run_case(c, mode++ % M_COUNT, 1);
                }
        }
}

/* Several outstanding at once, on WORLD and on a reversed copy (two of each kind on each),
 * a blocking collective among them, completed together with a point-to-point exchange in the
 * same request array. */
static void check_overlap(ctx_t *world, ctx_t *rev)
{
    enum { N = 8 };
    ctx_t cs[N];
    MPI_Request reqs[N + 2];
    int right = (wrank + 1) % wsize, left = (wrank - 1 + wsize) % wsize, in = -1;
    for (int round = 0; round < nkinds; round++) {
        int mode = round % M_COUNT;
        for (int i = 0; i < N; i++) {
            cs[i] = i % 2 ? *rev : *world;
            cs[i].s = malloc(sizeof(int) * 4 * (size_t)wsize * 64);
            cs[i].r = malloc(sizeof(int) * 4 * (size_t)wsize * 64);
            arrays_alloc(&cs[i]);
            cs[i].kind = (round + (i / 4) * 5) % nkinds;
            cs[i].count = 5 + i;
            cs[i].root = i % wsize;
            cs[i].inplace = 0;
            cs[i].dtmode = (i % 3 == 0 && kinds[cs[i].kind].reduction) ? DT_MAT : DT_INT;
            cs[i].it = i;
            kinds[cs[i].kind].prepare(&cs[i]);
            CHECK_OK(kinds[cs[i].kind].start(&cs[i], 0, &reqs[i]));
        }
        int sum = 0;
        CHECK_OK(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(sum == wsize * (wsize - 1) / 2);
        CHECK_OK(MPI_Irecv(&in, 1, MPI_INT, left, 78, MPI_COMM_WORLD, &reqs[N]));
        CHECK_OK(MPI_Isend(&wrank, 1, MPI_INT, right, 78, MPI_COMM_WORLD, &reqs[N + 1]));
        complete(reqs, N + 2, mode);
        CHECK(in == left);
        for (int i = 0; i < N; i++) {
            kinds[cs[i].kind].check(&cs[i]);
            free(cs[i].s);
            free(cs[i].r);
            arrays_free(&cs[i]);
        }
    }
}

/* Objects freed while a collective runs: the communicator, the datatype and the user op
 * stay alive until it completes. */
static void check_freed_objects(void)
{
    MPI_Comm dup;
    MPI_Datatype t;
    MPI_Op op;
    MPI_Request req[2];
    int v[8], w[4] = {0}, m[4], want[4];
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Type_dup(strided, &t));
    CHECK_OK(MPI_Op_create(matprod_fn, 0, &op));
    for (int i = 0; i < 8; i++)
        v[i] = wrank == 0 ? val(0, i, 9) : -1;
    CHECK_OK(MPI_Ibcast(v, 4, t, 0, dup, &req[0]));
    mat_of(wrank, 0, 9, m);
    CHECK_OK(MPI_Iallreduce(m, w, 1, mat, op, dup, &req[1]));
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Op_free(&op));
    CHECK_OK(MPI_Comm_free(&dup));
    p2p_round(5);
    CHECK_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 4; i++)
        CHECK(v[2 * i] == val(0, 2 * i, 9));
    ctx_t c = {.dtmode = DT_MAT, .it = 9};
    reduced(&c, 0, wsize - 1, 0, want);
    CHECK(memcmp(w, want, sizeof(want)) == 0);
}

/* Persistent collectives and persistent point-to-point requests started together by
 * MPI_Startall, completed by Waitsome / Testall in turn, three times with new data. */
static void check_startall_mixed(void)
{
    int right = (wrank + 1) % wsize, left = (wrank - 1 + wsize) % wsize;
    int out, in, mine, sum, all[64];
    MPI_Request r[5];
    CHECK(wsize <= 64);
    CHECK_OK(
        MPI_Allreduce_init(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    CHECK_OK(MPI_Send_init(&out, 1, MPI_INT, right, 79, MPI_COMM_WORLD, &r[1]));
    CHECK_OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]));
    CHECK_OK(MPI_Recv_init(&in, 1, MPI_INT, left, 79, MPI_COMM_WORLD, &r[3]));
    CHECK_OK(MPI_Allgather_init(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &r[4]));
    for (int it = 0; it < 3; it++) {
        mine = val(wrank, 0, it);
        out = val(wrank, 1, it);
        CHECK_OK(MPI_Startall(5, r));
        compute();
        if (it == 1) {
            for (int flag = 0; !flag;)
                CHECK_OK(MPI_Testall(5, r, &flag, MPI_STATUSES_IGNORE));
        } else {
            for (int done = 0; done < 5;) {
                int n, idx[5];
                CHECK_OK(MPI_Waitsome(5, r, &n, idx, MPI_STATUSES_IGNORE));
                CHECK(n != MPI_UNDEFINED);
                done += n;
            }
        }
        long want = 0;
        for (int k = 0; k < wsize; k++) {
            want += val(k, 0, it);
            CHECK(all[k] == val(k, 0, it));
        }
        CHECK(sum == (int)want && in == val(left, 1, it));
    }
    for (int i = 0; i < 5; i++)
        CHECK_OK(MPI_Request_free(&r[i]));
}

/* The large-count forms with per-rank arrays (MPI_Count counts, MPI_Aint displacements): the
 * arrays are converted for the call only, so the schedule must not read them later. */
static void check_large_count(void)
{
    MPI_Count *counts = malloc(sizeof(MPI_Count) * (size_t)wsize);
    MPI_Aint *displs = malloc(sizeof(MPI_Aint) * (size_t)wsize);
    int *all = malloc(sizeof(int) * 3 * (size_t)wsize), mine[3], got[3];
    MPI_Request req;
    for (int j = 0; j < wsize; j++) {
        counts[j] = 1 + j % 3;
        displs[j] = 3 * (wsize - 1 - j);
    }
    for (int i = 0; i < 3; i++)
        mine[i] = val(wrank, i, 7);
    CHECK_OK(MPI_Iallgatherv_c(mine, counts[wrank], MPI_INT, all, counts, displs, MPI_INT,
                               MPI_COMM_WORLD, &req));
    for (int j = 0; j < wsize; j++)
        counts[j] = displs[j] = -1; /* the call's copies are gone: nothing may read these */
    p2p_round(6);
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int j = 0; j < wsize; j++)
        for (int i = 0; i < 1 + j % 3; i++)
            CHECK(all[3 * (wsize - 1 - j) + i] == val(j, i, 7));
    for (int j = 0; j < wsize; j++)
        counts[j] = 3; /* Reduce_scatter_c: three elements each */
    int *whole = malloc(sizeof(int) * 3 * (size_t)wsize);
    CHECK_OK(MPI_Reduce_scatter_init_c(whole, got, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                       MPI_INFO_NULL, &req));
    for (int it = 0; it < 2; it++) {
        for (int i = 0; i < 3 * wsize; i++)
            whole[i] = val(wrank, i, it);
        CHECK_OK(MPI_Start(&req));
        CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < 3; i++) {
            long want = 0;
            for (int r = 0; r < wsize; r++)
                want += val(r, 3 * wrank + i, it);
            CHECK(got[i] == (int)want);
        }
    }
    CHECK_OK(MPI_Request_free(&req));
    /* Iexscan: the receive buffer is not significant at rank 0 (MPI 4.1 6.11.2) */
    int x = val(wrank, 0, 3), y = -1;
    CHECK_OK(MPI_Iexscan(&x, wrank == 0 ? NULL : &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    long want = 0;
    for (int r = 0; r < wrank; r++)
        want += val(r, 0, 3);
    CHECK(wrank == 0 || y == (int)want);
    free(whole);
    free(counts);
    free(displs);
    free(all);
}

/* MPI_Request_free on a running collective (MPI calls it erroneous; Ibex lets the collective
 * finish): later collectives still work, and the freed one completes while the program keeps
 * calling MPI. A barrier does not order its completion: a rank's parent in the broadcast tree
 * may pass the barrier before forwarding, so the value is awaited by polling, within 10 s. */
static void check_free(ctx_t *c)
{
    int v = wrank == 0 ? 4242 : 0;
    MPI_Request req;
    CHECK_OK(MPI_Ibcast(&v, 1, MPI_INT, 0, c->comm, &req));
    CHECK_OK(MPI_Request_free(&req));
    CHECK(req == MPI_REQUEST_NULL);
    CHECK_OK(MPI_Ibarrier(c->comm, &req));
    int flag = 0;
    while (!flag) {
        MPI_Status st;
        CHECK_OK(MPI_Request_get_status(req, &flag, &st));
    }
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Barrier(c->comm));
    double t0 = MPI_Wtime();
    while (*(volatile int *)&v != 4242 && MPI_Wtime() - t0 < 10) {
        int any;
        CHECK_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c->comm, &any, MPI_STATUS_IGNORE));
    }
    CHECK(v == 4242);
    CHECK_OK(MPI_Barrier(c->comm)); /* nobody leaves while another still waits for it */
}

static void check_errors(ctx_t *c)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int x = 0, y = 0, cls;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Error_class(MPI_Ibcast(&x, 1, MPI_INT, c->size, MPI_COMM_WORLD, &req), &cls);
    CHECK(cls == MPI_ERR_ROOT);
    MPI_Error_class(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &req), &cls);
    CHECK(cls == MPI_ERR_OP);
    MPI_Error_class(MPI_Iallreduce(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req), &cls);
    CHECK(cls == MPI_ERR_COUNT);
    MPI_Error_class(MPI_Ibarrier(MPI_COMM_NULL, &req), &cls);
    CHECK(cls == MPI_ERR_COMM);
    MPI_Error_class(MPI_Ibcast(MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD, &req), &cls);
    CHECK(cls == MPI_ERR_BUFFER);
    MPI_Error_class(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, NULL), &cls);
    CHECK(cls == MPI_ERR_ARG);
    MPI_Error_class(MPI_Iallgatherv(&x, 1, MPI_INT, &y, NULL, NULL, MPI_INT, MPI_COMM_WORLD, &req),
                    &cls);
    CHECK(cls == MPI_ERR_ARG);
    MPI_Error_class(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &req), &cls);
    CHECK(cls == MPI_ERR_OP);
    MPI_Error_class(
        MPI_Scan_init(&x, &y, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
        &cls);
    CHECK(cls == MPI_ERR_TYPE);
    MPI_Error_class(MPI_Iscatter(&x, 1, MPI_INT, &y, 1, MPI_INT, -1, MPI_COMM_WORLD, &req), &cls);
    CHECK(cls == MPI_ERR_ROOT);
    MPI_Error_class(MPI_Reduce_scatter_block_init(&x, &y, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                                  MPI_INFO_NULL, &req),
                    &cls);
    CHECK(cls == MPI_ERR_COUNT);
    CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    MPI_Error_class(MPI_Cancel(&req), &cls);
    CHECK(cls == MPI_ERR_REQUEST);
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    CHECK_OK(MPI_Start(&req));
    MPI_Error_class(MPI_Start(&req), &cls); /* already active */
    CHECK(cls == MPI_ERR_REQUEST);
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Request_free(&req));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void types_init(void)
{
    CHECK_OK(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &strided));
    CHECK_OK(MPI_Type_commit(&strided));
    CHECK_OK(MPI_Type_contiguous(4, MPI_INT, &mat));
    CHECK_OK(MPI_Type_commit(&mat));
    CHECK_OK(MPI_Op_create(matprod_fn, 0, &matprod));
}

static void ctx_init(ctx_t *c, MPI_Comm comm)
{
    memset(c, 0, sizeof(*c));
    c->comm = comm;
    MPI_Comm_rank(comm, &c->rank);
    MPI_Comm_size(comm, &c->size);
    size_t n = 4 * (size_t)c->size * BIG + 16;
    c->s = malloc(sizeof(int) * n);
    c->r = malloc(sizeof(int) * n);
    arrays_alloc(c);
    CHECK(c->s && c->r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    quick = getenv("NBC_QUICK") != NULL;
    verbose = getenv("NBC_VERBOSE") != NULL;
    portable = getenv("NBC_PORTABLE") != NULL;
    types_init();
    MPI_Comm rev;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &rev));
    ctx_t world, revc;
    ctx_init(&world, MPI_COMM_WORLD);
    ctx_init(&revc, rev);
    for (int k = 0; k < nkinds; k++) {
        run_kind(&world, k);
        if (!quick)
            run_kind(&revc, k);
    }
    check_overlap(&world, &revc);
    check_freed_objects();
    if (!portable) {
        check_startall_mixed();
        check_large_count();
    }
    if (!portable) { /* the error classes are Ibex's (MPI leaves some to the implementation) */
        check_free(&world);
        check_errors(&world);
    }
    free(world.s);
    free(world.r);
    free(revc.s);
    free(revc.r);
    arrays_free(&world);
    arrays_free(&revc);
    MPI_Comm_free(&rev);
    MPI_Op_free(&matprod);
    MPI_Type_free(&strided);
    MPI_Type_free(&mat);
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_nbc: %d cases of %d kinds\ncoll_nbc: ok\n", ncases, nkinds);
    return 0;
}
