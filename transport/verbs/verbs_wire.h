/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the verbs transport takes from outside the process: the published address of a peer
 * (verbs_addr_t, through PMIx) and the connection datagrams (REQ / REP / RTU over UD, which any
 * process on the fabric can send). verbs_wire.c checks both before anything reads them; pure,
 * so the fuzz target (tests/fuzz/fuzz_wire.c) runs it without a device or a job.
 */
#ifndef IBEX_VERBS_WIRE_H
#define IBEX_VERBS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "verbs.h"

/* DISC: "I failed our connection", sent by the side that saw the error (issue 16). */
enum { CM_REQ = 1, CM_REP = 2, CM_RTU = 3, CM_DISC = 4 };

typedef struct verbs_cm_msg {
    uint32_t magic;
    uint8_t type;
    uint8_t pad[3];
    int32_t src, dst;   /* world ranks */
    uint32_t qpn;       /* the sender's RC QP for this pair */
    uint64_t dst_nonce; /* the receiver's nonce, from its address */
    verbs_addr_t addr;  /* the sender's address */
} verbs_cm_msg_t;

/* Whether len bytes at addr are a usable address: the magic, a path MTU, a port, some credits.
 * On false, why says what is wrong. */
bool ibex_verbs_addr_valid(const void *addr, size_t len, char *why, size_t whylen);

/* What a connection datagram must be for this rank (rank of size, our nonce), from UD QP
 * src_qp: our magic, addressed to us by our nonce, from another rank of the job, a known type,
 * carrying a valid address of that UD QP. Copies it to *out (aligned) when it is. */
bool ibex_verbs_cm_parse(const void *buf, uint32_t len, int rank, int size, uint64_t nonce,
                         uint32_t src_qp, verbs_cm_msg_t *out);

#endif
