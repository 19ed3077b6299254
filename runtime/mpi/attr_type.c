/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datatype attributes (MPI 4.1 section 7.7.4): MPI_Type_create_keyval / free_keyval /
 * set_attr / get_attr / delete_attr, with the rules of communicator attributes (attr.c):
 * MPI_Type_dup runs the copy callbacks in the order the attributes were set
 * (MPI_TYPE_NULL_COPY_FN: not copied; MPI_TYPE_DUP_FN: the same value), MPI_Type_free the
 * delete callbacks, the last set first; set over an existing value and delete run the delete
 * callback of that value; a failing callback fails the call with its code and the attribute
 * stays. Type keyvals are their own handle kind (IBEX_KIND_TYPE_KEYVAL), so a communicator
 * keyval used on a type is MPI_ERR_KEYVAL; a freed keyval lives on while attributes use it.
 * Attributes are kept here by datatype handle index; all valid at any time, like the other
 * datatype calls.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dt_priv.h"
#include "ibex_attr.h"
#include "ibex_handle.h"
#include "ibex_entry.h"

#define IBEX_KIND_TYPE_KEYVAL                                                                      \
    14 /* of the 16 kinds (ibex_handle.h); 1..9 are mpi.h's and attr.c's */

typedef struct tkeyval {
    MPI_Type_copy_attr_function *copy_fn;
    MPI_Type_delete_attr_function *delete_fn;
    void *extra_state;
    int handle;
    int refs;   /* the program's handle (until freed) + one per attribute */
    bool freed; /* the program freed it: its handle stays valid (and unused) while refs */
} tkeyval_t;

typedef struct tattr {
    tkeyval_t *kv;
    void *value;
} tattr_t;

typedef struct tattr_list {
    tattr_t *a;
    int n, cap;
} tattr_list_t;

static ibex_handle_table_t tkv_table; /* owned by the global lock (ibex_thread.h) */
static tattr_list_t *type_attrs;      /* by datatype handle index */
static int type_attrs_cap;

static ibex_handle_table_t *tkv_table_get(void)
{
    if (tkv_table.kind == 0)
        ibex_handle_table_init(&tkv_table, IBEX_KIND_TYPE_KEYVAL, 1);
    return &tkv_table;
}

static void tkv_unref(tkeyval_t *kv)
{
    if (--kv->refs == 0) {
        ibex_handle_release(tkv_table_get(), kv->handle);
        free(kv);
    }
}

static tattr_list_t *attrs_of(int type, bool create)
{
    int i = IBEX_HANDLE_INDEX(type);
    if (i >= type_attrs_cap) {
        if (!create)
            return NULL;
        int cap = type_attrs_cap ? type_attrs_cap : 64;
        while (cap <= i)
            cap *= 2;
        tattr_list_t *n = realloc(type_attrs, (size_t)cap * sizeof(*n));
        if (!n)
            return NULL;
        memset(n + type_attrs_cap, 0, (size_t)(cap - type_attrs_cap) * sizeof(*n));
        type_attrs = n;
        type_attrs_cap = cap;
    }
    return &type_attrs[i];
}

static int attr_find(const tattr_list_t *l, const tkeyval_t *kv)
{
    for (int i = 0; l && i < l->n; i++)
        if (l->a[i].kv == kv)
            return i;
    return -1;
}

static bool attr_append(tattr_list_t *l, tkeyval_t *kv, void *value)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 4;
        tattr_t *a = realloc(l->a, (size_t)cap * sizeof(*a));
        if (!a)
            return false;
        l->a = a;
        l->cap = cap;
    }
    l->a[l->n++] = (tattr_t){kv, value};
    kv->refs++;
    return true;
}

static void attr_remove(tattr_list_t *l, int i)
{
    tkeyval_t *kv = l->a[i].kv;
    memmove(&l->a[i], &l->a[i + 1], (size_t)(l->n - i - 1) * sizeof(l->a[0]));
    if (--l->n == 0) {
        free(l->a);
        memset(l, 0, sizeof(*l));
    }
    tkv_unref(kv);
}

static int attr_call_delete(int type, const tattr_t *a)
{
    if (a->kv->delete_fn == MPI_TYPE_NULL_DELETE_FN)
        return MPI_SUCCESS;
    return a->kv->delete_fn(type, a->kv->handle, a->value, a->kv->extra_state);
}

int ibex_attr_type_delete_all(int type)
{
    tattr_list_t *l = attrs_of(type, false);
    while (l && l->n > 0) {
        int rc = attr_call_delete(type, &l->a[l->n - 1]);
        if (rc != MPI_SUCCESS)
            return rc;
        attr_remove(l, l->n - 1);
    }
    return MPI_SUCCESS;
}

int ibex_attr_type_copy(int old_type, int new_type)
{
    tattr_list_t *from = attrs_of(old_type, false);
    int n = from ? from->n : 0;
    for (int i = 0; i < n; i++) {
        tattr_t a = from->a[i];
        void *out = NULL;
        int flag = 0, rc = MPI_SUCCESS;
        if (a.kv->copy_fn == MPI_TYPE_DUP_FN) {
            out = a.value;
            flag = 1;
        } else if (a.kv->copy_fn != MPI_TYPE_NULL_COPY_FN) {
            rc = a.kv->copy_fn(old_type, a.kv->handle, a.kv->extra_state, a.value, &out, &flag);
        }
        if (rc == MPI_SUCCESS && flag) {
            tattr_list_t *to = attrs_of(new_type, true);
            if (!to || !attr_append(to, a.kv, out))
                rc = MPI_ERR_NO_MEM;
        }
        if (rc != MPI_SUCCESS) {
            ibex_attr_type_delete_all(new_type);
            return rc;
        }
    }
    return MPI_SUCCESS;
}

static tkeyval_t *tkv_lookup(const ibex_entry_t *e, int keyval)
{
    tkeyval_t *kv = keyval == MPI_KEYVAL_INVALID ? NULL : ibex_handle_get(tkv_table_get(), keyval);
    if (!kv)
        ibex_mpi_error(NULL, MPI_ERR_KEYVAL, e->call, "invalid datatype keyval 0x%x",
                       (unsigned)keyval);
    return kv;
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state)
{
    IBEX_ENTER_ANYTIME(Type_create_keyval);
    IBEX_ARGS(Type_create_keyval, type_keyval);
    tkeyval_t *kv = calloc(1, sizeof(*kv));
    int h = kv ? ibex_handle_alloc(tkv_table_get(), kv) : -1;
    if (h < 0) {
        free(kv);
        return IBEX_ERROR(MPI_ERR_NO_MEM, "out of memory for a keyval");
    }
    *kv = (tkeyval_t){type_copy_attr_fn, type_delete_attr_fn, extra_state, h, 1};
    *type_keyval = h;
    return MPI_SUCCESS;
}

int PMPI_Type_free_keyval(int *type_keyval)
{
    IBEX_ENTER_ANYTIME(Type_free_keyval);
    IBEX_ARGS(Type_free_keyval, type_keyval);
    tkeyval_t *kv = tkv_lookup(&ibex_e, *type_keyval);
    if (!kv)
        return MPI_ERR_KEYVAL;
    if (kv->freed)
        return IBEX_ERROR(MPI_ERR_KEYVAL, "keyval 0x%x was freed already (attributes still use it)",
                          (unsigned)*type_keyval);
    kv->freed = true;
    tkv_unref(kv); /* attributes still using it keep it, and its handle */
    *type_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    IBEX_ENTER_ANYTIME(Type_set_attr);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    tkeyval_t *kv = tkv_lookup(&ibex_e, type_keyval);
    if (!kv)
        return MPI_ERR_KEYVAL;
    if (kv->freed)
        return IBEX_ERROR(MPI_ERR_KEYVAL, "datatype keyval 0x%x was freed", (unsigned)type_keyval);
    tattr_list_t *l = attrs_of(datatype, true);
    if (!l)
        return IBEX_ERROR(MPI_ERR_NO_MEM, "out of memory for an attribute");
    int i = attr_find(l, kv);
    if (i >= 0) {
        int rc = attr_call_delete(datatype, &l->a[i]);
        if (rc != MPI_SUCCESS)
            return IBEX_ERROR(rc, "the delete callback of keyval 0x%x returned %d",
                              (unsigned)type_keyval, rc);
        l->a[i].value = attribute_val;
        return MPI_SUCCESS;
    }
    if (!attr_append(l, kv, attribute_val))
        return IBEX_ERROR(MPI_ERR_NO_MEM, "out of memory for an attribute");
    return MPI_SUCCESS;
}

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    IBEX_ENTER_ANYTIME(Type_get_attr);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    if (!attribute_val || !flag)
        return IBEX_ERROR(MPI_ERR_ARG, "attribute_val or flag is NULL");
    tkeyval_t *kv = tkv_lookup(&ibex_e, type_keyval);
    if (!kv)
        return MPI_ERR_KEYVAL;
    tattr_list_t *l = attrs_of(datatype, false);
    int i = attr_find(l, kv);
    *flag = i >= 0;
    if (i >= 0)
        *(void **)attribute_val = l->a[i].value;
    return MPI_SUCCESS;
}

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    IBEX_ENTER_ANYTIME(Type_delete_attr);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    tkeyval_t *kv = tkv_lookup(&ibex_e, type_keyval);
    if (!kv)
        return MPI_ERR_KEYVAL;
    tattr_list_t *l = attrs_of(datatype, false);
    int i = attr_find(l, kv);
    if (i < 0)
        return MPI_SUCCESS;
    int rc = attr_call_delete(datatype, &l->a[i]);
    if (rc != MPI_SUCCESS)
        return IBEX_ERROR(rc, "the delete callback of keyval 0x%x returned %d",
                          (unsigned)type_keyval, rc);
    attr_remove(l, i);
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(attr_type)
