/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicator attributes (MPI 4.1 section 7.7): MPI_Comm_create_keyval / free_keyval /
 * set_attr / get_attr / delete_attr, and the predefined attributes (MPI_TAG_UB, MPI_HOST,
 * MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM, MPI_LASTUSEDCODE).
 *
 * - Keyvals live in their own handle table (kind 9, the kind of MPI_KEYVAL_INVALID; owned by
 *   the global lock of ibex_thread.h). A keyval counts the program's handle plus one per
 *   attribute using it: MPI_Comm_free_keyval sets the program's variable to MPI_KEYVAL_INVALID,
 *   but the keyval (its callbacks, extra_state and handle) stays until the last attribute using
 *   it is deleted, as the standard requires: a copy of the old handle still gets and deletes
 *   those attributes (set_attr and a second free are MPI_ERR_KEYVAL), and no new keyval takes
 *   its handle meanwhile, so callbacks are never given a handle that names another keyval.
 * - A communicator's attributes are a list in the order they were first set, kept here by
 *   communicator handle index (the engine's communicator knows nothing of them).
 * - Callbacks: MPI_Comm_dup runs the copy callbacks in the order the attributes were set
 *   (MPI_COMM_NULL_COPY_FN: not copied; MPI_COMM_DUP_FN: the same value); MPI_Comm_free and
 *   MPI_Finalize (for MPI_COMM_SELF, first thing) run the delete callbacks, the last set first;
 *   MPI_Comm_delete_attr and MPI_Comm_set_attr over an existing value run the delete callback
 *   of that value. A callback returning other than MPI_SUCCESS fails the call with its code,
 *   and the attribute stays.
 * - Predefined keyvals cannot be set, deleted or freed (MPI_ERR_KEYVAL).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "comm_impl.h"
#include "ibex_attr.h"
#include "ibex_err_internal.h"
#include "ibex_handle.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

extern const int ibex_tag_ub; /* runtime/mpi/errhandler_check.c */

#define IBEX_KIND_KEYVAL IBEX_HANDLE_KIND(MPI_KEYVAL_INVALID)

typedef struct keyval {
    MPI_Comm_copy_attr_function *copy_fn;
    MPI_Comm_delete_attr_function *delete_fn;
    void *extra_state;
    int handle;
    int refs;   /* the program's handle (until freed) + one per attribute */
    bool freed; /* the program freed it: its handle stays valid (and unused) while refs */
} keyval_t;

typedef struct attr {
    keyval_t *kv;
    void *value;
} attr_t;

typedef struct attr_list {
    attr_t *a;
    int n, cap;
} attr_list_t;

static ibex_handle_table_t keyval_table; /* owned by the global lock (ibex_thread.h) */
static attr_list_t *comm_attrs;          /* by communicator handle index */
static int comm_attrs_cap;

static ibex_handle_table_t *keyval_table_get(void)
{
    if (keyval_table.kind == 0)
        ibex_handle_table_init(&keyval_table, IBEX_KIND_KEYVAL, 1);
    return &keyval_table;
}

static void keyval_unref(keyval_t *kv)
{
    if (--kv->refs == 0) {
        ibex_handle_release(keyval_table_get(), kv->handle);
        free(kv);
    }
}

static attr_list_t *attrs_of(const ibex_comm_t *c, bool create)
{
    int i = IBEX_HANDLE_INDEX(c->handle);
    if (i >= comm_attrs_cap) {
        if (!create)
            return NULL;
        int cap = comm_attrs_cap ? comm_attrs_cap : 16;
        while (cap <= i)
            cap *= 2;
        attr_list_t *n = realloc(comm_attrs, (size_t)cap * sizeof(*n));
        if (!n)
            return NULL;
        memset(n + comm_attrs_cap, 0, (size_t)(cap - comm_attrs_cap) * sizeof(*n));
        comm_attrs = n;
        comm_attrs_cap = cap;
    }
    return &comm_attrs[i];
}

static int attr_find(const attr_list_t *l, const keyval_t *kv)
{
    for (int i = 0; l && i < l->n; i++)
        if (l->a[i].kv == kv)
            return i;
    return -1;
}

static bool attr_append(attr_list_t *l, keyval_t *kv, void *value)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 4;
        attr_t *a = realloc(l->a, (size_t)cap * sizeof(*a));
        if (!a)
            return false;
        l->a = a;
        l->cap = cap;
    }
    l->a[l->n].kv = kv;
    l->a[l->n].value = value;
    l->n++;
    kv->refs++;
    return true;
}

static void attr_remove(attr_list_t *l, int i)
{
    keyval_t *kv = l->a[i].kv;
    memmove(&l->a[i], &l->a[i + 1], (size_t)(l->n - i - 1) * sizeof(l->a[0]));
    if (--l->n == 0) {
        free(l->a);
        memset(l, 0, sizeof(*l));
    }
    keyval_unref(kv);
}

static int attr_call_delete(const ibex_comm_t *c, const attr_t *a)
{
    if (a->kv->delete_fn == MPI_COMM_NULL_DELETE_FN)
        return MPI_SUCCESS;
    return a->kv->delete_fn(c->handle, a->kv->handle, a->value, a->kv->extra_state);
}

int ibex_attr_comm_delete_all(ibex_comm_t *c)
{
    attr_list_t *l = attrs_of(c, false);
    while (l && l->n > 0) {
        int rc = attr_call_delete(c, &l->a[l->n - 1]);
        if (rc != MPI_SUCCESS)
            return rc;
        attr_remove(l, l->n - 1);
    }
    return MPI_SUCCESS;
}

int ibex_attr_comm_copy(ibex_comm_t *old, ibex_comm_t *new_comm)
{
    attr_list_t *from = attrs_of(old, false);
    int n = from ? from->n : 0;
    for (int i = 0; i < n; i++) {
        attr_t a = from->a[i]; /* a callback may not change old's list, but take a copy */
        void *out = NULL;
        int flag = 0, rc = MPI_SUCCESS;
        if (a.kv->copy_fn == MPI_COMM_DUP_FN) {
            out = a.value;
            flag = 1;
        } else if (a.kv->copy_fn != MPI_COMM_NULL_COPY_FN) {
            rc = a.kv->copy_fn(old->handle, a.kv->handle, a.kv->extra_state, a.value, &out, &flag);
        }
        if (rc == MPI_SUCCESS && flag) {
            attr_list_t *to = attrs_of(new_comm, true);
            if (!to || !attr_append(to, a.kv, out))
                rc = MPI_ERR_NO_MEM;
        }
        if (rc != MPI_SUCCESS) {
            ibex_attr_comm_delete_all(new_comm);
            return rc;
        }
    }
    return MPI_SUCCESS;
}

/* Values of the predefined attributes; Comm_get_attr hands out pointers to them. */
static int attr_tag_ub;
static int attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE; /* every rank can do I/O */
static int attr_wtime_is_global = 0;
static int attr_universe_size;
static int attr_appnum = 0;
static int attr_lastusedcode = MPI_ERR_LASTCODE;

static int *predefined_value(int keyval)
{
    switch (keyval) {
    case MPI_TAG_UB:
        attr_tag_ub = ibex_tag_ub;
        return &attr_tag_ub;
    case MPI_HOST:
        return &attr_host;
    case MPI_IO:
        return &attr_io;
    case MPI_WTIME_IS_GLOBAL:
        return &attr_wtime_is_global;
    case MPI_UNIVERSE_SIZE:
        attr_universe_size = ibex_rt.boot.size; /* the launcher gives nothing larger */
        return &attr_universe_size;
    case MPI_APPNUM:
        attr_appnum = ibex_rt.boot.appnum; /* the launcher's PMIX_APPNUM (MPMD) */
        return &attr_appnum;
    case MPI_LASTUSEDCODE:
        attr_lastusedcode = ibex_err_last_used(); /* err_user.c */
        return &attr_lastusedcode;
    default:
        return NULL;
    }
}

/* The live user keyval of a handle, or NULL after raising MPI_ERR_KEYVAL. */
static keyval_t *keyval_lookup(const ibex_entry_t *e, int keyval)
{
    keyval_t *kv =
        keyval == MPI_KEYVAL_INVALID ? NULL : ibex_handle_get(keyval_table_get(), keyval);
    if (!kv)
        ibex_mpi_error(e->comm, MPI_ERR_KEYVAL, e->call, "%s keyval 0x%x",
                       predefined_value(keyval) ? "predefined (read-only)" : "invalid",
                       (unsigned)keyval);
    return kv;
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                            void *extra_state)
{
    IBEX_ENTER(Comm_create_keyval);
    IBEX_ARGS(Comm_create_keyval, comm_keyval);
    keyval_t *kv = calloc(1, sizeof(*kv));
    int h = kv ? ibex_handle_alloc(keyval_table_get(), kv) : -1;
    if (h < 0) {
        free(kv);
        return IBEX_ERROR(MPI_ERR_NO_MEM, "out of memory for a keyval");
    }
    kv->copy_fn = comm_copy_attr_fn;
    kv->delete_fn = comm_delete_attr_fn;
    kv->extra_state = extra_state;
    kv->handle = h;
    kv->refs = 1;
    *comm_keyval = h;
    return MPI_SUCCESS;
}

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    IBEX_ENTER(Comm_free_keyval);
    IBEX_ARGS(Comm_free_keyval, comm_keyval);
    keyval_t *kv = keyval_lookup(&ibex_e, *comm_keyval);
    if (!kv)
        return MPI_ERR_KEYVAL;
    if (kv->freed)
        return IBEX_ERROR(MPI_ERR_KEYVAL, "keyval 0x%x was freed already (attributes still use it)",
                          (unsigned)*comm_keyval);
    kv->freed = true;
    keyval_unref(kv); /* attributes still using it keep it, and its handle */ /* attributes still
                                                                                 using it keep it */
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    IBEX_ENTER_COMM(Comm_set_attr, comm, c);
    keyval_t *kv = keyval_lookup(&ibex_e, comm_keyval);
    if (!kv)
        return MPI_ERR_KEYVAL;
    if (kv->freed)
        return IBEX_ERROR(MPI_ERR_KEYVAL, "keyval 0x%x was freed", (unsigned)comm_keyval);
    attr_list_t *l = attrs_of(c, true);
    if (!l)
        return IBEX_ERROR(MPI_ERR_NO_MEM, "out of memory for an attribute");
    int i = attr_find(l, kv);
    if (i >= 0) {
        int rc = attr_call_delete(c, &l->a[i]);
        if (rc != MPI_SUCCESS)
            return IBEX_ERROR(rc, "the delete callback of keyval 0x%x returned %d",
                              (unsigned)comm_keyval, rc);
        l->a[i].value = attribute_val;
        return MPI_SUCCESS;
    }
    if (!attr_append(l, kv, attribute_val))
        return IBEX_ERROR(MPI_ERR_NO_MEM, "out of memory for an attribute");
    return MPI_SUCCESS;
}

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    IBEX_ENTER_COMM(Comm_get_attr, comm, c);
    if (!attribute_val || !flag)
        return IBEX_ERROR(MPI_ERR_ARG, "attribute_val or flag is NULL");
    int *value = predefined_value(comm_keyval);
    if (value) {
        *(int **)attribute_val = value;
        *flag = 1;
        return MPI_SUCCESS;
    }
    keyval_t *kv = keyval_lookup(&ibex_e, comm_keyval);
    if (!kv)
        return MPI_ERR_KEYVAL;
    attr_list_t *l = attrs_of(c, false);
    int i = attr_find(l, kv);
    *flag = i >= 0;
    if (i >= 0)
        *(void **)attribute_val = l->a[i].value;
    return MPI_SUCCESS;
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    IBEX_ENTER_COMM(Comm_delete_attr, comm, c);
    keyval_t *kv = keyval_lookup(&ibex_e, comm_keyval);
    if (!kv)
        return MPI_ERR_KEYVAL;
    attr_list_t *l = attrs_of(c, false);
    int i = attr_find(l, kv);
    if (i < 0)
        return MPI_SUCCESS; /* nothing to delete: MPI leaves this unspecified */
    int rc = attr_call_delete(c, &l->a[i]);
    if (rc != MPI_SUCCESS)
        return IBEX_ERROR(rc, "the delete callback of keyval 0x%x returned %d",
                          (unsigned)comm_keyval, rc);
    attr_remove(l, i);
    return MPI_SUCCESS;
}

/* ---- deprecated since MPI 2.0, still in MPI 4.1: the communicator calls under other names
 * (errors then name the new call, which does the work) ---- */

int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    return PMPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}

int PMPI_Keyval_free(int *keyval)
{
    return PMPI_Comm_free_keyval(keyval);
}

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return PMPI_Comm_delete_attr(comm, keyval);
}

IBEX_MPI_ALIASES(attr)
