/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Info objects: keys round-trip, lengths (MPI_Info_get, MPI_Info_get_string's buflen in/out,
 * MPI_Info_get_valuelen), MPI_Info_get_nthkey's order, MPI_Info_dup independence, MPI_INFO_ENV
 * and MPI_Info_create_env, and every error class under MPI_ERRORS_RETURN.
 */
#include "mpitest.h"

static void check_value(MPI_Info info, const char *key, const char *want)
{
    char buf[MPI_MAX_INFO_VAL + 1];
    int flag = -1, len = -1;
    CHECK_RC(MPI_Info_get_valuelen(info, key, &len, &flag));
    CHECK(flag && len == (int)strlen(want));
    int buflen = (int)sizeof(buf);
    CHECK_RC(MPI_Info_get_string(info, key, &buflen, buf, &flag));
    CHECK(flag && buflen == (int)strlen(want) + 1 && strcmp(buf, want) == 0);
    CHECK_RC(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, buf, &flag));
    CHECK(flag && strcmp(buf, want) == 0);
}

static void check_missing(MPI_Info info, const char *key)
{
    char buf[16] = "untouched";
    int flag = -1, len = 77, buflen = 16;
    CHECK_RC(MPI_Info_get_valuelen(info, key, &len, &flag));
    CHECK(!flag && len == 77);
    CHECK_RC(MPI_Info_get_string(info, key, &buflen, buf, &flag));
    CHECK(!flag && buflen == 16 && strcmp(buf, "untouched") == 0);
    CHECK_RC(MPI_Info_get(info, key, 15, buf, &flag));
    CHECK(!flag && strcmp(buf, "untouched") == 0);
}

static void test_roundtrip(void)
{
    MPI_Info info;
    CHECK_RC(MPI_Info_create(&info));
    CHECK(info != MPI_INFO_NULL);
    int nkeys = -1;
    CHECK_RC(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 0);
    CHECK_RC(MPI_Info_set(info, "zeta", "1"));
    CHECK_RC(MPI_Info_set(info, "alpha", "two words"));
    CHECK_RC(MPI_Info_set(info, "mid", "x"));
    CHECK_RC(MPI_Info_set(info, "zeta", "replaced value")); /* keeps its place */
    CHECK_RC(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 3);
    check_value(info, "zeta", "replaced value");
    check_value(info, "alpha", "two words");
    check_value(info, "mid", "x");
    check_missing(info, "Zeta"); /* keys are case-sensitive */
    char key[MPI_MAX_INFO_KEY + 1];
    const char *order[] = {"zeta", "alpha", "mid"};
    for (int i = 0; i < 3; i++) {
        CHECK_RC(MPI_Info_get_nthkey(info, i, key));
        CHECK(strcmp(key, order[i]) == 0);
    }

    /* MPI_Info_get truncates to valuelen characters plus a NUL. */
    char small[8];
    int flag;
    memset(small, '#', sizeof(small));
    CHECK_RC(MPI_Info_get(info, "alpha", 3, small, &flag));
    CHECK(flag && strcmp(small, "two") == 0 && small[4] == '#');

    /* MPI_Info_get_string: buflen 0 only asks the length; a short buffer truncates. */
    int buflen = 0;
    CHECK_RC(MPI_Info_get_string(info, "alpha", &buflen, NULL, &flag));
    CHECK(flag && buflen == 10);
    buflen = 4;
    memset(small, '#', sizeof(small));
    CHECK_RC(MPI_Info_get_string(info, "alpha", &buflen, small, &flag));
    CHECK(flag && buflen == 10 && strcmp(small, "two") == 0 && small[4] == '#');

    /* The longest key and value are accepted and come back whole. */
    char longkey[MPI_MAX_INFO_KEY + 2], longval[MPI_MAX_INFO_VAL + 2];
    memset(longkey, 'k', MPI_MAX_INFO_KEY);
    longkey[MPI_MAX_INFO_KEY] = '\0';
    memset(longval, 'v', MPI_MAX_INFO_VAL);
    longval[MPI_MAX_INFO_VAL] = '\0';
    CHECK_RC(MPI_Info_set(info, longkey, longval));
    check_value(info, longkey, longval);
    CHECK_RC(MPI_Info_get_nthkey(info, 3, key));
    CHECK(strcmp(key, longkey) == 0);

    /* Delete: the others keep their order. */
    CHECK_RC(MPI_Info_delete(info, "alpha"));
    check_missing(info, "alpha");
    CHECK_RC(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 3);
    CHECK_RC(MPI_Info_get_nthkey(info, 0, key));
    CHECK(strcmp(key, "zeta") == 0);
    CHECK_RC(MPI_Info_get_nthkey(info, 1, key));
    CHECK(strcmp(key, "mid") == 0);

    /* Dup: same keys in the same order, then independent both ways. */
    MPI_Info dup;
    CHECK_RC(MPI_Info_dup(info, &dup));
    CHECK(dup != info);
    int dn;
    CHECK_RC(MPI_Info_get_nkeys(dup, &dn));
    CHECK(dn == 3);
    for (int i = 0; i < 3; i++) {
        char k1[MPI_MAX_INFO_KEY + 1], k2[MPI_MAX_INFO_KEY + 1];
        CHECK_RC(MPI_Info_get_nthkey(info, i, k1));
        CHECK_RC(MPI_Info_get_nthkey(dup, i, k2));
        CHECK(strcmp(k1, k2) == 0);
    }
    CHECK_RC(MPI_Info_set(dup, "zeta", "only in dup"));
    CHECK_RC(MPI_Info_set(dup, "new", "n"));
    CHECK_RC(MPI_Info_delete(info, "mid"));
    check_value(info, "zeta", "replaced value");
    check_missing(info, "new");
    check_value(dup, "mid", "x");
    check_value(dup, "zeta", "only in dup");
    CHECK_RC(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL);
    check_value(dup, "mid", "x"); /* the dup outlives its source */
    CHECK_RC(MPI_Info_free(&dup));
    CHECK(dup == MPI_INFO_NULL);

    /* Many keys, many infos: handles are reused and contents stay right. */
    MPI_Info many[20];
    for (int i = 0; i < 20; i++) {
        CHECK_RC(MPI_Info_create(&many[i]));
        for (int k = 0; k <= i; k++) {
            char kk[32], vv[32];
            snprintf(kk, sizeof(kk), "key%d", k);
            snprintf(vv, sizeof(vv), "%d-%d", i, k);
            CHECK_RC(MPI_Info_set(many[i], kk, vv));
        }
    }
    for (int i = 0; i < 20; i += 2)
        CHECK_RC(MPI_Info_free(&many[i]));
    for (int i = 1; i < 20; i += 2) {
        CHECK_RC(MPI_Info_get_nkeys(many[i], &nkeys));
        CHECK(nkeys == i + 1);
        char vv[32];
        snprintf(vv, sizeof(vv), "%d-%d", i, i);
        char kk[32];
        snprintf(kk, sizeof(kk), "key%d", i);
        check_value(many[i], kk, vv);
        CHECK_RC(MPI_Info_free(&many[i]));
    }
}

static MPI_Info env_before; /* MPI_Info_create_env before MPI_Init */
static void same_info(MPI_Info a, MPI_Info b);
static int keys_in(MPI_Info a, MPI_Info b);

static void test_env(void)
{
    int provided;
    CHECK_RC(MPI_Query_thread(&provided));
    char buf[MPI_MAX_INFO_VAL + 1];
    int flag, size;
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_RC(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, buf, &flag));
    CHECK(flag && atoi(buf) == size);
    CHECK_RC(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, buf, &flag));
    CHECK(flag && strstr(buf, "info_basic") != NULL);
    CHECK_RC(MPI_Info_get(MPI_INFO_ENV, "argv", MPI_MAX_INFO_VAL, buf, &flag));
    CHECK(flag && strcmp(buf, "first second") == 0);
    CHECK_RC(MPI_Info_get(MPI_INFO_ENV, "thread_level", MPI_MAX_INFO_VAL, buf, &flag));
    const char *levels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                            "MPI_THREAD_MULTIPLE"};
    CHECK(flag && provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE &&
          strcmp(buf, levels[provided - MPI_THREAD_SINGLE]) == 0);
    CHECK_RC(MPI_Info_get(MPI_INFO_ENV, "wdir", MPI_MAX_INFO_VAL, buf, &flag));
    CHECK(flag && buf[0] == '/');
    check_missing(MPI_INFO_ENV, "no such key");

    /* MPI_Info_create_env: what MPI_INFO_ENV has of what is known before MPI_Init too */
    MPI_Info env;
    CHECK_RC(MPI_Info_create_env(0, NULL, &env));
    CHECK(keys_in(env, MPI_INFO_ENV) >= 4);
    same_info(env, env_before);
    CHECK_RC(MPI_Info_set(env, "maxprocs", "12345")); /* a copy: MPI_INFO_ENV unchanged */
    CHECK_RC(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, buf, &flag));
    CHECK(flag && atoi(buf) == size);
    CHECK_RC(MPI_Info_free(&env));
}

static void test_errors(void)
{
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int cls, flag, n, buflen;
    char buf[MPI_MAX_INFO_VAL + 2];
    MPI_Info info;
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Info_set(info, "a", "b"));

    char longkey[MPI_MAX_INFO_KEY + 2], longval[MPI_MAX_INFO_VAL + 2];
    memset(longkey, 'k', MPI_MAX_INFO_KEY + 1);
    longkey[MPI_MAX_INFO_KEY + 1] = '\0';
    memset(longval, 'v', MPI_MAX_INFO_VAL + 1);
    longval[MPI_MAX_INFO_VAL + 1] = '\0';

#define EXPECT(call, want)                                                                         \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        CHECK(rc_ != MPI_SUCCESS);                                                                 \
        MPI_Error_class(rc_, &cls);                                                                \
        CHECK(cls == (want));                                                                      \
    } while (0)

    EXPECT(MPI_Info_set(info, longkey, "v"), MPI_ERR_INFO_KEY);
    EXPECT(MPI_Info_get(info, longkey, 10, buf, &flag), MPI_ERR_INFO_KEY);
    buflen = 10;
    EXPECT(MPI_Info_get_string(info, longkey, &buflen, buf, &flag), MPI_ERR_INFO_KEY);
    EXPECT(MPI_Info_get_valuelen(info, longkey, &n, &flag), MPI_ERR_INFO_KEY);
    EXPECT(MPI_Info_delete(info, longkey), MPI_ERR_INFO_KEY);
    EXPECT(MPI_Info_set(info, "k", longval), MPI_ERR_INFO_VALUE);
    EXPECT(MPI_Info_delete(info, "missing"), MPI_ERR_INFO_NOKEY);
    EXPECT(MPI_Info_get_nthkey(info, 1, buf), MPI_ERR_ARG);
    EXPECT(MPI_Info_get_nthkey(info, -1, buf), MPI_ERR_ARG);
    EXPECT(MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_ERR_INFO);
    EXPECT(MPI_Info_set(MPI_INFO_NULL, "a", "b"), MPI_ERR_INFO);
    EXPECT(MPI_Info_dup(MPI_INFO_NULL, &info), MPI_ERR_INFO);
    MPI_Info bad = MPI_INFO_NULL;
    EXPECT(MPI_Info_free(&bad), MPI_ERR_INFO);
    EXPECT(MPI_Info_get_nkeys((MPI_Info)0x7fffffff, &n), MPI_ERR_INFO);
    bad = MPI_INFO_ENV;
    EXPECT(MPI_Info_free(&bad), MPI_ERR_INFO);
    CHECK(bad == MPI_INFO_ENV);
    /* Failed calls changed nothing. */
    CHECK_RC(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 1);
    MPI_Info freed = info;
    CHECK_RC(MPI_Info_free(&info));
    EXPECT(MPI_Info_get_nkeys(freed, &n), MPI_ERR_INFO);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Every key of a is in b with the same value; returns how many a has. */
static int keys_in(MPI_Info a, MPI_Info b)
{
    int na, flag;
    CHECK_RC(MPI_Info_get_nkeys(a, &na));
    for (int i = 0; i < na; i++) {
        char key[MPI_MAX_INFO_KEY + 1], v[MPI_MAX_INFO_VAL + 1];
        CHECK_RC(MPI_Info_get_nthkey(a, i, key));
        CHECK_RC(MPI_Info_get(a, key, MPI_MAX_INFO_VAL, v, &flag));
        CHECK(flag);
        check_value(b, key, v);
    }
    return na;
}

/* Both infos have the same keys with the same values. */
static void same_info(MPI_Info a, MPI_Info b)
{
    int nb;
    CHECK_RC(MPI_Info_get_nkeys(b, &nb));
    CHECK(keys_in(a, b) == nb);
}

int main(int argc, char **argv)
{
    /* Info objects may be used before MPI_Init (MPI 4.0). */
    MPI_Info early;
    CHECK_RC(MPI_Info_create_env(argc, argv, &env_before));
    CHECK_RC(MPI_Info_create(&early));
    CHECK_RC(MPI_Info_set(early, "before", "init"));
    int provided;
    CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
    check_value(early, "before", "init");
    CHECK_RC(MPI_Info_free(&early));
    test_roundtrip();
    test_env();
    test_errors();
    mt_done("info_basic");
    MPI_Finalize();
    /* MPI_Info_create_env gives the same before, during and after MPI (MPI 4.1 section 11.2.6:
     * MPI_INFO_ENV's construction with the same arguments) */
    MPI_Info after;
    CHECK_RC(MPI_Info_create_env(argc, argv, &after));
    same_info(after, env_before);
    CHECK_RC(MPI_Info_free(&after));
    CHECK_RC(MPI_Info_free(&env_before));
    return 0;
}
