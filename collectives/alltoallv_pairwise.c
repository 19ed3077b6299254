/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Alltoallv and Alltoallw: pairwise exchange. In step i (1 .. p - 1) each rank sends its block
 * for rank + i and receives the block from rank - i, so every step is a permutation. The two
 * differ only in how a block is found: Alltoallv at displs[j] extents of one type, Alltoallw at
 * displs[j] bytes with a type per peer. The own block is a local copy.
 *
 * MPI_IN_PLACE: the data to send is the receive side (rcounts, rdispls, rdt(s)); every block is
 * first packed into one temporary stream and sent from there as bytes (the receiver unpacks it
 * with its own types, whose signature matches), since receives overwrite blocks not yet sent.
 *
 * Cost: (p - 1) alpha + sum of the block sizes beta (plus one local pass in place).
 */
#include <stdlib.h>

#include "coll.h"
#include "ibex_datatype.h"
#include "ibex_p2p.h"

/* One side of the exchange: block j is count[j] elements of type(j) at buf + displ(j). */
typedef struct a2a_side {
    char *buf;
    const int *counts, *displs;
    MPI_Datatype dt;          /* Alltoallv: one type, displacements in its extent */
    const MPI_Datatype *dts;  /* Alltoallw: a type per peer, displacements in bytes */
    const size_t *packed_off; /* in place: block j is packed bytes at buf + packed_off[j] */
} a2a_side_t;

static void *side_block(const a2a_side_t *s, int j, int *count_p, MPI_Datatype *dt_p)
{
    if (s->packed_off) {
        *count_p = (int)(s->packed_off[j + 1] - s->packed_off[j]);
        *dt_p = MPI_BYTE;
        return s->buf + s->packed_off[j];
    }
    *count_p = s->counts[j];
    /* Alltoallw: an empty block's type may be anything, MPI_DATATYPE_NULL included */
    *dt_p = s->counts[j] == 0 ? MPI_BYTE : s->dts ? s->dts[j] : s->dt;
    return s->dts ? s->buf + s->displs[j] : ibex_coll_disp(s->buf, s->dt, s->displs[j]);
}

static ibex_status_t a2a_steps(const a2a_side_t *snd, const a2a_side_t *rcv, ibex_comm_t *comm,
                               int tag)
{
    int size = comm->size, rank = comm->rank, sc, rc;
    MPI_Datatype sdt, rdt;
    void *sb = side_block(snd, rank, &sc, &sdt), *rb = side_block(rcv, rank, &rc, &rdt);
    ibex_status_t st = ibex_coll_copy(sb, sc, sdt, rb, rc, rdt);
    for (int i = 1; st == IBEX_OK && i < size; i++) {
        int to = (rank + i) % size, from = (rank - i + size) % size;
        sb = side_block(snd, to, &sc, &sdt);
        rb = side_block(rcv, from, &rc, &rdt);
        st = ibex_coll_sendrecv(sb, sc, sdt, to, rb, rc, rdt, from, tag, comm);
    }
    return st;
}

/* In place: packs every block of the receive side into one stream; *packed_p holds it. */
static ibex_status_t a2a_pack(const a2a_side_t *rcv, int size, a2a_side_t *snd, char **packed_p)
{
    size_t *off = malloc((size_t)(size + 1) * sizeof(*off));
    if (!off)
        return IBEX_ERR_NO_MEMORY;
    off[0] = 0;
    for (int j = 0; j < size; j++) {
        int count;
        MPI_Datatype dt;
        side_block(rcv, j, &count, &dt);
        off[j + 1] = off[j] + (size_t)count * ibex_dt_get(dt)->size;
    }
    char *packed = malloc(off[size] ? off[size] : 1);
    ibex_status_t st = packed ? IBEX_OK : IBEX_ERR_NO_MEMORY;
    for (int j = 0; st == IBEX_OK && j < size; j++) {
        int count;
        MPI_Datatype dt;
        void *blk = side_block(rcv, j, &count, &dt);
        st = ibex_coll_copy(blk, count, dt, packed + off[j], (int)(off[j + 1] - off[j]), MPI_BYTE);
    }
    *snd = (a2a_side_t){.buf = packed, .packed_off = off};
    *packed_p = packed;
    return st;
}

static ibex_status_t a2a_run(const ibex_coll_args_t *a, int tag)
{
    a2a_side_t rcv = {.buf = a->rbuf,
                      .counts = a->rcounts,
                      .displs = a->rdispls,
                      .dt = a->rdt,
                      .dts = a->rdts}; /* Alltoallw, or per-peer types (coll.h) */
    if (a->sbuf != MPI_IN_PLACE) {
        a2a_side_t snd = {.buf = (char *)a->sbuf,
                          .counts = a->scounts,
                          .displs = a->sdispls,
                          .dt = a->sdt,
                          .dts = a->sdts};
        return a2a_steps(&snd, &rcv, a->comm, tag);
    }
    a2a_side_t snd = {0};
    char *packed = NULL;
    ibex_status_t st = a2a_pack(&rcv, a->comm->size, &snd, &packed);
    if (st == IBEX_OK)
        st = a2a_steps(&snd, &rcv, a->comm, tag);
    free(packed);
    free((void *)snd.packed_off);
    return st;
}

ibex_status_t ibex_coll_alltoallv_pairwise(const ibex_coll_args_t *args)
{
    return a2a_run(args, IBEX_COLL_TAG(IBEX_COLL_ALLTOALLV));
}

ibex_status_t ibex_coll_alltoallw_pairwise(const ibex_coll_args_t *args)
{
    return a2a_run(args, IBEX_COLL_TAG(IBEX_COLL_ALLTOALLW));
}
