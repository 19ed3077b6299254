/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sessions (MPI 4.1 section 11.3): MPI_Session_init / finalize, the process sets, session
 * info and error handlers, MPI_Group_from_session_pset.
 *
 * A session is one reference on the engine (ibex_session.h): the first of MPI_Init and
 * MPI_Session_init starts it, the last of MPI_Finalize and MPI_Session_finalize stops it, so
 * sessions and the world model share one process and a session may begin after MPI_Finalize.
 * Stopping the engine is collective over the job (as MPI_Finalize), so the last release of
 * every process must be reached by all of them; releases that leave the engine running are
 * local. The process sets are "mpi://WORLD" (every process of the job) and "mpi://SELF".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "comm_impl.h"
#include "ibex_err.h"
#include "ibex_err_internal.h"
#include "ibex_handle.h"
#include "ibex_runtime.h"
#include "ibex_session.h"
#include "ibex_entry.h"

typedef struct ibex_session {
    int handle;
    MPI_Errhandler errhandler;
    MPI_Info info;    /* the program's hints (a copy), MPI_INFO_NULL when none */
    int thread_level; /* provided to this session */
} ibex_session_t;

static ibex_handle_table_t session_table;

static ibex_handle_table_t *session_table_get(void)
{
    if (session_table.kind == 0)
        ibex_handle_table_init(&session_table, IBEX_KIND_SESSION, 1);
    return &session_table;
}

/* The live session of a handle; a bad handle raises MPI_ERR_SESSION on the default handler. */
static ibex_session_t *session_lookup(MPI_Session handle, const char *call)
{
    ibex_session_t *s = ibex_handle_get(session_table_get(), handle);
    if (!s)
        ibex_mpi_error(NULL, MPI_ERR_SESSION, call, "invalid session handle 0x%x%s",
                       (unsigned)handle, handle == MPI_SESSION_NULL ? " (MPI_SESSION_NULL)" : "");
    return s;
}

#define IBEX_ENTER_SESSION(name, handle, s)                                                        \
    IBEX_ENTER_ANYTIME(name);                                                                      \
    ibex_session_t *s = session_lookup((handle), call);                                            \
    if (!s)                                                                                        \
    return MPI_ERR_SESSION

static int session_error(ibex_session_t *s, int errclass, const char *call, const char *cause)
{
    return ibex_mpi_error_obj(s->errhandler, s->handle, "the session", errclass, call, cause);
}

/* MPI_INFO_NULL or a live info handle. */
static bool info_ok(MPI_Info info)
{
    int n;
    return info == MPI_INFO_NULL || PMPI_Info_get_nkeys(info, &n) == MPI_SUCCESS;
}

static const char *const thread_names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                           "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};

/* The "thread_level" hint (MPI 4.1 section 11.3.1): every level is provided (the engine runs
 * at the highest one any instance asked for, runtime/mpi/init.c). Without the hint (or with a
 * value that names no level) MPI_THREAD_MULTIPLE: MPI leaves the default to the
 * implementation and advises against MPI_THREAD_SINGLE, which would conflict with any other
 * component of the program that asks for more (MPICH does the same). */
static int session_thread_level(MPI_Info info)
{
    char value[MPI_MAX_INFO_VAL + 1];
    int len = sizeof(value), flag = 0, level = MPI_THREAD_MULTIPLE;
    if (info != MPI_INFO_NULL)
        PMPI_Info_get_string(info, "thread_level", &len, value, &flag);
    for (int i = 0; flag && i < 4; i++)
        if (strcasecmp(value, thread_names[i]) == 0)
            level = MPI_THREAD_SINGLE + i;
    return level;
}

static ibex_session_t *session_new(MPI_Info info, MPI_Errhandler errhandler)
{
    ibex_session_t *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->errhandler = errhandler;
    s->info = MPI_INFO_NULL;
    s->thread_level = session_thread_level(info);
    if ((info != MPI_INFO_NULL && PMPI_Info_dup(info, &s->info) != MPI_SUCCESS) ||
        (s->handle = ibex_handle_alloc(session_table_get(), s)) < 0) {
        if (s->info != MPI_INFO_NULL)
            PMPI_Info_free(&s->info);
        free(s);
        return NULL;
    }
    ibex_errhandler_ref(errhandler);
    return s;
}

/* Session_init and Session_finalize from several threads at once, before (and without)
 * MPI_THREAD_MULTIPLE: the engine's reference count and the session table change under this
 * lock (the global lock of MPI_THREAD_MULTIPLE may not be on). */
static pthread_mutex_t session_lock = PTHREAD_MUTEX_INITIALIZER;

static int session_start(const char *call, MPI_Info info, MPI_Errhandler errhandler,
                         MPI_Session *session)
{
    ibex_err_set_start_handler(errhandler);
    int rc = ibex_mpi_instance_acquire(call, session_thread_level(info));
    ibex_err_set_start_handler(MPI_ERRHANDLER_NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    ibex_session_t *s = session_new(info, errhandler);
    if (!s) {
        ibex_mpi_instance_release(call);
        return ibex_mpi_error_obj(errhandler, MPI_SESSION_NULL, "the session", MPI_ERR_NO_MEM, call,
                                  "out of memory for a session");
    }
    *session = s->handle;
    return MPI_SUCCESS;
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    IBEX_ENTER_ANYTIME(Session_init);
    if (!ibex_errhandler_valid(errhandler))
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "invalid error handler 0x%x",
                              (unsigned)errhandler);
    if (!session)
        return ibex_mpi_error_obj(errhandler, MPI_SESSION_NULL, "the session", MPI_ERR_ARG, call,
                                  "session is NULL");
    if (!info_ok(info))
        return ibex_mpi_error_obj(errhandler, MPI_SESSION_NULL, "the session", MPI_ERR_INFO, call,
                                  "invalid info handle");
    pthread_mutex_lock(&session_lock);
    int rc = session_start(call, info, errhandler, session);
    pthread_mutex_unlock(&session_lock);
    return rc;
}

static int session_end(const char *call, MPI_Session *session)
{
    ibex_session_t *s = session_lookup(*session, call);
    if (!s)
        return MPI_ERR_SESSION;
    ibex_p2p_bsend_session_drop(s->handle); /* its buffered messages leave first */
    ibex_handle_release(session_table_get(), s->handle);
    if (s->info != MPI_INFO_NULL)
        PMPI_Info_free(&s->info);
    free(s);
    *session = MPI_SESSION_NULL;
    return ibex_mpi_instance_release(call);
}

int PMPI_Session_finalize(MPI_Session *session)
{
    IBEX_ENTER_ANYTIME(Session_finalize);
    if (!session)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "session is NULL");
    pthread_mutex_lock(&session_lock);
    int rc = session_end(call, session);
    pthread_mutex_unlock(&session_lock);
    return rc;
}

int ibex_session_check(MPI_Session handle, const char *call)
{
    return session_lookup(handle, call) ? MPI_SUCCESS : MPI_ERR_SESSION;
}

int ibex_session_error(MPI_Session handle, int errclass, const char *call, const char *cause)
{
    ibex_session_t *s = ibex_handle_get(session_table_get(), handle);
    if (!s)
        return ibex_mpi_error(NULL, errclass, call, "%s", cause);
    return session_error(s, errclass, call, cause);
}

/* ---- process sets ---- */

static const char *const pset_names[] = {"mpi://WORLD", "mpi://SELF"};
#define NPSETS 2

/* Index of a process set name, or -1. */
static int pset_find(const char *name)
{
    for (int i = 0; i < NPSETS; i++)
        if (strcasecmp(name, pset_names[i]) == 0)
            return i;
    return -1;
}

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    IBEX_ENTER_SESSION(Session_get_num_psets, session, s);
    if (!info_ok(info))
        return session_error(s, MPI_ERR_INFO, call, "invalid info handle");
    if (!npset_names)
        return session_error(s, MPI_ERR_ARG, call, "npset_names is NULL");
    *npset_names = NPSETS;
    return MPI_SUCCESS;
}

/* *pset_len in: the room in pset_name (0: only the length is asked); out: the name's length
 * plus one (MPI 4.1 section 11.3.2). */
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                              char *pset_name)
{
    IBEX_ENTER_SESSION(Session_get_nth_pset, session, s);
    if (!info_ok(info))
        return session_error(s, MPI_ERR_INFO, call, "invalid info handle");
    if (n < 0 || n >= NPSETS)
        return session_error(s, MPI_ERR_ARG, call, "n is not in 0..1 (there are 2 process sets)");
    if (!pset_len || *pset_len < 0 || (*pset_len > 0 && !pset_name))
        return session_error(s, MPI_ERR_ARG, call, "pset_len or pset_name is invalid");
    int len = (int)strlen(pset_names[n]);
    if (*pset_len > 0) {
        int copy = len < *pset_len - 1 ? len : *pset_len - 1;
        memcpy(pset_name, pset_names[n], (size_t)copy);
        pset_name[copy] = '\0';
    }
    *pset_len = len + 1;
    return MPI_SUCCESS;
}

/* The group of process set i (a reference the caller owns). */
static ibex_group_t *pset_group(int i)
{
    ibex_group_t *g = i == 0 ? ibex_comm_world->group : ibex_comm_self->group;
    g->refcount++;
    return g;
}

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    IBEX_ENTER_SESSION(Session_get_pset_info, session, s);
    if (!pset_name || !info)
        return session_error(s, MPI_ERR_ARG, call, "pset_name or info is NULL");
    int i = pset_find(pset_name);
    if (i < 0)
        return session_error(s, MPI_ERR_ARG, call, "no such process set");
    char size[16];
    snprintf(size, sizeof(size), "%d", i == 0 ? ibex_comm_world->size : 1);
    MPI_Info out = MPI_INFO_NULL;
    int rc = PMPI_Info_create(&out);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Info_set(out, "mpi_size", size);
    if (rc != MPI_SUCCESS)
        return session_error(s, rc, call, "cannot make the info object");
    *info = out;
    return MPI_SUCCESS;
}

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    IBEX_ENTER_SESSION(Group_from_session_pset, session, s);
    if (!pset_name || !newgroup)
        return session_error(s, MPI_ERR_ARG, call, "pset_name or newgroup is NULL");
    int i = pset_find(pset_name);
    if (i < 0)
        return session_error(s, MPI_ERR_ARG, call, "no such process set");
    /* a group of its own, marked with the session: the communicators made from it use the
     * session's Bsend buffer */
    ibex_group_t *w = pset_group(i);
    ibex_group_t *g = ibex_group_from_world(w->world_ranks, w->size);
    ibex_group_release(w);
    if (!g)
        return session_error(s, MPI_ERR_NO_MEM, call, "out of memory for the group");
    g->session = s->handle;
    MPI_Group h = ibex_group_handle_new(g);
    ibex_group_release(g);
    if (h == MPI_GROUP_NULL)
        return session_error(s, MPI_ERR_NO_MEM, call, "out of group handles");
    *newgroup = h;
    return MPI_SUCCESS;
}

/* ---- info and error handlers ---- */

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    IBEX_ENTER_SESSION(Session_get_info, session, s);
    if (!info_used)
        return session_error(s, MPI_ERR_ARG, call, "info_used is NULL");
    MPI_Info out = MPI_INFO_NULL;
    int rc = s->info != MPI_INFO_NULL ? PMPI_Info_dup(s->info, &out) : PMPI_Info_create(&out);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Info_set(out, "thread_level", thread_names[s->thread_level]);
    if (rc != MPI_SUCCESS)
        return session_error(s, rc, call, "cannot make the info object");
    *info_used = out;
    return MPI_SUCCESS;
}

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    IBEX_ENTER_ANYTIME(Session_create_errhandler);
    /* The handler table is the communicators' (the function types differ only in the int
     * handle they are given). */
    return PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)fn, errhandler);
}

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    IBEX_ENTER_SESSION(Session_set_errhandler, session, s);
    if (!ibex_errhandler_valid(errhandler))
        return session_error(s, MPI_ERR_ARG, call, "invalid error handler");
    ibex_errhandler_ref(errhandler);
    s->errhandler = errhandler;
    return MPI_SUCCESS;
}

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    IBEX_ENTER_SESSION(Session_get_errhandler, session, s);
    if (!errhandler)
        return session_error(s, MPI_ERR_ARG, call, "errhandler is NULL");
    ibex_errhandler_ref(s->errhandler); /* a new reference the program frees */
    *errhandler = s->errhandler;
    return MPI_SUCCESS;
}

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    IBEX_ENTER_SESSION(Session_call_errhandler, session, s);
    char cause[64];
    snprintf(cause, sizeof(cause), "error code %d raised by the program", errorcode);
    session_error(s, errorcode, call, cause);
    return MPI_SUCCESS;
}

/* Ibex handles are ints, the same int is the Fortran handle (as handle_conv.c's). */
MPI_Fint PMPI_Session_c2f(MPI_Session session)
{
    return (MPI_Fint)session;
}

MPI_Session PMPI_Session_f2c(MPI_Fint session)
{
    return (MPI_Session)session;
}

IBEX_MPI_ALIASES(session)
