/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the registration cache (transport/verbs/verbs_mr.c) and its memory hooks
 * (verbs_memhooks.c): hits, sub-range hits, LRU eviction under the size limit, in-use entries
 * never evicted, invalidation by munmap, MPI_Alloc_mem memory, the hot slots (a hit without the
 * lock, unmapped hot memory registered afresh, lookups alternating over slots with the last
 * hit's slot tried first, the size limit), a heap buffer from before the
 * transport opened freed and reused, and the policy tests (test_policy_*): what the hooks do with
 * and without verbs in IBEX_TRANSPORTS. One process with the transport open on softib
 * (test_verbs_mr.sh preloads it, with SOFTIB_STALE_CHECK=1).
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
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "ibex_boot.h"
#include "ibex_config.h"
#include "verbs.h"
#include "verbs_memhooks.h"

#define PG 4096u
/* above glibc's largest dynamic mmap threshold (32 MiB): always mmap'd under its default policy */
#define BIG (40u << 20)

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

/* len bytes of fresh anonymous memory. */
static char *anon(size_t len)
{
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    return p;
}

static void test_munmap_invalidates(void **state)
{
    ibex_tl_t *tl = *state;
    size_t len = 4 * PG;
    char *p = anon(len);
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

static void check_read(ibex_tl_t *tl, ibex_tl_mem_t *src_mem, const unsigned char *src, size_t len);

typedef struct {
    ibex_tl_t *tl;
    void *buf;
    ibex_tl_mem_t *mem;
    volatile int done;
} lookup_t;

static void *lookup_thread(void *arg)
{
    lookup_t *l = arg;
    if (ops->mem_reg(l->tl, l->buf, 64, &l->mem) == IBEX_OK)
        ops->mem_dereg(l->tl, l->mem);
    l->done = 1;
    return NULL;
}

/* A lookup of the registration just used is a hit without the cache's lock: it completes while
 * the lock is held elsewhere (a memory hook on another thread); a different buffer waits. */
static void test_hot_without_lock(void **state)
{
    ibex_tl_t *tl = *state;
    verbs_rcache_t *rc = &tl->rcache;
    char *buf = aligned_alloc(PG, 2 * PG);
    ibex_tl_mem_t *a;
    assert_int_equal(ops->mem_reg(tl, buf, 2 * PG, &a), IBEX_OK);
    ops->mem_dereg(tl, a);
    unsigned long hits = stats(tl).hits;
    pthread_mutex_lock(&rc->lock);
    lookup_t l = {.tl = tl, .buf = buf + 100};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, lookup_thread, &l), 0);
    for (int i = 0; i < 2000 && !l.done; i++)
        usleep(1000);
    int done_locked = l.done;
    pthread_mutex_unlock(&rc->lock);
    pthread_join(th, NULL);
    assert_true(done_locked);
    assert_ptr_equal(l.mem, a);
    assert_int_equal(stats(tl).hits, hits + 1);
    free(buf);
}

/* A hot registration the program unmaps is not handed out again: the next lookup at that address
 * registers the new pages, and the old registration goes once nothing uses it. */
static void test_hot_invalidated(void **state)
{
    ibex_tl_t *tl = *state;
    size_t len = 2 * PG;
    char *p = anon(len);
    ibex_tl_mem_t *a, *b, *c;
    assert_int_equal(ops->mem_reg(tl, p, len, &a), IBEX_OK);
    ops->mem_dereg(tl, a);
    assert_true(a->hot);
    munmap(p, len);
    char *q = mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    assert_true(q == p);
    memset(q, 0x3c, len);
    unsigned long misses = stats(tl).misses;
    assert_int_equal(ops->mem_reg(tl, q, len, &b), IBEX_OK);
    assert_int_equal(stats(tl).misses, misses + 1);   /* (a itself went: b may reuse its memory) */
    check_read(tl, b, (const unsigned char *)q, len); /* softib: no STALE REGISTRATION */
    assert_int_equal(ops->mem_reg(tl, q, PG, &c), IBEX_OK); /* and the new one is hot */
    assert_ptr_equal(b, c);
    ops->mem_dereg(tl, c);
    ops->mem_dereg(tl, b);
    munmap(q, len);
}

/* Lookups alternating over three hot buffers (each in its own slot; the last hit's slot is
 * tried first) each find their own registration without a miss, and a range the last hit's
 * entry does not cover is not answered by it. */
static void test_hot_alternate(void **state)
{
    ibex_tl_t *tl = *state;
    verbs_rcache_t *rc = &tl->rcache;
    if (rc->nhot < 3)
        skip();
    char *buf = aligned_alloc(PG, 6 * PG);
    ibex_tl_mem_t *e[3], *m;
    for (int i = 0; i < 3; i++) { /* buffers 2 pages apart: entries never merge */
        assert_int_equal(ops->mem_reg(tl, buf + i * 2 * PG, PG, &e[i]), IBEX_OK);
        ops->mem_dereg(tl, e[i]);
        assert_true(e[i]->hot);
    }
    unsigned long misses = stats(tl).misses, hits = stats(tl).hits;
    for (int k = 0; k < 30; k++) {
        int i = k % 5 == 4 ? (k - 1) % 3 : k % 3; /* 0 1 2 0 then 0 again ... */
        assert_int_equal(ops->mem_reg(tl, buf + i * 2 * PG + 8 * (k % 4), 64, &m), IBEX_OK);
        assert_ptr_equal(m, e[i]);
        ops->mem_dereg(tl, m);
    }
    assert_int_equal(stats(tl).misses, misses);
    assert_int_equal(stats(tl).hits, hits + 30);
    /* right after a hit on entry 0, a range past its end: not entry 0, a miss */
    assert_int_equal(ops->mem_reg(tl, buf + 10, 64, &m), IBEX_OK);
    assert_ptr_equal(m, e[0]);
    ops->mem_dereg(tl, m);
    assert_int_equal(ops->mem_reg(tl, buf + PG - 8, 16, &m), IBEX_OK);
    assert_ptr_not_equal(m, e[0]);
    assert_true(m->start <= (uintptr_t)buf + PG - 8 && (uintptr_t)buf + PG + 8 <= m->end);
    assert_int_equal(stats(tl).misses, misses + 1);
    ops->mem_dereg(tl, m);
    free(buf);
}

/* Hot entries count towards the size limit: beyond it they are let go like unused ones. */
static void test_hot_limit(void **state)
{
    ibex_tl_t *tl = *state;
    char *buf = aligned_alloc(PG, 16 * PG);
    ibex_tl_mem_t *m;
    for (int i = 0; i < 4; i++) { /* four 3-page entries, all hot: 12 pages > 8 */
        assert_int_equal(ops->mem_reg(tl, buf + i * 4 * PG, 3 * PG, &m), IBEX_OK);
        ops->mem_dereg(tl, m);
    }
    assert_true(stats(tl).bytes <= 8 * PG);
    free(buf);
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

/* Whether the transport opened here keeps registrations it no longer uses. */
static ibex_tl_t *open_with_room(size_t rcache_max)
{
    ibex_tl_params_t p = {.rank = 0, .size = 1, .local_size = 1, .recv_cb = no_recv};
    ibex_tl_caps_t caps;
    ibex_tl_t *tl = NULL;
    ibex_verbs_cfg.rcache_max = (long long)rcache_max;
    assert_int_equal(ops->open(&p, &tl, &caps), IBEX_OK);
    return tl;
}

typedef struct {
    ibex_tl_comp_t comp;
    bool done;
    ibex_status_t status;
} waiter_t;

static void waiter_cb(ibex_tl_comp_t *comp, ibex_status_t status)
{
    waiter_t *w = (waiter_t *)comp;
    w->done = true;
    w->status = status;
}

/* Reads [src, src + len) through its registration over the loopback connection, as a peer's
 * RDMA READ would: softib (SOFTIB_STALE_CHECK=1) fails the read if the registration's pages are
 * not the buffer's any more. */
static void check_read(ibex_tl_t *tl, ibex_tl_mem_t *src_mem, const unsigned char *src, size_t len)
{
    ibex_tl_ep_t *ep;
    assert_int_equal(ops->ep_create(tl, 0, NULL, 0, &ep), IBEX_OK);
    unsigned char *dst = calloc(1, len);
    ibex_tl_mem_t *dst_mem;
    uint32_t rkey;
    assert_int_equal(ops->mem_reg(tl, dst, len, &dst_mem), IBEX_OK);
    assert_int_equal(ops->mem_pack_rkey(tl, src_mem, &rkey), IBEX_OK);
    waiter_t w = {.comp.cb = waiter_cb};
    ibex_tl_rma_t d = {.local = dst,
                       .len = len,
                       .local_mem = dst_mem,
                       .remote = (uintptr_t)src,
                       .rkey = &rkey,
                       .comp = &w.comp};
    ibex_status_t st = ops->get(ep, &d);
    while (st == IBEX_INPROGRESS && !w.done)
        ops->progress(tl);
    assert_int_equal(st == IBEX_INPROGRESS ? w.status : st, IBEX_OK);
    assert_memory_equal(dst, src, len);
    ops->mem_dereg(tl, dst_mem);
    free(dst);
}

/* A buffer malloc'd before the transport opens, registered, freed, and the memory malloc'd again
 * with other contents: the cache must not hand back a registration of pages the buffer no longer
 * has. Without the load-time malloc policy glibc serves this size with mmap and its free unmaps
 * it where no hook sees, and the read below fails with softib's STALE REGISTRATION. */
static void test_reuse_before_open(void **state)
{
    (void)state;
    unsigned char *buf = malloc(BIG);
    assert_non_null(buf);
    memset(buf, 0xa1, BIG);
    ibex_tl_t *tl = open_with_room(4 * (size_t)BIG); /* room: the entry stays cached */
    ibex_tl_mem_t *a, *b;
    assert_int_equal(ops->mem_reg(tl, buf, BIG, &a), IBEX_OK);
    ops->mem_dereg(tl, a);
    uintptr_t old = (uintptr_t)buf;
    free(buf);
    buf = malloc(BIG);
    assert_non_null(buf);
    memset(buf, 0x5c, BIG);
    unsigned long misses = stats(tl).misses;
    assert_int_equal(ops->mem_reg(tl, buf, BIG, &b), IBEX_OK);
    /* a hit is right only if the pages stayed: then the data read must be the new data */
    if (b == a)
        assert_int_equal(stats(tl).misses, misses);
    check_read(tl, b, buf, BIG);
    ops->mem_dereg(tl, b);
    ops->close(tl);
    free(buf);
    print_message("same address again: %s, %s\n", (uintptr_t)buf == old ? "yes" : "no",
                  b == a ? "cache hit" : "new registration");
}

static bool policy_without_verbs(void)
{
    const char *t = getenv("IBEX_TRANSPORTS");
    return t && strcmp(t, "self,shm") == 0;
}

/* Whether malloc serves a block of len bytes from the heap (the memory-release policy that keeps
 * registrations right) or from its own mmap: glibc marks mmap'd chunks with bit 1 of the size
 * word in front of the block. */
static bool malloc_uses_mmap(size_t len)
{
    size_t *p = malloc(len);
    assert_non_null(p);
    const size_t *size_word = (const size_t *)((uintptr_t)p - sizeof(size_t));
    bool mmapped = (*size_word & 2u) != 0;
    free(p);
    return mmapped;
}

/* Run by test_verbs_mr.sh twice: with IBEX_TRANSPORTS unset (verbs may open: the heap policy)
 * and with IBEX_TRANSPORTS=self,shm (verbs never opens: malloc left alone, its default mmap
 * threshold of 128 KiB included). */
static void test_policy_malloc(void **state)
{
    (void)state;
    bool without_verbs = policy_without_verbs();
    assert_int_equal(malloc_uses_mmap(256u << 10), without_verbs);
    assert_int_equal(malloc_uses_mmap(BIG), without_verbs);
}

static unsigned long reports;

static void count_report(void *arg, uintptr_t addr, size_t len)
{
    (void)arg, (void)addr, (void)len;
    reports++;
}

/* With verbs allowed the wrapped calls report what they unmap; without, they only forward. */
static void test_policy_hooks(void **state)
{
    (void)state;
    bool without_verbs = policy_without_verbs();
    assert_int_equal(ibex_verbs_memhooks_active(), !without_verbs);
    assert_int_equal(ibex_verbs_memhooks_register(count_report, NULL),
                     without_verbs ? IBEX_ERR_UNSUPPORTED : IBEX_OK);
    if (!without_verbs)
        assert_int_equal(ibex_verbs_memhooks_register(count_report, NULL), IBEX_ERR_INVALID);
    reports = 0;
    char *p = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    p[0] = 1;
    assert_int_equal(madvise(p, PG, MADV_DONTNEED), 0);
    assert_int_equal(p[0], 0);                          /* forwarded: the page was dropped */
    assert_int_equal(madvise(p, PG, MADV_WILLNEED), 0); /* never reported */
    assert_int_equal(munmap(p, 4 * PG), 0);
    assert_int_equal(munmap(NULL, 0), -1);            /* the system call's answer comes back */
    assert_int_equal(reports, without_verbs ? 0 : 3); /* mmap, madvise(DONTNEED), munmap */
    ibex_verbs_memhooks_unregister();
    munmap(mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), PG);
    assert_int_equal(reports, without_verbs ? 0 : 3); /* unregistered: nobody told */
}

/* Verbs opened in a process whose IBEX_TRANSPORTS excluded it at load time: no hooks, so the
 * cache keeps no registration it does not use. */
static void test_policy_cache(void **state)
{
    (void)state;
    if (!policy_without_verbs())
        skip();
    ibex_tl_t *tl = open_with_room(64 * PG);
    char *buf = aligned_alloc(PG, 4 * PG);
    ibex_tl_mem_t *a, *b;
    assert_int_equal(ops->mem_reg(tl, buf, 4 * PG, &a), IBEX_OK);
    assert_int_equal(ops->mem_reg(tl, buf, PG, &b), IBEX_OK);
    assert_ptr_equal(a, b); /* in use: still found */
    ops->mem_dereg(tl, b);
    ops->mem_dereg(tl, a);
    assert_int_equal(ops->mem_reg(tl, buf, 4 * PG, &b), IBEX_OK);
    assert_int_equal(stats(tl).misses, 2); /* unused: dropped */
    ops->mem_dereg(tl, b);
    ops->close(tl);
    free(buf);
}

/* The one early read of IBEX_TRANSPORTS parses as the tunables table and the transport
 * selection do. */
static void test_policy_wanted(void **state)
{
    (void)state;
    assert_true(ibex_verbs_memhooks_wanted(NULL)); /* unset: the default, auto */
    assert_true(ibex_verbs_memhooks_wanted("auto"));
    assert_true(ibex_verbs_memhooks_wanted("verbs"));
    assert_true(ibex_verbs_memhooks_wanted("self,shm,verbs"));
    assert_true(ibex_verbs_memhooks_wanted("verbs,self"));
    assert_true(ibex_verbs_memhooks_wanted("shm,verbs,"));
    assert_false(ibex_verbs_memhooks_wanted("")); /* selects nothing */
    assert_false(ibex_verbs_memhooks_wanted("self,shm"));
    assert_false(ibex_verbs_memhooks_wanted("verbsx,xverbs,verb"));
    assert_false(ibex_verbs_memhooks_wanted("AUTO")); /* names are compared exactly */
    assert_false(ibex_verbs_memhooks_wanted(" verbs"));
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
        cmocka_unit_test_setup_teardown(test_hot_without_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hot_invalidated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hot_alternate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hot_limit, setup, teardown),
        cmocka_unit_test(test_info),
        cmocka_unit_test(test_reuse_before_open),
        cmocka_unit_test(test_policy_malloc),
        cmocka_unit_test(test_policy_hooks),
        cmocka_unit_test(test_policy_cache),
        cmocka_unit_test(test_policy_wanted),
    };
    if (getenv("MR_TEST_FILTER"))
        cmocka_set_test_filter(getenv("MR_TEST_FILTER"));
    alarm(60);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
