/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receives that can only wait in vain because a peer failed. The engine learns that a peer is
 * gone from its transports only: the RDMA transport from an error completion or a broken
 * connection (and the peer's notice of one), any transport from a malformed message
 * (proto_recv.c); each calls
 * ibex_proto_peer_failed, which fails that endpoint (ibex_ep_fail: its backlog and what is in
 * flight) and the posted receives that depend on it. Shared memory has no such signal of its
 * own: there a rank that dies is seen by the launcher, whose supervision ends the whole job (MPI's
 * default, MPI_ERRORS_ARE_FATAL, whatever handler the program set).
 *
 * The rule, without ULFM (MPI 4.1 leaves it to the implementation): a receive depends on a failed
 * peer when it names it, or when it is from MPI_ANY_SOURCE on a communicator that has it as a
 * member (remote member, on an intercommunicator), since the message it waits for may be the
 * failed peer's. Such a receive completes in error (IBEX_ERR_PEER_FAILED unless the transport said
 * otherwise: MPI_ERR_PROC_ABORTED at the boundary, the message naming the failed rank in
 * MPI_SOURCE) instead of hanging, when the peer fails or, posted later, when it finds no message
 * already arrived. Probe and Iprobe follow the same rule (runtime/mpi/p2p_probe.c).
 */
#include "ibex_engine.h"
#include "ibex_runtime.h"

int ibex_ep_failed_count;

/* The rank in comm of world rank w, or -1 (remote rank, on an intercommunicator). */
static int comm_rank_of(const ibex_comm_t *comm, int w)
{
    for (int r = 0; r < comm->peer_size; r++)
        if (ibex_comm_world_rank(comm, r) == w)
            return r;
    return -1;
}

int ibex_proto_src_failed(const ibex_comm_t *comm, int src, ibex_status_t *why_p)
{
    if (__builtin_expect(ibex_ep_failed_count == 0, 1) || src == MPI_PROC_NULL)
        return -1;
    for (int r = src == MPI_ANY_SOURCE ? 0 : src; r < comm->peer_size; r++) {
        const ibex_ep_t *ep = ibex_ep_peek(ibex_comm_world_rank(comm, r));
        if (ep && ep->failed) {
            *why_p = ep->fail_status;
            return r;
        }
        if (src != MPI_ANY_SOURCE)
            break;
    }
    return -1;
}

bool ibex_proto_recv_fails_with(ibex_req_t *req, int world_rank)
{
    if (req->peer >= 0)
        return ibex_comm_world_rank(req->comm, req->peer) == world_rank;
    if (req->peer != MPI_ANY_SOURCE)
        return false;
    int r = comm_rank_of(req->comm, world_rank);
    if (r < 0)
        return false;
    req->status.MPI_SOURCE = r; /* names the failed rank in the error message */
    return true;
}
