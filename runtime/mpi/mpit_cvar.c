/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_T control variables: every IBEX_* tunable of the registry (runtime/base/ibex_config.h) is
 * one cvar, named as in the environment ("IBEX_EAGER_LIMIT"), in ibex_info's order, with the
 * registry's doc as its description. Types: ints, booleans (0 / 1), choices and log levels
 * are MPI_INT (choices and levels with an MPI_T_enum of their names); sizes MPI_COUNT
 * bytes (-1 for "auto": MPI_COUNT is the one signed 64-bit type MPI 4.1 section 15.3.5 allows
 * a variable, MPI_LONG_LONG is not among them); strings MPI_CHAR, read into a buffer of
 * IBEX_MPIT_STR_MAX chars.
 *
 * Scope: a tunable is read once at start-up and then fixed (MPI_T_SCOPE_CONSTANT; a write is
 * MPI_T_ERR_CVAR_SET_NEVER), except those marked IBEX_CFG_LIVE, which the library reads where
 * it uses them (IBEX_WAIT_POLICY, IBEX_SPIN_COUNT): MPI_T_SCOPE_LOCAL, writable at any time,
 * with the registry's own range checks.
 */
#include <stdlib.h>
#include <string.h>

#include "ibex_config.h"
#include "ibex_entry.h"
#include "mpit_internal.h"

#define IBEX_MPIT_STR_MAX 1024

struct ibex_t_enum {
    char name[64];
    int n;
    char **items;
};

struct ibex_t_cvar_handle {
    const ibex_cfg_entry_t *entry;
};

static MPI_T_enum *cvar_enums; /* per cvar, or NULL */
static int cvar_n;

int ibex_mpit_cvar_count(void)
{
    int n = 0;
    while (ibex_config_entry(n))
        n++;
    return n;
}

MPI_T_enum ibex_mpit_cvar_enum(int i)
{
    return cvar_enums && i >= 0 && i < cvar_n ? cvar_enums[i] : MPI_T_ENUM_NULL;
}

void ibex_mpit_enum_free(MPI_T_enum e)
{
    if (!e)
        return;
    for (int i = 0; i < e->n; i++)
        free(e->items[i]);
    free(e->items);
    free(e);
}

MPI_T_enum ibex_mpit_enum_new(const char *name, const char *choices)
{
    MPI_T_enum e = calloc(1, sizeof(*e));
    int n = 1;
    for (const char *p = choices; *p; p++)
        n += *p == '|';
    if (!e || !(e->items = calloc((size_t)n, sizeof(char *)))) {
        free(e);
        return NULL;
    }
    snprintf(e->name, sizeof(e->name), "%s", name);
    for (const char *p = choices; e->n < n; e->n++) {
        size_t len = strcspn(p, "|");
        if (!(e->items[e->n] = strndup(p, len))) {
            ibex_mpit_enum_free(e);
            return NULL;
        }
        p += len + (p[len] == '|');
    }
    return e;
}

int ibex_mpit_cvar_setup(void)
{
    cvar_n = ibex_mpit_cvar_count();
    cvar_enums = calloc((size_t)cvar_n + 1, sizeof(*cvar_enums));
    if (!cvar_enums)
        return MPI_T_ERR_MEMORY;
    for (int i = 0; i < cvar_n; i++) {
        const ibex_cfg_entry_t *e = ibex_config_entry(i);
        const char *choices = e->type == IBEX_CFG_ENUM       ? e->choices
                              : e->type == IBEX_CFG_LOGLEVEL ? "error|warn|info|debug|trace"
                                                             : NULL;
        char name[64];
        snprintf(name, sizeof(name), "IBEX_%s", e->name);
        if (choices && !(cvar_enums[i] = ibex_mpit_enum_new(name, choices))) {
            ibex_mpit_cvar_teardown();
            return MPI_T_ERR_MEMORY;
        }
    }
    return MPI_SUCCESS;
}

void ibex_mpit_cvar_teardown(void)
{
    for (int i = 0; cvar_enums && i < cvar_n; i++)
        ibex_mpit_enum_free(cvar_enums[i]);
    free(cvar_enums);
    cvar_enums = NULL;
    cvar_n = 0;
}

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    IBEX_ENTER_ANYTIME(T_enum_get_info);
    IBEX_MPIT_READY();
    if (enumtype == MPI_T_ENUM_NULL)
        return MPI_T_ERR_INVALID_HANDLE;
    if (num)
        *num = enumtype->n;
    ibex_mpit_str(enumtype->name, name, name_len);
    return MPI_SUCCESS;
}

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    IBEX_ENTER_ANYTIME(T_enum_get_item);
    IBEX_MPIT_READY();
    if (enumtype == MPI_T_ENUM_NULL)
        return MPI_T_ERR_INVALID_HANDLE;
    if (index < 0 || index >= enumtype->n)
        return MPI_T_ERR_INVALID_ITEM;
    if (value)
        *value = index;
    ibex_mpit_str(enumtype->items[index], name, name_len);
    return MPI_SUCCESS;
}

int PMPI_T_cvar_get_num(int *num_cvar)
{
    IBEX_ENTER_ANYTIME(T_cvar_get_num);
    IBEX_MPIT_READY();
    if (!num_cvar)
        return MPI_T_ERR_INVALID;
    *num_cvar = ibex_mpit_cvar_count();
    return MPI_SUCCESS;
}

static MPI_Datatype cvar_type(const ibex_cfg_entry_t *e, int *count_p)
{
    *count_p = 1;
    switch (e->type) {
    case IBEX_CFG_SIZE:
    case IBEX_CFG_SIZE_AUTO:
        return MPI_COUNT;
    case IBEX_CFG_STRING:
        *count_p = IBEX_MPIT_STR_MAX;
        return MPI_CHAR;
    default:
        return MPI_INT;
    }
}

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope)
{
    IBEX_ENTER_ANYTIME(T_cvar_get_info);
    IBEX_MPIT_READY();
    const ibex_cfg_entry_t *e = ibex_config_entry(cvar_index);
    if (cvar_index < 0 || !e)
        return MPI_T_ERR_INVALID_INDEX;
    char full[128];
    int count;
    snprintf(full, sizeof(full), "IBEX_%s", e->name);
    ibex_mpit_str(full, name, name_len);
    ibex_mpit_str(e->doc, desc, desc_len);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_TUNER_BASIC;
    if (datatype)
        *datatype = cvar_type(e, &count);
    if (enumtype)
        *enumtype = ibex_mpit_cvar_enum(cvar_index);
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = e->flags & IBEX_CFG_LIVE ? MPI_T_SCOPE_LOCAL : MPI_T_SCOPE_CONSTANT;
    return MPI_SUCCESS;
}

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    IBEX_ENTER_ANYTIME(T_cvar_get_index);
    IBEX_MPIT_READY();
    if (!name || !cvar_index)
        return MPI_T_ERR_INVALID;
    const ibex_cfg_entry_t *e;
    if (strncmp(name, "IBEX_", 5) != 0)
        return MPI_T_ERR_INVALID_NAME;
    for (int i = 0; (e = ibex_config_entry(i)) != NULL; i++)
        if (strcmp(e->name, name + 5) == 0) {
            *cvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    IBEX_ENTER_ANYTIME(T_cvar_handle_alloc);
    IBEX_MPIT_READY();
    (void)obj_handle; /* no cvar is bound to an object */
    const ibex_cfg_entry_t *e = ibex_config_entry(cvar_index);
    if (cvar_index < 0 || !e)
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    MPI_T_cvar_handle h = malloc(sizeof(*h));
    if (!h)
        return MPI_T_ERR_MEMORY;
    h->entry = e;
    cvar_type(e, count);
    *handle = h;
    return MPI_SUCCESS;
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    IBEX_ENTER_ANYTIME(T_cvar_handle_free);
    IBEX_MPIT_READY();
    if (!handle || *handle == MPI_T_CVAR_HANDLE_NULL)
        return MPI_T_ERR_INVALID_HANDLE;
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    IBEX_ENTER_ANYTIME(T_cvar_read);
    IBEX_MPIT_READY();
    if (handle == MPI_T_CVAR_HANDLE_NULL)
        return MPI_T_ERR_INVALID_HANDLE;
    if (!buf)
        return MPI_T_ERR_INVALID;
    const ibex_cfg_entry_t *e = handle->entry;
    switch (e->type) {
    case IBEX_CFG_SIZE:
    case IBEX_CFG_SIZE_AUTO:
        *(MPI_Count *)buf = *(const long long *)e->addr;
        break;
    case IBEX_CFG_STRING: {
        const char *s = *(char *const *)e->addr;
        int len = IBEX_MPIT_STR_MAX;
        ibex_mpit_str(s ? s : "", buf, &len);
        break;
    }
    default:
        *(int *)buf = *(const int *)e->addr;
        break;
    }
    return MPI_SUCCESS;
}

/* A live int-typed value within what the registry would accept from the environment. */
static int cvar_int_valid(const ibex_cfg_entry_t *e, int v)
{
    MPI_T_enum en = NULL;
    for (int i = 0; i < cvar_n; i++)
        if (ibex_config_entry(i) == e)
            en = ibex_mpit_cvar_enum(i);
    if (en)
        return v >= 0 && v < en->n;
    if (e->type == IBEX_CFG_BOOL)
        return v == 0 || v == 1;
    return e->type == IBEX_CFG_INT && v >= 0;
}

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    IBEX_ENTER_ANYTIME(T_cvar_write);
    IBEX_MPIT_READY();
    if (handle == MPI_T_CVAR_HANDLE_NULL)
        return MPI_T_ERR_INVALID_HANDLE;
    const ibex_cfg_entry_t *e = handle->entry;
    if (!(e->flags & IBEX_CFG_LIVE))
        return MPI_T_ERR_CVAR_SET_NEVER;
    if (!buf)
        return MPI_T_ERR_INVALID;
    int v = *(const int *)buf; /* live tunables are all int-typed (checked below) */
    if (e->type == IBEX_CFG_SIZE || e->type == IBEX_CFG_SIZE_AUTO || e->type == IBEX_CFG_STRING ||
        !cvar_int_valid(e, v))
        return MPI_T_ERR_INVALID;
    *(int *)e->addr = v;
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(mpit_cvar)
