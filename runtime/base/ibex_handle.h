/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Handle tables: MPI handles are integers (kind << 26 | index, see mpi.h). Each kind of object
 * has one table mapping indexes to objects, so a handle from the user is checked by range and
 * kind before it is used: a bad handle is an MPI error, never a crash.
 */
#ifndef IBEX_HANDLE_H
#define IBEX_HANDLE_H

#include <stddef.h>

#include "ibex_status.h"

#define IBEX_HANDLE_KIND(h)           (((unsigned)(h) >> 26) & 0xf)
#define IBEX_HANDLE_INDEX(h)          ((int)((unsigned)(h) & ((1u << 26) - 1)))
#define IBEX_HANDLE_MAKE(kind, index) ((int)(((unsigned)(kind) << 26) | (unsigned)(index)))

typedef struct ibex_handle_table {
    int kind;
    void **objs;    /* index -> object, NULL if free */
    int *free_list; /* stack of free indexes */
    int nfree;
    int capacity;
    int first_dynamic; /* indexes below are predefined and never freed */
} ibex_handle_table_t;

void ibex_handle_table_init(ibex_handle_table_t *t, int kind, int first_dynamic);
void ibex_handle_table_fini(ibex_handle_table_t *t);
/* Stores obj at a fixed predefined index. */
void ibex_handle_set(ibex_handle_table_t *t, int index, void *obj);
/* Stores obj at a free index; returns the handle or -1 when out of memory. */
int ibex_handle_alloc(ibex_handle_table_t *t, void *obj);
void ibex_handle_release(ibex_handle_table_t *t, int handle);

/* The object of a handle, or NULL when the handle is not a live one of this table. */
static inline void *ibex_handle_get(const ibex_handle_table_t *t, int handle)
{
    unsigned idx = (unsigned)IBEX_HANDLE_INDEX(handle);
    if ((int)IBEX_HANDLE_KIND(handle) != t->kind || idx >= (unsigned)t->capacity)
        return NULL;
    return t->objs[idx];
}

#endif
