/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory hooks: the malloc policy and the interposed unmapping calls that keep the registration
 * cache (verbs_mr.c) right.
 *
 * A cached registration pins the physical pages it saw. If the program frees memory and the
 * same virtual addresses later map other pages, a cache hit would make the adapter move the old
 * pages. Two measures close this, both only in processes where verbs can be used:
 *  1. At load time (constructor) malloc is told never to give memory back to the kernel
 *     (M_MMAP_MAX = 0: no mmap'd chunks, all from the heap; M_TRIM_THRESHOLD = max: no trimming).
 *     A freed and reallocated buffer then keeps its pages, so its registration stays right.
 *     glibc's free() of an mmap'd chunk calls munmap internally, where no wrapper sees it: this is
 *     why mmap'd chunks are disabled rather than tracked, and why this must happen at load time:
 *     a chunk malloc'd before the transport opens could otherwise be unmapped unseen.
 *  2. munmap, mremap, madvise(DONTNEED / FREE / REMOVE) and mmap made by the program are wrapped
 *     here: they report the range to the registered client before the system call.
 * Elsewhere (IBEX_TRANSPORTS without verbs) malloc is left alone and the wrappers only forward.
 * Known gap: memory returned by malloc_trim() or sbrk() called directly by the program.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "verbs_memhooks.h"

/* sysconf(_SC_PAGESIZE) does not fail on Linux; should it, the smallest page there is. */
#define MEMHOOKS_PAGE_FALLBACK 4096u

static bool hooks_on; /* written once by the constructor, before any thread exists */
static struct {
    ibex_verbs_memhooks_cb_t cb;
    void *arg;
} client_slot;                            /* written only while no client is live */
static _Atomic(const void *) client_live; /* &client_slot while a client is registered */
static atomic_int hooks_running;          /* hooks between reading client_live and returning */
static _Atomic size_t page_size;

/* The one early read of IBEX_TRANSPORTS. The constructor runs before main, long before
 * ibex_config_load() fills the tunables table, so it cannot use the table; it must read the
 * variable exactly as the table and the transport selection (runtime/engine/ep.c) do: unset means
 * the default "auto"; "auto" selects everything; otherwise a comma list of names compared exactly
 * (an empty value selects nothing). */
bool ibex_verbs_memhooks_wanted(const char *transports)
{
    if (!transports || strcmp(transports, "auto") == 0)
        return true;
    for (const char *p = transports; *p;) {
        size_t len = strcspn(p, ",");
        if (len == strlen("verbs") && strncmp(p, "verbs", len) == 0)
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

__attribute__((constructor)) static void memhooks_init(void)
{
    (void)ibex_verbs_page_size();
    if (!ibex_verbs_memhooks_wanted(getenv("IBEX_TRANSPORTS")))
        return;
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, -1);
    hooks_on = true;
}

bool ibex_verbs_memhooks_active(void)
{
    return hooks_on;
}

size_t ibex_verbs_page_size(void)
{
    size_t pg = atomic_load_explicit(&page_size, memory_order_relaxed);
    if (pg == 0) {
        long v = sysconf(_SC_PAGESIZE);
        pg = v > 0 ? (size_t)v : MEMHOOKS_PAGE_FALLBACK;
        atomic_store_explicit(&page_size, pg, memory_order_relaxed);
    }
    return pg;
}

ibex_status_t ibex_verbs_memhooks_register(ibex_verbs_memhooks_cb_t cb, void *arg)
{
    if (!hooks_on)
        return IBEX_ERR_UNSUPPORTED;
    if (atomic_load(&client_live))
        return IBEX_ERR_INVALID;
    client_slot.cb = cb;
    client_slot.arg = arg;
    atomic_store(&client_live, (const void *)&client_slot);
    return IBEX_OK;
}

void ibex_verbs_memhooks_unregister(void)
{
    atomic_store(&client_live, NULL);
    /* a hook on another thread may still be inside the callback: its client goes away next */
    while (atomic_load(&hooks_running) > 0)
        sched_yield();
}

static void memhooks_report(uintptr_t addr, size_t len)
{
    if (!hooks_on || len == 0)
        return;
    atomic_fetch_add(&hooks_running, 1);
    if (atomic_load(&client_live))
        client_slot.cb(client_slot.arg, addr, len);
    atomic_fetch_sub(&hooks_running, 1);
}

/* ---- the wrapped calls: report, then the system call itself (no libc wrapper to find) ---- */

int munmap(void *addr, size_t len)
{
    memhooks_report((uintptr_t)addr, len);
    return (int)syscall(SYS_munmap, addr, len);
}

void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
    void *new_addr = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        new_addr = va_arg(ap, void *);
        va_end(ap);
        memhooks_report((uintptr_t)new_addr, new_len);
    }
    memhooks_report((uintptr_t)old, old_len);
    return (void *)syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
}

int madvise(void *addr, size_t len, int advice)
{
    if (advice == MADV_DONTNEED || advice == MADV_FREE || advice == MADV_REMOVE)
        memhooks_report((uintptr_t)addr, len);
    return (int)syscall(SYS_madvise, addr, len, advice);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    void *p = (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
    /* a new mapping where a cached range was means that range was unmapped unseen */
    if (p != MAP_FAILED)
        memhooks_report((uintptr_t)p, len);
    return p;
}
