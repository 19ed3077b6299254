/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Window attributes with user keyvals (MPI 4.1 section 7.7.3): set / get / delete, the delete
 * callback on replacement, on delete and at MPI_Win_free (the last set first), extra_state, a
 * failing callback failing MPI_Win_delete_attr, a keyval freed while an attribute still uses
 * it, and MPI_ERR_KEYVAL for a communicator keyval or a predefined window attribute set by the
 * program. Passes under MPICH 4.0 too.
 */
#include "mpitest.h"

static int deleted[8], ndeleted, order[8];

static int del_fn(MPI_Win win, int keyval, void *value, void *extra)
{
    (void)win;
    (void)keyval;
    CHECK(*(int *)extra == 42);
    int v = (int)(intptr_t)value;
    CHECK(v >= 0 && v < 8);
    deleted[v]++;
    order[ndeleted++ % 8] = v;
    return MPI_SUCCESS;
}

static int fail_now = 1;

static int failing_del(MPI_Win win, int keyval, void *value, void *extra)
{
    (void)win, (void)keyval, (void)value, (void)extra;
    return fail_now ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int copy_never(MPI_Win w, int k, void *e, void *in, void *out, int *flag)
{
    (void)w, (void)k, (void)e, (void)in, (void)out, (void)flag;
    CHECK(0); /* windows are never duplicated */
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int extra = 42, k1, k2, kfail, ckey, flag, cls = -1;
    long *base, *b2;
    void *v;
    MPI_Win win, win2;
    CHECK_RC(MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CHECK_RC(MPI_Win_create_keyval(copy_never, del_fn, &k1, &extra));
    CHECK_RC(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &k2, &extra));
    CHECK_RC(MPI_Win_create_keyval(MPI_WIN_DUP_FN, failing_del, &kfail, NULL));
    CHECK_RC(MPI_Win_get_attr(win, k1, &v, &flag));
    CHECK(!flag);
    CHECK_RC(MPI_Win_set_attr(win, k1, (void *)(intptr_t)1));
    CHECK_RC(MPI_Win_get_attr(win, k1, &v, &flag));
    CHECK(flag && v == (void *)(intptr_t)1);
    CHECK_RC(MPI_Win_set_attr(win, k1, (void *)(intptr_t)2)); /* deletes value 1 */
    CHECK(deleted[1] == 1 && deleted[2] == 0);
    CHECK_RC(MPI_Win_delete_attr(win, k1));
    CHECK(deleted[2] == 1);
    CHECK_RC(MPI_Win_get_attr(win, k1, &v, &flag));
    CHECK(!flag);
    CHECK_RC(MPI_Win_delete_attr(win, k1)); /* nothing set: no callback */
    CHECK(ndeleted == 2);
    /* a failing delete callback fails the call and the attribute stays */
    CHECK_RC(MPI_Win_set_attr(win, kfail, (void *)(intptr_t)7));
    CHECK(MPI_Win_delete_attr(win, kfail) != MPI_SUCCESS);
    CHECK_RC(MPI_Win_get_attr(win, kfail, &v, &flag));
    CHECK(flag && v == (void *)(intptr_t)7);
    /* predefined attributes still answer; the program may not set them */
    CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_BASE, &v, &flag));
    CHECK(flag && v == base);
    MPI_Error_class(MPI_Win_set_attr(win, MPI_WIN_BASE, NULL), &cls);
    CHECK(cls == MPI_ERR_KEYVAL);
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ckey, NULL));
    MPI_Error_class(MPI_Win_get_attr(win, ckey, &v, &flag), &cls);
    CHECK(cls == MPI_ERR_KEYVAL);
    MPI_Comm_free_keyval(&ckey);
    /* attributes are per window */
    CHECK_RC(MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &b2, &win2));
    CHECK_RC(MPI_Win_set_attr(win2, k2, (void *)(intptr_t)5));
    CHECK_RC(MPI_Win_get_attr(win, k2, &v, &flag));
    CHECK(!flag);
    CHECK_RC(MPI_Win_free(&win2));
    CHECK(ndeleted == 3 && order[2] == 5);
    /* (a callback failing in Win_free makes it erroneous: not tested) */
    fail_now = 0;
    CHECK_RC(MPI_Win_free_keyval(&kfail)); /* freed while in use: the attribute keeps it */
    CHECK(kfail == MPI_KEYVAL_INVALID);
    /* k2 then k1 set (k1's handle freed while in use): Win_free deletes k1's value first */
    CHECK_RC(MPI_Win_set_attr(win, k2, (void *)(intptr_t)3));
    CHECK_RC(MPI_Win_set_attr(win, k1, (void *)(intptr_t)4));
    CHECK_RC(MPI_Win_free_keyval(&k1));
    CHECK_RC(MPI_Win_free(&win));
    CHECK(ndeleted == 5 && order[3] == 4 && order[4] == 3);
    CHECK_RC(MPI_Win_free_keyval(&k2));
    mt_done("win_attr");
    MPI_Finalize();
    return 0;
}
