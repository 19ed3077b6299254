/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hwloc side of binding. The topology is loaded once in the launcher; each rank's core is turned
 * into a cpu_set_t here, and the child applies it with sched_setaffinity() between fork and
 * exec. The child does not call hwloc itself: the launcher has a PMIx progress thread, so only
 * async-signal-safe calls are allowed after fork, and hwloc allocates.
 */
#include "ibex_launch.h"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>

#include "ibex_log.h"

static hwloc_topology_t run_topo;

ibex_status_t ibex_run_bind_init(int *ncores_p)
{
    if (hwloc_topology_init(&run_topo) != 0) {
        ibex_error(LAUNCH, "hwloc_topology_init failed: %m");
        return IBEX_ERR_NO_MEMORY;
    }
    if (hwloc_topology_load(run_topo) != 0) {
        ibex_error(LAUNCH, "hwloc_topology_load failed: %m");
        hwloc_topology_destroy(run_topo);
        run_topo = NULL;
        return IBEX_ERR_IO;
    }
    int ncores = hwloc_get_nbobjs_by_type(run_topo, HWLOC_OBJ_CORE);
    if (ncores <= 0) /* some virtual machines report PUs only */
        ncores = hwloc_get_nbobjs_by_type(run_topo, HWLOC_OBJ_PU);
    *ncores_p = ncores > 0 ? ncores : 0;
    return IBEX_OK;
}

static hwloc_obj_t bind_core_obj(int core)
{
    hwloc_obj_t obj = hwloc_get_obj_by_type(run_topo, HWLOC_OBJ_CORE, (unsigned)core);
    return obj ? obj : hwloc_get_obj_by_type(run_topo, HWLOC_OBJ_PU, (unsigned)core);
}

ibex_status_t ibex_run_bind_cpuset(int core, cpu_set_t *set_p, char *desc, size_t len)
{
    hwloc_obj_t obj = run_topo ? bind_core_obj(core) : NULL;
    if (!obj || !obj->cpuset) {
        ibex_error(LAUNCH, "hwloc has no core %d", core);
        return IBEX_ERR_INVALID;
    }
    cpu_set_t set;
    if (hwloc_cpuset_to_glibc_sched_affinity(run_topo, obj->cpuset, &set, sizeof(set)) != 0) {
        ibex_error(LAUNCH, "cannot convert the cpu set of core %d: %m", core);
        return IBEX_ERR_INVALID;
    }
    hwloc_bitmap_list_snprintf(desc, len, obj->cpuset);
    *set_p = set;
    return IBEX_OK;
}

void ibex_run_bind_fini(void)
{
    if (run_topo)
        hwloc_topology_destroy(run_topo);
    run_topo = NULL;
}
