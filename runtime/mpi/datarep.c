/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Register_datarep / Register_datarep_c (MPI 4.1 section 14.5.3): a process-wide registry
 * of data representation names with their conversion and extent functions. A representation
 * names how MPI-IO stores data in a file (MPI_File_set_view's datarep); runtime/io takes only
 * the predefined ones in a view, so the registry is kept (names are unique, "native", "internal"
 * and "external32" are taken: MPI_ERR_DUP_DATAREP) but nothing calls the functions. Entries live as
 * long as the process (MPI has no call that removes one).
 */
#include <stdlib.h>
#include <string.h>

#include "ibex_err.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

typedef struct datarep {
    struct datarep *next;
    MPI_Datarep_conversion_function *read, *write;
    MPI_Datarep_conversion_function_c *read_c, *write_c;
    MPI_Datarep_extent_function *extent;
    void *extra_state;
    char name[MPI_MAX_DATAREP_STRING];
} datarep_t;

static datarep_t *dataregs; /* changed under the entry points' lock */

static bool taken(const char *name)
{
    static const char *const builtin[] = {"native", "internal", "external32"};
    for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
        if (strcmp(name, builtin[i]) == 0)
            return true;
    for (datarep_t *d = dataregs; d; d = d->next)
        if (strcmp(name, d->name) == 0)
            return true;
    return false;
}

static int datarep_check(ibex_entry_t *e, const char *datarep, MPI_Datarep_extent_function *ext)
{
    if (!datarep || !datarep[0])
        return ibex_mpi_error(NULL, MPI_ERR_ARG, e->call, "datarep is NULL or empty");
    if (strlen(datarep) >= MPI_MAX_DATAREP_STRING)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, e->call,
                              "datarep \"%.32s...\" is longer than MPI_MAX_DATAREP_STRING - 1 (%d)",
                              datarep, MPI_MAX_DATAREP_STRING - 1);
    if (!ext)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, e->call, "dtype_file_extent_fn is NULL");
    if (taken(datarep))
        return ibex_mpi_error(NULL, MPI_ERR_DUP_DATAREP, e->call,
                              "data representation \"%s\" is already defined", datarep);
    return MPI_SUCCESS;
}

static int datarep_add(ibex_entry_t *e, const char *datarep, const datarep_t *fns)
{
    datarep_t *d = malloc(sizeof(*d));
    if (!d)
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, e->call, "out of memory");
    *d = *fns;
    strcpy(d->name, datarep); /* checked shorter than the field */
    d->next = dataregs;
    dataregs = d;
    return MPI_SUCCESS;
}

int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    IBEX_ENTER(Register_datarep);
    IBEX_CHECK(datarep_check(&ibex_e, datarep, dtype_file_extent_fn));
    datarep_t fns = {.read = read_conversion_fn,
                     .write = write_conversion_fn,
                     .extent = dtype_file_extent_fn,
                     .extra_state = extra_state};
    return datarep_add(&ibex_e, datarep, &fns);
}

int PMPI_Register_datarep_c(const char *datarep,
                            MPI_Datarep_conversion_function_c *read_conversion_fn,
                            MPI_Datarep_conversion_function_c *write_conversion_fn,
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    IBEX_ENTER(Register_datarep_c);
    IBEX_CHECK(datarep_check(&ibex_e, datarep, dtype_file_extent_fn));
    datarep_t fns = {.read_c = read_conversion_fn,
                     .write_c = write_conversion_fn,
                     .extent = dtype_file_extent_fn,
                     .extra_state = extra_state};
    return datarep_add(&ibex_e, datarep, &fns);
}

/* The registry goes with the process (ASan's leak check runs after this). */
__attribute__((destructor)) static void datarep_free_all(void)
{
    while (dataregs) {
        datarep_t *d = dataregs;
        dataregs = d->next;
        free(d);
    }
}

IBEX_MPI_ALIASES(datarep)
