/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_T performance variables, bound to no object, in the category "ibex_engine_stats": the
 * engine's (runtime/engine/ibex_engine_stats.h: queues, protocols, per transport), each an
 * MPI_UNSIGNED_LONG_LONG, then one state per collective kind, "ibex_coll_<kind>_algorithm",
 * an MPI_INT whose enum ("IBEX_COLL_<KIND>") names the kind's algorithms in
 * ibex_coll_algo_at's order (the names IBEX_COLL_<KIND> takes), then "none": the algorithm
 * the last blocking collective of that kind ran in this process; then the windows' counters
 * (runtime/win/ibex_win.h: ibex_win_direct_replies, ibex_win_reply_steps, ibex_win_short_cas,
 * ibex_win_short_fop, ibex_win_short_acc, ibex_win_short_rcas, ibex_win_short_rfop,
 * ibex_win_short_racc).
 *
 * - Levels and sizes (queue lengths, buffered bytes, live requests) and the high-water mark
 *   are continuous and read-only: they always show the library's current value, cannot be
 *   started or stopped (MPI_T_ERR_PVAR_NO_STARTSTOP), written or reset (MPI_T_ERR_PVAR_NO_WRITE).
 * - Counters (rendezvous sends by scheme) are per handle, as MPI defines them: a new handle is
 *   stopped at 0, counts only while started, and may be reset or written.
 * Sessions isolate handles: freeing a session frees its handles.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <ctype.h>
#include <stdio.h>

#include "coll.h"
#include "ibex_engine_stats.h"
#include "ibex_entry.h"
#include "ibex_win.h"
#include "mpit_internal.h"

_Static_assert(IBEX_COLL_KIND_COUNT <= IBEX_STATS_MAX_COLL,
               "ibex_engine_stats.coll_algo too small");

struct ibex_t_pvar_handle {
    struct ibex_t_pvar_handle *next; /* in its session */
    struct ibex_t_session *session;
    const ibex_pvar_desc_t *var;
    bool started;
    unsigned long long acc;  /* counted before the last start (or the value written) */
    unsigned long long base; /* the library's value at the last start */
};

struct ibex_t_session {
    struct ibex_t_session *next; /* every live session */
    struct ibex_t_pvar_handle *handles;
};

static struct ibex_t_session *sessions;

/* ---- the collective-algorithm states ---- */

static ibex_pvar_desc_t coll_pvars[IBEX_COLL_KIND_COUNT];
static MPI_T_enum coll_enums[IBEX_COLL_KIND_COUNT];

/* The index of the kind's last algorithm, or the algorithm count ("none") before the first. */
static unsigned long long read_coll(int kind)
{
    int n = ibex_coll_algo_count((ibex_coll_kind_t)kind), i = 0;
    while (i < n &&
           ibex_coll_algo_at((ibex_coll_kind_t)kind, i) != ibex_engine_stats.coll_algo[kind])
        i++;
    return (unsigned long long)i;
}

/* "binomial|ring|...|none": the enum's items of a kind. */
static void coll_choices(ibex_coll_kind_t kind, char *buf, size_t len)
{
    size_t used = 0;
    for (int i = 0; i < ibex_coll_algo_count(kind) && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s|", ibex_coll_algo_at(kind, i)->name);
        used += n > 0 ? (size_t)n : 0;
    }
    snprintf(buf + (used < len ? used : len - 1), len - (used < len ? used : len - 1), "none");
}

static void coll_pvar_fill(ibex_coll_kind_t k, char *upper, size_t len)
{
    const char *kname = ibex_coll_kind_name(k);
    size_t i = 0;
    for (; kname[i] && i < len - 1; i++)
        upper[i] = (char)toupper((unsigned char)kname[i]);
    upper[i] = '\0';
    ibex_pvar_desc_t *d = &coll_pvars[k];
    snprintf(d->name, sizeof(d->name), "ibex_coll_%s_algorithm", kname);
    snprintf(d->desc, sizeof(d->desc),
             "the algorithm the last blocking %s of this process ran (enum IBEX_COLL_%s; none "
             "before the first)",
             kname, upper);
    d->kind = IBEX_PVAR_STATE;
    d->read = read_coll;
    d->arg = (int)k;
}

int ibex_mpit_pvar_setup(void)
{
    for (int k = 0; k < IBEX_COLL_KIND_COUNT; k++) {
        char upper[32], name[64], choices[512];
        coll_pvar_fill((ibex_coll_kind_t)k, upper, sizeof(upper));
        coll_choices((ibex_coll_kind_t)k, choices, sizeof(choices));
        snprintf(name, sizeof(name), "IBEX_COLL_%s", upper);
        if (!(coll_enums[k] = ibex_mpit_enum_new(name, choices))) {
            ibex_mpit_pvar_teardown();
            return MPI_T_ERR_MEMORY;
        }
    }
    return MPI_SUCCESS;
}

/* ---- windows (runtime/win/ibex_win.h) ---- */

/* A counter of ibex_win_stats: arg is its offset there (offsetof). */
static unsigned long long read_win(int arg)
{
    unsigned long long v;
    memcpy(&v, (const char *)&ibex_win_stats + arg, sizeof(v));
    return v;
}

#define WIN_COUNTER(field) read_win, (int)offsetof(ibex_win_stats_t, field)

static const ibex_pvar_desc_t win_pvars[] = {
    {"ibex_win_direct_replies", IBEX_PVAR_COUNTER, WIN_COUNTER(direct_replies),
     "Get replies this process sent as an active-message target straight from window memory"},
    {"ibex_win_reply_steps", IBEX_PVAR_COUNTER, WIN_COUNTER(reply_steps),
     "entries of the in-flight Get replies visited by the target's walks (about one per reply)"},
    {"ibex_win_short_cas", IBEX_PVAR_COUNTER, WIN_COUNTER(short_cas),
     "Compare_and_swaps this process did on a shared mapping's short path (an 8-byte aligned "
     "element, one CPU compare-exchange; the others go the general way)"},
    {"ibex_win_short_fop", IBEX_PVAR_COUNTER, WIN_COUNTER(short_fop),
     "Fetch_and_ops (one-element Get_accumulates) done on a shared mapping's short path (8-byte "
     "aligned predefined element, the general path's CPU atomic)"},
    {"ibex_win_short_acc", IBEX_PVAR_COUNTER, WIN_COUNTER(short_acc),
     "one-element Accumulates this process did on a shared mapping's short path (as "
     "ibex_win_short_fop, no result)"},
    {"ibex_win_short_rcas", IBEX_PVAR_COUNTER, WIN_COUNTER(short_rcas),
     "Compare_and_swaps this process did on the network direct path's short path (an 8-byte "
     "aligned element: one remote compare-and-swap)"},
    {"ibex_win_short_rfop", IBEX_PVAR_COUNTER, WIN_COUNTER(short_rfop),
     "Fetch_and_ops (SUM on an 8-byte integer, NO_OP, REPLACE) on the network direct path's "
     "short path (one remote fetch-and-add; REPLACE: a compare-and-swap loop)"},
    {"ibex_win_short_racc", IBEX_PVAR_COUNTER, WIN_COUNTER(short_racc),
     "one-element Accumulates (8-byte integer SUM, REPLACE) on the network direct path's short "
     "path (one remote fetch-and-add, result discarded; REPLACE as for rfop)"},
};
#define WIN_PVARS ((int)(sizeof(win_pvars) / sizeof(win_pvars[0])))

/* The engine's variables, then the collective states, then the windows'. */
static const ibex_pvar_desc_t *pvar_at(int i)
{
    static int engine_n = -1;
    if (engine_n < 0)
        for (engine_n = 0; ibex_engine_pvar(engine_n);)
            engine_n++;
    if (i >= 0 && i < engine_n)
        return ibex_engine_pvar(i);
    i -= engine_n;
    if (i >= 0 && i < IBEX_COLL_KIND_COUNT)
        return &coll_pvars[i];
    i -= IBEX_COLL_KIND_COUNT;
    return i >= 0 && i < WIN_PVARS ? &win_pvars[i] : NULL;
}

static bool is_state(const ibex_pvar_desc_t *v)
{
    return v->kind == IBEX_PVAR_STATE;
}

int ibex_mpit_pvar_count(void)
{
    int n = 0;
    while (pvar_at(n))
        n++;
    return n;
}

static bool is_counter(const ibex_pvar_desc_t *v)
{
    return v->kind == IBEX_PVAR_COUNTER;
}

static int pvar_class(const ibex_pvar_desc_t *v)
{
    switch (v->kind) {
    case IBEX_PVAR_STATE:
        return MPI_T_PVAR_CLASS_STATE;
    case IBEX_PVAR_SIZE:
        return MPI_T_PVAR_CLASS_SIZE;
    case IBEX_PVAR_HIGHWATER:
        return MPI_T_PVAR_CLASS_HIGHWATERMARK;
    case IBEX_PVAR_COUNTER:
        return MPI_T_PVAR_CLASS_COUNTER;
    default:
        return MPI_T_PVAR_CLASS_LEVEL;
    }
}

int PMPI_T_pvar_get_num(int *num_pvar)
{
    IBEX_ENTER_ANYTIME(T_pvar_get_num);
    IBEX_MPIT_READY();
    if (!num_pvar)
        return MPI_T_ERR_INVALID;
    *num_pvar = ibex_mpit_pvar_count();
    return MPI_SUCCESS;
}

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *readonly, int *continuous, int *atomic)
{
    IBEX_ENTER_ANYTIME(T_pvar_get_info);
    IBEX_MPIT_READY();
    const ibex_pvar_desc_t *v = pvar_at(pvar_index);
    if (!v)
        return MPI_T_ERR_INVALID_INDEX;
    ibex_mpit_str(v->name, name, name_len);
    ibex_mpit_str(v->desc, desc, desc_len);
    int out[] = {MPI_T_VERBOSITY_TUNER_BASIC,
                 pvar_class(v),
                 MPI_T_BIND_NO_OBJECT,
                 !is_counter(v),
                 !is_counter(v),
                 1};
    int *to[] = {verbosity, var_class, bind, readonly, continuous, atomic};
    for (int i = 0; i < (int)(sizeof(out) / sizeof(out[0])); i++)
        if (to[i])
            *to[i] = out[i];
    if (datatype)
        *datatype = is_state(v) ? MPI_INT : MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = is_state(v) ? coll_enums[v->arg] : MPI_T_ENUM_NULL;
    return MPI_SUCCESS;
}

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    IBEX_ENTER_ANYTIME(T_pvar_get_index);
    IBEX_MPIT_READY();
    if (!name || !pvar_index)
        return MPI_T_ERR_INVALID;
    const ibex_pvar_desc_t *v;
    for (int i = 0; (v = pvar_at(i)) != NULL; i++)
        if (strcmp(v->name, name) == 0 && pvar_class(v) == var_class) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

static bool session_live(MPI_T_pvar_session s)
{
    for (struct ibex_t_session *p = sessions; p; p = p->next)
        if (p == s)
            return true;
    return false;
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    IBEX_ENTER_ANYTIME(T_pvar_session_create);
    IBEX_MPIT_READY();
    if (!session)
        return MPI_T_ERR_INVALID;
    MPI_T_pvar_session s = calloc(1, sizeof(*s));
    if (!s)
        return MPI_T_ERR_OUT_OF_SESSIONS;
    s->next = sessions;
    sessions = s;
    *session = s;
    return MPI_SUCCESS;
}

static void session_destroy(MPI_T_pvar_session s)
{
    while (s->handles) {
        struct ibex_t_pvar_handle *h = s->handles;
        s->handles = h->next;
        free(h);
    }
    for (struct ibex_t_session **pp = &sessions; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    free(s);
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    IBEX_ENTER_ANYTIME(T_pvar_session_free);
    IBEX_MPIT_READY();
    if (!session || !session_live(*session))
        return MPI_T_ERR_INVALID_SESSION;
    session_destroy(*session);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}

void ibex_mpit_pvar_teardown(void)
{
    while (sessions)
        session_destroy(sessions);
    for (int k = 0; k < IBEX_COLL_KIND_COUNT; k++) {
        ibex_mpit_enum_free(coll_enums[k]);
        coll_enums[k] = MPI_T_ENUM_NULL;
    }
}

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    IBEX_ENTER_ANYTIME(T_pvar_handle_alloc);
    IBEX_MPIT_READY();
    (void)obj_handle; /* bound to no object */
    if (!session_live(session))
        return MPI_T_ERR_INVALID_SESSION;
    const ibex_pvar_desc_t *v = pvar_at(pvar_index);
    if (!v)
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    MPI_T_pvar_handle h = calloc(1, sizeof(*h));
    if (!h)
        return MPI_T_ERR_OUT_OF_HANDLES;
    h->session = session;
    h->var = v;
    h->started = !is_counter(v); /* continuous variables are always active */
    h->next = session->handles;
    session->handles = h;
    *handle = h;
    *count = 1;
    return MPI_SUCCESS;
}

/* The handle belongs to the session (MPI_T_PVAR_ALL_HANDLES is not a handle here). */
static int handle_check(MPI_T_pvar_session session, MPI_T_pvar_handle h)
{
    if (!session_live(session))
        return MPI_T_ERR_INVALID_SESSION;
    for (struct ibex_t_pvar_handle *p = session->handles; p; p = p->next)
        if (p == h)
            return MPI_SUCCESS;
    return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    IBEX_ENTER_ANYTIME(T_pvar_handle_free);
    IBEX_MPIT_READY();
    if (!handle)
        return MPI_T_ERR_INVALID;
    int rc = handle_check(session, *handle);
    if (rc != MPI_SUCCESS)
        return rc;
    for (struct ibex_t_pvar_handle **pp = &session->handles; *pp; pp = &(*pp)->next)
        if (*pp == *handle) {
            *pp = (*handle)->next;
            break;
        }
    free(*handle);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

static unsigned long long handle_value(const struct ibex_t_pvar_handle *h)
{
    unsigned long long now = h->var->read(h->var->arg);
    if (!is_counter(h->var))
        return now;
    return h->acc + (h->started ? now - h->base : 0);
}

/* One handle's start (start true) or stop. */
static int start_stop(MPI_T_pvar_handle h, bool start)
{
    if (!is_counter(h->var))
        return MPI_T_ERR_PVAR_NO_STARTSTOP;
    if (start && !h->started)
        h->base = h->var->read(h->var->arg);
    else if (!start && h->started)
        h->acc += h->var->read(h->var->arg) - h->base;
    h->started = start;
    return MPI_SUCCESS;
}

/* Applies op to handle, or to every handle of the session it applies to (ALL_HANDLES: the
 * ones it does not apply to are skipped, as MPI says). */
static int for_handles(MPI_T_pvar_session s, MPI_T_pvar_handle handle,
                       int (*op)(MPI_T_pvar_handle, bool), bool arg)
{
    if (handle != MPI_T_PVAR_ALL_HANDLES) {
        int rc = handle_check(s, handle);
        return rc != MPI_SUCCESS ? rc : op(handle, arg);
    }
    if (!session_live(s))
        return MPI_T_ERR_INVALID_SESSION;
    for (struct ibex_t_pvar_handle *h = s->handles; h; h = h->next)
        if (is_counter(h->var))
            op(h, arg);
    return MPI_SUCCESS;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    IBEX_ENTER_ANYTIME(T_pvar_start);
    IBEX_MPIT_READY();
    return for_handles(session, handle, start_stop, true);
}

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    IBEX_ENTER_ANYTIME(T_pvar_stop);
    IBEX_MPIT_READY();
    return for_handles(session, handle, start_stop, false);
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    IBEX_ENTER_ANYTIME(T_pvar_read);
    IBEX_MPIT_READY();
    int rc = handle_check(session, handle);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!buf)
        return MPI_T_ERR_INVALID;
    if (is_state(handle->var))
        *(int *)buf = (int)handle_value(handle);
    else
        *(unsigned long long *)buf = handle_value(handle);
    return MPI_SUCCESS;
}

/* Sets a counter handle to value (its reset is value 0). */
static int set_value(MPI_T_pvar_handle h, unsigned long long value)
{
    if (!is_counter(h->var))
        return MPI_T_ERR_PVAR_NO_WRITE;
    h->acc = value;
    h->base = h->var->read(h->var->arg);
    return MPI_SUCCESS;
}

static int reset_one(MPI_T_pvar_handle h, bool unused)
{
    (void)unused;
    return set_value(h, 0);
}

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    IBEX_ENTER_ANYTIME(T_pvar_write);
    IBEX_MPIT_READY();
    int rc = handle_check(session, handle);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!buf)
        return MPI_T_ERR_INVALID;
    return set_value(handle, *(const unsigned long long *)buf);
}

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    IBEX_ENTER_ANYTIME(T_pvar_reset);
    IBEX_MPIT_READY();
    return for_handles(session, handle, reset_one, false);
}

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    IBEX_ENTER_ANYTIME(T_pvar_readreset);
    IBEX_MPIT_READY();
    int rc = handle_check(session, handle);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!buf)
        return MPI_T_ERR_INVALID;
    if (!is_counter(handle->var))
        return MPI_T_ERR_PVAR_NO_WRITE;
    *(unsigned long long *)buf = handle_value(handle);
    return set_value(handle, 0);
}

IBEX_MPI_ALIASES(mpit_pvar)
