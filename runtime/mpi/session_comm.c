/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicators from groups, without a parent communicator (MPI 4.1 sections 7.4.2 and
 * 7.6.2): MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups, the constructors
 * of the session model (valid in the world model too).
 *
 * The members agree on a context id as MPI_Comm_create_group does (runtime/comm/comm_group.c),
 * over the engine's communicator of every process of the job, on its collective context with
 * a negative tag made from a hash of the string tag (ibex_session.h): no program message and
 * no collective uses those tags, and two constructions with different string tags do not mix
 * unless their hashes meet (1 in 2^28) while they overlap in time and in processes.
 */
#include <string.h>

#include "comm_impl.h"
#include "ibex_comm_api.h"
#include "ibex_comm_inter.h"
#include "ibex_err.h"
#include "ibex_err_internal.h"
#include "ibex_runtime.h"
#include "ibex_session.h"
#include "ibex_entry.h"

/* FNV-1a of the string tag, with a seed so that the two exchanges of one intercommunicator
 * construction get different tags. */
static uint32_t tag_hash(const char *s, uint32_t seed)
{
    uint32_t h = 2166136261u ^ seed;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The arguments every constructor shares; errors before a communicator exists go to the
 * error handler given (MPI_ERRHANDLER_NULL or a bad one: the default handler). */
typedef struct from_args {
    const char *call;
    MPI_Errhandler eh;
} from_args_t;

static int from_error(const from_args_t *a, int errclass, const char *cause)
{
    if (a->eh == MPI_ERRHANDLER_NULL || !ibex_errhandler_valid(a->eh))
        return ibex_mpi_error(NULL, errclass, a->call, "%s", cause);
    return ibex_mpi_error_obj(a->eh, MPI_COMM_NULL, "the new communicator", errclass, a->call,
                              cause);
}

static int from_check(const from_args_t *a, const char *stringtag, MPI_Info info, void *out)
{
    int n;
    if (a->eh != MPI_ERRHANDLER_NULL && !ibex_errhandler_valid(a->eh))
        return from_error(a, MPI_ERR_ARG, "invalid error handler");
    if (!stringtag || !out)
        return from_error(a, MPI_ERR_ARG, "stringtag or the output handle is NULL");
    if (strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN)
        return from_error(a, MPI_ERR_ARG, "stringtag is longer than MPI_MAX_STRINGTAG_LEN - 1");
    if (info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &n) != MPI_SUCCESS)
        return from_error(a, MPI_ERR_INFO, "invalid info handle");
    return MPI_SUCCESS;
}

/* A group the caller belongs to. */
static int from_group(const from_args_t *a, MPI_Group handle, ibex_group_t **g_p)
{
    ibex_group_t *g = ibex_group_get(handle);
    if (!g || handle == MPI_GROUP_NULL)
        return from_error(a, MPI_ERR_GROUP, "invalid group handle");
    if (g->my_rank == MPI_UNDEFINED)
        return from_error(a, MPI_ERR_GROUP, "the calling process is not in the group");
    *g_p = g;
    return MPI_SUCCESS;
}

/* The new communicator takes the handler given (MPI_ERRHANDLER_NULL: MPI_ERRORS_ARE_FATAL)
 * and the hints Ibex knows; then it is the program's. */
static int from_publish(const from_args_t *a, ibex_comm_t *made, MPI_Info info, MPI_Comm *out)
{
    made->errhandler = a->eh == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : a->eh;
    made->errhandler_set = true;
    ibex_errhandler_ref(made->errhandler);
    int rc = ibex_mpi_comm_hints_set(made, info);
    if (rc != MPI_SUCCESS) {
        MPI_Comm h = made->handle;
        PMPI_Comm_free(&h);
        return from_error(a, rc, "cannot keep the hints of the new communicator");
    }
    *out = made->handle;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    IBEX_ENTER(Comm_create_from_group);
    from_args_t a = {call, errhandler};
    ibex_group_t *g = NULL;
    IBEX_CHECK(from_check(&a, stringtag, info, newcomm));
    IBEX_CHECK(from_group(&a, group, &g));
    ibex_comm_t *made = NULL;
    int tag = IBEX_TAG_SESSION(tag_hash(stringtag, 0));
    ibex_status_t st = ibex_comm_create_tagged(ibex_comm_world, g, tag, &made);
    if (st != IBEX_OK)
        return from_error(&a, ibex_err_class_of(st), ibex_status_str(st));
    made->session = g->session; /* derived from the group's session (its Bsend buffer) */
    return from_publish(&a, made, info, newcomm);
}

static int inter_leaders(const from_args_t *a, ibex_group_t *lg, int local_leader,
                         MPI_Group remote_group, int remote_leader, ibex_group_t **rg_p)
{
    if (local_leader < 0 || local_leader >= lg->size)
        return from_error(a, MPI_ERR_RANK, "local_leader is not a rank of local_group");
    if (lg->my_rank != local_leader) /* remote_group and remote_leader: the leaders' only */
        return MPI_SUCCESS;
    ibex_group_t *rg = ibex_group_get(remote_group);
    if (!rg || remote_group == MPI_GROUP_NULL)
        return from_error(a, MPI_ERR_GROUP, "invalid remote_group handle");
    if (remote_leader < 0 || remote_leader >= rg->size)
        return from_error(a, MPI_ERR_RANK, "remote_leader is not a rank of remote_group");
    if (rg->my_rank != MPI_UNDEFINED)
        return from_error(a, MPI_ERR_GROUP, "the local and remote groups overlap");
    *rg_p = rg;
    return MPI_SUCCESS;
}

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    IBEX_ENTER(Intercomm_create_from_groups);
    from_args_t a = {call, errhandler};
    ibex_group_t *lg = NULL, *rg = NULL;
    IBEX_CHECK(from_check(&a, stringtag, info, newintercomm));
    IBEX_CHECK(from_group(&a, local_group, &lg));
    IBEX_CHECK(inter_leaders(&a, lg, local_leader, remote_group, remote_leader, &rg));
    ibex_comm_t *local = NULL, *inter = NULL;
    int tag = IBEX_TAG_SESSION(tag_hash(stringtag, 0));
    ibex_status_t st = ibex_comm_create_tagged(ibex_comm_world, lg, tag, &local);
    if (st == IBEX_OK) {
        ibex_inter_link_t l = {.comm = ibex_comm_world,
                               .peer = rg ? rg->world_ranks[remote_leader] : 0,
                               .tag = IBEX_TAG_SESSION(tag_hash(stringtag, 0x5eed)),
                               .coll = true};
        st = ibex_comm_inter_create(local, local_leader, &l, &inter);
        ibex_comm_release(local);
    }
    if (st != IBEX_OK)
        return from_error(&a, ibex_err_class_of(st), ibex_status_str(st));
    inter->session = lg->session;
    return from_publish(&a, inter, info, newintercomm);
}

IBEX_MPI_ALIASES(session_comm)
