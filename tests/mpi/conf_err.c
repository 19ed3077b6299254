/* User error classes, codes and strings, written against MPI 4.1: Add_error_class / code /
 * string, Error_string and Error_class of user codes, MPI_LASTUSEDCODE, Remove_error_*,
 * error handlers calling back with user codes; MPI_ERR_DUP_DATAREP of MPI_Register_datarep. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs, wrank;
#include "conf_check.h"

static int last_code;
static void comm_handler(MPI_Comm *c, int *code, ...)
{
    (void)c;
    last_code = *code;
}

static int ext_fn(MPI_Datatype t, MPI_Aint *extent, void *extra)
{
    (void)extra;
    MPI_Aint lb;
    return MPI_Type_get_extent(t, &lb, extent);
}

/* MPI_Register_datarep: a name is defined once; the predefined ones are taken. */
static void datareps(void)
{
    int rc, cls;
    rc = MPI_Register_datarep("conf_err_rep", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                              ext_fn, NULL);
    CHECK(rc == MPI_SUCCESS, "register a new datarep: %d", rc);
    rc = MPI_Register_datarep("conf_err_rep", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                              ext_fn, NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_DUP_DATAREP, "register twice: class %d", cls);
    rc = MPI_Register_datarep("external32", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, ext_fn,
                              NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_DUP_DATAREP, "register external32: class %d", cls);
}

static int lastused(void)
{
    void *v;
    int flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
    return flag ? *(int *)v : -1;
}

int main(int argc, char **argv)
{
    int cls[3], code[6], i, c, len, tot, rc;
    char s[MPI_MAX_ERROR_STRING], want[64];
    MPI_Errhandler eh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    for (i = 0; i < 3; i++) {
        MPI_Add_error_class(&cls[i]);
        CHECK(cls[i] > MPI_ERR_LASTCODE, "class %d not above LASTCODE", cls[i]);
        CHECK(lastused() >= cls[i], "LASTUSEDCODE %d below class %d", lastused(), cls[i]);
        snprintf(want, sizeof want, "user class %d", i);
        MPI_Add_error_string(cls[i], want);
    }
    for (i = 0; i < 6; i++) {
        MPI_Add_error_code(cls[i % 3], &code[i]);
        CHECK(code[i] > MPI_ERR_LASTCODE, "code %d", code[i]);
        CHECK(lastused() >= code[i], "LASTUSEDCODE %d below code %d", lastused(), code[i]);
        MPI_Error_class(code[i], &c);
        CHECK(c == cls[i % 3], "class of code %d is %d want %d", code[i], c, cls[i % 3]);
    }
    /* a code without its own string: its class's string or empty, per implementation; a code
     * with one: that string */
    snprintf(want, sizeof want, "code four");
    MPI_Add_error_string(code[4], want);
    MPI_Error_string(code[4], s, &len);
    CHECK(strcmp(s, want) == 0 && len == (int)strlen(want), "string of code 4: %s", s);
    MPI_Error_string(cls[1], s, &len);
    CHECK(strcmp(s, "user class 1") == 0, "string of class 1: %s", s);
    /* strings can be replaced */
    MPI_Add_error_string(cls[1], "renamed");
    MPI_Error_string(cls[1], s, &len);
    CHECK(strcmp(s, "renamed") == 0, "replaced string %s", s);
    /* a predefined class's string cannot be changed */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    datareps();
    rc = MPI_Add_error_string(MPI_ERR_ARG, "x");
    CHECK(rc != MPI_SUCCESS, "Add_error_string on MPI_ERR_ARG succeeded");
    rc = MPI_Add_error_code(MPI_ERR_LASTCODE + 100000, &c);
    CHECK(rc != MPI_SUCCESS, "Add_error_code to an unknown class succeeded");
    /* a user handler gets the user code through MPI_Comm_call_errhandler */
    MPI_Comm_create_errhandler(comm_handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, code[2]);
    CHECK(last_code == code[2], "handler got %d", last_code);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    /* MPI_ERRORS_RETURN: call_errhandler returns MPI_SUCCESS */
    rc = MPI_Comm_call_errhandler(MPI_COMM_WORLD, code[0]);
    CHECK(rc == MPI_SUCCESS, "call_errhandler with ERRORS_RETURN gave %d", rc);
    /* predefined strings */
    MPI_Error_string(MPI_SUCCESS, s, &len);
    CHECK(len > 0 && len < MPI_MAX_ERROR_STRING, "string of MPI_SUCCESS");
    MPI_Error_class(MPI_ERR_TRUNCATE, &c);
    CHECK(c == MPI_ERR_TRUNCATE, "class of a class");
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    /* 4.1: remove codes before their class; a class with codes cannot go */
    rc = MPI_Remove_error_class(cls[0]);
    CHECK(rc != MPI_SUCCESS, "removed a class that has codes");
    MPI_Remove_error_string(code[4]);
    MPI_Remove_error_code(code[0]);
    MPI_Remove_error_code(code[3]);
    rc = MPI_Remove_error_class(cls[0]);
    CHECK(rc == MPI_SUCCESS, "remove class 0 gave %d", rc);
    rc = MPI_Remove_error_code(MPI_ERR_ARG);
    CHECK(rc != MPI_SUCCESS, "removed a predefined code");
    rc = MPI_Remove_error_class(MPI_ERR_ARG);
    CHECK(rc != MPI_SUCCESS, "removed a predefined class");
    rc = MPI_Remove_error_string(MPI_ERR_ARG);
    CHECK(rc != MPI_SUCCESS, "removed a predefined string");
#endif
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0 && tot == 0)
        printf("conf_err: ok\n");
    MPI_Finalize();
    return tot != 0;
}
