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
