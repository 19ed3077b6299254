/* SPDX-License-Identifier: BSD-3-Clause */
/* What the tools-interface files (mpit.c, mpit_cvar.c, mpit_pvar.c) share. */
#ifndef IBEX_MPIT_INTERNAL_H
#define IBEX_MPIT_INTERNAL_H

#include <mpi.h>

/* MPI_T_init_thread minus MPI_T_finalize calls: the interface is usable while positive. */
extern int ibex_mpit_refs;

/* Returns MPI_T_ERR_NOT_INITIALIZED from the calling function when the interface is not. */
#define IBEX_MPIT_READY()                                                                          \
    do {                                                                                           \
        if (ibex_mpit_refs <= 0)                                                                   \
            return MPI_T_ERR_NOT_INITIALIZED;                                                      \
    } while (0)

/* MPI_T's string rule: with a NULL buffer or *len 0, *len is set to the length the string
 * needs (with its NUL); otherwise at most *len - 1 characters and a NUL are written and *len
 * is set to what was written, NUL included. len may be NULL (nothing returned). */
void ibex_mpit_str(const char *src, char *buf, int *len);

/* Control variables: how many (the tunables registry's entries), and the enum of cvar i (an
 * IBEX_CFG_ENUM or log level one), or MPI_T_ENUM_NULL. */
int ibex_mpit_cvar_count(void);
MPI_T_enum ibex_mpit_cvar_enum(int i);
/* Builds / frees the cvar enums (at the first MPI_T_init_thread and the last MPI_T_finalize). */
int ibex_mpit_cvar_setup(void);
void ibex_mpit_cvar_teardown(void);
/* An enum named name of the '|'-separated items in choices (values 0..n-1), or NULL (no
 * memory); and its release. */
MPI_T_enum ibex_mpit_enum_new(const char *name, const char *choices);
void ibex_mpit_enum_free(MPI_T_enum e);
/* How many categories (mpit.c). */
int ibex_mpit_category_count(void);
/* Performance variables: how many. */
int ibex_mpit_pvar_count(void);
/* Builds the collective-algorithm enums (the first MPI_T_init_thread); frees every pvar
 * session and those enums (the last MPI_T_finalize). */
int ibex_mpit_pvar_setup(void);
void ibex_mpit_pvar_teardown(void);

#endif
