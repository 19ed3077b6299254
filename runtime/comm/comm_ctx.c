/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Context id allocation and agreement.
 *
 * Each process keeps a bitmap of free context id pairs (bit set = free; pair p is ids 2p for
 * point-to-point and 2p + 1 for collectives). To build a communicator, every member of the
 * parent AND-reduces its bitmap with all the others over the parent's collective context and
 * takes the lowest pair free everywhere, so no two live communicators that share a process
 * share an id. Members that end up outside the new communicator (Comm_split with
 * MPI_UNDEFINED, Comm_create non-members) take part too and release the id afterwards.
 * Communicators from one Comm_split with different colours share an id: their member sets
 * are disjoint, so matching on (context, source) keeps them apart.
 *
 * The two collectives this needs (AND-allreduce of the bitmaps, allgather of ints) are
 * collectives/' recursive doubling and ring, called directly (not through the selection, whose
 * hierarchical algorithms make communicators of their own), on the parent's collective context:
 * every member builds communicators in the same order, so they cannot take each other's
 * messages.
 */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "comm_impl.h"
#include "ibex_log.h"
#include "ibex_op.h"
#include "ibex_thread.h"

static uint64_t ctx_free[IBEX_CTX_WORDS];
/* MPI_Comm_idup agrees in the progress engine, so blocking agreements may run while one is in
 * flight (from the same or another communicator), and the other way round. So the two kinds
 * draw from separate words: blocking ones from the words below IBEX_CTX_IDUP_WORD0, idups from
 * the rest, where each in-flight idup holds the pairs of its second round (ctx_idup) so that
 * no other idup can pick them (runtime/comm/comm_idup.c). A second round draws from one class
 * of pairs: class c is bit c of every idup word (16 pairs), so 64 idups can hold pairs at once
 * without touching each other's. */
static uint64_t ctx_idup[IBEX_CTX_WORDS];

void ibex_comm_ctx_init(void)
{
    memset(ctx_free, 0xff, sizeof(ctx_free));
    ctx_free[0] &= ~(uint64_t)3; /* pairs 0 (world: 0, 1) and 1 (self: 2, 3) */
}

void ibex_comm_ctx_release(uint32_t context_id)
{
    uint32_t pair = context_id / 2;
    ibex_assert(pair < IBEX_CTX_PAIRS && pair > 1);
    ibex_assert(!(ctx_free[pair / 64] & ((uint64_t)1 << (pair % 64))));
    ctx_free[pair / 64] |= (uint64_t)1 << (pair % 64);
}

int ibex_comm_ctx_lowest(const uint64_t *mask, int nwords)
{
    for (int w = 0; w < nwords; w++)
        if (mask[w])
            return 2 * (w * 64 + __builtin_ctzll(mask[w]));
    return -1;
}

/* The bitmaps travel as ints: AND is bitwise, so the word size does not matter. */
ibex_status_t ibex_comm_ctx_allreduce_band(ibex_comm_t *comm, uint64_t *words, int nwords)
{
    int count = nwords * (int)(sizeof(uint64_t) / sizeof(int));
    ibex_coll_args_t a = {.comm = comm,
                          .sbuf = MPI_IN_PLACE,
                          .rbuf = words,
                          .rcount = count,
                          .rdt = MPI_INT,
                          .op = ibex_op_get(MPI_BAND)};
    /* a fixed algorithm: a selected one (hier) could build sub-communicators, and agree on
     * their context ids, in the middle of this agreement */
    return ibex_coll_allreduce_recursive_doubling(&a);
}

ibex_status_t ibex_comm_ctx_allgather_int(ibex_comm_t *comm, const int *mine, int n, int *all)
{
    ibex_coll_args_t a = {.comm = comm,
                          .sbuf = mine,
                          .scount = n,
                          .sdt = MPI_INT,
                          .rbuf = all,
                          .rcount = n,
                          .rdt = MPI_INT};
    return ibex_coll_allgather_ring(&a);
}

typedef struct split_entry {
    int key, parent_rank;
} split_entry_t;

static int split_entry_cmp(const void *a, const void *b)
{
    const split_entry_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->parent_rank > y->parent_rank) - (x->parent_rank < y->parent_rank);
}

int ibex_comm_split_members(const int *all, int n, int colour, int *ranks_out)
{
    split_entry_t *e = malloc((size_t)(n > 0 ? n : 1) * sizeof(*e));
    if (!e)
        return -1;
    int m = 0;
    for (int r = 0; r < n; r++)
        if (all[2 * r] == colour)
            e[m++] = (split_entry_t){all[2 * r + 1], r};
    qsort(e, (size_t)m, sizeof(*e), split_entry_cmp);
    for (int i = 0; i < m; i++)
        ranks_out[i] = e[i].parent_rank;
    free(e);
    return m;
}

/* MPI_THREAD_MULTIPLE: threads of one process may build communicators on different parents at
 * once. Two agreements reading the free bitmap at the same time could pick the same pair, so
 * a round offers only a region of the bitmap that no other round in flight here offers
 * (MPICH's scheme), in two steps:
 *  - the first round offers the small eager region (CTX_EAGER_WORDS) if no other round here
 *    holds it, else nothing; a round that leaves a pair takes it;
 *  - later rounds offer the main region, with the "every member's own" word at all ones, when
 *    no other round here holds it and no agreement waiting here has a lower priority (the
 *    parent's context id, then the tag of Comm_create_group); the others offer nothing, with
 *    that word at 0, every member sees it at 0 and the round is repeated. So the lowest
 *    agreement waiting in the whole job completes first and nobody waits forever.
 * A round in flight blocks on its peers while it holds its region, so one region is not
 * enough: a thread whose agreement could not start (MPI_Comm_dup of MPI_COMM_SELF while
 * another thread's round holds the main region) would keep that thread from the agreement
 * that the peers of the holder wait for, a cycle across processes (MPICH's
 * threads/comm/comm_dup_deadlock). The eager region lets it through. An agreement waits (is
 * listed for the main region) only after its first round, as in MPICH: listed at once it would
 * keep the main region from the others here while its own eager round waits for a peer busy
 * in one of theirs. Single-threaded, the first round takes the lowest free eager pair; once
 * the eager region is used up somewhere, two rounds. Between two rounds that got nothing the
 * thread lets the others in (a round over this process alone waits for nobody). */
enum { CTX_WAITERS = 64, CTX_EAGER_WORDS = 2 };
static uint64_t ctx_waiting[CTX_WAITERS];
static int ctx_nwaiting;
static bool ctx_eager_held, ctx_main_held;

static void ctx_waiter_add(uint64_t prio)
{
    if (ctx_nwaiting < CTX_WAITERS)
        ctx_waiting[ctx_nwaiting++] = prio;
}

static void ctx_waiter_remove(uint64_t prio)
{
    for (int i = 0; i < ctx_nwaiting; i++)
        if (ctx_waiting[i] == prio) {
            ctx_waiting[i] = ctx_waiting[--ctx_nwaiting];
            return;
        }
}

/* Fills mask (IBEX_CTX_MASK_WORDS) for one round: this process's free pairs of the eager
 * (first round) or the main region and an all-ones last word when the round may hold that
 * region, else all zeros; returns whether it holds it. */
static bool ctx_mask_claim(bool eager, uint64_t prio, uint64_t *mask)
{
    bool *held = eager ? &ctx_eager_held : &ctx_main_held;
    bool first = !*held;
    for (int i = 0; first && !eager && i < ctx_nwaiting; i++)
        first = ctx_waiting[i] >= prio;
    memset(mask, 0, IBEX_CTX_MASK_WORDS * sizeof(uint64_t));
    if (!first)
        return false;
    *held = true;
    /* the idup words are comm_idup.c's */
    int w0 = eager ? 0 : CTX_EAGER_WORDS, w1 = eager ? CTX_EAGER_WORDS : IBEX_CTX_IDUP_WORD0;
    for (int w = w0; w < w1; w++)
        mask[w] = ctx_free[w];
    mask[IBEX_CTX_WORDS] = ~(uint64_t)0;
    return true;
}

static bool ctx_mask_empty(const uint64_t *mask)
{
    return ibex_comm_ctx_lowest(mask, IBEX_CTX_WORDS) < 0;
}

ibex_status_t ibex_comm_ctx_agree_by(uint64_t prio, ibex_comm_ctx_exchange_fn exchange, void *arg,
                                     uint32_t *context_id_p)
{
    uint64_t mask[IBEX_CTX_MASK_WORDS];
    bool held = ctx_mask_claim(true, prio, mask), again;
    ibex_status_t st = exchange(arg, mask);
    /* the eager round: any pair it left is free and held for this round on every member */
    again = st == IBEX_OK && ctx_mask_empty(mask);
    if (st == IBEX_OK && !again)
        st = ibex_comm_ctx_take(mask, context_id_p);
    ctx_eager_held = held ? false : ctx_eager_held;
    if (!again)
        return st;
    ctx_waiter_add(prio);
    do {
        ibex_thread_pause(); /* let a holder in: a round over this process alone waits for
                              * nobody */
        held = ctx_mask_claim(false, prio, mask);
        st = exchange(arg, mask);
        again = st == IBEX_OK && mask[IBEX_CTX_WORDS] == 0;
        if (st == IBEX_OK && !again)
            st = ibex_comm_ctx_take(mask, context_id_p);
        ctx_main_held = held ? false : ctx_main_held;
    } while (again);
    ctx_waiter_remove(prio);
    return st;
}

ibex_status_t ibex_comm_ctx_take(const uint64_t *mask, uint32_t *context_id_p)
{
    return ibex_comm_ctx_take_idup(mask, context_id_p);
}

void ibex_comm_ctx_offer(uint64_t *mask)
{
    for (int w = 0; w < IBEX_CTX_WORDS; w++)
        mask[w] = w >= IBEX_CTX_IDUP_WORD0 ? ctx_free[w] : 0;
}

/* The agreed pairs of class c (bit c of every idup word), up to `need`. */
static int ctx_class_count(const uint64_t *agreed, int c, int need)
{
    int n = 0;
    for (int w = IBEX_CTX_IDUP_WORD0; w < IBEX_CTX_WORDS && n < need; w++)
        n += (int)(agreed[w] >> c & 1);
    return n;
}

int ibex_comm_ctx_reserve(const uint64_t *agreed, int start, int need, uint64_t *mine)
{
    int i = 0, c = 0;
    for (; i < 64; i++)
        if (ctx_class_count(agreed, c = (int)((unsigned)(start + i) % 64u), need) == need)
            break;
    memset(mine, 0, IBEX_CTX_WORDS * sizeof(uint64_t));
    if (i == 64)
        return -1;
    for (int w = IBEX_CTX_IDUP_WORD0; w < IBEX_CTX_WORDS; w++) {
        mine[w] = agreed[w] & ctx_free[w] & ~ctx_idup[w] & (uint64_t)1 << c;
        ctx_idup[w] |= mine[w];
    }
    return c;
}

void ibex_comm_ctx_unreserve(const uint64_t *mine)
{
    for (int w = 0; w < IBEX_CTX_WORDS; w++)
        ctx_idup[w] &= ~mine[w];
}

ibex_status_t ibex_comm_ctx_take_idup(const uint64_t *mask, uint32_t *context_id_p)
{
    int id = ibex_comm_ctx_lowest(mask, IBEX_CTX_WORDS);
    if (id < 0) {
        ibex_error(CORE, "no context id is free on every rank of the parent (%d pairs)",
                   IBEX_CTX_PAIRS);
        return IBEX_ERR_NO_CONTEXT;
    }
    uint32_t pair = (uint32_t)id / 2;
    ibex_assert(ctx_free[pair / 64] & ((uint64_t)1 << (pair % 64)));
    ctx_free[pair / 64] &= ~((uint64_t)1 << (pair % 64));
    ibex_debug(CORE, "agreed context id %d", id);
    *context_id_p = (uint32_t)id;
    return IBEX_OK;
}

static ibex_status_t ctx_band(void *parent, uint64_t *mask)
{
    ibex_status_t st = ibex_comm_ctx_allreduce_band(parent, mask, IBEX_CTX_MASK_WORDS);
    if (st != IBEX_OK)
        ibex_error(CORE, "context id agreement over communicator of %d ranks failed: %s",
                   ((ibex_comm_t *)parent)->size, ibex_status_str(st));
    return st;
}

ibex_status_t ibex_comm_ctx_agree(ibex_comm_t *parent, uint32_t *context_id_p)
{
    return ibex_comm_ctx_agree_by(ibex_comm_ctx_prio(parent, 0), ctx_band, parent, context_id_p);
}
