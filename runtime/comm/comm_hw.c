/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hardware levels for MPI_Comm_split_type (MPI_COMM_TYPE_HW_GUIDED / HW_UNGUIDED): the colour
 * of this process at a level is its node and the logical index of the one object of that
 * level whose cpuset contains the process's binding. A process bound more widely than one
 * object of the level (or not bound at all) has no colour there, and gets MPI_COMM_NULL, as
 * the standard says. The topology is loaded on first use (it is not needed otherwise).
 */
#include <hwloc.h>
#include <strings.h>

#include "comm_impl.h"
#include "ibex_comm_inter.h"
#include "ibex_log.h"
#include "ibex_runtime.h"

static hwloc_topology_t hw_topo;
static bool hw_loaded, hw_failed;

static hwloc_topology_t hw_topology(void)
{
    if (!hw_loaded && !hw_failed) {
        hw_failed = hwloc_topology_init(&hw_topo) != 0;
        if (!hw_failed && hwloc_topology_load(hw_topo) != 0) {
            hwloc_topology_destroy(hw_topo);
            hw_failed = true;
        }
        hw_loaded = !hw_failed;
        if (hw_failed)
            ibex_warn(CORE, "hwloc topology not available: hardware split types give no colour");
    }
    return hw_loaded ? hw_topo : NULL;
}

static int hw_node(void)
{
    return ibex_rt.boot.node_of ? ibex_rt.boot.node_of[ibex_rt.boot.rank] : 0;
}

/* Logical index of the one object of type t containing set, or MPI_UNDEFINED. */
static int hw_index(hwloc_topology_t topo, hwloc_obj_type_t t, hwloc_const_cpuset_t set)
{
    int found = MPI_UNDEFINED, n = hwloc_get_nbobjs_by_type(topo, t);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, t, (unsigned)i);
        if (!o->cpuset || !hwloc_bitmap_isincluded(set, o->cpuset))
            continue;
        if (found != MPI_UNDEFINED)
            return MPI_UNDEFINED; /* several objects contain it: not inside one */
        found = (int)o->logical_index;
    }
    return found;
}

/* hwloc reads abbreviations too ("no..." is NUMANode): only its full names and the usual
 * short ones count, so that an unknown name stays unknown. */
static bool hw_name_ok(const char *name, hwloc_obj_type_t t)
{
    static const char *const aliases[] = {"numa", "socket", "l1", "l2", "l3", "l4", "l5"};
    if (strcasecmp(name, hwloc_obj_type_string(t)) == 0)
        return true;
    for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
        if (strcasecmp(name, aliases[i]) == 0)
            return true;
    return false;
}

int ibex_comm_hw_colour(const char *name)
{
    if (strcasecmp(name, "mpi_shared_memory") == 0)
        return hw_node() << 16;
    hwloc_obj_type_t t;
    hwloc_topology_t topo = hw_topology();
    if (!topo || hwloc_type_sscanf(name, &t, NULL, 0) != 0 || !hw_name_ok(name, t))
        return -1;
    hwloc_cpuset_t set = hwloc_bitmap_alloc();
    if (!set)
        return MPI_UNDEFINED;
    int idx = MPI_UNDEFINED;
    if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(set))
        idx = hw_index(topo, t, set);
    hwloc_bitmap_free(set);
    return idx == MPI_UNDEFINED || idx >= 1 << 16 ? MPI_UNDEFINED : (hw_node() << 16) | idx;
}

const char *const ibex_comm_hw_levels[IBEX_COMM_HW_NLEVELS] = {
    "mpi_shared_memory", "Package", "NUMANode", "L3Cache", "L2Cache", "L1Cache", "Core", "PU"};
