/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Broadcast: scatter + ring allgather (van de Geijn; MPICH's bcast_intra_scatter_ring_allgather),
 * for large messages. The count elements are cut into p chunks of ceil(count / p) (the last
 * ones shorter or empty); chunk j belongs to relative rank j (vrank = rank - root mod p). A
 * binomial scatter gives each rank its chunk (a subtree's chunks are contiguous, so each
 * message is one range), then a ring allgather passes the chunks around. Sizes are computed,
 * not received, so every rank agrees on every message length. Fewer elements than ranks: the
 * binomial broadcast.
 *
 * Cost: (log2 p + p - 1) alpha + 2 n (p - 1) / p beta, against the binomial tree's
 * log2 p (alpha + n beta): the choice for large messages on more than a few ranks.
 */
#include <limits.h>
#include <stdlib.h>
#include "coll.h"
#include "ibex_datatype.h"
#include "ibex_p2p.h"

typedef struct sag_state {
    const ibex_coll_args_t *a;
    int size, vrank, chunk, tag;
} sag_state_t;

/* elements of chunks [first, first + n), clipped to the message */
static int sag_len(const sag_state_t *s, int first, int n)
{
    long long lo = (long long)first * s->chunk, hi = (long long)(first + n) * s->chunk;
    long long count = s->a->rcount;
    hi = hi < count ? hi : count;
    return hi > lo ? (int)(hi - lo) : 0;
}

static void *sag_at(const sag_state_t *s, int first)
{
    return ibex_coll_disp(s->a->rbuf, s->a->rdt, first * s->chunk);
}

static int sag_real(const sag_state_t *s, int vrank)
{
    return (vrank + s->a->root) % s->size;
}

static ibex_status_t sag_scatter(const sag_state_t *s)
{
    const ibex_coll_args_t *a = s->a;
    int mask = 1;
    ibex_status_t st = IBEX_OK;
    for (; mask < s->size; mask <<= 1) {
        if (s->vrank & mask) {
            int n = sag_len(s, s->vrank, mask);
            if (n > 0)
                st = ibex_coll_recv(sag_at(s, s->vrank), n, a->rdt, sag_real(s, s->vrank - mask),
                                    s->tag, a->comm);
            break;
        }
    }
    for (mask >>= 1; st == IBEX_OK && mask > 0; mask >>= 1) {
        int child = s->vrank + mask, n = child < s->size ? sag_len(s, child, mask) : 0;
        if (n > 0)
            st = ibex_coll_send(sag_at(s, child), n, a->rdt, sag_real(s, child), s->tag, a->comm);
    }
    return st;
}

static ibex_status_t sag_ring(const sag_state_t *s)
{
    const ibex_coll_args_t *a = s->a;
    int p = s->size, right = sag_real(s, (s->vrank + 1) % p),
        left = sag_real(s, (s->vrank - 1 + p) % p);
    ibex_status_t st = IBEX_OK;
    for (int i = 0; st == IBEX_OK && i < p - 1; i++) {
        int sc = (s->vrank - i + p) % p, rc = (s->vrank - i - 1 + p) % p;
        st = ibex_coll_sendrecv(sag_at(s, sc), sag_len(s, sc, 1), a->rdt, right, sag_at(s, rc),
                                sag_len(s, rc, 1), a->rdt, left, s->tag, a->comm);
    }
    return st;
}

static ibex_status_t sag_run(const ibex_coll_args_t *args)
{
    int size = args->comm->size;
    sag_state_t s = {.a = args,
                     .size = size,
                     .vrank = (args->comm->rank - args->root + size) % size,
                     .chunk = (args->rcount + size - 1) / size,
                     .tag = IBEX_COLL_TAG(IBEX_COLL_BCAST)};
    ibex_status_t st = sag_scatter(&s);
    return st != IBEX_OK ? st : sag_ring(&s);
}

/* The chunks are cut in bytes of the packed message, not in elements: only the type signature
 * is the same on every rank (the root may pass 1 element of a large type, the others n ints),
 * so an element count would cut different chunks and fall back on some ranks only. A
 * non-contiguous buffer goes through a packed temporary. */
ibex_status_t ibex_coll_bcast_scatter_allgather(const ibex_coll_args_t *args)
{
    const ibex_dt_t *d = ibex_dt_get(args->rdt);
    size_t nbytes = (size_t)args->rcount * d->size;
    if (nbytes < (size_t)args->comm->size || nbytes > INT_MAX)
        return ibex_coll_bcast_binomial(args);
    bool contig = ibex_dt_is_contig(d, args->rcount), root = args->comm->rank == args->root;
    ibex_coll_args_t b = *args;
    b.rbuf = contig ? (char *)args->rbuf + d->true_lb : malloc(nbytes);
    b.rcount = (int)nbytes;
    b.rdt = MPI_BYTE;
    if (!b.rbuf)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st = IBEX_OK;
    if (!contig && root)
        st = ibex_coll_copy(args->rbuf, args->rcount, args->rdt, b.rbuf, b.rcount, MPI_BYTE);
    if (st == IBEX_OK)
        st = sag_run(&b);
    if (st == IBEX_OK && !contig && !root)
        st = ibex_coll_copy(b.rbuf, b.rcount, MPI_BYTE, args->rbuf, args->rcount, args->rdt);
    if (!contig)
        free(b.rbuf);
    return st;
}
