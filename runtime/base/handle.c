/* SPDX-License-Identifier: BSD-3-Clause */
/* Handle tables. See ibex_handle.h. */
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
    free(t->objs);
    free(t->free_list);
    memset(t, 0, sizeof(*t));
}

static int table_grow(ibex_handle_table_t *t, int min_capacity)
{
    int cap = t->capacity ? t->capacity : 64;
    while (cap < min_capacity)
        cap *= 2;
    if (cap == t->capacity)
        return 0;
    void **objs = realloc(t->objs, (size_t)cap * sizeof(*objs));
    if (!objs)
        return -1;
    t->objs = objs;
    int *fl = realloc(t->free_list, (size_t)cap * sizeof(*fl));
    if (!fl)
        return -1;
    t->free_list = fl;
    /* New indexes go on the free stack highest first, so low indexes are handed out first. */
    int start = t->capacity > t->first_dynamic ? t->capacity : t->first_dynamic;
    for (int i = t->capacity; i < cap; i++)
        objs[i] = NULL;
    for (int i = cap - 1; i >= start; i--)
        fl[t->nfree++] = i;
    t->capacity = cap;
    return 0;
}

void ibex_handle_set(ibex_handle_table_t *t, int index, void *obj)
{
    if (index >= t->capacity && table_grow(t, index + 1) != 0)
        ibex_assert(!"out of memory for predefined handles");
    t->objs[index] = obj;
}

int ibex_handle_alloc(ibex_handle_table_t *t, void *obj)
{
    if (t->nfree == 0 && table_grow(t, t->capacity * 2 > 64 ? t->capacity * 2 : 64) != 0)
        return -1;
    if (t->nfree == 0 && table_grow(t, t->capacity * 2) != 0)
        return -1;
    int idx = t->free_list[--t->nfree];
    t->objs[idx] = obj;
    return IBEX_HANDLE_MAKE(t->kind, idx);
}

void ibex_handle_release(ibex_handle_table_t *t, int handle)
{
    int idx = IBEX_HANDLE_INDEX(handle);
    if (idx < t->first_dynamic || idx >= t->capacity || !t->objs[idx])
        return;
    t->objs[idx] = NULL;
    t->free_list[t->nfree++] = idx;
}
