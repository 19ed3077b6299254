/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wire protocol of the point-to-point engine (runtime/proto*.c), in the manner of Open MPI's
 * ob1 headers: MATCH messages take part in MPI matching (EAGER carries the data, RTS announces a
 * rendezvous), the others are control messages addressed to a request by its id.
 *
 *   eager:          EAGER(data) ..................................... receiver copies out
 *   eager sync:     EAGER|SYNC(data) ->  <- ACK ..................... Ssend completes on ACK
 *   rendezvous READ:  RTS(addr, rkey) ->  receiver gets  <- FIN ..... sender completes on FIN
 *   rendezvous WRITE: RTS ->  <- CTS(addr, rkey)  sender puts, FIN -> receiver completes on FIN
 *   rendezvous SPLIT: RTS(addr) ->  <- CTS(second half)  then at once both copy: the receiver
 *                     gets the first half (then FIN ->), the sender puts the second (then <- FIN);
 *                     each side completes on its own copy and the other's FIN
 *   rendezvous PIPE:  RTS|PIPE ->  <- CTS(bytes wanted)  FRAG FRAG ... -> (proto_pipe.c): the
 *                     sender copies fragments into the transport's sends, the receiver copies
 *                     each out on arrival, so both work at once; no FIN (the sender is done
 *                     once the last fragment is handed over, the receiver once it has them all)
 */
#ifndef IBEX_PROTO_H
#define IBEX_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "transport.h"

#define IBEX_PROTO_HDR_LIST(X)                                                                     \
    X(EAGER, "eager")                                                                              \
    X(RTS, "rts")                                                                                  \
    X(CTS, "cts")                                                                                  \
    X(FIN, "fin")                                                                                  \
    X(ACK, "ack")                                                                                  \
    X(FRAG, "frag")

#define IBEX_HDR_ENUM(name, text) IBEX_HDR_##name,
typedef enum { IBEX_PROTO_HDR_LIST(IBEX_HDR_ENUM) IBEX_HDR_COUNT } ibex_hdr_type_t;
#undef IBEX_HDR_ENUM

enum {
    IBEX_HDR_FLAG_SYNC = 1u << 0,  /* EAGER: the sender waits for an ACK on match */
    IBEX_HDR_FLAG_WRITE = 1u << 1, /* RTS: the receiver answers CTS (rendezvous WRITE) */
    IBEX_HDR_FLAG_SPLIT = 1u << 2, /* RTS: receiver reads the first part, sender writes the rest */
    IBEX_HDR_FLAG_PIPE = 1u << 3,  /* RTS: the receiver answers CTS, the data follows in FRAGs */
};

#define IBEX_RKEY_MAX 32

/* Header of a matching message (EAGER, RTS). */
typedef struct ibex_match_hdr {
    uint8_t type;
    uint8_t flags;
    uint16_t rkey_len; /* RTS */
    uint32_t ctx;      /* context id */
    int32_t src;       /* sender's rank in the communicator */
    int32_t tag;
    uint32_t seq; /* per (sender, receiver) sequence: holds early arrivals back */
    uint32_t pad;
    uint64_t sreq; /* sender's request id, for ACK / CTS / FIN (EAGER|SYNC, RTS) */
} ibex_match_hdr_t;

/* RTS: the match header, then this. */
typedef struct ibex_rts_hdr {
    ibex_match_hdr_t m;
    uint64_t len;  /* full message length in bytes */
    uint64_t addr; /* READ: where the receiver reads from */
    uint8_t rkey[IBEX_RKEY_MAX];
} ibex_rts_hdr_t;

/* CTS, FIN, ACK. */
typedef struct ibex_ctl_hdr {
    uint8_t type;
    uint8_t flags;
    uint16_t rkey_len;
    int32_t status;    /* FIN: an ibex_status_t the peer saw */
    uint64_t req;      /* the addressee's request id */
    uint64_t peer_req; /* CTS: the receiver's request id, for the FIN after the put */
    uint64_t addr;     /* CTS: where the sender writes */
    uint64_t len;      /* CTS: bytes to write */
    uint64_t offset;   /* CTS: where in the message the write starts (SPLIT) */
    uint8_t rkey[IBEX_RKEY_MAX];
} ibex_ctl_hdr_t;

/* FRAG (rendezvous PIPE): this, then len bytes of the message from offset. `req` sits where
 * the control header has it, so both are addressed to a request the same way. */
typedef struct ibex_frag_hdr {
    uint8_t type;
    uint8_t flags;
    uint16_t pad;
    uint32_t len;    /* payload bytes after the header */
    uint64_t req;    /* the receiver's request id */
    uint64_t offset; /* where in the message the payload goes */
} ibex_frag_hdr_t;

const char *ibex_proto_hdr_name(int type);
/* Whether data (len bytes from a peer) is a well-formed message: IBEX_OK, or IBEX_ERR_INVALID
 * with the reason in why (proto_wire.c). */
ibex_status_t ibex_proto_wire_check(const void *data, size_t len, char *why, size_t whylen);

typedef enum {
    IBEX_PROTO_EAGER,
    IBEX_PROTO_RNDV_READ,
    IBEX_PROTO_RNDV_WRITE,
    IBEX_PROTO_RNDV_SPLIT, /* both: the receiver reads the first half, the sender writes the rest */
    IBEX_PROTO_RNDV_PIPE,  /* after a CTS, the data in fragments through the transport's sends */
} ibex_proto_t;

/* The one place that chooses how a message travels: from the transport's capabilities, the
 * configuration and whether the send buffer is contiguous only. */
ibex_proto_t ibex_proto_choose(const ibex_tl_caps_t *caps, size_t bytes, bool contig);
/* Largest payload sent eagerly over a transport (IBEX_EAGER_LIMIT or derived from caps). */
size_t ibex_proto_eager_limit(const ibex_tl_caps_t *caps);
/* Whether a non-contiguous rendezvous buffer of bytes in pieces moves as a piece list. */
bool ibex_proto_rndv_iov(const ibex_tl_caps_t *caps, size_t bytes, size_t pieces);
/* Whether a non-contiguous payload (eager or a PIPE fragment) is packed straight into the
 * transport's send buffer (send_fill) rather than into one of ours that send copies. */
bool ibex_proto_pack_in_slot(const ibex_tl_caps_t *caps);

#endif
