/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Handle tables: MPI handles are integers (kind << 26 | index, see mpi.h). Each kind of object
 * has one table mapping indexes to objects, so a handle from the user is checked by range and
 * kind before it is used: a bad handle is an MPI error, never a crash.
 *
 * Threads: a lookup (ibex_handle_get, ibex_handle_at) is safe while another thread creates or
 * frees handles of the same table. The table never moves what a reader may be reading: slots
 * live in chunks that are allocated once and never reallocated (chunk k holds 64 << k slots,
 * so 21 chunks cover the 2^26 indexes a handle can name and an index keeps its slot for the
 * table's life); a new chunk is published before the capacity that covers it, and an object
 * before its handle is returned, with release stores that the lookups read with acquire loads.
 * Writers (set, alloc, release, fini) are not safe against each other: the caller owns that
 * (the global lock of ibex_thread.h under MPI_THREAD_MULTIPLE). A lookup that races with the
 * release of the same handle sees the object or NULL; that the object is not freed under it is
 * the caller's business, as in any MPI (a handle freed by one thread while another uses it is
 * an erroneous program).
 */
#ifndef IBEX_HANDLE_H
#define IBEX_HANDLE_H

#include <stddef.h>

#include "ibex_status.h"

#define IBEX_HANDLE_KIND(h)           (((unsigned)(h) >> 26) & 0xf)
#define IBEX_HANDLE_INDEX(h)          ((int)((unsigned)(h) & ((1u << 26) - 1)))
#define IBEX_HANDLE_MAKE(kind, index) ((int)(((unsigned)(kind) << 26) | (unsigned)(index)))

enum {
    IBEX_HANDLE_CHUNK0_SHIFT = 6, /* chunk 0 holds 64 slots, chunk k 64 << k */
    IBEX_HANDLE_CHUNKS = 21,      /* 64 * (2^21 - 1) slots >= 2^26 indexes */
};

typedef struct ibex_handle_table {
    int kind;
    void *first[1 << IBEX_HANDLE_CHUNK0_SHIFT]; /* chunk 0, in the table: one load to reach */
    void **chunk[IBEX_HANDLE_CHUNKS];           /* slot arrays, never moved; NULL until needed */
    int capacity;   /* slots in the allocated chunks (release-published) */
    int *free_list; /* stack of free indexes: writers only */
    int nfree;
    int first_dynamic; /* indexes below are predefined and never freed */
} ibex_handle_table_t;

void ibex_handle_table_init(ibex_handle_table_t *t, int kind, int first_dynamic);
void ibex_handle_table_fini(ibex_handle_table_t *t);
/* Stores obj at a fixed predefined index. */
void ibex_handle_set(ibex_handle_table_t *t, int index, void *obj);
/* Stores obj at a free index; returns the handle or -1 when out of memory. */
int ibex_handle_alloc(ibex_handle_table_t *t, void *obj);
void ibex_handle_release(ibex_handle_table_t *t, int handle);

/* The slot of index idx (< capacity): chunk k starts at index 64 * (2^k - 1), so idx + 64 has
 * its top bit at 6 + k and the bits below it are the offset in the chunk. Chunk 0 is the
 * table's own array `first`, so the common lookups (the first 64 handles of a kind) cost what a
 * flat array did. */
static inline void **ibex_handle_slot(const ibex_handle_table_t *t, unsigned idx)
{
    if (__builtin_expect(idx < (1u << IBEX_HANDLE_CHUNK0_SHIFT), 1))
        return (void **)&t->first[idx]; /* the hot handles (requests in flight, predefined) */
    unsigned b = idx + (1u << IBEX_HANDLE_CHUNK0_SHIFT);
    int top = 31 - __builtin_clz(b);
    void **chunk = __atomic_load_n(&t->chunk[top - IBEX_HANDLE_CHUNK0_SHIFT], __ATOMIC_ACQUIRE);
    return &chunk[b & ~(1u << top)];
}

/* The object at index idx, or NULL (free, or beyond the table). */
static inline void *ibex_handle_at(const ibex_handle_table_t *t, int idx)
{
    if ((unsigned)idx < (1u << IBEX_HANDLE_CHUNK0_SHIFT)) /* chunk 0 is always there (NULLs) */
        return __atomic_load_n(&t->first[idx], __ATOMIC_ACQUIRE);
    if ((unsigned)idx >= (unsigned)__atomic_load_n(&t->capacity, __ATOMIC_ACQUIRE))
        return NULL;
    return __atomic_load_n(ibex_handle_slot(t, (unsigned)idx), __ATOMIC_ACQUIRE);
}

/* The object of a handle, or NULL when the handle is not a live one of this table. */
static inline void *ibex_handle_get(const ibex_handle_table_t *t, int handle)
{
    if ((int)IBEX_HANDLE_KIND(handle) != t->kind)
        return NULL;
    return ibex_handle_at(t, IBEX_HANDLE_INDEX(handle));
}

/* ibex_handle_get for a table whose kind is a constant (kind == t->kind): a hot handle (index
 * below 64) in a subtraction, a compare and a load, the kind tested by the same compare (a
 * handle of another kind, or with high bits set, is far from kind << 26 after the subtraction);
 * the others as ibex_handle_get. The point-to-point argument checks look up a communicator and
 * a datatype on every call: 9 instructions and two jumps each before (callgrind, issue 18). */
static inline void *ibex_handle_get_k(const ibex_handle_table_t *t, int kind, int handle)
{
    unsigned idx = (unsigned)handle - (unsigned)IBEX_HANDLE_MAKE(kind, 0);
    if (__builtin_expect(idx < (1u << IBEX_HANDLE_CHUNK0_SHIFT), 1))
        return __atomic_load_n(&t->first[idx], __ATOMIC_ACQUIRE);
    return ibex_handle_get(t, handle);
}

#endif
