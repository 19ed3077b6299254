/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Schedules of Ibarrier and Ibcast (coll_sched.h), the algorithms of the blocking ones.
 *
 * Barrier, dissemination: in round k every rank sends an empty message to rank + 2^k and
 * receives one from rank - 2^k (mod p), then fences. Cost: ceil(log2 p) alpha.
 *
 * Bcast, binomial tree: relative rank v = (rank - root) mod p receives from v - lowbit(v), then
 * sends to v + mask for every mask below lowbit(v) (largest first, so the deepest subtree starts
 * first). Cost: ceil(log2 p) (alpha + n beta). Large messages: scatter + ring allgather, below.
 */
#include <limits.h>
#include "coll.h"
#include "coll_sched.h"
#include "ibex_datatype.h"

void ibex_sched_barrier_dissemination(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    int p = a->comm->size, r = a->comm->rank;
    for (int d = 1; d < p; d <<= 1) {
        ibex_sched_send(s, NULL, 0, MPI_BYTE, (r + d) % p);
        ibex_sched_recv(s, NULL, 0, MPI_BYTE, (r - d + p) % p);
        ibex_sched_fence(s);
    }
}

void ibex_sched_bcast_binomial(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    int p = a->comm->size, v = (a->comm->rank - a->root + p) % p, mask = 1;
    if (a->rcount == 0)
        return;
    for (; mask < p; mask <<= 1)
        if (v & mask) {
            ibex_sched_recv(s, a->rbuf, a->rcount, a->rdt, (v - mask + a->root) % p);
            ibex_sched_fence(s);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < p)
            ibex_sched_send(s, a->rbuf, a->rcount, a->rdt, (v + mask + a->root) % p);
}

/* Ibcast, scatter + ring allgather (large messages): the root sends chunk c of p (by relative
 * rank) to relative rank c, then p - 1 ring rounds pass the chunks around. Cost: 2 (p - 1)
 * alpha + 2 (p - 1)/p n beta, against the binomial tree's ceil(log2 p) n beta. */
typedef struct chunks {
    const ibex_coll_args_t *a;
    int p, root, q, rem; /* chunk c holds q (+ 1 if c < rem) elements */
} chunks_t;

static int chunk_count(const chunks_t *k, int c)
{
    return k->q + (c < k->rem);
}

static void *chunk_at(const chunks_t *k, int c)
{
    size_t off = (size_t)c * (size_t)k->q + (size_t)(c < k->rem ? c : k->rem);
    return ibex_coll_block(k->a->rbuf, k->a->rdt, off);
}

static int chunk_rank(const chunks_t *k, int c)
{
    return (c + k->root) % k->p;
}

static void sched_sag(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    int p = a->comm->size, v = (a->comm->rank - a->root + p) % p;
    chunks_t k = {.a = a, .p = p, .root = a->root, .q = a->rcount / p, .rem = a->rcount % p};
    for (int c = 1; v == 0 && c < p; c++)
        ibex_sched_send(s, chunk_at(&k, c), chunk_count(&k, c), a->rdt, chunk_rank(&k, c));
    if (v != 0)
        ibex_sched_recv(s, chunk_at(&k, v), chunk_count(&k, v), a->rdt, a->root);
    for (int i = 0; i < p - 1; i++) {
        int out = (v - i + p) % p, in = (v - i - 1 + p) % p;
        ibex_sched_fence(s);
        ibex_sched_send(s, chunk_at(&k, out), chunk_count(&k, out), a->rdt, chunk_rank(&k, v + 1));
        ibex_sched_recv(s, chunk_at(&k, in), chunk_count(&k, in), a->rdt,
                        chunk_rank(&k, v - 1 + p));
    }
}

/* In bytes of the packed message, as the blocking form (bcast_scatter_allgather.c): ranks may
 * describe the same signature with different (count, datatype), so element counts would cut
 * different chunks; a non-contiguous buffer goes through a packed temporary. */
void ibex_sched_bcast_scatter_allgather(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    const ibex_dt_t *d = ibex_dt_get(a->rdt);
    size_t nbytes = (size_t)a->rcount * d->size;
    if (nbytes > INT_MAX) {
        ibex_sched_bcast_binomial(a, s);
        return;
    }
    bool contig = ibex_dt_is_contig(d, a->rcount), root = a->comm->rank == a->root;
    ibex_coll_args_t b = *a;
    b.rbuf = contig ? (char *)a->rbuf + d->true_lb : ibex_sched_tmp(s, MPI_BYTE, (int)nbytes);
    b.rcount = (int)nbytes;
    b.rdt = MPI_BYTE;
    if (!b.rbuf)
        return; /* the schedule's build_error says so */
    if (!contig && root) {
        ibex_sched_copy(s, a->rbuf, a->rcount, a->rdt, b.rbuf, b.rcount, MPI_BYTE);
        ibex_sched_fence(s);
    }
    sched_sag(&b, s);
    if (!contig && !root) {
        ibex_sched_fence(s);
        ibex_sched_copy(s, b.rbuf, b.rcount, MPI_BYTE, a->rbuf, a->rcount, a->rdt);
    }
}
