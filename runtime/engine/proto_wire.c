/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The checks every message from a peer passes before the engine reads its header: the type is
 * one we send, the message is at least as long as its header says (match header, RTS with its
 * rkey, CTS / FIN / ACK with theirs), the rkey fits. A peer sending garbage then gets a clear
 * error and its connection is failed, instead of the engine reading past the message. Pure (no
 * engine state), so the fuzz target (tests/fuzz/fuzz_wire.c) runs it without a process around.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "ibex_proto.h"

__attribute__((format(printf, 3, 4))) static ibex_status_t wire_bad(char *why, size_t len,
                                                                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return IBEX_ERR_INVALID;
}

static ibex_status_t wire_rkey(const void *data, size_t len, size_t rkey_off, uint16_t rkey_len,
                               char *why, size_t whylen)
{
    if (rkey_len > IBEX_RKEY_MAX)
        return wire_bad(why, whylen, "a %u-byte remote key (at most %d)", rkey_len, IBEX_RKEY_MAX);
    if (len < rkey_off + rkey_len)
        return wire_bad(why, whylen, "%zu bytes, shorter than its header (%zu)", len,
                        rkey_off + rkey_len);
    (void)data;
    return IBEX_OK;
}

ibex_status_t ibex_proto_wire_check(const void *data, size_t len, char *why, size_t whylen)
{
    const ibex_match_hdr_t *m = data;
    const ibex_ctl_hdr_t *c = data;

    if (len < 1)
        return wire_bad(why, whylen, "an empty message");
    switch (m->type) {
    case IBEX_HDR_EAGER:
        if (len < sizeof(*m))
            return wire_bad(why, whylen,
                            "an eager message of %zu bytes, shorter than its "
                            "header (%zu)",
                            len, sizeof(*m));
        return IBEX_OK;
    case IBEX_HDR_RTS:
        if (len < sizeof(*m))
            return wire_bad(why, whylen, "a %zu-byte rendezvous request (header: %zu)", len,
                            sizeof(*m));
        return wire_rkey(data, len, offsetof(ibex_rts_hdr_t, rkey), m->rkey_len, why, whylen);
    case IBEX_HDR_CTS:
    case IBEX_HDR_FIN:
    case IBEX_HDR_ACK:
        if (len < offsetof(ibex_ctl_hdr_t, rkey))
            return wire_bad(why, whylen, "a %zu-byte control message (header: %zu)", len,
                            offsetof(ibex_ctl_hdr_t, rkey));
        return wire_rkey(data, len, offsetof(ibex_ctl_hdr_t, rkey), c->rkey_len, why, whylen);
    case IBEX_HDR_FRAG:
        if (len < sizeof(ibex_frag_hdr_t) ||
            len - sizeof(ibex_frag_hdr_t) != ((const ibex_frag_hdr_t *)data)->len)
            return wire_bad(why, whylen, "a %zu-byte fragment (header: %zu)", len,
                            sizeof(ibex_frag_hdr_t));
        return IBEX_OK;
    default:
        return wire_bad(why, whylen, "a message of unknown type %u", m->type);
    }
}
