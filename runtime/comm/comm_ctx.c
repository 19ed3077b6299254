/*
 * Context id allocation and agreement (DESIGN.md lesson 11).
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
 * The two small collectives here (AND-allreduce of words, allgather of ints) are written
 * directly on ibex_coll_sendrecv so communicator construction does not depend on collectives/.
 */
#include <stdlib.h>
#include <string.h>

#include "comm_impl.h"
#include "ibex_log.h"
#include "ibex_p2p.h"

static uint64_t ctx_free[IBEX_CTX_WORDS];

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

static void words_and(uint64_t *inout, const uint64_t *in, int nwords)
{
    for (int i = 0; i < nwords; i++)
        inout[i] &= in[i];
}

/* Recursive doubling over the largest power of two; the first 2 * rem ranks pair up first
 * (odd ranks hold the pair's value) and the even ones get the result back at the end. */
static ibex_status_t band_exchange(ibex_comm_t *comm, uint64_t *words, uint64_t *tmp, int n)
{
    int bytes = n * (int)sizeof(uint64_t), rank = comm->rank, pof2 = 1;
    while (pof2 * 2 <= comm->size)
        pof2 *= 2;
    int rem = comm->size - pof2, newrank = rank - rem;
    ibex_status_t st = IBEX_OK;
    if (rank < 2 * rem) {
        newrank = rank / 2;
        if (rank % 2 == 0) {
            st = ibex_coll_send(words, bytes, MPI_BYTE, rank + 1, IBEX_COMM_TAG_CTX, comm);
            newrank = -1;
        } else {
            st = ibex_coll_recv(tmp, bytes, MPI_BYTE, rank - 1, IBEX_COMM_TAG_CTX, comm);
            words_and(words, tmp, n);
        }
    }
    for (int mask = 1; st == IBEX_OK && newrank >= 0 && mask < pof2; mask <<= 1) {
        int peer = newrank ^ mask;
        peer = peer < rem ? peer * 2 + 1 : peer + rem;
        st = ibex_coll_sendrecv(words, bytes, MPI_BYTE, peer, tmp, bytes, MPI_BYTE, peer,
                                IBEX_COMM_TAG_CTX, comm);
        words_and(words, tmp, n);
    }
    if (st != IBEX_OK || rank >= 2 * rem)
        return st;
    if (rank % 2 == 0)
        return ibex_coll_recv(words, bytes, MPI_BYTE, rank + 1, IBEX_COMM_TAG_CTX, comm);
    return ibex_coll_send(words, bytes, MPI_BYTE, rank - 1, IBEX_COMM_TAG_CTX, comm);
}

ibex_status_t ibex_comm_ctx_allreduce_band(ibex_comm_t *comm, uint64_t *words, int nwords)
{
    if (comm->size == 1)
        return IBEX_OK;
    uint64_t *tmp = malloc((size_t)nwords * sizeof(uint64_t));
    if (!tmp)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st = band_exchange(comm, words, tmp, nwords);
    free(tmp);
    return st;
}

ibex_status_t ibex_comm_ctx_allgather_int(ibex_comm_t *comm, const int *mine, int n, int *all)
{
    int size = comm->size, rank = comm->rank;
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    memcpy(all + (size_t)rank * n, mine, (size_t)n * sizeof(int));
    for (int i = 0; i < size - 1; i++) {
        int sblock = (rank - i + size) % size, rblock = (rank - i - 1 + size) % size;
        ibex_status_t st = ibex_coll_sendrecv(all + (size_t)sblock * n, n, MPI_INT, right,
                                              all + (size_t)rblock * n, n, MPI_INT, left,
                                              IBEX_COMM_TAG_SPLIT, comm);
        if (st != IBEX_OK)
            return st;
    }
    return IBEX_OK;
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

ibex_status_t ibex_comm_ctx_agree(ibex_comm_t *parent, uint32_t *context_id_p)
{
    uint64_t mask[IBEX_CTX_WORDS];
    memcpy(mask, ctx_free, sizeof(mask));
    ibex_status_t st = ibex_comm_ctx_allreduce_band(parent, mask, IBEX_CTX_WORDS);
    if (st != IBEX_OK) {
        ibex_error(CORE, "context id agreement over communicator of %d ranks failed: %s",
                   parent->size, ibex_status_str(st));
        return st;
    }
    int id = ibex_comm_ctx_lowest(mask, IBEX_CTX_WORDS);
    if (id < 0) {
        ibex_error(CORE, "no context id is free on every rank of the parent (%d pairs)",
                   IBEX_CTX_PAIRS);
        return IBEX_ERR_AGAIN;
    }
    uint32_t pair = (uint32_t)id / 2;
    ctx_free[pair / 64] &= ~((uint64_t)1 << (pair % 64));
    ibex_debug(CORE, "agreed context id %d over %d ranks", id, parent->size);
    *context_id_p = (uint32_t)id;
    return IBEX_OK;
}
