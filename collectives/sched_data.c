/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Schedules of the data-movement collectives (coll_sched.h), the algorithms of the blocking
 * ones. Block i of a buffer is at buf + i * count * extent.
 *
 * Igather, linear: the root posts every receive at once (one round). Cost at the root:
 * (p - 1)(alpha + n beta).
 * Iscatter, linear: the root posts every send at once. Cost: (p - 1)(alpha + n beta).
 * Iallgather, ring: p - 1 rounds; in round k a rank passes block (rank - k) to its right and
 * gets block (rank - k - 1) from its left. Cost: (p - 1)(alpha + n beta).
 * Ialltoall, pairwise: p - 1 rounds; in round k a rank sends block (rank + k) to rank + k and
 * receives block (rank - k) from rank - k. Cost: (p - 1)(alpha + n beta). MPI_IN_PLACE works on
 * a copy of the receive buffer taken at the start.
 */
#include <stdlib.h>

#include "coll.h"
#include "coll_sched.h"

static void *block(const void *buf, int count, MPI_Datatype dt, int i)
{
    return ibex_coll_block(buf, dt, (size_t)i * (size_t)count);
}

void ibex_sched_gather_linear(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    int p = a->comm->size, r = a->comm->rank;
    if (r != a->root) {
        ibex_sched_send(s, a->sbuf, a->scount, a->sdt, a->root);
        return;
    }
    for (int i = 0; i < p; i++) {
        void *dst = block(a->rbuf, a->rcount, a->rdt, i);
        if (i != r)
            ibex_sched_recv(s, dst, a->rcount, a->rdt, i);
        else if (a->sbuf != MPI_IN_PLACE)
            ibex_sched_copy(s, a->sbuf, a->scount, a->sdt, dst, a->rcount, a->rdt);
    }
}

void ibex_sched_scatter_linear(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    int p = a->comm->size, r = a->comm->rank;
    if (r != a->root) {
        ibex_sched_recv(s, a->rbuf, a->rcount, a->rdt, a->root);
        return;
    }
    for (int i = 0; i < p; i++) {
        const void *src = block(a->sbuf, a->scount, a->sdt, i);
        if (i != r)
            ibex_sched_send(s, src, a->scount, a->sdt, i);
        else if (a->rbuf != MPI_IN_PLACE)
            ibex_sched_copy(s, src, a->scount, a->sdt, a->rbuf, a->rcount, a->rdt);
    }
}

void ibex_sched_allgather_ring(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    int p = a->comm->size, r = a->comm->rank;
    if (a->sbuf != MPI_IN_PLACE)
        ibex_sched_copy(s, a->sbuf, a->scount, a->sdt, block(a->rbuf, a->rcount, a->rdt, r),
                        a->rcount, a->rdt);
    for (int k = 0; k < p - 1; k++) {
        int out = (r - k + p) % p, in = (r - k - 1 + p) % p;
        ibex_sched_fence(s);
        ibex_sched_send(s, block(a->rbuf, a->rcount, a->rdt, out), a->rcount, a->rdt, (r + 1) % p);
        ibex_sched_recv(s, block(a->rbuf, a->rcount, a->rdt, in), a->rcount, a->rdt,
                        (r - 1 + p) % p);
    }
}

void ibex_sched_alltoall_pairwise(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    int p = a->comm->size, r = a->comm->rank;
    const void *sbuf = a->sbuf;
    int scount = a->scount;
    MPI_Datatype sdt = a->sdt;
    if (sbuf == MPI_IN_PLACE) {
        void *copy = ibex_sched_tmp(s, a->rdt, a->rcount * p);
        ibex_sched_copy(s, a->rbuf, a->rcount * p, a->rdt, copy, a->rcount * p, a->rdt);
        sbuf = copy;
        scount = a->rcount;
        sdt = a->rdt;
    } else {
        ibex_sched_copy(s, block(sbuf, scount, sdt, r), scount, sdt,
                        block(a->rbuf, a->rcount, a->rdt, r), a->rcount, a->rdt);
    }
    for (int k = 1; k < p; k++) {
        int to = (r + k) % p, from = (r - k + p) % p;
        ibex_sched_send(s, block(sbuf, scount, sdt, to), scount, sdt, to);
        ibex_sched_recv(s, block(a->rbuf, a->rcount, a->rdt, from), a->rcount, a->rdt, from);
        ibex_sched_fence(s);
    }
}

/* ---- the vector forms: block i at buf + displs[i] extents (Alltoallw, and any form given
 * per-peer types sdts / rdts (coll.h): bytes, with that peer's type); empty blocks
 * are neither sent nor received (both sides see zero bytes in a correct program), and the type
 * of a zero-count block is never looked at (Alltoallw allows MPI_DATATYPE_NULL there) ---- */

static void *vblock(const void *buf, MPI_Datatype dt, const int *displs, int i)
{
    return (char *)buf + (ptrdiff_t)displs[i] * ibex_dt_get(dt)->extent;
}

static bool empty(int count, MPI_Datatype dt)
{
    return count == 0 || ibex_dt_get(dt)->size == 0;
}

static void vsend(ibex_sched_t *s, const void *buf, int count, MPI_Datatype dt, int peer)
{
    if (!empty(count, dt))
        ibex_sched_send(s, buf, count, dt, peer);
}

static void vrecv(ibex_sched_t *s, void *buf, int count, MPI_Datatype dt, int peer)
{
    if (!empty(count, dt))
        ibex_sched_recv(s, buf, count, dt, peer);
}

/* Igatherv, linear: the root posts every receive at once. Cost: (p - 1) alpha + N beta at the
 * root, N the bytes gathered. */
void ibex_sched_gatherv_linear(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    int p = a->comm->size, r = a->comm->rank;
    if (r != a->root) {
        vsend(s, a->sbuf, a->scount, a->sdt, a->root);
        return;
    }
    for (int i = 0; i < p; i++) {
        MPI_Datatype dt;
        void *dst = ibex_coll_vblock(a->rbuf, a->rdt, a->rdts, a->rdispls, i, &dt);
        if (i != r)
            vrecv(s, dst, a->rcounts[i], dt, i);
        else if (a->sbuf != MPI_IN_PLACE)
            ibex_sched_copy(s, a->sbuf, a->scount, a->sdt, dst, a->rcounts[i], dt);
    }
}

/* Iscatterv, linear: the root posts every send at once. Cost: (p - 1) alpha + N beta. */
void ibex_sched_scatterv_linear(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    int p = a->comm->size, r = a->comm->rank;
    if (r != a->root) {
        vrecv(s, a->rbuf, a->rcount, a->rdt, a->root);
        return;
    }
    for (int i = 0; i < p; i++) {
        MPI_Datatype dt;
        const void *src = ibex_coll_vblock(a->sbuf, a->sdt, a->sdts, a->sdispls, i, &dt);
        if (i != r)
            vsend(s, src, a->scounts[i], dt, i);
        else if (a->rbuf != MPI_IN_PLACE)
            ibex_sched_copy(s, src, a->scounts[i], dt, a->rbuf, a->rcount, a->rdt);
    }
}

/* Iallgatherv, ring: p - 1 rounds passing block (rank - k) right. Cost: (p - 1) alpha + N beta
 * (N the bytes gathered, less one's own). */
void ibex_sched_allgatherv_ring(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    int p = a->comm->size, r = a->comm->rank;
    MPI_Datatype dt;
    void *mine = ibex_coll_vblock(a->rbuf, a->rdt, a->rdts, a->rdispls, r, &dt);
    if (a->sbuf != MPI_IN_PLACE)
        ibex_sched_copy(s, a->sbuf, a->scount, a->sdt, mine, a->rcounts[r], dt);
    for (int k = 0; k < p - 1; k++) {
        int out = (r - k + p) % p, in = (r - k - 1 + p) % p;
        ibex_sched_fence(s);
        void *ob = ibex_coll_vblock(a->rbuf, a->rdt, a->rdts, a->rdispls, out, &dt);
        vsend(s, ob, a->rcounts[out], dt, (r + 1) % p);
        void *ib = ibex_coll_vblock(a->rbuf, a->rdt, a->rdts, a->rdispls, in, &dt);
        vrecv(s, ib, a->rcounts[in], dt, (r - 1 + p) % p);
    }
}

/* One peer's side of Alltoallv / Alltoallw. */
typedef struct a2a_side {
    const void *buf;
    int count;
    MPI_Datatype dt;
} a2a_side_t;

static a2a_side_t a2a_recv_side(const ibex_coll_args_t *a, int i)
{
    MPI_Datatype dt = a->rdts ? a->rdts[i] : a->rdt;
    const char *b =
        a->rdts ? (char *)a->rbuf + a->rdispls[i] : vblock(a->rbuf, a->rdt, a->rdispls, i);
    return (a2a_side_t){b, a->rcounts[i], dt};
}

/* The send side of peer i; under MPI_IN_PLACE a copy of the receive block taken at the start
 * (the block is overwritten by the receive from the same peer). */
static a2a_side_t a2a_send_side(const ibex_coll_args_t *a, ibex_sched_t *s, int i)
{
    if (a->sbuf == MPI_IN_PLACE) {
        a2a_side_t in = a2a_recv_side(a, i);
        if (in.count == 0) /* its type may be MPI_DATATYPE_NULL */
            return in;
        void *copy = ibex_sched_tmp(s, in.dt, in.count);
        ibex_sched_copy(s, in.buf, in.count, in.dt, copy, in.count, in.dt);
        return (a2a_side_t){copy, in.count, in.dt};
    }
    MPI_Datatype dt = a->sdts ? a->sdts[i] : a->sdt;
    const char *b =
        a->sdts ? (const char *)a->sbuf + a->sdispls[i] : vblock(a->sbuf, a->sdt, a->sdispls, i);
    return (a2a_side_t){b, a->scounts[i], dt};
}

/* Ialltoallv and Ialltoallw, pairwise: p - 1 rounds, round k sends to rank + k and receives
 * from rank - k. Cost: (p - 1) alpha + N beta. Under MPI_IN_PLACE every send block is copied
 * before the first round (block rank + k may receive in round p - k, before round k). */
void ibex_sched_alltoallv_pairwise(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    int p = a->comm->size, r = a->comm->rank;
    a2a_side_t *out = calloc((size_t)p, sizeof(*out));
    if (!out) {
        s->build_error = IBEX_ERR_NO_MEMORY;
        return;
    }
    for (int i = 0; i < p; i++)
        out[i] = a2a_send_side(a, s, i);
    a2a_side_t me = a2a_recv_side(a, r);
    if (a->sbuf != MPI_IN_PLACE && out[r].count > 0)
        ibex_sched_copy(s, out[r].buf, out[r].count, out[r].dt, (void *)me.buf, me.count, me.dt);
    for (int k = 1; k < p; k++) {
        int to = (r + k) % p, from = (r - k + p) % p;
        a2a_side_t in = a2a_recv_side(a, from);
        ibex_sched_fence(s);
        vsend(s, out[to].buf, out[to].count, out[to].dt, to);
        vrecv(s, (void *)in.buf, in.count, in.dt, from);
    }
    free(out);
}
