/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tools interface (MPI_T): initialisation before MPI_Init and after MPI_Finalize, every
 * control variable's info, index and value, enums, categories covering every variable once,
 * performance-variable sessions, handles, start / stop / reset on counters and the error codes.
 * Standard MPI; the checks of named variables run only where Ibex's are present (IBEX_*
 * cvars, ibex_* pvars), so the program passes under any MPI. Run at 2 ranks or more with
 * IBEX_SPIN_COUNT=777 in the environment.
 */
#include "mpitest.h"

static int rank, size;

static int cvar_index(const char *name)
{
    int i;
    return MPI_T_cvar_get_index(name, &i) == MPI_SUCCESS ? i : -1;
}

static int pvar_index(const char *name, int cls)
{
    int i;
    return MPI_T_pvar_get_index(name, cls, &i) == MPI_SUCCESS ? i : -1;
}

/* Every cvar: info (lengths asked first, then the strings), its index by name, a read. */
static void check_cvars(void)
{
    int n;
    CHECK_RC(MPI_T_cvar_get_num(&n));
    CHECK(n > 0);
    for (int i = 0; i < n; i++) {
        int name_len = 0, desc_len = 0, verb, bind, scope, count;
        MPI_Datatype dt;
        MPI_T_enum en;
        CHECK_RC(MPI_T_cvar_get_info(i, NULL, &name_len, &verb, &dt, &en, NULL, &desc_len, &bind,
                                     &scope));
        CHECK(name_len > 1 && desc_len >= 0);
        char *name = malloc((size_t)name_len), *desc = malloc((size_t)desc_len + 1);
        CHECK_RC(MPI_T_cvar_get_info(i, name, &name_len, &verb, &dt, &en, desc, &desc_len, &bind,
                                     &scope));
        CHECK((int)strlen(name) + 1 == name_len && cvar_index(name) == i);
        if (bind != MPI_T_BIND_NO_OBJECT) {
            free(name);
            free(desc);
            continue;
        }
        MPI_T_cvar_handle h;
        CHECK_RC(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
        CHECK(count >= 1);
        int tsize = 16, init, fini; /* MPI_Type_size only while MPI runs */
        CHECK_RC(MPI_Initialized(&init));
        CHECK_RC(MPI_Finalized(&fini));
        if (init && !fini)
            CHECK_RC(MPI_Type_size(dt, &tsize));
        char *buf = calloc((size_t)count, (size_t)tsize);
        CHECK_RC(MPI_T_cvar_read(h, buf));
        /* an enum's value is one of its items (Ibex's; other MPIs have flag-set enums) */
        if (en != MPI_T_ENUM_NULL && strncmp(name, "IBEX_", 5) == 0) {
            int items, v, found = 0;
            CHECK_RC(MPI_T_enum_get_info(en, &items, NULL, NULL));
            for (int k = 0; k < items; k++) {
                char item[64];
                int len = sizeof(item);
                CHECK_RC(MPI_T_enum_get_item(en, k, &v, item, &len));
                found |= dt == MPI_INT && v == *(int *)buf;
            }
            CHECK(found);
        }
        CHECK_RC(MPI_T_cvar_handle_free(&h));
        CHECK(h == MPI_T_CVAR_HANDLE_NULL);
        free(buf);
        free(name);
        free(desc);
    }
}

/* Every cvar and pvar is in exactly one category. */
static void check_categories(void)
{
    int ncat, ncv, npv;
    CHECK_RC(MPI_T_category_get_num(&ncat));
    CHECK_RC(MPI_T_cvar_get_num(&ncv));
    CHECK_RC(MPI_T_pvar_get_num(&npv));
    int *seen_c = calloc((size_t)ncv + 1, sizeof(int)),
        *seen_p = calloc((size_t)npv + 1, sizeof(int));
    for (int c = 0; c < ncat; c++) {
        int nc, np, nsub, len = 0, back;
        CHECK_RC(MPI_T_category_get_info(c, NULL, &len, NULL, NULL, &nc, &np, &nsub));
        char *name = malloc((size_t)len);
        CHECK_RC(MPI_T_category_get_info(c, name, &len, NULL, NULL, &nc, &np, &nsub));
        CHECK_RC(MPI_T_category_get_index(name, &back));
        CHECK(back == c);
        int idx[256];
        CHECK(nc <= 256 && np <= 256);
        CHECK_RC(MPI_T_category_get_cvars(c, nc, idx));
        for (int k = 0; k < nc; k++)
            seen_c[idx[k]]++;
        CHECK_RC(MPI_T_category_get_pvars(c, np, idx));
        for (int k = 0; k < np; k++)
            seen_p[idx[k]]++;
        free(name);
    }
    if (cvar_index("IBEX_SPIN_COUNT") >= 0) { /* Ibex files each variable once */
        for (int i = 0; i < ncv; i++)
            CHECK(seen_c[i] == 1);
        for (int i = 0; i < npv; i++)
            CHECK(seen_p[i] == 1);
    }
    free(seen_c);
    free(seen_p);
}

/* Ibex: a live cvar is writable, a start-up one is not; the environment's value shows. */
static void check_ibex_cvars(void)
{
    int i = cvar_index("IBEX_SPIN_COUNT"), count, v, scope;
    if (i < 0)
        return;
    MPI_Datatype dt;
    CHECK_RC(MPI_T_cvar_get_info(i, NULL, NULL, NULL, &dt, NULL, NULL, NULL, NULL, &scope));
    CHECK(dt == MPI_INT && scope == MPI_T_SCOPE_LOCAL);
    MPI_T_cvar_handle h;
    CHECK_RC(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    CHECK_RC(MPI_T_cvar_read(h, &v));
    CHECK(v == 777); /* set in the environment by the test script */
    v = 123;
    CHECK_RC(MPI_T_cvar_write(h, &v));
    v = 0;
    CHECK_RC(MPI_T_cvar_read(h, &v));
    CHECK(v == 123);
    v = -5;
    CHECK(MPI_T_cvar_write(h, &v) == MPI_T_ERR_INVALID);
    CHECK_RC(MPI_T_cvar_handle_free(&h));

    i = cvar_index("IBEX_EAGER_LIMIT");
    CHECK(i >= 0);
    CHECK_RC(MPI_T_cvar_get_info(i, NULL, NULL, NULL, &dt, NULL, NULL, NULL, NULL, &scope));
    CHECK(dt == MPI_COUNT && scope == MPI_T_SCOPE_CONSTANT);
    MPI_Count ll = 4096;
    CHECK_RC(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    CHECK(MPI_T_cvar_write(h, &ll) == MPI_T_ERR_CVAR_SET_NEVER);
    CHECK_RC(MPI_T_cvar_handle_free(&h));

    i = cvar_index("IBEX_WAIT_POLICY");
    MPI_T_enum en;
    int items;
    char item[16];
    int len = sizeof(item);
    CHECK_RC(MPI_T_cvar_get_info(i, NULL, NULL, NULL, &dt, &en, NULL, NULL, NULL, NULL));
    CHECK_RC(MPI_T_enum_get_info(en, &items, NULL, NULL));
    CHECK(items == 3);
    CHECK_RC(MPI_T_enum_get_item(en, 2, &v, item, &len));
    CHECK(v == 2 && strcmp(item, "yield") == 0 && len == 6);
    CHECK(MPI_T_enum_get_item(en, 3, &v, item, &len) == MPI_T_ERR_INVALID_ITEM);
}

static MPI_T_pvar_handle pvar_open(MPI_T_pvar_session s, const char *name, int cls)
{
    int i = pvar_index(name, cls), count;
    CHECK(i >= 0);
    MPI_T_pvar_handle h;
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count));
    CHECK(count == 1);
    return h;
}

static unsigned long long pvar_get(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v;
    CHECK_RC(MPI_T_pvar_read(s, h, &v));
    return v;
}

/* Ibex: rendezvous counters count while started only; the unexpected queue's level. */
static void check_ibex_pvars(void)
{
    if (pvar_index("ibex_rndv_read", MPI_T_PVAR_CLASS_COUNTER) < 0 || size < 2)
        return;
    MPI_T_pvar_session s;
    CHECK_RC(MPI_T_pvar_session_create(&s));
    const char *names[3] = {"ibex_rndv_read", "ibex_rndv_write", "ibex_rndv_split"};
    MPI_T_pvar_handle rndv[3];
    for (int k = 0; k < 3; k++)
        rndv[k] = pvar_open(s, names[k], MPI_T_PVAR_CLASS_COUNTER);
    size_t big = 1 << 20;
    char *buf = malloc(big);
    memset(buf, 1, big);
    for (int round = 0; round < 2; round++) { /* round 0 stopped, round 1 started */
        if (round == 1)
            CHECK_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
        for (int m = 0; m < 3; m++) {
            if (rank == 0)
                CHECK_RC(MPI_Send(buf, (int)big, MPI_CHAR, 1, 3, MPI_COMM_WORLD));
            else if (rank == 1)
                CHECK_RC(
                    MPI_Recv(buf, (int)big, MPI_CHAR, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    }
    CHECK_RC(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    unsigned long long total = 0;
    for (int k = 0; k < 3; k++)
        total += pvar_get(s, rndv[k]);
    CHECK(total == (rank == 0 ? 3u : 0u));
    CHECK_RC(MPI_T_pvar_reset(s, rndv[0]));
    CHECK(pvar_get(s, rndv[0]) == 0);

    /* 5 messages nobody has asked for yet: the level rises by 5, then falls back */
    MPI_T_pvar_handle unexp = pvar_open(s, "ibex_unexpected_msgs", MPI_T_PVAR_CLASS_LEVEL);
    MPI_T_pvar_handle hwm =
        pvar_open(s, "ibex_unexpected_bytes_hwm", MPI_T_PVAR_CLASS_HIGHWATERMARK);
    CHECK(MPI_T_pvar_start(s, unexp) == MPI_T_ERR_PVAR_NO_STARTSTOP);
    CHECK(MPI_T_pvar_reset(s, unexp) == MPI_T_ERR_PVAR_NO_WRITE);
    /* rank 1 reads the level, then lets rank 0 send 5 messages and a marker; once rank 1 has
     * the marker, the 5 are queued unexpected (they came first on the same path) */
    unsigned long long before = pvar_get(s, unexp);
    int vals[6] = {1, 2, 3, 4, 5, 6}, go = 1;
    if (rank == 1)
        CHECK_RC(MPI_Send(&go, 1, MPI_INT, 0, 8, MPI_COMM_WORLD));
    if (rank == 0) {
        CHECK_RC(MPI_Recv(&go, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int m = 0; m < 6; m++)
            CHECK_RC(MPI_Send(&vals[m], 1, MPI_INT, 1, m < 5 ? 9 : 10, MPI_COMM_WORLD));
    }
    if (rank == 1) {
        CHECK_RC(MPI_Recv(&vals[5], 1, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(pvar_get(s, unexp) == before + 5);
        CHECK(pvar_get(s, hwm) >= 5 * sizeof(int));
        for (int m = 0; m < 5; m++)
            CHECK_RC(MPI_Recv(&vals[m], 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(pvar_get(s, unexp) == before);
    }
    CHECK_RC(MPI_T_pvar_handle_free(s, &unexp));
    CHECK(MPI_T_pvar_read(s, unexp, &before) == MPI_T_ERR_INVALID_HANDLE);
    CHECK_RC(MPI_T_pvar_session_free(&s));
    CHECK(s == MPI_T_PVAR_SESSION_NULL);
    free(buf);
}

static void check_errors(void)
{
    int n, x;
    CHECK_RC(MPI_T_cvar_get_num(&n));
    CHECK(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
          MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_cvar_get_index("no such variable", &x) == MPI_T_ERR_INVALID_NAME);
    CHECK(MPI_T_pvar_get_index("no such variable", MPI_T_PVAR_CLASS_COUNTER, &x) ==
          MPI_T_ERR_INVALID_NAME);
    CHECK_RC(MPI_T_category_get_num(&n));
    CHECK(MPI_T_category_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
          MPI_T_ERR_INVALID_INDEX);
}

/* Events are optional (MPI 4.0): with no sources and no event types, every index, name,
 * registration and instance is invalid, each with its own class. */
static void check_events(void)
{
    int n = -1, x, ncat;
    CHECK_RC(MPI_T_source_get_num(&n));
    if (n != 0) /* another MPI may offer events: nothing below applies */
        return;
    CHECK_RC(MPI_T_event_get_num(&n));
    CHECK(n == 0);
    MPI_Count c;
    CHECK(MPI_T_source_get_timestamp(0, &c) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
          MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                               NULL) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_event_get_index("no such event", &x) == MPI_T_ERR_INVALID_NAME);
    MPI_T_event_registration reg = NULL;
    CHECK(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_event_handle_set_info(reg, MPI_INFO_NULL) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_event_handle_free(reg, NULL, NULL) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, NULL) ==
          MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_event_set_dropped_handler(reg, NULL) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_event_get_source(NULL, &x) == MPI_T_ERR_INVALID_HANDLE);
    CHECK_RC(MPI_T_category_get_num(&ncat));
    for (int i = 0; i < ncat; i++) {
        CHECK_RC(MPI_T_category_get_num_events(i, &n));
        CHECK(n == 0);
        CHECK_RC(MPI_T_category_get_events(i, 0, NULL));
    }
    CHECK(MPI_T_category_get_num_events(ncat, &n) == MPI_T_ERR_INVALID_INDEX);
}

int main(int argc, char **argv)
{
    int provided, n;
    CHECK(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK(provided == MPI_THREAD_SINGLE);
    check_cvars(); /* before MPI_Init */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)); /* nested */
    check_cvars();
    check_categories();
    check_ibex_cvars();
    check_ibex_pvars();
    check_errors();
    check_events();
    CHECK_RC(MPI_T_finalize());
    CHECK_RC(MPI_T_finalize());
    CHECK(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
    CHECK(MPI_T_event_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
    mt_done("mpit_basic");
    MPI_Finalize();
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)); /* after MPI_Finalize too */
    check_cvars();
    CHECK_RC(MPI_T_finalize());
    return 0;
}
