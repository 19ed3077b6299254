/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicator attributes: copy callbacks on MPI_Comm_dup (in set order, extra_state passed,
 * flag false not copying, MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN), delete callbacks on
 * MPI_Comm_free / MPI_Comm_delete_attr / set over a value / MPI_Finalize on MPI_COMM_SELF, a
 * keyval freed while attributes use it, the predefined attributes, and the error classes.
 */
#include "mpitest.h"

#define MAXLOG 64
static char log_[MAXLOG][48];
static int nlog;
static int extra_a = 11, extra_b = 22;

static void logf_(const char *what, int keyval, void *val, void *extra)
{
    CHECK(nlog < MAXLOG);
    snprintf(log_[nlog++], sizeof(log_[0]), "%s %d %ld %d", what, keyval, (long)(intptr_t)val,
             *(int *)extra);
}

static int kv_a, kv_b, kv_c, kv_nocopy;

static int keyno(int kv)
{
    return kv == kv_a ? 1 : kv == kv_b ? 2 : kv == kv_c ? 3 : kv == kv_nocopy ? 4 : 0;
}

static int copy_fn(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old;
    logf_("copy", keyno(keyval), in, extra);
    *(void **)out = (void *)((intptr_t)in + 100);
    *flag = 1;
    return MPI_SUCCESS;
}

static int nocopy_fn(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old;
    (void)out;
    logf_("nocopy", keyno(keyval), in, extra);
    *flag = 0;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    logf_("delete", keyno(keyval), val, extra);
    return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)keyval, (void)extra, (void)in, (void)out, (void)flag;
    return MPI_ERR_OTHER;
}

static int failing_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)val, (void)extra;
    return MPI_ERR_OTHER;
}

static void expect_log(const char *const *want, int n)
{
    if (nlog != n) {
        for (int i = 0; i < nlog; i++)
            fprintf(stderr, "log[%d] = %s\n", i, log_[i]);
    }
    CHECK(nlog == n);
    for (int i = 0; i < n; i++) {
        if (strcmp(log_[i], want[i]) != 0)
            fprintf(stderr, "log[%d] = '%s', want '%s'\n", i, log_[i], want[i]);
        CHECK(strcmp(log_[i], want[i]) == 0);
    }
    nlog = 0;
}

static void *get(MPI_Comm comm, int kv, int *flag)
{
    void *v = NULL;
    CHECK_RC(MPI_Comm_get_attr(comm, kv, &v, flag));
    return v;
}

static void test_callbacks(void)
{
    int flag;
    CHECK_RC(MPI_Comm_create_keyval(copy_fn, delete_fn, &kv_a, &extra_a));
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, delete_fn, &kv_b, &extra_b));
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv_c, NULL));
    CHECK_RC(MPI_Comm_create_keyval(nocopy_fn, delete_fn, &kv_nocopy, &extra_a));
    CHECK(kv_a != kv_b && kv_a != MPI_KEYVAL_INVALID);

    MPI_Comm comm;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    get(comm, kv_a, &flag);
    CHECK(!flag);
    /* Set order b, a, nocopy, c: copies follow it, deletes go backwards. */
    CHECK_RC(MPI_Comm_set_attr(comm, kv_b, (void *)2));
    CHECK_RC(MPI_Comm_set_attr(comm, kv_a, (void *)1));
    CHECK_RC(MPI_Comm_set_attr(comm, kv_nocopy, (void *)4));
    CHECK_RC(MPI_Comm_set_attr(comm, kv_c, (void *)3));
    CHECK(nlog == 0);
    CHECK(get(comm, kv_a, &flag) == (void *)1 && flag);
    CHECK(get(comm, kv_c, &flag) == (void *)3 && flag);

    /* Set over a value: the old value's delete callback first. */
    CHECK_RC(MPI_Comm_set_attr(comm, kv_a, (void *)5));
    const char *w1[] = {"delete 1 1 11"};
    expect_log(w1, 1);
    CHECK(get(comm, kv_a, &flag) == (void *)5 && flag);

    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(comm, &dup));
    const char *w2[] = {"copy 1 5 11", "nocopy 4 4 11"};
    expect_log(w2, 2);
    CHECK(get(dup, kv_a, &flag) == (void *)105 && flag);
    CHECK(get(dup, kv_b, &flag) == (void *)2 && flag);
    get(dup, kv_c, &flag);
    CHECK(!flag);
    get(dup, kv_nocopy, &flag);
    CHECK(!flag);
    /* The dup's attributes are its own. */
    CHECK_RC(MPI_Comm_set_attr(dup, kv_c, (void *)33));
    get(comm, kv_c, &flag);
    CHECK(flag && get(comm, kv_c, &flag) == (void *)3);

    /* Delete_attr: the callback with the value and extra_state; then absent. */
    CHECK_RC(MPI_Comm_delete_attr(comm, kv_nocopy));
    const char *w3[] = {"delete 4 4 11"};
    expect_log(w3, 1);
    get(comm, kv_nocopy, &flag);
    CHECK(!flag);

    /* A keyval freed while attributes use it: the handle is gone, the callbacks still run. */
    int freed = kv_a;
    CHECK_RC(MPI_Comm_free_keyval(&kv_a));
    CHECK(kv_a == MPI_KEYVAL_INVALID);
    kv_a = freed; /* for keyno() in the log only */
    MPI_Comm dup2;
    CHECK_RC(MPI_Comm_dup(comm, &dup2));
    const char *w4[] = {"copy 1 5 11"};
    expect_log(w4, 1);

    /* Free: the last set first. comm has b, a, c (c: null delete). */
    CHECK_RC(MPI_Comm_free(&comm));
    const char *w5[] = {"delete 1 5 11", "delete 2 2 22"};
    expect_log(w5, 2);
    CHECK_RC(MPI_Comm_free(&dup)); /* b (dup fn), a (copied), c (null delete) */
    const char *w6[] = {"delete 1 105 11", "delete 2 2 22"};
    expect_log(w6, 2);
    CHECK_RC(MPI_Comm_free(&dup2));
    const char *w7[] = {"delete 1 105 11", "delete 2 2 22"};
    expect_log(w7, 2);

    CHECK_RC(MPI_Comm_free_keyval(&kv_b));
    CHECK_RC(MPI_Comm_free_keyval(&kv_c));
    CHECK_RC(MPI_Comm_free_keyval(&kv_nocopy));
    kv_a = kv_b = kv_c = kv_nocopy = MPI_KEYVAL_INVALID;
}

static void test_predefined(void)
{
    int flag, size, *v;
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
    CHECK(flag && *v >= 32767);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
    CHECK(!flag || *v >= size);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag));
    CHECK(!flag || *v == 0);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag));
    CHECK(!flag || *v == 0 || *v == 1);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    CHECK(flag && *v >= MPI_ERR_LASTCODE);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag));
    CHECK(flag);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag));
    CHECK(flag);
}

static void test_errors(void)
{
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int cls, flag, kv;
    void *v;
#define EXPECT(call, want)                                                                         \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        CHECK(rc_ != MPI_SUCCESS);                                                                 \
        MPI_Error_class(rc_, &cls);                                                                \
        CHECK(cls == (want));                                                                      \
    } while (0)
    EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB), MPI_ERR_KEYVAL);
    kv = MPI_TAG_UB;
    EXPECT(MPI_Comm_free_keyval(&kv), MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag), MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, 12345, NULL), MPI_ERR_KEYVAL);
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL));
    int old = kv;
    CHECK_RC(MPI_Comm_free_keyval(&kv));
    EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, old, NULL), MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, old, &v, &flag), MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_free_keyval(&old), MPI_ERR_KEYVAL);

    /* A failing copy callback fails the dup; a failing delete callback fails the call. */
    CHECK_RC(MPI_Comm_create_keyval(failing_copy, failing_delete, &kv, NULL));
    MPI_Comm comm, dup = MPI_COMM_WORLD;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_SELF, &comm));
    CHECK_RC(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_attr(comm, kv, (void *)1));
    EXPECT(MPI_Comm_dup(comm, &dup), MPI_ERR_OTHER);
    CHECK(dup == MPI_COMM_NULL);
    EXPECT(MPI_Comm_delete_attr(comm, kv), MPI_ERR_OTHER);
    CHECK(get(comm, kv, &flag) == (void *)1 && flag);
    CHECK_RC(MPI_Comm_free_keyval(&kv));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    /* comm keeps the failing attribute: MPI_Comm_free would fail, so it stays until the end. */
}

static int self_deleted;
static int self_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    CHECK(self_deleted == (int)(intptr_t)val); /* 1 after 0: the last set first */
    self_deleted++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    test_callbacks();
    test_predefined();
    test_errors();
    /* MPI_Finalize deletes MPI_COMM_SELF's attributes first, the last set first. */
    int k1, k2;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &k1, NULL));
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &k2, NULL));
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, k1, (void *)1));
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, k2, (void *)0));
    CHECK_RC(MPI_Comm_free_keyval(&k1));
    mt_done("attr_basic");
    CHECK_RC(MPI_Finalize());
    if (self_deleted != 2) {
        fprintf(stderr, "FAIL: MPI_COMM_SELF's delete callbacks ran %d times\n", self_deleted);
        return 1;
    }
    return 0;
}
