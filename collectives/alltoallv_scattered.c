/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Alltoallv and Alltoallw: scattered (MPICH's alltoallv_intra_scattered). In windows of up to
 * WINDOW peers, each rank posts the receives from rank + i and the sends to rank - i of the
 * window, then waits for all of them, so many messages are in flight at once without
 * flooding a large job. The own block is a local copy. MPI_IN_PLACE needs the send blocks
 * staged first, which pairwise does: in place runs alltoallv_pairwise.c.
 *
 * Cost: about ceil((p - 1) / WINDOW) alpha + sum of the blocks beta when the network
 * overlaps the messages of a window, against pairwise's (p - 1) alpha.
 */
#include "coll.h"

#define WINDOW 32 /* MPICH's MPIR_CVAR_ALLTOALL_THROTTLE default */

typedef struct sc_side {
    const char *buf;
    const int *counts, *displs;
    MPI_Datatype dt;         /* Alltoallv: one type, displacements in its extent */
    const MPI_Datatype *dts; /* Alltoallw: a type per peer, displacements in bytes */
} sc_side_t;

static void *sc_block(const sc_side_t *s, int j, MPI_Datatype *dt_p)
{
    *dt_p = s->counts[j] == 0 ? MPI_BYTE : s->dts ? s->dts[j] : s->dt;
    return s->dts ? (char *)s->buf + s->displs[j] : ibex_coll_disp(s->buf, s->dt, s->displs[j]);
}

static ibex_status_t sc_window(const sc_side_t *snd, const sc_side_t *rcv, ibex_comm_t *comm,
                               int tag, int first, int n)
{
    int size = comm->size, rank = comm->rank;
    ibex_coll_batch_t b;
    MPI_Datatype dt;
    ibex_status_t st = ibex_coll_batch_init(&b, 2 * n, comm, tag);
    if (st != IBEX_OK)
        return st;
    for (int i = first; i < first + n; i++) {
        int from = (rank + i) % size;
        void *blk = sc_block(rcv, from, &dt);
        ibex_coll_batch_recv(&b, blk, rcv->counts[from], dt, from);
    }
    for (int i = first; i < first + n; i++) {
        int to = (rank - i + size) % size;
        void *blk = sc_block(snd, to, &dt);
        ibex_coll_batch_send(&b, blk, snd->counts[to], dt, to);
    }
    return ibex_coll_batch_wait(&b);
}

static ibex_status_t sc_run(const sc_side_t *snd, const sc_side_t *rcv, ibex_comm_t *comm, int tag)
{
    MPI_Datatype sdt, rdt;
    int rank = comm->rank;
    void *sb = sc_block(snd, rank, &sdt), *rb = sc_block(rcv, rank, &rdt);
    ibex_status_t st = ibex_coll_copy(sb, snd->counts[rank], sdt, rb, rcv->counts[rank], rdt);
    for (int first = 1; st == IBEX_OK && first < comm->size; first += WINDOW) {
        int n = comm->size - first < WINDOW ? comm->size - first : WINDOW;
        st = sc_window(snd, rcv, comm, tag, first, n);
    }
    return st;
}

static ibex_status_t sc_args(const ibex_coll_args_t *a, int tag)
{
    /* Alltoallw, or Alltoallv with per-peer types (coll.h): the types set either way */
    sc_side_t snd = {a->sbuf, a->scounts, a->sdispls, a->sdt, a->sdts};
    sc_side_t rcv = {a->rbuf, a->rcounts, a->rdispls, a->rdt, a->rdts};
    return sc_run(&snd, &rcv, a->comm, tag);
}

ibex_status_t ibex_coll_alltoallv_scattered(const ibex_coll_args_t *args)
{
    if (args->sbuf == MPI_IN_PLACE)
        return ibex_coll_alltoallv_pairwise(args);
    return sc_args(args, IBEX_COLL_TAG(IBEX_COLL_ALLTOALLV));
}

ibex_status_t ibex_coll_alltoallw_scattered(const ibex_coll_args_t *args)
{
    if (args->sbuf == MPI_IN_PLACE)
        return ibex_coll_alltoallw_pairwise(args);
    return sc_args(args, IBEX_COLL_TAG(IBEX_COLL_ALLTOALLW));
}
