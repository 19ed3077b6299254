/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal types of the shm transport (transport/shm/). See transport/README.md for the design:
 * one memfd segment per process holding its receive rings (one per local sender, itself
 * included), mapped by each sender from /proc/<pid>/fd/<fd>; process_vm_readv / writev for put
 * and get.
 */
#ifndef IBEX_SHM_H
#define IBEX_SHM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "transport.h"
#include "shm_ring.h"

#define IBEX_SHM_SEG_MAGIC  0x3173686d78656269ull /* "ibexshm1" */
#define IBEX_SHM_ADDR_MAGIC 0x6d687378u           /* "xshm" */
/* Messages taken from one ring per progress call before the next ring gets its turn. */
#define IBEX_SHM_POLL_BATCH 16
/* Consecutive "ring full" results between two checks that the receiver is still alive. */
#define IBEX_SHM_FULL_CHECK 4096

/* At offset 0 of every segment; a sender checks it before mapping its ring. */
typedef struct ibex_shm_seg_hdr {
    uint64_t magic;
    uint64_t cookie; /* random, also in the address: guards against pid reuse */
    uint32_t nrings; /* one per local rank, indexed by the sender's local rank */
    uint32_t nslots;
    uint64_t slot_size;
    uint64_t ring_offset; /* of ring 0; page aligned */
    uint64_t ring_stride; /* page multiple */
    uint64_t seg_size;
} ibex_shm_seg_hdr_t;

/* The published address (addr_pack), caps.addr_size bytes. */
typedef struct ibex_shm_addr {
    uint32_t magic;
    int32_t pid;
    int32_t fd; /* the segment's memfd, in the owner's fd table */
    uint32_t pad;
    uint64_t seg_size;
    uint64_t cookie;
} ibex_shm_addr_t;

/* One incoming ring, polled by progress(). */
typedef struct ibex_shm_rx {
    ibex_shm_ring_rx_t ring;
    int src_rank; /* world rank of the sender */
} ibex_shm_rx_t;

struct ibex_tl {
    ibex_tl_recv_cb_t recv_cb;
    void *cb_arg;
    ibex_shm_rx_t *rx; /* rings polled by progress: other local ranks, then self once used */
    int npoll;
    int rr;           /* ring that progress starts with (round robin) */
    bool in_progress; /* a receive callback re-entering progress() polls nothing */
    ibex_tl_peer_failed_cb_t peer_failed_cb;
    int rank, local_rank, local_size;
    int *local_peers;        /* world ranks on this node, ascending */
    struct ibex_tl_ep **eps; /* by local rank */
    int memfd;
    void *seg;
    ibex_shm_seg_hdr_t *hdr;
    uint64_t cookie;
    uint32_t nslots;
    size_t slot_size;
    size_t stream_min; /* IBEX_SHM_STREAM_MIN, SIZE_MAX when 0 (never stream) */
    bool cma_ok;
};

struct ibex_tl_ep {
    ibex_shm_ring_tx_t tx; /* first: the hot path touches only this and max_data */
    size_t max_data;
    struct ibex_tl *tl;
    int peer;      /* world rank */
    int local_idx; /* local rank of the peer */
    pid_t pid;
    int pidfd; /* -1 when pidfd_open is unavailable */
    void *map; /* our ring in the peer's segment (NULL for ourselves) */
    size_t map_len;
    unsigned full_count;
    int refs;
    bool is_self;
    bool failed;
};

/* shm_seg.c */
ibex_status_t ibex_shm_seg_create(struct ibex_tl *tl);
void ibex_shm_seg_destroy(struct ibex_tl *tl);
/* Maps this process's ring in a peer's segment; *map_p / *len_p set on success. */
ibex_status_t ibex_shm_seg_attach(struct ibex_tl *tl, int peer, const ibex_shm_addr_t *addr,
                                  int pidfd, void **map_p, size_t *len_p);
size_t ibex_shm_seg_ring_offset(const ibex_shm_seg_hdr_t *hdr, int idx);

/* shm_ep.c */
ibex_status_t ibex_shm_ep_create(ibex_tl_t *tl, int peer, const void *addr, size_t addr_len,
                                 ibex_tl_ep_t **ep_p);
void ibex_shm_ep_destroy(ibex_tl_ep_t *ep);
ibex_status_t ibex_shm_ep_send(ibex_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                               const void *payload, size_t len);
/* Whether the peer's process still exists (pidfd, else kill(pid, 0)). */
bool ibex_shm_ep_peer_alive(const ibex_tl_ep_t *ep);
/* Marks the peer failed and tells the runtime, once; returns IBEX_ERR_PEER_FAILED. */
ibex_status_t ibex_shm_ep_fail(ibex_tl_ep_t *ep, const char *op);
/* Local rank of a world rank, or -1 if not on this node. */
int ibex_shm_local_index(const struct ibex_tl *tl, int rank);

/* shm_cma.c */
ibex_status_t ibex_shm_cma_put(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc);
ibex_status_t ibex_shm_cma_get(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc);
/* Whether process_vm_readv works here (probes this process itself). */
bool ibex_shm_cma_probe(void);

#endif
