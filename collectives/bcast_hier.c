/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bcast over several nodes (base/coll_hier.c): on the root's node a shared-memory bcast from
 * the root (which reaches the node's leader), then the table's algorithm between the leaders
 * from the root's leader, then a shared-memory bcast from the leader on every other node. Each
 * byte crosses the network once per node, not once per rank. Cost: two shared-memory bcasts +
 * the leaders' bcast over `nodes` ranks.
 */
#include "coll_shm.h"
#include "ibex_datatype.h"

ibex_status_t ibex_coll_bcast_hier(const ibex_coll_args_t *a)
{
    size_t bytes = (size_t)a->rcount * ibex_dt_get(a->rdt)->size;
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_hier_get(a->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg)
        return ibex_coll_fallback(IBEX_COLL_BCAST, a, bytes);
    int me = a->comm->rank, rl = seg->leader_of[a->root];
    bool root_node = seg->leader_of[me] == rl;
    ibex_coll_args_t node = *a, leaders = *a;
    node.comm = seg->node;
    node.root = root_node ? ibex_coll_hier_node_rank(seg, a->root) : 0;
    leaders.comm = seg->leaders;
    leaders.root = seg->leader_index[a->root];
    if (root_node)
        st = ibex_coll_bcast_shm(&node);
    if (st == IBEX_OK && seg->leaders)
        st = ibex_coll_fallback(IBEX_COLL_BCAST, &leaders, bytes);
    if (st == IBEX_OK && !root_node)
        st = ibex_coll_bcast_shm(&node);
    return st;
}
