/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI communicator entry points: Comm_rank, size, dup, split, split_type, create, free,
 * compare, group, test_inter, set_name, get_name (attributes: attr.c). Dup, split and create of
 * an intercommunicator are runtime/comm/comm_inter.c's (entry points: comm_inter_api.c).
 *
 * Every constructor ends in ibex_comm_create_from(), which agrees on the context id over the
 * whole parent, so every member of the parent takes part also when it gets MPI_COMM_NULL.
 * Argument errors are detected from arguments every member passes alike (same group, same
 * split type), so members fail together rather than leaving others in the agreement.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_impl.h"
#include "ibex_attr.h"
#include "ibex_comm_api.h"
#include "ibex_comm_inter.h"
#include "ibex_err.h"
#include "ibex_log.h"
#include "ibex_p2p_api.h"
#include "ibex_request.h"
#include "ibex_runtime.h"
#include "ibex_topo.h"
#include "ibex_entry.h"

extern const int ibex_tag_ub; /* runtime/mpi/errhandler_check.c */

static int comm_fail(ibex_comm_t *comm, const char *call, ibex_status_t st)
{
    return ibex_mpi_error(comm, ibex_err_class_of(st), call, "communicator creation failed: %s",
                          ibex_status_str(st));
}

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    IBEX_ENTER_COMM(Comm_rank, comm, c);
    IBEX_ARGS(Comm_rank, rank);
    *rank = c->rank;
    return MPI_SUCCESS;
}

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    IBEX_ENTER_COMM(Comm_size, comm, c);
    IBEX_ARGS(Comm_size, size);
    *size = c->size;
    return MPI_SUCCESS;
}

/* Creates over parent with group (NULL: this process gets MPI_COMM_NULL). */
static int comm_create_common(ibex_comm_t *parent, ibex_group_t *group, const char *call,
                              MPI_Comm *newcomm)
{
    ibex_comm_t *comm;
    ibex_status_t st = ibex_comm_create_from(parent, group, &comm);
    if (st != IBEX_OK)
        return comm_fail(parent, call, st);
    if (comm) /* derived from parent's session, if any (its Bsend buffer) */
        comm->session = parent->session;
    *newcomm = comm ? comm->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int ibex_mpi_comm_dup_copy(ibex_comm_t *c, ibex_comm_t *n, bool copy_hints, const char **why)
{
    n->topo = ibex_topo_dup(ibex_topo_of(c)); /* a duplicate keeps the topology */
    n->session = c->session;
    bool no_topo = c->topo && !n->topo;
    int rc = no_topo ? MPI_ERR_NO_MEM : ibex_attr_comm_copy(c, n); /* in the order set */
    if (rc != MPI_SUCCESS) {
        ibex_comm_release(n);
        *why = no_topo ? "out of memory for the topology" : "an attribute copy callback failed";
        return rc;
    }
    rc = copy_hints ? ibex_mpi_comm_hints_copy(c, n) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) {
        ibex_attr_comm_delete_all(n);
        ibex_comm_release(n);
        *why = "cannot copy the communicator's hints";
    }
    return rc;
}

int ibex_mpi_comm_dup(ibex_comm_t *c, const char *call, bool copy_hints, MPI_Comm *newcomm)
{
    if (ibex_comm_is_inter(c)) {
        ibex_comm_t *made = NULL;
        ibex_status_t st = ibex_comm_inter_dup(c, &made);
        IBEX_CHECK(ibex_mpi_inter_result(c, call, st, made, newcomm));
    } else {
        IBEX_CHECK(comm_create_common(c, c->group, call, newcomm));
    }
    const char *why = "";
    int rc = ibex_mpi_comm_dup_copy(c, ibex_comm_get(*newcomm), copy_hints, &why);
    if (rc != MPI_SUCCESS) {
        *newcomm = MPI_COMM_NULL;
        return ibex_mpi_error(c, rc, call, "%s (%d)", why, rc);
    }
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    IBEX_ENTER_COMM(Comm_dup, comm, c);
    IBEX_ARGS(Comm_dup, newcomm);
    return ibex_mpi_comm_dup(c, call, true, newcomm);
}

/* The group of this process's colour from every member's (colour, key), or NULL. */
static ibex_group_t *split_group(ibex_comm_t *parent, const int *all, int colour)
{
    int *ranks = malloc((size_t)parent->size * sizeof(int));
    ibex_group_t *group = NULL;
    if (!ranks)
        return NULL;
    int n = ibex_comm_split_members(all, parent->size, colour, ranks);
    if (n >= 0) {
        for (int i = 0; i < n; i++)
            ranks[i] = ibex_comm_world_rank(parent, ranks[i]);
        group = ibex_group_from_world(ranks, n);
    }
    free(ranks);
    return group;
}

static int comm_split_core(ibex_comm_t *parent, int colour, int key, const char *call,
                           MPI_Comm *newcomm)
{
    int mine[2] = {colour, key};
    int *all = malloc((size_t)parent->size * 2 * sizeof(int));
    if (!all)
        return comm_fail(parent, call, IBEX_ERR_NO_MEMORY);
    ibex_status_t st = ibex_comm_ctx_allgather_int(parent, mine, 2, all);
    if (st != IBEX_OK) {
        free(all);
        return comm_fail(parent, call, st);
    }
    ibex_group_t *group = colour == MPI_UNDEFINED ? NULL : split_group(parent, all, colour);
    free(all);
    bool oom = colour != MPI_UNDEFINED && !group;
    int rc = comm_create_common(parent, group, call, newcomm);
    ibex_group_release(group);
    if (rc == MPI_SUCCESS && oom) {
        *newcomm = MPI_COMM_NULL;
        rc = comm_fail(parent, call, IBEX_ERR_NO_MEMORY);
    }
    return rc;
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    IBEX_ENTER_COMM(Comm_split, comm, c);
    IBEX_ARGS(Comm_split, newcomm);
    if (color < 0 && color != MPI_UNDEFINED)
        return IBEX_ERROR(MPI_ERR_ARG, "colour %d is negative", color);
    if (ibex_comm_is_inter(c)) {
        ibex_comm_t *made = NULL;
        ibex_status_t st = ibex_comm_inter_split(c, color, key, &made);
        return ibex_mpi_inter_result(c, call, st, made, newcomm);
    }
    return comm_split_core(c, color, key, call, newcomm);
}

/* HW_UNGUIDED: the first level, coarse to fine, at which no colour holds the whole of c and
 * some process has one (everyone decides alike from everyone's colours); -1 if none. */
static int split_unguided_level(ibex_comm_t *c, int *colour_p)
{
    int mine[IBEX_COMM_HW_NLEVELS], *all = malloc(sizeof(mine) * (size_t)c->size);
    if (!all)
        return -2;
    for (int l = 0; l < IBEX_COMM_HW_NLEVELS; l++)
        mine[l] = ibex_comm_hw_colour(ibex_comm_hw_levels[l]);
    ibex_status_t st = ibex_comm_ctx_allgather_int(c, mine, IBEX_COMM_HW_NLEVELS, all);
    int chosen = st == IBEX_OK ? -1 : -2;
    for (int l = 0; l < IBEX_COMM_HW_NLEVELS && chosen == -1; l++) {
        int defined = 0, whole = 0;
        for (int r = 0; r < c->size; r++) {
            int col = all[r * IBEX_COMM_HW_NLEVELS + l], same = 0;
            defined += col >= 0;
            for (int q = 0; col >= 0 && q < c->size; q++)
                same += all[q * IBEX_COMM_HW_NLEVELS + l] == col;
            whole += same == c->size;
        }
        if (defined > 0 && whole == 0)
            chosen = l;
    }
    free(all);
    *colour_p = chosen >= 0 && mine[chosen] >= 0 ? mine[chosen] : MPI_UNDEFINED;
    return chosen;
}

/* This process's colour for a split type (MPI_UNDEFINED: MPI_COMM_NULL) and the level's name
 * in level (empty: none). -2: the colours could not be gathered. */
static int split_type_colour(ibex_comm_t *c, int split_type, MPI_Info info, char *level)
{
    int colour = MPI_UNDEFINED, flag = 0, len = MPI_MAX_INFO_VAL + 1;
    level[0] = '\0';
    if (split_type == MPI_COMM_TYPE_SHARED) {
        colour = ibex_comm_hw_colour("mpi_shared_memory");
        strcpy(level, "mpi_shared_memory");
    } else if (split_type == MPI_COMM_TYPE_HW_GUIDED && info != MPI_INFO_NULL &&
               PMPI_Info_get_string(info, "mpi_hw_resource_type", &len, level, &flag) ==
                   MPI_SUCCESS &&
               flag) {
        colour = ibex_comm_hw_colour(level);
        colour = colour < 0 ? MPI_UNDEFINED : colour;
    } else if (split_type == MPI_COMM_TYPE_HW_UNGUIDED) {
        int l = split_unguided_level(c, &colour);
        if (l == -2)
            return -2;
        if (l >= 0)
            strcpy(level, ibex_comm_hw_levels[l]);
    } else if (split_type != MPI_UNDEFINED) {
        ibex_debug(CORE, "split type %d without a known resource: MPI_COMM_NULL", split_type);
    }
    return colour;
}

/* The level a hardware split used, as the new communicator's mpi_hw_resource_type hint. */
static void split_type_hint(MPI_Comm comm, const char *level)
{
    MPI_Info in;
    if (comm == MPI_COMM_NULL || !level[0] || PMPI_Info_create(&in) != MPI_SUCCESS)
        return;
    if (PMPI_Info_set(in, "mpi_hw_resource_type", level) == MPI_SUCCESS)
        ibex_mpi_comm_hints_set(ibex_comm_get(comm), in);
    PMPI_Info_free(&in);
}

/* SHARED splits by node, HW_GUIDED by the hwloc level its info names (mpi_hw_resource_type),
 * HW_UNGUIDED by the first level that splits comm (named in newcomm's hints and, when info is
 * not MPI_INFO_NULL, set in info under mpi_hw_resource_type); MPI_UNDEFINED, RESOURCE_GUIDED and
 * types this library does not know give MPI_COMM_NULL, as the standard allows. */
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    IBEX_ENTER_COMM(Comm_split_type, comm, c);
    IBEX_ARGS(Comm_split_type, newcomm);
    if (ibex_comm_is_inter(c))
        return IBEX_ERROR(MPI_ERR_COMM, "not supported on an intercommunicator");
    char level[MPI_MAX_INFO_VAL + 1];
    int colour = split_type_colour(c, split_type, info, level);
    if (colour == -2)
        return comm_fail(c, call, IBEX_ERR_NO_MEMORY);
    IBEX_CHECK(comm_split_core(c, colour, key, call, newcomm));
    split_type_hint(*newcomm, level);
    /* HW_UNGUIDED also tells the caller which level it used through the info it passed */
    if (split_type == MPI_COMM_TYPE_HW_UNGUIDED && info != MPI_INFO_NULL &&
        *newcomm != MPI_COMM_NULL && level[0])
        IBEX_CHECK(PMPI_Info_set(info, "mpi_hw_resource_type", level));
    return MPI_SUCCESS;
}

/* group must be a subset of comm's group; every member of comm passes the same group. */
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    IBEX_ENTER_COMM(Comm_create, comm, c);
    ibex_group_t *g = ibex_group_get(group);
    if (!g)
        return IBEX_ERROR(MPI_ERR_GROUP, "invalid group handle 0x%x", group);
    IBEX_ARGS(Comm_create, newcomm);
    for (int i = 0; i < g->size; i++)
        if (ibex_group_rank_of(c->group, g->world_ranks[i]) == MPI_UNDEFINED)
            return IBEX_ERROR(MPI_ERR_GROUP,
                              "group rank %d (world rank %d) is not in the communicator", i,
                              g->world_ranks[i]);
    bool member = g->my_rank != MPI_UNDEFINED;
    if (ibex_comm_is_inter(c)) { /* group: a subset of the local group */
        ibex_comm_t *made = NULL;
        ibex_status_t st = ibex_comm_inter_subset(c, g, &made);
        return ibex_mpi_inter_result(c, call, st, made, newcomm);
    }
    return comm_create_common(c, member ? g : NULL, call, newcomm);
}

int PMPI_Comm_free(MPI_Comm *comm)
{
    IBEX_ENTER(Comm_free);
    IBEX_ARGS(Comm_free, comm);
    ibex_comm_t *c = ibex_comm_lookup(*comm, call);
    if (!c)
        return MPI_ERR_COMM;
    if (c == ibex_comm_world || c == ibex_comm_self)
        return ibex_mpi_error(c, MPI_ERR_COMM, call, "%s cannot be freed", c->name);
    int rc = ibex_attr_comm_delete_all(c); /* the delete callbacks, the last set first */
    if (rc != MPI_SUCCESS)
        return ibex_mpi_error(c, rc, call, "an attribute delete callback returned %d", rc);
    ibex_mpi_comm_hints_drop(c);
    ibex_p2p_bsend_comm_drop(c);
    ibex_comm_release(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* Without dynamic processes a disconnect is a free that first waits, locally, until no
 * request of this process still uses the communicator (its references but the handle). */
int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    IBEX_ENTER(Comm_disconnect);
    IBEX_ARGS(Comm_disconnect, comm);
    ibex_comm_t *c = ibex_comm_lookup(*comm, call);
    if (!c)
        return MPI_ERR_COMM;
    if (c == ibex_comm_world || c == ibex_comm_self)
        return ibex_mpi_error(c, MPI_ERR_COMM, call, "%s cannot be disconnected", c->name);
    /* pending communication completes first; inactive persistent requests are none */
    int idle = 0;
    while (c->refcount > 1 + ibex_req_count_idle(c))
        ibex_wait_step(&idle);
    return PMPI_Comm_free(comm);
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    IBEX_ENTER_COMM(Comm_compare, comm1, a);
    ibex_comm_t *b = ibex_comm_lookup(comm2, call);
    if (!b)
        return MPI_ERR_COMM;
    IBEX_ARGS(Comm_compare, result);
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    int g = ibex_group_compare(a->group, b->group);
    if (ibex_comm_is_inter(a) != ibex_comm_is_inter(b))
        g = MPI_UNEQUAL;
    else if (ibex_comm_is_inter(a) && g != MPI_UNEQUAL) { /* both groups count */
        int r = ibex_group_compare(a->peers, b->peers);
        g = r == MPI_UNEQUAL ? r : (r == MPI_IDENT && g == MPI_IDENT ? MPI_IDENT : MPI_SIMILAR);
    }
    *result = g == MPI_IDENT ? MPI_CONGRUENT : g;
    return MPI_SUCCESS;
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    IBEX_ENTER_COMM(Comm_group, comm, c);
    IBEX_ARGS(Comm_group, group);
    MPI_Group h = ibex_group_handle_new(c->group);
    if (h == MPI_GROUP_NULL)
        return IBEX_ERROR(MPI_ERR_NO_MEM, "out of group handles");
    *group = h;
    return MPI_SUCCESS;
}

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    IBEX_ENTER_COMM(Comm_test_inter, comm, c);
    IBEX_ARGS(Comm_test_inter, flag);
    *flag = ibex_comm_is_inter(c);
    return MPI_SUCCESS;
}

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    IBEX_ENTER_COMM(Comm_set_name, comm, c);
    IBEX_ARGS(Comm_set_name, comm_name);
    snprintf(c->name, sizeof(c->name), "%s", comm_name);
    return MPI_SUCCESS;
}

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    IBEX_ENTER_COMM(Comm_get_name, comm, c);
    if (!comm_name || !resultlen)
        return IBEX_ERROR(MPI_ERR_ARG, "comm_name or resultlen is NULL");
    snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", c->name);
    *resultlen = (int)strlen(comm_name);
    return MPI_SUCCESS;
}

/* No dynamic processes: no process was spawned, so there is never a parent. */
int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    IBEX_ENTER(Comm_get_parent);
    IBEX_ARGS(Comm_get_parent, parent);
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(comm_api)
