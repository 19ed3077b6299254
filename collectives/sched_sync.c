/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Schedules of Ibarrier and Ibcast (coll_sched.h), the algorithms of the blocking ones.
 *
 * Barrier, dissemination: in round k every rank sends an empty message to rank + 2^k and
 * receives one from rank - 2^k (mod p), then fences. Cost: ceil(log2 p) alpha.
 *
 * Bcast, binomial tree: relative rank v = (rank - root) mod p receives from v - lowbit(v), then
 * sends to v + mask for every mask below lowbit(v) (largest first, so the deepest subtree starts
 * first). Cost: ceil(log2 p) (alpha + n beta).
 */
#include "coll.h"
#include "coll_sched.h"

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
