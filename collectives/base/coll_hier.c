/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hierarchy of a communicator over several nodes, for the hierarchical algorithms
 * (collectives/<kind>_hier.c): one communicator per node (its ranks in the parent's order, so
 * the node's lowest parent rank, its leader, is node rank 0) and one of the leaders (in the
 * order of their parent ranks). Built once, collectively, at the first hierarchical collective;
 * the context-id agreement inside runs the parent's allreduce, which finds the hierarchy
 * "being built" and takes the plain algorithm. The two communicators have no handle: they
 * belong to the parent's state and go with it.
 */
#include <stdlib.h>

#include "coll_shm.h"
#include "ibex_handle.h"

int ibex_coll_hier_node_rank(const ibex_coll_shm_t *seg, int r)
{
    int n = 0;
    for (int j = 0; j < r; j++)
        n += seg->leader_of[j] == seg->leader_of[r];
    return n;
}

/* leader_of, leader_index and hier_ordered from the node of every rank. */
static ibex_status_t hier_map(ibex_comm_t *comm, ibex_coll_shm_t *seg)
{
    int p = comm->size, leaders = 0;
    seg->leader_of = malloc(sizeof(int) * (size_t)p);
    seg->leader_index = malloc(sizeof(int) * (size_t)p);
    if (!seg->leader_of || !seg->leader_index)
        return IBEX_ERR_NO_MEMORY;
    seg->hier_ordered = true;
    for (int i = 0; i < p; i++) {
        int node = ibex_coll_node_of(comm, i), j = 0;
        while (ibex_coll_node_of(comm, j) != node)
            j++;
        seg->leader_of[i] = j;
        seg->leader_index[i] = j == i ? leaders++ : seg->leader_index[j];
        if (i > 0 && seg->leader_of[i] < seg->leader_of[i - 1])
            seg->hier_ordered = false;
        if (i > 0 && j != i && seg->leader_of[i - 1] != j)
            seg->hier_ordered = false;
    }
    return IBEX_OK;
}

/* The group of the parent ranks whose leader_of is `leader` (leaders: whose leader_of is
 * themselves, when leader < 0); NULL if this rank is not in it. */
static ibex_group_t *hier_group(ibex_comm_t *comm, ibex_coll_shm_t *seg, int leader,
                                ibex_status_t *st)
{
    int n = 0, me = -1;
    for (int i = 0; i < comm->size; i++)
        n += leader < 0 ? seg->leader_of[i] == i : seg->leader_of[i] == leader;
    ibex_group_t *g = ibex_group_new(n);
    if (!g) {
        *st = IBEX_ERR_NO_MEMORY;
        return NULL;
    }
    n = 0;
    for (int i = 0; i < comm->size; i++) {
        if (leader < 0 ? seg->leader_of[i] != i : seg->leader_of[i] != leader)
            continue;
        me = i == comm->rank ? n : me;
        g->world_ranks[n++] = ibex_comm_world_rank(comm, i);
    }
    g->my_rank = me;
    if (me < 0) {
        ibex_group_release(g);
        return NULL;
    }
    return g;
}

/* A communicator of the hierarchy: made over comm, then taken out of the handle table. */
static ibex_status_t hier_comm(ibex_comm_t *comm, ibex_group_t *g, ibex_comm_t **out)
{
    ibex_status_t st = ibex_comm_create_from(comm, g, out);
    ibex_group_release(g);
    if (st == IBEX_OK && *out) {
        ibex_handle_release(&ibex_comm_handles, (*out)->handle);
        (*out)->handle = MPI_COMM_NULL;
    }
    return st;
}

ibex_status_t ibex_coll_hier_get(ibex_comm_t *comm, ibex_coll_shm_t **seg_p)
{
    ibex_coll_shm_t *seg = ibex_coll_state(comm);
    *seg_p = NULL;
    if (!seg)
        return IBEX_ERR_NO_MEMORY;
    if (seg->span != IBEX_COLL_SPAN_NODES || seg->hier_tried) {
        *seg_p = seg->node ? seg : NULL;
        return IBEX_OK;
    }
    seg->hier_tried = true; /* from here on the parent's collectives run the plain algorithms */
    ibex_status_t st = hier_map(comm, seg);
    if (st != IBEX_OK)
        return st; /* out of memory in a collective set-up: fatal for the job */
    ibex_group_t *node = hier_group(comm, seg, seg->leader_of[comm->rank], &st);
    ibex_group_t *leaders = st == IBEX_OK ? hier_group(comm, seg, -1, &st) : NULL;
    if (st != IBEX_OK)
        return st;
    ibex_comm_t *node_comm = NULL, *leaders_comm = NULL;
    st = hier_comm(comm, node, &node_comm);
    if (st == IBEX_OK)
        st = hier_comm(comm, leaders, &leaders_comm);
    seg->node = node_comm;
    seg->leaders = leaders_comm;
    if (st == IBEX_OK)
        *seg_p = seg;
    return st;
}

void ibex_coll_hier_free(ibex_coll_shm_t *seg)
{
    ibex_comm_release(seg->node);
    ibex_comm_release(seg->leaders);
    free(seg->leader_of);
    free(seg->leader_index);
}
