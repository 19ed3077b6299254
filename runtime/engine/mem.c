/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Alloc_mem's memory: from the first open transport that wants registered memory (so the
 * program's buffers need no registration per message), else plain malloc. */
#include <stdlib.h>

#include "ibex_engine.h"

/* The first open transport that wants registered memory provides it; else plain malloc. */
ibex_status_t ibex_p2p_mem_alloc(size_t len, void **ptr_p)
{
    for (int i = 0; i < ibex_ep_num_transports(); i++) {
        ibex_tl_inst_t *inst = ibex_ep_transport(i);
        if (!(inst->caps.flags & IBEX_TL_CAP_NEED_REG))
            continue;
        if (inst->comp->ops.mem_alloc(inst->tl, len, ptr_p) == IBEX_OK)
            return IBEX_OK;
    }
    void *p = malloc(len ? len : 1);
    if (!p)
        return IBEX_ERR_NO_MEMORY;
    *ptr_p = p;
    return IBEX_OK;
}

ibex_status_t ibex_p2p_mem_free(void *ptr)
{
    if (!ptr)
        return IBEX_OK;
    for (int i = 0; i < ibex_ep_num_transports(); i++) {
        ibex_tl_inst_t *inst = ibex_ep_transport(i);
        if ((inst->caps.flags & IBEX_TL_CAP_NEED_REG) &&
            inst->comp->ops.mem_free(inst->tl, ptr) == IBEX_OK)
            return IBEX_OK;
    }
    free(ptr);
    return IBEX_OK;
}
