/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Window attributes (MPI 4.1 section 7.7.3): MPI_Win_create_keyval / free_keyval / set_attr /
 * get_attr (user keyvals; win_api.c answers the predefined ones) / delete_attr, with the rules
 * of communicator and datatype attributes (attr.c, attr_type.c): set over an existing value
 * and delete run the delete callback of that value, MPI_Win_free runs every delete callback,
 * the last set first, and a failing callback fails the call with its code (the attribute
 * stays). Windows are never duplicated, so copy callbacks are kept but never called. Window
 * keyvals are their own handle kind, so a communicator or datatype keyval used on a window is
 * MPI_ERR_KEYVAL; a freed keyval lives on while attributes use it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_handle.h"
#include "ibex_win_api.h"

#define IBEX_KIND_WIN_KEYVAL 13 /* of the 16 kinds (ibex_handle.h); 14 is attr_type.c's */

typedef struct wkeyval {
    MPI_Win_copy_attr_function *copy_fn;
    MPI_Win_delete_attr_function *delete_fn;
    void *extra_state;
    int handle;
    int refs;   /* the program's handle (until freed) + one per attribute */
    bool freed; /* the program freed it: its handle stays valid (and unused) while refs */
} wkeyval_t;

typedef struct wattr {
    wkeyval_t *kv;
    void *value;
} wattr_t;

struct ibex_win_attrs {
    wattr_t *a;
    int n, cap;
};

static ibex_handle_table_t wkv_table; /* owned by the global lock (ibex_thread.h) */

static ibex_handle_table_t *wkv_table_get(void)
{
    if (wkv_table.kind == 0)
        ibex_handle_table_init(&wkv_table, IBEX_KIND_WIN_KEYVAL, 1);
    return &wkv_table;
}

static void wkv_unref(wkeyval_t *kv)
{
    if (--kv->refs == 0) {
        ibex_handle_release(wkv_table_get(), kv->handle);
        free(kv);
    }
}

static int attr_find(const struct ibex_win_attrs *l, const wkeyval_t *kv)
{
    for (int i = 0; l && i < l->n; i++)
        if (l->a[i].kv == kv)
            return i;
    return -1;
}

static bool attr_append(ibex_win_t *w, wkeyval_t *kv, void *value)
{
    struct ibex_win_attrs *l = w->uattrs;
    if (!l && !(l = w->uattrs = calloc(1, sizeof(*l))))
        return false;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 4;
        wattr_t *a = realloc(l->a, (size_t)cap * sizeof(*a));
        if (!a)
            return false;
        l->a = a;
        l->cap = cap;
    }
    l->a[l->n++] = (wattr_t){kv, value};
    kv->refs++;
    return true;
}

static void attr_remove(ibex_win_t *w, int i)
{
    struct ibex_win_attrs *l = w->uattrs;
    wkeyval_t *kv = l->a[i].kv;
    memmove(&l->a[i], &l->a[i + 1], (size_t)(l->n - i - 1) * sizeof(l->a[0]));
    if (--l->n == 0) {
        free(l->a);
        free(l);
        w->uattrs = NULL;
    }
    wkv_unref(kv);
}

static int attr_call_delete(const ibex_win_t *w, const wattr_t *a)
{
    if (a->kv->delete_fn == MPI_WIN_NULL_DELETE_FN)
        return MPI_SUCCESS;
    return a->kv->delete_fn(w->handle, a->kv->handle, a->value, a->kv->extra_state);
}

int ibex_win_attr_delete_all(ibex_win_t *w)
{
    while (w->uattrs && w->uattrs->n > 0) {
        int rc = attr_call_delete(w, &w->uattrs->a[w->uattrs->n - 1]);
        if (rc != MPI_SUCCESS)
            return rc;
        attr_remove(w, w->uattrs->n - 1);
    }
    return MPI_SUCCESS;
}

static wkeyval_t *wkv_find(int keyval)
{
    return keyval == MPI_KEYVAL_INVALID ? NULL : ibex_handle_get(wkv_table_get(), keyval);
}

int ibex_win_attr_get(ibex_win_t *w, const char *call, int keyval, void *attribute_val, int *flag)
{
    wkeyval_t *kv = wkv_find(keyval);
    if (!kv)
        return IBEX_WIN_ERROR(w, MPI_ERR_KEYVAL, "invalid window keyval 0x%x", (unsigned)keyval);
    int i = attr_find(w->uattrs, kv);
    *flag = i >= 0;
    if (i >= 0)
        *(void **)attribute_val = w->uattrs->a[i].value;
    return MPI_SUCCESS;
}

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state)
{
    IBEX_ENTER(Win_create_keyval);
    IBEX_ARGS(Win_create_keyval, win_keyval);
    wkeyval_t *kv = calloc(1, sizeof(*kv));
    int h = kv ? ibex_handle_alloc(wkv_table_get(), kv) : -1;
    if (h < 0) {
        free(kv);
        return IBEX_ERROR(MPI_ERR_NO_MEM, "out of memory for a keyval");
    }
    *kv = (wkeyval_t){win_copy_attr_fn, win_delete_attr_fn, extra_state, h, 1};
    *win_keyval = h;
    return MPI_SUCCESS;
}

int PMPI_Win_free_keyval(int *win_keyval)
{
    IBEX_ENTER(Win_free_keyval);
    IBEX_ARGS(Win_free_keyval, win_keyval);
    wkeyval_t *kv = wkv_find(*win_keyval);
    if (!kv)
        return IBEX_ERROR(MPI_ERR_KEYVAL, "invalid window keyval 0x%x", (unsigned)*win_keyval);
    if (kv->freed)
        return IBEX_ERROR(MPI_ERR_KEYVAL, "keyval 0x%x was freed already (attributes still use it)",
                          (unsigned)*win_keyval);
    kv->freed = true;
    wkv_unref(kv); /* attributes still using it keep it, and its handle */
    *win_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    IBEX_ENTER_WIN(Win_set_attr, win, w);
    wkeyval_t *kv = wkv_find(win_keyval);
    if (!kv)
        return IBEX_WIN_ERROR(w, MPI_ERR_KEYVAL, "invalid window keyval 0x%x",
                              (unsigned)win_keyval);
    if (kv->freed)
        return IBEX_WIN_ERROR(w, MPI_ERR_KEYVAL, "window keyval 0x%x was freed",
                              (unsigned)win_keyval);
    int i = attr_find(w->uattrs, kv);
    if (i >= 0) {
        int rc = attr_call_delete(w, &w->uattrs->a[i]);
        if (rc != MPI_SUCCESS)
            return IBEX_WIN_ERROR(w, rc, "the delete callback of keyval 0x%x returned %d",
                                  (unsigned)win_keyval, rc);
        w->uattrs->a[i].value = attribute_val;
        return MPI_SUCCESS;
    }
    if (!attr_append(w, kv, attribute_val))
        return IBEX_WIN_ERROR(w, MPI_ERR_NO_MEM, "out of memory for an attribute");
    return MPI_SUCCESS;
}

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    IBEX_ENTER_WIN(Win_delete_attr, win, w);
    wkeyval_t *kv = wkv_find(win_keyval);
    if (!kv)
        return IBEX_WIN_ERROR(w, MPI_ERR_KEYVAL, "invalid window keyval 0x%x",
                              (unsigned)win_keyval);
    int i = attr_find(w->uattrs, kv);
    if (i < 0)
        return MPI_SUCCESS;
    int rc = attr_call_delete(w, &w->uattrs->a[i]);
    if (rc != MPI_SUCCESS)
        return IBEX_WIN_ERROR(w, rc, "the delete callback of keyval 0x%x returned %d",
                              (unsigned)win_keyval, rc);
    attr_remove(w, i);
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(win_attr)
