/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The posted-receive queue's two ways out interleaved: messages that the oldest posted receive
 * takes (the inline take of the head) and messages that a receive in the middle or at the tail
 * takes (the search), with cancels of posted receives (head, middle, tail, the only one) in
 * between, MPI_ANY_SOURCE / MPI_ANY_TAG receives, a blocking MPI_Recv among the posted ones and
 * messages of every protocol size (empty, 8 B, 100 B, 64 KiB). Rank 0 receives; rank 1 sends,
 * and with 3 ranks or more rank 2 too. Each phase posts and cancels first, then a barrier, then
 * the sends: so every message arrives with the receives posted, and the receive that takes it is
 * fixed by MPI's rule (the first posted that matches) whatever the timing. Every message carries
 * its (source, tag, round) pattern; each receive checks source, tag, count and bytes.
 * Written against the MPI standard only. Rounds: argv[1] (default 12).
 */
#include "mpitest.h"

#define BIG (64 * 1024)

typedef struct rx {
    MPI_Request req;
    char *buf;
} rx_t;

static int g_round;

/* Each message's size follows its tag and the round, so every size meets every position. */
static int msg_len(int tag)
{
    static const int sizes[] = {8, 0, 100, BIG, 16, 4};
    return sizes[(tag + g_round) % 6];
}

static unsigned msg_seed(int src, int tag)
{
    return (unsigned)(src * 100003 + tag * 101 + g_round * 7);
}

/* Sends message tag (isend: returns its request, from one of 4 buffers; else blocking). */
static void send_msg_req(int tag, MPI_Request *req)
{
    static char bufs[4][BIG];
    static int next;
    char *buf = bufs[next++ % 4];
    int me, len = msg_len(tag);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    mt_fill(buf, (size_t)len, msg_seed(me, tag));
    if (req)
        CHECK_RC(MPI_Isend(buf, len, MPI_BYTE, 0, tag, MPI_COMM_WORLD, req));
    else
        CHECK_RC(MPI_Send(buf, len, MPI_BYTE, 0, tag, MPI_COMM_WORLD));
}

static void send_msg(int tag)
{
    send_msg_req(tag, NULL);
}

static void post(rx_t *r, int src, int tag)
{
    r->buf = malloc(BIG);
    CHECK(r->buf);
    memset(r->buf, 0xee, BIG);
    CHECK_RC(MPI_Irecv(r->buf, BIG, MPI_BYTE, src, tag, MPI_COMM_WORLD, &r->req));
}

/* The receive took message (src, tag): its status and its bytes. */
static void expect_msg(rx_t *r, int src, int tag)
{
    MPI_Status st;
    int n, len = msg_len(tag);
    CHECK_RC(MPI_Wait(&r->req, &st));
    CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &n));
    if (st.MPI_SOURCE != src || st.MPI_TAG != tag || n != len) {
        fprintf(stderr, "round %d: receive got (src %d, tag %d, %d B), expected (%d, %d, %d B)\n",
                g_round, st.MPI_SOURCE, st.MPI_TAG, n, src, tag, len);
        CHECK(0);
    }
    CHECK(mt_verify(r->buf, (size_t)len, msg_seed(src, tag)) == (size_t)-1);
    CHECK((unsigned char)r->buf[len] == 0xee || len == BIG);
    free(r->buf);
}

static void cancel(rx_t *r)
{
    MPI_Status st;
    int flag;
    CHECK_RC(MPI_Cancel(&r->req));
    CHECK_RC(MPI_Wait(&r->req, &st));
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag);
    free(r->buf);
}

/* Phase 1: a message for the middle (search), one for the head (inline), then the heads left,
 * the last one head and tail at once, with a cancelled receive in the middle. */
static void phase1(int rank)
{
    rx_t a, b, c, d, e;
    if (rank == 0) {
        post(&a, 1, 10);
        post(&b, 1, 11);
        post(&c, MPI_ANY_SOURCE, 12);
        post(&d, 1, MPI_ANY_TAG);
        post(&e, MPI_ANY_SOURCE, MPI_ANY_TAG);
        cancel(&b);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        send_msg(12); /* c: the middle */
        send_msg(10); /* a: the head */
        send_msg(99); /* d: the head now */
        send_msg(11); /* e: head and tail (b, its first taker, is cancelled) */
    }
    if (rank == 0) {
        expect_msg(&c, 1, 12);
        expect_msg(&a, 1, 10);
        expect_msg(&d, 1, 99);
        expect_msg(&e, 1, 11);
    }
}

/* Phase 2: cancels around a head whose prev names a taken receive, then the tail by search,
 * head-and-tail inline, an empty queue appended to, a blocking receive among posted ones. */
static void phase2(int rank)
{
    rx_t f, g, h, i, j, l, m;
    if (rank == 0) {
        post(&f, 1, 20);
        post(&g, 1, 21);
        post(&h, 1, 22);
        post(&i, MPI_ANY_SOURCE, 23);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        send_msg(20); /* f: the head, inline; g's prev names f from now on */
    if (rank == 0) {
        expect_msg(&f, 1, 20);
        cancel(&h); /* the middle: g before, i after */
        cancel(&g); /* the head */
        post(&j, 1, 24);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        send_msg(24); /* j: the tail, by search past i */
        send_msg(23); /* i: head and tail */
        send_msg(25); /* the blocking receive below */
    }
    if (rank == 0) {
        expect_msg(&j, 1, 24);
        expect_msg(&i, 1, 23);
        char *buf = malloc(BIG);
        MPI_Status st;
        int n;
        CHECK(buf);
        CHECK_RC(MPI_Recv(buf, BIG, MPI_BYTE, 1, 25, MPI_COMM_WORLD, &st));
        CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(st.MPI_TAG == 25 && n == msg_len(25));
        CHECK(mt_verify(buf, (size_t)n, msg_seed(1, 25)) == (size_t)-1);
        free(buf);
        post(&l, 1, 26);
        cancel(&l); /* the only one: the queue is empty again */
        post(&m, 1, 26);
        post(&l, MPI_ANY_SOURCE, MPI_ANY_TAG);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        send_msg(26); /* m, the head (the cancelled l is gone) */
        send_msg(27); /* l, now head and tail */
    }
    if (rank == 0) {
        expect_msg(&m, 1, 26);
        expect_msg(&l, 1, 27);
        post(&f, 1, 28);
        post(&g, 1, 29);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        send_msg(28); /* f, inline: g is head and tail, its prev names f */
    if (rank == 0) {
        expect_msg(&f, 1, 28);
        cancel(&g); /* the queue is empty: no tail left naming f (dad76be) */
        post(&h, 1, 29);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        send_msg(29); /* h, which is only found if it was appended to an empty queue */
    if (rank == 0)
        expect_msg(&h, 1, 29);
}

/* Phase 3 (3 ranks or more): two senders at once. Whatever their interleaving, rank 2's tag 30
 * takes n (the head), rank 1's first tag 30 o (ANY_SOURCE), its second p, rank 2's tag 31 q. */
static void phase3(int rank)
{
    rx_t n, o, p, q, x;
    if (rank == 0) {
        post(&n, 2, 30);
        post(&x, 2, 32);
        post(&o, MPI_ANY_SOURCE, 30);
        post(&p, 1, 30);
        post(&q, MPI_ANY_SOURCE, MPI_ANY_TAG);
        cancel(&x);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        send_msg(30);
        send_msg(30);
    }
    if (rank == 2) {
        send_msg(30);
        send_msg(31);
    }
    if (rank == 0) {
        expect_msg(&o, 1, 30);
        expect_msg(&p, 1, 30);
        expect_msg(&n, 2, 30);
        expect_msg(&q, 2, 31);
    }
}

/* Phase 4: messages that may arrive before their receives (unexpected) or after (posted):
 * posted in another order than sent, each has one taker either way. The first barrier: no
 * wildcard receive of the phase before is still posted when they are sent. */
static void phase4(int rank)
{
    rx_t r, s, t;
    MPI_Request sr[3];
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) /* started before the receives are posted, completed after */
        for (int i = 0; i < 3; i++)
            send_msg_req(40 + i, &sr[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        CHECK_RC(MPI_Waitall(3, sr, MPI_STATUSES_IGNORE));
    if (rank == 0) {
        post(&r, 1, 41);
        post(&s, 1, 40);
        post(&t, 1, MPI_ANY_TAG);
        expect_msg(&t, 1, 42);
        expect_msg(&s, 1, 40);
        expect_msg(&r, 1, 41);
    }
}

int main(int argc, char **argv)
{
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 12;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2);
    for (g_round = 0; g_round < rounds; g_round++) {
        phase1(rank);
        phase2(rank);
        if (size >= 3)
            phase3(rank);
        phase4(rank);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    mt_done("p2p_match_mix");
    MPI_Finalize();
    return 0;
}
