/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Group objects and their handle table. A group is an immutable list of world ranks; the
 * program's handles and the communicators built on it share it by reference count. The
 * empty group is one static object behind MPI_GROUP_EMPTY, never freed.
 */
#include <stdlib.h>
#include <string.h>

#include "comm_impl.h"
#include "ibex_handle.h"
#include "ibex_log.h"
#include "ibex_runtime.h"

ibex_group_t ibex_group_empty_obj = {
    .handle = MPI_GROUP_EMPTY,
    .refcount = 1,
    .size = 0,
    .my_rank = MPI_UNDEFINED,
    .world_ranks = NULL,
};

static ibex_handle_table_t group_table;

ibex_status_t ibex_group_init(void)
{
    ibex_handle_table_init(&group_table, IBEX_KIND_GROUP, IBEX_HANDLE_INDEX(MPI_GROUP_EMPTY) + 1);
    ibex_handle_set(&group_table, IBEX_HANDLE_INDEX(MPI_GROUP_EMPTY), &ibex_group_empty_obj);
    return IBEX_OK;
}

void ibex_group_fini(void)
{
    ibex_handle_table_fini(&group_table);
}

ibex_group_t *ibex_group_get(MPI_Group handle)
{
    return ibex_handle_get(&group_table, handle);
}

ibex_group_t *ibex_group_new(int size)
{
    if (size == 0)
        return &ibex_group_empty_obj;
    ibex_group_t *g = calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    g->world_ranks = malloc((size_t)size * sizeof(int));
    if (!g->world_ranks) {
        free(g);
        return NULL;
    }
    g->handle = MPI_GROUP_NULL;
    g->refcount = 1;
    g->size = size;
    g->my_rank = MPI_UNDEFINED;
    return g;
}

ibex_group_t *ibex_group_from_world(const int *world_ranks, int n)
{
    ibex_group_t *g = ibex_group_new(n);
    if (!g || n == 0)
        return g;
    memcpy(g->world_ranks, world_ranks, (size_t)n * sizeof(int));
    g->my_rank = ibex_group_rank_of(g, ibex_rt.boot.rank);
    return g;
}

void ibex_group_release(ibex_group_t *group)
{
    if (!group || group == &ibex_group_empty_obj)
        return;
    ibex_assert(group->refcount > 0);
    if (--group->refcount > 0)
        return;
    if (group->handle != MPI_GROUP_NULL)
        ibex_handle_release(&group_table, group->handle);
    free(group->world_ranks);
    free(group);
}

MPI_Group ibex_group_handle_new(ibex_group_t *group)
{
    if (group == &ibex_group_empty_obj)
        return MPI_GROUP_EMPTY;
    if (group->handle == MPI_GROUP_NULL) {
        int h = ibex_handle_alloc(&group_table, group);
        if (h < 0)
            return MPI_GROUP_NULL;
        group->handle = h;
    }
    group->refcount++;
    return group->handle;
}

int ibex_group_rank_of(const ibex_group_t *group, int w)
{
    for (int i = 0; i < group->size; i++)
        if (group->world_ranks[i] == w)
            return i;
    return MPI_UNDEFINED;
}

int ibex_group_compare(const ibex_group_t *a, const ibex_group_t *b)
{
    if (a->size != b->size)
        return MPI_UNEQUAL;
    if (a->size == 0 || memcmp(a->world_ranks, b->world_ranks, (size_t)a->size * sizeof(int)) == 0)
        return MPI_IDENT;
    for (int i = 0; i < a->size; i++)
        if (ibex_group_rank_of(b, a->world_ranks[i]) == MPI_UNDEFINED)
            return MPI_UNEQUAL;
    return MPI_SIMILAR;
}
