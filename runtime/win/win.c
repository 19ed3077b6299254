/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Window creation and destruction, the shared segment of MPI_Win_allocate_shared, and the
 * attached regions of dynamic windows.
 *
 * Creation is collective over the program's communicator: a private duplicate (its context id
 * agreed like any communicator's), an allgather of every rank's size and displacement unit (so
 * the origin range-checks each access), the port, then a barrier so that no request reaches a
 * rank before its window exists (the engine would buffer it, but the barrier also orders
 * creation before any fence).
 *
 * The shared segment: rank 0 of the window creates an anonymous memory file (memfd_create: it
 * has no name in any file system, so there is nothing to guess and nothing to unlink, and
 * nothing is left behind if the job dies), sized for every rank's part (each part 64-byte
 * aligned, in rank order: contiguous as MPI's default asks). The others open it through
 * /proc/<rank 0's pid>/fd/<fd>, which the kernel allows only to a process that may inspect rank
 * 0 (the same user): owner-only. After a barrier every member has mapped it and closes its
 * descriptor; the mappings keep it alive.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "coll.h"
#include "ibex_log.h"
#include "ibex_p2p.h"
#include "ibex_runtime.h"
#include "ibex_win.h"

#define SEG_ALIGN    64
#define SEG_NAME_LEN 48

bool ibex_win_comm_is_local(const ibex_comm_t *comm)
{
    const int *node_of = ibex_rt.boot.node_of;
    if (!node_of)
        return comm->size == 1;
    for (int r = 0; r < comm->size; r++)
        if (node_of[ibex_comm_world_rank(comm, r)] != ibex_rt.boot.node_id)
            return false;
    return true;
}

static ibex_status_t win_barrier(ibex_win_t *win)
{
    ibex_coll_args_t a = {.comm = win->comm};
    return ibex_coll_run(IBEX_COLL_BARRIER, &a, 0);
}

static ibex_status_t win_bcast(ibex_win_t *win, void *buf, int len)
{
    ibex_coll_args_t a = {.comm = win->comm, .rbuf = buf, .rcount = len, .rdt = MPI_BYTE};
    return ibex_coll_run(IBEX_COLL_BCAST, &a, (size_t)len);
}

/* Rank 0's anonymous memory file; the others open it through /proc (the kernel lets only a
 * process allowed to inspect rank 0, the same user, do so). */
typedef struct seg_id {
    int32_t pid, fd;
} seg_id_t;

static int seg_open(ibex_win_t *win, seg_id_t *id, size_t len)
{
    if (win->comm->rank == 0) {
        int fd = memfd_create("ibex-win", MFD_CLOEXEC);
        if (fd >= 0 && ftruncate(fd, (off_t)len) != 0) {
            close(fd);
            fd = -1;
        }
        if (fd < 0)
            ibex_error(CORE, "window: cannot create a shared segment of %zu bytes: %m", len);
        *id = (seg_id_t){getpid(), fd};
        return fd;
    }
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)id->pid, (int)id->fd);
    int fd = id->fd >= 0 ? open(path, O_RDWR | O_CLOEXEC) : -1;
    if (fd < 0 && id->fd >= 0)
        ibex_error(CORE, "window: cannot open rank 0's shared segment (%s): %m", path);
    return fd;
}

/* with_data: every rank's window memory in it (else only the lock words). */
static ibex_status_t seg_create(ibex_win_t *win, bool with_data)
{
    size_t len = 0;
    win->seg_offs = calloc((size_t)win->comm->size, sizeof(MPI_Aint));
    if (!win->seg_offs)
        return IBEX_ERR_NO_MEMORY;
    for (int r = 0; r < win->comm->size && with_data; r++) {
        win->seg_offs[r] = (MPI_Aint)len;
        len += ((size_t)win->sizes[r] + SEG_ALIGN - 1) / SEG_ALIGN * SEG_ALIGN;
    }
    size_t data = len;
    len += (size_t)win->comm->size * sizeof(ibex_win_ctrl_t); /* the lock words */
    seg_id_t id = {0, -1};
    int fd = win->comm->rank == 0 ? seg_open(win, &id, len) : -1;
    ibex_status_t st = win_bcast(win, &id, (int)sizeof(id));
    if (st == IBEX_OK && win->comm->rank != 0)
        fd = seg_open(win, &id, len);
    void *p = fd >= 0 ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    ibex_status_t bst = win_barrier(win); /* everyone has opened it: rank 0 may close */
    if (fd >= 0)
        close(fd);
    if (p == MAP_FAILED || st != IBEX_OK || bst != IBEX_OK) {
        if (p != MAP_FAILED)
            munmap(p, len);
        ibex_error(CORE, "window: cannot map the shared segment of %zu bytes", len);
        return st != IBEX_OK ? st : IBEX_ERR_NO_MEMORY;
    }
    win->seg = p;
    win->seg_len = len;
    win->ctrl = (ibex_win_ctrl_t *)((char *)p + data);
    return IBEX_OK;
}

/* Every rank's size and displacement unit, for the origin's range checks; its base and process
 * id, for cross-memory attach. */
static ibex_status_t win_exchange(ibex_win_t *win)
{
    int n = win->comm->size;
    int64_t mine[4] = {win->size, win->disp_unit, (int64_t)(uintptr_t)win->base, getpid()};
    int64_t *all = malloc((size_t)n * sizeof(mine));
    if (!all)
        return IBEX_ERR_NO_MEMORY;
    ibex_coll_args_t a = {.comm = win->comm,
                          .sbuf = mine,
                          .scount = (int)sizeof(mine),
                          .sdt = MPI_BYTE,
                          .rbuf = all,
                          .rcount = (int)sizeof(mine),
                          .rdt = MPI_BYTE};
    ibex_status_t st = ibex_coll_run(IBEX_COLL_ALLGATHER, &a, sizeof(mine));
    for (int r = 0; st == IBEX_OK && r < n; r++) {
        win->sizes[r] = (MPI_Aint)all[4 * r];
        win->disp_units[r] = (MPI_Aint)all[4 * r + 1];
        win->bases[r] = (uint64_t)all[4 * r + 2];
        win->pids[r] = (int)all[4 * r + 3];
    }
    free(all);
    return st;
}

static ibex_status_t win_arrays(ibex_win_t *win, int n)
{
    win->sizes = calloc((size_t)n, sizeof(MPI_Aint));
    win->disp_units = calloc((size_t)n, sizeof(MPI_Aint));
    win->locked = calloc((size_t)n, 1);
    win->touched = calloc((size_t)n, sizeof(bool));
    win->pending = calloc((size_t)n, sizeof(int));
    win->post_seen = calloc((size_t)n, sizeof(int));
    win->rcache = calloc((size_t)n, sizeof(*win->rcache));
    win->rcache_n = calloc((size_t)n, sizeof(int));
    win->bases = calloc((size_t)n, sizeof(uint64_t));
    win->pids = calloc((size_t)n, sizeof(int));
    bool ok = win->bases && win->pids && win->sizes && win->disp_units && win->locked &&
              win->touched && win->pending && win->post_seen && win->rcache && win->rcache_n;
    return ok ? IBEX_OK : IBEX_ERR_NO_MEMORY;
}

static void win_destroy(ibex_win_t *win)
{
    if (win->port)
        ibex_am_port_close(win->port);
    ibex_win_dyn_destroy(win); /* its regions' registrations first */
    ibex_win_rdma_free(win);   /* before the memory it registered goes */
    if (win->seg)
        munmap(win->seg, win->seg_len);
    if (win->own_mem)
        ibex_p2p_mem_free(win->base);
    for (int r = 0; win->rcache && r < win->comm->size; r++)
        free(win->rcache[r]);
    while (win->waiters) {
        ibex_win_waiter_t *w = win->waiters;
        win->waiters = w->next;
        free(w);
    }
    free(win->rcache);
    free(win->rcache_n);
    free(win->regions);
    free(win->seg_offs);
    free(win->sizes);
    free(win->disp_units);
    free(win->bases);
    free(win->pids);
    free(win->locked);
    free(win->touched);
    free(win->pending);
    free(win->post_seen);
    if (win->comm)
        ibex_comm_release(win->comm);
    free(win);
}

/* This rank's memory: the program's, allocated here, or its part of the shared segment. */
static ibex_status_t win_memory(ibex_win_t *win, const ibex_win_args_t *args)
{
    /* Win_allocate_shared always has the segment (its loads and stores need it); with
     * IBEX_WIN_DIRECT=0 its MPI operations still go through the active-message path */
    bool shared = args->flavor == MPI_WIN_FLAVOR_SHARED;
    bool alloc_local = args->flavor == MPI_WIN_FLAVOR_ALLOCATE && ibex_win_cfg_direct &&
                       ibex_win_comm_is_local(win->comm);
    win->direct = shared || alloc_local;
    if (args->flavor == MPI_WIN_FLAVOR_ALLOCATE && !win->direct) {
        ibex_status_t st = ibex_p2p_mem_alloc(args->size > 0 ? (size_t)args->size : 1, &win->base);
        if (st != IBEX_OK)
            return st;
        win->own_mem = true;
        return IBEX_OK;
    }
    if (!win->direct)
        return IBEX_OK;
    ibex_status_t st = seg_create(win, true);
    if (st == IBEX_OK)
        win->base = win->seg ? (char *)win->seg + win->seg_offs[win->comm->rank] : NULL;
    if (!ibex_win_cfg_direct) { /* mapped, but operated on by the targets */
        win->direct = false;
        win->mapped = true;
        win->ctrl = NULL;
    }
    return st;
}

/* Can this rank read every member's memory (same user, no ptrace restriction)? Tried on one
 * byte of each member's window that has any. */
static bool cma_probe(const ibex_win_t *win)
{
    for (int r = 0; r < win->comm->size; r++) {
        if (win->sizes[r] == 0 || r == win->comm->rank)
            continue;
        char b;
        struct iovec l = {&b, 1}, rm = {(void *)(uintptr_t)win->bases[r], 1};
        if (process_vm_readv(win->pids[r], &l, 1, &rm, 1, 0) != 1)
            return false;
    }
    return true;
}

/* MPI_Win_create on one node: operations by cross-memory attach and lock words in a small
 * shared segment, when every member can reach every other's memory; else the active-message
 * path. The decision is collective (one rank's failure makes every rank fall back). */
static ibex_status_t win_cma_setup(ibex_win_t *win)
{
    if (!ibex_win_cfg_direct || !ibex_win_comm_is_local(win->comm))
        return IBEX_OK;
    int ok = win->flavor == MPI_WIN_FLAVOR_DYNAMIC ? ibex_win_dyn_probe(win) : cma_probe(win);
    ibex_coll_args_t a = {.comm = win->comm,
                          .sbuf = MPI_IN_PLACE,
                          .rbuf = &ok,
                          .rcount = 1,
                          .rdt = MPI_INT,
                          .op = ibex_op_get(MPI_MIN)};
    ibex_status_t st = ibex_coll_run(IBEX_COLL_ALLREDUCE, &a, sizeof(int));
    if (st != IBEX_OK || !ok)
        return st;
    st = seg_create(win, false);
    win->cma = st == IBEX_OK;
    return st;
}

/* The network direct path serves created, allocated and dynamic windows that no node-local
 * path took (the same on every member). */
static bool win_rdma_wanted(const ibex_win_t *win)
{
    return win->flavor != MPI_WIN_FLAVOR_SHARED && ibex_win_cfg_rdma && !win->direct && !win->cma;
}

/* A dynamic window's table of regions (win_dyn.c), for the direct paths, then its
 * cross-memory-attach path within a node. */
static ibex_status_t win_dyn_setup(ibex_win_t *win)
{
    if (!ibex_win_cfg_direct && !ibex_win_cfg_rdma)
        return IBEX_OK;
    ibex_status_t st = ibex_win_dyn_create(win);
    return st == IBEX_OK ? win_cma_setup(win) : st;
}

ibex_status_t ibex_win_create(const ibex_win_args_t *args, ibex_win_t **win_p)
{
    ibex_win_t *win = calloc(1, sizeof(*win));
    if (!win)
        return IBEX_ERR_NO_MEMORY;
    win->handle = MPI_WIN_NULL;
    win->flavor = args->flavor;
    win->model = MPI_WIN_UNIFIED;
    win->base = args->flavor == MPI_WIN_FLAVOR_DYNAMIC ? MPI_BOTTOM : args->base;
    win->size = args->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : args->size;
    win->disp_unit = args->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : args->disp_unit;
    win->lock_excl = -1;
    ibex_status_t st = ibex_comm_create_from(args->comm, args->comm->group, &win->comm);
    if (st == IBEX_OK)
        st = win_arrays(win, win->comm->size);
    if (st == IBEX_OK)
        st = win_exchange(win);
    if (st == IBEX_OK)
        st = win_memory(win, args);
    if (st == IBEX_OK && args->flavor == MPI_WIN_FLAVOR_CREATE)
        st = win_cma_setup(win);
    if (st == IBEX_OK && args->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        st = win_dyn_setup(win);
    if (st == IBEX_OK && win_rdma_wanted(win))
        st = ibex_win_rdma_setup(win);
    if (st == IBEX_OK)
        st = ibex_am_port_open(win->comm, ibex_win_handle, win, &win->port);
    if (st == IBEX_OK)
        st = win_barrier(win);
    if (st != IBEX_OK) {
        win_destroy(win);
        return st;
    }
    ibex_debug(CORE, "window of flavor %d: %s", win->flavor,
               win->direct ? "shared mapping"
               : win->cma  ? "cross-memory attach"
               : win->rdma ? "rdma"
                           : "active messages");
    *win_p = win;
    return IBEX_OK;
}

bool ibex_win_busy(const ibex_win_t *win)
{
    return win->nlocked > 0 || (win->epoch & ~(unsigned)IBEX_WIN_EPOCH_FENCE) != 0;
}

ibex_status_t ibex_win_free(ibex_win_t *win)
{
    /* every rank's requests are answered before it enters: after the barrier none is left */
    ibex_win_wait_until(win, NULL, 0);
    ibex_status_t st = win_barrier(win);
    ibex_win_rsends_drain(win); /* every origin has its Gets: these are done */
    win_destroy(win);
    return st;
}

void ibex_win_shared_query(const ibex_win_t *win, int rank, MPI_Aint *size_p, MPI_Aint *disp_unit_p,
                           void **base_p)
{
    if (rank == MPI_PROC_NULL) {
        rank = 0;
        while (rank < win->comm->size - 1 && win->sizes[rank] == 0)
            rank++;
    }
    bool mapped = win->direct || win->mapped;
    if (!mapped && rank != win->comm->rank) {
        *size_p = 0; /* MPI 4.1: memory this process cannot reach by load / store */
        *disp_unit_p = win->disp_units[rank];
        *base_p = NULL;
        return;
    }
    *size_p = win->sizes[rank];
    *disp_unit_p = win->disp_units[rank];
    *base_p = win->seg ? (char *)win->seg + win->seg_offs[rank] : mapped ? NULL : win->base;
}

int ibex_win_attach(ibex_win_t *win, void *base, MPI_Aint size)
{
    uint64_t b = (uint64_t)(uintptr_t)base, e = b + (uint64_t)size;
    for (int i = 0; i < win->nregions; i++) {
        ibex_win_region_t *r = &win->regions[i];
        if (b < r->base + r->len && r->base < e)
            return MPI_ERR_RMA_ATTACH;
    }
    if (win->nregions == win->cap_regions) {
        int cap = win->cap_regions ? 2 * win->cap_regions : 8;
        void *p = realloc(win->regions, (size_t)cap * sizeof(*win->regions));
        if (!p)
            return MPI_ERR_NO_MEM;
        win->regions = p;
        win->cap_regions = cap;
    }
    win->regions[win->nregions++] = (ibex_win_region_t){b, (uint64_t)size};
    int rc = win->dyn ? ibex_win_dyn_attach(win, win->nregions - 1) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        win->nregions--;
    return rc;
}

int ibex_win_detach(ibex_win_t *win, const void *base)
{
    uint64_t b = (uint64_t)(uintptr_t)base;
    for (int i = 0; i < win->nregions; i++)
        if (win->regions[i].base == b) {
            if (win->dyn)
                ibex_win_dyn_detach(win, i);
            win->regions[i] = win->regions[--win->nregions];
            return MPI_SUCCESS;
        }
    return MPI_ERR_RMA_ATTACH;
}
