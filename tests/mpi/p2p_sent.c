/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completed sends and MPI_Waitall (issue 18: an eager MPI_Isend the transport takes whole may
 * return a shared request that is already complete, and MPI_Waitall waits for each request in
 * turn). Standard MPI only: every call a program may make on the request of a small MPI_Isend
 * must behave as on any completed send, whatever the library does inside:
 *   - Wait, Test, Waitany, Testany, Waitsome, Testsome, Waitall, Testall give MPI_REQUEST_NULL
 *     back; Wait / Test / Waitany / Testany leave the status's MPI_ERROR alone, and
 *     MPI_Test_cancelled says false;
 *   - MPI_Request_get_status says complete and leaves the handle; a Wait after it still works;
 *   - MPI_Cancel of such a send, then Wait: not cancelled (the message arrives);
 *   - MPI_Request_free sets MPI_REQUEST_NULL and the message still arrives;
 *   - MPI_Request_c2f / f2c give the handle back;
 *   - the communicator freed before the Wait; 200 sends in flight at once;
 * every message checked at the receiver, in order. Ranks 0 and 1 do it twice, each side once
 * the sender; the other ranks wait.
 * Then MPI_Waitall over a mixed array: MPI_REQUEST_NULL, a generalized request completed by
 * another thread while the Waitall waits (before it, without MPI_THREAD_MULTIPLE), a receive
 * whose message the peer sends only after it got a later request's 1 MiB send (so the wait for
 * the first needs the progress of the other), an inactive persistent send, a small send, a
 * truncated receive (MPI_ERR_IN_STATUS, that status MPI_ERR_TRUNCATE, the others MPI_SUCCESS)
 * and an active persistent receive (inactive after, still allocated, restartable).
 * With MT_SENT_SHARED=1 (Ibex, where the fast path must be taken: shm and verbs without small
 * eager limits), two small MPI_Isends in a row must also give the same handle: the shared one.
 */
#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

#include "mpitest.h"

enum { TAG = 3, MANY = 200, BIG = 1 << 20 };

static int64_t value(int64_t k, int from)
{
    return (k + 1) * 1000003 + from;
}

/* The sender's side: message k of this round holds value(k, rank). */
typedef struct sender {
    int peer, rank;
    int64_t k;
    int64_t buf[MANY + 8]; /* one slot a message in flight */
} sender_t;

enum { DUP_VALUE = -7, END_VALUE = -1 };

/* Message k on MPI_COMM_WORLD (the order the receiver checks), DUP_VALUE on another. */
static MPI_Request isend_on(sender_t *s, MPI_Comm comm, int slot)
{
    MPI_Request r = MPI_REQUEST_NULL;
    s->buf[slot] = comm == MPI_COMM_WORLD ? value(s->k++, s->rank) : DUP_VALUE;
    CHECK_RC(MPI_Isend(&s->buf[slot], 1, MPI_INT64_T, s->peer, TAG, comm, &r));
    CHECK(r != MPI_REQUEST_NULL);
    return r;
}

static MPI_Request isend(sender_t *s, int slot)
{
    return isend_on(s, MPI_COMM_WORLD, slot);
}

/* A status filled with values no completion call would set. */
static void garbage(MPI_Status *st)
{
    st->MPI_SOURCE = 12345;
    st->MPI_TAG = 23456;
    st->MPI_ERROR = 34567;
}

static void not_cancelled(const MPI_Status *st)
{
    int flag = 1;
    CHECK_RC(MPI_Test_cancelled(st, &flag));
    CHECK(!flag);
}

static void single_calls(sender_t *s)
{
    MPI_Request r;
    MPI_Status st;
    int flag = 0, index = -1;
    garbage(&st);
    r = isend(s, 0);
    CHECK_RC(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL && st.MPI_ERROR == 34567);
    not_cancelled(&st);
    CHECK_RC(MPI_Wait(&r, &st)); /* a null request: the empty status */
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG);

    garbage(&st);
    r = isend(s, 1);
    for (flag = 0; !flag;)
        CHECK_RC(MPI_Test(&r, &flag, &st));
    CHECK(r == MPI_REQUEST_NULL && st.MPI_ERROR == 34567);
    not_cancelled(&st);

    MPI_Request a[3] = {MPI_REQUEST_NULL, isend(s, 2), MPI_REQUEST_NULL};
    garbage(&st);
    CHECK_RC(MPI_Waitany(3, a, &index, &st));
    CHECK(index == 1 && a[1] == MPI_REQUEST_NULL && st.MPI_ERROR == 34567);
    not_cancelled(&st);
    CHECK_RC(MPI_Waitany(3, a, &index, &st));
    CHECK(index == MPI_UNDEFINED);

    a[0] = isend(s, 3);
    garbage(&st);
    for (flag = 0; !flag;)
        CHECK_RC(MPI_Testany(3, a, &index, &flag, &st));
    CHECK(index == 0 && a[0] == MPI_REQUEST_NULL && st.MPI_ERROR == 34567);
    not_cancelled(&st);
}

/* Waitsome / Testsome: each index reported once, every handle null at the end. */
static void some_calls(sender_t *s, bool wait)
{
    enum { N = 5 };
    MPI_Request a[N];
    MPI_Status st[N];
    int seen[N] = {0}, left = N - 1, idx[N], out;
    for (int i = 0; i < N; i++)
        a[i] = i == 2 ? MPI_REQUEST_NULL : isend(s, i);
    while (left > 0) {
        if (wait)
            CHECK_RC(MPI_Waitsome(N, a, &out, idx, st));
        else
            CHECK_RC(MPI_Testsome(N, a, &out, idx, st));
        CHECK(out != MPI_UNDEFINED && out >= (wait ? 1 : 0));
        for (int j = 0; j < out; j++) {
            CHECK(idx[j] != 2 && !seen[idx[j]] && a[idx[j]] == MPI_REQUEST_NULL);
            seen[idx[j]] = 1;
            not_cancelled(&st[j]);
            left--;
        }
    }
    CHECK_RC(MPI_Waitsome(N, a, &out, idx, st));
    CHECK(out == MPI_UNDEFINED);
}

static void all_calls(sender_t *s)
{
    enum { N = 4 };
    MPI_Request a[N];
    MPI_Status st[N];
    for (int i = 0; i < N; i++)
        a[i] = isend(s, i);
    CHECK_RC(MPI_Waitall(N, a, st));
    for (int i = 0; i < N; i++) {
        CHECK(a[i] == MPI_REQUEST_NULL);
        not_cancelled(&st[i]);
    }
    int flag = 0;
    for (int i = 0; i < N; i++)
        a[i] = i == 1 ? MPI_REQUEST_NULL : isend(s, i);
    while (!flag)
        CHECK_RC(MPI_Testall(N, a, &flag, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++)
        CHECK(a[i] == MPI_REQUEST_NULL);
    /* many at once, more than any small pool chunk */
    MPI_Request *m = malloc(MANY * sizeof(*m));
    CHECK(m);
    for (int i = 0; i < MANY; i++)
        m[i] = isend(s, i);
    CHECK_RC(MPI_Waitall(MANY, m, MPI_STATUSES_IGNORE));
    for (int i = 0; i < MANY; i++)
        CHECK(m[i] == MPI_REQUEST_NULL);
    free(m);
}

/* The calls that do not complete the request, and those that give it up. */
static void other_calls(sender_t *s, MPI_Comm dup)
{
    MPI_Request r = isend(s, 0), keep = r;
    MPI_Status st;
    int flag = 0;
    while (!flag)
        CHECK_RC(MPI_Request_get_status(r, &flag, &st));
    CHECK(r == keep); /* not freed */
    not_cancelled(&st);
    flag = 0;
    CHECK_RC(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && r == keep);
    CHECK_RC(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL);

    r = isend(s, 1);
    CHECK_RC(MPI_Cancel(&r));
    CHECK_RC(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL);
    not_cancelled(&st); /* and the receiver gets it */

    r = isend(s, 2);
    CHECK_RC(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL);
    MPI_Request r2 = isend(s, 3);
    r = isend(s, 4);
    CHECK_RC(MPI_Request_free(&r2));
    CHECK_RC(MPI_Request_free(&r));

    r = isend(s, 5);
    MPI_Fint f = MPI_Request_c2f(r);
    MPI_Request back = MPI_Request_f2c(f);
    CHECK(back == r);
    CHECK_RC(MPI_Wait(&back, MPI_STATUS_IGNORE));
    CHECK(back == MPI_REQUEST_NULL);

    /* the communicator goes before the request does; its error handler is never called */
    CHECK_RC(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    r = isend_on(s, dup, 6);
    CHECK_RC(MPI_Comm_free(&dup));
    CHECK_RC(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL);
}

/* Ibex only (MT_SENT_SHARED=1): once the peer is reached, two small sends in a row return the
 * same handle, the shared completed send. */
static void shared_handle(sender_t *s)
{
    const char *e = getenv("MT_SENT_SHARED");
    if (!e || strcmp(e, "1") != 0)
        return;
    MPI_Request a = isend(s, 0), b = isend(s, 1), keep = a;
    CHECK(a == b);
    CHECK_RC(MPI_Wait(&a, MPI_STATUS_IGNORE));
    CHECK(a == MPI_REQUEST_NULL && b == keep);
    CHECK_RC(MPI_Wait(&b, MPI_STATUS_IGNORE));
    CHECK(b == MPI_REQUEST_NULL);
}

/* The receiver takes the round's messages in order, each checked, until the end marker; the
 * one on the other communicator was posted first (a rendezvous send waits for it). */
static void receive_all(int peer, MPI_Comm dup)
{
    int64_t got, on_dup = 0;
    MPI_Request rd;
    CHECK_RC(MPI_Irecv(&on_dup, 1, MPI_INT64_T, peer, TAG, dup, &rd));
    for (int64_t k = 0;; k++) {
        MPI_Status st;
        CHECK_RC(MPI_Recv(&got, 1, MPI_INT64_T, peer, TAG, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == TAG);
        if (got == END_VALUE)
            break;
        if (got != value(k, peer))
            fprintf(stderr, "message %lld: %lld, not %lld\n", (long long)k, (long long)got,
                    (long long)value(k, peer));
        CHECK(got == value(k, peer));
    }
    CHECK_RC(MPI_Wait(&rd, MPI_STATUS_IGNORE));
    CHECK(on_dup == DUP_VALUE);
    CHECK_RC(MPI_Comm_free(&dup));
}

/* One round: sender_rank sends, the other receives. dup is this round's copy of
 * MPI_COMM_WORLD (each side frees its own: the sender before its last Wait). */
static void handle_round(int rank, int sender_rank, MPI_Comm dup)
{
    int peer = 1 - rank;
    if (rank != sender_rank) {
        receive_all(peer, dup);
        return;
    }
    sender_t *s = calloc(1, sizeof(*s));
    CHECK(s);
    s->peer = peer, s->rank = rank;
    /* a first message: the peer is reached (verbs connects on first use) */
    MPI_Request r = isend(s, 0);
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    shared_handle(s);
    single_calls(s);
    some_calls(s, true);
    some_calls(s, false);
    all_calls(s);
    other_calls(s, dup);
    int64_t end = END_VALUE;
    CHECK_RC(MPI_Send(&end, 1, MPI_INT64_T, peer, TAG, MPI_COMM_WORLD));
    free(s);
}

/* ---- the mixed Waitall ---- */

typedef struct greq_state {
    int queried, freed;
    MPI_Request req;
} greq_state_t;

static int g_query(void *extra, MPI_Status *st)
{
    greq_state_t *g = extra;
    g->queried++;
    st->MPI_SOURCE = 42;
    st->MPI_TAG = 43;
    st->MPI_ERROR = MPI_SUCCESS;
    MPI_Status_set_elements(st, MPI_BYTE, 3);
    MPI_Status_set_cancelled(st, 0);
    return MPI_SUCCESS;
}

static int g_free(void *extra)
{
    ((greq_state_t *)extra)->freed++;
    return MPI_SUCCESS;
}

static int g_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

static void *g_completer(void *arg)
{
    greq_state_t *g = arg;
    usleep(20000); /* the main thread is in MPI_Waitall by then, most likely */
    CHECK_RC(MPI_Grequest_complete(g->req));
    return NULL;
}

static void empty_status(const MPI_Status *st)
{
    int count = -1;
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG);
    CHECK_RC(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK(count == 0);
}

enum { M_NULL, M_GREQ, M_DEP, M_PSEND, M_BIG, M_SMALL, M_TRUNC, M_PRECV, M_N };

static void mixed_waitall_0(int threads)
{
    unsigned char *big = malloc(BIG);
    CHECK(big);
    mt_fill(big, BIG, 7);
    int64_t dep = 0, small = 99, trunc[2] = {0, 0}, pin = -1, pout = 5;
    greq_state_t g = {0, 0, MPI_REQUEST_NULL};
    MPI_Request r[M_N], ps, pr;
    MPI_Status st[M_N];
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Grequest_start(g_query, g_free, g_cancel, &g, &g.req));
    CHECK_RC(MPI_Send_init(&pout, 1, MPI_INT64_T, 1, 40, MPI_COMM_WORLD, &ps));
    CHECK_RC(MPI_Recv_init(&pin, 1, MPI_INT64_T, 1, 34, MPI_COMM_WORLD, &pr));
    r[M_NULL] = MPI_REQUEST_NULL;
    r[M_GREQ] = g.req;
    CHECK_RC(MPI_Irecv(&dep, 1, MPI_INT64_T, 1, 31, MPI_COMM_WORLD, &r[M_DEP]));
    r[M_PSEND] = ps;
    CHECK_RC(MPI_Isend(big, BIG, MPI_BYTE, 1, 30, MPI_COMM_WORLD, &r[M_BIG]));
    CHECK_RC(MPI_Isend(&small, 1, MPI_INT64_T, 1, 32, MPI_COMM_WORLD, &r[M_SMALL]));
    CHECK_RC(MPI_Irecv(trunc, 4, MPI_BYTE, 1, 33, MPI_COMM_WORLD, &r[M_TRUNC]));
    CHECK_RC(MPI_Start(&pr));
    r[M_PRECV] = pr;
    for (int i = 0; i < M_N; i++)
        garbage(&st[i]);
    pthread_t t;
    if (threads)
        CHECK(pthread_create(&t, NULL, g_completer, &g) == 0);
    else
        CHECK_RC(MPI_Grequest_complete(g.req));
    int rc = MPI_Waitall(M_N, r, st), cls = -1;
    if (threads)
        CHECK(pthread_join(t, NULL) == 0);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_IN_STATUS);
    for (int i = 0; i < M_N; i++) {
        if (i == M_TRUNC)
            continue;
        if (st[i].MPI_ERROR != MPI_SUCCESS)
            fprintf(stderr, "status %d: error %d\n", i, st[i].MPI_ERROR);
        CHECK(st[i].MPI_ERROR == MPI_SUCCESS);
    }
    MPI_Error_class(st[M_TRUNC].MPI_ERROR, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE);
    CHECK(st[M_TRUNC].MPI_SOURCE == 1 && st[M_TRUNC].MPI_TAG == 33);
    CHECK(r[M_NULL] == MPI_REQUEST_NULL);
    empty_status(&st[M_NULL]);
    int count = -1;
    CHECK(r[M_GREQ] == MPI_REQUEST_NULL && g.queried == 1 && g.freed == 1);
    CHECK(st[M_GREQ].MPI_SOURCE == 42 && st[M_GREQ].MPI_TAG == 43);
    CHECK_RC(MPI_Get_count(&st[M_GREQ], MPI_BYTE, &count));
    CHECK(count == 3);
    CHECK(r[M_DEP] == MPI_REQUEST_NULL && dep == 4242);
    CHECK(st[M_DEP].MPI_SOURCE == 1 && st[M_DEP].MPI_TAG == 31);
    CHECK(r[M_PSEND] == ps); /* inactive: left alone, empty status */
    empty_status(&st[M_PSEND]);
    CHECK(r[M_BIG] == MPI_REQUEST_NULL && r[M_SMALL] == MPI_REQUEST_NULL);
    not_cancelled(&st[M_BIG]);
    not_cancelled(&st[M_SMALL]);
    CHECK(r[M_TRUNC] == MPI_REQUEST_NULL);
    CHECK(r[M_PRECV] == pr && pin == 5); /* inactive now, still allocated */
    CHECK(st[M_PRECV].MPI_SOURCE == 1 && st[M_PRECV].MPI_TAG == 34);
    /* both persistent requests start again; without statuses and with nothing failing,
     * Waitall returns MPI_SUCCESS over nulls, an inactive request and completed ones */
    MPI_Request again[5] = {MPI_REQUEST_NULL, pr, ps, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    pin = -1;
    CHECK_RC(MPI_Start(&again[1]));
    CHECK_RC(MPI_Start(&again[2]));
    CHECK_RC(MPI_Isend(&small, 1, MPI_INT64_T, 1, 35, MPI_COMM_WORLD, &again[3]));
    CHECK_RC(MPI_Waitall(5, again, MPI_STATUSES_IGNORE));
    CHECK(again[1] == pr && again[2] == ps && again[3] == MPI_REQUEST_NULL && pin == 5);
    CHECK_RC(MPI_Waitall(5, again, MPI_STATUSES_IGNORE)); /* all inactive or null now */
    CHECK_RC(MPI_Request_free(&pr));
    CHECK_RC(MPI_Request_free(&ps));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    free(big);
}

static void mixed_waitall_1(void)
{
    unsigned char *big = malloc(BIG);
    CHECK(big);
    int64_t dep = 4242, eight = 0x0102030405060708ll, small = 0, p = 5;
    /* rank 0 waits for M_DEP first (after the generalized request): it comes only once the
     * 1 MiB send, later in rank 0's array, has arrived here */
    CHECK_RC(MPI_Recv(big, BIG, MPI_BYTE, 0, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(mt_verify(big, BIG, 7) == (size_t)-1);
    CHECK_RC(MPI_Send(&dep, 1, MPI_INT64_T, 0, 31, MPI_COMM_WORLD));
    CHECK_RC(MPI_Send(&eight, 1, MPI_INT64_T, 0, 33, MPI_COMM_WORLD)); /* 8 B into 4 */
    CHECK_RC(MPI_Send(&p, 1, MPI_INT64_T, 0, 34, MPI_COMM_WORLD));
    CHECK_RC(MPI_Recv(&small, 1, MPI_INT64_T, 0, 32, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(small == 99);
    /* the restart */
    CHECK_RC(MPI_Send(&p, 1, MPI_INT64_T, 0, 34, MPI_COMM_WORLD));
    CHECK_RC(MPI_Recv(&small, 1, MPI_INT64_T, 0, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(small == 5);
    CHECK_RC(MPI_Recv(&small, 1, MPI_INT64_T, 0, 35, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(small == 99);
    free(big);
}

int main(int argc, char **argv)
{
    int rank, size, provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2);
    for (int round = 0; round < 2; round++) {
        MPI_Comm dup;
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        if (rank < 2)
            handle_round(rank, round, dup);
        else
            CHECK_RC(MPI_Comm_free(&dup));
        mt_barrier(MPI_COMM_WORLD);
    }
    if (rank == 0)
        mixed_waitall_0(provided == MPI_THREAD_MULTIPLE);
    else if (rank == 1)
        mixed_waitall_1();
    mt_barrier(MPI_COMM_WORLD);
    mt_done("p2p_sent");
    MPI_Finalize();
    return 0;
}
