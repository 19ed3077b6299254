/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Broadcast: binomial tree rooted at root.
 *
 * Ranks are renumbered relative to the root (vrank = rank - root mod p). A rank receives once,
 * from the rank that differs in its lowest set bit, then sends to vrank + mask for each
 * smaller power of two mask that stays below p. The whole message moves at every step.
 *
 * Cost: ceil(log2 p) * (alpha + n * beta). Best for small messages; large ones want a
 * scatter + allgather (van de Geijn), to come as bcast_scatter_allgather.c.
 */
#include "coll.h"
#include "ibex_p2p.h"

ibex_status_t ibex_coll_bcast_binomial(const ibex_coll_args_t *args)
{
    ibex_comm_t *comm = args->comm;
    int size = comm->size, root = args->root;
    int vrank = (comm->rank - root + size) % size, tag = IBEX_COLL_TAG(IBEX_COLL_BCAST);
    int mask = 1;
    ibex_status_t st = IBEX_OK;
    for (; mask < size; mask <<= 1) {
        if (vrank & mask) {
            int src = (vrank - mask + root) % size;
            st = ibex_coll_recv(args->rbuf, args->rcount, args->rdt, src, tag, comm);
            break;
        }
    }
    for (mask >>= 1; st == IBEX_OK && mask > 0; mask >>= 1) {
        if (vrank + mask < size) {
            int dst = (vrank + mask + root) % size;
            st = ibex_coll_send(args->rbuf, args->rcount, args->rdt, dst, tag, comm);
        }
    }
    return st;
}
