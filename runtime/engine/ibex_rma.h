/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-sided transfers straight into peers' registered memory (runtime/engine/rma.c), for MPI
 * windows over a network: RDMA WRITE / READ and remote atomics that the target's CPU never sees.
 *
 * A window opens one ibex_rma_t over its members: the first open transport that offers put,
 * get and remote atomics on registered memory (IBEX_TL_CAP_PUT | GET | ATOMIC | NEED_REG) and
 * reaches every member, itself included, whatever transport the engine's point-to-point
 * dispatch uses for them (so every atomic to the window goes through one device: one atomicity
 * domain). Its endpoints to the members are created at once; the connections finish in
 * progress. Completions run from ibex_progress(), like every transport completion.
 */
#ifndef IBEX_RMA_H
#define IBEX_RMA_H

#include <stddef.h>

#include "ibex_status.h"
#include "transport.h"

typedef struct ibex_rma ibex_rma_t;

/* IBEX_ERR_UNSUPPORTED when no open transport qualifies. */
ibex_status_t ibex_rma_open(const int *world_ranks, int n, ibex_rma_t **rma_p);
void ibex_rma_close(ibex_rma_t *rma);
/* The open transport ibex_rma_open chose (so that a wait can poll it alone). */
struct ibex_tl_inst *ibex_rma_transport(const ibex_rma_t *rma);
/* Bytes of a packed remote key of the chosen transport. */
size_t ibex_rma_rkey_size(const ibex_rma_t *rma);
ibex_status_t ibex_rma_mem_reg(ibex_rma_t *rma, void *addr, size_t len, ibex_tl_mem_t **mem_p);
void ibex_rma_mem_dereg(ibex_rma_t *rma, ibex_tl_mem_t *mem);
ibex_status_t ibex_rma_pack_rkey(ibex_rma_t *rma, ibex_tl_mem_t *mem, void *buf);
/* i: the member's index in the world_ranks given to ibex_rma_open. Each returns as transport.h
 * says: IBEX_OK (done, no callback), IBEX_INPROGRESS (desc->comp->cb later) or an error. */
ibex_status_t ibex_rma_put(ibex_rma_t *rma, int i, const ibex_tl_rma_t *desc);
ibex_status_t ibex_rma_get(ibex_rma_t *rma, int i, const ibex_tl_rma_t *desc);
ibex_status_t ibex_rma_atomic(ibex_rma_t *rma, int i, const ibex_tl_atomic_t *desc);

#endif
