/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory registration and the registration cache.
 *
 * The runtime calls mem_reg for every rendezvous message; registering (pinning) each time costs
 * far more than the transfer for medium sizes, so registrations are cached by address range:
 * a sorted array of entries, each with a reference count; unused entries sit in an LRU list and
 * are evicted oldest first once the cache holds more than IBEX_VERBS_RCACHE_MAX bytes. An entry in
 * use is never evicted.
 *
 * Stale registrations (memory freed and its addresses mapped to other pages) are kept out by the
 * memory hooks (verbs_memhooks.c): malloc never returns pages to the kernel, and the program's
 * unmapping calls report their range here, which invalidates every cached entry overlapping it
 * before the system call. An invalidated entry still in use is deregistered when its last
 * reference goes. Where the hooks are off (IBEX_TRANSPORTS excluded verbs at load time), nothing
 * unused is kept: every registration is dropped at its last release.
 * The hooks may run on any thread (PMIx's, the program's), so the cache has a mutex; verbs
 * calls that themselves unmap (providers) run with a thread-local flag that makes the report
 * skip the cache, and deregistration of invalidated entries is left to the owner thread.
 *
 * Hot slots (IBEX_VERBS_RCACHE_HOT): the entries of the last lookups each hold one reference
 * in a small array that only the owner thread (the transport's caller, serialised by the
 * runtime) reads and writes. A lookup inside one of them, still valid, is a hit without the
 * lock: a put / get loop from one buffer takes the mutex only on its first transfer. Safe
 * against the hooks because a hot entry is never freed behind the owner's back (its reference
 * keeps it out of the LRU and of the hooks' deregistration) and the hooks clear its `cached`
 * (an atomic store, under the lock) before the memory goes: the owner's atomic load sees it and
 * takes the locked path, which lets the entry go. An entry stays registered while it is hot;
 * beyond the size limit hot entries are let go too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_log.h"
#include "verbs.h"
#include "verbs_memhooks.h"

#define RCACHE_ENTS_FIRST 64 /* first capacity of the entry array, doubled as needed */
#define RCACHE_DEAD_FIRST 16 /* first capacity of the invalidated-entry list */
#define RCACHE_LOOKBACK   8  /* entries starting at or below an address checked for cover */

static __thread int rcache_busy;      /* this thread is inside the cache */
static verbs_rcache_t *rcache_hooked; /* the cache the memory hooks report to (owner thread) */

static uintptr_t page_down(uintptr_t a)
{
    return a & ~(uintptr_t)(ibex_verbs_page_size() - 1);
}

static uintptr_t page_up(uintptr_t a)
{
    return page_down(a + ibex_verbs_page_size() - 1);
}

/* Only the owner thread changes a reference count (under the lock, or on a hot entry without
 * it); the hooks read it under the lock. Relaxed atomics, no locked instruction. */
static uint32_t ref_add(ibex_tl_mem_t *m, int d)
{
    uint32_t v = __atomic_load_n(&m->refcnt, __ATOMIC_RELAXED) + (uint32_t)d;
    __atomic_store_n(&m->refcnt, v, __ATOMIC_RELAXED);
    return v;
}

static void lru_remove(verbs_rcache_t *rc, ibex_tl_mem_t *m)
{
    if (m->lru_prev)
        m->lru_prev->lru_next = m->lru_next;
    else if (rc->lru_head == m)
        rc->lru_head = m->lru_next;
    if (m->lru_next)
        m->lru_next->lru_prev = m->lru_prev;
    else if (rc->lru_tail == m)
        rc->lru_tail = m->lru_prev;
    m->lru_prev = m->lru_next = NULL;
}

static void lru_append(verbs_rcache_t *rc, ibex_tl_mem_t *m)
{
    m->lru_prev = rc->lru_tail;
    m->lru_next = NULL;
    if (rc->lru_tail)
        rc->lru_tail->lru_next = m;
    else
        rc->lru_head = m;
    rc->lru_tail = m;
}

/* Index of the first entry whose start is > addr. */
static size_t ents_upper(const verbs_rcache_t *rc, uintptr_t addr)
{
    size_t lo = 0, hi = rc->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (rc->ents[mid]->start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void ents_remove(verbs_rcache_t *rc, ibex_tl_mem_t *m)
{
    size_t i = ents_upper(rc, m->start);
    while (i > 0 && rc->ents[i - 1] != m)
        i--;
    ibex_assert(i > 0);
    memmove(&rc->ents[i - 1], &rc->ents[i], (rc->n - i) * sizeof(*rc->ents));
    rc->n--;
    rc->bytes -= m->end - m->start;
    __atomic_store_n(&m->cached, false, __ATOMIC_RELEASE); /* the hot path loads it unlocked */
}

static ibex_status_t ents_insert(verbs_rcache_t *rc, ibex_tl_mem_t *m)
{
    if (rc->n == rc->cap) {
        size_t cap = rc->cap ? rc->cap * 2 : RCACHE_ENTS_FIRST;
        ibex_tl_mem_t **e = realloc(rc->ents, cap * sizeof(*e));
        if (!e)
            return IBEX_ERR_NO_MEMORY;
        rc->ents = e;
        rc->cap = cap;
    }
    size_t i = ents_upper(rc, m->start);
    memmove(&rc->ents[i + 1], &rc->ents[i], (rc->n - i) * sizeof(*rc->ents));
    rc->ents[i] = m;
    rc->n++;
    rc->bytes += m->end - m->start;
    if (m->end - m->start > rc->max_len)
        rc->max_len = m->end - m->start;
    __atomic_store_n(&m->cached, true, __ATOMIC_RELEASE);
    return IBEX_OK;
}

static void mem_destroy(ibex_tl_mem_t *m)
{
    rcache_busy++;
    if (ibv_dereg_mr(m->mr))
        ibex_warn(MEM, "cannot deregister [%#lx, %#lx): %m", (unsigned long)m->start,
                  (unsigned long)m->end);
    rcache_busy--;
    free(m);
}

/* Called with the lock held: the entry will not be found again. */
static void rcache_drop(verbs_rcache_t *rc, ibex_tl_mem_t *m, bool from_hook)
{
    ents_remove(rc, m);
    if (m->hot)
        __atomic_store_n(&rc->hot_stale, 1, __ATOMIC_RELAXED); /* the owner lets it go */
    if (__atomic_load_n(&m->refcnt, __ATOMIC_RELAXED) > 0)
        return; /* deregistered by its last put */
    lru_remove(rc, m);
    if (!from_hook) {
        mem_destroy(m);
        return;
    }
    if (rc->ndead == rc->dead_cap) {
        size_t cap = rc->dead_cap ? rc->dead_cap * 2 : RCACHE_DEAD_FIRST;
        ibex_tl_mem_t **d = realloc(rc->dead, cap * sizeof(*d));
        if (!d) {
            m->refcnt = 1; /* leak rather than deregister on a foreign thread */
            return;
        }
        rc->dead = d;
        rc->dead_cap = cap;
    }
    rc->dead[rc->ndead++] = m;
}

static void rcache_reap(verbs_rcache_t *rc)
{
    while (rc->ndead > 0)
        mem_destroy(rc->dead[--rc->ndead]);
}

static void hot_release(verbs_rcache_t *rc, unsigned i);

static void rcache_evict(verbs_rcache_t *rc)
{
    for (unsigned k = 0; rc->bytes > rc->max; k++) {
        if (rc->lru_head) {
            rc->st.evictions++;
            rcache_drop(rc, rc->lru_head, false);
        } else if (k < rc->nhot) {
            hot_release(rc, (rc->hot_next + k) % rc->nhot); /* oldest first, then the LRU */
        } else {
            break;
        }
    }
}

/* Invalidates every entry overlapping [addr, addr + len): the memory hooks' callback. */
static void rcache_unmapped(void *arg, uintptr_t addr, size_t len)
{
    verbs_rcache_t *rc = arg;
    if (rcache_busy)
        return;
    rcache_busy++;
    pthread_mutex_lock(&rc->lock);
    uintptr_t end = addr + len;
    size_t i = ents_upper(rc, end - 1);
    while (i-- > 0) {
        ibex_tl_mem_t *m = rc->ents[i];
        if (m->start + rc->max_len <= addr)
            break; /* no entry further left reaches addr */
        if (m->end > addr && !m->pinned) {
            rc->st.invalidations++;
            rcache_drop(rc, m, true);
        }
    }
    pthread_mutex_unlock(&rc->lock);
    rcache_busy--;
}

static ibex_tl_mem_t *rcache_find(verbs_rcache_t *rc, uintptr_t addr, uintptr_t end)
{
    size_t i = ents_upper(rc, addr);
    /* entries may overlap: look back over a few that start at or below addr */
    for (size_t k = 0; i > 0 && k < RCACHE_LOOKBACK; k++, i--) {
        ibex_tl_mem_t *m = rc->ents[i - 1];
        if (m->end >= end)
            return m;
    }
    return NULL;
}

static ibex_status_t mem_create(verbs_rcache_t *rc, uintptr_t start, uintptr_t end,
                                ibex_tl_mem_t **mem_p)
{
    ibex_tl_mem_t *m = calloc(1, sizeof(*m));
    if (!m)
        return IBEX_ERR_NO_MEMORY;
    /* remote atomics too: window memory and lock words come through here */
    int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                 IBV_ACCESS_REMOTE_ATOMIC;
    m->mr = ibv_reg_mr(rc->pd, (void *)start, end - start, access);
    if (!m->mr) {
        int err = errno;
        ibex_error(MEM, "cannot register [%#lx, %#lx) (%lu bytes): %s%s", (unsigned long)start,
                   (unsigned long)end, (unsigned long)(end - start), strerror(err),
                   err == ENOMEM ? " (locked-memory limit? see ulimit -l)" : "");
        free(m);
        return ibex_status_from_errno(err);
    }
    m->start = start;
    m->end = end;
    *mem_p = m;
    return IBEX_OK;
}

/* One reference less, under the lock: the last one puts the entry in the LRU, or deregisters
 * it when it was invalidated meanwhile. */
static void ref_drop(verbs_rcache_t *rc, ibex_tl_mem_t *m)
{
    ibex_assert(m->refcnt > 0);
    if (ref_add(m, -1) > 0)
        return;
    if (m->cached) {
        lru_append(rc, m);
        rcache_evict(rc);
    } else {
        mem_destroy(m);
    }
}

/* Lets hot slot i go (under the lock): its reference is dropped. */
static void hot_release(verbs_rcache_t *rc, unsigned i)
{
    ibex_tl_mem_t *m = rc->hot[i];
    if (!m)
        return;
    rc->hot[i] = NULL;
    m->hot = false;
    ref_drop(rc, m);
}

/* Under the lock: the hot slots the memory hooks invalidated go. */
static void hot_sweep(verbs_rcache_t *rc)
{
    if (!__atomic_exchange_n(&rc->hot_stale, 0, __ATOMIC_RELAXED))
        return;
    for (unsigned i = 0; i < rc->nhot; i++)
        if (rc->hot[i] && !rc->hot[i]->cached)
            hot_release(rc, i);
}

/* Under the lock: m, just looked up, takes the next hot slot (the oldest goes). */
static void hot_add(verbs_rcache_t *rc, ibex_tl_mem_t *m)
{
    if (rc->nhot == 0 || m->hot || !m->cached)
        return;
    unsigned i = rc->hot_next;
    rc->hot_next = (i + 1) % rc->nhot;
    ref_add(m, 1); /* before the old one's release */
    hot_release(rc, i);
    m->hot = true;
    rc->hot[i] = m;
}

static inline bool hot_covers(const ibex_tl_mem_t *m, uintptr_t a, uintptr_t end)
{
    return m && m->start <= a && end <= m->end && __atomic_load_n(&m->cached, __ATOMIC_ACQUIRE);
}

/* The owner's lookup without the lock: a hot entry covering [a, end) that no hook invalidated,
 * the last hit's slot first (slots past nhot stay NULL). */
static ibex_tl_mem_t *hot_find(verbs_rcache_t *rc, uintptr_t a, uintptr_t end)
{
    if (__atomic_load_n(&rc->hot_stale, __ATOMIC_RELAXED))
        return NULL;
    ibex_tl_mem_t *m = rc->hot[rc->hot_last];
    if (!hot_covers(m, a, end)) {
        unsigned i = 0;
        while (i < rc->nhot && !hot_covers(rc->hot[i], a, end))
            i++;
        if (i == rc->nhot)
            return NULL;
        m = rc->hot[i];
        rc->hot_last = i;
    }
    ref_add(m, 1);
    rc->hot_hits++;
    return m;
}

/* The lookup under the lock (and the registration of a miss), out of line: a hot hit saves no
 * registers for it. */
static __attribute__((noinline)) ibex_status_t
rcache_get_locked(verbs_rcache_t *rc, uintptr_t a, uintptr_t end, ibex_tl_mem_t **mem_p)
{
    ibex_tl_mem_t *m;
    rcache_busy++;
    pthread_mutex_lock(&rc->lock);
    rcache_reap(rc);
    hot_sweep(rc);
    ibex_status_t st = IBEX_OK;
    m = rcache_find(rc, a, end);
    if (m) {
        rc->st.hits++;
        if (ref_add(m, 1) == 1)
            lru_remove(rc, m);
    } else {
        rc->st.misses++;
        st = mem_create(rc, page_down(a), page_up(end), &m);
        if (st == IBEX_OK) {
            m->refcnt = 1;
            if (ents_insert(rc, m) == IBEX_OK)
                rcache_evict(rc);
        }
    }
    if (st == IBEX_OK)
        hot_add(rc, m);
    pthread_mutex_unlock(&rc->lock);
    rcache_busy--;
    if (st == IBEX_OK)
        *mem_p = m;
    return st;
}

ibex_status_t ibex_verbs_rcache_get(verbs_rcache_t *rc, void *addr, size_t len,
                                    ibex_tl_mem_t **mem_p)
{
    uintptr_t a = (uintptr_t)addr, end = a + (len ? len : 1);
    ibex_tl_mem_t *m = hot_find(rc, a, end);
    if (!m)
        return rcache_get_locked(rc, a, end, mem_p);
    *mem_p = m;
    return IBEX_OK;
}

void ibex_verbs_rcache_put(verbs_rcache_t *rc, ibex_tl_mem_t *m)
{
    if (m->hot) { /* the slot's own reference remains: never the last one */
        ref_add(m, -1);
        return;
    }
    rcache_busy++;
    pthread_mutex_lock(&rc->lock);
    ref_drop(rc, m);
    pthread_mutex_unlock(&rc->lock);
    rcache_busy--;
}

ibex_status_t ibex_verbs_rcache_init(verbs_rcache_t *rc, struct ibv_pd *pd, size_t max)
{
    memset(rc, 0, sizeof(*rc));
    pthread_mutex_init(&rc->lock, NULL);
    rc->pd = pd;
    rc->max = max;
    ibex_status_t st = ibex_verbs_memhooks_register(rcache_unmapped, rc);
    if (st == IBEX_OK) {
        rcache_hooked = rc;
        int hot = ibex_verbs_cfg.rcache_hot;
        rc->nhot = hot < 0 ? 0 : hot > VERBS_RCACHE_HOT_MAX ? VERBS_RCACHE_HOT_MAX : (unsigned)hot;
        return IBEX_OK;
    }
    /* nothing reports unmapped memory to this cache: a kept registration could go stale */
    ibex_warn(MEM, "registrations are not cached: %s",
              st == IBEX_ERR_UNSUPPORTED ? "memory hooks are off (IBEX_TRANSPORTS excluded verbs "
                                           "when the program started)"
                                         : "another cache holds the memory hooks");
    rc->max = 0;
    return IBEX_OK;
}

void ibex_verbs_rcache_fini(verbs_rcache_t *rc)
{
    if (rcache_hooked == rc) {
        ibex_verbs_memhooks_unregister();
        rcache_hooked = NULL;
    }
    rcache_busy++;
    pthread_mutex_lock(&rc->lock);
    rcache_reap(rc);
    for (unsigned i = 0; i < rc->nhot; i++)
        hot_release(rc, i);
    for (size_t i = 0; i < rc->n; i++) {
        if (rc->ents[i]->refcnt > 0 && !rc->ents[i]->pinned)
            ibex_debug(MEM, "registration [%#lx, %#lx) still in use at close",
                       (unsigned long)rc->ents[i]->start, (unsigned long)rc->ents[i]->end);
        mem_destroy(rc->ents[i]);
    }
    free(rc->ents);
    free(rc->dead);
    pthread_mutex_unlock(&rc->lock);
    pthread_mutex_destroy(&rc->lock);
    rcache_busy--;
    memset(rc, 0, sizeof(*rc));
}

void ibex_verbs_rcache_stats(ibex_tl_t *tl, verbs_rcache_stats_t *st_p)
{
    verbs_rcache_t *rc = &tl->rcache;
    pthread_mutex_lock(&rc->lock);
    *st_p = rc->st;
    st_p->hits += rc->hot_hits;
    st_p->bytes = rc->bytes;
    st_p->entries = rc->n;
    pthread_mutex_unlock(&rc->lock);
}

/* ---- transport ops ---- */

void ibex_verbs_stats(ibex_tl_t *tl, ibex_tl_stats_t *st_p)
{
    verbs_rcache_stats_t st;
    ibex_verbs_rcache_stats(tl, &st);
    *st_p = (ibex_tl_stats_t){
        .reg_hits = st.hits, .reg_misses = st.misses, .reg_evictions = st.evictions};
}

ibex_status_t ibex_verbs_mem_reg(ibex_tl_t *tl, void *addr, size_t len, ibex_tl_mem_t **mem_p)
{
    return ibex_verbs_rcache_get(&tl->rcache, addr, len, mem_p);
}

void ibex_verbs_mem_dereg(ibex_tl_t *tl, ibex_tl_mem_t *mem)
{
    if (mem)
        ibex_verbs_rcache_put(&tl->rcache, mem);
}

ibex_status_t ibex_verbs_mem_pack_rkey(ibex_tl_t *tl, ibex_tl_mem_t *mem, void *buf)
{
    uint32_t rkey = mem->mr->rkey;
    memcpy(buf, &rkey, sizeof(rkey));
    return IBEX_OK;
}

/* MPI_Alloc_mem: registered for its whole life, entered in the cache as a pinned entry so the
 * runtime's per-message mem_reg hits it. */
ibex_status_t ibex_verbs_mem_alloc(ibex_tl_t *tl, size_t len, void **ptr_p)
{
    verbs_rcache_t *rc = &tl->rcache;
    size_t pg = ibex_verbs_page_size();
    size_t rlen = len ? page_up(len) : pg;
    void *p;
    if (posix_memalign(&p, pg, rlen))
        return IBEX_ERR_NO_MEMORY;
    rcache_busy++;
    pthread_mutex_lock(&rc->lock);
    ibex_tl_mem_t *m;
    ibex_status_t st = mem_create(rc, (uintptr_t)p, (uintptr_t)p + rlen, &m);
    if (st == IBEX_OK) {
        m->refcnt = 1;
        m->pinned = true;
        st = ents_insert(rc, m);
        if (st != IBEX_OK)
            mem_destroy(m);
    }
    pthread_mutex_unlock(&rc->lock);
    rcache_busy--;
    if (st != IBEX_OK) {
        free(p);
        return st;
    }
    *ptr_p = p;
    return IBEX_OK;
}

ibex_status_t ibex_verbs_mem_free(ibex_tl_t *tl, void *ptr)
{
    verbs_rcache_t *rc = &tl->rcache;
    rcache_busy++;
    pthread_mutex_lock(&rc->lock);
    ibex_tl_mem_t *found = NULL;
    for (size_t i = ents_upper(rc, (uintptr_t)ptr); i > 0; i--) {
        ibex_tl_mem_t *m = rc->ents[i - 1];
        if (m->start < (uintptr_t)ptr)
            break;
        if (m->pinned && m->start == (uintptr_t)ptr) {
            found = m;
            break;
        }
    }
    if (found) {
        for (unsigned i = 0; i < rc->nhot; i++)
            if (rc->hot[i] == found)
                hot_release(rc, i);
        found->pinned = false;
        ents_remove(rc, found);
        if (--found->refcnt == 0)
            mem_destroy(found);
    }
    pthread_mutex_unlock(&rc->lock);
    rcache_busy--;
    if (!found)
        return IBEX_ERR_INVALID;
    free(ptr);
    return IBEX_OK;
}
