/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI tools interface (MPI_T), start and structure: MPI_T_init_thread / finalize and the
 * categories. Control variables are the tunables registry's entries (mpit_cvar.c), performance
 * variables the engine's counters (mpit_pvar.c).
 *
 * Categories: one per tunables table ("ibex_<module>": "ibex_engine", "ibex_shm", ...) holding
 * that table's control variables, in ibex_info's order, then "ibex_engine_stats" holding every
 * performance variable. They never change, so MPI_T_category_changed always answers 0.
 *
 * MPI_T calls return MPI_T_ERR_* (or MPI_SUCCESS) and, as MPI requires, never call an error
 * handler. They are valid before MPI_Init and after MPI_Finalize, between MPI_T_init_thread and
 * the matching MPI_T_finalize. Events (MPI 4.0) are not offered: there are no sources and no
 * event types (MPI_T_source_get_num and MPI_T_event_get_num answer 0); the other event calls
 * are mpit_event.c's and fail with the MPI_T_ERR_* class of what they are given.
 */
#include <stdio.h>
#include <string.h>

#include "ibex_config.h"
#include "ibex_entry.h"
#include "ibex_runtime.h"
#include "mpit_internal.h"

int ibex_mpit_refs;

void ibex_mpit_str(const char *src, char *buf, int *len)
{
    if (!len)
        return;
    int need = (int)strlen(src) + 1;
    if (!buf || *len <= 0) {
        *len = need;
        return;
    }
    int n = need < *len ? need : *len;
    memcpy(buf, src, (size_t)n - 1);
    buf[n - 1] = '\0';
    *len = n;
}

int PMPI_T_init_thread(int required, int *provided)
{
    IBEX_ENTER_ANYTIME(T_init_thread);
    if (!provided || required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return MPI_T_ERR_INVALID;
    /* before MPI_Init the tunables are not loaded yet; MPI_Init loads them again itself */
    if (ibex_mpit_refs == 0 && !ibex_rt.initialized && ibex_config_load_own() != IBEX_OK)
        return MPI_T_ERR_CANNOT_INIT;
    if (ibex_mpit_refs == 0 && ibex_mpit_cvar_setup() != MPI_SUCCESS)
        return MPI_T_ERR_MEMORY;
    if (ibex_mpit_refs == 0 && ibex_mpit_pvar_setup() != MPI_SUCCESS) {
        ibex_mpit_cvar_teardown();
        return MPI_T_ERR_MEMORY;
    }
    ibex_mpit_refs++;
    /* MPI_T may be used from several threads before MPI_Init: the same lock as MPI's */
    if (required == MPI_THREAD_MULTIPLE)
        ibex_thread_enable(true);
    *provided = required;
    return MPI_SUCCESS;
}

int PMPI_T_finalize(void)
{
    IBEX_ENTER_ANYTIME(T_finalize);
    IBEX_MPIT_READY();
    if (--ibex_mpit_refs == 0) {
        ibex_mpit_pvar_teardown();
        ibex_mpit_cvar_teardown();
    }
    return MPI_SUCCESS;
}

/* ---- categories ---- */

/* Number of tunables tables (each a category), from the registry's module of each entry. */
static int module_categories(const ibex_cfg_module_t **mods, int max)
{
    int n = 0;
    const ibex_cfg_module_t *m;
    for (int i = 0; (m = ibex_config_entry_module(i)) != NULL; i++)
        if (n == 0 || mods[n - 1] != m) {
            if (n < max)
                mods[n] = m;
            n++;
        }
    return n;
}

#define MAX_CATEGORIES 64

int ibex_mpit_category_count(void)
{
    const ibex_cfg_module_t *mods[MAX_CATEGORIES];
    return module_categories(mods, MAX_CATEGORIES) + 1; /* + the stats category */
}

int PMPI_T_category_get_num(int *num_cat)
{
    IBEX_ENTER_ANYTIME(T_category_get_num);
    IBEX_MPIT_READY();
    if (!num_cat)
        return MPI_T_ERR_INVALID;
    *num_cat = ibex_mpit_category_count();
    return MPI_SUCCESS;
}

/* The cvars of category c (a module): the first entry index and how many; or the stats
 * category (c == number of modules): *first_p = -1. */
static void category_range(int c, int *first_p, int *n_p, const char **name_p)
{
    const ibex_cfg_module_t *mods[MAX_CATEGORIES], *m;
    int nmod = module_categories(mods, MAX_CATEGORIES), first = -1, n = 0;
    *name_p = "engine_stats";
    if (c < nmod) {
        for (int i = 0; (m = ibex_config_entry_module(i)) != NULL; i++)
            if (m == mods[c]) {
                first = first < 0 ? i : first;
                n++;
            }
        *name_p = mods[c]->name;
    }
    *first_p = first;
    *n_p = n;
}

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories)
{
    IBEX_ENTER_ANYTIME(T_category_get_info);
    IBEX_MPIT_READY();
    if (cat_index < 0 || cat_index >= ibex_mpit_category_count())
        return MPI_T_ERR_INVALID_INDEX;
    int first, n;
    const char *mod;
    category_range(cat_index, &first, &n, &mod);
    char full[128], text[192];
    snprintf(full, sizeof(full), "ibex_%s", mod);
    if (first < 0)
        snprintf(text, sizeof(text), "the engine's performance variables");
    else
        snprintf(text, sizeof(text), "the %s module's tunables (IBEX_* variables)", mod);
    ibex_mpit_str(full, name, name_len);
    ibex_mpit_str(text, desc, desc_len);
    if (num_cvars)
        *num_cvars = n;
    if (num_pvars)
        *num_pvars = first < 0 ? ibex_mpit_pvar_count() : 0;
    if (num_categories)
        *num_categories = 0;
    return MPI_SUCCESS;
}

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    IBEX_ENTER_ANYTIME(T_category_get_index);
    IBEX_MPIT_READY();
    if (!name || !cat_index)
        return MPI_T_ERR_INVALID;
    for (int c = 0, n = ibex_mpit_category_count(); c < n; c++) {
        int first, count;
        const char *mod;
        category_range(c, &first, &count, &mod);
        if (strncmp(name, "ibex_", 5) == 0 && strcmp(name + 5, mod) == 0) {
            *cat_index = c;
            return MPI_SUCCESS;
        }
    }
    return MPI_T_ERR_INVALID_NAME;
}

/* The first len indices of a category's members (first .. first + n - 1). */
static int category_members(int cat_index, int len, int *indices, bool pvars)
{
    if (cat_index < 0 || cat_index >= ibex_mpit_category_count())
        return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && !indices))
        return MPI_T_ERR_INVALID;
    int first, n;
    const char *mod;
    category_range(cat_index, &first, &n, &mod);
    if (pvars) { /* only the stats category has pvars */
        n = first < 0 ? ibex_mpit_pvar_count() : 0;
        first = 0;
    }
    for (int i = 0; i < len && i < n; i++)
        indices[i] = first + i;
    return MPI_SUCCESS;
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    IBEX_ENTER_ANYTIME(T_category_get_cvars);
    IBEX_MPIT_READY();
    return category_members(cat_index, len, indices, false);
}

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    IBEX_ENTER_ANYTIME(T_category_get_pvars);
    IBEX_MPIT_READY();
    return category_members(cat_index, len, indices, true);
}

int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    IBEX_ENTER_ANYTIME(T_category_get_categories);
    IBEX_MPIT_READY();
    (void)indices; /* the categories are flat: none has sub-categories */
    if (cat_index < 0 || cat_index >= ibex_mpit_category_count())
        return MPI_T_ERR_INVALID_INDEX;
    return len < 0 ? MPI_T_ERR_INVALID : MPI_SUCCESS;
}

int PMPI_T_category_changed(int *update_number)
{
    IBEX_ENTER_ANYTIME(T_category_changed);
    IBEX_MPIT_READY();
    if (!update_number)
        return MPI_T_ERR_INVALID;
    *update_number = 0;
    return MPI_SUCCESS;
}

int PMPI_T_source_get_num(int *num_sources)
{
    IBEX_ENTER_ANYTIME(T_source_get_num);
    IBEX_MPIT_READY();
    if (!num_sources)
        return MPI_T_ERR_INVALID;
    *num_sources = 0;
    return MPI_SUCCESS;
}

int PMPI_T_event_get_num(int *num_events)
{
    IBEX_ENTER_ANYTIME(T_event_get_num);
    IBEX_MPIT_READY();
    if (!num_events)
        return MPI_T_ERR_INVALID;
    *num_events = 0;
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(mpit)
