/* SPDX-License-Identifier: BSD-3-Clause */
/* The rest of the API against the MPI standard. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CHECK_RANK rank
#include "std_check.h"
static int rank, size;
static char order[64];
static int nord = 0;
struct ex {
    int flag;
    char mark;
};
static int copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c;
    (void)k;
    order[nord++] = 'c';
    *(void **)out = (char *)in + 1;
    *flag = ((struct ex *)extra)->flag;
    return MPI_SUCCESS;
}
static int del_fn(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c;
    (void)k;
    (void)val;
    order[nord++] = ((struct ex *)extra)->mark;
    return MPI_SUCCESS;
}
static void attrs(void)
{
    int k1, k2;
    static struct ex A = {1, 'A'}, B = {0, 'B'}, Z = {0, 'Z'};
    MPI_Comm_create_keyval(copy_fn, del_fn, &k1, &A);
    MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &k2, &Z);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    static char buf[8];
    MPI_Comm_set_attr(c, k1, buf);
    MPI_Comm_set_attr(c, k2, buf);
    MPI_Comm d;
    nord = 0;
    MPI_Comm_dup(c, &d);
    CHECK(nord == 2, "copy called %d", nord);
    void *v;
    int f;
    MPI_Comm_get_attr(d, k1, &v, &f);
    CHECK(f && v == buf + 1, "copied value");
    MPI_Comm_get_attr(d, k2, &v, &f);
    CHECK(!f, "flag 0 not copied");
    int k3;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_fn, &k3, &B);
    MPI_Comm_set_attr(d, k3, buf);
    nord = 0;
    MPI_Comm_set_attr(d, k3, buf + 2);
    CHECK(nord == 1 && order[0] == 'B', "delete on overwrite");
    nord = 0;
    MPI_Comm_delete_attr(d, k3);
    CHECK(nord == 1, "delete_attr");
    MPI_Comm_get_attr(d, k3, &v, &f);
    CHECK(!f, "deleted");
    MPI_Comm_free_keyval(&k1);
    CHECK(k1 == MPI_KEYVAL_INVALID, "free keyval");
    nord = 0;
    MPI_Comm_free(&d);
    CHECK(nord == 1 && order[0] == 'A', "delete at free %d %c", nord, order[0]);
    MPI_Comm_free(&c);
    MPI_Comm_free_keyval(&k2);
    MPI_Comm_free_keyval(&k3);
    /* predefined */
    int *tag_ub, *lastused;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &f);
    CHECK(f && *tag_ub >= 32767, "tag_ub");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &f);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &f);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &f);
    int ec, cls, code;
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    MPI_Add_error_string(code, "check: my code");
    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(code, s, &len);
    CHECK(!strcmp(s, "check: my code"), "error string '%s'", s);
    MPI_Error_class(code, &ec);
    CHECK(ec == cls, "error class of code");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &f);
    CHECK(f && *lastused >= cls, "lastusedcode %d class %d code %d", f ? *lastused : -1, cls, code);
    /* type and win keyvals */
    int tk;
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &tk, NULL);
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_set_attr(t, tk, buf);
    MPI_Datatype t2;
    MPI_Type_dup(t, &t2);
    MPI_Type_get_attr(t2, tk, &v, &f);
    CHECK(f && v == buf, "type dup attr");
    MPI_Type_free(&t);
    MPI_Type_free(&t2);
    MPI_Type_free_keyval(&tk);
}
static void info(void)
{
    MPI_Info i, j;
    MPI_Info_create(&i);
    MPI_Info_set(i, "alpha", "one");
    MPI_Info_set(i, "beta", "twenty");
    MPI_Info_set(i, "alpha", "uno");
    int n;
    MPI_Info_get_nkeys(i, &n);
    CHECK(n == 2, "nkeys %d", n);
    char key[MPI_MAX_INFO_KEY], val[64];
    int buflen = sizeof val, f;
    MPI_Info_get_nthkey(i, 1, key);
    CHECK(!strcmp(key, "beta"), "nthkey %s", key);
    MPI_Info_get_string(i, "alpha", &buflen, val, &f);
    CHECK(f && !strcmp(val, "uno") && buflen == 4, "get_string %s %d", val, buflen);
    buflen = 3;
    MPI_Info_get_string(i, "beta", &buflen, val, &f);
    CHECK(f && buflen == 7 && !strcmp(val, "tw"), "get_string trunc '%s' %d", val, buflen);
    MPI_Info_dup(i, &j);
    MPI_Info_delete(i, "alpha");
    MPI_Info_get_nkeys(i, &n);
    CHECK(n == 1, "delete");
    MPI_Info_get_nkeys(j, &n);
    CHECK(n == 2, "dup independent");
    buflen = sizeof val;
    MPI_Info_get_string(j, "gamma", &buflen, val, &f);
    CHECK(!f, "missing");
    MPI_Info_free(&i);
    MPI_Info_free(&j);
    CHECK(i == MPI_INFO_NULL, "free");
    MPI_Info_get_nkeys(MPI_INFO_ENV, &n);
    MPI_Comm c;
    MPI_Info ci;
    MPI_Info_create(&ci);
    MPI_Info_set(ci, "mpi_assert_no_any_tag", "true");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, ci, &c);
    MPI_Info_free(&ci);
    MPI_Comm_get_info(c, &ci);
    MPI_Info_free(&ci);
    MPI_Comm_free(&c);
}
static int ints_eq(const int *a, const int *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}
static void env1(MPI_Datatype t, int comb, int ni, int na, int nd, const int *ei, const char *what)
{
    int i, a, d, c;
    MPI_Type_get_envelope(t, &i, &a, &d, &c);
    CHECK(c == comb && i == ni && a == na && d == nd, "%s envelope %d %d %d %d", what, i, a, d, c);
    if (c == MPI_COMBINER_NAMED || c != comb)
        return;
    int *ii = malloc((i + 1) * sizeof(int));
    MPI_Aint *aa = malloc((a + 1) * sizeof(MPI_Aint));
    MPI_Datatype *dd = malloc((d + 1) * sizeof(MPI_Datatype));
    MPI_Type_get_contents(t, i, a, d, ii, aa, dd);
    if (ei)
        CHECK(ints_eq(ii, ei, ni), "%s contents ints", what);
    for (int k = 0; k < d; k++) {
        int x, y, z, cc;
        MPI_Type_get_envelope(dd[k], &x, &y, &z, &cc);
        if (cc != MPI_COMBINER_NAMED)
            MPI_Type_free(&dd[k]);
    }
    free(ii);
    free(aa);
    free(dd);
}
static void types(void)
{
    MPI_Datatype t;
    int bl[3] = {1, 2, 3}, dp[3] = {0, 4, 10};
    MPI_Aint ad[3] = {0, 16, 40};
    env1(MPI_INT, MPI_COMBINER_NAMED, 0, 0, 0, NULL, "named");
    MPI_Type_contiguous(3, MPI_INT, &t);
    env1(t, MPI_COMBINER_CONTIGUOUS, 1, 0, 1, (int[]){3}, "contig");
    MPI_Type_free(&t);
    MPI_Type_vector(2, 3, 4, MPI_INT, &t);
    env1(t, MPI_COMBINER_VECTOR, 3, 0, 1, (int[]){2, 3, 4}, "vector");
    MPI_Type_free(&t);
    MPI_Type_create_hvector(2, 3, 40, MPI_INT, &t);
    env1(t, MPI_COMBINER_HVECTOR, 2, 1, 1, (int[]){2, 3}, "hvector");
    MPI_Type_free(&t);
    MPI_Type_indexed(3, bl, dp, MPI_INT, &t);
    env1(t, MPI_COMBINER_INDEXED, 7, 0, 1, (int[]){3, 1, 2, 3, 0, 4, 10}, "indexed");
    MPI_Type_free(&t);
    MPI_Type_create_hindexed(3, bl, ad, MPI_INT, &t);
    env1(t, MPI_COMBINER_HINDEXED, 4, 3, 1, (int[]){3, 1, 2, 3}, "hindexed");
    MPI_Type_free(&t);
    MPI_Type_create_indexed_block(3, 2, dp, MPI_INT, &t);
    env1(t, MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1, (int[]){3, 2, 0, 4, 10}, "idxblock");
    MPI_Type_free(&t);
    MPI_Type_create_hindexed_block(3, 2, ad, MPI_INT, &t);
    env1(t, MPI_COMBINER_HINDEXED_BLOCK, 2, 3, 1, (int[]){3, 2}, "hidxblock");
    MPI_Type_free(&t);
    MPI_Datatype ts[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(3, bl, ad, ts, &t);
    env1(t, MPI_COMBINER_STRUCT, 4, 3, 3, (int[]){3, 1, 2, 3}, "struct");
    MPI_Type_free(&t);
    int sz[2] = {4, 6}, sub[2] = {2, 3}, st[2] = {1, 2};
    MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &t);
    env1(t, MPI_COMBINER_SUBARRAY, 8, 0, 1, (int[]){2, 4, 6, 2, 3, 1, 2, MPI_ORDER_C}, "subarray");
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    int tsz;
    MPI_Type_size(t, &tsz);
    CHECK(lb == 0 && ext == 24 * 4 && tsz == 6 * 4, "subarray extent");
    MPI_Type_free(&t);
    int gs[2] = {4, 4}, di[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
        da[2] = {MPI_DISTRIBUTE_DFLT_DARG, 1}, ps[2] = {2, 2};
    MPI_Type_create_darray(4, 1, 2, gs, di, da, ps, MPI_ORDER_C, MPI_INT, &t);
    env1(t, MPI_COMBINER_DARRAY, 4 * 2 + 4, 0, 1,
         (int[]){4, 1, 2, 4, 4, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC,
                 MPI_DISTRIBUTE_DFLT_DARG, 1, 2, 2, MPI_ORDER_C},
         "darray");
    MPI_Type_size(t, &tsz);
    CHECK(tsz == 4 * 4, "darray size");
    MPI_Type_free(&t);
    MPI_Type_create_resized(MPI_INT, -4, 16, &t);
    env1(t, MPI_COMBINER_RESIZED, 0, 2, 1, NULL, "resized");
    MPI_Type_free(&t);
    MPI_Type_dup(MPI_DOUBLE, &t);
    env1(t, MPI_COMBINER_DUP, 0, 0, 1, NULL, "dup");
    MPI_Type_free(&t);
    /* Pack_external */
    int iv[2] = {0x01020304, -2};
    double dv = 1.0;
    char buf[64];
    MPI_Aint pos = 0, psz;
    MPI_Pack_external_size("external32", 2, MPI_INT, &psz);
    CHECK(psz == 8, "pack ext size");
    MPI_Pack_external("external32", iv, 2, MPI_INT, buf, sizeof buf, &pos);
    MPI_Pack_external("external32", &dv, 1, MPI_DOUBLE, buf, sizeof buf, &pos);
    unsigned char e[16] = {1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
    CHECK(pos == 16 && !memcmp(buf, e, 16), "external32 bytes");
    int ov[2];
    double od;
    pos = 0;
    MPI_Unpack_external("external32", buf, 16, &pos, ov, 2, MPI_INT);
    MPI_Unpack_external("external32", buf, 16, &pos, &od, 1, MPI_DOUBLE);
    CHECK(ov[0] == iv[0] && ov[1] == -2 && od == 1.0, "unpack external");
}
static int qfn(void *x, MPI_Status *s)
{
    MPI_Status_set_elements(s, MPI_INT, 3);
    MPI_Status_set_cancelled(s, 0);
    s->MPI_SOURCE = MPI_UNDEFINED;
    s->MPI_TAG = MPI_UNDEFINED;
    (*(int *)x)++;
    return MPI_SUCCESS;
}
static int ffn(void *x)
{
    (*(int *)x) += 10;
    return MPI_SUCCESS;
}
static int cfn(void *x, int c)
{
    (void)x;
    (void)c;
    return MPI_SUCCESS;
}
static void status_greq(void)
{
    MPI_Status s;
    int n, f;
    MPI_Status_set_elements(&s, MPI_DOUBLE, 5);
    MPI_Get_count(&s, MPI_DOUBLE, &n);
    CHECK(n == 5, "set_elements");
    MPI_Get_elements(&s, MPI_DOUBLE, &n);
    CHECK(n == 5, "get_elements");
    MPI_Get_count(&s, MPI_INT, &n);
    CHECK(n == 10, "count as int %d", n);
    MPI_Status_set_cancelled(&s, 1);
    MPI_Test_cancelled(&s, &f);
    CHECK(f, "cancelled");
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    int v;
    MPI_Status_set_source(&s, 3);
    MPI_Status_set_tag(&s, 9);
    MPI_Status_set_error(&s, MPI_ERR_TAG);
    MPI_Status_get_source(&s, &v);
    CHECK(v == 3, "get_source");
    MPI_Status_get_tag(&s, &v);
    CHECK(v == 9, "get_tag");
    MPI_Status_get_error(&s, &v);
    CHECK(v == MPI_ERR_TAG, "get_error");
#endif
    int st = 0;
    MPI_Request r;
    MPI_Grequest_start(qfn, ffn, cfn, &st, &r);
    MPI_Test(&r, &f, &s);
    CHECK(!f, "grequest not done");
    MPI_Grequest_complete(r);
    MPI_Wait(&r, &s);
    CHECK(r == MPI_REQUEST_NULL && st == 11, "grequest query+free %d", st);
    MPI_Get_count(&s, MPI_INT, &n);
    CHECK(n == 3, "grequest count");
}
static void partitioned(void)
{
    if (size < 2 || rank > 1)
        return;
    enum { P = 4, C = 256 };
    static long b[P * C];
    MPI_Request r;
    int f;
    if (rank == 0) {
        for (int i = 0; i < P * C; i++)
            b[i] = i;
        MPI_Psend_init(b, P, C, MPI_LONG, 1, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        for (int it = 0; it < 2; it++) {
            MPI_Start(&r);
            MPI_Pready(3, r);
            MPI_Pready_range(0, 1, r);
            int l[1] = {2};
            MPI_Pready_list(1, l, r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            for (int i = 0; i < P * C; i++)
                b[i] = i + 1000;
        }
    } else {
        MPI_Precv_init(b, P, C, MPI_LONG, 0, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        for (int it = 0; it < 2; it++) {
            MPI_Start(&r);
            do
                MPI_Parrived(r, 3, &f);
            while (!f);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            for (int i = 0; i < P * C; i++)
                if (b[i] != i + 1000 * it) {
                    CHECK(0, "partitioned it %d at %d", it, i);
                    break;
                }
        }
    }
    MPI_Request_free(&r);
}
static void errh_fn(MPI_Comm *c, int *code, ...)
{
    (void)c;
    order[nord++] = (char)*code;
}
static void errors(void)
{
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(errh_fn, &eh);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, eh);
    nord = 0;
    MPI_Comm_call_errhandler(c, MPI_ERR_OTHER);
    CHECK(nord == 1 && order[0] == MPI_ERR_OTHER, "call errhandler");
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int ec, cls, x = 0;
    ec = MPI_Send(&x, 1, MPI_INT, size, 0, c);
    MPI_Error_class(ec, &cls);
    CHECK(cls == MPI_ERR_RANK, "err rank %d", cls);
    ec = MPI_Send(&x, -1, MPI_INT, 0, 0, c);
    MPI_Error_class(ec, &cls);
    CHECK(cls == MPI_ERR_COUNT, "err count %d", cls);
    ec = MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, c);
    MPI_Error_class(ec, &cls);
    CHECK(cls == MPI_ERR_TYPE, "err type %d", cls);
    ec = MPI_Send(&x, 1, MPI_INT, 0, -5, c);
    MPI_Error_class(ec, &cls);
    CHECK(cls == MPI_ERR_TAG, "err tag %d", cls);
    ec = MPI_Bcast(&x, 1, MPI_INT, size + 1, c);
    MPI_Error_class(ec, &cls);
    CHECK(cls == MPI_ERR_ROOT, "err root %d", cls);
    ec = MPI_Allreduce(&x, &cls, 1, MPI_INT, MPI_OP_NULL, c);
    MPI_Error_class(ec, &cls);
    CHECK(cls == MPI_ERR_OP, "err op %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    ec = MPI_Comm_size(MPI_COMM_NULL, &x);
    MPI_Error_class(ec, &cls);
    CHECK(cls == MPI_ERR_COMM, "err comm %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_free(&c);
    MPI_Errhandler_free(&eh);
}
static void sessions(void)
{
    MPI_Session s;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    int n;
    MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n);
    CHECK(n >= 2, "psets %d", n);
    int seen = 0;
    for (int i = 0; i < n; i++) {
        char name[256];
        int len = sizeof name;
        MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name);
        if (!strcmp(name, "mpi://WORLD"))
            seen |= 1;
        if (!strcmp(name, "mpi://SELF"))
            seen |= 2;
    }
    CHECK(seen == 3, "pset names");
    MPI_Info pi;
    MPI_Session_get_pset_info(s, "mpi://WORLD", &pi);
    char v[32];
    int vl = sizeof v, f;
    MPI_Info_get_string(pi, "mpi_size", &vl, v, &f);
    CHECK(f && atoi(v) == size, "mpi_size");
    MPI_Info_free(&pi);
    MPI_Group g, wg;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int res;
    MPI_Group_compare(g, wg, &res);
    CHECK(res == MPI_IDENT, "session group ident");
    MPI_Comm c;
    MPI_Comm_create_from_group(g, "org.check.api", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    int x = rank, sum;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c);
    CHECK(sum == size * (size - 1) / 2, "session comm allreduce");
    int wsum;
    MPI_Allreduce(&x, &wsum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(wsum == sum, "world next to session");
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Session_finalize(&s);
}
static char self_order[8];
static int nself = 0;
static int self_del(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c;
    (void)k;
    (void)extra;
    self_order[nself++] = *(char *)val;
    return MPI_SUCCESS;
}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    attrs();
    info();
    types();
    status_greq();
    partitioned();
    errors();
    sessions();
    /* MPI_COMM_SELF attributes are deleted at Finalize in reverse order of setting */
    static char v1 = '1', v2 = '2', v3 = '3';
    int k[3];
    for (int i = 0; i < 3; i++)
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_del, &k[i], NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, k[1], &v1);
    MPI_Comm_set_attr(MPI_COMM_SELF, k[0], &v2);
    MPI_Comm_set_attr(MPI_COMM_SELF, k[2], &v3);
    int tot;
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (nself != 3 || memcmp(self_order, "321", 3)) {
        printf("[%d] self attr delete order %.*s\n", rank, nself, self_order);
        tot++;
    }
    return std_report("std_api", tot, rank);
}
