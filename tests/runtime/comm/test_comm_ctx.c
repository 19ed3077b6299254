/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of runtime/comm/comm_ctx.c: the context id bitmap, the agreement collectives
 * (the AND-allreduce with every allreduce algorithm of collectives/, the allgather) run on
 * threads as ranks over a fake collective-context point-to-point layer
 * (tests/collectives/coll_fake.c) at 1..9 ranks, including non-powers of two, and Comm_split's
 * member ordering.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "coll.h"
#include "coll_fake.h"
#include "comm_impl.h"
#include "ibex_datatype.h"
#include "ibex_runtime.h"

static void test_lowest(void **state)
{
    uint64_t m[IBEX_CTX_WORDS] = {0};
    assert_int_equal(ibex_comm_ctx_lowest(m, IBEX_CTX_WORDS), -1);
    m[2] = (uint64_t)1 << 5;
    assert_int_equal(ibex_comm_ctx_lowest(m, IBEX_CTX_WORDS), 2 * (128 + 5));
    m[0] = (uint64_t)1 << 63 | (uint64_t)1 << 9;
    assert_int_equal(ibex_comm_ctx_lowest(m, IBEX_CTX_WORDS), 18);
}

/* Rank r has pairs 2 + r and 2 + (r + 1) % 3 taken locally, and with more than 5 ranks the
 * last one has every pair below n + 4 taken; the agreed pair is the first free everywhere. */
typedef struct band_case {
    int nranks;
    int result[COLL_FAKE_MAX_RANKS];
    int status[COLL_FAKE_MAX_RANKS];
} band_case_t;

static void rank_bitmap(int r, int n, uint64_t *w)
{
    memset(w, 0xff, IBEX_CTX_WORDS * sizeof(uint64_t));
    w[0] &= ~(uint64_t)3;
    w[0] &= ~((uint64_t)1 << (2 + r));
    w[0] &= ~((uint64_t)1 << (2 + (r + 1) % 3));
    if (r == n - 1 && n > 5)
        w[0] &= ~(((uint64_t)1 << (n + 4)) - 1);
}

static void band_rank(ibex_comm_t *comm, void *arg)
{
    band_case_t *c = arg;
    uint64_t w[IBEX_CTX_WORDS];
    rank_bitmap(comm->rank, comm->size, w);
    c->status[comm->rank] = ibex_comm_ctx_allreduce_band(comm, w, IBEX_CTX_WORDS);
    c->result[comm->rank] = ibex_comm_ctx_lowest(w, IBEX_CTX_WORDS);
}

static void allreduce_band_cases(void);

/* Every allreduce algorithm, forced in turn, must agree on the same context id. */
static void test_allreduce_band(void **state)
{
    int algos = ibex_coll_algo_count(IBEX_COLL_ALLREDUCE);
    assert_true(algos >= 2);
    for (int i = 0; i < algos; i++) {
        const char *name = ibex_coll_algo_at(IBEX_COLL_ALLREDUCE, i)->name;
        assert_int_equal(ibex_coll_force(IBEX_COLL_ALLREDUCE, name), IBEX_OK);
        allreduce_band_cases();
    }
    assert_int_equal(ibex_coll_force(IBEX_COLL_ALLREDUCE, "auto"), IBEX_OK);
}

static void allreduce_band_cases(void)
{
    for (int n = 1; n <= 9; n++) {
        band_case_t c = {.nranks = n};
        coll_fake_run(n, band_rank, &c);
        /* expected: AND of every rank's bitmap computed directly */
        uint64_t want[IBEX_CTX_WORDS], w[IBEX_CTX_WORDS];
        memset(want, 0xff, sizeof(want));
        for (int r = 0; r < n; r++) {
            rank_bitmap(r, n, w);
            for (int i = 0; i < IBEX_CTX_WORDS; i++)
                want[i] &= w[i];
        }
        int expect = ibex_comm_ctx_lowest(want, IBEX_CTX_WORDS);
        assert_true(expect >= 6);
        for (int r = 0; r < n; r++) {
            assert_int_equal(c.status[r], IBEX_OK);
            assert_int_equal(c.result[r], expect);
        }
        assert_int_equal(coll_fake_pending(), 0);
    }
}

typedef struct gather_case {
    int all[COLL_FAKE_MAX_RANKS][2 * COLL_FAKE_MAX_RANKS];
} gather_case_t;

static void gather_rank(ibex_comm_t *comm, void *arg)
{
    gather_case_t *c = arg;
    int mine[2] = {comm->rank * 10, -comm->rank};
    assert_int_equal(ibex_comm_ctx_allgather_int(comm, mine, 2, c->all[comm->rank]), IBEX_OK);
}

static void test_allgather_int(void **state)
{
    for (int n = 1; n <= 9; n++) {
        gather_case_t c;
        memset(&c, 0x55, sizeof(c));
        coll_fake_run(n, gather_rank, &c);
        for (int r = 0; r < n; r++)
            for (int q = 0; q < n; q++) {
                assert_int_equal(c.all[r][2 * q], q * 10);
                assert_int_equal(c.all[r][2 * q + 1], -q);
            }
        assert_int_equal(coll_fake_pending(), 0);
    }
}

static void test_split_members(void **state)
{
    /* (colour, key) of parent ranks 0..6 */
    const int all[] = {1, 5, 0, 0, 1, 2, MPI_UNDEFINED, 0, 1, 5, 0, -1, 1, 2};
    int out[7];
    assert_int_equal(ibex_comm_split_members(all, 7, 1, out), 4);
    /* keys 5, 2, 5, 2 at ranks 0, 2, 4, 6: by key, then by parent rank */
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], 6);
    assert_int_equal(out[2], 0);
    assert_int_equal(out[3], 4);
    assert_int_equal(ibex_comm_split_members(all, 7, 0, out), 2);
    assert_int_equal(out[0], 5);
    assert_int_equal(out[1], 1);
    assert_int_equal(ibex_comm_split_members(all, 7, 9, out), 0);
}

/* One process, a parent of size 1: ids are handed out lowest first, reused after release,
 * and run out with IBEX_ERR_AGAIN once the blocking agreements' words are used up (the others
 * are MPI_Comm_idup's). */
static void test_agree_alloc(void **state)
{
    ibex_comm_t self = {.rank = 0, .size = 1};
    uint32_t id, first, second;
    ibex_comm_ctx_init();
    assert_int_equal(ibex_comm_ctx_agree(&self, &first), IBEX_OK);
    assert_int_equal(first, 4); /* 0, 1: world; 2, 3: self */
    assert_int_equal(ibex_comm_ctx_agree(&self, &second), IBEX_OK);
    assert_int_equal(second, 6);
    ibex_comm_ctx_release(first);
    assert_int_equal(ibex_comm_ctx_agree(&self, &id), IBEX_OK);
    assert_int_equal(id, 4);
    int n = 2;
    while (ibex_comm_ctx_agree(&self, &id) == IBEX_OK)
        n++;
    assert_int_equal(n, IBEX_CTX_IDUP_WORD0 * 64 - 2);
    for (uint32_t c = 4; c < IBEX_CTX_IDUP_WORD0 * 128; c += 2)
        ibex_comm_ctx_release(c);
    assert_int_equal(ibex_comm_ctx_agree(&self, &id), IBEX_OK);
    assert_int_equal(id, 4);
}

/* The collectives run on the real datatype and op engine. */
static int engine_setup(void **state)
{
    return ibex_dt_init() == IBEX_OK && ibex_op_init() == IBEX_OK ? 0 : -1;
}

static int engine_teardown(void **state)
{
    ibex_op_fini();
    ibex_dt_fini();
    return 0;
}

int main(void)
{
    alarm(60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lowest),        cmocka_unit_test(test_allreduce_band),
        cmocka_unit_test(test_allgather_int), cmocka_unit_test(test_split_members),
        cmocka_unit_test(test_agree_alloc),
    };
    return cmocka_run_group_tests(tests, engine_setup, engine_teardown);
}
