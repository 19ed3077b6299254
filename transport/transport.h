/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transport interface: the one contract every backend (each folder under transport/)
 * implements, and the registry through which the runtime finds the backends without naming them.
 *
 * A transport moves bytes between this process and peer processes, identified by their world
 * rank. It knows nothing of communicators, tags or matching: the runtime (runtime/proto*.c)
 * builds MPI semantics on top of four services:
 *
 *  1. Active messages ("eager send"): send(ep, hdr, hdr_len, payload, len) delivers hdr and
 *     payload, concatenated, to the peer's receive callback (ibex_tl_recv_cb_t), exactly once and
 *     in the order sent to that peer. hdr_len + len must not exceed caps.max_eager. When the
 *     transport has no room (ring full, no credits) send returns IBEX_ERR_AGAIN and has done
 *     nothing. On IBEX_OK the transport no longer needs hdr or payload (it copied them or sent
 *     them inline): the runtime may complete the user's request at once. On IBEX_ERR_AGAIN the
 * runtime queues the message and retries from its progress loop. A transport must never drop,
 * reorder or duplicate a message, and must never block in send.
 *
 *  2. The receive callback runs inside progress(). The data it sees is valid only during the
 *     call. If the runtime cannot accept the message now (its unexpected-message budget is
 *     spent) the callback returns IBEX_ERR_AGAIN; the transport then keeps the message and
 *     offers it (and everything behind it from that peer) again on a later progress() call.
 *     Holding messages back is the flow control that keeps a flooded receiver's memory bounded:
 *     the sender sees IBEX_ERR_AGAIN once its ring / credits run out.
 *
 *  3. One-sided put / get (rendezvous). The runtime registers memory with mem_reg when
 *     caps.flags has IBEX_TL_CAP_NEED_REG, packs the remote key with mem_pack_rkey (at most
 *     caps.rkey_size bytes) and ships address + key in its own RTS / CTS messages. put / get
 *     take one descriptor; they return IBEX_OK if the transfer is already complete (the
 *     completion callback is then NOT called), IBEX_INPROGRESS if desc->comp->cb will be called
 *     later from progress(), or an error. A transfer may be larger than caps.max_rma: then the
 *     transport splits it itself. Remote keys are checked by the target's hardware (verbs) or
 *     by the kernel (shm: process_vm_readv / writev, same user only).
 *
 *  4. progress() polls the transport once: receive callbacks, RMA completions, connection
 *     events. It returns the number of events handled (0 when idle), so the wait loop can tell
 *     "busy" from "idle".
 *
 * A peer may be this process itself (when "self" is not among the selected transports, e.g.
 * IBEX_TRANSPORTS=verbs): every transport must be able to connect to its own rank.
 *
 * Errors: a transport logs once, where it sees the error, naming the peer rank, its host, the
 * operation and the likely cause; it then reports IBEX_ERR_PEER_FAILED (or another status)
 * through the failed call or completion. The runtime's peer_failed callback (in params) is told
 * when a peer becomes unreachable so that every request involving it can complete in error.
 *
 * Backends fill an ibex_tl_ops_t with designated initialisers. An op they leave NULL is replaced
 * by a typed "not supported" stub when the transport is opened (ibex_tl_fill_stubs), so callers
 * never test for NULL; capability flags must match the ops that are wired.
 */
#ifndef IBEX_TRANSPORT_H
#define IBEX_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "ibex_status.h"

typedef struct ibex_tl ibex_tl_t;         /* an open transport instance (one per process) */
typedef struct ibex_tl_ep ibex_tl_ep_t;   /* a connection to one peer, opaque to the runtime */
typedef struct ibex_tl_mem ibex_tl_mem_t; /* a memory registration, opaque to the runtime */

enum {
    IBEX_TL_CAP_SEND = 1u << 0,     /* active messages (every transport) */
    IBEX_TL_CAP_PUT = 1u << 1,      /* one-sided write: rendezvous WRITE possible */
    IBEX_TL_CAP_GET = 1u << 2,      /* one-sided read: rendezvous READ possible */
    IBEX_TL_CAP_NEED_REG = 1u << 3, /* put / get need mem_reg'd local memory and an rkey */
    IBEX_TL_CAP_INLINE = 1u << 4,   /* tiny sends go inline (no copy to a bounce buffer) */
    IBEX_TL_CAP_CPU_RMA = 1u << 5,  /* put / get are copies by the calling CPU (no offload) */
    /* Remote atomics (the atomic op): 8-byte fetch-and-add and compare-and-swap on 8-byte
     * aligned registered memory, atomic with respect to each other on one device (not to the
     * target's CPU stores), values in host order. One-sided windows use them for their lock
     * words and 8-byte Fetch_and_op / Compare_and_swap; without the bit windows fall back to
     * the active-message path. */
    IBEX_TL_CAP_ATOMIC = 1u << 6,
    /* put / get take the local side as a list of pieces (ibex_tl_rma_t.local_iov, at most
     * caps.max_iov of them per call): non-contiguous data moves without a pack. */
    IBEX_TL_CAP_RMA_IOV = 1u << 7,
    /* send_fill: an active message whose payload the caller writes straight into the
     * transport's own send buffer (shm: the ring slot), so packed data skips a bounce buffer.
     * Without the bit the op is the "not supported" stub: pack, then send. */
    IBEX_TL_CAP_SEND_FILL = 1u << 8,
};

typedef struct ibex_tl_caps {
    uint32_t flags;          /* IBEX_TL_CAP_* */
    size_t max_inline;       /* bytes (header + payload) sent inline */
    size_t max_eager;        /* largest header + payload one send() takes */
    size_t max_rma;          /* largest single put / get before the transport splits it */
    size_t rkey_size;        /* bytes of a packed remote key (0 if none) */
    size_t addr_size;        /* bytes of the packed address published at start-up */
    size_t eager_limit_hint; /* payload size where rendezvous starts to win */
    double latency_ns;       /* one-way small-message latency, for algorithm choice */
    double bandwidth_mbs;    /* large-message bandwidth, MB/s */
    int max_iov;             /* IBEX_TL_CAP_RMA_IOV: local pieces one put / get takes */
} ibex_tl_caps_t;

/* Receive callback: data = header + payload as sent. Returns IBEX_OK, or IBEX_ERR_AGAIN to
 * have the transport keep the message and offer it again later. */
typedef ibex_status_t (*ibex_tl_recv_cb_t)(void *arg, int src_rank, const void *data, size_t len);
/* A peer became unreachable (its process died, the link failed). */
typedef void (*ibex_tl_peer_failed_cb_t)(void *arg, int peer_rank, ibex_status_t why);

typedef struct ibex_tl_params {
    int rank;                   /* this process's world rank */
    int size;                   /* world size */
    int local_rank, local_size; /* on this node */
    const int *local_peers;     /* world ranks on this node, local_size of them */
    bool requested; /* named in IBEX_TRANSPORTS: failing to open is an error, not a quiet skip */
    ibex_tl_recv_cb_t recv_cb;
    ibex_tl_peer_failed_cb_t peer_failed_cb;
    void *cb_arg;
} ibex_tl_params_t;

/* Completion of an asynchronous put / get. The runtime embeds this in its own state. */
typedef struct ibex_tl_comp ibex_tl_comp_t;
typedef void (*ibex_tl_comp_cb_t)(ibex_tl_comp_t *comp, ibex_status_t status);
struct ibex_tl_comp {
    ibex_tl_comp_cb_t cb;
};

typedef struct ibex_tl_rma {
    void *local;              /* local buffer */
    size_t len;               /* bytes to move */
    ibex_tl_mem_t *local_mem; /* registration covering local (NEED_REG transports) */
    uint64_t remote;          /* peer's virtual address */
    const void *rkey;         /* packed remote key, as the peer's mem_pack_rkey made it */
    ibex_tl_comp_t *comp;     /* called when IBEX_INPROGRESS was returned */
    /* IBEX_TL_CAP_RMA_IOV: when set, the local side is these pieces in order (local unused),
     * their lengths adding up to len; the remote side stays one range. */
    const struct iovec *local_iov;
    int local_iovcnt;
} ibex_tl_rma_t;

/* send_fill's producer: writes exactly len payload bytes at dst (transport memory, 8-byte
 * aligned, no alignment beyond). It may run for a send_fill that then returns IBEX_ERR_AGAIN
 * (the caller calls send_fill again later), so it must write the same bytes each time it is
 * called with the same ctx; it must not call the transport. */
typedef void (*ibex_tl_fill_cb_t)(void *dst, size_t len, void *ctx);

/* What a transport counts of its own work, for the tools interface (MPI_T performance
 * variables): read on demand by the stats op, since the transport started. */
typedef struct ibex_tl_stats {
    unsigned long long reg_hits;      /* mem_reg calls served from a registration cache */
    unsigned long long reg_misses;    /* mem_reg calls that registered memory */
    unsigned long long reg_evictions; /* cached registrations dropped to make room */
} ibex_tl_stats_t;
/* A remote atomic (IBEX_TL_CAP_ATOMIC): the 8 bytes at remote become
 *   FADD:  old + operand
 *   CSWAP: old == operand ? swap : old
 * and old is written to *result (8 bytes) when it completes. */
typedef enum { IBEX_TL_ATOMIC_FADD, IBEX_TL_ATOMIC_CSWAP } ibex_tl_atomic_op_t;
typedef struct ibex_tl_atomic {
    ibex_tl_atomic_op_t op;
    uint64_t operand;          /* FADD: the addend; CSWAP: the value compared */
    uint64_t swap;             /* CSWAP: the value stored on a match */
    uint64_t *result;          /* the old value, written on completion */
    ibex_tl_mem_t *result_mem; /* registration covering result, or NULL */
    uint64_t remote;           /* peer's virtual address, 8-byte aligned */
    const void *rkey;
    ibex_tl_comp_t *comp; /* called when IBEX_INPROGRESS was returned */
} ibex_tl_atomic_t;

typedef struct ibex_tl_ops {
    /* Opens the transport; fills *caps. IBEX_ERR_NO_DEVICE means "not usable here" (quietly
     * skipped when transports are auto-selected). */
    ibex_status_t (*open)(const ibex_tl_params_t *params, ibex_tl_t **tl_p, ibex_tl_caps_t *caps_p);
    /* Quiesces (no peer still reading our memory once every rank has called it) and frees. */
    void (*close)(ibex_tl_t *tl);
    /* This process's address, published to peers through the bootstrap. */
    ibex_status_t (*addr_pack)(ibex_tl_t *tl, void *buf, size_t *len_p);
    /* Whether this transport can reach a peer at all (e.g. shm: same node). */
    bool (*reachable)(ibex_tl_t *tl, int peer);
    /* Connects to a peer from its published address (possibly lazily, on first send). */
    ibex_status_t (*ep_create)(ibex_tl_t *tl, int peer, const void *addr, size_t addr_len,
                               ibex_tl_ep_t **ep_p);
    void (*ep_destroy)(ibex_tl_ep_t *ep);
    ibex_status_t (*send)(ibex_tl_ep_t *ep, const void *hdr, size_t hdr_len, const void *payload,
                          size_t len);
    /* IBEX_TL_CAP_SEND_FILL: send() of hdr + len payload bytes that fill(dst, len, ctx) writes
     * into the transport's buffer; the same limits, ordering and IBEX_ERR_AGAIN rule as send. */
    ibex_status_t (*send_fill)(ibex_tl_ep_t *ep, const void *hdr, size_t hdr_len, size_t len,
                               ibex_tl_fill_cb_t fill, void *ctx);
    ibex_status_t (*put)(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc);
    ibex_status_t (*get)(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc);
    /* A remote atomic (IBEX_TL_CAP_ATOMIC); returns like put / get. */
    ibex_status_t (*atomic)(ibex_tl_ep_t *ep, const ibex_tl_atomic_t *desc);
    ibex_status_t (*mem_reg)(ibex_tl_t *tl, void *addr, size_t len, ibex_tl_mem_t **mem_p);
    void (*mem_dereg)(ibex_tl_t *tl, ibex_tl_mem_t *mem);
    /* Writes the remote key for (mem) into buf (caps.rkey_size bytes). */
    ibex_status_t (*mem_pack_rkey)(ibex_tl_t *tl, ibex_tl_mem_t *mem, void *buf);
    /* Memory the transport can use without registering per message (MPI_Alloc_mem). */
    ibex_status_t (*mem_alloc)(ibex_tl_t *tl, size_t len, void **ptr_p);
    ibex_status_t (*mem_free)(ibex_tl_t *tl, void *ptr);
    int (*progress)(ibex_tl_t *tl);
    /* For ibex_info: prints devices found and what the transport would choose. */
    void (*info)(void *out_file);
    /* Fills *st_p with the transport's counts (the stub: all 0). */
    void (*stats)(ibex_tl_t *tl, ibex_tl_stats_t *st_p);
} ibex_tl_ops_t;

enum {
    /* Reaches only this process (a loopback queue): the progress loop polls it only while this
     * process has sent itself something. */
    IBEX_TL_COMP_LOOPBACK = 1u << 0,
    /* Moves bytes through memory shared by the processes of a node, and so reaches only
     * processes of this node: while no open transport says so (IBEX_TRANSPORTS left it out),
     * the collectives' own shared-memory algorithms do not run either (ibex_ep_node_memory);
     * the engine counts endpoints to other nodes over it (ibex_eps_offnode_cpu_copy), which
     * must never happen. */
    IBEX_TL_COMP_NODE_MEMORY = 1u << 1,
};

typedef struct ibex_tl_component {
    const char *name; /* the name IBEX_TRANSPORTS uses; also the address key ibex.tl.<name> */
    int priority;     /* lower first: the order transports are opened and tried for a peer */
    uint32_t flags;   /* IBEX_TL_COMP_* */
    ibex_tl_ops_t ops;
} ibex_tl_component_t;

/*
 * The registry. A backend registers its component from its own folder with
 * IBEX_TL_REGISTER(component): a pointer to it goes into the "ibex_tl" ELF section, which
 * transport.c walks; there is no list of backends anywhere else. A program sees exactly the
 * backends it links.
 */
#define IBEX_TL_REGISTER(comp)                                                                     \
    static ibex_tl_component_t *ibex_tl_reg_##comp                                                 \
        __attribute__((used, section("ibex_tl"), aligned(sizeof(void *)))) = &(comp)

/* Registered components in priority order (ties by name): the i-th, or NULL past the end. */
ibex_tl_component_t *ibex_tl_component(int i);
int ibex_tl_component_count(void);
/* The component registered under name, or NULL. */
ibex_tl_component_t *ibex_tl_component_find(const char *name);
/* "self,shm,verbs": the registered names in priority order, comma-separated, for messages. */
void ibex_tl_component_names(char *buf, size_t len);

/* Replaces NULL ops with "not supported" stubs (transport/transport.c). */
void ibex_tl_fill_stubs(ibex_tl_ops_t *ops);

#endif
