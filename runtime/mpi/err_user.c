/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * User error classes, codes and strings (MPI 4.1 section 9.5): MPI_Add_error_class,
 * Add_error_code, Add_error_string and the MPI 4.1 Remove_error_class / code / string.
 *
 * New classes and codes are numbered from MPI_ERR_LASTCODE + 1 up, in one table: a class is
 * its own class, a code names its class. MPI_LASTUSEDCODE (attr.c) is the largest number in
 * use. Removed numbers are not given out again (a program may still hold them). A class with
 * codes still attached, a predefined class or code, and a number never added are MPI_ERR_ARG
 * for the Remove calls; Add_error_string on a predefined code too. MPI_Error_string of a user
 * number without a string is the empty string, as the standard says.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_err.h"
#include "ibex_err_internal.h"
#include "ibex_entry.h"

typedef struct user_err {
    bool used;
    bool is_class;
    int cls;
    int ncodes; /* a class: the codes attached to it */
    char *string;
} user_err_t;

static user_err_t *user; /* user[i] is number MPI_ERR_LASTCODE + 1 + i */
static int nuser, capuser;

static user_err_t *user_at(int code)
{
    int i = code - MPI_ERR_LASTCODE - 1;
    return i >= 0 && i < nuser && user[i].used ? &user[i] : NULL;
}

int ibex_err_user_class(int code)
{
    user_err_t *u = user_at(code);
    return u ? u->cls : -1;
}

const char *ibex_err_user_string(int code)
{
    user_err_t *u = user_at(code);
    return u ? (u->string ? u->string : "") : NULL;
}

int ibex_err_last_used(void)
{
    int last = MPI_ERR_LASTCODE;
    for (int i = 0; i < nuser; i++)
        if (user[i].used)
            last = MPI_ERR_LASTCODE + 1 + i;
    return last;
}

static int user_add(const char *call, bool is_class, int cls, int *out)
{
    if (nuser == capuser) {
        int cap = capuser ? 2 * capuser : 16;
        user_err_t *n = realloc(user, (size_t)cap * sizeof(*n));
        if (!n)
            return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory for an error code");
        user = n;
        capuser = cap;
    }
    int code = MPI_ERR_LASTCODE + 1 + nuser;
    if (!is_class && user_at(cls))
        user_at(cls)->ncodes++;
    user[nuser++] = (user_err_t){true, is_class, is_class ? code : cls, 0, NULL};
    *out = code;
    return MPI_SUCCESS;
}

int PMPI_Add_error_class(int *errorclass)
{
    IBEX_ENTER(Add_error_class);
    IBEX_ARGS(Add_error_class, errorclass);
    return user_add(call, true, 0, errorclass);
}

static bool is_class(int cls)
{
    user_err_t *u = user_at(cls);
    return (cls >= MPI_SUCCESS && cls <= MPI_ERR_LASTCODE) || (u && u->is_class);
}

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    IBEX_ENTER(Add_error_code);
    IBEX_ARGS(Add_error_code, errorcode);
    if (!is_class(errorclass) || errorclass == MPI_SUCCESS)
        return IBEX_ERROR(MPI_ERR_ARG, "%d is not an error class", errorclass);
    return user_add(call, false, errorclass, errorcode);
}

int PMPI_Add_error_string(int errorcode, const char *string)
{
    IBEX_ENTER(Add_error_string);
    IBEX_ARGS(Add_error_string, string);
    user_err_t *u = user_at(errorcode);
    if (!u)
        return IBEX_ERROR(MPI_ERR_ARG, "%d is not a class or code added by the program", errorcode);
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return IBEX_ERROR(MPI_ERR_ARG, "the string is longer than MPI_MAX_ERROR_STRING - 1 (%d)",
                          MPI_MAX_ERROR_STRING - 1);
    char *copy = strdup(string);
    if (!copy)
        return IBEX_ERROR(MPI_ERR_NO_MEM, "out of memory for an error string");
    free(u->string);
    u->string = copy;
    return MPI_SUCCESS;
}

/* A user number of the wanted kind, or NULL after raising MPI_ERR_ARG. */
static user_err_t *removable(const char *call, int number, bool want_class)
{
    user_err_t *u = user_at(number);
    if (!u || u->is_class != want_class) {
        ibex_mpi_error(NULL, MPI_ERR_ARG, call, "%d is not an error %s added by the program",
                       number, want_class ? "class" : "code");
        return NULL;
    }
    return u;
}

int PMPI_Remove_error_class(int errorclass)
{
    IBEX_ENTER(Remove_error_class);
    user_err_t *u = removable(call, errorclass, true);
    if (!u)
        return MPI_ERR_ARG;
    if (u->ncodes > 0) /* counted: a scan of every number ever added would grow without end */
        return IBEX_ERROR(MPI_ERR_ARG, "class %d still has %d code%s", errorclass, u->ncodes,
                          u->ncodes == 1 ? "" : "s");
    free(u->string);
    *u = (user_err_t){0};
    return MPI_SUCCESS;
}

int PMPI_Remove_error_code(int errorcode)
{
    IBEX_ENTER(Remove_error_code);
    user_err_t *u = removable(call, errorcode, false);
    if (!u)
        return MPI_ERR_ARG;
    if (user_at(u->cls))
        user_at(u->cls)->ncodes--;
    free(u->string);
    *u = (user_err_t){0};
    return MPI_SUCCESS;
}

int PMPI_Remove_error_string(int errorcode)
{
    IBEX_ENTER(Remove_error_string);
    user_err_t *u = user_at(errorcode);
    if (!u || !u->string)
        return IBEX_ERROR(MPI_ERR_ARG, "error %d has no string added by the program", errorcode);
    free(u->string);
    u->string = NULL;
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(err_user)
