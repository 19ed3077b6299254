/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Info objects (MPI 4.1 section 10): MPI_Info_create / set / get / get_string / get_valuelen /
 * delete / get_nkeys / get_nthkey / dup / free, MPI_INFO_ENV and MPI_Info_create_env.
 *
 * An info is an ordered list of (key, value) strings: MPI_Info_get_nthkey numbers the keys in
 * the order they were first set (setting an existing key replaces its value in place), and
 * MPI_Info_dup keeps that order. As MPI 4.0 allows, every call here is valid at any time,
 * before MPI_Init and after MPI_Finalize too. Errors are not tied to a communicator: they go
 * to the default handler (MPI_COMM_SELF's if set, else MPI_COMM_WORLD's).
 *
 * MPI_INFO_ENV is predefined (index 1 of the table) and read-only: set / delete / free on it
 * are MPI_ERR_INFO. It holds the keys of MPI 4.1 section 11.2.6 that Ibex knows honestly:
 * command and argv (from /proc/self/cmdline), maxprocs (the job size), host (this node's
 * name), arch (uname's machine), wdir (the working directory) and thread_level (the level
 * MPI_Init_thread provided). The size and thread level exist once MPI is initialized;
 * MPI_INFO_ENV is rebuilt when that changes. soft and file are never set: the launcher has no
 * such options. MPI_Info_create_env gives the keys that do not depend on MPI running (command,
 * argv, host from gethostname, arch, wdir), so its info is the same before, during and after.
 *
 * State: the info handle table belongs to the global lock of ibex_thread.h.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ibex_handle.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

typedef struct info_entry {
    char *key, *value;
} info_entry_t;

typedef struct ibex_info {
    info_entry_t *entries;
    int n, cap;
} ibex_info_t;

#define INFO_FIRST_DYNAMIC 2

static ibex_handle_table_t info_table; /* owned by the global lock (ibex_thread.h) */
static ibex_info_t info_env;
static int info_env_state = -1; /* -1 never built, else ibex_rt.initialized when built */

static void info_clear(ibex_info_t *in)
{
    for (int i = 0; i < in->n; i++) {
        free(in->entries[i].key);
        free(in->entries[i].value);
    }
    free(in->entries);
    memset(in, 0, sizeof(*in));
}

static int info_find(const ibex_info_t *in, const char *key)
{
    for (int i = 0; i < in->n; i++)
        if (strcmp(in->entries[i].key, key) == 0)
            return i;
    return -1;
}

/* false when out of memory (the info is then unchanged). */
static bool info_put(ibex_info_t *in, const char *key, const char *value)
{
    char *v = strdup(value);
    if (!v)
        return false;
    int i = info_find(in, key);
    if (i >= 0) {
        free(in->entries[i].value);
        in->entries[i].value = v;
        return true;
    }
    if (in->n == in->cap) {
        int cap = in->cap ? 2 * in->cap : 8;
        info_entry_t *e = realloc(in->entries, (size_t)cap * sizeof(*e));
        if (!e) {
            free(v);
            return false;
        }
        in->entries = e;
        in->cap = cap;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return false;
    }
    in->entries[in->n].key = k;
    in->entries[in->n].value = v;
    in->n++;
    return true;
}

/* command and argv from /proc/self/cmdline (argv[0] NUL argv[1] NUL ...), the same before
 * MPI_Init as after. */
static void env_command(ibex_info_t *in)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f)
        return;
    char buf[MPI_MAX_INFO_VAL + 1], args[MPI_MAX_INFO_VAL + 1] = "";
    size_t len = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[len] = '\0';
    size_t first = strlen(buf);
    if (first > 0 && first < len) {
        size_t alen = 0;
        for (size_t i = first + 1; i < len && alen < sizeof(args) - 1; i++)
            args[alen++] = buf[i] ? buf[i] : ' ';
        while (alen > 0 && args[alen - 1] == ' ')
            alen--;
        args[alen] = '\0';
    }
    if (first > 0)
        info_put(in, "command", buf);
    if (args[0])
        info_put(in, "argv", args);
}

/* The keys that do not depend on MPI running: command, argv, host, arch, wdir. */
static void env_static(ibex_info_t *in)
{
    env_command(in);
    char host[MPI_MAX_INFO_VAL + 1];
    if (gethostname(host, sizeof(host) - 1) == 0) {
        host[sizeof(host) - 1] = '\0';
        info_put(in, "host", host);
    }
    struct utsname u;
    if (uname(&u) == 0)
        info_put(in, "arch", u.machine);
    char cwd[MPI_MAX_INFO_VAL + 1];
    if (getcwd(cwd, sizeof(cwd)))
        info_put(in, "wdir", cwd);
}

static void info_env_build(void)
{
    int state = ibex_rt.running;
    if (info_env_state == state)
        return;
    info_clear(&info_env);
    info_env_state = state;
    env_static(&info_env);
    if (!state)
        return;
    char num[32];
    snprintf(num, sizeof(num), "%d", ibex_rt.boot.size);
    info_put(&info_env, "maxprocs", num);
    static const char *const levels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                         "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
    int l = ibex_rt.thread_level;
    if (l >= MPI_THREAD_SINGLE && l <= MPI_THREAD_MULTIPLE)
        info_put(&info_env, "thread_level", levels[l - MPI_THREAD_SINGLE]);
}

static ibex_handle_table_t *info_table_get(void)
{
    if (info_table.kind == 0) {
        ibex_handle_table_init(&info_table, IBEX_KIND_INFO, INFO_FIRST_DYNAMIC);
        ibex_handle_set(&info_table, IBEX_HANDLE_INDEX(MPI_INFO_ENV), &info_env);
    }
    return &info_table;
}

/* The object of a live info handle (MPI_INFO_ENV included), or NULL after raising
 * MPI_ERR_INFO. */
static ibex_info_t *info_lookup(const ibex_entry_t *e, MPI_Info info)
{
    ibex_info_t *in = ibex_handle_get(info_table_get(), info);
    if (!in) {
        ibex_mpi_error(e->comm, MPI_ERR_INFO, e->call, "invalid info handle 0x%x%s", (unsigned)info,
                       info == MPI_INFO_NULL ? " (MPI_INFO_NULL)" : "");
        return NULL;
    }
    if (in == &info_env)
        info_env_build();
    return in;
}

/* A user info (not MPI_INFO_ENV) the call may change, or NULL after raising MPI_ERR_INFO. */
static ibex_info_t *info_lookup_mutable(const ibex_entry_t *e, MPI_Info info)
{
    ibex_info_t *in = info_lookup(e, info);
    if (in == &info_env) {
        ibex_mpi_error(e->comm, MPI_ERR_INFO, e->call, "MPI_INFO_ENV is predefined and read-only");
        return NULL;
    }
    return in;
}

static int info_check_key(const ibex_entry_t *e, const char *key)
{
    size_t len = strlen(key);
    if (len == 0)
        return ibex_mpi_error(e->comm, MPI_ERR_INFO_KEY, e->call, "empty info key");
    if (len > MPI_MAX_INFO_KEY)
        return ibex_mpi_error(e->comm, MPI_ERR_INFO_KEY, e->call,
                              "info key of %zu characters (MPI_MAX_INFO_KEY is %d)", len,
                              MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

static int info_new(const ibex_entry_t *e, const ibex_info_t *from, MPI_Info *out)
{
    ibex_info_t *in = calloc(1, sizeof(*in));
    bool ok = in != NULL;
    for (int i = 0; ok && from && i < from->n; i++)
        ok = info_put(in, from->entries[i].key, from->entries[i].value);
    int h = ok ? ibex_handle_alloc(info_table_get(), in) : -1;
    if (h < 0) {
        if (in)
            info_clear(in);
        free(in);
        return ibex_mpi_error(e->comm, MPI_ERR_NO_MEM, e->call, "out of memory for an info");
    }
    *out = h;
    return MPI_SUCCESS;
}

int PMPI_Info_create(MPI_Info *info)
{
    IBEX_ENTER_ANYTIME(Info_create);
    IBEX_ARGS(Info_create, info);
    return info_new(&ibex_e, NULL, info);
}

/* MPI 4.1 section 11.4.3: Ibex describes no hardware resource here (as Open MPI): the info is
 * new and empty. The hardware levels Ibex knows are named by MPI_Comm_split_type's
 * mpi_hw_resource_type hint instead. */
int PMPI_Get_hw_resource_info(MPI_Info *hw_info)
{
    IBEX_ENTER_ANYTIME(Get_hw_resource_info);
    IBEX_ARGS(Get_hw_resource_info, hw_info);
    return info_new(&ibex_e, NULL, hw_info);
}

/* The keys MPI_Init would give MPI_INFO_ENV that are known before it: the same before, during
 * and after MPI (MPICH's info/infocreateenv). maxprocs and thread_level come from the running
 * job, so only MPI_INFO_ENV has them, while MPI runs. */
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    IBEX_ENTER_ANYTIME(Info_create_env);
    (void)argc; /* /proc/self/cmdline gives the same command line, before MPI_Init too */
    (void)argv;
    IBEX_ARGS(Info_create_env, info);
    ibex_info_t env = {0};
    env_static(&env);
    int rc = info_new(&ibex_e, &env, info);
    info_clear(&env);
    return rc;
}

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    IBEX_ENTER_ANYTIME(Info_dup);
    ibex_info_t *in = info_lookup(&ibex_e, info);
    if (!in)
        return MPI_ERR_INFO;
    IBEX_ARGS(Info_dup, newinfo);
    return info_new(&ibex_e, in, newinfo);
}

int PMPI_Info_free(MPI_Info *info)
{
    IBEX_ENTER_ANYTIME(Info_free);
    IBEX_ARGS(Info_free, info);
    ibex_info_t *in = info_lookup_mutable(&ibex_e, *info);
    if (!in)
        return MPI_ERR_INFO;
    info_clear(in);
    free(in);
    ibex_handle_release(info_table_get(), *info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    IBEX_ENTER_ANYTIME(Info_set);
    ibex_info_t *in = info_lookup_mutable(&ibex_e, info);
    if (!in)
        return MPI_ERR_INFO;
    IBEX_ARGS(Info_set, key, value);
    IBEX_CHECK(info_check_key(&ibex_e, key));
    size_t vlen = strlen(value);
    if (vlen == 0)
        return IBEX_ERROR(MPI_ERR_INFO_VALUE, "empty info value for key \"%s\"", key);
    if (vlen > MPI_MAX_INFO_VAL)
        return IBEX_ERROR(MPI_ERR_INFO_VALUE,
                          "info value of %zu characters for key \"%s\" (MPI_MAX_INFO_VAL is %d)",
                          vlen, key, MPI_MAX_INFO_VAL);
    if (!info_put(in, key, value))
        return IBEX_ERROR(MPI_ERR_NO_MEM, "out of memory setting info key \"%s\"", key);
    return MPI_SUCCESS;
}

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    IBEX_ENTER_ANYTIME(Info_delete);
    ibex_info_t *in = info_lookup_mutable(&ibex_e, info);
    if (!in)
        return MPI_ERR_INFO;
    IBEX_ARGS(Info_delete, key);
    IBEX_CHECK(info_check_key(&ibex_e, key));
    int i = info_find(in, key);
    if (i < 0)
        return IBEX_ERROR(MPI_ERR_INFO_NOKEY, "info key \"%s\" is not set", key);
    free(in->entries[i].key);
    free(in->entries[i].value);
    memmove(&in->entries[i], &in->entries[i + 1], (size_t)(in->n - i - 1) * sizeof(in->entries[0]));
    in->n--;
    return MPI_SUCCESS;
}

/* Deprecated in MPI 4.1 (MPI_Info_get_string replaces it); valuelen excludes the NUL. */
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    IBEX_ENTER_ANYTIME(Info_get);
    ibex_info_t *in = info_lookup(&ibex_e, info);
    if (!in)
        return MPI_ERR_INFO;
    IBEX_ARGS(Info_get, key, value, flag);
    IBEX_CHECK(info_check_key(&ibex_e, key));
    if (valuelen < 0)
        return IBEX_ERROR(MPI_ERR_ARG, "negative valuelen %d", valuelen);
    int i = info_find(in, key);
    *flag = i >= 0;
    if (i >= 0) {
        size_t n = strlen(in->entries[i].value);
        if (n > (size_t)valuelen)
            n = (size_t)valuelen;
        memcpy(value, in->entries[i].value, n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}

/* MPI 4.0: *buflen in: the size of value (NUL included; 0: value is not touched), out: the
 * value's length plus one. value gets at most *buflen - 1 characters and a NUL. */
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    IBEX_ENTER_ANYTIME(Info_get_string);
    ibex_info_t *in = info_lookup(&ibex_e, info);
    if (!in)
        return MPI_ERR_INFO;
    IBEX_ARGS(Info_get_string, key, buflen, flag);
    IBEX_CHECK(info_check_key(&ibex_e, key));
    if (*buflen < 0)
        return IBEX_ERROR(MPI_ERR_ARG, "negative buflen %d", *buflen);
    if (*buflen > 0 && !value)
        return IBEX_ERROR(MPI_ERR_ARG, "value is NULL with buflen %d", *buflen);
    int i = info_find(in, key);
    *flag = i >= 0;
    if (i < 0)
        return MPI_SUCCESS;
    size_t len = strlen(in->entries[i].value);
    if (*buflen > 0) {
        size_t n = len < (size_t)*buflen - 1 ? len : (size_t)*buflen - 1;
        memcpy(value, in->entries[i].value, n);
        value[n] = '\0';
    }
    *buflen = (int)len + 1;
    return MPI_SUCCESS;
}

/* Deprecated in MPI 4.1 (MPI_Info_get_string replaces it); the length excludes the NUL. */
int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    IBEX_ENTER_ANYTIME(Info_get_valuelen);
    ibex_info_t *in = info_lookup(&ibex_e, info);
    if (!in)
        return MPI_ERR_INFO;
    IBEX_ARGS(Info_get_valuelen, key, valuelen, flag);
    IBEX_CHECK(info_check_key(&ibex_e, key));
    int i = info_find(in, key);
    *flag = i >= 0;
    if (i >= 0)
        *valuelen = (int)strlen(in->entries[i].value);
    return MPI_SUCCESS;
}

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    IBEX_ENTER_ANYTIME(Info_get_nkeys);
    ibex_info_t *in = info_lookup(&ibex_e, info);
    if (!in)
        return MPI_ERR_INFO;
    IBEX_ARGS(Info_get_nkeys, nkeys);
    *nkeys = in->n;
    return MPI_SUCCESS;
}

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    IBEX_ENTER_ANYTIME(Info_get_nthkey);
    ibex_info_t *in = info_lookup(&ibex_e, info);
    if (!in)
        return MPI_ERR_INFO;
    IBEX_ARGS(Info_get_nthkey, key);
    if (n < 0 || n >= in->n)
        return IBEX_ERROR(MPI_ERR_ARG, "key number %d out of range (the info has %d keys)", n,
                          in->n);
    strcpy(key, in->entries[n].key);
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(info)
