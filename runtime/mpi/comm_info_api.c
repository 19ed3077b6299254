/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI communicator calls with info and the non-blocking duplicates: Comm_dup_with_info,
 * Comm_idup, Comm_idup_with_info, Comm_set_info, Comm_get_info, Comm_create_group.
 *
 * Hints (MPI 4.1 section 7.4.4): Comm_get_info gives the hints Ibex knows, with their current
 * values: the four MPI 4.0 assertions (mpi_assert_no_any_tag, mpi_assert_no_any_source,
 * mpi_assert_exact_length, mpi_assert_allow_overtaking; default "false"; kept and given back,
 * no fast path uses them yet) and mpi_hw_resource_type (set by a hardware Comm_split_type).
 * Other keys are ignored, so not given back, as the standard says. Comm_set_info merges,
 * Comm_dup copies, Comm_dup_with_info takes the given ones. They live here, by communicator
 * handle index, and go at MPI_Comm_free.
 *
 * Comm_idup / idup_with_info, of intra- and intercommunicators, return at once: the context
 * pair is agreed in the progress engine (runtime/comm/comm_idup.c) and the request completes
 * when the new communicator is made (runtime/mpi/README.md).
 */
#include <stdlib.h>
#include <string.h>

#include "comm_impl.h"
#include "ibex_attr.h"
#include "ibex_comm_api.h"
#include "ibex_comm_idup.h"
#include "ibex_comm_inter.h"
#include "ibex_err.h"
#include "ibex_request.h"
#include "ibex_p2p_api.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

extern const int ibex_tag_ub; /* runtime/mpi/errhandler_check.c */

static MPI_Info *hints; /* by communicator handle index; MPI_INFO_NULL: none */
static int nhints;

static MPI_Info *hints_slot(const ibex_comm_t *c, bool grow)
{
    int i = IBEX_HANDLE_INDEX(c->handle);
    if (i >= nhints && grow) {
        int n = i + 16;
        MPI_Info *h = realloc(hints, (size_t)n * sizeof(*h));
        if (!h)
            return NULL;
        for (int j = nhints; j < n; j++)
            h[j] = MPI_INFO_NULL;
        hints = h;
        nhints = n;
    }
    return i < nhints ? &hints[i] : NULL;
}

void ibex_mpi_comm_hints_drop(const ibex_comm_t *c)
{
    MPI_Info *slot = hints_slot(c, false);
    if (slot && *slot != MPI_INFO_NULL)
        PMPI_Info_free(slot);
}

static const char *const hint_keys[] = {"mpi_assert_no_any_tag", "mpi_assert_no_any_source",
                                        "mpi_assert_exact_length", "mpi_assert_allow_overtaking",
                                        "mpi_hw_resource_type"};
#define HINT_ASSERTS 4 /* the first four, which have the default "false" */
#define HINT_COUNT   ((int)(sizeof(hint_keys) / sizeof(hint_keys[0])))

static bool hint_known(const char *key)
{
    for (int i = 0; i < HINT_COUNT; i++)
        if (strcmp(key, hint_keys[i]) == 0)
            return true;
    return false;
}

/* Copies every known key of from into *to (created when MPI_INFO_NULL). */
static int hints_merge(MPI_Info from, MPI_Info *to)
{
    int n = 0, rc = MPI_SUCCESS;
    if (from == MPI_INFO_NULL)
        return MPI_SUCCESS;
    if (*to == MPI_INFO_NULL && (rc = PMPI_Info_create(to)) != MPI_SUCCESS)
        return rc;
    rc = PMPI_Info_get_nkeys(from, &n);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        int len = sizeof(value), flag = 0;
        rc = PMPI_Info_get_nthkey(from, i, key);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Info_get_string(from, key, &len, value, &flag);
        if (rc == MPI_SUCCESS && flag && hint_known(key))
            rc = PMPI_Info_set(*to, key, value);
    }
    return rc;
}

int ibex_mpi_comm_hints_set(const ibex_comm_t *c, MPI_Info info)
{
    MPI_Info *slot = hints_slot(c, true);
    if (!slot)
        return MPI_ERR_NO_MEM;
    return hints_merge(info, slot);
}

int ibex_mpi_comm_hints_copy(const ibex_comm_t *from, const ibex_comm_t *to)
{
    MPI_Info *slot = hints_slot(from, false);
    return slot && *slot != MPI_INFO_NULL ? ibex_mpi_comm_hints_set(to, *slot) : MPI_SUCCESS;
}

/* MPI_INFO_NULL or a live info: the info argument of the calls below. */
static int check_info(const char *call, ibex_comm_t *c, MPI_Info info, bool null_ok)
{
    int n;
    if (info == MPI_INFO_NULL && null_ok)
        return MPI_SUCCESS;
    if (info == MPI_INFO_NULL || PMPI_Info_get_nkeys(info, &n) != MPI_SUCCESS)
        return ibex_mpi_error(c, MPI_ERR_INFO, call, "invalid info handle 0x%x", (unsigned)info);
    return MPI_SUCCESS;
}

/* The duplicate of c with hints (MPI_INFO_NULL: none) instead of c's. */
static int dup_with(ibex_comm_t *c, const char *call, MPI_Info info, MPI_Comm *newcomm)
{
    IBEX_CHECK(ibex_mpi_comm_dup(c, call, false, newcomm));
    int rc = ibex_mpi_comm_hints_set(ibex_comm_get(*newcomm), info);
    if (rc != MPI_SUCCESS) {
        PMPI_Comm_free(newcomm);
        return ibex_mpi_error(c, rc, call, "cannot keep the hints of the new communicator");
    }
    return MPI_SUCCESS;
}

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    IBEX_ENTER_COMM(Comm_dup_with_info, comm, c);
    IBEX_CHECK(check_info(call, c, info, true));
    IBEX_ARGS(Comm_dup_with_info, newcomm);
    return dup_with(c, call, info, newcomm);
}

typedef struct idup_call {
    ibex_req_t *req;   /* the program's */
    MPI_Comm *newcomm; /* written when the request completes */
    ibex_comm_t *parent;
    MPI_Info info; /* Comm_idup_with_info's hints (a copy), else MPI_INFO_NULL */
} idup_call_t;

/* From progress (runtime/comm/comm_idup.c): the new communicator takes what a duplicate takes,
 * then the program's request completes (an error is raised by the Wait / Test reporting it). */
static void idup_done(ibex_comm_t *made, ibex_status_t st, void *arg)
{
    idup_call_t *a = arg;
    const char *why = "";
    int rc = made ? ibex_mpi_comm_dup_copy(a->parent, made, a->info == MPI_INFO_NULL, &why)
                  : MPI_SUCCESS;
    if (made && rc == MPI_SUCCESS && a->info != MPI_INFO_NULL &&
        ibex_mpi_comm_hints_set(made, a->info) != MPI_SUCCESS) {
        ibex_attr_comm_delete_all(made);
        ibex_comm_release(made);
        rc = MPI_ERR_NO_MEM;
    }
    if (rc != MPI_SUCCESS)
        st = rc == MPI_ERR_NO_MEM ? IBEX_ERR_NO_MEMORY : IBEX_ERR_INTERNAL;
    *a->newcomm = st == IBEX_OK ? made->handle : MPI_COMM_NULL;
    if (a->info != MPI_INFO_NULL)
        PMPI_Info_free(&a->info);
    ibex_comm_release(a->parent);
    ibex_req_complete(a->req, st);
    free(a);
}

static int idup_common(ibex_comm_t *c, const char *call, bool with, MPI_Info info,
                       MPI_Comm *newcomm, MPI_Request *request)
{
    idup_call_t *a = calloc(1, sizeof(*a));
    ibex_req_t *req = a ? ibex_req_alloc(IBEX_REQ_COLL) : NULL;
    if (!req) {
        free(a);
        return ibex_mpi_error(c, MPI_ERR_NO_MEM, call, "out of memory for a request");
    }
    req->comm = c;
    ibex_comm_retain(c);
    req->peer = MPI_PROC_NULL;
    req->start_call = call; /* a failure is reported by the Wait: it names this call */
    *a = (idup_call_t){req, newcomm, c, MPI_INFO_NULL};
    ibex_comm_retain(c);
    int rc = with ? hints_merge(info, &a->info) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && with && a->info == MPI_INFO_NULL)
        rc = PMPI_Info_create(&a->info); /* with info, no hints: none copied from comm */
    if (rc == MPI_SUCCESS && ibex_req_publish(req, request) != MPI_SUCCESS)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && ibex_comm_idup_start(c, idup_done, a) != IBEX_OK)
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        if (a->info != MPI_INFO_NULL)
            PMPI_Info_free(&a->info);
        ibex_comm_release(c);
        ibex_req_release(req);
        free(a);
        return ibex_mpi_error(c, rc, call, "cannot start the duplicate");
    }
    return MPI_SUCCESS;
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    IBEX_ENTER_COMM(Comm_idup, comm, c);
    IBEX_ARGS(Comm_idup, newcomm, request);
    return idup_common(c, call, false, MPI_INFO_NULL, newcomm, request);
}

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    IBEX_ENTER_COMM(Comm_idup_with_info, comm, c);
    IBEX_CHECK(check_info(call, c, info, true));
    IBEX_ARGS(Comm_idup_with_info, newcomm, request);
    return idup_common(c, call, true, info, newcomm, request);
}

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    IBEX_ENTER_COMM(Comm_set_info, comm, c);
    IBEX_CHECK(check_info(call, c, info, false));
    int rc = ibex_mpi_comm_hints_set(c, info);
    return rc == MPI_SUCCESS ? rc : IBEX_ERROR(rc, "cannot keep the hints");
}

/* The defaults of the assertions, then the hints set. */
static int hints_used(const ibex_comm_t *c, MPI_Info *out)
{
    MPI_Info *slot = hints_slot(c, false);
    int rc = PMPI_Info_create(out);
    for (int i = 0; i < HINT_ASSERTS && rc == MPI_SUCCESS; i++)
        rc = PMPI_Info_set(*out, hint_keys[i], "false");
    if (rc == MPI_SUCCESS && slot)
        rc = hints_merge(*slot, out);
    if (rc != MPI_SUCCESS && *out != MPI_INFO_NULL)
        PMPI_Info_free(out);
    return rc;
}

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    IBEX_ENTER_COMM(Comm_get_info, comm, c);
    IBEX_ARGS(Comm_get_info, info_used);
    MPI_Info out = MPI_INFO_NULL;
    int rc = hints_used(c, &out);
    if (rc != MPI_SUCCESS)
        return IBEX_ERROR(rc, "cannot make the info object");
    *info_used = out;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    IBEX_ENTER_COMM(Comm_create_group, comm, c);
    if (ibex_comm_is_inter(c))
        return IBEX_ERROR(MPI_ERR_COMM, "%s is an intercommunicator", c->name);
    ibex_group_t *g = ibex_group_get(group);
    if (!g)
        return IBEX_ERROR(MPI_ERR_GROUP, "invalid group handle 0x%x", group);
    if (tag < 0 || tag > ibex_tag_ub)
        return IBEX_ERROR(MPI_ERR_TAG, "invalid tag %d (valid: 0..%d)", tag, ibex_tag_ub);
    IBEX_ARGS(Comm_create_group, newcomm);
    for (int i = 0; i < g->size; i++)
        if (ibex_group_rank_of(c->group, g->world_ranks[i]) == MPI_UNDEFINED)
            return IBEX_ERROR(MPI_ERR_GROUP,
                              "group rank %d (world rank %d) is not in the communicator", i,
                              g->world_ranks[i]);
    if (g->my_rank == MPI_UNDEFINED) { /* only members call; a non-member gets nothing */
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    ibex_comm_t *made = NULL;
    ibex_status_t st = ibex_comm_create_group(c, g, tag, &made);
    return ibex_mpi_inter_result(c, call, st, made, newcomm);
}

IBEX_MPI_ALIASES(comm_info_api)
