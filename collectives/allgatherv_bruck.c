/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allgatherv: Bruck (MPICH's allgatherv_intra_brucks), for small blocks on any number of
 * ranks; allgather_bruck.c with blocks of different sizes. Every rank knows every block's
 * size (rcounts), so each can compute the byte offsets of its temporary buffer, which holds
 * the blocks in the order rank, rank + 1, ...: in step k (distance 2^k) a rank sends its
 * first min(2^k, p - 2^k) blocks to rank - 2^k and receives as many from rank + 2^k after
 * them; a last local pass puts block j at rdispls[rank + j mod p]. Blocks travel packed.
 *
 * Cost: ceil(log2 p) alpha + (N - n_rank) beta + two local copies, against the ring's
 * (p - 1) alpha: the small-block choice.
 */
#include <limits.h>
#include <stdlib.h>

#include "coll.h"
#include "ibex_datatype.h"
#include "ibex_p2p.h"

typedef struct agv_state {
    const ibex_coll_args_t *a;
    char *tmp;
    size_t *off; /* off[j]: where the j-th block (of rank + j) starts in tmp; off[p]: total */
} agv_state_t;

static ibex_status_t agv_steps(const agv_state_t *s)
{
    ibex_comm_t *comm = s->a->comm;
    int size = comm->size, rank = comm->rank, tag = IBEX_COLL_TAG(IBEX_COLL_ALLGATHERV);
    ibex_status_t st = IBEX_OK;
    for (int dist = 1; st == IBEX_OK && dist < size; dist *= 2) {
        int n = dist < size - dist ? dist : size - dist;
        st = ibex_coll_sendrecv(s->tmp, (int)s->off[n], MPI_BYTE, (rank - dist + size) % size,
                                s->tmp + s->off[dist], (int)(s->off[dist + n] - s->off[dist]),
                                MPI_BYTE, (rank + dist) % size, tag, comm);
    }
    return st;
}

static ibex_status_t agv_place(const agv_state_t *s)
{
    const ibex_coll_args_t *a = s->a;
    int size = a->comm->size, rank = a->comm->rank;
    ibex_status_t st = IBEX_OK;
    for (int j = 0; st == IBEX_OK && j < size; j++) {
        int r = (rank + j) % size;
        if (j > 0 || a->sbuf != MPI_IN_PLACE)
            st = ibex_coll_copy(s->tmp + s->off[j], (int)(s->off[j + 1] - s->off[j]), MPI_BYTE,
                                ibex_coll_disp(a->rbuf, a->rdt, a->rdispls[r]), a->rcounts[r],
                                a->rdt);
    }
    return st;
}

static ibex_status_t agv_run(agv_state_t *s)
{
    const ibex_coll_args_t *a = s->a;
    int rank = a->comm->rank;
    size_t mine = s->off[1];
    s->tmp = malloc(s->off[a->comm->size] + 1);
    if (!s->tmp)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st =
        a->sbuf == MPI_IN_PLACE
            ? ibex_coll_copy(ibex_coll_disp(a->rbuf, a->rdt, a->rdispls[rank]), a->rcounts[rank],
                             a->rdt, s->tmp, (int)mine, MPI_BYTE)
            : ibex_coll_copy(a->sbuf, a->scount, a->sdt, s->tmp, (int)mine, MPI_BYTE);
    if (st == IBEX_OK)
        st = agv_steps(s);
    if (st == IBEX_OK)
        st = agv_place(s);
    free(s->tmp);
    return st;
}

ibex_status_t ibex_coll_allgatherv_bruck(const ibex_coll_args_t *a)
{
    int size = a->comm->size, rank = a->comm->rank;
    size_t esize = ibex_dt_get(a->rdt)->size;
    agv_state_t s = {.a = a, .off = malloc((size_t)(size + 1) * sizeof(size_t))};
    if (!s.off)
        return IBEX_ERR_NO_MEMORY;
    s.off[0] = 0;
    for (int j = 0; j < size; j++)
        s.off[j + 1] = s.off[j] + (size_t)a->rcounts[(rank + j) % size] * esize;
    ibex_status_t st = s.off[size] > INT_MAX ? ibex_coll_allgatherv_ring(a) : agv_run(&s);
    free(s.off);
    return st;
}
