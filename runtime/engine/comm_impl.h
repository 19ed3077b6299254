/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to the communicator module (comm.c, comm_ctx.c, comm_api.c, group.c, group_api.c).
 *
 * Groups are immutable lists of world ranks, shared by reference count between the program's
 * group handles and the communicators built on them. Context ids are allocated in even / odd
 * pairs from a per-process bitmap of free pairs; a new communicator's pair is the lowest pair
 * free on every member of the parent, found by AND-reducing the bitmaps over the parent's
 * collective context (comm_ctx.c).
 */
#ifndef IBEX_COMM_IMPL_H
#define IBEX_COMM_IMPL_H

#include <stdint.h>

#include "ibex_comm.h"
#include "ibex_status.h"

#define IBEX_CTX_PAIRS (IBEX_MAX_CONTEXT_IDS / 2)
#define IBEX_CTX_WORDS (IBEX_CTX_PAIRS / 64)
/* an agreement's mask: the free bitmap and one word "every member contributed its own" */
#define IBEX_CTX_MASK_WORDS (IBEX_CTX_WORDS + 1)

/* ---- groups (group.c) ---- */
ibex_status_t ibex_group_init(void);
void ibex_group_fini(void);
extern ibex_group_t ibex_group_empty_obj;
/* A new group of n world ranks (copied); my_rank is computed from ibex_rt.boot.rank. */
ibex_group_t *ibex_group_from_world(const int *world_ranks, int n);
/* Gives the program a handle on group (one more reference); returns MPI_GROUP_NULL when out
 * of memory. The empty group always has MPI_GROUP_EMPTY. */
MPI_Group ibex_group_handle_new(ibex_group_t *group);
/* Rank of world rank w in group, or MPI_UNDEFINED. */
int ibex_group_rank_of(const ibex_group_t *group, int w);
/* MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL. */
int ibex_group_compare(const ibex_group_t *a, const ibex_group_t *b);

/* ---- context ids (comm_ctx.c) ---- */
/* Marks every pair free but those of MPI_COMM_WORLD (0, 1) and MPI_COMM_SELF (2, 3). */
void ibex_comm_ctx_init(void);
/* Agrees, collectively over parent, on a context id free on all its members and reserves it
 * here. Every member of parent calls it, also those that will not be in the new communicator
 * (they release the id again with ibex_comm_ctx_release). */
ibex_status_t ibex_comm_ctx_agree(ibex_comm_t *parent, uint32_t *context_id_p);
void ibex_comm_ctx_release(uint32_t context_id);
/* A context-id agreement over any set of processes (intercommunicators, Comm_create_group):
 * exchange ANDs mask (IBEX_CTX_MASK_WORDS words) in place with the masks of every other
 * process involved; ibex_comm_ctx_agree_by repeats it until the round was uncontested
 * (MPI_THREAD_MULTIPLE, see comm_ctx.c), then reserves the lowest pair left. prio: from
 * ibex_comm_ctx_prio (the lowest waiting agreement goes first). */
/* An agreement's priority, the same on every member: the parent's context id, then tag (the
 * tag of Comm_create_group, whose concurrent calls on one parent differ in it; else 0). */
static inline uint64_t ibex_comm_ctx_prio(const ibex_comm_t *parent, int tag)
{
    return (uint64_t)parent->context_id << 32 | (uint32_t)tag;
}
typedef ibex_status_t (*ibex_comm_ctx_exchange_fn)(void *arg, uint64_t *mask);
ibex_status_t ibex_comm_ctx_agree_by(uint64_t prio, ibex_comm_ctx_exchange_fn exchange, void *arg,
                                     uint32_t *context_id_p);
/* Reserves the lowest pair set in mask (IBEX_CTX_WORDS words). */
ibex_status_t ibex_comm_ctx_take(const uint64_t *mask, uint32_t *context_id_p);
/* Blocking agreements use the words below IBEX_CTX_IDUP_WORD0 (3072 pairs), MPI_Comm_idup the
 * others (1024 pairs), so that neither can take a pair the other is agreeing on. */
#define IBEX_CTX_IDUP_WORD0 (IBEX_CTX_WORDS * 3 / 4)
/* The non-blocking agreement of MPI_Comm_idup (runtime/comm/comm_idup.c), in two rounds:
 * offer (pairs of the idup words free here, held by an idup or not; nothing held), AND over
 * the parent; then reserve, in the first class from `start` (cyclically; class c is bit c of
 * every idup word) where the first round left `need` pairs, the pairs of that class still free
 * and unheld here (mine; returns the class, -1 when no class has `need` pairs), AND again; then
 * take the lowest pair left (all members reserved it) and unreserve the rest, or unreserve
 * everything and start again. */
void ibex_comm_ctx_offer(uint64_t *mask);
int ibex_comm_ctx_reserve(const uint64_t *agreed, int start, int need, uint64_t *mine);
void ibex_comm_ctx_unreserve(const uint64_t *mine);
ibex_status_t ibex_comm_ctx_take_idup(const uint64_t *mask, uint32_t *context_id_p);
/* Lowest pair set in every word of mask, as an even context id, or -1 if none. */
int ibex_comm_ctx_lowest(const uint64_t *mask, int nwords);
/* words[i] &= the same words of every member of comm (recursive doubling). */
ibex_status_t ibex_comm_ctx_allreduce_band(ibex_comm_t *comm, uint64_t *words, int nwords);
/* all[r * n + i] = member r's mine[i] for every member r of comm (ring). */
ibex_status_t ibex_comm_ctx_allgather_int(ibex_comm_t *comm, const int *mine, int n, int *all);

/* ---- communicators (comm.c) ---- */
ibex_status_t ibex_comm_handle_alloc(ibex_comm_t *comm);
/* A communicator (no handle yet, refcount 1) over group on the reserved pair context_id, which
 * it then owns; remote non-NULL makes it an intercommunicator whose peers are remote (the
 * caller sets ->local). Takes references on group and remote; NULL when out of memory. */
ibex_comm_t *ibex_comm_new_on(ibex_group_t *group, ibex_group_t *remote, uint32_t context_id,
                              int errhandler);
/* Number of live communicators, for tests of Comm_free. */
int ibex_comm_live_count(void);

/* Comm_split's ordering (comm_ctx.c): from all[2 r] = colour and all[2 r + 1] = key of every
 * parent rank r (n of them), the parent ranks of `colour` sorted by (key, parent rank) into
 * ranks_out; returns how many, or -1 when out of memory. */
int ibex_comm_split_members(const int *all, int n, int colour, int *ranks_out);

#endif
