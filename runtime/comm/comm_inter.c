/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Intercommunicators: Intercomm_create, Intercomm_merge, and Comm_dup / split / create of an
 * intercommunicator.
 *
 * An intercommunicator is an ibex_comm_t whose peers are the remote group, with `local`, an
 * internal intracommunicator over the local group (its own agreed context pair, no handle),
 * on which each side runs its half of every constructor. Its own context pair must be free on
 * every process of both groups, so each agreement is: AND-reduce the free-pair bitmaps over
 * each side's local communicator, the two leaders swap their side's bitmap (and whatever else
 * the constructor needs: group ranks, colours, `high`), each leader broadcasts what it got over
 * its side, and every process takes the lowest pair free in both bitmaps. Both sides compute
 * the same answer from the same two bitmaps, with no global fence.
 *
 * The leaders reach each other over a link: for Intercomm_create the program's peer
 * communicator and tag (point-to-point context, as the standard says), for constructors of an
 * existing intercommunicator its collective context, rank 0 of each side, with tag
 * IBEX_COMM_INTER_TAG (above the collectives' reserved 1..63).
 */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "comm_impl.h"
#include "ibex_comm_inter.h"
#include "ibex_log.h"
#include "ibex_p2p.h"

#define CTX_INTS ((int)(IBEX_CTX_MASK_WORDS * sizeof(uint64_t) / sizeof(int)))

static ibex_status_t link_swap(const ibex_inter_link_t *l, const int *mine, int n, int *theirs,
                               int m)
{
    ibex_dt_t *dt = ibex_dt_get(MPI_INT);
    ibex_req_t *reqs[2];
    ibex_status_t st = ibex_p2p_irecv(theirs, m, dt, l->peer, l->tag, l->comm, l->coll, &reqs[0]);
    if (st != IBEX_OK)
        return st;
    st = ibex_p2p_isend(mine, n, dt, l->peer, l->tag, l->comm, l->coll, &reqs[1]);
    if (st != IBEX_OK) {
        ibex_p2p_wait(reqs[0], NULL);
        return st;
    }
    return ibex_p2p_waitall(2, reqs);
}

static ibex_status_t local_bcast(ibex_comm_t *local, int leader, int *buf, int n)
{
    ibex_coll_args_t a = {.comm = local, .rbuf = buf, .rcount = n, .rdt = MPI_INT, .root = leader};
    /* a fixed algorithm, as comm_ctx.c's: this runs inside the context-id agreement, where a
     * selected one (hier, when local spans nodes) would build local's node communicators and
     * agree on their ids in the middle of it, and never win the mask this agreement holds */
    return ibex_coll_bcast_binomial(&a);
}

/* The leaders swap n ints (the leader's `mine`); every member of local gets the other side's
 * block in *theirs_p (malloc'd, *m_p ints). A leader's failure reaches its whole side. */
static ibex_status_t inter_swap(ibex_comm_t *local, int leader, const ibex_inter_link_t *l,
                                const int *mine, int n, int **theirs_p, int *m_p)
{
    int head[2] = {IBEX_OK, 0}; /* the leader's status, the other side's count */
    if (local->rank == leader)
        head[0] = link_swap(l, &n, 1, &head[1], 1);
    ibex_status_t st = local_bcast(local, leader, head, 2);
    if (st != IBEX_OK || head[0] != IBEX_OK)
        return st != IBEX_OK ? st : (ibex_status_t)head[0];
    int m = head[1];
    int *theirs = malloc((size_t)(m > 0 ? m : 1) * sizeof(int));
    int ok = theirs ? IBEX_OK : IBEX_ERR_NO_MEMORY;
    if (local->rank == leader && theirs)
        ok = link_swap(l, mine, n, theirs, m);
    /* every member learns whether the leader got the block before using it */
    st = local_bcast(local, leader, &ok, 1);
    if (st == IBEX_OK && ok == IBEX_OK && theirs)
        st = local_bcast(local, leader, theirs, m);
    if (st == IBEX_OK && (ok != IBEX_OK || !theirs))
        st = theirs ? (ibex_status_t)ok : IBEX_ERR_NO_MEMORY;
    if (st != IBEX_OK) {
        free(theirs);
        return st;
    }
    *theirs_p = theirs;
    *m_p = m;
    return IBEX_OK;
}

typedef struct inter_round {
    ibex_comm_t *local;
    int leader;
    const ibex_inter_link_t *link;
    const int *extra;
    int n;
    int *theirs; /* the other side's block of the last round (mask first) */
    int m;
} inter_round_t;

/* One round: the mask ANDed over this side, swapped with the other side's with `extra`
 * behind it, and ANDed with theirs. */
static ibex_status_t inter_exchange(void *arg, uint64_t *mask)
{
    inter_round_t *r = arg;
    ibex_status_t st = ibex_comm_ctx_allreduce_band(r->local, mask, IBEX_CTX_MASK_WORDS);
    int *mine = st == IBEX_OK ? malloc((size_t)(CTX_INTS + r->n) * sizeof(int)) : NULL;
    if (st != IBEX_OK || !mine)
        return st != IBEX_OK ? st : IBEX_ERR_NO_MEMORY;
    memcpy(mine, mask, (size_t)CTX_INTS * sizeof(int));
    if (r->n > 0)
        memcpy(mine + CTX_INTS, r->extra, (size_t)r->n * sizeof(int));
    free(r->theirs);
    r->theirs = NULL;
    st = inter_swap(r->local, r->leader, r->link, mine, CTX_INTS + r->n, &r->theirs, &r->m);
    free(mine);
    if (st == IBEX_OK && r->m < CTX_INTS)
        st = IBEX_ERR_INTERNAL;
    if (st != IBEX_OK)
        return st;
    uint64_t remote_mask[IBEX_CTX_MASK_WORDS];
    memcpy(remote_mask, r->theirs, sizeof(remote_mask));
    for (int w = 0; w < IBEX_CTX_MASK_WORDS; w++)
        mask[w] &= remote_mask[w];
    return IBEX_OK;
}

/* One agreement over both sides at priority prio (the same on both: comm_ctx.c): a context
 * pair free on every process of both groups (reserved here), and the other side's `extra`
 * block in *theirs_p (*m_p ints). */
static ibex_status_t inter_agree_at(uint64_t prio, ibex_comm_t *local, int leader,
                                    const ibex_inter_link_t *l, const int *extra, int n,
                                    int **theirs_p, int *m_p, uint32_t *ctx_p)
{
    inter_round_t r = {local, leader, l, extra, n, NULL, 0};
    ibex_status_t st = ibex_comm_ctx_agree_by(prio, inter_exchange, &r, ctx_p);
    if (st != IBEX_OK) {
        free(r.theirs);
        return st;
    }
    memmove(r.theirs, r.theirs + CTX_INTS, (size_t)(r.m - CTX_INTS) * sizeof(int));
    *theirs_p = r.theirs;
    *m_p = r.m - CTX_INTS;
    return IBEX_OK;
}

/* An intercommunicator's local intracommunicator has the same context id on both sides. */
static ibex_status_t inter_agree(ibex_comm_t *local, int leader, const ibex_inter_link_t *l,
                                 const int *extra, int n, int **theirs_p, int *m_p, uint32_t *ctx_p)
{
    return inter_agree_at(ibex_comm_ctx_prio(local, 0), local, leader, l, extra, n, theirs_p, m_p,
                          ctx_p);
}

/* Intercomm_create's two local communicators have ids of their own: the priority of its
 * agreement is made of both (the leaders swap them), so both sides give it the same. Two
 * sides that ranked it differently against another agreement of theirs could each wait for
 * the other forever (MPICH's threads/comm/idup_comm_gen, 1 run in 4). */
static ibex_status_t inter_create_prio(ibex_comm_t *local, int leader, const ibex_inter_link_t *l,
                                       uint64_t *prio_p)
{
    int mine = (int)local->context_id, *theirs = NULL, m = 0;
    ibex_status_t st = inter_swap(local, leader, l, &mine, 1, &theirs, &m);
    if (st == IBEX_OK && m != 1)
        st = IBEX_ERR_INTERNAL;
    if (st == IBEX_OK) {
        uint32_t a = (uint32_t)mine, b = (uint32_t)theirs[0];
        *prio_p = (uint64_t)(a < b ? a : b) << 32 | (a < b ? b : a);
    }
    free(theirs);
    return st;
}

/* An internal intracommunicator (no handle) over group, agreed over parent; NULL group: this
 * process takes part and gets NULL. */
static ibex_status_t comm_internal(ibex_comm_t *parent, ibex_group_t *group, ibex_comm_t **comm_p)
{
    uint32_t ctx;
    ibex_status_t st = ibex_comm_ctx_agree(parent, &ctx);
    *comm_p = NULL;
    if (st != IBEX_OK || !group) {
        if (st == IBEX_OK)
            ibex_comm_ctx_release(ctx);
        return st;
    }
    *comm_p = ibex_comm_new_on(group, NULL, ctx, parent->errhandler);
    if (!*comm_p) {
        ibex_comm_ctx_release(ctx);
        return IBEX_ERR_NO_MEMORY;
    }
    return IBEX_OK;
}

ibex_status_t ibex_comm_inter_make(ibex_comm_t *local, ibex_group_t *remote, uint32_t ctx,
                                   const ibex_comm_t *from, ibex_comm_t **inter_p)
{
    ibex_comm_t *inter = ibex_comm_new_on(local->group, remote, ctx, from->errhandler);
    if (!inter) {
        ibex_comm_ctx_release(ctx);
        ibex_comm_release(local);
        return IBEX_ERR_NO_MEMORY;
    }
    inter->local = local;
    inter->errhandler_set = from->errhandler_set;
    ibex_status_t st = ibex_comm_handle_alloc(inter);
    if (st != IBEX_OK) {
        ibex_comm_release(inter);
        return st;
    }
    *inter_p = inter;
    return IBEX_OK;
}

/* True when a world rank of remote is also in group (Intercomm_create's groups must be
 * disjoint; both sides see the same overlap and fail alike). */
static bool groups_overlap(const ibex_group_t *group, const int *remote, int m)
{
    for (int i = 0; i < m; i++)
        if (ibex_group_rank_of(group, remote[i]) != MPI_UNDEFINED)
            return true;
    return false;
}

/* Finishes a constructor: the result over (local, remote ranks) when this process gets one
 * (local non-NULL, m > 0), else ctx goes back and *inter_p is NULL. */
static ibex_status_t inter_finish(ibex_comm_t *local, const int *remote, int m, uint32_t ctx,
                                  const ibex_comm_t *from, ibex_comm_t **inter_p)
{
    *inter_p = NULL;
    if (!local || m == 0) {
        ibex_comm_ctx_release(ctx);
        ibex_comm_release(local);
        return IBEX_OK;
    }
    ibex_group_t *rg = ibex_group_from_world(remote, m);
    if (!rg) {
        ibex_comm_ctx_release(ctx);
        ibex_comm_release(local);
        return IBEX_ERR_NO_MEMORY;
    }
    ibex_status_t st = ibex_comm_inter_make(local, rg, ctx, from, inter_p);
    ibex_group_release(rg);
    return st;
}

ibex_status_t ibex_comm_inter_create(ibex_comm_t *local_comm, int local_leader,
                                     const ibex_inter_link_t *link, ibex_comm_t **inter_p)
{
    ibex_comm_t *local;
    ibex_status_t st = comm_internal(local_comm, local_comm->group, &local);
    if (st != IBEX_OK)
        return st;
    int *remote = NULL, m = 0;
    uint32_t ctx;
    uint64_t prio = 0;
    st = inter_create_prio(local, local_leader, link, &prio);
    if (st == IBEX_OK)
        st = inter_agree_at(prio, local, local_leader, link, local->group->world_ranks, local->size,
                            &remote, &m, &ctx);
    if (st != IBEX_OK && !remote) {
        ibex_comm_release(local);
        return st;
    }
    if (st == IBEX_OK && (m == 0 || groups_overlap(local->group, remote, m))) {
        ibex_error(CORE, "intercommunicator groups overlap or the remote group is empty");
        ibex_comm_ctx_release(ctx);
        st = IBEX_ERR_INVALID;
    }
    if (st != IBEX_OK) {
        ibex_comm_release(local);
        free(remote);
        return st;
    }
    st = inter_finish(local, remote, m, ctx, local_comm, inter_p);
    free(remote);
    return st;
}

static ibex_inter_link_t inter_link(ibex_comm_t *inter)
{
    return (ibex_inter_link_t){.comm = inter, .peer = 0, .tag = IBEX_COMM_INTER_TAG, .coll = true};
}

ibex_status_t ibex_comm_inter_dup(ibex_comm_t *inter, ibex_comm_t **inter_p)
{
    ibex_comm_t *local;
    ibex_status_t st = comm_internal(inter->local, inter->group, &local);
    if (st != IBEX_OK)
        return st;
    ibex_inter_link_t l = inter_link(inter);
    int *theirs = NULL, m = 0;
    uint32_t ctx;
    st = inter_agree(inter->local, 0, &l, NULL, 0, &theirs, &m, &ctx);
    free(theirs);
    if (st != IBEX_OK) {
        ibex_comm_release(local);
        return st;
    }
    return ibex_comm_inter_make(local, inter->peers, ctx, inter, inter_p);
}

/* The world ranks of one side's colour, in split order (key, then rank), from that side's
 * (colour, key) pairs; *n_p of them. */
static int *split_side(const int *all, const ibex_group_t *side, int colour, int *n_p)
{
    int *ranks = malloc((size_t)(side->size > 0 ? side->size : 1) * sizeof(int));
    if (!ranks)
        return NULL;
    int n = colour == MPI_UNDEFINED ? 0 : ibex_comm_split_members(all, side->size, colour, ranks);
    if (n < 0) {
        free(ranks);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        ranks[i] = side->world_ranks[ranks[i]];
    *n_p = n;
    return ranks;
}

/* The local half of a split: this process's colour group, or NULL. */
static ibex_group_t *split_local_group(const int *all, const ibex_group_t *side, int colour,
                                       bool *oom_p)
{
    int n = 0;
    int *ranks = split_side(all, side, colour, &n);
    ibex_group_t *g = ranks && n > 0 ? ibex_group_from_world(ranks, n) : NULL;
    *oom_p = !ranks || (n > 0 && !g);
    free(ranks);
    return g;
}

ibex_status_t ibex_comm_inter_split(ibex_comm_t *inter, int colour, int key, ibex_comm_t **inter_p)
{
    int lsize = inter->size, mine[2] = {colour, key}, *theirs = NULL, m = 0, rn = 0;
    int *all = malloc((size_t)lsize * 2 * sizeof(int));
    if (!all)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st = ibex_comm_ctx_allgather_int(inter->local, mine, 2, all);
    ibex_inter_link_t l = inter_link(inter);
    uint32_t ctx;
    if (st == IBEX_OK)
        st = inter_agree(inter->local, 0, &l, all, 2 * lsize, &theirs, &m, &ctx);
    if (st != IBEX_OK) {
        free(all);
        return st;
    }
    bool oom = m != 2 * inter->peer_size;
    int *remote = oom ? NULL : split_side(theirs, inter->peers, colour, &rn);
    oom = oom || !remote;
    ibex_group_t *g = !oom && rn > 0 ? split_local_group(all, inter->group, colour, &oom) : NULL;
    free(all);
    free(theirs);
    ibex_comm_t *local;
    st = comm_internal(inter->local, g, &local); /* every member takes part */
    ibex_group_release(g);
    if (st == IBEX_OK && oom)
        st = IBEX_ERR_NO_MEMORY;
    if (st != IBEX_OK) {
        ibex_comm_release(local);
        ibex_comm_ctx_release(ctx);
        free(remote);
        return st;
    }
    st = inter_finish(local, remote, rn, ctx, inter, inter_p);
    free(remote);
    return st;
}

ibex_status_t ibex_comm_inter_subset(ibex_comm_t *inter, ibex_group_t *group, ibex_comm_t **inter_p)
{
    ibex_inter_link_t l = inter_link(inter);
    int *remote = NULL, m = 0;
    uint32_t ctx;
    ibex_status_t st =
        inter_agree(inter->local, 0, &l, group->world_ranks, group->size, &remote, &m, &ctx);
    if (st != IBEX_OK)
        return st;
    bool member = group->my_rank != MPI_UNDEFINED && m > 0;
    ibex_comm_t *local;
    st = comm_internal(inter->local, member ? group : NULL, &local);
    if (st != IBEX_OK) {
        ibex_comm_ctx_release(ctx);
        free(remote);
        return st;
    }
    st = inter_finish(local, remote, m, ctx, inter, inter_p);
    free(remote);
    return st;
}

/* The merged group: the side that passed high = false first; when both passed the same, the
 * side whose leader has the lower world rank. */
static ibex_group_t *merge_group(const ibex_comm_t *inter, bool high, const int *theirs)
{
    const ibex_group_t *a = inter->group, *b = inter->peers;
    bool local_first = high != (theirs[0] != 0) ? !high : a->world_ranks[0] < theirs[1];
    if (!local_first) {
        const ibex_group_t *t = a;
        a = b;
        b = t;
    }
    int *ranks = malloc((size_t)(a->size + b->size) * sizeof(int));
    if (!ranks)
        return NULL;
    memcpy(ranks, a->world_ranks, (size_t)a->size * sizeof(int));
    memcpy(ranks + a->size, b->world_ranks, (size_t)b->size * sizeof(int));
    ibex_group_t *g = ibex_group_from_world(ranks, a->size + b->size);
    free(ranks);
    return g;
}

ibex_status_t ibex_comm_inter_merge(ibex_comm_t *inter, bool high, ibex_comm_t **comm_p)
{
    ibex_inter_link_t l = inter_link(inter);
    int extra[2] = {high, inter->group->world_ranks[0]}, *theirs = NULL, m = 0;
    uint32_t ctx;
    ibex_status_t st = inter_agree(inter->local, 0, &l, extra, 2, &theirs, &m, &ctx);
    if (st != IBEX_OK)
        return st;
    ibex_group_t *g = m == 2 ? merge_group(inter, high, theirs) : NULL;
    free(theirs);
    ibex_comm_t *comm = g ? ibex_comm_new_on(g, NULL, ctx, inter->errhandler) : NULL;
    ibex_group_release(g);
    if (!comm) {
        ibex_comm_ctx_release(ctx);
        return m == 2 ? IBEX_ERR_NO_MEMORY : IBEX_ERR_INTERNAL;
    }
    comm->errhandler_set = inter->errhandler_set;
    st = ibex_comm_handle_alloc(comm);
    if (st != IBEX_OK) {
        ibex_comm_release(comm);
        return st;
    }
    *comm_p = comm;
    return IBEX_OK;
}
