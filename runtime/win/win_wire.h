/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The requests windows send to a target's active-message port (runtime/win). Each starts with
 * win_hdr_t; data requests add the target layout (nblocks blocks of one element, repeated
 * tcount times every extent bytes) and their data:
 *
 *   PUT   hdr, blocks, data ........................................ (no reply)
 *   ACC   hdr, blocks, data ........................................ (no reply)
 *   GET   hdr, blocks ...................................... <- data (reply tag)
 *   GACC  hdr, blocks, data ............................ <- old data (reply tag)
 *   CAS   hdr, blocks, origin value, compare value ..... <- old value (reply tag)
 *   FLUSH / UNLOCK ............. <- int, once every request sent before it is applied
 *   LOCK ........................ <- int, once granted (the target queues it until then)
 *   REGIONS ...................... <- the attached regions of a dynamic window
 *   POST / COMPLETE .............. (no reply): general active target synchronisation
 */
#ifndef IBEX_WIN_WIRE_H
#define IBEX_WIN_WIRE_H

#include <stdint.h>

#include "ibex_datatype.h"

enum {
    WIN_PUT,
    WIN_GET,
    WIN_ACC,
    WIN_GACC,
    WIN_CAS,
    WIN_FLUSH,
    WIN_LOCK,
    WIN_UNLOCK,
    WIN_REGIONS,
    WIN_POST,
    WIN_COMPLETE,
};

typedef struct win_hdr {
    uint8_t type;
    uint8_t lock_type; /* LOCK / UNLOCK: MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE */
    uint16_t pad;
    int32_t tag;    /* reply tag */
    int32_t op;     /* ACC / GACC: MPI_Op handle */
    int32_t basic;  /* ACC / GACC / CAS: the predefined type of the elements */
    uint64_t addr;  /* displacement in bytes from the window base (dynamic: an address) */
    uint64_t bytes; /* data bytes of the target layout */
    int64_t extent;
    int64_t tcount; /* MPI_Count: an operation of the _c calls may repeat past an int */
    int32_t nblocks;
    int32_t pad2;
} win_hdr_t;

/* Most regions a REGIONS reply carries. */
#define WIN_REGIONS_MAX 4096

#endif
