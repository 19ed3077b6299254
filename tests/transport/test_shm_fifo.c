/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for the shm transport's shared receive queue (transport/shm/shm_fifo.h). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "shm_fifo.h"

static ibex_shm_fifo_ctl_t *fifo_new(uint32_t cells, size_t *bytes_p)
{
    *bytes_p = sizeof(ibex_shm_fifo_ctl_t) + cells * sizeof(ibex_shm_cell_t);
    void *mem = mmap(NULL, *bytes_p, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(mem != MAP_FAILED);
    ibex_shm_fifo_init(mem, cells);
    return mem;
}

static void test_ids(void **state)
{
    (void)state;
    uint64_t id = ibex_shm_frag_id(5, 17);
    assert_int_equal(ibex_shm_id_src(id), 5);
    assert_int_equal(ibex_shm_id_idx(id), 17);
    assert_false(ibex_shm_id_is_claim(id));
    id = ibex_shm_frag_id(0, IBEX_SHM_ID_CLAIM | 3);
    assert_true(id != 0); /* 0 means "empty" */
    assert_int_equal(ibex_shm_id_src(id), 0);
    assert_int_equal(ibex_shm_id_idx(id), 3);
    assert_true(ibex_shm_id_is_claim(id));
    assert_int_equal(ibex_shm_frag_id(0, 0) >> 32, 1);
}

/* Fills, refuses when full (doing nothing), drains in order, and wraps for many laps. */
static void test_full_and_wrap(void **state)
{
    (void)state;
    size_t bytes;
    ibex_shm_fifo_ctl_t *f = fifo_new(8, &bytes);
    uint64_t pos = 0, next = 1;
    assert_int_equal(ibex_shm_fifo_pop(f, 7, &pos), 0);
    for (int lap = 0; lap < 100; lap++) {
        int k = 1 + lap % 8;
        for (int i = 0; i < k; i++)
            assert_true(ibex_shm_fifo_push(f, 7, next + (uint64_t)i));
        if (k == 8)
            assert_false(ibex_shm_fifo_push(f, 7, 999));
        for (int i = 0; i < k; i++)
            assert_int_equal(ibex_shm_fifo_pop(f, 7, &pos), next++);
        assert_int_equal(ibex_shm_fifo_pop(f, 7, &pos), 0);
    }
    assert_true(ibex_shm_fifo_push(f, 7, 0)); /* a broken peer's 0 is not "empty" */
    assert_int_equal(ibex_shm_fifo_pop(f, 7, &pos), UINT64_MAX);
    munmap(f, bytes);
}

/* Three forked producers push 200k ids each into a 64-cell queue (retrying when full) while
 * the parent consumes: every id exactly once, each producer's in its order. */
#define PRODUCERS    3
#define PER_PRODUCER 200000u
static void test_producers(void **state)
{
    (void)state;
    size_t bytes;
    ibex_shm_fifo_ctl_t *f = fifo_new(64, &bytes);
    pid_t pids[PRODUCERS];
    for (int p = 0; p < PRODUCERS; p++) {
        pids[p] = fork();
        assert_true(pids[p] >= 0);
        if (pids[p] == 0) {
            alarm(60);
            for (uint32_t i = 0; i < PER_PRODUCER; i++)
                while (!ibex_shm_fifo_push(f, 63, ibex_shm_frag_id(p, i)))
                    ;
            _exit(0);
        }
    }
    uint32_t next[PRODUCERS] = {0};
    uint64_t pos = 0, got = 0, bad = 0;
    alarm(60);
    while (got < (uint64_t)PRODUCERS * PER_PRODUCER) {
        uint64_t id = ibex_shm_fifo_pop(f, 63, &pos);
        if (id == 0)
            continue;
        int src = ibex_shm_id_src(id);
        bad += src < 0 || src >= PRODUCERS || ibex_shm_id_idx(id) != next[src]++;
        got++;
    }
    alarm(0);
    assert_int_equal(bad, 0);
    assert_int_equal(ibex_shm_fifo_pop(f, 63, &pos), 0);
    for (int p = 0; p < PRODUCERS; p++) {
        int status;
        assert_int_equal(waitpid(pids[p], &status, 0), pids[p]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    munmap(f, bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids),
        cmocka_unit_test(test_full_and_wrap),
        cmocka_unit_test(test_producers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
