/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Levels inside a node for the hierarchical collectives (IBEX_COLL_NODE_LEVEL, coll_shm.c): with
 * a level set, each package (or L3 cache, or NUMA domain) of a node is a node of the hierarchy,
 * so Bcast / Reduce / Allreduce / Barrier run shared memory within each package and the
 * leaders' step between packages, and the shared segment of a communicator never spans two
 * packages. hwloc's topology is loaded on first use and honours HWLOC_SYNTHETIC, so a machine
 * with one package tests deeper ones ("pack:2 core:2 pu:1"). A rank's object comes from its
 * index among its node's ranks, taken onto the PUs in order (modulo their number), which every
 * rank computes alike for every rank without a message; nodes are assumed alike.
 */
#include <hwloc.h>

#include "coll_shm.h"
#include "ibex_log.h"
#include "ibex_runtime.h"

static hwloc_topology_t topo;
static int topo_state; /* 0 not loaded, 1 loaded, -1 failed */

static hwloc_topology_t level_topology(void)
{
    if (topo_state == 0) {
        topo_state = -1;
        if (hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0)
            topo_state = 1;
        else
            ibex_warn(COLL, "hwloc topology not available: IBEX_COLL_NODE_LEVEL ignored");
    }
    return topo_state == 1 ? topo : NULL;
}

static hwloc_obj_type_t level_type(int level)
{
    return level == 1 ? HWLOC_OBJ_PACKAGE : level == 2 ? HWLOC_OBJ_L3CACHE : HWLOC_OBJ_NUMANODE;
}

int ibex_coll_level_count(int level)
{
    hwloc_topology_t t = level_topology();
    int n = t ? hwloc_get_nbobjs_by_type(t, level_type(level)) : 0;
    return n > 0 ? n : 1;
}

/* Index of world rank w among the ranks of its node. */
static int node_index(int w)
{
    int k = 0;
    for (int i = 0; i < w && ibex_rt.boot.node_of; i++)
        k += ibex_rt.boot.node_of[i] == ibex_rt.boot.node_of[w];
    return ibex_rt.boot.node_of ? k : w;
}

int ibex_coll_level_of(int level, int world_rank)
{
    hwloc_topology_t t = level_topology();
    int npus = t ? hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU) : 0;
    if (npus <= 0)
        return 0;
    hwloc_obj_t pu =
        hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, (unsigned)(node_index(world_rank) % npus));
    hwloc_obj_t o = pu ? hwloc_get_ancestor_obj_by_type(t, level_type(level), pu) : NULL;
    if (!o && level_type(level) == HWLOC_OBJ_NUMANODE && pu) /* NUMA nodes hang off the side */
        o = hwloc_get_next_obj_covering_cpuset_by_type(t, pu->cpuset, HWLOC_OBJ_NUMANODE, NULL);
    return o ? (int)o->logical_index : 0;
}
