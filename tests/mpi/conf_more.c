/* Corners of the same areas, written against MPI 4.1: leaders other than rank 0, idup
 * copying attributes, asymmetric Comm_create of intercommunicators, keyvals freed while in
 * use, extra_state, attribute deletion at MPI_Finalize, large-count decoders,
 * Type_get_value_index, names. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs, wrank, wsize;
#include "conf_check.h"

static int ncopy, ndel;
static int cp(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)kv;
    ncopy++;
    CHECK(*(int *)extra == 77, "extra_state %d", *(int *)extra);
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static int dl(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c, (void)kv, (void)val;
    CHECK(*(int *)extra == 77, "extra_state at delete %d", *(int *)extra);
    ndel++;
    return MPI_SUCCESS;
}
static int noflag(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)kv, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}
static int extra77 = 77;

/* Leaders at the top local rank, remote leader the other side's top. */
static void odd_leaders(void)
{
    MPI_Comm local, ic, m, c;
    int color, ls, lr, rs, mr, top_other, i;
    if (wsize < 3)
        return;
    color = wrank < wsize / 2 ? 0 : 1;
    MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local);
    MPI_Comm_size(local, &ls);
    MPI_Comm_rank(local, &lr);
    top_other = color == 0 ? wsize - 1 : wsize / 2 - 1;
    MPI_Intercomm_create(local, ls - 1, MPI_COMM_WORLD, top_other, 1234, &ic);
    MPI_Comm_remote_size(ic, &rs);
    CHECK(rs == wsize - ls, "remote size %d", rs);
    /* both sides ask for the same 'high': the order is still a valid permutation and
     * the sides come as blocks */
    MPI_Intercomm_merge(ic, 0, &m);
    MPI_Comm_rank(m, &mr);
    {
        int *all = malloc(sizeof(int) * wsize), ok = 1, first;
        MPI_Allgather(&color, 1, MPI_INT, all, 1, MPI_INT, m);
        first = all[0];
        for (i = 0; i < wsize; i++)
            if ((i < (first == color ? ls : rs)) != (all[i] == first))
                ok = 0;
        CHECK(ok, "merge with equal high: sides interleaved");
        free(all);
    }
    MPI_Comm_free(&m);
    /* Comm_create with different groups on the two sides: side 0 keeps all, side 1 its
     * even ranks */
    {
        MPI_Group g, sub;
        int n = 0, *r = malloc(sizeof(int) * ls), csize, crs;
        MPI_Comm_group(ic, &g);
        for (i = 0; i < ls; i++)
            if (color == 0 || i % 2 == 0)
                r[n++] = i;
        MPI_Group_incl(g, n, r, &sub);
        MPI_Comm_create(ic, sub, &c);
        if (color == 0 || lr % 2 == 0) {
            int other = color == 0 ? (rs + 1) / 2 : rs;
            CHECK(c != MPI_COMM_NULL, "create null");
            if (c != MPI_COMM_NULL) {
                MPI_Comm_size(c, &csize);
                MPI_Comm_remote_size(c, &crs);
                CHECK(csize == n && crs == other, "create sizes %d %d want %d %d", csize, crs, n,
                      other);
                MPI_Comm_free(&c);
            }
        } else
            CHECK(c == MPI_COMM_NULL, "create not null");
        MPI_Group_free(&sub);
        MPI_Group_free(&g);
        free(r);
    }
    /* names */
    {
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        MPI_Comm_set_name(ic, "inter");
        MPI_Comm_get_name(ic, name, &len);
        CHECK(strcmp(name, "inter") == 0, "inter name %s", name);
    }
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
}

static void idup_attrs(void)
{
    MPI_Comm d, d2, d3;
    MPI_Request r;
    int kv, kv2, flag;
    void *v;
    MPI_Comm_create_keyval(cp, dl, &kv, &extra77);
    MPI_Comm_create_keyval(noflag, MPI_COMM_NULL_DELETE_FN, &kv2, NULL);
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Comm_set_attr(d, kv, (void *)5);
    MPI_Comm_set_attr(d, kv2, (void *)6);
    ncopy = ndel = 0;
    MPI_Comm_idup(d, &d2, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(ncopy == 1, "idup copy calls %d", ncopy);
    MPI_Comm_get_attr(d2, kv, &v, &flag);
    CHECK(flag && v == (void *)5, "idup attr");
    MPI_Comm_get_attr(d2, kv2, &v, &flag);
    CHECK(!flag, "flag 0 copy still copied");
    /* a freed keyval stays usable on the objects that have it; delete is called later */
    MPI_Comm_free_keyval(&kv);
    MPI_Comm_dup(d2, &d3);
    CHECK(ncopy == 2, "dup after free_keyval: copies %d", ncopy);
    MPI_Comm_free(&d3);
    MPI_Comm_free(&d2);
    MPI_Comm_free(&d);
    CHECK(ndel == 3, "deletes %d", ndel);
    MPI_Comm_free_keyval(&kv2);
    /* dup_with_info copies attributes too */
    {
        MPI_Info in;
        int k3;
        MPI_Comm_create_keyval(cp, dl, &k3, &extra77);
        MPI_Info_create(&in);
        MPI_Comm_set_attr(MPI_COMM_WORLD, k3, (void *)8);
        ncopy = 0;
        MPI_Comm_dup_with_info(MPI_COMM_WORLD, in, &d);
        CHECK(ncopy == 1, "dup_with_info copies %d", ncopy);
        MPI_Comm_idup_with_info(MPI_COMM_WORLD, in, &d2, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        CHECK(ncopy == 2, "idup_with_info copies %d", ncopy);
        MPI_Comm_free(&d);
        MPI_Comm_free(&d2);
        MPI_Comm_delete_attr(MPI_COMM_WORLD, k3);
        MPI_Comm_free_keyval(&k3);
        MPI_Info_free(&in);
    }
    /* keyvals of one kind are not valid for another */
    {
        int tk, rc;
        MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tk, NULL);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        rc = MPI_Comm_set_attr(MPI_COMM_WORLD, tk, (void *)1);
        CHECK(rc != MPI_SUCCESS, "type keyval accepted on a communicator");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Type_free_keyval(&tk);
    }
}

static void large_decoders(void)
{
    MPI_Datatype t;
    MPI_Count ni, na, nc, nd, cc[4];
    int comb, ii[4];
    MPI_Aint aa[2];
    MPI_Datatype dd[2];
    MPI_Type_vector(3, 2, 5, MPI_INT, &t);
    MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb);
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nc == 0 && nd == 1,
          "envelope_c of vector %lld %lld %lld %lld", (long long)ni, (long long)na, (long long)nc,
          (long long)nd);
    MPI_Type_get_contents_c(t, ni, na, nc, nd, ii, aa, cc, dd);
    CHECK(ii[0] == 3 && ii[1] == 2 && ii[2] == 5 && dd[0] == MPI_INT, "contents_c of vector");
    MPI_Type_free(&t);
    MPI_Type_vector_c(3, 2, 5, MPI_INT, &t);
    MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb);
    /* MPI 4.1 5.1.13: a large-count constructor's counts are large counts */
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 0 && nc == 3 && nd == 1,
          "envelope_c of vector_c: %lld ints %lld large counts", (long long)ni, (long long)nc);
    if (nc == 3) {
        MPI_Type_get_contents_c(t, ni, na, nc, nd, ii, aa, cc, dd);
        CHECK(cc[0] == 3 && cc[1] == 2 && cc[2] == 5, "contents_c of vector_c");
    }
    {
        MPI_Count sz, lb, ex;
        MPI_Type_size_c(t, &sz);
        MPI_Type_get_extent_c(t, &lb, &ex);
        CHECK(sz == 24 && lb == 0 && ex == (2 * 5 + 2) * 4, "vector_c size %lld extent %lld",
              (long long)sz, (long long)ex);
    }
    MPI_Type_free(&t);
}

#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
static void value_index(void)
{
    MPI_Datatype t;
    MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t);
    CHECK(t == MPI_DOUBLE_INT, "value_index double int");
    MPI_Type_get_value_index(MPI_FLOAT, MPI_INT, &t);
    CHECK(t == MPI_FLOAT_INT, "value_index float int");
    MPI_Type_get_value_index(MPI_INT, MPI_INT, &t);
    CHECK(t == MPI_2INT, "value_index int int");
    MPI_Type_get_value_index(MPI_LONG_DOUBLE, MPI_INT, &t);
    CHECK(t == MPI_LONG_DOUBLE_INT, "value_index long double int");
    MPI_Type_get_value_index(MPI_CHAR, MPI_DOUBLE, &t);
    CHECK(t == MPI_DATATYPE_NULL, "value_index of no pair type");
}
#else
static void value_index(void) {}
#endif

static void darray_layout(void)
{
    /* 8x6 global array of ints, 2x3 process grid, block rows, cyclic(1) columns; the
     * layout is checked against the owner computed here */
    int gs[2] = {8, 6}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 1}, ps[2] = {2, 3}, rank, i, j;
    for (rank = 0; rank < 6; rank++) {
        MPI_Datatype t;
        int a[48], p[48], pos = 0, n = 0, sz, pr = rank / 3, pc = rank % 3, ok = 1;
        MPI_Aint lb, ex;
        MPI_Type_create_darray(6, rank, 2, gs, dist, dargs, ps, MPI_ORDER_C, MPI_INT, &t);
        MPI_Type_commit(&t);
        MPI_Type_get_extent(t, &lb, &ex);
        CHECK(lb == 0 && ex == 48 * 4, "darray extent %ld", (long)ex);
        for (i = 0; i < 48; i++)
            a[i] = i;
        MPI_Pack(a, 1, t, p, sizeof p, &pos, MPI_COMM_SELF);
        MPI_Type_size(t, &sz);
        for (i = 0; i < 8; i++)
            for (j = 0; j < 6; j++)
                if (i / 4 == pr && j % 3 == pc) {
                    if (n * 4 >= pos || p[n] != i * 6 + j)
                        ok = 0;
                    n++;
                }
        CHECK(ok && pos == n * 4 && sz == n * 4, "darray rank %d layout", rank);
        MPI_Type_free(&t);
    }
    /* Fortran-order subarray: the first index moves fastest */
    {
        MPI_Datatype t;
        int sizes[2] = {4, 3}, subs[2] = {2, 2}, st[2] = {1, 1}, a[12], p[4], pos = 0;
        MPI_Type_create_subarray(2, sizes, subs, st, MPI_ORDER_FORTRAN, MPI_INT, &t);
        MPI_Type_commit(&t);
        for (i = 0; i < 12; i++)
            a[i] = i;
        MPI_Pack(a, 1, t, p, sizeof p, &pos, MPI_COMM_SELF);
        /* element (i,j) at i + 4j: (1,1)=5 (2,1)=6 (1,2)=9 (2,2)=10 */
        CHECK(p[0] == 5 && p[1] == 6 && p[2] == 9 && p[3] == 10, "fortran subarray %d %d %d %d",
              p[0], p[1], p[2], p[3]);
        MPI_Type_free(&t);
    }
}

static int fin_world;
static int world_del(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c, (void)kv, (void)val, (void)extra;
    fin_world++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int tot, kv;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    odd_leaders();
    idup_attrs();
    large_decoders();
    value_index();
    darray_layout();
    {
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
        CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "world name %s", name);
        MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
        CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self name %s", name);
    }
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, world_del, &kv, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, kv, (void *)1);
    MPI_Finalize();
    CHECK(fin_world == 1, "COMM_SELF delete at finalize: %d", fin_world);
    if (wrank == 0 && tot == 0 && errs == 0)
        printf("conf_more: ok\n");
    return tot != 0 || errs != 0;
}
