/* SPDX-License-Identifier: BSD-3-Clause */
/* Handle tables. See ibex_handle.h for the layout and the thread rule. */
#include "ibex_handle.h"

#include <stdlib.h>
#include <string.h>

#include "ibex_log.h"

void ibex_handle_table_init(ibex_handle_table_t *t, int kind, int first_dynamic)
{
    memset(t, 0, sizeof(*t));
    t->kind = kind;
    t->first_dynamic = first_dynamic;
}

void ibex_handle_table_fini(ibex_handle_table_t *t)
{
    for (int k = 1; k < IBEX_HANDLE_CHUNKS; k++) /* chunk 0 is t->first */
        free(t->chunk[k]);
    free(t->free_list);
    memset(t, 0, sizeof(*t));
}

static int chunk_slots(int k)
{
    return 1 << (IBEX_HANDLE_CHUNK0_SHIFT + k);
}

/* Pushes the new chunk's dynamic indexes on the free stack, highest first, so that low
 * indexes are handed out first. The stack is only touched by writers, so it may move. */
static int free_list_extend(ibex_handle_table_t *t, int lo, int hi)
{
    int *fl = realloc(t->free_list, (size_t)hi * sizeof(*fl));
    if (!fl)
        return -1;
    t->free_list = fl;
    for (int i = hi - 1; i >= lo && i >= t->first_dynamic; i--)
        fl[t->nfree++] = i;
    return 0;
}

/* Adds the next chunk: its slots are zeroed and published before the capacity that lets a
 * reader index them. */
static int table_grow(ibex_handle_table_t *t)
{
    int k = 0;
    while (k < IBEX_HANDLE_CHUNKS && t->chunk[k])
        k++;
    if (k == IBEX_HANDLE_CHUNKS)
        return -1;
    int lo = t->capacity, hi = lo + chunk_slots(k);
    if (hi > (1 << 26))
        hi = 1 << 26; /* the last chunk is only partly nameable */
    void **c = k == 0 ? t->first : calloc((size_t)chunk_slots(k), sizeof(*c));
    if (!c || free_list_extend(t, lo, hi) != 0) {
        if (k > 0)
            free(c);
        return -1;
    }
    __atomic_store_n(&t->chunk[k], c, __ATOMIC_RELEASE);
    __atomic_store_n(&t->capacity, hi, __ATOMIC_RELEASE);
    return 0;
}

void ibex_handle_set(ibex_handle_table_t *t, int index, void *obj)
{
    while (index >= t->capacity)
        if (table_grow(t) != 0)
            ibex_assert(!"out of memory for predefined handles");
    /* an index at or past first_dynamic was put on the free stack by a growth: take it out */
    for (int i = 0; index >= t->first_dynamic && i < t->nfree; i++)
        if (t->free_list[i] == index)
            t->free_list[i] = t->free_list[--t->nfree];
    __atomic_store_n(ibex_handle_slot(t, (unsigned)index), obj, __ATOMIC_RELEASE);
}

int ibex_handle_alloc(ibex_handle_table_t *t, void *obj)
{
    while (t->nfree == 0) /* more than one growth when the first chunk is all predefined */
        if (table_grow(t) != 0)
            return -1;
    int idx = t->free_list[--t->nfree];
    __atomic_store_n(ibex_handle_slot(t, (unsigned)idx), obj, __ATOMIC_RELEASE);
    return IBEX_HANDLE_MAKE(t->kind, idx);
}

void ibex_handle_release(ibex_handle_table_t *t, int handle)
{
    int idx = IBEX_HANDLE_INDEX(handle);
    if (idx < t->first_dynamic || !ibex_handle_at(t, idx))
        return;
    __atomic_store_n(ibex_handle_slot(t, (unsigned)idx), NULL, __ATOMIC_RELAXED);
    t->free_list[t->nfree++] = idx;
}
