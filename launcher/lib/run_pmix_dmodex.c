/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Direct modex across hosts (the lazy one-peer get): a client's PMIx_Get of a rank of another
 * host whose data this server does not hold (no fence with data collection before) reaches
 * the server module's direct_modex upcall. The upcall only queues the request and wakes the
 * launcher's loop (it runs on the PMIx progress thread); the loop takes it
 * (ibex_run_pmix_dmodex_take), routes it to the rank's host, whose launcher asks its own
 * server for that rank's blob (ibex_run_pmix_dmodex_serve: PMIx_server_dmodex_request, which
 * waits until the rank has committed) and sends the answer back; the asking host's loop hands
 * it to the waiting upcall (ibex_run_pmix_dmodex_answer).
 */
#include "run_pmix_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibex_log.h"

typedef struct dm_req { /* a local client waits for a remote rank's data */
    uint32_t id;
    int rank;
    bool taken;
    pmix_modex_cbfunc_t cbfunc;
    void *cbdata;
    struct dm_req *next;
} dm_req_t;

typedef struct dm_done { /* our server's answer for another host */
    uint32_t origin, id;
    int status;
    char *data;
    size_t len;
    struct dm_done *next;
} dm_done_t;

static struct {
    pthread_mutex_t lock;
    char nspace[PMIX_MAX_NSLEN + 1];
    int size, wake_fd;
    bool multi; /* the job spans hosts: the launcher's loop routes the requests */
    uint32_t next_id;
    dm_req_t *reqs;
    dm_done_t *done, **done_tail;
} dm = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake_fd = -1};

static void dm_wake(void)
{
    char c = 1;
    while (dm.wake_fd >= 0 && write(dm.wake_fd, &c, 1) < 0 && errno == EINTR)
        ;
}

void ibex_run_pmix_dmodex_setup(const char *nspace, int size, bool multi, int wake_fd)
{
    pthread_mutex_lock(&dm.lock);
    dm.multi = multi;
    snprintf(dm.nspace, sizeof(dm.nspace), "%s", nspace);
    dm.size = size;
    dm.wake_fd = wake_fd;
    dm.done_tail = &dm.done;
    pthread_mutex_unlock(&dm.lock);
}

void ibex_run_pmix_dmodex_fini(void)
{
    pthread_mutex_lock(&dm.lock);
    while (dm.reqs) {
        dm_req_t *r = dm.reqs;
        dm.reqs = r->next;
        free(r); /* never answered: the job is over */
    }
    while (dm.done) {
        dm_done_t *d = dm.done;
        dm.done = d->next;
        free(d->data);
        free(d);
    }
    dm.done_tail = &dm.done;
    dm.wake_fd = -1;
    pthread_mutex_unlock(&dm.lock);
}

pmix_status_t ibex_run_pmix_dmodex_upcall(const pmix_proc_t *proc, const pmix_info_t info[],
                                          size_t ninfo, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    if (!dm.multi) /* one node: every rank is local, nobody would route a request */
        return PMIX_ERR_NOT_SUPPORTED;
    if (strncmp(proc->nspace, dm.nspace, PMIX_MAX_NSLEN) != 0 || proc->rank >= (pmix_rank_t)dm.size)
        return PMIX_ERR_NOT_FOUND;
    dm_req_t *r = calloc(1, sizeof(*r));
    if (!r)
        return PMIX_ERR_NOMEM;
    *r = (dm_req_t){.rank = (int)proc->rank, .cbfunc = cbfunc, .cbdata = cbdata};
    pthread_mutex_lock(&dm.lock);
    r->id = ++dm.next_id;
    r->next = dm.reqs;
    dm.reqs = r;
    pthread_mutex_unlock(&dm.lock);
    ibex_debug(LAUNCH, "direct modex: the data of rank %u asked for", proc->rank);
    dm_wake();
    return PMIX_SUCCESS;
}

bool ibex_run_pmix_dmodex_take(ibex_run_pmix_t *srv, uint32_t *id_p, int *rank_p)
{
    (void)srv;
    pthread_mutex_lock(&dm.lock);
    dm_req_t *r = dm.reqs;
    while (r && r->taken)
        r = r->next;
    if (r) {
        r->taken = true;
        *id_p = r->id;
        *rank_p = r->rank;
    }
    pthread_mutex_unlock(&dm.lock);
    return r != NULL;
}

static void dm_release(void *cbdata)
{
    free(cbdata);
}

void ibex_run_pmix_dmodex_answer(ibex_run_pmix_t *srv, uint32_t id, int status, const char *data,
                                 size_t len)
{
    (void)srv;
    pthread_mutex_lock(&dm.lock);
    dm_req_t **pp = &dm.reqs;
    while (*pp && (*pp)->id != id)
        pp = &(*pp)->next;
    dm_req_t *r = *pp;
    if (r)
        *pp = r->next;
    pthread_mutex_unlock(&dm.lock);
    if (!r)
        return; /* not ours, or answered already */
    char *copy = malloc(len ? len : 1);
    if (copy && len)
        memcpy(copy, data, len);
    if (r->cbfunc)
        r->cbfunc(copy ? status : PMIX_ERR_NOMEM, copy, copy ? len : 0, r->cbdata, dm_release,
                  copy);
    else
        free(copy);
    free(r);
}

static void dm_push_done(uint32_t origin, uint32_t id, int status, const char *data, size_t len)
{
    dm_done_t *d = calloc(1, sizeof(*d));
    char *copy = malloc(len ? len : 1);
    if (!d || !copy) {
        free(d);
        free(copy);
        return; /* out of memory: the asker waits for its timeout */
    }
    if (len)
        memcpy(copy, data, len);
    *d = (dm_done_t){.origin = origin, .id = id, .status = status, .data = copy, .len = len};
    pthread_mutex_lock(&dm.lock);
    if (dm.done_tail) {
        *dm.done_tail = d;
        dm.done_tail = &d->next;
        d = NULL;
    }
    pthread_mutex_unlock(&dm.lock);
    if (d) {
        free(d->data);
        free(d);
    }
    dm_wake();
}

typedef struct dm_serving {
    uint32_t origin, id;
} dm_serving_t;

/* On the PMIx progress thread: the blob of a local rank, for another host. */
static void dm_served_cb(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
    dm_serving_t *s = cbdata;
    dm_push_done(s->origin, s->id, status, data, status == PMIX_SUCCESS ? sz : 0);
    free(s);
}

void ibex_run_pmix_dmodex_serve(ibex_run_pmix_t *srv, int rank, uint32_t origin, uint32_t id)
{
    (void)srv;
    pmix_proc_t proc;
    dm_serving_t *s = calloc(1, sizeof(*s));
    PMIX_LOAD_PROCID(&proc, dm.nspace, (pmix_rank_t)rank);
    pmix_status_t rc = s ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    if (s) {
        *s = (dm_serving_t){.origin = origin, .id = id};
        rc = PMIx_server_dmodex_request(&proc, dm_served_cb, s);
    }
    if (rc != PMIX_SUCCESS) {
        ibex_debug(LAUNCH, "direct modex for rank %d: %s", rank, PMIx_Error_string(rc));
        free(s);
        dm_push_done(origin, id, rc, "", 0);
    }
}

bool ibex_run_pmix_dmodex_served(ibex_run_pmix_t *srv, uint32_t *origin_p, uint32_t *id_p,
                                 int *status_p, char **data_p, size_t *len_p)
{
    (void)srv;
    pthread_mutex_lock(&dm.lock);
    dm_done_t *d = dm.done;
    if (d) {
        dm.done = d->next;
        if (!dm.done)
            dm.done_tail = &dm.done;
    }
    pthread_mutex_unlock(&dm.lock);
    if (!d)
        return false;
    *origin_p = d->origin;
    *id_p = d->id;
    *status_p = d->status;
    *data_p = d->data;
    *len_p = d->len;
    free(d);
    return true;
}
