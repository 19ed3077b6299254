/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal header of the verbs transport (RC queue pairs over libibverbs). See README.md for the
 * design: one PD, one CQ, one SRQ of eager buffers shared by all peers, one RC QP per peer brought
 * up on first use through a connection handshake over one UD QP (verbs_cm.c), credit flow control
 * carried in the immediate data of every SEND, RDMA READ / WRITE for put / get, a registration
 * cache.
 */
#ifndef IBEX_VERBS_H
#define IBEX_VERBS_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "transport.h"

#define VERBS_POLL_BATCH   16
#define VERBS_SQ_DEPTH     256         /* send WRs per QP */
#define VERBS_INLINE_WANT  256         /* inline bytes asked for at QP creation */
#define VERBS_SIGNAL_EVERY 16          /* at most this many unsignalled WRs in a row */
#define VERBS_RMA_FRAG     (1u << 20)  /* RDMA READ / WRITE fragment */
#define VERBS_RMA_SGE      16          /* at most this many local pieces per READ / WRITE WR */
#define VERBS_BOUNCE_COUNT 128         /* registered send bounce buffers */
#define VERBS_CQ_SEND_ROOM 256         /* send WRs in flight over all QPs (CQ entries for them) */
#define VERBS_ADDR_MAGIC   0x49425632u /* "IBV2" */

/* Connection manager: one UD QP per process (verbs_cm.c). */
#define VERBS_CM_MAGIC       0x4942434du /* "IBCM" */
#define VERBS_CM_QKEY        0x1be5u
#define VERBS_CM_RECVS       64  /* UD receive buffers */
#define VERBS_CM_SENDS       16  /* UD send slots */
#define VERBS_CM_SLOT        256 /* bytes per UD buffer: 40-byte GRH + message */
#define VERBS_CM_GRH         40
#define VERBS_CM_RETRY_NS    2000000ull   /* first retransmission of a handshake step */
#define VERBS_CM_BACKOFF_NS  500000000ull /* longest interval between retransmissions */
#define VERBS_REPOST_BATCH   8            /* receive buffers reposted to the SRQ in one call */
#define VERBS_RCACHE_HOT_MAX 8            /* most hot slots of the registration cache */

/* Immediate data of every SEND: credits returned to the receiver of the SEND (low 16 bits) and
 * whether the message is only that (no payload for recv_cb). */
#define VERBS_IMM_CREDITS_MASK 0xffffu
#define VERBS_IMM_CREDIT_ONLY  0x80000000u

/* wr_id of send-queue WRs: an 8-aligned pointer (or 0) with the kind in the low bits. */
enum {
    VERBS_WR_INLINE = 1,  /* unsignalled-style send without an object */
    VERBS_WR_BOUNCE = 2,  /* send from a bounce buffer: wr_id is the verbs_bounce_t */
    VERBS_WR_RMA = 3,     /* one fragment of a put / get: wr_id is the verbs_rma_req_t */
    VERBS_WR_RECV = 4,    /* an SRQ receive: the buffer index above the kind bits */
    VERBS_WR_CM_RECV = 5, /* a UD receive of the connection manager: slot above the kind bits */
    VERBS_WR_CM_SEND = 6, /* a UD send of the connection manager */
};
#define VERBS_WR_RECV_ID(idx) (((uint64_t)(idx) << 3) | VERBS_WR_RECV)
#define VERBS_WR_RECV_IDX(id) ((uint32_t)((id) >> 3))
#define VERBS_WR_KIND(id)     ((unsigned)((id)&7u))
#define VERBS_WR_PTR(id)      ((void *)(uintptr_t)((id) & ~(uint64_t)7u))

/* Published address (a fixed size, whatever the job size): where our connection manager's UD QP
 * listens, and what a peer needs to bring an RC QP to RTR against ours. */
/* The IBEX_VERBS_* tunables, filled by ibex_config_load from the table in verbs_iface.c. */
typedef struct verbs_cfg {
    char *device;         /* "device[:port]" or "auto" */
    int srq_size;         /* receive buffers in the shared receive queue */
    long long buf_size;   /* bytes per eager receive buffer */
    int credits;          /* eager sends in flight per peer */
    int rc_timeout;       /* IB local ack timeout exponent (4.096 us * 2^n) */
    int retry_count;      /* transport retries before a peer is declared dead */
    long long rcache_max; /* registration cache limit in bytes */
    int rcache_hot;       /* recent registrations found without the cache's lock (0: off) */
    int connect_timeout;  /* seconds a connection request may go unanswered, 0: no limit */
    int fork;             /* call ibv_fork_init() at start-up */
} verbs_cfg_t;
extern verbs_cfg_t ibex_verbs_cfg;

typedef struct verbs_addr {
    uint32_t magic;
    uint32_t ud_qpn; /* the connection manager's UD QP */
    uint64_t nonce;  /* random per process: handshake messages must name it */
    uint16_t lid;
    uint8_t port;
    uint8_t mtu; /* enum ibv_mtu */
    uint8_t is_roce;
    uint8_t gid_index;
    uint8_t max_dest_rd; /* RDMA READs we serve in parallel per QP */
    uint8_t pad;
    uint32_t grant; /* eager credits we give every peer */
    uint8_t gid[16];
} verbs_addr_t;

typedef struct verbs_bounce {
    struct verbs_bounce *next;
    char *buf;
} verbs_bounce_t;

typedef struct verbs_rma_req verbs_rma_req_t;

struct ibex_tl_mem {
    uintptr_t start, end; /* registered range, page aligned */
    struct ibv_mr *mr;
    uint32_t refcnt;                         /* runtime handles + in-flight transfers */
    bool cached;                             /* findable in the cache (not invalidated) */
    bool pinned;                             /* mem_alloc memory: never evicted */
    bool hot;                                /* in the cache's hot slots (one reference) */
    struct ibex_tl_mem *lru_prev, *lru_next; /* unused entries, oldest first */
};

/* Registration cache statistics (tests read them). */
typedef struct verbs_rcache_stats {
    unsigned long hits, misses, evictions, invalidations;
    size_t bytes, entries;
} verbs_rcache_stats_t;

typedef struct verbs_rcache {
    pthread_mutex_t lock;
    struct ibv_pd *pd;
    ibex_tl_mem_t **ents; /* sorted by start */
    size_t n, cap;
    size_t bytes, max;
    size_t max_len; /* longest entry ever inserted: bounds the overlap search */
    ibex_tl_mem_t *lru_head, *lru_tail;
    ibex_tl_mem_t **dead; /* invalidated by a memory hook, deregistered by the owner thread */
    size_t ndead, dead_cap;
    verbs_rcache_stats_t st;
    /* Hot slots: the last registrations looked up, each holding a reference, searched by the
     * owner thread without the lock (verbs_mr.c). A memory hook that invalidates one raises
     * hot_stale; the next lookup under the lock lets it go. hot_last: the slot of the last hot
     * hit, tried first (a loop on one buffer finds it there whatever its slot). */
    ibex_tl_mem_t *hot[VERBS_RCACHE_HOT_MAX];
    unsigned nhot, hot_next, hot_last;
    int hot_stale;
    unsigned long hot_hits;
} verbs_rcache_t;

/* Connection state of an endpoint (verbs_cm.c). Sends are allowed only in CONNECTED: before
 * that credits and sq_avail are 0, so send() answers AGAIN and put / get queue. */
typedef enum {
    VERBS_EP_IDLE,      /* no QP */
    VERBS_EP_REQ_SENT,  /* our QP in INIT, connection requests sent */
    VERBS_EP_WAIT_RTU,  /* our QP in RTS answering a request; the peer may not be RTR yet */
    VERBS_EP_CONNECTED, /* both sides RTR at least */
} verbs_ep_state_t;

struct ibex_tl_ep {
    ibex_tl_t *tl;
    struct ibv_qp *qp;
    int peer;
    verbs_ep_state_t state;
    bool failed;
    bool on_work;
    ibex_status_t fail_status;
    /* send side */
    uint32_t credits;  /* eager SENDs we may still post */
    uint32_t sq_avail; /* free send-queue slots */
    uint32_t unsig;    /* unsignalled WRs since the last signalled one */
    uint16_t *rel;     /* slots each outstanding signalled WR releases, in post order */
    uint32_t rel_head, rel_tail;
    uint32_t rd_out, rd_max;              /* RDMA READ fragments in flight and the limit */
    verbs_rma_req_t *rma_head, *rma_tail; /* waiting for send-queue room or read slots */
    /* receive side */
    uint32_t owed;       /* credits earned by the peer, not yet returned */
    uint32_t credit_thr; /* owed credits that trigger an explicit credit message */
    uint32_t *backlog;   /* receive buffers recv_cb refused, in arrival order */
    uint32_t bl_head, bl_tail, bl_mask;
    struct ibex_tl_ep *work_next;
    /* connection (verbs_cm.c) */
    bool have_addr;                /* paddr is valid */
    verbs_addr_t paddr;            /* the peer's address */
    uint32_t dqpn;                 /* the peer's RC QP for us, once known */
    struct ibv_ah *ah;             /* to the peer's UD QP */
    uint64_t cm_start;             /* when the handshake began (ns, monotonic) */
    uint64_t cm_next;              /* next retransmission */
    uint64_t cm_gap;               /* current retransmission interval */
    uint64_t cm_warned;            /* waited this long when we last warned */
    struct ibex_tl_ep *cm_next_ep; /* in tl->cm_wait */
    /* receive data path (verbs_send.c): buffers of this peer accepted by recv_cb and waiting in
     * the repost batch; they earn credits only once reposted */
    uint32_t held;
};

struct ibex_tl {
    ibex_tl_params_t params;
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_srq *srq;
    struct ibv_device_attr dev_attr;
    char dev_name[64];
    uint8_t port;
    struct ibv_port_attr port_attr;
    verbs_addr_t addr; /* our published header */
    uint32_t max_inline;
    uint32_t rma_frag; /* bytes per RDMA READ / WRITE work request */
    uint32_t rma_sge;  /* local pieces per READ / WRITE WR (the QPs' max_send_sge) */
    uint32_t grant;    /* credits given to each peer */
    /* eager receive buffers */
    char *rbufs;
    struct ibv_mr *rbuf_mr;
    uint32_t nrbufs;
    size_t buf_size;
    uint32_t *rlen; /* byte length of each held (backlogged) buffer */
    /* send bounce buffers */
    char *sbufs;
    struct ibv_mr *sbuf_mr;
    verbs_bounce_t *bounce_all, *bounce_free;
    int cq_room; /* send WRs that may still be posted without overflowing the CQ */
    int cq_size;
    /* peers: ep[i] for every rank, ours included (loopback QP); QPs created on first use */
    ibex_tl_ep_t *eps;
    uint32_t *qpn_map; /* open-addressing hash: local qp_num -> peer + 1 (0 = empty) */
    uint32_t *qpn_keys;
    uint32_t qpn_mask;
    ibex_tl_ep_t *work; /* eps with a backlog, queued RMA or owed credits */
    /* connection manager (verbs_cm.c) */
    struct ibv_qp *cm_qp; /* UD */
    char *cm_bufs;        /* VERBS_CM_RECVS receive slots, then VERBS_CM_SENDS send slots */
    struct ibv_mr *cm_mr;
    uint32_t cm_send_head, cm_send_out; /* next send slot, sends not yet completed */
    ibex_tl_ep_t *cm_wait;              /* eps in REQ_SENT or WAIT_RTU: retransmission timers */
    int rma_out;                        /* RMA requests not yet completed, for close */
    verbs_rma_req_t *rma_free;          /* finished RMA requests kept for reuse (verbs_rma.c) */
    /* the one-fragment transfer's work request and gather entry (verbs_rma.c rma_one): kept
     * here, zeroed once, so that a post sets only its own fields */
    struct ibv_send_wr one_wr;
    struct ibv_sge one_sge;
    int rma_nfree;
    verbs_rcache_t rcache;
    /* receive data path (verbs_send.c): eager buffers lie rbuf_stride bytes apart (buf_size
     * plus a cache line, so their first lines do not all fall in the same cache sets); accepted
     * buffers are reposted VERBS_REPOST_BATCH at a time, with the peer each one earns a credit */
    size_t rbuf_stride;
    uint32_t nrepost;
    uint32_t repost_idx[VERBS_REPOST_BATCH];
    struct ibex_tl_ep *repost_ep[VERBS_REPOST_BATCH];
};

/* verbs_dev.c */
ibex_status_t ibex_verbs_dev_open(ibex_tl_t *tl, bool explicit);
void ibex_verbs_dev_info(void *out_file);

/* verbs_iface.c */
void ibex_verbs_work_add(ibex_tl_ep_t *ep);

/* verbs_ep.c */
ibex_status_t ibex_verbs_eps_create(ibex_tl_t *tl);
void ibex_verbs_eps_destroy(ibex_tl_t *tl);
/* Creates the endpoint's RC QP and moves it to INIT. */
ibex_status_t ibex_verbs_ep_qp(ibex_tl_ep_t *ep);
/* Moves the endpoint's QP to RTR and RTS against the peer's QP dqpn (ep->paddr is set). */
ibex_status_t ibex_verbs_ep_rts(ibex_tl_ep_t *ep, uint32_t dqpn);
/* Sends are allowed from now on: credits and send-queue slots. */
void ibex_verbs_ep_established(ibex_tl_ep_t *ep);
/* A peer's address (published, or carried by its handshake): size, magic, common link layer. */
ibex_status_t ibex_verbs_addr_check(ibex_tl_t *tl, int peer, const void *addr, size_t len);
ibex_status_t ibex_verbs_addr_pack(ibex_tl_t *tl, void *buf, size_t *len_p);
/* The endpoint of a local QP number (NULL: none of ours), by the open-addressing map: inline,
 * since every send completion asks it. */
static inline uint32_t ibex_verbs_qpn_hash(uint32_t qpn)
{
    return qpn * 2654435761u;
}

static inline ibex_tl_ep_t *ibex_verbs_ep_by_qpn(ibex_tl_t *tl, uint32_t qpn)
{
    uint32_t i = ibex_verbs_qpn_hash(qpn) & tl->qpn_mask;
    while (tl->qpn_map[i]) {
        if (tl->qpn_keys[i] == qpn)
            return &tl->eps[tl->qpn_map[i] - 1];
        i = (i + 1) & tl->qpn_mask;
    }
    return NULL;
}
ibex_status_t ibex_verbs_ep_create(ibex_tl_t *tl, int peer, const void *addr, size_t addr_len,
                                   ibex_tl_ep_t **ep_p);
void ibex_verbs_ep_destroy(ibex_tl_ep_t *ep);

/* verbs_cm.c */
ibex_status_t ibex_verbs_cm_open(ibex_tl_t *tl);
void ibex_verbs_cm_close(ibex_tl_t *tl);
/* Starts the handshake with ep->peer (ep->paddr is set); sends queue until it ends. */
ibex_status_t ibex_verbs_cm_connect(ibex_tl_ep_t *ep);
/* A completion of the UD QP. */
void ibex_verbs_cm_wc(ibex_tl_t *tl, const struct ibv_wc *wc);
/* Retransmissions and time limits of pending handshakes. */
void ibex_verbs_cm_timers(ibex_tl_t *tl);
/* Tells a failed peer over UD that we closed our side (issue 16): its QP may never see an error
 * (a retry-exceeded one, say), and it must not wait forever for what we will never send. */
void ibex_verbs_cm_disconnect(ibex_tl_ep_t *ep);

/* verbs_send.c */
ibex_status_t ibex_verbs_bufs_create(ibex_tl_t *tl);
void ibex_verbs_bufs_destroy(ibex_tl_t *tl);
ibex_status_t ibex_verbs_srq_fill(ibex_tl_t *tl);
ibex_status_t ibex_verbs_send(ibex_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                              const void *payload, size_t len);
int ibex_verbs_post(ibex_tl_ep_t *ep, struct ibv_send_wr *wr, bool must_signal);
void ibex_verbs_send_done(ibex_tl_ep_t *ep, const struct ibv_wc *wc);
void ibex_verbs_recv_done(ibex_tl_t *tl, const struct ibv_wc *wc);
void ibex_verbs_recv_error(ibex_tl_t *tl, const struct ibv_wc *wc);
/* Re-offers the backlog and returns owed credits; returns the messages delivered. */
int ibex_verbs_ep_work_recv(ibex_tl_ep_t *ep);
bool ibex_verbs_ep_credits_pending(const ibex_tl_ep_t *ep);

/* verbs_rma.c */
ibex_status_t ibex_verbs_put(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc);
ibex_status_t ibex_verbs_get(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc);
ibex_status_t ibex_verbs_atomic(ibex_tl_ep_t *ep, const ibex_tl_atomic_t *desc);
const char *ibex_verbs_rma_opname(const verbs_rma_req_t *req);
void ibex_verbs_rma_free_all(ibex_tl_t *tl);
void ibex_verbs_rma_done(ibex_tl_ep_t *ep, verbs_rma_req_t *req, enum ibv_wc_status st);
/* Posts queued fragments; returns the fragments posted. */
int ibex_verbs_ep_work_rma(ibex_tl_ep_t *ep);
/* Completes every queued (unposted) request of a failed endpoint. */
void ibex_verbs_rma_fail_queued(ibex_tl_ep_t *ep);

/* verbs_mr.c */
ibex_status_t ibex_verbs_rcache_init(verbs_rcache_t *rc, struct ibv_pd *pd, size_t max);
void ibex_verbs_rcache_fini(verbs_rcache_t *rc);
/* Finds or creates a registration covering [addr, addr + len) and takes a reference. */
ibex_status_t ibex_verbs_rcache_get(verbs_rcache_t *rc, void *addr, size_t len,
                                    ibex_tl_mem_t **mem_p);
void ibex_verbs_rcache_put(verbs_rcache_t *rc, ibex_tl_mem_t *mem);
void ibex_verbs_rcache_stats(ibex_tl_t *tl, verbs_rcache_stats_t *st_p);
/* The transport op: the cache's counts for MPI_T. */
void ibex_verbs_stats(ibex_tl_t *tl, ibex_tl_stats_t *st_p);
ibex_status_t ibex_verbs_mem_reg(ibex_tl_t *tl, void *addr, size_t len, ibex_tl_mem_t **mem_p);
void ibex_verbs_mem_dereg(ibex_tl_t *tl, ibex_tl_mem_t *mem);
ibex_status_t ibex_verbs_mem_pack_rkey(ibex_tl_t *tl, ibex_tl_mem_t *mem, void *buf);
ibex_status_t ibex_verbs_mem_alloc(ibex_tl_t *tl, size_t len, void **ptr_p);
ibex_status_t ibex_verbs_mem_free(ibex_tl_t *tl, void *ptr);

/* verbs_err.c */
/* Logs the failure of a work request once per peer, marks the endpoint failed, tells the runtime
 * and fails queued work. Returns the status the affected operations complete with. */
ibex_status_t ibex_verbs_ep_fail(ibex_tl_ep_t *ep, enum ibv_wc_status st, const char *op);
/* The same for a peer that could not be reached at all: "peer rank N on HOST <why>". */
void ibex_verbs_ep_unreachable(ibex_tl_ep_t *ep, const char *why);
ibex_status_t ibex_verbs_wc_status(enum ibv_wc_status st);
const char *ibex_verbs_mtu_str(enum ibv_mtu mtu);

#endif
