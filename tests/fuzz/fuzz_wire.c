/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: what peers send and the engine / transports parse.
 * The first byte picks the parser, the rest is the message, in a buffer of exactly its size (so
 * any read past it is an AddressSanitizer report):
 *   0  an engine message (shm ring slot or verbs eager buffer): ibex_proto_wire_check, then
 *      every field the engine reads of an accepted message (runtime/engine/proto_recv.c)
 *   1  a published verbs address: ibex_verbs_addr_valid
 *   2  a connection datagram (REQ / REP / RTU / DISC): ibex_verbs_cm_parse, as rank 1 of 4
 *   3  a shm ring slot header: the length check, then the read of that many bytes of a slot
 *   4  a shm segment header's ring layout: ibex_shm_geometry_ok, then the writes to our ring
 *      the accepted layout allows, inside a segment of the claimed size
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_proto.h"
#include "shm_ring.h"
#include "verbs_wire.h"

static volatile uint64_t g_sink;

static void touch(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += b[i];
    g_sink += s;
}

/* The reads proto_recv.c does of a message the check let through. */
static void proto_reads(const unsigned char *d, size_t len)
{
    const ibex_match_hdr_t *m = (const void *)d;
    const ibex_ctl_hdr_t *c = (const void *)d;

    switch (m->type) {
    case IBEX_HDR_EAGER:
        touch(d, sizeof(*m));
        touch(m + 1, len - sizeof(*m));
        break;
    case IBEX_HDR_RTS:
        touch(d, offsetof(ibex_rts_hdr_t, rkey));
        touch(((const ibex_rts_hdr_t *)(const void *)d)->rkey, m->rkey_len);
        break;
    case IBEX_HDR_FRAG: /* proto_pipe.c: the header, then its payload */
        touch(d, sizeof(ibex_frag_hdr_t));
        touch(d + sizeof(ibex_frag_hdr_t), ((const ibex_frag_hdr_t *)(const void *)d)->len);
        break;
    default:
        touch(d, offsetof(ibex_ctl_hdr_t, rkey));
        touch(c->rkey, c->rkey_len);
        break;
    }
}

static void fuzz_shm_slot(const unsigned char *d, size_t len)
{
    const size_t slot_size = 256;
    uint32_t slen;

    if (len < sizeof(slen))
        return;
    memcpy(&slen, d, sizeof(slen));
    unsigned char *slot = calloc(1, slot_size);
    if (ibex_shm_slot_len_ok(slen, slot_size))
        touch(slot + IBEX_SHM_SLOT_HDR, slen);
    free(slot);
}

static void fuzz_shm_geometry(const unsigned char *d, size_t len)
{
    uint64_t v[3];
    uint32_t nrings;
    const size_t page = 4096, stride = 2 * 4096;

    if (len < sizeof(v) + sizeof(nrings))
        return;
    memcpy(v, d, sizeof(v));
    memcpy(&nrings, d + sizeof(v), sizeof(nrings));
    if (v[2] > (1u << 20) || !ibex_shm_geometry_ok(v[0], v[1], nrings, v[2], stride, page))
        return;
    unsigned char *seg = malloc(v[2]);
    for (uint32_t i = 0; i < nrings; i++)
        memset(seg + v[0] + (size_t)i * v[1], 0, v[1]);
    free(seg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[128];
    verbs_cm_msg_t msg;

    if (size < 1 || size > 8192)
        return 0;
    size_t len = size - 1;
    unsigned char *d = malloc(len ? len : 1);
    memcpy(d, data + 1, len);
    why[0] = 0;
    switch (data[0] % 5) {
    case 0:
        if (ibex_proto_wire_check(d, len, why, sizeof(why)) == IBEX_OK)
            proto_reads(d, len);
        else if (!why[0])
            abort();
        break;
    case 1:
        if (!ibex_verbs_addr_valid(d, len, why, sizeof(why)) && !why[0])
            abort();
        break;
    case 2:
        if (ibex_verbs_cm_parse(d, (uint32_t)len, 1, 4, 0x0123456789abcdefull, 0x42, &msg) &&
            (msg.src < 0 || msg.src >= 4 || msg.src == 1))
            abort();
        break;
    case 3:
        fuzz_shm_slot(d, len);
        break;
    default:
        fuzz_shm_geometry(d, len);
        break;
    }
    free(d);
    return 0;
}
