/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal types of the shm transport (transport/shm/, README.md there has the design). Each
 * process owns one memfd segment holding what others write to it and what it lends them:
 *
 *   [header: geometry, cookie; the peer table: each sender's address, written when it connects]
 *   [the shared receive queue: a bounded MPSC queue of fragment ids (shm_fifo.h)]
 *   [fast boxes: SPSC rings (shm_ring.h), claimed one each by the most active senders]
 *   [the fragment pool: this process's own send buffers for the shared queue]
 *
 * Its size does not depend on the number of local ranks (but for 32 bytes per rank of the peer
 * table), and neither does an empty poll: the head cell of the queue and the claimed boxes.
 * Processes map each other's segments on first use (a sender the receiver's, for the queue and
 * its box; a receiver the sender's, for its fragments) from /proc/<pid>/fd/<fd>.
 */
#ifndef IBEX_SHM_H
#define IBEX_SHM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "transport.h"
#include "shm_fifo.h"
#include "shm_ring.h"

#define IBEX_SHM_SEG_MAGIC  0x3273686d78656269ull /* "ibexshm2" */
#define IBEX_SHM_ADDR_MAGIC 0x6d687378u           /* "xshm" */
/* Bytes of a cached (not streamed) message whose lines the receiver prefetches (shm_rx.c). */
#define IBEX_SHM_PREFETCH_CACHED 1024u
/* Messages taken from one box (or the queue) per progress call before the next gets its turn. */
#define IBEX_SHM_POLL_BATCH 16
/* Consecutive "no room" results between two checks that the receiver is still alive. */
#define IBEX_SHM_FULL_CHECK 4096

/* At offset 0 of every segment; a peer checks it before mapping the segment. */
typedef struct ibex_shm_seg_hdr {
    uint64_t magic;
    uint64_t cookie; /* random, also in the address: guards against pid reuse */
    uint32_t nranks; /* local ranks: entries of the peer table */
    uint32_t nboxes;
    uint32_t nslots; /* per box */
    uint32_t ncells; /* of the shared queue */
    uint32_t nfrags; /* of the pool */
    uint32_t pad;
    uint64_t slot_size; /* box slots and pool fragments alike */
    uint64_t table_offset, fifo_offset, box_offset, box_stride, pool_offset;
    uint64_t seg_size;
} ibex_shm_seg_hdr_t;

/* The published address (addr_pack), caps.addr_size bytes; also a peer-table entry. */
typedef struct ibex_shm_addr {
    uint32_t magic;
    int32_t pid;
    int32_t fd; /* the segment's memfd, in the owner's fd table */
    uint32_t pad;
    uint64_t seg_size;
    uint64_t cookie;
} ibex_shm_addr_t;

/* A fast box being polled: the ring and whose it is. */
typedef struct ibex_shm_rx {
    ibex_shm_ring_rx_t ring;
    int src_rank;  /* world rank of the sender */
    int src_local; /* its local rank */
} ibex_shm_rx_t;

/* What this process knows of one local peer, by its local rank. */
typedef struct ibex_shm_peer {
    /* parts of its segment, each mapped on first use (into ours for ourselves), NULL until then:
     * as a sender we need its header and queue (ctl) and our box in it, as a receiver its pool */
    void *ctl, *box, *pool;
    size_t ctl_len, box_len, pool_len;
    bool pool_failed;
    uint64_t *held; /* ids from it the runtime refused for now, oldest first (a circle) */
    uint32_t held_head, held_count;
} ibex_shm_peer_t;

struct ibex_tl {
    /* the receive path, hot */
    ibex_tl_recv_cb_t recv_cb;
    void *cb_arg;
    ibex_shm_fifo_ctl_t *fifo; /* our shared receive queue */
    uint32_t fifo_mask;
    uint64_t fifo_pos;  /* the next cell we read */
    ibex_shm_rx_t *box; /* boxes claimed by senders, polled in this order */
    int nbox_rx;
    int rr;           /* box that progress starts with (round robin) */
    int nheld;        /* peers with held ids */
    bool queue_idle;  /* every other local rank sends through its box: the queue stays empty */
    bool self_ep;     /* we connected to ourselves (our own queue may get messages) */
    bool in_progress; /* a receive callback re-entering progress() polls nothing */
    /* the send path */
    unsigned char *pool; /* our fragments */
    uint32_t nfrags, frag_cursor;
    /* the rest */
    ibex_tl_peer_failed_cb_t peer_failed_cb;
    int rank, local_rank, local_size;
    int *local_peers; /* world ranks on this node, ascending */
    ibex_shm_peer_t *peers;
    struct ibex_tl_ep **eps; /* by local rank */
    int memfd;
    void *seg;
    ibex_shm_seg_hdr_t *hdr;
    uint64_t cookie;
    uint32_t nslots, nboxes, ncells;
    uint32_t box_after; /* queue sends to a peer before it asks for a box */
    size_t slot_size;
    size_t slot_stride;   /* slot_size + IBEX_SHM_SLOT_SKEW: box slots and fragments apart */
    size_t stream_min;    /* IBEX_SHM_STREAM_MIN, SIZE_MAX when 0 (never stream) */
    uint32_t tail_every;  /* IBEX_SHM_TAIL_EVERY (0: half a box) */
    uint32_t own_lines;   /* IBEX_SHM_OWN_NEXT in lines (0: off) */
    uint32_t ahead_lines; /* IBEX_SHM_PREFETCH_AHEAD in lines (0: off) */
    bool prefetch_next;   /* IBEX_SHM_PREFETCH_NEXT */
    bool cma_ok;
};

struct ibex_tl_ep {
    ibex_shm_ring_tx_t tx; /* first: our fast box in the peer's segment, once has_box */
    bool has_box;
    size_t max_data;
    ibex_shm_fifo_ctl_t *fifo; /* the peer's shared queue */
    struct ibex_tl *tl;
    int peer;      /* world rank */
    int local_idx; /* local rank of the peer */
    pid_t pid;
    ibex_shm_addr_t addr; /* the peer's, to map our box when we get one */
    int pidfd;            /* -1 when pidfd_open is unavailable */
    uint32_t queued;      /* sends through the queue so far */
    int box_pending;      /* a box claimed but not announced yet, else -1 */
    bool no_box;          /* every box of the peer is taken */
    unsigned full_count;
    int refs;
    bool is_self;
    bool failed;
};

/* shm_seg.c */
ibex_status_t ibex_shm_seg_create(struct ibex_tl *tl);
void ibex_shm_seg_destroy(struct ibex_tl *tl);
/* Maps len bytes at offset (page multiples) of local peer idx's segment from its address, into
 * *map_p; IBEX_ERR_UNREACHABLE when it cannot be opened, IBEX_ERR_PEER_FAILED / IBEX_ERR_INVALID
 * when it is not the one it published. */
ibex_status_t ibex_shm_seg_map_peer(struct ibex_tl *tl, int idx, const ibex_shm_addr_t *addr,
                                    int pidfd, uint64_t offset, uint64_t len, void **map_p);
/* The layout a segment of this process's geometry has (header fields but magic and cookie). */
void ibex_shm_seg_layout(const struct ibex_tl *tl, ibex_shm_seg_hdr_t *hdr);
/* The byte at offset in a mapped segment. */
static inline void *ibex_shm_seg_at(void *seg, uint64_t offset)
{
    return (unsigned char *)seg + offset;
}

/* shm_ep.c */
ibex_status_t ibex_shm_ep_create(ibex_tl_t *tl, int peer, const void *addr, size_t addr_len,
                                 ibex_tl_ep_t **ep_p);
void ibex_shm_ep_destroy(ibex_tl_ep_t *ep);
/* Frees an endpoint whatever its references (close). */
void ibex_shm_ep_free(ibex_tl_ep_t *ep);
ibex_status_t ibex_shm_ep_send(ibex_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                               const void *payload, size_t len);
/* send_fill (IBEX_TL_CAP_SEND_FILL): fill writes the payload straight into the ring slot. */
ibex_status_t ibex_shm_ep_send_fill(ibex_tl_ep_t *ep, const void *hdr, size_t hdr_len, size_t len,
                                    ibex_tl_fill_cb_t fill, void *ctx);
/* Whether the peer's process still exists (pidfd, else kill(pid, 0)). */
bool ibex_shm_ep_peer_alive(const ibex_tl_ep_t *ep);
/* Marks the peer failed and tells the runtime, once; returns IBEX_ERR_PEER_FAILED. */
ibex_status_t ibex_shm_ep_fail(ibex_tl_ep_t *ep, const char *op);
/* Local rank of a world rank, or -1 if not on this node. */
int ibex_shm_local_index(const struct ibex_tl *tl, int rank);

/* shm_rx.c */
int ibex_shm_rx_progress(struct ibex_tl *tl);
void ibex_shm_rx_free(struct ibex_tl *tl);

/* shm_cma.c */
ibex_status_t ibex_shm_cma_put(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc);
ibex_status_t ibex_shm_cma_get(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc);
/* Whether process_vm_readv works here (probes this process itself). */
bool ibex_shm_cma_probe(void);

#endif
