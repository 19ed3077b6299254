/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Partitioned point-to-point communication (MPI 4.1 chapter 4): MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready, MPI_Pready_range, MPI_Pready_list, MPI_Parrived, on the engine's
 * point-to-point machinery.
 *
 * The receiver's partitions are the messages. At MPI_Precv_init the receiver sends its side's
 * shape (partitions, bytes per partition, a base for the data tags) to the sender, on the
 * communicator's collective context with a handshake tag made from the program's tag; the
 * sender's MPI_Psend_init posts the matching receive. So the n-th Psend_init and the n-th
 * Precv_init of one (pair, tag, communicator) match, in initialization order, as MPI says. At
 * every start the receiver posts one receive per partition (tag: base + partition, from the
 * range of ibex_session.h); the sender sends receive partition j as soon as every send
 * partition that covers its bytes is ready (contiguous types straight from the buffer, others
 * packed for that byte range only). Either side may have any number of partitions; the totals
 * must agree (MPI requires it: a sender with more data than the receiver wants fails with
 * MPI_ERR_TRUNCATE, a shorter one leaves the last receive partitions short). Neither tag range
 * is visible to the program or to collectives.
 *
 * A partitioned request is a persistent collective-kind request (so MPI_Cancel refuses it,
 * and Wait / Test / Request_free take it like any other); a progress hook moves every active
 * one, so Wait, Test and every other call progress it.
 */
#include <stdlib.h>
#include <string.h>

#include "ibex_dt_ref.h"
#include "ibex_p2p_api.h"
#include "ibex_part.h"
#include "ibex_runtime.h"
#include "ibex_session.h"
#include "ibex_entry.h"

typedef struct part {
    ibex_req_t *req; /* the program's request */
    bool send;
    void *buf;
    int partitions, count; /* this side's */
    ibex_dt_t *dt;
    int peer, tag;
    size_t pbytes, total; /* bytes per partition, all of them */
    /* the receiver's shape, sent by it at init: partitions, bytes per partition, tag base */
    long long hello[3];
    ibex_req_t *hello_req; /* NULL once done */
    bool round;            /* started and not yet complete */
    unsigned char *ready;  /* send: partitions marked ready; receive: arrived */
    ibex_req_t **msgs;     /* per receive partition: in flight, or NULL */
    unsigned char *sent;   /* send: receive partition j sent this round */
    int nsent;
    void *staging; /* send, non-contiguous types: the packed ranges */
    ibex_status_t error;
    struct part *next;
} part_t;

static part_t *part_list; /* every partitioned request with work pending */
static unsigned part_tag_base;

static void part_list_add(part_t *p);
static void part_list_remove(part_t *p);

/* ---- the sender ---- */

static bool send_covered(const part_t *p, size_t lo, size_t hi)
{
    if (lo >= hi || p->pbytes == 0) { /* an empty range: once every partition is ready */
        for (int i = 0; i < p->partitions; i++)
            if (!p->ready[i])
                return false;
        return true;
    }
    for (size_t i = lo / p->pbytes; i <= (hi - 1) / p->pbytes; i++)
        if (!p->ready[i])
            return false;
    return true;
}

static ibex_status_t send_one(part_t *p, int j)
{
    size_t rb = (size_t)p->hello[1], lo = (size_t)j * rb;
    size_t hi = lo + rb < p->total ? lo + rb : p->total;
    if (lo > hi)
        lo = hi;
    if (!send_covered(p, lo, hi))
        return IBEX_INPROGRESS;
    const char *src = (const char *)p->buf + p->dt->true_lb + lo;
    if (!p->dt->contiguous) {
        ibex_dt_pack(p->buf, p->partitions * p->count, p->dt, lo, (char *)p->staging + lo, hi - lo);
        src = (const char *)p->staging + lo;
    }
    int tag = IBEX_TAG_PART_DATA((unsigned)p->hello[2] + (unsigned)j);
    p->sent[j] = 1;
    p->nsent++;
    return ibex_p2p_isend(src, (int)(hi - lo), ibex_dt_get(MPI_BYTE), p->peer, tag, p->req->comm,
                          true, &p->msgs[j]);
}

/* The receiver's shape is in: check it against ours once. */
static ibex_status_t send_hello_done(part_t *p)
{
    ibex_status_t st = ibex_p2p_wait(p->hello_req, NULL);
    p->hello_req = NULL;
    if (st != IBEX_OK)
        return st;
    int rparts = (int)p->hello[0];
    p->msgs = calloc((size_t)(rparts > 0 ? rparts : 1), sizeof(*p->msgs));
    p->sent = calloc((size_t)(rparts > 0 ? rparts : 1), 1);
    if (!p->msgs || !p->sent)
        return IBEX_ERR_NO_MEMORY;
    if ((unsigned long long)p->total > (unsigned long long)(p->hello[0] * p->hello[1]))
        p->error = IBEX_ERR_TRUNCATE; /* more than the receiver takes: the rest is dropped */
    return IBEX_OK;
}

static void send_sweep(part_t *p)
{
    for (int j = 0; j < (int)p->hello[0]; j++) {
        if (p->sent[j])
            continue;
        ibex_status_t st = send_one(p, j);
        if (st != IBEX_OK && st != IBEX_INPROGRESS && p->error == IBEX_OK)
            p->error = st;
    }
}

/* ---- both sides ---- */

/* Every message of the round is through: reap them and complete the program's request. */
static int round_finish(part_t *p, int nmsgs)
{
    MPI_Count bytes = 0;
    for (int j = 0; j < nmsgs; j++) {
        if (!p->msgs[j] || !p->msgs[j]->complete)
            return 0;
    }
    for (int j = 0; j < nmsgs; j++) {
        MPI_Status st;
        ibex_status_t s = ibex_p2p_wait(p->msgs[j], &st);
        p->msgs[j] = NULL;
        bytes += st.ibex_count;
        if (s != IBEX_OK && p->error == IBEX_OK)
            p->error = s;
    }
    if (!p->send) {
        p->req->status.MPI_SOURCE = p->peer;
        p->req->status.MPI_TAG = p->tag;
        p->req->status.ibex_count = bytes;
    }
    p->round = false;
    ibex_req_complete(p->req, p->error);
    return 1;
}

/* One step of a partitioned request; returns the events it handled. */
static int part_step(part_t *p)
{
    int events = 0;
    if (p->hello_req && p->hello_req->complete) {
        ibex_status_t st = p->send ? send_hello_done(p) : ibex_p2p_wait(p->hello_req, NULL);
        p->hello_req = NULL;
        if (st != IBEX_OK)
            p->error = st;
        events++;
    }
    if (!p->round)
        return events;
    if (!p->send) {
        for (int j = 0; j < p->partitions; j++)
            if (p->msgs[j] && p->msgs[j]->complete && !p->ready[j])
                p->ready[j] = 1, events++;
        return events + round_finish(p, p->partitions);
    }
    if (p->hello_req)
        return events;
    if (p->nsent < (int)p->hello[0])
        send_sweep(p);
    if (p->nsent == (int)p->hello[0])
        events += round_finish(p, (int)p->hello[0]);
    return events;
}

static int part_progress(void)
{
    int events = 0;
    part_t *p = part_list, *next;
    for (; p; p = next) {
        next = p->next;
        events += part_step(p);
        if (!p->round && !p->hello_req)
            part_list_remove(p);
    }
    return events;
}

static void part_list_add(part_t *p)
{
    for (part_t *q = part_list; q; q = q->next)
        if (q == p)
            return;
    if (!part_list)
        ibex_progress_hook_add(part_progress);
    p->next = part_list;
    part_list = p;
}

static void part_list_remove(part_t *p)
{
    part_t **pp = &part_list;
    while (*pp && *pp != p)
        pp = &(*pp)->next;
    if (*pp)
        *pp = p->next;
    if (!part_list)
        ibex_progress_hook_remove(part_progress);
}

/* ---- the request ---- */

static void hello_cancel(part_t *p)
{
    ibex_req_t *h = p->hello_req;
    if (!h)
        return;
    if (!h->complete && h->kind == IBEX_REQ_RECV && h->in_posted) {
        ibex_match_queue_t *q = ibex_match_queue_get(h->comm->context_id + h->coll);
        ibex_match_list_remove(&q->posted, &h->match);
        h->in_posted = false;
        ibex_req_complete(h, IBEX_OK);
    }
    ibex_p2p_wait(h, NULL); /* a receiver's handshake send: it is small and goes eager */
    p->hello_req = NULL;
}

static void part_release(ibex_req_t *req)
{
    part_t *p = req->hook_arg;
    if (!p)
        return;
    part_list_remove(p);
    hello_cancel(p);
    free(p->ready);
    free(p->msgs);
    free(p->sent);
    free(p->staging);
    ibex_dt_release(p->dt);
    free(p);
    req->hook_arg = NULL;
}

bool ibex_part_is(const ibex_req_t *req)
{
    return req->on_release == part_release;
}

/* The receiver posts its partitions' receives; the sender waits for Pready. */
static void round_begin(part_t *p)
{
    memset(p->ready, 0, (size_t)(p->partitions > 0 ? p->partitions : 1));
    p->error = p->error == IBEX_ERR_TRUNCATE && p->send ? p->error : IBEX_OK;
    p->round = true;
    if (p->send) {
        if (p->sent)
            memset(p->sent, 0, (size_t)(p->hello[0] > 0 ? p->hello[0] : 1));
        p->nsent = 0;
        return;
    }
    for (int j = 0; j < p->partitions; j++) {
        char *at = (char *)p->buf + (ptrdiff_t)j * p->count * p->dt->extent;
        int tag = IBEX_TAG_PART_DATA((unsigned)p->hello[2] + (unsigned)j);
        ibex_status_t st =
            ibex_p2p_irecv(at, p->count, p->dt, p->peer, tag, p->req->comm, true, &p->msgs[j]);
        if (st != IBEX_OK && p->error == IBEX_OK)
            p->error = st;
    }
}

int ibex_part_start(ibex_req_t *req, const char *call)
{
    (void)call;
    part_t *p = req->hook_arg;
    if (req->complete)
        ibex_req_active_count++;
    req->complete = false;
    req->error = IBEX_OK;
    ibex_status_empty(&req->status);
    req->active = true;
    if (p->peer == MPI_PROC_NULL) {
        req->status.MPI_SOURCE = MPI_PROC_NULL;
        ibex_req_complete(req, IBEX_OK);
        return MPI_SUCCESS;
    }
    round_begin(p);
    part_list_add(p);
    part_step(p);
    return MPI_SUCCESS;
}

/* ---- initialization ---- */

typedef struct part_args {
    const char *call;
    void *buf;
    int partitions;
    MPI_Count count;
    MPI_Datatype datatype;
    int peer, tag;
    MPI_Comm comm;
    MPI_Info info;
    MPI_Request *request;
    bool send;
} part_args_t;

static int part_check(const part_args_t *a, ibex_comm_t *c, ibex_dt_t **dt_p)
{
    int n;
    if (a->partitions < 1)
        return ibex_mpi_error(c, MPI_ERR_ARG, a->call, "partitions %d is not positive",
                              a->partitions);
    if (a->count < 0)
        return ibex_mpi_error(c, MPI_ERR_COUNT, a->call, "negative count %lld", a->count);
    if (a->count * a->partitions > INT32_MAX)
        return ibex_mpi_error(c, MPI_ERR_COUNT, a->call,
                              "partitions x count = %lld elements is more than Ibex's engine "
                              "counts (INT_MAX)",
                              a->count * a->partitions);
    IBEX_CHECK(ibex_check_rank(c, a->call, a->peer, 0));
    if (a->tag < 0 || a->tag > ibex_tag_ub)
        return ibex_mpi_error(c, MPI_ERR_TAG, a->call, "invalid tag %d (valid: 0..%d)", a->tag,
                              ibex_tag_ub);
    if (a->info != MPI_INFO_NULL && PMPI_Info_get_nkeys(a->info, &n) != MPI_SUCCESS)
        return ibex_mpi_error(c, MPI_ERR_INFO, a->call, "invalid info handle");
    if (!a->request)
        return ibex_mpi_error(c, MPI_ERR_ARG, a->call, "request is NULL");
    return ibex_dt_lookup_on(c, a->datatype, a->call, true, dt_p);
}

static part_t *part_new(const part_args_t *a, ibex_dt_t *dt)
{
    part_t *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    *p = (part_t){.send = a->send,
                  .buf = a->buf,
                  .partitions = a->partitions,
                  .count = (int)a->count,
                  .dt = dt,
                  .peer = a->peer,
                  .tag = a->tag};
    p->pbytes = (size_t)a->count * dt->size;
    p->total = p->pbytes * (size_t)a->partitions;
    p->ready = calloc((size_t)a->partitions, 1);
    if (!a->send)
        p->msgs = calloc((size_t)a->partitions, sizeof(*p->msgs));
    if (a->send && !dt->contiguous)
        p->staging = malloc(p->total > 0 ? p->total : 1);
    if (!p->ready || (!a->send && !p->msgs) || (a->send && !dt->contiguous && !p->staging)) {
        free(p->ready), free(p->msgs), free(p->staging), free(p);
        return NULL;
    }
    ibex_dt_retain(dt);
    return p;
}

/* The handshake: the receiver tells its shape, the sender waits for it. */
static ibex_status_t part_hello(part_t *p, ibex_comm_t *c)
{
    int tag = IBEX_TAG_PART_HELLO(p->tag);
    ibex_dt_t *byte = ibex_dt_get(MPI_BYTE);
    if (p->peer == MPI_PROC_NULL)
        return IBEX_OK;
    if (p->send)
        return ibex_p2p_irecv(p->hello, sizeof(p->hello), byte, p->peer, tag, c, true,
                              &p->hello_req);
    p->hello[0] = p->partitions;
    p->hello[1] = (long long)p->pbytes;
    p->hello[2] = part_tag_base;
    part_tag_base += (unsigned)p->partitions;
    return ibex_p2p_isend(p->hello, sizeof(p->hello), byte, p->peer, tag, c, true, &p->hello_req);
}

static int part_init(const part_args_t *a)
{
    ibex_comm_t *c;
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_comm_enter(a->comm, a->call, &c));
    IBEX_CHECK(part_check(a, c, &dt));
    part_t *p = part_new(a, dt);
    ibex_req_t *req = p ? ibex_req_alloc(IBEX_REQ_COLL) : NULL;
    if (!req) {
        if (p)
            ibex_dt_release(dt), free(p->ready), free(p->msgs), free(p->staging), free(p);
        return ibex_mpi_error(c, MPI_ERR_NO_MEM, a->call, "out of memory");
    }
    req->comm = c;
    ibex_comm_retain(c);
    req->peer = a->peer;
    req->tag = a->tag;
    req->start_call = a->call; /* MPI_Psend_init / MPI_Precv_init, named by a failed Wait */
    req->hook_arg = p;
    req->on_release = part_release;
    p->req = req;
    req->persistent = true;
    req->complete = true; /* inactive until started */
    ibex_req_active_count--;
    ibex_status_t st = part_hello(p, c);
    if (st != IBEX_OK || ibex_req_publish(req, a->request) != 0) {
        ibex_req_release(req);
        return ibex_mpi_error(c, st != IBEX_OK ? ibex_err_class_of(st) : MPI_ERR_NO_MEM, a->call,
                              "cannot set up the partitioned request: %s", ibex_status_str(st));
    }
    if (p->hello_req)
        part_list_add(p);
    return MPI_SUCCESS;
}

int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER(Psend_init);
    part_args_t a = {call, (void *)buf, partitions, count,   datatype, dest,
                     tag,  comm,        info,       request, true};
    return part_init(&a);
}

int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
                    int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    IBEX_ENTER(Precv_init);
    part_args_t a = {call, buf,  partitions, count,   datatype, source,
                     tag,  comm, info,       request, false};
    return part_init(&a);
}

/* ---- Pready / Parrived ---- */

static int part_lookup(MPI_Request request, const char *call, bool send, part_t **p_p)
{
    ibex_req_t *req = ibex_req_from_handle(request);
    if (!req || !ibex_part_is(req))
        return ibex_mpi_error(NULL, MPI_ERR_REQUEST, call, "not a partitioned request");
    part_t *p = req->hook_arg;
    if (p->send != send)
        return ibex_mpi_error(req->comm, MPI_ERR_REQUEST, call, "not a partitioned %s request",
                              send ? "send" : "receive");
    if (!req->active)
        return ibex_mpi_error(req->comm, MPI_ERR_REQUEST, call, "the request is not active");
    *p_p = p;
    return MPI_SUCCESS;
}

static int ready_check(part_t *p, const char *call, int partition)
{
    if (partition < 0 || partition >= p->partitions)
        return ibex_mpi_error(p->req->comm, MPI_ERR_ARG, call, "partition %d is not in 0..%d",
                              partition, p->partitions - 1);
    return MPI_SUCCESS;
}

static int ready_done(part_t *p)
{
    if (p->round)
        part_step(p);
    return MPI_SUCCESS;
}

int PMPI_Pready(int partition, MPI_Request request)
{
    IBEX_ENTER(Pready);
    part_t *p;
    IBEX_CHECK(part_lookup(request, call, true, &p));
    IBEX_CHECK(ready_check(p, call, partition));
    p->ready[partition] = 1;
    return ready_done(p);
}

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    IBEX_ENTER(Pready_range);
    part_t *p;
    IBEX_CHECK(part_lookup(request, call, true, &p));
    IBEX_CHECK(ready_check(p, call, partition_low));
    IBEX_CHECK(ready_check(p, call, partition_high));
    if (partition_low > partition_high)
        return IBEX_ERROR(MPI_ERR_ARG, "partition_low %d is above partition_high %d", partition_low,
                          partition_high);
    memset(p->ready + partition_low, 1, (size_t)(partition_high - partition_low + 1));
    return ready_done(p);
}

int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    IBEX_ENTER(Pready_list);
    part_t *p;
    IBEX_CHECK(part_lookup(request, call, true, &p));
    if (length < 0 || (length > 0 && !array_of_partitions))
        return IBEX_ERROR(MPI_ERR_ARG, "invalid partition list");
    for (int i = 0; i < length; i++)
        IBEX_CHECK(ready_check(p, call, array_of_partitions[i]));
    for (int i = 0; i < length; i++)
        p->ready[array_of_partitions[i]] = 1;
    return ready_done(p);
}

int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    IBEX_ENTER(Parrived);
    ibex_req_t *req = ibex_req_from_handle(request);
    if (!req || !ibex_part_is(req))
        return IBEX_ERROR(MPI_ERR_REQUEST, "not a partitioned request");
    part_t *p = req->hook_arg;
    if (p->send)
        return IBEX_ERROR(MPI_ERR_REQUEST, "not a partitioned receive request");
    IBEX_CHECK(ready_check(p, call, partition));
    if (!flag)
        return IBEX_ERROR(MPI_ERR_ARG, "flag is NULL");
    /* An inactive or completed request has every partition in (MPI 4.1 section 4.2.2). */
    if (p->round && !p->ready[partition])
        ibex_poll_step();
    *flag = !p->round || p->ready[partition] || p->peer == MPI_PROC_NULL;
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(part)
