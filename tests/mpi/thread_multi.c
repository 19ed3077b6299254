/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_THREAD_MULTIPLE: several threads per rank call MPI at once. Usage:
 *   thread_multi THREADS PHASES     (PHASES: a comma list of the names below;
 *                                    default all)
 * p2p      each thread exchanges messages of eager and rendezvous sizes with the same thread of
 *          the partner rank (rank ^ 1), on its own tag, blocking and non-blocking mixed
 * anysrc   every thread of every rank sends to rank 0, whose threads receive on their own tag
 *          from MPI_ANY_SOURCE with MPI_Mprobe / MPI_Mrecv; every message counted and checked
 * anyall   as anysrc, but every receiving thread takes any message (MPI_ANY_SOURCE and
 *          MPI_ANY_TAG, Mprobe then Mrecv, racing for the same messages); each message, which
 *          names its sender, thread and number in its first words, must arrive exactly once
 * coll     each thread runs Allreduce, Bcast, Alltoall and Barrier on its own duplicate of
 *          MPI_COMM_WORLD, all threads at once
 * dup      each thread duplicates and frees communicators of its own parent in a loop, all at
 *          once (context-id agreements from several threads)
 * ctxmix   each thread, in a loop, duplicates MPI_COMM_SELF under a process-wide mutex (as MPI
 *          requires of collectives on one communicator) and then builds communicators of its
 *          own parent with Comm_dup, Comm_split, Comm_create_group and Intercomm_create
 *          (between its halves), one thread per rank
 *          late (MPICH's threads/comm/comm_dup_deadlock and comm_create_group_threads: an
 *          agreement on MPI_COMM_SELF that waited for another thread's round in flight closed a
 *          cycle across ranks)
 * persist  each thread starts and completes its persistent send / receive pair in a loop
 * self     threads of one rank pair up (t with t ^ 1) and exchange many small messages through
 *          the rank itself, so that they meet in the same queues at the same time
 * wait     a thread waits on a receive that only another thread's send completes
 * cancel   each thread cancels a receive that nothing matches (cancelled) and one that races
 *          with the partner thread's send (cancelled, and then received anew, or not: the
 *          message arrives exactly once either way)
 * poll     even threads complete rendezvous receives by polling MPI_Test while odd threads
 *          block in MPI_Sendrecv: each side's progress serves the other's
 * solo     (always first, before any other thread has called MPI) the main thread blocks in a
 *          self-receive that only a thread started after it completes: the lock elided while
 *          one thread uses MPI must hand over (runtime/base/thread.c) without a hang
 * Every payload is a function of (sender, thread, iteration, index) checked by the receiver.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "thread_multi: rank %d: %s:%d: check failed: %s\n", rank, __FILE__,    \
                    __LINE__, #cond);                                                              \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

enum { MAX_THREADS = 16, ITERS = 40, ANY_MSGS = 20 };

static int rank, size, nthreads;
static MPI_Comm thread_comm[MAX_THREADS];

static uint32_t value(int sender, int thread, int iter, size_t i)
{
    return (uint32_t)(sender * 1000003u + thread * 10007u + iter * 101u + i);
}

static void fill(uint32_t *buf, size_t n, int sender, int thread, int iter)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = value(sender, thread, iter, i);
}

static int check_buf(const uint32_t *buf, size_t n, int sender, int thread, int iter)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != value(sender, thread, iter, i))
            return 0;
    return 1;
}

/* eager and rendezvous sizes, in 4-byte words */
static size_t p2p_words(int iter)
{
    static const size_t sizes[] = {0, 1, 7, 256, 4096, 70000};
    return sizes[iter % 6];
}

static void *p2p_thread(void *arg)
{
    int t = (int)(intptr_t)arg, peer = rank ^ 1;
    uint32_t *sbuf = malloc(70000 * 4), *rbuf = malloc(70000 * 4);
    CHECK(sbuf && rbuf);
    for (int it = 0; it < ITERS; it++) {
        size_t n = p2p_words(it);
        fill(sbuf, n, rank, t, it);
        memset(rbuf, 0, n * 4);
        MPI_Status st;
        if (it % 2) {
            MPI_Request r[2];
            CHECK(MPI_Irecv(rbuf, (int)n, MPI_UINT32_T, peer, t, MPI_COMM_WORLD, &r[0]) ==
                  MPI_SUCCESS);
            CHECK(MPI_Isend(sbuf, (int)n, MPI_UINT32_T, peer, t, MPI_COMM_WORLD, &r[1]) ==
                  MPI_SUCCESS);
            CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        } else {
            CHECK(MPI_Sendrecv(sbuf, (int)n, MPI_UINT32_T, peer, t, rbuf, (int)n, MPI_UINT32_T,
                               peer, t, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
            CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == t);
        }
        CHECK(check_buf(rbuf, n, peer, t, it));
    }
    free(sbuf);
    free(rbuf);
    return NULL;
}

static void *anysrc_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    uint32_t buf[64];
    if (rank != 0) {
        for (int it = 0; it < ANY_MSGS; it++) {
            fill(buf, (size_t)(it % 64), rank, t, it);
            CHECK(MPI_Send(buf, it % 64, MPI_UINT32_T, 0, t, MPI_COMM_WORLD) == MPI_SUCCESS);
        }
        return NULL;
    }
    int next[64] = {0}; /* per sender: messages from one sender on one tag arrive in order */
    for (int m = 0; m < ANY_MSGS * (size - 1); m++) {
        MPI_Message msg;
        MPI_Status st;
        int count;
        CHECK(MPI_Mprobe(MPI_ANY_SOURCE, t, MPI_COMM_WORLD, &msg, &st) == MPI_SUCCESS);
        CHECK(st.MPI_TAG == t && st.MPI_SOURCE > 0 && st.MPI_SOURCE < size);
        CHECK(MPI_Get_count(&st, MPI_UINT32_T, &count) == MPI_SUCCESS);
        int src = st.MPI_SOURCE, it = next[src]++;
        CHECK(count == it % 64);
        CHECK(MPI_Mrecv(buf, count, MPI_UINT32_T, &msg, &st) == MPI_SUCCESS);
        CHECK(check_buf(buf, (size_t)count, src, t, it));
    }
    for (int s = 1; s < size; s++)
        CHECK(next[s] == ANY_MSGS);
    return NULL;
}

static int seen[64][MAX_THREADS][ANY_MSGS];

static void *anyall_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    uint32_t buf[64];
    if (rank != 0) {
        for (int it = 0; it < ANY_MSGS; it++) {
            int n = 3 + it % 61;
            fill(buf, (size_t)n, rank, t, it);
            buf[0] = (uint32_t)rank, buf[1] = (uint32_t)t, buf[2] = (uint32_t)it;
            CHECK(MPI_Send(buf, n, MPI_UINT32_T, 0, 300 + t, MPI_COMM_WORLD) == MPI_SUCCESS);
        }
        return NULL;
    }
    for (int m = 0; m < ANY_MSGS * (size - 1); m++) { /* nthreads x this = every message */
        MPI_Message msg;
        MPI_Status st;
        int count;
        CHECK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, MPI_UINT32_T, &count) == MPI_SUCCESS && count >= 3);
        CHECK(MPI_Mrecv(buf, count, MPI_UINT32_T, &msg, &st) == MPI_SUCCESS);
        int src = (int)buf[0], th = (int)buf[1], it = (int)buf[2];
        CHECK(src == st.MPI_SOURCE && th < nthreads && it < ANY_MSGS && st.MPI_TAG == 300 + th);
        CHECK(count == 3 + it % 61);
        for (int i = 3; i < count; i++)
            CHECK(buf[i] == value(src, th, it, (size_t)i));
        CHECK(__atomic_fetch_add(&seen[src][th][it], 1, __ATOMIC_RELAXED) == 0);
    }
    return NULL;
}

static void *coll_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm c = thread_comm[t];
    long *a2a = malloc(sizeof(long) * 2 * (size_t)size);
    CHECK(a2a);
    for (int it = 0; it < ITERS; it++) {
        long v = rank + t * 100 + it, sum = -1;
        CHECK(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, c) == MPI_SUCCESS);
        CHECK(sum == (long)size * (size - 1) / 2 + (long)size * (t * 100 + it));
        long b = rank == it % size ? t * 7 + it : -1;
        CHECK(MPI_Bcast(&b, 1, MPI_LONG, it % size, c) == MPI_SUCCESS);
        CHECK(b == t * 7 + it);
        for (int r = 0; r < size; r++)
            a2a[r] = rank * 1000 + r * 10 + t + it;
        CHECK(MPI_Alltoall(a2a, 1, MPI_LONG, a2a + size, 1, MPI_LONG, c) == MPI_SUCCESS);
        for (int r = 0; r < size; r++)
            CHECK(a2a[size + r] == r * 1000 + rank * 10 + t + it);
        CHECK(MPI_Barrier(c) == MPI_SUCCESS);
    }
    free(a2a);
    return NULL;
}

static void *dup_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int it = 0; it < ITERS / 2; it++) {
        MPI_Comm d;
        int r, s, cmp;
        CHECK(MPI_Comm_dup(thread_comm[t], &d) == MPI_SUCCESS);
        CHECK(MPI_Comm_rank(d, &r) == MPI_SUCCESS && r == rank);
        CHECK(MPI_Comm_size(d, &s) == MPI_SUCCESS && s == size);
        CHECK(MPI_Comm_compare(d, thread_comm[t], &cmp) == MPI_SUCCESS && cmp == MPI_CONGRUENT);
        /* traffic on the new one: a context shared with another thread's would mix them up */
        long v = t * 1000 + it, sum = -1;
        CHECK(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, d) == MPI_SUCCESS);
        CHECK(sum == (long)size * v);
        CHECK(MPI_Comm_free(&d) == MPI_SUCCESS && d == MPI_COMM_NULL);
    }
    return NULL;
}

static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;

static void ctxmix_self(void)
{
    MPI_Comm d;
    int s;
    CHECK(pthread_mutex_lock(&self_lock) == 0);
    CHECK(MPI_Comm_dup(MPI_COMM_SELF, &d) == MPI_SUCCESS);
    CHECK(pthread_mutex_unlock(&self_lock) == 0);
    CHECK(MPI_Comm_size(d, &s) == MPI_SUCCESS && s == 1);
    CHECK(MPI_Barrier(d) == MPI_SUCCESS && MPI_Comm_free(&d) == MPI_SUCCESS);
}

/* a communicator of the parent's, checked by an Allreduce on it and freed */
static void ctxmix_check(MPI_Comm c, long members)
{
    long one = 1, n = 0;
    CHECK(c != MPI_COMM_NULL);
    CHECK(MPI_Allreduce(&one, &n, 1, MPI_LONG, MPI_SUM, c) == MPI_SUCCESS && n == members);
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
}

/* an intercommunicator between the low and the high half of the thread's parent: the two
 * halves' local communicators have different ids (the agreement's priority must not) */
static void ctxmix_inter(int t)
{
    MPI_Comm half, inter;
    int low = rank < size / 2, rsize;
    if (size < 2)
        return;
    CHECK(MPI_Comm_split(thread_comm[t], low, rank, &half) == MPI_SUCCESS);
    CHECK(MPI_Intercomm_create(half, 0, thread_comm[t], low ? size / 2 : 0, t, &inter) ==
          MPI_SUCCESS);
    CHECK(MPI_Comm_remote_size(inter, &rsize) == MPI_SUCCESS);
    CHECK(rsize == (low ? size - size / 2 : size / 2));
    CHECK(MPI_Comm_free(&inter) == MPI_SUCCESS && MPI_Comm_free(&half) == MPI_SUCCESS);
}

static void *ctxmix_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Group g;
    MPI_Comm c;
    CHECK(MPI_Comm_group(thread_comm[t], &g) == MPI_SUCCESS);
    for (int it = 0; it < ITERS / 4; it++) {
        if (t == rank % nthreads)
            nanosleep(&(struct timespec){0, 2000000}, NULL);
        ctxmix_self();
        CHECK(MPI_Comm_dup(thread_comm[t], &c) == MPI_SUCCESS);
        ctxmix_check(c, size);
        CHECK(MPI_Comm_split(thread_comm[t], rank % 2, -rank, &c) == MPI_SUCCESS);
        ctxmix_check(c, (size + (rank % 2 == 0)) / 2);
        CHECK(MPI_Comm_create_group(thread_comm[t], g, t, &c) == MPI_SUCCESS);
        ctxmix_check(c, size);
        ctxmix_inter(t);
    }
    CHECK(MPI_Group_free(&g) == MPI_SUCCESS);
    return NULL;
}

static void *persist_thread(void *arg)
{
    int t = (int)(intptr_t)arg, peer = rank ^ 1;
    uint32_t sbuf[300], rbuf[300];
    MPI_Request r[2];
    CHECK(MPI_Recv_init(rbuf, 300, MPI_UINT32_T, peer, 100 + t, MPI_COMM_WORLD, &r[0]) ==
          MPI_SUCCESS);
    CHECK(MPI_Send_init(sbuf, 300, MPI_UINT32_T, peer, 100 + t, MPI_COMM_WORLD, &r[1]) ==
          MPI_SUCCESS);
    for (int it = 0; it < ITERS; it++) {
        fill(sbuf, 300, rank, t, it);
        CHECK(MPI_Startall(2, r) == MPI_SUCCESS);
        CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        CHECK(check_buf(rbuf, 300, peer, t, it));
    }
    CHECK(MPI_Request_free(&r[0]) == MPI_SUCCESS && MPI_Request_free(&r[1]) == MPI_SUCCESS);
    return NULL;
}

static void *self_thread(void *arg)
{
    int t = (int)(intptr_t)arg, other = t ^ 1;
    if (other >= nthreads)
        return NULL;
    uint32_t sbuf[16], rbuf[16];
    for (int it = 0; it < 50 * ITERS; it++) {
        MPI_Request r[2];
        size_t n = (size_t)(it % 16);
        fill(sbuf, n, rank, t, it);
        CHECK(MPI_Irecv(rbuf, (int)n, MPI_UINT32_T, rank, 200 + other, MPI_COMM_WORLD, &r[0]) ==
              MPI_SUCCESS);
        CHECK(MPI_Isend(sbuf, (int)n, MPI_UINT32_T, rank, 200 + t, MPI_COMM_WORLD, &r[1]) ==
              MPI_SUCCESS);
        CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        CHECK(check_buf(rbuf, n, rank, other, it));
    }
    return NULL;
}

/* thread 0 waits on a self-receive that thread 1 sends only after a barrier-like handshake */
static volatile int wait_posted;

static void *wait_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    uint32_t v = 0;
    if (t == 0) {
        MPI_Request r;
        CHECK(MPI_Irecv(&v, 1, MPI_UINT32_T, rank, 999, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
        __atomic_store_n(&wait_posted, 1, __ATOMIC_RELEASE);
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(v == value(rank, 1, 0, 0));
    } else if (t == 1) {
        while (!__atomic_load_n(&wait_posted, __ATOMIC_ACQUIRE))
            ;
        v = value(rank, 1, 0, 0);
        CHECK(MPI_Send(&v, 1, MPI_UINT32_T, rank, 999, MPI_COMM_WORLD) == MPI_SUCCESS);
    }
    return NULL;
}

static void *cancel_thread(void *arg)
{
    int t = (int)(intptr_t)arg, peer = rank ^ 1, tag = 300 + t;
    MPI_Comm comm = thread_comm[t];
    for (int it = 0; it < ITERS; it++) {
        uint32_t out = value(rank, t, it, 0), in = 0, never = 0;
        int flag;
        MPI_Request s, r, n;
        MPI_Status st;
        CHECK(MPI_Irecv(&never, 1, MPI_UINT32_T, peer, 9999, comm, &n) == MPI_SUCCESS);
        CHECK(MPI_Isend(&out, 1, MPI_UINT32_T, peer, tag, comm, &s) == MPI_SUCCESS);
        CHECK(MPI_Irecv(&in, 1, MPI_UINT32_T, peer, tag, comm, &r) == MPI_SUCCESS);
        CHECK(MPI_Cancel(&r) == MPI_SUCCESS && MPI_Wait(&r, &st) == MPI_SUCCESS);
        CHECK(MPI_Test_cancelled(&st, &flag) == MPI_SUCCESS);
        if (flag) /* cancelled before it matched: the message is still there */
            CHECK(MPI_Recv(&in, 1, MPI_UINT32_T, peer, tag, comm, &st) == MPI_SUCCESS);
        CHECK(in == value(peer, t, it, 0) && st.MPI_SOURCE == peer && st.MPI_TAG == tag);
        CHECK(MPI_Cancel(&n) == MPI_SUCCESS && MPI_Wait(&n, &st) == MPI_SUCCESS);
        CHECK(MPI_Test_cancelled(&st, &flag) == MPI_SUCCESS && flag && never == 0);
        CHECK(MPI_Wait(&s, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
    return NULL;
}

enum { POLL_WORDS = 50000 }; /* 200 KB: rendezvous on every transport */

static void *poll_thread(void *arg)
{
    int t = (int)(intptr_t)arg, peer = rank ^ 1;
    MPI_Comm comm = thread_comm[t];
    uint32_t *sbuf = malloc(POLL_WORDS * 4), *rbuf = malloc(POLL_WORDS * 4);
    CHECK(sbuf && rbuf);
    for (int it = 0; it < ITERS / 4; it++) {
        fill(sbuf, POLL_WORDS, rank, t, it);
        memset(rbuf, 0, POLL_WORDS * 4);
        if (t % 2 == 0) {
            MPI_Request r[2];
            int done = 0;
            CHECK(MPI_Irecv(rbuf, POLL_WORDS, MPI_UINT32_T, peer, 1, comm, &r[0]) == MPI_SUCCESS);
            CHECK(MPI_Isend(sbuf, POLL_WORDS, MPI_UINT32_T, peer, 1, comm, &r[1]) == MPI_SUCCESS);
            while (!done)
                CHECK(MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        } else {
            CHECK(MPI_Sendrecv(sbuf, POLL_WORDS, MPI_UINT32_T, peer, 1, rbuf, POLL_WORDS,
                               MPI_UINT32_T, peer, 1, comm, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        }
        CHECK(check_buf(rbuf, POLL_WORDS, peer, t, it));
    }
    free(sbuf);
    free(rbuf);
    return NULL;
}

static void *solo_sender(void *arg)
{
    (void)arg;
    struct timespec nap = {0, 20 * 1000 * 1000}; /* let the main thread block first */
    nanosleep(&nap, NULL);
    uint32_t v = value(rank, 1, 7, 0);
    CHECK(MPI_Send(&v, 1, MPI_UINT32_T, rank, 998, MPI_COMM_WORLD) == MPI_SUCCESS);
    return NULL;
}

static void solo_handover(void)
{
    pthread_t th;
    uint32_t v = 0;
    CHECK(pthread_create(&th, NULL, solo_sender, NULL) == 0);
    CHECK(MPI_Recv(&v, 1, MPI_UINT32_T, rank, 998, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
          MPI_SUCCESS);
    CHECK(v == value(rank, 1, 7, 0));
    pthread_join(th, NULL);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0)
        printf("thread_multi: solo ok (%d ranks)\n", size);
}

static void run_phase(const char *name, void *(*fn)(void *))
{
    pthread_t th[MAX_THREADS];
    for (int t = 0; t < nthreads; t++)
        CHECK(pthread_create(&th[t], NULL, fn, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0)
        printf("thread_multi: %s ok (%d threads, %d ranks)\n", name, nthreads, size);
}

static int wanted(const char *phases, const char *name)
{
    if (!phases)
        return 1;
    size_t n = strlen(name);
    for (const char *p = phases; (p = strstr(p, name)); p += n)
        if ((p == phases || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE);
    nthreads = argc > 1 ? atoi(argv[1]) : 4;
    const char *phases = argc > 2 ? argv[2] : NULL;
    CHECK(nthreads >= 2 && nthreads <= MAX_THREADS && size <= 64);
    if (wanted(phases, "solo"))
        solo_handover();
    for (int t = 0; t < nthreads; t++)
        CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &thread_comm[t]) == MPI_SUCCESS);
    int even = size % 2 == 0;
    if (even && wanted(phases, "p2p"))
        run_phase("p2p", p2p_thread);
    if (wanted(phases, "anysrc"))
        run_phase("anysrc", anysrc_thread);
    if (wanted(phases, "anyall"))
        run_phase("anyall", anyall_thread);
    if (wanted(phases, "coll"))
        run_phase("coll", coll_thread);
    if (wanted(phases, "dup"))
        run_phase("dup", dup_thread);
    if (wanted(phases, "ctxmix"))
        run_phase("ctxmix", ctxmix_thread);
    if (even && wanted(phases, "persist"))
        run_phase("persist", persist_thread);
    if (wanted(phases, "self"))
        run_phase("self", self_thread);
    if (wanted(phases, "wait"))
        run_phase("wait", wait_thread);
    if (even && wanted(phases, "cancel"))
        run_phase("cancel", cancel_thread);
    if (even && wanted(phases, "poll"))
        run_phase("poll", poll_thread);
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_free(&thread_comm[t]);
    MPI_Finalize();
    if (rank == 0)
        printf("thread_multi: ok\n");
    return 0;
}
