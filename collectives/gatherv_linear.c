/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gatherv: linear. The root posts one receive per other rank straight into its block
 * (rbuf + rdispls[r] extents, rcounts[r] elements) and waits for all; every other rank sends
 * once. The root's own block is a local copy (none with MPI_IN_PLACE). Zero-count blocks still
 * travel (an empty message), as the other ranks cannot know which blocks the root expects empty.
 *
 * Cost: (p - 1) alpha + sum(n_r) beta at the root. The counts are known only at the root, so a
 * tree (which would forward subtrees of unknown size) is not an option without an extra
 * exchange of counts; linear is what MPICH and Open MPI use too.
 */
#include "coll.h"
#include "ibex_p2p.h"

static ibex_status_t gatherv_root(const ibex_coll_args_t *a)
{
    ibex_comm_t *comm = a->comm;
    ibex_coll_batch_t b;
    ibex_status_t st = ibex_coll_batch_init(&b, comm->size, comm, IBEX_COLL_TAG(IBEX_COLL_GATHERV));
    if (st != IBEX_OK)
        return st;
    MPI_Datatype dt;
    for (int r = 0; r < comm->size; r++)
        if (r != comm->rank) {
            void *blk = ibex_coll_vblock(a->rbuf, a->rdt, a->rdts, a->rdispls, r, &dt);
            ibex_coll_batch_recv(&b, blk, a->rcounts[r], dt, r);
        }
    st = ibex_coll_batch_wait(&b);
    if (st == IBEX_OK && a->sbuf != MPI_IN_PLACE) {
        int me = comm->rank;
        void *blk = ibex_coll_vblock(a->rbuf, a->rdt, a->rdts, a->rdispls, me, &dt);
        st = ibex_coll_copy(a->sbuf, a->scount, a->sdt, blk, a->rcounts[me], dt);
    }
    return st;
}

ibex_status_t ibex_coll_gatherv_linear(const ibex_coll_args_t *args)
{
    if (args->comm->rank == args->root)
        return gatherv_root(args);
    return ibex_coll_send(args->sbuf, args->scount, args->sdt, args->root,
                          IBEX_COLL_TAG(IBEX_COLL_GATHERV), args->comm);
}
