/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicator objects and their handle table; MPI_COMM_WORLD and MPI_COMM_SELF.
 *
 * A communicator holds its group (shared, reference counted), its agreed context id pair and
 * the matching state of both contexts (from the point-to-point engine). It is reference
 * counted so that a pending request keeps it alive after MPI_Comm_free: the context id pair
 * is released, and may be agreed again, only when the last reference goes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_impl.h"
#include "ibex_handle.h"
#include "ibex_log.h"
#include "ibex_p2p.h"
#include "ibex_runtime.h"

ibex_comm_t *ibex_comm_world;
ibex_comm_t *ibex_comm_self;

ibex_handle_table_t ibex_comm_handles;
static int comm_live;

ibex_comm_t *ibex_comm_get(MPI_Comm handle)
{
    return ibex_handle_get(&ibex_comm_handles, handle);
}

int ibex_comm_live_count(void)
{
    return comm_live;
}

/* A communicator over group with context pair context_id; takes a reference on group. */
static ibex_comm_t *comm_new(ibex_group_t *group, uint32_t context_id, int errhandler)
{
    return ibex_comm_new_on(group, NULL, context_id, errhandler);
}

ibex_comm_t *ibex_comm_new_on(ibex_group_t *group, ibex_group_t *remote, uint32_t context_id,
                              int errhandler)
{
    ibex_comm_t *comm = calloc(1, sizeof(*comm));
    if (!comm)
        return NULL;
    comm->pt2pt = ibex_match_queue_get(context_id);
    comm->coll = ibex_match_queue_get(context_id + 1);
    if (!comm->pt2pt || !comm->coll) { /* out of memory: the queues made stay for reuse */
        free(comm);
        return NULL;
    }
    comm->handle = MPI_COMM_NULL;
    comm->refcount = 1;
    comm->context_id = context_id;
    comm->rank = group->my_rank;
    comm->size = group->size;
    comm->group = group;
    group->refcount++;
    comm->peers = remote ? remote : group;
    comm->peer_size = comm->peers->size;
    if (remote && remote != group)
        remote->refcount++;
    comm->errhandler = errhandler;
    comm_live++;
    return comm;
}

void ibex_comm_destroy(ibex_comm_t *comm)
{
    if (comm->coll_shm_free)
        comm->coll_shm_free(comm->coll_shm);
    ibex_match_queue_put(comm->context_id);
    ibex_match_queue_put(comm->context_id + 1);
    if (comm != ibex_comm_world && comm != ibex_comm_self)
        ibex_comm_ctx_release(comm->context_id);
    if (comm->handle != MPI_COMM_NULL)
        ibex_handle_release(&ibex_comm_handles, comm->handle);
    ibex_group_release(comm->group);
    free(comm->topo);
    if (comm->peers != comm->group)
        ibex_group_release(comm->peers);
    if (comm->local)
        ibex_comm_release(comm->local);
    comm_live--;
    free(comm);
}

ibex_status_t ibex_comm_handle_alloc(ibex_comm_t *comm)
{
    int h = ibex_handle_alloc(&ibex_comm_handles, comm);
    if (h < 0) {
        ibex_error(CORE, "out of memory for a communicator handle");
        return IBEX_ERR_NO_MEMORY;
    }
    comm->handle = h;
    return IBEX_OK;
}

ibex_status_t ibex_comm_create_from(ibex_comm_t *parent, ibex_group_t *group, ibex_comm_t **comm_p)
{
    uint32_t context_id;
    ibex_status_t st = ibex_comm_ctx_agree(parent, &context_id);
    if (st != IBEX_OK)
        return st;
    if (!group) {
        ibex_comm_ctx_release(context_id);
        *comm_p = NULL;
        return IBEX_OK;
    }
    ibex_assert(group->my_rank != MPI_UNDEFINED);
    ibex_comm_t *comm = comm_new(group, context_id, parent->errhandler);
    if (!comm) {
        ibex_error(CORE, "out of memory for a communicator of %d ranks", group->size);
        ibex_comm_ctx_release(context_id);
        return IBEX_ERR_NO_MEMORY;
    }
    comm->errhandler_set = parent->errhandler_set;
    st = ibex_comm_handle_alloc(comm);
    if (st != IBEX_OK) {
        ibex_comm_release(comm);
        return st;
    }
    *comm_p = comm;
    return IBEX_OK;
}

/* A predefined communicator at a fixed handle; consumes the caller's reference on group. */
static ibex_status_t comm_predefined(ibex_group_t *group, uint32_t context_id, MPI_Comm handle,
                                     const char *name, ibex_comm_t **comm_p)
{
    if (!group)
        return IBEX_ERR_NO_MEMORY;
    ibex_comm_t *comm = comm_new(group, context_id, MPI_ERRORS_ARE_FATAL);
    ibex_group_release(group);
    if (!comm)
        return IBEX_ERR_NO_MEMORY;
    comm->handle = handle;
    snprintf(comm->name, sizeof(comm->name), "%s", name);
    ibex_handle_set(&ibex_comm_handles, IBEX_HANDLE_INDEX(handle), comm);
    *comm_p = comm;
    return IBEX_OK;
}

ibex_status_t ibex_comm_init(void)
{
    int size = ibex_rt.boot.size, me = ibex_rt.boot.rank;
    ibex_group_init();
    ibex_comm_ctx_init();
    ibex_handle_table_init(&ibex_comm_handles, IBEX_KIND_COMM,
                           IBEX_HANDLE_INDEX(MPI_COMM_SELF) + 1);
    int *ranks = malloc((size_t)size * sizeof(int));
    if (!ranks)
        goto err_nomem;
    for (int i = 0; i < size; i++)
        ranks[i] = i;
    ibex_status_t st = comm_predefined(ibex_group_from_world(ranks, size), 0, MPI_COMM_WORLD,
                                       "MPI_COMM_WORLD", &ibex_comm_world);
    free(ranks);
    if (st != IBEX_OK)
        goto err_nomem;
    st = comm_predefined(ibex_group_from_world(&me, 1), 2, MPI_COMM_SELF, "MPI_COMM_SELF",
                         &ibex_comm_self);
    if (st != IBEX_OK)
        goto err_world;
    return IBEX_OK;

err_world:
    ibex_comm_destroy(ibex_comm_world);
    ibex_comm_world = NULL;
err_nomem:
    ibex_error(CORE, "out of memory creating MPI_COMM_WORLD / MPI_COMM_SELF (%d ranks)", size);
    ibex_handle_table_fini(&ibex_comm_handles);
    ibex_group_fini();
    return IBEX_ERR_NO_MEMORY;
}

/* Communicators the program did not free go with the predefined ones. */
void ibex_comm_fini(void)
{
    for (int i = ibex_comm_handles.first_dynamic; i < ibex_comm_handles.capacity; i++)
        if (ibex_handle_at(&ibex_comm_handles, i))
            ibex_comm_destroy(ibex_handle_at(&ibex_comm_handles, i));
    if (ibex_comm_self)
        ibex_comm_destroy(ibex_comm_self);
    if (ibex_comm_world)
        ibex_comm_destroy(ibex_comm_world);
    ibex_comm_self = ibex_comm_world = NULL;
    ibex_handle_table_fini(&ibex_comm_handles);
    ibex_group_fini();
}
