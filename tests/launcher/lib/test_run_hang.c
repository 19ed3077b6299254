/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hang report's analysis (launcher/lib/run_hang_report.c) over records made by hand: the
 * AND/OR graph claims a deadlock exactly for a knot, and each cause has its sentence.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "run_hang_int.h"

#define N 4

typedef struct fake {
    ibex_run_hang_t h;
    bool gone[N];
} fake_t;

static fake_t *fake_new(void)
{
    fake_t *f = calloc(1, sizeof(*f));
    f->h.base = calloc(1, (size_t)IBEX_BLK_OFFSET(N));
    f->h.head = f->h.base;
    f->h.n = N;
    f->h.fd = -1;
    long long now = ibex_run_hang_now_ns();
    f->h.head->start_ns = now - 10000000000LL;
    for (int r = 0; r < N; r++) {
        ibex_blk_page_t *pg = (ibex_blk_page_t *)ibex_run_hang_page(&f->h, r);
        pg->magic = IBEX_BLK_MAGIC;
        pg->rank = r;
        pg->pid = 1000 + r;
        pg->state = IBEX_BLK_STATE_RUNNING;
        f->h.head->changed_ns[r] = now - 5000000000LL;
    }
    return f;
}

static void fake_free(fake_t *f)
{
    free(f->h.base);
    free(f);
}

static ibex_blk_page_t *page(fake_t *f, int r)
{
    return (ibex_blk_page_t *)ibex_run_hang_page(&f->h, r);
}

/* Rank r waits in `call` on MPI_COMM_WORLD (context 0). */
static ibex_blk_page_t *wait_in(fake_t *f, int r, const char *call, bool or_wait)
{
    ibex_blk_page_t *pg = page(f, r);
    pg->waiting = 1;
    pg->or_wait = or_wait;
    pg->since_ns = ibex_run_hang_now_ns() - 3000000000LL;
    snprintf(pg->call, sizeof(pg->call), "%s", call);
    snprintf(pg->comm_name, sizeof(pg->comm_name), "MPI_COMM_WORLD");
    pg->comm_size = N;
    for (int m = 0; m < N; m++)
        pg->members[m / 8] |= (uint8_t)(1u << (m % 8));
    return pg;
}

static void item(ibex_blk_page_t *pg, int kind, int op, int peer, int tag)
{
    ibex_blk_item_t *it = &pg->items[pg->nitems++];
    it->kind = (uint8_t)kind;
    it->op = (uint8_t)op;
    it->peer = kind == IBEX_BLK_PEER ? peer : -1;
    it->rank = kind == IBEX_BLK_PEER ? peer : kind == IBEX_BLK_ANY ? -1 : -1000;
    it->tag = tag;
    it->bytes = 4;
}

/* The report as a string (malloc'd). */
static char *report(fake_t *f)
{
    FILE *t = tmpfile();
    assert_non_null(t);
    ibex_run_hang_report(&f->h, f->gone, fileno(t), "t", "test");
    long len = ftell(t) >= 0 ? lseek(fileno(t), 0, SEEK_END) : 0;
    char *s = calloc(1, (size_t)len + 1);
    assert_int_equal(pread(fileno(t), s, (size_t)len, 0), len);
    fclose(t);
    return s;
}

static void expect(fake_t *f, const char *want, const char * not )
{
    char *s = report(f);
    if (want && !strstr(s, want))
        fail_msg("report lacks '%s':\n%s", want, s);
    if (not &&strstr(s, not ))
        fail_msg("report has '%s':\n%s", not, s);
    free(s);
    fake_free(f);
}

static void test_and_cycle(void **state)
{
    fake_t *f = fake_new();
    item(wait_in(f, 0, "MPI_Ssend", false), IBEX_BLK_PEER, IBEX_BLK_OP_SEND, 1, 7);
    item(wait_in(f, 1, "MPI_Ssend", false), IBEX_BLK_PEER, IBEX_BLK_OP_SEND, 0, 7);
    expect(f,
           "cause: deadlock (a cycle of waits): rank 0 waits in MPI_Ssend(dest 1, tag 7, 4 B, "
           "MPI_COMM_WORLD) for rank 1; rank 1 waits in MPI_Ssend(dest 0, tag 7, 4 B, "
           "MPI_COMM_WORLD) for rank 0",
           NULL);
}

/* An AND-wait on a computing rank and on a blocked one that it will release: no deadlock. */
static void test_and_released(void **state)
{
    fake_t *f = fake_new();
    ibex_blk_page_t *p0 = wait_in(f, 0, "MPI_Waitall", false);
    item(p0, IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 1, 1);
    item(p0, IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 2, 1);
    item(wait_in(f, 1, "MPI_Recv", false), IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 3, 1);
    item(wait_in(f, 2, "MPI_Recv", false), IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 3, 1);
    expect(f, "; rank 3 is in compute, last MPI call 5.0 s ago", "deadlock");
}

/* MPI_ANY_SOURCE with one alternative that can act is no deadlock; without one it is. */
static void test_or_any(void **state)
{
    fake_t *f = fake_new();
    item(wait_in(f, 0, "MPI_Recv", false), IBEX_BLK_ANY, IBEX_BLK_OP_RECV, -1, 5);
    item(wait_in(f, 1, "MPI_Recv", false), IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 0, 5);
    item(wait_in(f, 2, "MPI_Recv", false), IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 0, 5);
    expect(f, "rank 3 is in compute", "deadlock");
    f = fake_new();
    for (int r = 1; r < N; r++)
        item(wait_in(f, r, "MPI_Recv", false), IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 0, 5);
    item(wait_in(f, 0, "MPI_Recv", false), IBEX_BLK_ANY, IBEX_BLK_OP_RECV, -1, 5);
    expect(f, "cause: deadlock (a cycle of waits): rank 0 waits in MPI_Recv(src MPI_ANY_SOURCE",
           NULL);
}

/* Waitany over two peers: one live alternative is enough. */
static void test_or_waitany(void **state)
{
    fake_t *f = fake_new();
    ibex_blk_page_t *p0 = wait_in(f, 0, "MPI_Waitany", true);
    item(p0, IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 1, 1);
    item(p0, IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 2, 1);
    item(wait_in(f, 1, "MPI_Recv", false), IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 0, 1);
    page(f, 3)->state = IBEX_BLK_STATE_FINALIZED;
    expect(f, "0 -> 1 2 (any one)", "deadlock");
}

static void test_collectives(void **state)
{
    fake_t *f = fake_new(); /* three in a barrier, one computing: waiting for it */
    for (int r = 0; r < 3; r++)
        item(wait_in(f, r, "MPI_Barrier", false), IBEX_BLK_COLL, IBEX_BLK_OP_SYNC, -1, -1);
    expect(f, "; rank 3 is in compute", "deadlock");
    f = fake_new();
    for (int r = 0; r < 3; r++)
        item(wait_in(f, r, "MPI_Allreduce", false), IBEX_BLK_COLL, IBEX_BLK_OP_SYNC, -1, -1);
    item(wait_in(f, 3, "MPI_Bcast", false), IBEX_BLK_COLL, IBEX_BLK_OP_SYNC, -1, -1);
    expect(f,
           "cause: ranks 0-2 are in MPI_Allreduce on MPI_COMM_WORLD, rank 3 is in MPI_Bcast on "
           "the same communicator: mismatched collectives",
           NULL);
}

static void test_missing(void **state)
{
    fake_t *f = fake_new(); /* rank 1 has exited */
    item(wait_in(f, 0, "MPI_Recv", false), IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 1, 7);
    f->gone[1] = true;
    expect(f,
           "cause: rank 0 waits in MPI_Recv(src 1, tag 7, 4 B, MPI_COMM_WORLD) for 3.0 s; rank 1 "
           "has exited: the matching send was never posted",
           NULL);
    f = fake_new(); /* everyone else in MPI_Finalize */
    item(wait_in(f, 0, "MPI_Ssend", false), IBEX_BLK_PEER, IBEX_BLK_OP_SEND, 2, 7);
    for (int r = 1; r < N; r++)
        item(wait_in(f, r, "MPI_Finalize", false), IBEX_BLK_COLL, IBEX_BLK_OP_SYNC, -1, -1);
    expect(f, "rank 2 waits in MPI_Finalize(MPI_COMM_WORLD) for 3.0 s: the matching receive", NULL);
}

static void test_nothing(void **state)
{
    fake_t *f = fake_new();
    page(f, 2)->waiting = 2; /* polling */
    page(f, 2)->since_ns = ibex_run_hang_now_ns() - 2000000000LL;
    snprintf(page(f, 2)->call, sizeof(page(f, 2)->call), "MPI_Test");
    expect(f, "cause: no rank is blocked in a wait; rank 2 polls in MPI_Test without progress",
           "deadlock");
}

/* A polling loop whose polls said what they look for is an OR-wait (Testsome) in the graph:
 * a knot when every alternative is stuck, no deadlock when one can act; "and more" (a poll that
 * said nothing) never makes a deadlock. */
static ibex_blk_page_t *poll_in(fake_t *f, int r, const char *call, bool or_wait)
{
    ibex_blk_page_t *pg = wait_in(f, r, call, or_wait);
    pg->waiting = 2;
    return pg;
}

static void test_poll_or(void **state)
{
    fake_t *f = fake_new();
    ibex_blk_page_t *p0 = poll_in(f, 0, "MPI_Testsome", true);
    for (int r = 1; r < N; r++) {
        item(p0, IBEX_BLK_PEER, IBEX_BLK_OP_RECV, r, 5);
        item(wait_in(f, r, "MPI_Recv", false), IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 0, 6);
    }
    expect(f,
           "cause: deadlock (a cycle of waits): rank 0 polls in MPI_Testsome(src 1, tag 5, 4 B or "
           "src 2, tag 5, 4 B or src 3, tag 5, 4 B, MPI_COMM_WORLD) for rank 1; rank 1 waits in "
           "MPI_Recv(src 0, tag 6, 4 B, MPI_COMM_WORLD) for rank 0",
           NULL);
    f = fake_new(); /* rank 3 computes: it may still send */
    p0 = poll_in(f, 0, "MPI_Testsome", true);
    for (int r = 1; r < N; r++)
        item(p0, IBEX_BLK_PEER, IBEX_BLK_OP_RECV, r, 5);
    for (int r = 1; r < N - 1; r++)
        item(wait_in(f, r, "MPI_Recv", false), IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 0, 6);
    expect(f, "polls in MPI_Testsome(src 1, tag 5, 4 B or src 2", "cause: deadlock");
    f = fake_new(); /* the same knot, but a poll of the loop said nothing */
    p0 = poll_in(f, 0, "MPI_Test", true);
    item(p0, IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 1, 5);
    p0->nmore = 1;
    for (int r = 1; r < N; r++)
        item(wait_in(f, r, "MPI_Recv", false), IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 0, 6);
    expect(f, "rank 0 (pid 1000) polls in MPI_Test(src 1, tag 5, 4 B and 1 more",
           "cause: deadlock");
}

/* One-sided: Win_wait for a rank's MPI_Win_complete is a real dependency (a knot with a receive
 * back); a flush or lock at a live target is served by its progress engine (never a knot), but
 * not by a target that has finished MPI. */
static void rma_item(ibex_blk_page_t *pg, int op, int peer)
{
    item(pg, IBEX_BLK_PEER, op, peer, IBEX_BLK_NO_TAG);
    pg->items[pg->nitems - 1].bytes = 0;
}

static void test_rma(void **state)
{
    fake_t *f = fake_new();
    rma_item(wait_in(f, 0, "MPI_Win_wait", false), IBEX_BLK_OP_SYNC, 1);
    item(wait_in(f, 1, "MPI_Recv", false), IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 0, 3);
    expect(f,
           "cause: deadlock (a cycle of waits): rank 0 waits in MPI_Win_wait(rank 1, "
           "MPI_COMM_WORLD) for rank 1",
           NULL);
    f = fake_new();
    rma_item(wait_in(f, 0, "MPI_Win_unlock", false), IBEX_BLK_OP_RMA, 1);
    item(wait_in(f, 1, "MPI_Recv", false), IBEX_BLK_PEER, IBEX_BLK_OP_RECV, 0, 3);
    expect(f, "rank 0 (pid 1000) waits in MPI_Win_unlock(target 1, MPI_COMM_WORLD)",
           "cause: deadlock");
    f = fake_new();
    rma_item(wait_in(f, 0, "MPI_Win_flush", false), IBEX_BLK_OP_RMA, 2);
    page(f, 2)->state = IBEX_BLK_STATE_FINALIZED;
    expect(f,
           "rank 2 has finished MPI_Finalize: the matching synchronisation call was never posted",
           NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_and_cycle),   cmocka_unit_test(test_and_released),
        cmocka_unit_test(test_or_any),      cmocka_unit_test(test_or_waitany),
        cmocka_unit_test(test_collectives), cmocka_unit_test(test_missing),
        cmocka_unit_test(test_nothing),     cmocka_unit_test(test_poll_or),
        cmocka_unit_test(test_rma),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
