/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Intercommunicator collectives as schedules (coll_sched.h), for the blocking, non-blocking and
 * persistent forms alike. On an intercommunicator a->comm->rank / size are the local group's,
 * peer ranks name the remote group (a->comm->peer_size), and a->comm->local is an
 * intracommunicator over the local group: steps built after ibex_sched_on(s, local) run the
 * intracommunicator schedules there, with the same tag, so one schedule holds both halves.
 *
 * Rooted kinds (Bcast, Reduce, Gather(v), Scatter(v)): the root passes MPI_ROOT, the rest of
 * its group MPI_PROC_NULL (they take no part), the other group the root's rank in the root's
 * group. The "all" kinds give each group what the other group provided (MPI 4.1, 6.2.2).
 *
 * Barrier: local dissemination, the two leaders (local rank 0) swap an empty message, local
 * dissemination again; no rank leaves before the other leader saw its whole group arrive.
 * Cost: 2 ceil(log2 n) alpha + alpha.
 * Bcast: the root sends to remote rank 0, which broadcasts over its group (binomial).
 * Cost: alpha + n beta + ceil(log2 m) (alpha + n beta).
 * Reduce: the non-root group reduces to its rank 0 (binomial, rank order), which sends to the
 * root. Cost: ceil(log2 m) (alpha + n beta + n gamma) + alpha + n beta.
 * Allreduce: each group reduces to its rank 0, the leaders swap, each broadcasts over its group.
 * Gather(v) / Scatter(v): linear, every receive (send) posted at the root at once.
 * Allgather(v), Alltoall(v, w): every process sends to and receives from every remote process
 * in one round. Cost: m alpha + m n beta per process, m the remote size.
 * Reduce_scatter(_block): each group reduces its vector to rank 0, the leaders swap, each
 * rank 0 scatters (linear scatterv) what it received over its group. Each group's vector has
 * sum(recvcounts) of its own elements: a correct program's two groups agree on the total.
 */
#include <stdlib.h>

#include "coll.h"
#include "coll_sched.h"

/* Zero-count blocks move nothing on either side (the type signatures match), and their type
 * may be MPI_DATATYPE_NULL (Alltoallw). */
static void xsend(ibex_sched_t *s, const void *buf, int count, MPI_Datatype dt, int peer)
{
    if (count > 0)
        ibex_sched_send(s, buf, count, dt, peer);
}

static void xrecv(ibex_sched_t *s, void *buf, int count, MPI_Datatype dt, int peer)
{
    if (count > 0)
        ibex_sched_recv(s, buf, count, dt, peer);
}

static bool is_leader(const ibex_coll_args_t *a)
{
    return a->comm->rank == 0;
}

void ibex_sched_inter_barrier(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    ibex_coll_args_t l = {.comm = a->comm->local};
    ibex_sched_on(s, l.comm);
    ibex_sched_barrier_dissemination(&l, s);
    ibex_sched_on(s, NULL);
    if (is_leader(a)) {
        ibex_sched_send(s, NULL, 0, MPI_BYTE, 0);
        ibex_sched_recv(s, NULL, 0, MPI_BYTE, 0);
        ibex_sched_fence(s);
    }
    ibex_sched_on(s, l.comm);
    ibex_sched_barrier_dissemination(&l, s);
    ibex_sched_on(s, NULL);
}

/* Over the local group from its rank 0: (buf, count, dt). */
static void local_bcast(const ibex_coll_args_t *a, ibex_sched_t *s, void *buf, int count,
                        MPI_Datatype dt)
{
    ibex_coll_args_t l = {.comm = a->comm->local, .rbuf = buf, .rcount = count, .rdt = dt};
    ibex_sched_on(s, l.comm);
    ibex_sched_bcast_binomial(&l, s);
    ibex_sched_on(s, NULL);
}

/* Reduces (sbuf, count, dt) over the local group into a temporary at its rank 0, returned
 * there (NULL elsewhere). */
static void *local_reduce(const ibex_coll_args_t *a, ibex_sched_t *s, const void *sbuf, int count)
{
    void *acc = is_leader(a) ? ibex_sched_tmp(s, a->rdt, count) : NULL;
    ibex_coll_args_t l = {.comm = a->comm->local,
                          .sbuf = sbuf,
                          .rbuf = acc,
                          .rcount = count,
                          .rdt = a->rdt,
                          .op = a->op,
                          .root = 0};
    ibex_sched_on(s, l.comm);
    ibex_sched_reduce_binomial(&l, s);
    ibex_sched_on(s, NULL);
    return acc;
}

void ibex_sched_inter_bcast(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    if (a->root == MPI_PROC_NULL)
        return;
    if (a->root == MPI_ROOT) {
        xsend(s, a->rbuf, a->rcount, a->rdt, 0);
        return;
    }
    if (is_leader(a)) {
        xrecv(s, a->rbuf, a->rcount, a->rdt, a->root);
        ibex_sched_fence(s);
    }
    local_bcast(a, s, a->rbuf, a->rcount, a->rdt);
}

void ibex_sched_inter_reduce(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    if (a->root == MPI_PROC_NULL)
        return;
    if (a->root == MPI_ROOT) {
        xrecv(s, a->rbuf, a->rcount, a->rdt, 0);
        return;
    }
    void *acc = local_reduce(a, s, a->sbuf, a->rcount);
    if (is_leader(a))
        xsend(s, acc, a->rcount, a->rdt, a->root);
}

void ibex_sched_inter_allreduce(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    void *acc = local_reduce(a, s, a->sbuf, a->rcount);
    if (is_leader(a)) {
        xsend(s, acc, a->rcount, a->rdt, 0);
        xrecv(s, a->rbuf, a->rcount, a->rdt, 0);
        ibex_sched_fence(s);
    }
    local_bcast(a, s, a->rbuf, a->rcount, a->rdt);
}

void ibex_sched_inter_gather(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    if (a->root == MPI_PROC_NULL)
        return;
    if (a->root != MPI_ROOT) {
        xsend(s, a->sbuf, a->scount, a->sdt, a->root);
        return;
    }
    for (int i = 0; i < a->comm->peer_size; i++)
        xrecv(s, ibex_coll_block(a->rbuf, a->rdt, (size_t)i * (size_t)a->rcount), a->rcount, a->rdt,
              i);
}

void ibex_sched_inter_scatter(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    if (a->root == MPI_PROC_NULL)
        return;
    if (a->root != MPI_ROOT) {
        xrecv(s, a->rbuf, a->rcount, a->rdt, a->root);
        return;
    }
    for (int i = 0; i < a->comm->peer_size; i++)
        xsend(s, ibex_coll_block(a->sbuf, a->sdt, (size_t)i * (size_t)a->scount), a->scount, a->sdt,
              i);
}

void ibex_sched_inter_gatherv(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    if (a->root == MPI_PROC_NULL)
        return;
    if (a->root != MPI_ROOT) {
        xsend(s, a->sbuf, a->scount, a->sdt, a->root);
        return;
    }
    for (int i = 0; i < a->comm->peer_size; i++) {
        MPI_Datatype t;
        void *b = ibex_coll_vblock(a->rbuf, a->rdt, a->rdts, a->rdispls, i, &t);
        xrecv(s, b, a->rcounts[i], t, i);
    }
}

void ibex_sched_inter_scatterv(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    if (a->root == MPI_PROC_NULL)
        return;
    if (a->root != MPI_ROOT) {
        xrecv(s, a->rbuf, a->rcount, a->rdt, a->root);
        return;
    }
    for (int i = 0; i < a->comm->peer_size; i++) {
        MPI_Datatype t;
        void *b = ibex_coll_vblock(a->sbuf, a->sdt, a->sdts, a->sdispls, i, &t);
        xsend(s, b, a->scounts[i], t, i);
    }
}

void ibex_sched_inter_allgather(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    for (int i = 0; i < a->comm->peer_size; i++) {
        xsend(s, a->sbuf, a->scount, a->sdt, i);
        xrecv(s, ibex_coll_block(a->rbuf, a->rdt, (size_t)i * (size_t)a->rcount), a->rcount, a->rdt,
              i);
    }
}

void ibex_sched_inter_allgatherv(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    for (int i = 0; i < a->comm->peer_size; i++) {
        MPI_Datatype t;
        void *b = ibex_coll_vblock(a->rbuf, a->rdt, a->rdts, a->rdispls, i, &t);
        xsend(s, a->sbuf, a->scount, a->sdt, i);
        xrecv(s, b, a->rcounts[i], t, i);
    }
}

void ibex_sched_inter_alltoall(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    for (int i = 0; i < a->comm->peer_size; i++) {
        xsend(s, ibex_coll_block(a->sbuf, a->sdt, (size_t)i * (size_t)a->scount), a->scount, a->sdt,
              i);
        xrecv(s, ibex_coll_block(a->rbuf, a->rdt, (size_t)i * (size_t)a->rcount), a->rcount, a->rdt,
              i);
    }
}

/* Alltoallv (displacements in extents of sdt / rdt) and Alltoallw (per-peer types, byte
 * displacements), each side alone. */
void ibex_sched_inter_alltoallv(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    for (int i = 0; i < a->comm->peer_size; i++) {
        MPI_Datatype st, rt;
        const void *sb = ibex_coll_vblock(a->sbuf, a->sdt, a->sdts, a->sdispls, i, &st);
        void *rb = ibex_coll_vblock(a->rbuf, a->rdt, a->rdts, a->rdispls, i, &rt);
        xsend(s, sb, a->scounts[i], st, i);
        xrecv(s, rb, a->rcounts[i], rt, i);
    }
}

/* Reduce_scatter over the local counts (n entries, the local group's size). */
static void inter_reduce_scatter(const ibex_coll_args_t *a, ibex_sched_t *s, const int *counts)
{
    int n = a->comm->size, total = 0;
    int *displs = ibex_sched_tmp(s, MPI_INT, n);
    if (!displs)
        return;
    for (int i = 0; i < n; i++) {
        displs[i] = total;
        total += counts[i];
    }
    void *acc = local_reduce(a, s, a->sbuf, total);
    void *theirs = is_leader(a) ? ibex_sched_tmp(s, a->rdt, total) : NULL;
    if (is_leader(a)) {
        xsend(s, acc, total, a->rdt, 0);
        xrecv(s, theirs, total, a->rdt, 0);
        ibex_sched_fence(s);
    }
    ibex_coll_args_t l = {.comm = a->comm->local,
                          .sbuf = theirs,
                          .scounts = counts,
                          .sdispls = displs,
                          .sdt = a->rdt,
                          .rbuf = a->rbuf,
                          .rcount = counts[a->comm->rank],
                          .rdt = a->rdt,
                          .root = 0};
    ibex_sched_on(s, l.comm);
    ibex_sched_scatterv_linear(&l, s);
    ibex_sched_on(s, NULL);
}

void ibex_sched_inter_reduce_scatter(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    inter_reduce_scatter(a, s, a->rcounts);
}

void ibex_sched_inter_reduce_scatter_block(const ibex_coll_args_t *a, ibex_sched_t *s)
{
    /* the counts array the scatterv builder reads (only while building) */
    int n = a->comm->size, *counts = ibex_sched_tmp(s, MPI_INT, n);
    for (int i = 0; counts && i < n; i++)
        counts[i] = a->rcount;
    if (counts)
        inter_reduce_scatter(a, s, counts);
}
