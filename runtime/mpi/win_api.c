/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Window creation, destruction and queries: MPI_Win_create / allocate / allocate_shared /
 * create_dynamic, shared_query, attach / detach, free, get_attr, names, group, info. The
 * window objects are runtime/win's; this file holds their handle table.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "comm_impl.h"
#include "ibex_handle.h"
#include "ibex_win_api.h"

ibex_handle_table_t ibex_win_table;

ibex_win_t *ibex_win_lookup_failed(MPI_Win handle, const char *call)
{
    ibex_mpi_error(NULL, MPI_ERR_WIN, call, "invalid window 0x%x%s", (unsigned)handle,
                   handle == MPI_WIN_NULL ? " (MPI_WIN_NULL)" : "");
    return NULL;
}

/* Window hints (MPI 4.1 section 12.2.7): MPI_Win_get_info gives the hints Ibex keeps, with
 * the values in effect, and never a key it ignored. Kept: the standard's window hints that are
 * assertions of the program (no_locks, accumulate_ordering, accumulate_ops, same_size,
 * same_disp_unit, and on a shared window alloc_shared_noncontig, which MPI_Win_shared_query
 * reads), each with a valid value; Ibex's behaviour satisfies every value (it orders
 * accumulates and allows every op), so the program's assertion is the value in effect. The
 * rest (unknown keys, invalid values, mpi_accumulate_granularity: a request Ibex does not act
 * on, alloc_shared_noncontig on another flavor) is ignored, so not given back. */
static bool hint_bool(const char *v)
{
    return strcmp(v, "true") == 0 || strcmp(v, "false") == 0;
}

/* "none", or a comma list of rar, raw, war, waw */
static bool hint_ordering(const char *v)
{
    if (strcmp(v, "none") == 0)
        return true;
    for (;;) {
        if (strncmp(v, "rar", 3) && strncmp(v, "raw", 3) && strncmp(v, "war", 3) &&
            strncmp(v, "waw", 3))
            return false;
        v += 3;
        if (*v == '\0')
            return true;
        if (*v++ != ',')
            return false;
    }
}

static bool hint_ops(const char *v)
{
    return strcmp(v, "same_op") == 0 || strcmp(v, "same_op_no_op") == 0;
}

/* The kept hints with their values when the program set none. */
static const struct win_hint {
    const char *key, *dflt;
    bool (*valid)(const char *v);
    bool shared_only;
} win_hints[] = {
    {"no_locks", "false", hint_bool, false},
    {"accumulate_ordering", "rar,raw,war,waw", hint_ordering, false},
    {"accumulate_ops", "same_op_no_op", hint_ops, false},
    {"same_size", "false", hint_bool, false},
    {"same_disp_unit", "false", hint_bool, false},
    {"alloc_shared_noncontig", "false", hint_bool, true},
};
#define WIN_HINTS ((int)(sizeof(win_hints) / sizeof(win_hints[0])))

static bool hint_kept(int flavor, const char *key, const char *value)
{
    for (int i = 0; i < WIN_HINTS; i++)
        if (strcmp(key, win_hints[i].key) == 0)
            return (!win_hints[i].shared_only || flavor == MPI_WIN_FLAVOR_SHARED) &&
                   win_hints[i].valid(value);
    return false;
}

/* Copies the kept hints of from into to; MPI_ERR_INFO for a bad handle. */
static int hints_merge(int flavor, MPI_Info from, MPI_Info to)
{
    int n = 0, rc;
    if (from == MPI_INFO_NULL)
        return MPI_SUCCESS;
    if (PMPI_Info_get_nkeys(from, &n) != MPI_SUCCESS)
        return MPI_ERR_INFO;
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        int len = (int)sizeof(value), flag = 0;
        if ((rc = PMPI_Info_get_nthkey(from, i, key)) != MPI_SUCCESS ||
            (rc = PMPI_Info_get_string(from, key, &len, value, &flag)) != MPI_SUCCESS)
            return rc;
        if (flag && hint_kept(flavor, key, value) &&
            (rc = PMPI_Info_set(to, key, value)) != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static int info_copy(int flavor, MPI_Info info, MPI_Info *out)
{
    int rc = PMPI_Info_create(out);
    if (rc == MPI_SUCCESS && (rc = hints_merge(flavor, info, *out)) != MPI_SUCCESS)
        PMPI_Info_free(out);
    return rc;
}

static int win_new(ibex_entry_t *e, ibex_win_args_t *a, MPI_Info info, MPI_Win *win)
{
    const char *call = e->call;
    if (ibex_comm_is_inter(a->comm))
        return ibex_mpi_error(a->comm, MPI_ERR_COMM, call,
                              "windows are made over an intracommunicator (this one is inter)");
    if (a->size < 0)
        return ibex_mpi_error(a->comm, MPI_ERR_SIZE, call, "negative size %lld",
                              (long long)a->size);
    if (a->disp_unit <= 0)
        return ibex_mpi_error(a->comm, MPI_ERR_DISP, call, "displacement unit %lld (must be > 0)",
                              (long long)a->disp_unit);
    MPI_Info copy;
    if (info_copy(a->flavor, info, &copy) != MPI_SUCCESS)
        return ibex_mpi_error(a->comm, MPI_ERR_INFO, call, "invalid info 0x%x", (unsigned)info);
    if (!ibex_win_table.kind)
        ibex_handle_table_init(&ibex_win_table, IBEX_KIND_WIN, 1);
    ibex_win_t *w;
    ibex_status_t st = ibex_win_create(a, &w);
    if (st != IBEX_OK) {
        PMPI_Info_free(&copy);
        return ibex_mpi_error(a->comm, ibex_err_class_of(st), call, "cannot create the window: %s",
                              ibex_status_str(st));
    }
    w->info = copy;
    w->errhandler = MPI_ERRORS_ARE_FATAL;
    w->attr_size = w->size;
    /* MPI_WIN_DISP_UNIT is an int attribute: a unit past INT_MAX (the _c calls) leaves it
     * unset (flag false); MPI_Win_shared_query_c answers it */
    w->attr_disp_unit = w->disp_unit <= INT_MAX ? (int)w->disp_unit : 0;
    w->attr_flavor = w->flavor;
    w->attr_model = w->model;
    w->handle = ibex_handle_alloc(&ibex_win_table, w);
    if (w->handle < 0)
        return ibex_mpi_error(a->comm, MPI_ERR_NO_MEM, call, "out of memory for handles");
    *win = w->handle;
    return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    IBEX_ENTER_COMM(Win_create, comm, c);
    IBEX_ARGS(Win_create, win);
    if (size > 0 && !base)
        return IBEX_ERROR(MPI_ERR_ARG, "base is NULL with size %lld", (long long)size);
    ibex_win_args_t a = {c, MPI_WIN_FLAVOR_CREATE, base, size, disp_unit};
    return win_new(&ibex_e, &a, info, win);
}

static int win_alloc(ibex_entry_t *e, ibex_win_args_t *a, MPI_Info info, void *baseptr,
                     MPI_Win *win)
{
    int rc = win_new(e, a, info, win);
    if (rc == MPI_SUCCESS)
        *(void **)baseptr = ibex_win_lookup(*win, e->call)->base;
    return rc;
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    IBEX_ENTER_COMM(Win_allocate, comm, c);
    IBEX_ARGS(Win_allocate, baseptr, win);
    ibex_win_args_t a = {c, MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit};
    return win_alloc(&ibex_e, &a, info, baseptr, win);
}

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    IBEX_ENTER_COMM(Win_allocate_shared, comm, c);
    IBEX_ARGS(Win_allocate_shared, baseptr, win);
    if (!ibex_win_comm_is_local(c))
        return IBEX_ERROR(MPI_ERR_RMA_SHARED,
                          "the communicator spans several nodes: no memory can be shared");
    ibex_win_args_t a = {c, MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit};
    return win_alloc(&ibex_e, &a, info, baseptr, win);
}

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    IBEX_ENTER_COMM(Win_create_dynamic, comm, c);
    IBEX_ARGS(Win_create_dynamic, win);
    ibex_win_args_t a = {c, MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1};
    return win_new(&ibex_e, &a, info, win);
}

/* MPI_Win_shared_query and its _c form (the unit as MPI_Aint). */
static int shared_query(const char *call, ibex_win_t *w, int rank, MPI_Aint *size,
                        MPI_Aint *disp_unit, void *baseptr)
{
    if (!size || !disp_unit || !baseptr)
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "size, disp_unit or baseptr is NULL");
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->comm->size))
        return IBEX_WIN_ERROR(w, MPI_ERR_RANK, "invalid rank %d (window of %d ranks)", rank,
                              w->comm->size);
    ibex_win_shared_query(w, rank, size, disp_unit, (void **)baseptr);
    /* A zero-size segment of a window made with alloc_shared_noncontig has no place: NULL, as
       MPICH and Open MPI answer (without the key it keeps its place in the contiguous
       segment, where it would begin). */
    if (*size == 0 && rank != MPI_PROC_NULL && w->info != MPI_INFO_NULL) {
        char v[8];
        int len = sizeof(v), flag = 0;
        if (PMPI_Info_get_string(w->info, "alloc_shared_noncontig", &len, v, &flag) ==
                MPI_SUCCESS &&
            flag && strcmp(v, "true") == 0)
            *(void **)baseptr = NULL;
    }
    return MPI_SUCCESS;
}

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    IBEX_ENTER_WIN(Win_shared_query, win, w);
    MPI_Aint unit = 0;
    IBEX_CHECK(shared_query(call, w, rank, size, disp_unit ? &unit : NULL, baseptr));
    if (unit > INT_MAX)
        return IBEX_WIN_ERROR(w, MPI_ERR_VALUE_TOO_LARGE,
                              "rank %d's displacement unit %lld does not fit in an int "
                              "(MPI_Win_shared_query_c answers it)",
                              rank, (long long)unit);
    *disp_unit = (int)unit;
    return MPI_SUCCESS;
}

int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                      MPI_Win *win)
{
    IBEX_ENTER_COMM(Win_create_c, comm, c);
    IBEX_ARGS(Win_create_c, win);
    if (size > 0 && !base)
        return IBEX_ERROR(MPI_ERR_ARG, "base is NULL with size %lld", (long long)size);
    ibex_win_args_t a = {c, MPI_WIN_FLAVOR_CREATE, base, size, disp_unit};
    return win_new(&ibex_e, &a, info, win);
}

int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win)
{
    IBEX_ENTER_COMM(Win_allocate_c, comm, c);
    IBEX_ARGS(Win_allocate_c, baseptr, win);
    ibex_win_args_t a = {c, MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit};
    return win_alloc(&ibex_e, &a, info, baseptr, win);
}

int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void *baseptr, MPI_Win *win)
{
    IBEX_ENTER_COMM(Win_allocate_shared_c, comm, c);
    IBEX_ARGS(Win_allocate_shared_c, baseptr, win);
    if (!ibex_win_comm_is_local(c))
        return IBEX_ERROR(MPI_ERR_RMA_SHARED,
                          "the communicator spans several nodes: no memory can be shared");
    ibex_win_args_t a = {c, MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit};
    return win_alloc(&ibex_e, &a, info, baseptr, win);
}

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr)
{
    IBEX_ENTER_WIN(Win_shared_query_c, win, w);
    return shared_query(call, w, rank, size, disp_unit, baseptr);
}

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    IBEX_ENTER_WIN(Win_attach, win, w);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return IBEX_WIN_ERROR(w, MPI_ERR_RMA_FLAVOR, "the window is not dynamic");
    if (size < 0 || (size > 0 && !base))
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "invalid region (base %p, size %lld)", base,
                              (long long)size);
    int rc = ibex_win_attach(w, base, size);
    if (rc != MPI_SUCCESS)
        return IBEX_WIN_ERROR(w, rc,
                              "region at %p of %lld bytes: it overlaps an attached one, or %d "
                              "are attached already, or it cannot be registered",
                              base, (long long)size, IBEX_WIN_DYN_MAX);
    return MPI_SUCCESS;
}

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    IBEX_ENTER_WIN(Win_detach, win, w);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return IBEX_WIN_ERROR(w, MPI_ERR_RMA_FLAVOR, "the window is not dynamic");
    if (ibex_win_detach(w, base) != MPI_SUCCESS)
        return IBEX_WIN_ERROR(w, MPI_ERR_RMA_ATTACH, "no region is attached at %p", base);
    return MPI_SUCCESS;
}

int PMPI_Win_free(MPI_Win *win)
{
    IBEX_ENTER(Win_free);
    IBEX_ARGS(Win_free, win);
    ibex_win_t *w = ibex_win_lookup(*win, call);
    if (!w)
        return MPI_ERR_WIN;
    if (ibex_win_busy(w))
        return IBEX_WIN_ERROR(w, MPI_ERR_RMA_SYNC,
                              "a lock, lock_all, start or post epoch is still open");
    int arc = ibex_win_attr_delete_all(w);
    if (arc != MPI_SUCCESS)
        return IBEX_WIN_ERROR(w, arc, "an attribute's delete callback returned %d", arc);
    MPI_Info info = w->info;
    ibex_handle_release(&ibex_win_table, w->handle);
    ibex_status_t st = ibex_win_free(w);
    PMPI_Info_free(&info);
    *win = MPI_WIN_NULL;
    if (st != IBEX_OK)
        return ibex_mpi_error(NULL, ibex_err_class_of(st), call, "%s", ibex_status_str(st));
    return MPI_SUCCESS;
}

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    IBEX_ENTER_WIN(Win_get_attr, win, w);
    if (!attribute_val || !flag)
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "attribute_val or flag is NULL");
    void *v;
    switch (win_keyval) {
    case MPI_WIN_BASE:
        v = w->base;
        break;
    case MPI_WIN_SIZE:
        v = &w->attr_size;
        break;
    case MPI_WIN_DISP_UNIT:
        if (w->attr_disp_unit == 0) { /* past INT_MAX: an int cannot hold it */
            *flag = 0;
            return MPI_SUCCESS;
        }
        v = &w->attr_disp_unit;
        break;
    case MPI_WIN_CREATE_FLAVOR:
        v = &w->attr_flavor;
        break;
    case MPI_WIN_MODEL:
        v = &w->attr_model;
        break;
    default:
        return ibex_win_attr_get(w, call, win_keyval, attribute_val, flag);
    }
    *(void **)attribute_val = v;
    *flag = 1;
    return MPI_SUCCESS;
}

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    IBEX_ENTER_WIN(Win_set_name, win, w);
    if (!win_name)
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "win_name is NULL");
    snprintf(w->name, sizeof(w->name), "%s", win_name);
    return MPI_SUCCESS;
}

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    IBEX_ENTER_WIN(Win_get_name, win, w);
    if (!win_name || !resultlen)
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "win_name or resultlen is NULL");
    snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w->name);
    *resultlen = (int)strlen(win_name);
    return MPI_SUCCESS;
}

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    IBEX_ENTER_WIN(Win_get_group, win, w);
    if (!group)
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "group is NULL");
    *group = ibex_group_handle_new(w->comm->group);
    if (*group == MPI_GROUP_NULL)
        return IBEX_WIN_ERROR(w, MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    IBEX_ENTER_WIN(Win_get_info, win, w);
    if (!info_used)
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "info_used is NULL");
    IBEX_CHECK(PMPI_Info_dup(w->info, info_used));
    for (int i = 0; i < WIN_HINTS; i++) {
        int len, flag;
        if (win_hints[i].shared_only && w->flavor != MPI_WIN_FLAVOR_SHARED)
            continue;
        PMPI_Info_get_valuelen(*info_used, win_hints[i].key, &len, &flag);
        if (!flag)
            PMPI_Info_set(*info_used, win_hints[i].key, win_hints[i].dflt);
    }
    return MPI_SUCCESS;
}

/* Merges the kept hints (the others are ignored: set_info leaves the values in effect). */
int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    IBEX_ENTER_WIN(Win_set_info, win, w);
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    int rc = hints_merge(w->flavor, info, w->info);
    if (rc != MPI_SUCCESS)
        return IBEX_WIN_ERROR(w, rc, "invalid info 0x%x or out of memory", (unsigned)info);
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(win_api)
