/* SPDX-License-Identifier: BSD-3-Clause */
/* See coll_fake.h. */
#include "coll_fake.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_blocked_rec.h"
#include "coll_shm.h"
#include "ibex_datatype.h"
#include "ibex_engine_stats.h"
#include "ibex_p2p.h"
#include "ibex_runtime.h"

typedef struct fake_msg {
    struct fake_msg *next;
    int tag;
    size_t len;
    char data[];
} fake_msg_t;

static fake_msg_t *box[COLL_FAKE_MAX_RANKS][COLL_FAKE_MAX_RANKS]; /* [src][dst] FIFO */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

static size_t elem_size(MPI_Datatype dt)
{
    if (dt == MPI_BYTE)
        return 1;
    if (dt == MPI_INT)
        return sizeof(int);
    abort();
}

ibex_status_t ibex_coll_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                             ibex_comm_t *comm)
{
    size_t len = (size_t)count * elem_size(dt);
    fake_msg_t *m = malloc(sizeof(*m) + len);
    m->next = NULL;
    m->tag = tag;
    m->len = len;
    memcpy(m->data, buf, len);
    pthread_mutex_lock(&lock);
    fake_msg_t **p = &box[comm->rank][dest];
    while (*p)
        p = &(*p)->next;
    *p = m;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    return IBEX_OK;
}

ibex_status_t ibex_coll_recv(void *buf, int count, MPI_Datatype dt, int src, int tag,
                             ibex_comm_t *comm)
{
    size_t len = (size_t)count * elem_size(dt);
    pthread_mutex_lock(&lock);
    fake_msg_t **p;
    for (;;) {
        for (p = &box[src][comm->rank]; *p && (*p)->tag != tag; p = &(*p)->next)
            ;
        if (*p)
            break;
        pthread_cond_wait(&cond, &lock);
    }
    fake_msg_t *m = *p;
    *p = m->next;
    pthread_mutex_unlock(&lock);
    ibex_status_t st = m->len > len ? IBEX_ERR_TRUNCATE : IBEX_OK;
    memcpy(buf, m->data, m->len < len ? m->len : len);
    free(m);
    return st;
}

ibex_status_t ibex_coll_sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest,
                                 void *rbuf, int rcount, MPI_Datatype rdt, int src, int tag,
                                 ibex_comm_t *comm)
{
    ibex_status_t st = ibex_coll_send(sbuf, scount, sdt, dest, tag, comm);
    return st != IBEX_OK ? st : ibex_coll_recv(rbuf, rcount, rdt, src, tag, comm);
}

/* The request-based calls (gather / scatter algorithms) on the same mailboxes, contiguous
 * datatypes only: a send is buffered at once; a receive happens in ibex_p2p_waitall. */
struct ibex_req {
    void *buf;
    size_t len;
    int src, tag;
    ibex_comm_t *comm;
};

ibex_status_t ibex_p2p_isend(const void *buf, MPI_Count count, ibex_dt_t *dt, int dest, int tag,
                             ibex_comm_t *comm, bool coll, ibex_req_t **req_p)
{
    *req_p = NULL;
    return ibex_coll_send((const char *)buf + dt->true_lb, (int)((size_t)count * dt->size),
                          MPI_BYTE, dest, tag, comm);
}

ibex_status_t ibex_p2p_irecv(void *buf, MPI_Count count, ibex_dt_t *dt, int src, int tag,
                             ibex_comm_t *comm, bool coll, ibex_req_t **req_p)
{
    ibex_req_t *r = malloc(sizeof(*r));
    if (!r)
        return IBEX_ERR_NO_MEMORY;
    *r = (ibex_req_t){(char *)buf + dt->true_lb, (size_t)count * dt->size, src, tag, comm};
    *req_p = r;
    return IBEX_OK;
}

ibex_status_t ibex_p2p_waitall(int n, ibex_req_t **reqs)
{
    ibex_status_t first = IBEX_OK;
    for (int i = 0; i < n; i++) {
        ibex_req_t *r = reqs[i];
        if (!r)
            continue;
        ibex_status_t st = ibex_coll_recv(r->buf, (int)r->len, MPI_BYTE, r->src, r->tag, r->comm);
        if (first == IBEX_OK)
            first = st;
        free(r);
    }
    return first;
}

/* The threads share one process, so they must not look like ranks of one node (the
 * shared-memory collectives would try to map a segment between them): each fake rank is on a
 * node of its own. */
ibex_runtime_t ibex_rt;
static int fake_world[COLL_FAKE_MAX_RANKS];
static ibex_group_t fake_group = {.world_ranks = fake_world};

/* ibex_request.h's, declared here: this fake has its own struct ibex_req. */
void ibex_wait_step(int *idle_polls);
void ibex_wait_step(int *idle_polls)
{
    (void)idle_polls;
    sched_yield();
}

/* coll_select.c notes each kind's algorithm for MPI_T there (ibex_engine_stats.h). */
ibex_engine_stats_t ibex_engine_stats;

/* The blocked-call record (runtime/engine/blocked.c) of the shared-memory waits: nothing to
 * record between threads (one fake rank per node, so those waits never run). */
bool ibex_blk_wait_coll(void)
{
    return false;
}

void ibex_blk_end(void) {}
/* ibex_p2p.h's: fake ranks share memory as threads; the segment never runs (one rank per
 * node), so the answer only decides the span. */
bool ibex_ep_node_memory(void)
{
    return true;
}

/* coll_shm.h's levels inside a node (coll_level.c, hwloc): IBEX_COLL_NODE_LEVEL is never set
 * here; one object. */
int ibex_coll_level_count(int level)
{
    (void)level;
    return 1;
}

int ibex_coll_level_of(int level, int world_rank)
{
    (void)level, (void)world_rank;
    return 0;
}

/* The hierarchy (collectives/base/coll_hier.c) makes communicators; with one fake rank per node
 * it never runs, so these only satisfy the linker and say so if called. */
ibex_handle_table_t ibex_comm_handles;
ibex_status_t ibex_comm_create_from(ibex_comm_t *parent, ibex_group_t *group, ibex_comm_t **comm_p)
{
    (void)parent, (void)group, (void)comm_p;
    abort();
}
void ibex_comm_destroy(ibex_comm_t *comm)
{
    (void)comm;
    abort();
}
ibex_group_t *ibex_group_new(int size)
{
    (void)size;
    abort();
}
void ibex_group_release(ibex_group_t *group)
{
    (void)group;
    abort();
}

typedef struct fake_rank {
    pthread_t thread;
    ibex_comm_t comm;
    coll_fake_fn_t fn;
    void *arg;
} fake_rank_t;

static void *fake_main(void *p)
{
    fake_rank_t *r = p;
    r->fn(&r->comm, r->arg);
    return NULL;
}

void coll_fake_run(int nranks, coll_fake_fn_t fn, void *arg)
{
    fake_rank_t ranks[COLL_FAKE_MAX_RANKS];
    if (nranks < 1 || nranks > COLL_FAKE_MAX_RANKS)
        abort();
    for (int i = 0; i < COLL_FAKE_MAX_RANKS; i++)
        fake_world[i] = i;
    fake_group.size = nranks;
    ibex_rt.boot.node_of = fake_world;
    for (int i = 0; i < nranks; i++) {
        memset(&ranks[i], 0, sizeof(ranks[i]));
        ranks[i].comm.group = &fake_group;
        ranks[i].comm.peers = &fake_group; /* an intracommunicator names its own group */
        ranks[i].comm.peer_size = nranks;
        ranks[i].comm.rank = i;
        ranks[i].comm.size = nranks;
        ranks[i].fn = fn;
        ranks[i].arg = arg;
        if (pthread_create(&ranks[i].thread, NULL, fake_main, &ranks[i]) != 0)
            abort();
    }
    for (int i = 0; i < nranks; i++)
        pthread_join(ranks[i].thread, NULL);
}

int coll_fake_pending(void)
{
    int n = 0;
    pthread_mutex_lock(&lock);
    for (int s = 0; s < COLL_FAKE_MAX_RANKS; s++)
        for (int d = 0; d < COLL_FAKE_MAX_RANKS; d++)
            for (fake_msg_t *m = box[s][d]; m; m = m->next)
                n++;
    pthread_mutex_unlock(&lock);
    return n;
}
