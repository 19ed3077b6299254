/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided transfers for windows on a transport with remote atomics (ibex_rma.h). */
#include <stdio.h>
#include <stdlib.h>

#include "ibex_boot.h"
#include "ibex_engine.h"
#include "ibex_log.h"
#include "ibex_rma.h"

#define RMA_CAPS (IBEX_TL_CAP_PUT | IBEX_TL_CAP_GET | IBEX_TL_CAP_ATOMIC | IBEX_TL_CAP_NEED_REG)

struct ibex_rma {
    ibex_tl_inst_t *inst;
    int n;
    ibex_tl_ep_t **eps; /* per member */
};

static bool inst_reaches_all(ibex_tl_inst_t *inst, const int *ranks, int n)
{
    if ((inst->caps.flags & RMA_CAPS) != RMA_CAPS || (inst->caps.flags & IBEX_TL_CAP_CPU_RMA))
        return false;
    for (int i = 0; i < n; i++)
        if (!inst->comp->ops.reachable(inst->tl, ranks[i]))
            return false;
    return true;
}

/* The transport's endpoint to a world rank: the engine's own when it dispatches there, else
 * one created from the rank's published address. */
static ibex_status_t rma_ep(ibex_tl_inst_t *inst, int world, ibex_tl_ep_t **ep_p)
{
    ibex_ep_t *ep = ibex_ep_peek(world);
    if (ep && ep->connected && ep->tl == inst) {
        *ep_p = ep->tl_ep;
        return IBEX_OK;
    }
    char key[64];
    void *addr = NULL;
    size_t len = 0;
    snprintf(key, sizeof(key), "ibex.tl.%s", inst->comp->name);
    ibex_status_t st = ibex_boot_get(world, key, &addr, &len);
    if (st == IBEX_OK)
        st = inst->comp->ops.ep_create(inst->tl, world, addr, len, ep_p);
    free(addr);
    if (st != IBEX_OK)
        ibex_error(TL, "window: cannot reach rank %d on %s over %s: %s", world,
                   ibex_boot_peer_host(world), inst->comp->name, ibex_status_str(st));
    return st;
}

struct ibex_tl_inst *ibex_rma_transport(const ibex_rma_t *rma)
{
    return rma->inst;
}

ibex_status_t ibex_rma_open(const int *world_ranks, int n, ibex_rma_t **rma_p)
{
    ibex_tl_inst_t *inst = NULL;
    for (int i = 0; i < ibex_ep_num_transports() && !inst; i++)
        if (inst_reaches_all(ibex_ep_transport(i), world_ranks, n))
            inst = ibex_ep_transport(i);
    if (!inst)
        return IBEX_ERR_UNSUPPORTED;
    ibex_rma_t *rma = calloc(1, sizeof(*rma));
    ibex_tl_ep_t **eps = calloc((size_t)n, sizeof(*eps));
    if (!rma || !eps) {
        free(rma);
        free(eps);
        return IBEX_ERR_NO_MEMORY;
    }
    *rma = (ibex_rma_t){.inst = inst, .n = n, .eps = eps};
    for (int i = 0; i < n; i++) {
        ibex_status_t st = rma_ep(inst, world_ranks[i], &eps[i]);
        if (st != IBEX_OK) {
            ibex_rma_close(rma);
            return st;
        }
    }
    *rma_p = rma;
    return IBEX_OK;
}

void ibex_rma_close(ibex_rma_t *rma)
{
    if (!rma)
        return;
    free(rma->eps); /* the transport keeps its endpoints until it closes */
    free(rma);
}

size_t ibex_rma_rkey_size(const ibex_rma_t *rma)
{
    return rma->inst->caps.rkey_size;
}

ibex_status_t ibex_rma_mem_reg(ibex_rma_t *rma, void *addr, size_t len, ibex_tl_mem_t **mem_p)
{
    return rma->inst->comp->ops.mem_reg(rma->inst->tl, addr, len, mem_p);
}

void ibex_rma_mem_dereg(ibex_rma_t *rma, ibex_tl_mem_t *mem)
{
    if (mem)
        rma->inst->comp->ops.mem_dereg(rma->inst->tl, mem);
}

ibex_status_t ibex_rma_pack_rkey(ibex_rma_t *rma, ibex_tl_mem_t *mem, void *buf)
{
    return rma->inst->comp->ops.mem_pack_rkey(rma->inst->tl, mem, buf);
}

ibex_status_t ibex_rma_put(ibex_rma_t *rma, int i, const ibex_tl_rma_t *desc)
{
    return rma->inst->comp->ops.put(rma->eps[i], desc);
}

ibex_status_t ibex_rma_get(ibex_rma_t *rma, int i, const ibex_tl_rma_t *desc)
{
    return rma->inst->comp->ops.get(rma->eps[i], desc);
}

ibex_status_t ibex_rma_atomic(ibex_rma_t *rma, int i, const ibex_tl_atomic_t *desc)
{
    return rma->inst->comp->ops.atomic(rma->eps[i], desc);
}
