/*
 * Unit tests of the registration cache (transport/verbs/verbs_mr.c): hits, sub-range hits, LRU
 * eviction under the size limit, in-use entries never evicted, invalidation by munmap, and
 * MPI_Alloc_mem memory. One process with the transport open on softib (test_verbs_mr.sh preloads
 * it).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "ibex_boot.h"
#include "ibex_config.h"
#include "verbs.h"

#define PG 4096u

const char *ibex_boot_peer_host(int rank)
{
    (void)rank;
    return "localhost";
}

/* These tests connect to no peer: no address is ever looked up. */
ibex_status_t ibex_boot_get(int rank, const char *key, void **data_p, size_t *len_p)
{
    (void)rank, (void)key, (void)data_p, (void)len_p;
    return IBEX_ERR_UNSUPPORTED;
}

static const ibex_tl_ops_t *ops;

static ibex_status_t no_recv(void *arg, int src, const void *data, size_t len)
{
    (void)arg, (void)src, (void)data, (void)len;
    return IBEX_OK;
}

static int setup(void **state)
{
    ibex_tl_params_t p = {.rank = 0, .size = 1, .local_size = 1, .recv_cb = no_recv};
    ibex_tl_caps_t caps;
    ibex_tl_t *tl;
    ibex_verbs_cfg.rcache_max = 8 * PG; /* small, to see evictions */
    if (ops->open(&p, &tl, &caps) != IBEX_OK)
        return -1;
    *state = tl;
    return 0;
}

static int teardown(void **state)
{
    ops->close(*state);
    return 0;
}

static verbs_rcache_stats_t stats(ibex_tl_t *tl)
{
    verbs_rcache_stats_t st;
    ibex_verbs_rcache_stats(tl, &st);
    return st;
}

static void test_hit_and_subrange(void **state)
{
    ibex_tl_t *tl = *state;
    char *buf = aligned_alloc(PG, 4 * PG);
    ibex_tl_mem_t *a, *b, *c;
    assert_int_equal(ops->mem_reg(tl, buf, 4 * PG, &a), IBEX_OK);
    assert_int_equal(ops->mem_reg(tl, buf + 100, 1000, &b), IBEX_OK);
    assert_ptr_equal(a, b); /* inside the first registration */
    verbs_rcache_stats_t st = stats(tl);
    assert_int_equal(st.misses, 1);
    assert_int_equal(st.hits, 1);
    ops->mem_dereg(tl, b);
    ops->mem_dereg(tl, a);
    /* unused but cached: the next registration hits without registering */
    assert_int_equal(ops->mem_reg(tl, buf + PG, PG, &c), IBEX_OK);
    assert_ptr_equal(a, c);
    assert_int_equal(stats(tl).misses, 1);
    uint32_t rkey;
    assert_int_equal(ops->mem_pack_rkey(tl, c, &rkey), IBEX_OK);
    assert_int_equal(rkey, c->mr->rkey);
    ops->mem_dereg(tl, c);
    free(buf);
}

static void test_lru_eviction(void **state)
{
    ibex_tl_t *tl = *state;
    char *buf = aligned_alloc(PG, 20 * PG);
    ibex_tl_mem_t *m[5];
    /* five 2-page entries: 10 pages > the 8-page limit */
    for (int i = 0; i < 5; i++) {
        assert_int_equal(ops->mem_reg(tl, buf + i * 4 * PG, 2 * PG, &m[i]), IBEX_OK);
        if (i != 1)
            ops->mem_dereg(tl, m[i]);
    }
    verbs_rcache_stats_t st = stats(tl);
    assert_true(st.bytes <= 8 * PG);
    assert_true(st.evictions >= 1);
    /* entry 0 was the oldest unused one: evicted; entry 1 is in use: kept */
    unsigned long misses = st.misses;
    ibex_tl_mem_t *x;
    assert_int_equal(ops->mem_reg(tl, buf + 4 * PG, PG, &x), IBEX_OK);
    assert_ptr_equal(x, m[1]);
    assert_int_equal(stats(tl).misses, misses);
    ops->mem_dereg(tl, x);
    assert_int_equal(ops->mem_reg(tl, buf, PG, &x), IBEX_OK);
    assert_int_equal(stats(tl).misses, misses + 1);
    ops->mem_dereg(tl, x);
    ops->mem_dereg(tl, m[1]);
    free(buf);
}

static void test_munmap_invalidates(void **state)
{
    ibex_tl_t *tl = *state;
    size_t len = 4 * PG;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    ibex_tl_mem_t *a, *b;
    assert_int_equal(ops->mem_reg(tl, p, len, &a), IBEX_OK);
    ops->mem_dereg(tl, a);
    unsigned long inval = stats(tl).invalidations;
    munmap(p, len);
    assert_int_equal(stats(tl).invalidations, inval + 1);
    char *q = mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(q != MAP_FAILED);
    unsigned long misses = stats(tl).misses;
    assert_int_equal(ops->mem_reg(tl, q, len, &b), IBEX_OK);
    assert_int_equal(stats(tl).misses, misses + 1); /* registered afresh */
    ops->mem_dereg(tl, b);
    munmap(q, len);
}

static void test_munmap_in_use(void **state)
{
    ibex_tl_t *tl = *state;
    size_t len = 2 * PG;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ibex_tl_mem_t *a, *b;
    assert_int_equal(ops->mem_reg(tl, p, len, &a), IBEX_OK);
    munmap(p, len); /* still referenced: invalidated, deregistered at the last dereg */
    char *q = mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_int_equal(ops->mem_reg(tl, q, len, &b), IBEX_OK);
    assert_ptr_not_equal(a, b);
    ops->mem_dereg(tl, a);
    ops->mem_dereg(tl, b);
    munmap(q, len);
}

static void test_mem_alloc(void **state)
{
    ibex_tl_t *tl = *state;
    void *p;
    assert_int_equal(ops->mem_alloc(tl, 64 * PG, &p), IBEX_OK); /* larger than the limit */
    unsigned long misses = stats(tl).misses;
    ibex_tl_mem_t *m;
    assert_int_equal(ops->mem_reg(tl, (char *)p + 10 * PG, 5 * PG, &m), IBEX_OK);
    assert_int_equal(stats(tl).misses, misses);
    ops->mem_dereg(tl, m);
    assert_int_equal(ops->mem_free(tl, p), IBEX_OK);
    int x;
    assert_int_equal(ops->mem_free(tl, &x), IBEX_ERR_INVALID);
}

static void test_info(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ops->info(f);
    fclose(f);
    assert_non_null(strstr(text, "softib0 port 1: active, infiniband"));
    assert_non_null(strstr(text, "verbs would use softib0 port 1: the only device"));
    free(text);
}

/* Whether malloc serves a large block from the heap (the memory-release policy that keeps
 * registrations right) or from its own mmap: glibc marks mmap'd chunks with bit 1 of the size
 * word in front of the block. */
static bool malloc_uses_mmap(void)
{
    size_t *p = malloc(4u << 20);
    assert_non_null(p);
    const size_t *size_word = (const size_t *)((uintptr_t)p - sizeof(size_t));
    bool mmapped = (*size_word & 2u) != 0;
    free(p);
    return mmapped;
}

/* Run by test_verbs_mr.sh twice: with IBEX_TRANSPORTS unset (verbs may open: the heap policy)
 * and with IBEX_TRANSPORTS=self,shm (verbs never opens: malloc left alone). */
static void test_malloc_policy(void **state)
{
    (void)state;
    const char *t = getenv("IBEX_TRANSPORTS");
    bool without_verbs = t && strcmp(t, "self,shm") == 0;
    assert_int_equal(malloc_uses_mmap(), without_verbs);
}

int main(void)
{
    ibex_config_load();
    ibex_tl_component_t *verbs = ibex_tl_component_find("verbs");
    if (!verbs)
        return 1;
    ibex_tl_fill_stubs(&verbs->ops);
    ops = &verbs->ops;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hit_and_subrange, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lru_eviction, setup, teardown),
        cmocka_unit_test_setup_teardown(test_munmap_invalidates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_munmap_in_use, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mem_alloc, setup, teardown),
        cmocka_unit_test(test_info),
        cmocka_unit_test(test_malloc_policy),
    };
    if (getenv("MR_TEST_FILTER"))
        cmocka_set_test_filter(getenv("MR_TEST_FILTER"));
    alarm(60);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
