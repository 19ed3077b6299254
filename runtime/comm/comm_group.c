/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Comm_create_group: a communicator over `group`, collective over the group's members
 * only. The context agreement runs among them on a view of the parent (the parent's context
 * pair, ranks of the group), on the parent's collective context with tag IBEX_COMM_GROUP_TAG +
 * the program's tag: above every tag the collectives and MPI_TAG_UB use, so neither other
 * collectives on the parent nor a concurrent Comm_create_group with another tag can take its
 * messages. Linear: members send their free-pair bitmap to group rank 0, which ANDs and sends
 * the result back (a creation, not a hot path).
 */
#include <stdlib.h>
#include <string.h>

#include "comm_impl.h"
#include "ibex_comm_inter.h"
#include "ibex_log.h"
#include "ibex_p2p.h"

#define CTX_INTS ((int)(IBEX_CTX_MASK_WORDS * sizeof(uint64_t) / sizeof(int)))

/* The parent seen through group: same contexts, ranks of the group. Lives on the caller's
 * stack while the (blocking) agreement runs; the extra reference keeps requests from freeing it. */
static ibex_comm_t group_view(const ibex_comm_t *parent, ibex_group_t *group)
{
    ibex_comm_t v = *parent;
    v.handle = MPI_COMM_NULL;
    v.refcount = 2;
    v.group = v.peers = group;
    v.rank = group->my_rank;
    v.size = v.peer_size = group->size;
    v.local = NULL;
    return v;
}

static ibex_status_t group_band(ibex_comm_t *v, uint64_t *mask, int tag)
{
    ibex_dt_t *dt = ibex_dt_get(MPI_INT);
    ibex_req_t *req;
    ibex_status_t st = IBEX_OK;
    if (v->rank != 0) {
        st = ibex_p2p_isend(mask, CTX_INTS, dt, 0, tag, v, true, &req);
        st = st == IBEX_OK ? ibex_p2p_wait(req, NULL) : st;
        st = st == IBEX_OK ? ibex_p2p_irecv(mask, CTX_INTS, dt, 0, tag, v, true, &req) : st;
        return st == IBEX_OK ? ibex_p2p_wait(req, NULL) : st;
    }
    uint64_t other[IBEX_CTX_MASK_WORDS];
    for (int r = 1; r < v->size && st == IBEX_OK; r++) {
        st = ibex_p2p_irecv(other, CTX_INTS, dt, r, tag, v, true, &req);
        st = st == IBEX_OK ? ibex_p2p_wait(req, NULL) : st;
        for (int w = 0; st == IBEX_OK && w < IBEX_CTX_MASK_WORDS; w++)
            mask[w] &= other[w];
    }
    for (int r = 1; r < v->size && st == IBEX_OK; r++) {
        st = ibex_p2p_isend(mask, CTX_INTS, dt, r, tag, v, true, &req);
        st = st == IBEX_OK ? ibex_p2p_wait(req, NULL) : st;
    }
    return st;
}

typedef struct group_band {
    ibex_comm_t view;
    int tag;
} group_band_t;

static ibex_status_t group_band_exchange(void *arg, uint64_t *mask)
{
    group_band_t *b = arg;
    return group_band(&b->view, mask, b->tag);
}

ibex_status_t ibex_comm_create_group(ibex_comm_t *parent, ibex_group_t *group, int tag,
                                     ibex_comm_t **comm_p)
{
    return ibex_comm_create_tagged(parent, group, IBEX_COMM_GROUP_TAG + tag, comm_p);
}

ibex_status_t ibex_comm_create_tagged(ibex_comm_t *parent, ibex_group_t *group, int raw_tag,
                                      ibex_comm_t **comm_p)
{
    group_band_t b = {group_view(parent, group), raw_tag};
    uint32_t ctx;
    ibex_status_t st =
        ibex_comm_ctx_agree_by(ibex_comm_ctx_prio(parent, raw_tag), group_band_exchange, &b, &ctx);
    if (st != IBEX_OK) {
        ibex_error(CORE, "context agreement over a group of %d failed: %s", group->size,
                   ibex_status_str(st));
        return st;
    }
    ibex_comm_t *comm = ibex_comm_new_on(group, NULL, ctx, parent->errhandler);
    if (!comm) {
        ibex_comm_ctx_release(ctx);
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
