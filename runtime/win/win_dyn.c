/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dynamic windows without the target's CPU: every member publishes its attached regions in a
 * table in its own memory (win_dyn_table_t), whose address (and on the network direct path its
 * registration key) every member learns at creation. An origin that misses a region in its
 * cache reads the target's table itself: by cross-memory attach when every member is on this
 * node (the window then works like a created one, path 2 of README.md), else by RDMA READ
 * (path 3; attach registers each region and publishes its key). Reads are checked with a
 * sequence count the target makes odd while it changes the table: generation, table,
 * generation again, retried until both are the same even number.
 */
#define _GNU_SOURCE /* process_vm_readv */
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "coll.h"
#include "ibex_log.h"
#include "ibex_request.h"
#include "ibex_rma.h"
#include "ibex_win.h"

#define DYN_KEY 16

typedef struct win_dyn_ent {
    uint64_t base, len;
    uint8_t key[DYN_KEY];
} win_dyn_ent_t;

struct win_dyn_table {
    uint64_t gen; /* odd while the owner changes the table */
    uint64_t n;
    win_dyn_ent_t e[IBEX_WIN_DYN_MAX];
};

#define DYN_HEAD offsetof(struct win_dyn_table, e)

ibex_status_t ibex_win_dyn_create(ibex_win_t *win)
{
    if (posix_memalign((void **)&win->dyn, 64, sizeof(*win->dyn)) != 0 ||
        posix_memalign((void **)&win->dyn_copy, 64, sizeof(*win->dyn_copy)) != 0)
        return IBEX_ERR_NO_MEMORY;
    memset(win->dyn, 0, sizeof(*win->dyn));
    win->dyn_mems = calloc(IBEX_WIN_DYN_MAX, sizeof(*win->dyn_mems));
    win->dyn_keys = calloc((size_t)win->comm->size, sizeof(uint8_t *));
    win->dyn_addrs = calloc((size_t)win->comm->size, sizeof(uint64_t));
    if (!win->dyn_mems || !win->dyn_keys || !win->dyn_addrs)
        return IBEX_ERR_NO_MEMORY;
    uint64_t mine = (uint64_t)(uintptr_t)win->dyn;
    ibex_coll_args_t a = {.comm = win->comm,
                          .sbuf = &mine,
                          .scount = (int)sizeof(mine),
                          .sdt = MPI_BYTE,
                          .rbuf = win->dyn_addrs,
                          .rcount = (int)sizeof(mine),
                          .rdt = MPI_BYTE};
    return ibex_coll_run(IBEX_COLL_ALLGATHER, &a, sizeof(mine));
}

void ibex_win_dyn_destroy(ibex_win_t *win)
{
    for (int i = 0; win->dyn && win->rma && i < (int)win->dyn->n; i++)
        ibex_rma_mem_dereg(win->rma, win->dyn_mems[i]);
    for (int r = 0; win->dyn_keys && r < win->comm->size; r++)
        free(win->dyn_keys[r]);
    free(win->dyn_keys);
    free(win->dyn_addrs);
    free(win->dyn_mems);
    free(win->dyn);
    free(win->dyn_copy);
}

/* Cross-memory attach: can this rank read every member's table? */
bool ibex_win_dyn_probe(const ibex_win_t *win)
{
    for (int r = 0; r < win->comm->size; r++) {
        uint64_t g;
        struct iovec l = {&g, 8}, rm = {(void *)(uintptr_t)win->dyn_addrs[r], 8};
        if (process_vm_readv(win->pids[r], &l, 1, &rm, 1, 0) != 8)
            return false;
    }
    return true;
}

/* ---- the owner: attach / detach publish ---- */

static void dyn_begin(struct win_dyn_table *d)
{
    __atomic_store_n(&d->gen, d->gen + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void dyn_end(struct win_dyn_table *d)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&d->gen, d->gen + 1, __ATOMIC_RELEASE);
}

/* Publishes regions[i] (just appended by ibex_win_attach). */
int ibex_win_dyn_attach(ibex_win_t *win, int i)
{
    if (i >= IBEX_WIN_DYN_MAX)
        return MPI_ERR_RMA_ATTACH;
    win_dyn_ent_t e = {win->regions[i].base, win->regions[i].len, {0}};
    if (win->rma && e.len > 0) {
        ibex_tl_mem_t *m;
        if (ibex_rma_mem_reg(win->rma, (void *)(uintptr_t)e.base, e.len, &m) != IBEX_OK)
            return MPI_ERR_RMA_ATTACH;
        ibex_rma_pack_rkey(win->rma, m, e.key);
        win->dyn_mems[i] = m;
    }
    dyn_begin(win->dyn);
    win->dyn->e[i] = e;
    win->dyn->n = (uint64_t)i + 1;
    dyn_end(win->dyn);
    return MPI_SUCCESS;
}

/* Unpublishes regions[i] before ibex_win_detach moves the last one into its place. */
void ibex_win_dyn_detach(ibex_win_t *win, int i)
{
    struct win_dyn_table *d = win->dyn;
    int last = (int)d->n - 1;
    if (win->rma)
        ibex_rma_mem_dereg(win->rma, win->dyn_mems[i]);
    win->dyn_mems[i] = win->dyn_mems[last];
    dyn_begin(d);
    d->e[i] = d->e[last];
    d->n = (uint64_t)last;
    dyn_end(d);
}

/* ---- the origin: reading a target's table ---- */

static ibex_status_t dyn_read(ibex_win_t *win, int t, void *local, size_t off, size_t len)
{
    if (win->cma) {
        struct iovec l = {local, len}, rm = {(void *)(uintptr_t)(win->dyn_addrs[t] + off), len};
        return process_vm_readv(win->pids[t], &l, 1, &rm, 1, 0) == (ssize_t)len ? IBEX_OK
                                                                                : IBEX_ERR_IO;
    }
    return ibex_win_rdma_read_ctl(win, t, local, win->dyn_copy_mem, off, len);
}

/* One consistent snapshot of target t's table into win->dyn_copy, or IBEX_INPROGRESS. */
static ibex_status_t dyn_snapshot(ibex_win_t *win, int t)
{
    struct win_dyn_table *c = win->dyn_copy;
    uint64_t g1, g2;
    ibex_status_t st = dyn_read(win, t, c, 0, DYN_HEAD);
    g1 = c->gen;
    if (st == IBEX_OK && !(g1 & 1) && c->n <= IBEX_WIN_DYN_MAX && c->n > 0)
        st = dyn_read(win, t, c->e, DYN_HEAD, (size_t)c->n * sizeof(win_dyn_ent_t));
    if (st == IBEX_OK)
        st = dyn_read(win, t, &c->gen, 0, 8);
    g2 = c->gen;
    if (st != IBEX_OK)
        return st;
    return (g1 & 1) || g1 != g2 || c->n > IBEX_WIN_DYN_MAX ? IBEX_INPROGRESS : IBEX_OK;
}

/* Fills the region cache of target t (and its keys) from the target's own table. */
ibex_status_t ibex_win_dyn_fetch(ibex_win_t *win, int t)
{
    int idle = 0;
    ibex_status_t st;
    while ((st = dyn_snapshot(win, t)) == IBEX_INPROGRESS)
        ibex_wait_step(&idle); /* the owner is changing it: let it finish */
    if (st != IBEX_OK)
        return st;
    int n = (int)win->dyn_copy->n;
    ibex_win_region_t *r = malloc((size_t)(n ? n : 1) * sizeof(*r));
    uint8_t *k = malloc((size_t)(n ? n : 1) * DYN_KEY);
    if (!r || !k) {
        free(r);
        free(k);
        return IBEX_ERR_NO_MEMORY;
    }
    for (int i = 0; i < n; i++) {
        r[i] = (ibex_win_region_t){win->dyn_copy->e[i].base, win->dyn_copy->e[i].len};
        memcpy(k + (size_t)i * DYN_KEY, win->dyn_copy->e[i].key, DYN_KEY);
    }
    free(win->rcache[t]);
    free(win->dyn_keys[t]);
    win->rcache[t] = r;
    win->dyn_keys[t] = k;
    win->rcache_n[t] = n;
    return IBEX_OK;
}

/* The key of the cached region of target t holding addr (the range check found it). */
const void *ibex_win_dyn_key(const ibex_win_t *win, int t, uint64_t addr)
{
    for (int i = 0; i < win->rcache_n[t]; i++) {
        const ibex_win_region_t *r = &win->rcache[t][i];
        if (addr >= r->base && addr < r->base + r->len)
            return win->dyn_keys[t] + (size_t)i * DYN_KEY;
    }
    return win->dyn_keys[t]; /* not reached: every access was range-checked */
}

size_t ibex_win_dyn_table_size(void)
{
    return sizeof(struct win_dyn_table);
}
