/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An MPI_T client as a tools library would be (mpit_vars, cvarwrite, mpit_isendrecv of the MPICH
 * suite): MPI_T before MPI_Init and after MPI_Finalize, nested init / finalize,
 * MPI_T_ERR_NOT_INITIALIZED outside; every control variable, performance variable, enum and
 * category listed with every get_info call and the string protocol (NULL buffer, length 0,
 * short buffers truncate and terminate); get_index by name round trips; cvars read through
 * handles, written where the scope allows, MPI_T_ERR_CVAR_SET_NEVER where it does not;
 * pvar sessions: continuous variables refuse start / stop, a counter moves with traffic,
 * stopped counters stay put, reset, readonly variables refuse writes; category_changed.
 * Standard MPI only: also built with Open MPI's and MPICH's compilers.
 */
#include "mpitest.h"

static int g_rank, g_size;

/* CHECK that also works outside MPI_Init / Finalize, where no communicator names the rank */
#undef CHECK
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            tc_fail(__LINE__, #cond);                                                              \
    } while (0)
static void tc_fail(int line, const char *what)
{
    int in = 0, fin = 0;
    MPI_Initialized(&in);
    MPI_Finalized(&fin);
    fprintf(stderr, "FAIL rank %d %s:%d: %s\n", in && !fin ? g_rank : -1, __FILE__, line, what);
    fflush(stderr);
    if (in && !fin)
        MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

#define TCHECK(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* The string protocol on one getter: fn(buf, &len) with NULL, with 0, exact and short. */
typedef int (*str_get_fn)(int idx, char *buf, int *len);

static void check_string(str_get_fn fn, int idx, char *out, int outmax)
{
    int len = 0, rc0 = fn(idx, NULL, &len);
    if (rc0 != MPI_SUCCESS && getenv("TC_LENIENT")) /* Open MPI 4.1 on enum items */
        return;
    CHECK(rc0 == MPI_SUCCESS);
    if (len < 1 && getenv("TC_LENIENT")) /* Open MPI 4.1 answers 0 for a NULL buffer */
        return;
    CHECK(len >= 1 && len < 4096);
    char *b = malloc((size_t)len + 8);
    memset(b, 'X', (size_t)len + 8);
    int l0 = 0;
    CHECK_RC(fn(idx, b, &l0)); /* length 0: nothing written, the length back */
    CHECK(l0 == len && b[0] == 'X');
    int l1 = len;
    CHECK_RC(fn(idx, b, &l1));
    CHECK((int)strlen(b) == len - 1 && b[len + 1] == 'X');
    if (len > 3) {
        char s[3] = {'Y', 'Y', 'Y'};
        int l2 = 3;
        CHECK_RC(fn(idx, s, &l2)); /* truncated to 2 characters and a NUL */
        CHECK(s[2] == '\0' && s[0] == b[0] && s[1] == b[1]);
        CHECK(l2 == 3 || getenv("TC_LENIENT")); /* the characters written, the NUL included */
    }
    snprintf(out, (size_t)outmax, "%s", b);
    free(b);
}

/* only the strings may be NULL (MPI 4.1 section 15.3.3): every other output is given */
static int cvar_name(int i, char *b, int *l)
{
    int v, bind, scope, dl = 0;
    MPI_Datatype dt;
    MPI_T_enum e;
    return MPI_T_cvar_get_info(i, b, l, &v, &dt, &e, NULL, &dl, &bind, &scope);
}
static int cvar_desc(int i, char *b, int *l)
{
    int v, bind, scope, nl = 0;
    MPI_Datatype dt;
    MPI_T_enum e;
    return MPI_T_cvar_get_info(i, NULL, &nl, &v, &dt, &e, b, l, &bind, &scope);
}
static int pvar_name(int i, char *b, int *l)
{
    return MPI_T_pvar_get_info(i, b, l, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
}
static int pvar_desc(int i, char *b, int *l)
{
    int v, cls, bind, ro, cont, at, nl = 0;
    MPI_Datatype dt;
    MPI_T_enum e;
    return MPI_T_pvar_get_info(i, NULL, &nl, &v, &cls, &dt, &e, b, l, &bind, &ro, &cont, &at);
}
static int cat_name(int i, char *b, int *l)
{
    int nc, np, nk, dl = 0;
    return MPI_T_category_get_info(i, b, l, NULL, &dl, &nc, &np, &nk);
}
static int cat_desc(int i, char *b, int *l)
{
    int nc, np, nk, nl = 0;
    return MPI_T_category_get_info(i, NULL, &nl, b, l, &nc, &np, &nk);
}
static MPI_T_enum g_enum;
static int enum_name(int i, char *b, int *l)
{
    int n;
    (void)i;
    return MPI_T_enum_get_info(g_enum, &n, b, l);
}
static int item_name(int i, char *b, int *l)
{
    int v;
    return MPI_T_enum_get_item(g_enum, i, &v, b, l);
}

static size_t dt_size(MPI_Datatype dt)
{
    if (dt == MPI_INT || dt == MPI_UNSIGNED)
        return sizeof(int);
    if (dt == MPI_UNSIGNED_LONG)
        return sizeof(unsigned long);
    if (dt == MPI_UNSIGNED_LONG_LONG)
        return sizeof(unsigned long long);
    if (dt == MPI_COUNT)
        return sizeof(MPI_Count);
    if (dt == MPI_DOUBLE)
        return sizeof(double);
    if (dt == MPI_CHAR)
        return 1;
    CHECK(getenv("TC_LENIENT") || !"a datatype MPI_T does not allow"); /* Open MPI 4.1 */
    return 8;
}

static int dt_size_ok(MPI_Datatype dt)
{
    return dt == MPI_INT || dt == MPI_UNSIGNED || dt == MPI_UNSIGNED_LONG ||
           dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_COUNT || dt == MPI_DOUBLE || dt == MPI_CHAR;
}

/* element 0 of a buffer of dt as a double, to compare */
static double dt_val(MPI_Datatype dt, const void *p)
{
    if (dt == MPI_INT)
        return *(const int *)p;
    if (dt == MPI_UNSIGNED)
        return *(const unsigned *)p;
    if (dt == MPI_UNSIGNED_LONG)
        return (double)*(const unsigned long *)p;
    if (dt == MPI_UNSIGNED_LONG_LONG)
        return (double)*(const unsigned long long *)p;
    if (dt == MPI_COUNT)
        return (double)*(const MPI_Count *)p;
    if (dt == MPI_DOUBLE)
        return *(const double *)p;
    return 0;
}

static void check_enum(MPI_T_enum e)
{
    char s[256];
    int n;
    if (e == MPI_T_ENUM_NULL)
        return;
    g_enum = e;
    int nl = 0;
    CHECK_RC(MPI_T_enum_get_info(e, &n, NULL, &nl));
    CHECK(n >= 1);
    check_string(enum_name, 0, s, sizeof(s));
    for (int k = 0; k < n; k++)
        check_string(item_name, k, s, sizeof(s));
    int v;
    nl = 0;
    int rc = MPI_T_enum_get_item(e, n, &v, NULL, &nl);
    CHECK(rc == MPI_T_ERR_INVALID_ITEM || (getenv("TC_LENIENT") && rc != MPI_SUCCESS));
}

static void *obj_for(int bind)
{
    static MPI_Comm comm;
    comm = MPI_COMM_WORLD;
    return bind == MPI_T_BIND_MPI_COMM ? (void *)&comm : NULL;
}

static int writable(int scope)
{
    return scope != MPI_T_SCOPE_CONSTANT && scope != MPI_T_SCOPE_READONLY;
}

static void test_cvars(int after_init)
{
    int n, nwritten = 0;
    CHECK_RC(MPI_T_cvar_get_num(&n));
    for (int i = 0; i < n; i++) {
        char name[256], desc[1024], buf[4096];
        int v, bind, scope, idx, count, nl = 0, dl = 0;
        MPI_Datatype dt;
        MPI_T_enum e;
        if (getenv("TC_LENIENT") && cvar_name(i, NULL, &nl) != MPI_SUCCESS)
            continue; /* Open MPI 4.1: indices of variables gone */
        check_string(cvar_name, i, name, sizeof(name));
        check_string(cvar_desc, i, desc, sizeof(desc));
        CHECK_RC(MPI_T_cvar_get_info(i, NULL, &nl, &v, &dt, &e, NULL, &dl, &bind, &scope));
        CHECK(v >= MPI_T_VERBOSITY_USER_BASIC && v <= MPI_T_VERBOSITY_MPIDEV_ALL);
        CHECK_RC(MPI_T_cvar_get_index(name, &idx));
        CHECK(idx == i);
        check_enum(e);
        if (e != MPI_T_ENUM_NULL) /* the standard's rule; Open MPI 4.1 breaks it */
            CHECK(dt == MPI_INT || getenv("TC_LENIENT"));
        if (bind != MPI_T_BIND_NO_OBJECT && bind != MPI_T_BIND_MPI_COMM)
            continue;
        if (bind == MPI_T_BIND_MPI_COMM && !after_init)
            continue;
        MPI_T_cvar_handle h;
        CHECK_RC(MPI_T_cvar_handle_alloc(i, obj_for(bind), &h, &count));
        CHECK(count >= 1 && count * dt_size(dt) <= sizeof(buf));
        if (!dt_size_ok(dt))
            continue;
        CHECK_RC(MPI_T_cvar_read(h, buf));
        int rc = MPI_T_cvar_write(h, buf);
        if (!writable(scope))
            CHECK(rc == MPI_T_ERR_CVAR_SET_NEVER);
        else if (rc == MPI_SUCCESS && dt == MPI_INT && e == MPI_T_ENUM_NULL && count == 1) {
            int old = *(int *)buf, neu = old + 1, back;
            if (MPI_T_cvar_write(h, &neu) == MPI_SUCCESS) { /* a value it accepts */
                CHECK_RC(MPI_T_cvar_read(h, &back));
                CHECK(back == neu);
                CHECK_RC(MPI_T_cvar_write(h, &old));
                nwritten++;
            }
        } else
            CHECK(rc == MPI_SUCCESS || rc == MPI_T_ERR_CVAR_SET_NOT_NOW);
        CHECK_RC(MPI_T_cvar_handle_free(&h));
        CHECK(h == MPI_T_CVAR_HANDLE_NULL);
    }
    int idx, nl = 0;
    CHECK(MPI_T_cvar_get_index("no such variable, surely", &idx) == MPI_T_ERR_INVALID_NAME);
    int rc = cvar_name(n, NULL, &nl);
    CHECK(rc == MPI_T_ERR_INVALID_INDEX || (getenv("TC_LENIENT") && rc != MPI_SUCCESS));
    if (g_rank == 0 && after_init && getenv("TC_VERBOSE"))
        printf("  %d cvars, %d written and restored\n", n, nwritten);
}

typedef struct {
    int idx, cls, ro, cont, count;
    MPI_Datatype dt;
    MPI_T_pvar_handle h;
    char name[256];
} pv_t;

static void traffic(int rounds)
{
    int to = (g_rank + 1) % g_size, from = (g_rank + g_size - 1) % g_size;
    static char sb[65536], rb[65536];
    for (int i = 0; i < rounds; i++) {
        int sz = i % 4 == 0 ? (int)sizeof(sb) : 64;
        CHECK_RC(MPI_Sendrecv(sb, sz, MPI_CHAR, to, 5, rb, sz, MPI_CHAR, from, 5, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE));
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

static double pv_read(MPI_T_pvar_session s, pv_t *p)
{
    char buf[4096];
    CHECK_RC(MPI_T_pvar_read(s, p->h, buf));
    return dt_val(p->dt, buf);
}

static void test_pvars(void)
{
    int n;
    CHECK_RC(MPI_T_pvar_get_num(&n));
    pv_t *pv = calloc((size_t)n + 1, sizeof(pv_t));
    MPI_T_pvar_session s;
    CHECK_RC(MPI_T_pvar_session_create(&s));
    int np = 0;
    for (int i = 0; i < n; i++) {
        char desc[1024];
        pv_t *p = &pv[np];
        int v, bind, at, idx, nl = 0, dl = 0;
        MPI_T_enum e;
        if (getenv("TC_LENIENT") && pvar_name(i, NULL, &nl) != MPI_SUCCESS)
            continue; /* Open MPI 4.1: indices of variables gone */
        check_string(pvar_name, i, p->name, sizeof(p->name));
        check_string(pvar_desc, i, desc, sizeof(desc));
        CHECK_RC(MPI_T_pvar_get_info(i, NULL, &nl, &v, &p->cls, &p->dt, &e, NULL, &dl, &bind,
                                     &p->ro, &p->cont, &at));
        CHECK(p->cls >= MPI_T_PVAR_CLASS_STATE && p->cls <= MPI_T_PVAR_CLASS_GENERIC);
        CHECK_RC(MPI_T_pvar_get_index(p->name, p->cls, &idx));
        CHECK(idx == i);
        check_enum(e);
        if (bind != MPI_T_BIND_NO_OBJECT && bind != MPI_T_BIND_MPI_COMM)
            continue;
        CHECK_RC(MPI_T_pvar_handle_alloc(s, i, obj_for(bind), &p->h, &p->count));
        CHECK(p->count >= 1 && (size_t)p->count * dt_size(p->dt) <= 4096);
        p->idx = i;
        int rc = MPI_T_pvar_start(s, p->h);
        CHECK(p->cont ? rc == MPI_T_ERR_PVAR_NO_STARTSTOP : rc == MPI_SUCCESS);
        if (p->ro) {
            char buf[4096] = {0};
            CHECK(MPI_T_pvar_write(s, p->h, buf) == MPI_T_ERR_PVAR_NO_WRITE);
        }
        np++;
    }
    int idx;
    CHECK(MPI_T_pvar_get_index("no such variable, surely", MPI_T_PVAR_CLASS_COUNTER, &idx) ==
          MPI_T_ERR_INVALID_NAME);
    /* a counter or aggregate that moves with traffic */
    double *before = calloc((size_t)np + 1, sizeof(double));
    for (int k = 0; k < np; k++)
        before[k] = pv_read(s, &pv[k]);
    traffic(200);
    int moved = 0, any_moved;
    for (int k = 0; k < np; k++) {
        double now = pv_read(s, &pv[k]);
        if (pv[k].cls == MPI_T_PVAR_CLASS_COUNTER) {
            CHECK(now >= before[k]); /* counters do not go backwards */
            if (now > before[k]) {
                moved++;
                if (g_rank == 0 && getenv("TC_VERBOSE"))
                    printf("  %s: %.0f -> %.0f\n", pv[k].name, before[k], now);
            }
        }
    }
    CHECK_RC(MPI_Allreduce(&moved, &any_moved, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(any_moved > 0 || getenv("TC_LENIENT")); /* MPICH 4.0: no counter unless enabled */
    /* stopped counters stay put through traffic; reset goes back */
    for (int k = 0; k < np; k++)
        if (!pv[k].cont)
            CHECK_RC(MPI_T_pvar_stop(s, pv[k].h));
    for (int k = 0; k < np; k++)
        before[k] = pv_read(s, &pv[k]);
    traffic(50);
    for (int k = 0; k < np; k++)
        if (!pv[k].cont && pv[k].cls == MPI_T_PVAR_CLASS_COUNTER)
            CHECK(pv_read(s, &pv[k]) == before[k]);
    for (int k = 0; k < np; k++) {
        int rc = MPI_T_pvar_reset(s, pv[k].h);
        if (pv[k].ro)
            CHECK(rc == MPI_T_ERR_PVAR_NO_WRITE);
        else if (pv[k].cls == MPI_T_PVAR_CLASS_COUNTER) {
            CHECK(rc == MPI_SUCCESS);
            CHECK(pv_read(s, &pv[k]) == 0);
        }
    }
    /* MPI_T_PVAR_ALL_HANDLES: start / stop / reset every handle of the session that allows
     * it, the others are skipped (no error for them); it is no handle to read */
    CHECK_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    for (int k = 0; k < np; k++)
        before[k] = pv_read(s, &pv[k]);
    traffic(20);
    int moved2 = 0;
    for (int k = 0; k < np; k++)
        moved2 += pv[k].cls == MPI_T_PVAR_CLASS_COUNTER && pv_read(s, &pv[k]) > before[k];
    CHECK(moved2 > 0 || moved == 0);
    CHECK_RC(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    CHECK_RC(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES));
    for (int k = 0; k < np; k++)
        if (!pv[k].ro && pv[k].cls == MPI_T_PVAR_CLASS_COUNTER)
            CHECK(pv_read(s, &pv[k]) == 0);
    char any[4096];
    CHECK(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, any) != MPI_SUCCESS);
    /* readreset: the value, then zero */
    for (int k = 0; k < np; k++)
        if (!pv[k].ro && !pv[k].cont && pv[k].cls == MPI_T_PVAR_CLASS_COUNTER) {
            CHECK_RC(MPI_T_pvar_start(s, pv[k].h));
            traffic(5);
            CHECK_RC(MPI_T_pvar_readreset(s, pv[k].h, any));
            CHECK(pv_read(s, &pv[k]) <= dt_val(pv[k].dt, any));
            CHECK_RC(MPI_T_pvar_stop(s, pv[k].h));
        }
    for (int k = 0; k < np; k++)
        CHECK_RC(MPI_T_pvar_handle_free(s, &pv[k].h));
    CHECK_RC(MPI_T_pvar_session_free(&s));
    CHECK(s == MPI_T_PVAR_SESSION_NULL);
    if (g_rank == 0 && getenv("TC_VERBOSE"))
        printf("  %d pvars, %d with handles, %d counters moved\n", n, np, moved);
    free(before);
    free(pv);
}

static void test_categories(void)
{
    int n, stamp, stamp2, nc, np, nk, ncv, npv, ncat;
    CHECK_RC(MPI_T_category_get_num(&n));
    CHECK_RC(MPI_T_cvar_get_num(&ncv));
    CHECK_RC(MPI_T_pvar_get_num(&npv));
    CHECK_RC(MPI_T_category_changed(&stamp));
    for (int i = 0; i < n; i++) {
        char name[256], desc[1024];
        int nl = 0, dl = 0, idx, ix[4096];
        check_string(cat_name, i, name, sizeof(name));
        check_string(cat_desc, i, desc, sizeof(desc));
        CHECK_RC(MPI_T_category_get_info(i, NULL, &nl, NULL, &dl, &nc, &np, &nk));
        CHECK_RC(MPI_T_category_get_index(name, &idx));
        CHECK(idx == i);
        CHECK(nc <= 4096 && np <= 4096 && nk <= 4096);
        CHECK_RC(MPI_T_category_get_cvars(i, nc, ix));
        for (int k = 0; k < nc; k++)
            CHECK(ix[k] >= 0 && ix[k] < ncv);
        CHECK_RC(MPI_T_category_get_pvars(i, np, ix));
        for (int k = 0; k < np; k++)
            CHECK(ix[k] >= 0 && ix[k] < npv);
        CHECK_RC(MPI_T_category_get_categories(i, nk, ix));
        for (int k = 0; k < nk; k++)
            CHECK(ix[k] >= 0 && ix[k] < n && ix[k] != i);
        CHECK_RC(MPI_T_category_get_cvars(i, 0, ix)); /* len 0: nothing, no error */
    }
    int idx;
    CHECK(MPI_T_category_get_index("no such category, surely", &idx) == MPI_T_ERR_INVALID_NAME);
    CHECK_RC(MPI_T_category_changed(&stamp2));
    CHECK(stamp2 == stamp);
    (void)ncat;
}

static void check_not_initialized(void)
{
    int n, stamp, prov;
    (void)prov;
    TCHECK(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
    TCHECK(MPI_T_pvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
    TCHECK(MPI_T_category_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
    TCHECK(MPI_T_category_changed(&stamp) == MPI_T_ERR_NOT_INITIALIZED);
    TCHECK(MPI_T_finalize() == MPI_T_ERR_NOT_INITIALIZED);
}

int main(int argc, char **argv)
{
    int prov, n0, n1;
    check_not_initialized();
    /* the tools interface before MPI_Init: nested, the variables listed there too */
    TCHECK(MPI_SUCCESS == MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
    TCHECK(MPI_SUCCESS == MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
    TCHECK(MPI_SUCCESS == MPI_T_cvar_get_num(&n0));
    g_rank = 0;
    test_cvars(0);
    TCHECK(MPI_SUCCESS == MPI_T_finalize());
    TCHECK(MPI_SUCCESS == MPI_T_cvar_get_num(&n1)); /* still initialised once */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    TCHECK(MPI_SUCCESS == MPI_T_cvar_get_num(&n1));
    TCHECK(n1 >= n0); /* variables are never removed */
    test_cvars(1);
    test_pvars();
    test_categories();
    TCHECK(MPI_SUCCESS == MPI_T_finalize());
    check_not_initialized();
    /* MPI_T again after a full finalize */
    TCHECK(MPI_SUCCESS == MPI_T_init_thread(MPI_THREAD_SINGLE, &prov));
    TCHECK(MPI_SUCCESS == MPI_T_cvar_get_num(&n0));
    TCHECK(MPI_SUCCESS == MPI_T_finalize());
    mt_done("tc_mpit");
    MPI_Finalize();
    /* and after MPI_Finalize */
    TCHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &prov) == MPI_SUCCESS);
    TCHECK(MPI_T_cvar_get_num(&n0) == MPI_SUCCESS);
    TCHECK(MPI_T_finalize() == MPI_SUCCESS);
    return 0;
}
