/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scatterv: linear. The root posts one send per other rank straight from its block
 * (sbuf + sdispls[r] extents, scounts[r] elements) and waits for all; every other rank
 * receives once. The root's own block is a local copy (none with MPI_IN_PLACE).
 *
 * Cost: (p - 1) alpha + sum(n_r) beta at the root; as for Gatherv, only the root knows the
 * counts, so a tree would need them sent first.
 */
#include "coll.h"
#include "ibex_p2p.h"

static ibex_status_t scatterv_root(const ibex_coll_args_t *a)
{
    ibex_comm_t *comm = a->comm;
    ibex_coll_batch_t b;
    ibex_status_t st =
        ibex_coll_batch_init(&b, comm->size, comm, IBEX_COLL_TAG(IBEX_COLL_SCATTERV));
    if (st != IBEX_OK)
        return st;
    MPI_Datatype dt;
    for (int r = 0; r < comm->size; r++)
        if (r != comm->rank) {
            void *blk = ibex_coll_vblock(a->sbuf, a->sdt, a->sdts, a->sdispls, r, &dt);
            ibex_coll_batch_send(&b, blk, a->scounts[r], dt, r);
        }
    st = ibex_coll_batch_wait(&b);
    if (st == IBEX_OK && a->rbuf != MPI_IN_PLACE) {
        int me = comm->rank;
        void *blk = ibex_coll_vblock(a->sbuf, a->sdt, a->sdts, a->sdispls, me, &dt);
        st = ibex_coll_copy(blk, a->scounts[me], dt, a->rbuf, a->rcount, a->rdt);
    }
    return st;
}

ibex_status_t ibex_coll_scatterv_linear(const ibex_coll_args_t *args)
{
    if (args->comm->rank == args->root)
        return scatterv_root(args);
    return ibex_coll_recv(args->rbuf, args->rcount, args->rdt, args->root,
                          IBEX_COLL_TAG(IBEX_COLL_SCATTERV), args->comm);
}
