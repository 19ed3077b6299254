/* Attributes, written against MPI 4.1: callbacks at dup and free and their order, attribute
 * errors from callbacks, keyvals on communicators / types / windows, intercommunicators,
 * the predefined attributes, keyvals freed while attributes still use them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs, wrank, wsize;
#include "conf_check.h"

/* A log of callback events: 'c' copy, 'd' delete, with the keyval's tag. */
static char evlog[256];
static void ev(char kind, int tag)
{
    size_t n = strlen(evlog);
    if (n + 2 < sizeof evlog) {
        evlog[n] = kind;
        evlog[n + 1] = (char)('0' + tag);
        evlog[n + 2] = 0;
    }
}

static int copy_cb(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)c;
    (void)kv;
    ev('c', *(int *)extra);
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}
static int del_cb(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c;
    (void)kv;
    (void)val;
    ev('d', *(int *)extra);
    return MPI_SUCCESS;
}
static int fail_copy(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)kv, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_ERR_OTHER;
}
static int fail_del(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c, (void)kv, (void)val, (void)extra;
    return MPI_ERR_OTHER;
}

static int tags[4] = {1, 2, 3, 4};

static void comm_attrs(void)
{
    int kv[3], i, flag;
    void *v;
    MPI_Comm d, d2;
    for (i = 0; i < 3; i++)
        MPI_Comm_create_keyval(copy_cb, del_cb, &kv[i], &tags[i]);
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    for (i = 0; i < 3; i++)
        MPI_Comm_set_attr(d, kv[i], (void *)(size_t)(100 * (i + 1)));
    evlog[0] = 0;
    /* replacing an attribute calls its delete callback first */
    MPI_Comm_set_attr(d, kv[1], (void *)(size_t)200);
    CHECK(strcmp(evlog, "d2") == 0, "set over existing: log %s", evlog);
    evlog[0] = 0;
    MPI_Comm_dup(d, &d2);
    /* each copy callback once; order not fixed by MPI */
    CHECK(strlen(evlog) == 6 && strchr(evlog, '1') && strchr(evlog, '2') && strchr(evlog, '3'),
          "dup: log %s", evlog);
    for (i = 0; i < 3; i++) {
        MPI_Comm_get_attr(d2, kv[i], &v, &flag);
        CHECK(flag && v == (void *)(size_t)(100 * (i + 1) + 1), "dup value %d: %p", i, v);
    }
    evlog[0] = 0;
    MPI_Comm_delete_attr(d2, kv[0]);
    CHECK(strcmp(evlog, "d1") == 0, "delete_attr: log %s", evlog);
    MPI_Comm_get_attr(d2, kv[0], &v, &flag);
    CHECK(!flag, "deleted attr still there");
    /* freeing a keyval keeps attributes alive until their objects go */
    MPI_Comm_free_keyval(&kv[2]);
    CHECK(kv[2] == MPI_KEYVAL_INVALID, "free_keyval did not reset");
    evlog[0] = 0;
    MPI_Comm_free(&d2);
    CHECK(strlen(evlog) == 4 && strstr(evlog, "d2") && strstr(evlog, "d3"), "free: log %s", evlog);
    evlog[0] = 0;
    MPI_Comm_free(&d);
    CHECK(strlen(evlog) == 6, "free d: log %s", evlog);
    MPI_Comm_free_keyval(&kv[0]);
    MPI_Comm_free_keyval(&kv[1]);
}

/* attrorder: values set in any order come back by keyval. attrerr: a failing callback's error
 * reaches the caller of dup / delete. */
static void comm_attr_errors(void)
{
    int kv, kv2, rc, flag, cls, kvn;
    MPI_Comm d, d2;
    void *v;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    MPI_Comm_create_keyval(fail_copy, fail_del, &kv, NULL);
    MPI_Comm_set_attr(d, kv, (void *)1);
    rc = MPI_Comm_dup(d, &d2);
    CHECK(rc != MPI_SUCCESS, "dup with failing copy succeeded");
    rc = MPI_Comm_delete_attr(d, kv);
    CHECK(rc != MPI_SUCCESS, "delete with failing delete succeeded");
    /* NULL / DUP predefined callbacks */
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv2, NULL);
    MPI_Comm_set_attr(d, kv2, (void *)7);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kvn, NULL);
    MPI_Comm_set_attr(d, kvn, (void *)9);
    MPI_Comm_delete_attr(d, kv) == MPI_SUCCESS ? (void)0 : (void)0;
    /* take the failing one off by replacing its callbacks is impossible: free d through
     * errors-return and expect an error, then make a fresh dup for the rest */
    {
        MPI_Comm d3;
        int kv3;
        MPI_Comm_dup(MPI_COMM_WORLD, &d3);
        MPI_Comm_set_errhandler(d3, MPI_ERRORS_RETURN);
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv3, NULL);
        MPI_Comm_set_attr(d3, kv2, (void *)7);
        MPI_Comm_set_attr(d3, kvn, (void *)9);
        MPI_Comm_dup(d3, &d2);
        MPI_Comm_get_attr(d2, kv2, &v, &flag);
        CHECK(!flag, "NULL_COPY_FN copied");
        MPI_Comm_get_attr(d2, kvn, &v, &flag);
        CHECK(flag && v == (void *)9, "DUP_FN not copied");
        MPI_Comm_free(&d2);
        MPI_Comm_free(&d3);
        MPI_Comm_free_keyval(&kv3);
    }
    /* get_attr with an invalid keyval */
    {
        int bad = MPI_KEYVAL_INVALID;
        rc = MPI_Comm_get_attr(d, bad, &v, &flag);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_KEYVAL, "get_attr invalid keyval: class %d", cls);
    }
    MPI_Comm_free_keyval(&kv2);
    MPI_Comm_free_keyval(&kvn);
    MPI_Comm_free_keyval(&kv);
    /* d keeps the failing attribute: freeing it reports the delete callback's error */
    /* d keeps the failing attribute: it is left allocated (freeing it would report the delete
     * callback's error, which MPI leaves to the implementation's error handling) */
}

static void predefined(void)
{
    void *v;
    int flag, *ip;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
    ip = v;
    CHECK(flag && *ip >= 32767, "MPI_TAG_UB %d", flag ? *ip : -1);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag);
    ip = v;
    CHECK(flag && (*ip == MPI_PROC_NULL || (*ip >= 0 && *ip < wsize)), "MPI_HOST");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag);
    ip = v;
    CHECK(flag && (*ip == MPI_ANY_SOURCE || *ip == MPI_PROC_NULL || (*ip >= 0 && *ip < wsize)),
          "MPI_IO");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag);
    ip = v;
    CHECK(!flag || *ip == 0 || *ip == 1, "MPI_WTIME_IS_GLOBAL");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag);
    ip = v;
    CHECK(!flag || *ip == 0, "MPI_APPNUM %d", flag ? *ip : -1);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag);
    ip = v;
    CHECK(!flag || *ip >= wsize, "MPI_UNIVERSE_SIZE %d", flag ? *ip : -1);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
    ip = v;
    CHECK(flag && *ip >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d", flag ? *ip : -1);
    {
        int cls, code, last;
        MPI_Add_error_class(&cls);
        MPI_Add_error_code(cls, &code);
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
        last = *(int *)v;
        CHECK(flag && last >= code && last >= cls, "LASTUSEDCODE %d after code %d", last, code);
    }
    /* predefined attributes are on MPI_COMM_WORLD (and TAG_UB also on SELF in practice) */
    {
        int rc, cls;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, (void *)1);
        MPI_Error_class(rc, &cls);
        CHECK(rc != MPI_SUCCESS, "set TAG_UB succeeded");
        rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB);
        CHECK(rc != MPI_SUCCESS, "delete TAG_UB succeeded");
        {
            int k = MPI_TAG_UB;
            rc = MPI_Comm_free_keyval(&k);
            MPI_Error_class(rc, &cls);
            CHECK(rc != MPI_SUCCESS, "free of a predefined keyval succeeded");
        }
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    /* a dup carries the predefined attributes */
    {
        MPI_Comm d;
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        MPI_Comm_get_attr(d, MPI_TAG_UB, &v, &flag);
        CHECK(flag && *(int *)v >= 32767, "TAG_UB on dup");
        MPI_Comm_free(&d);
    }
}

static int tcopy(MPI_Datatype t, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)kv;
    ev('c', *(int *)extra);
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static int tdel(MPI_Datatype t, int kv, void *val, void *extra)
{
    (void)t, (void)kv, (void)val;
    ev('d', *(int *)extra);
    return MPI_SUCCESS;
}
static void type_attrs(void)
{
    int kv, flag;
    void *v;
    MPI_Datatype t, t2;
    MPI_Type_create_keyval(tcopy, tdel, &kv, &tags[0]);
    MPI_Type_contiguous(4, MPI_INT, &t);
    MPI_Type_set_attr(t, kv, (void *)55);
    evlog[0] = 0;
    MPI_Type_dup(t, &t2);
    CHECK(strcmp(evlog, "c1") == 0, "type dup log %s", evlog);
    MPI_Type_get_attr(t2, kv, &v, &flag);
    CHECK(flag && v == (void *)55, "type dup attr");
    evlog[0] = 0;
    MPI_Type_free(&t2);
    CHECK(strcmp(evlog, "d1") == 0, "type free log %s", evlog);
    evlog[0] = 0;
    MPI_Type_delete_attr(t, kv);
    CHECK(strcmp(evlog, "d1") == 0, "type delete log %s", evlog);
    MPI_Type_get_attr(t, kv, &v, &flag);
    CHECK(!flag, "type attr after delete");
    /* attributes on a predefined type */
    MPI_Type_set_attr(MPI_INT, kv, (void *)3);
    MPI_Type_get_attr(MPI_INT, kv, &v, &flag);
    CHECK(flag && v == (void *)3, "attr on MPI_INT");
    MPI_Type_delete_attr(MPI_INT, kv);
    MPI_Type_free(&t);
    MPI_Type_free_keyval(&kv);
}

static int wcopy(MPI_Win w, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)w, (void)kv, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}
static int wdel(MPI_Win w, int kv, void *val, void *extra)
{
    (void)w, (void)kv, (void)val;
    ev('d', *(int *)extra);
    return MPI_SUCCESS;
}
static void win_attrs(void)
{
    int kv, flag, buf[4];
    void *v;
    MPI_Win w;
    MPI_Win_create_keyval(wcopy, wdel, &kv, &tags[3]);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    MPI_Win_set_attr(w, kv, (void *)11);
    MPI_Win_get_attr(w, kv, &v, &flag);
    CHECK(flag && v == (void *)11, "win attr");
    MPI_Win_get_attr(w, MPI_WIN_BASE, &v, &flag);
    CHECK(flag && v == buf, "WIN_BASE");
    MPI_Win_get_attr(w, MPI_WIN_SIZE, &v, &flag);
    CHECK(flag && *(MPI_Aint *)v == sizeof buf, "WIN_SIZE");
    MPI_Win_get_attr(w, MPI_WIN_DISP_UNIT, &v, &flag);
    CHECK(flag && *(int *)v == sizeof(int), "WIN_DISP_UNIT");
    MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &v, &flag);
    CHECK(flag && *(int *)v == MPI_WIN_FLAVOR_CREATE, "WIN_CREATE_FLAVOR");
    MPI_Win_get_attr(w, MPI_WIN_MODEL, &v, &flag);
    CHECK(flag && (*(int *)v == MPI_WIN_SEPARATE || *(int *)v == MPI_WIN_UNIFIED), "WIN_MODEL");
    evlog[0] = 0;
    MPI_Win_free(&w);
    CHECK(strcmp(evlog, "d4") == 0, "win free log %s", evlog);
    MPI_Win_free_keyval(&kv);
}

/* A keyval freed while an attribute uses it (MPI 4.1 section 7.7.2: the free takes effect when
 * the last attribute goes): the attribute is still copied by dup with the keyval's callbacks,
 * which are given the keyval the program created; keyvals made meanwhile are other keyvals, so
 * a copy of the freed handle still names the attribute and deletes it. */
static int kv_seen;
static int inuse_copy(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)extra;
    kv_seen = kv;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static int inuse_del(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c, (void)val, (void)extra;
    kv_seen = kv;
    ++*(int *)extra;
    return MPI_SUCCESS;
}
static int tinuse_del(MPI_Datatype t, int kv, void *val, void *extra)
{
    (void)t, (void)val;
    kv_seen = kv;
    ++*(int *)extra;
    return MPI_SUCCESS;
}
static void keyval_in_use(void)
{
    enum { NEW = 8 };
    int kv, saved, fresh[NEW], dels = 0, flag, i;
    void *v;
    MPI_Comm c, d;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_create_keyval(inuse_copy, inuse_del, &kv, &dels);
    saved = kv;
    MPI_Comm_set_attr(c, kv, (void *)21);
    MPI_Comm_free_keyval(&kv);
    CHECK(kv == MPI_KEYVAL_INVALID, "free_keyval leaves %d", kv);
    for (i = 0; i < NEW; i++) {
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &fresh[i], NULL);
        CHECK(fresh[i] != saved, "a new keyval takes the handle of one still in use");
    }
    kv_seen = -1;
    MPI_Comm_dup(c, &d);
    CHECK(kv_seen == saved, "copy callback given keyval %d, not %d", kv_seen, saved);
    MPI_Comm_get_attr(d, saved, &v, &flag);
    CHECK(flag && v == (void *)21, "attribute of a freed keyval not copied by dup");
    MPI_Comm_free(&d);
    CHECK(dels == 1 && kv_seen == saved, "delete at free of the dup: %d, keyval %d", dels, kv_seen);
    MPI_Comm_delete_attr(c, saved); /* a copy of the handle still names it */
    CHECK(dels == 2, "delete_attr through the freed keyval's handle: %d deletes", dels);
    /* that was the last attribute: the keyval is gone now, and its handle with it */
    for (i = 0; i < NEW; i++)
        MPI_Comm_free_keyval(&fresh[i]);
    MPI_Comm_free(&c);
    /* the same for a datatype keyval */
    MPI_Datatype t;
    int tkv, tsaved, tfresh, tdels = 0;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, tinuse_del, &tkv, &tdels);
    tsaved = tkv;
    MPI_Type_set_attr(t, tkv, (void *)5);
    MPI_Type_free_keyval(&tkv);
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tfresh, NULL);
    CHECK(tfresh != tsaved, "a new type keyval takes the handle of one still in use");
    kv_seen = -1;
    MPI_Type_free(&t);
    CHECK(tdels == 1 && kv_seen == tsaved, "type delete: %d, keyval %d", tdels, kv_seen);
    MPI_Type_free_keyval(&tfresh);
}

/* attric: attributes on an intercommunicator are copied by its dup */
static void inter_attrs(void)
{
    MPI_Comm local, ic, d;
    int kv, flag;
    void *v;
    if (wsize < 2)
        return;
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, wrank % 2 ? 0 : 1, 9, &ic);
    MPI_Comm_create_keyval(copy_cb, del_cb, &kv, &tags[0]);
    MPI_Comm_set_attr(ic, kv, (void *)40);
    evlog[0] = 0;
    MPI_Comm_dup(ic, &d);
    CHECK(strcmp(evlog, "c1") == 0, "inter dup log %s", evlog);
    MPI_Comm_get_attr(d, kv, &v, &flag);
    CHECK(flag && v == (void *)41, "inter dup attr");
    MPI_Comm_get_attr(ic, MPI_TAG_UB, &v, &flag);
    CHECK(flag && *(int *)v >= 32767, "TAG_UB on inter");
    MPI_Comm_free(&d);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    MPI_Comm_free_keyval(&kv);
}

/* Attributes on MPI_COMM_SELF are deleted first in MPI_Finalize (MPI 4.1 11.2.4), in reverse
 * order of setting (LIFO), before anything else is torn down. */
static int fin_order[3], fin_n;
static int fin_del(MPI_Comm c, int kv, void *val, void *extra)
{
    int fl;
    (void)c, (void)kv, (void)extra;
    if (fin_n < 3)
        fin_order[fin_n++] = (int)(size_t)val;
    MPI_Finalized(&fl);
    if (fl)
        fin_order[0] = -99;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int tot, kvs[3], i;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    comm_attrs();
    comm_attr_errors();
    predefined();
    type_attrs();
    win_attrs();
    inter_attrs();
    keyval_in_use();
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (i = 0; i < 3; i++) {
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, fin_del, &kvs[i], NULL);
        MPI_Comm_set_attr(MPI_COMM_SELF, kvs[i], (void *)(size_t)(i + 1));
    }
    MPI_Finalize();
    if (!(fin_n == 3 && fin_order[0] == 3 && fin_order[1] == 2 && fin_order[2] == 1)) {
        fprintf(stderr, "[%d] COMM_SELF attributes at finalize: n %d order %d %d %d\n", wrank,
                fin_n, fin_order[0], fin_order[1], fin_order[2]);
        return 1;
    }
    if (wrank == 0 && tot == 0)
        printf("conf_attr: ok\n");
    return tot != 0;
}
