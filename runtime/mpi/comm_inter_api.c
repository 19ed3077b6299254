/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI intercommunicator entry points: Intercomm_create, Intercomm_merge, Comm_remote_size,
 * Comm_remote_group (Intercomm_create_from_groups is session_comm.c's). Comm_dup /
 * split / create / compare / free of intercommunicators go through comm_api.c, which calls
 * ibex_mpi_inter_result below for the results of runtime/comm/comm_inter.c.
 */
#include "comm_impl.h"
#include "ibex_comm_api.h"
#include "ibex_comm_inter.h"
#include "ibex_err.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

extern const int ibex_tag_ub; /* runtime/mpi/errhandler_check.c */

int ibex_mpi_inter_result(ibex_comm_t *parent, const char *call, ibex_status_t st,
                          ibex_comm_t *made, MPI_Comm *newcomm)
{
    if (st != IBEX_OK)
        return ibex_mpi_error(parent, ibex_err_class_of(st), call,
                              "communicator construction failed: %s", ibex_status_str(st));
    if (made) /* derived from parent's session, if any (its Bsend buffer) */
        made->session = parent->session;
    *newcomm = made ? made->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* The leader's own arguments (peer_comm, remote_leader, tag are significant only there). */
static int leader_args(ibex_comm_t *lc, const char *call, MPI_Comm peer_comm, int remote_leader,
                       int tag, ibex_inter_link_t *l)
{
    ibex_comm_t *pc = ibex_comm_lookup(peer_comm, call);
    if (!pc)
        return MPI_ERR_COMM;
    if (remote_leader < 0 || remote_leader >= pc->peer_size)
        return ibex_mpi_error(lc, MPI_ERR_RANK, call,
                              "remote_leader %d is not a rank of peer_comm (size %d)",
                              remote_leader, pc->peer_size);
    if (tag < 0 || tag > ibex_tag_ub)
        return ibex_mpi_error(lc, MPI_ERR_TAG, call, "invalid tag %d (valid: 0..%d)", tag,
                              ibex_tag_ub);
    if (ibex_comm_world_rank(pc, remote_leader) == ibex_rt.boot.rank)
        return ibex_mpi_error(lc, MPI_ERR_RANK, call,
                              "remote_leader %d of peer_comm is this process itself",
                              remote_leader);
    *l = (ibex_inter_link_t){.comm = pc, .peer = remote_leader, .tag = tag, .coll = false};
    return MPI_SUCCESS;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    IBEX_ENTER_COMM(Intercomm_create, local_comm, lc);
    IBEX_ARGS(Intercomm_create, newintercomm);
    if (ibex_comm_is_inter(lc))
        return IBEX_ERROR(MPI_ERR_COMM, "local_comm is an intercommunicator");
    if (local_leader < 0 || local_leader >= lc->size)
        return IBEX_ERROR(MPI_ERR_RANK, "local_leader %d is not a rank of local_comm (size %d)",
                          local_leader, lc->size);
    ibex_inter_link_t l = {0};
    if (lc->rank == local_leader)
        IBEX_CHECK(leader_args(lc, call, peer_comm, remote_leader, tag, &l));
    ibex_comm_t *inter = NULL;
    ibex_status_t st = ibex_comm_inter_create(lc, local_leader, &l, &inter);
    return ibex_mpi_inter_result(lc, call, st, inter, newintercomm);
}

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    IBEX_ENTER_COMM(Intercomm_merge, intercomm, c);
    IBEX_ARGS(Intercomm_merge, newintracomm);
    if (!ibex_comm_is_inter(c))
        return IBEX_ERROR(MPI_ERR_COMM, "%s is not an intercommunicator", c->name);
    ibex_comm_t *comm = NULL;
    ibex_status_t st = ibex_comm_inter_merge(c, high != 0, &comm);
    return ibex_mpi_inter_result(c, call, st, comm, newintracomm);
}

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    IBEX_ENTER_COMM(Comm_remote_size, comm, c);
    IBEX_ARGS(Comm_remote_size, size);
    if (!ibex_comm_is_inter(c))
        return IBEX_ERROR(MPI_ERR_COMM, "%s is not an intercommunicator", c->name);
    *size = c->peer_size;
    return MPI_SUCCESS;
}

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    IBEX_ENTER_COMM(Comm_remote_group, comm, c);
    IBEX_ARGS(Comm_remote_group, group);
    if (!ibex_comm_is_inter(c))
        return IBEX_ERROR(MPI_ERR_COMM, "%s is not an intercommunicator", c->name);
    MPI_Group h = ibex_group_handle_new(c->peers);
    if (h == MPI_GROUP_NULL)
        return IBEX_ERROR(MPI_ERR_NO_MEM, "out of group handles");
    *group = h;
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(comm_inter_api)
