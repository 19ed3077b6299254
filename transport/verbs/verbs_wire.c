/* SPDX-License-Identifier: BSD-3-Clause */
/* Checks of the published address and of the connection datagrams (see verbs_wire.h). */
#include <stdio.h>
#include <string.h>

#include "verbs_wire.h"

bool ibex_verbs_addr_valid(const void *addr, size_t len, char *why, size_t whylen)
{
    verbs_addr_t a;

    if (!addr || len < sizeof(a)) {
        snprintf(why, whylen, "%zu bytes, not a verbs address (%zu)", len, sizeof(a));
        return false;
    }
    memcpy(&a, addr, sizeof(a));
    if (a.magic != VERBS_ADDR_MAGIC)
        snprintf(why, whylen, "magic 0x%08x, not a verbs address", a.magic);
    else if (a.mtu < IBV_MTU_256 || a.mtu > IBV_MTU_4096)
        snprintf(why, whylen, "path MTU code %u out of range", a.mtu);
    else if (a.port == 0)
        snprintf(why, whylen, "port 0");
    else if (a.grant == 0 || a.grant > VERBS_IMM_CREDITS_MASK)
        snprintf(why, whylen, "%u eager credits", a.grant);
    else if (a.is_roce > 1)
        snprintf(why, whylen, "link layer code %u", a.is_roce);
    else
        return true;
    return false;
}

bool ibex_verbs_cm_parse(const void *buf, uint32_t len, int rank, int size, uint64_t nonce,
                         uint32_t src_qp, verbs_cm_msg_t *out)
{
    char why[80];

    if (len < sizeof(*out))
        return false;
    memcpy(out, buf, sizeof(*out));
    return out->magic == VERBS_CM_MAGIC && out->dst == rank && out->dst_nonce == nonce &&
           out->src >= 0 && out->src < size && out->src != rank && out->type >= CM_REQ &&
           out->type <= CM_DISC && out->addr.ud_qpn == src_qp &&
           ibex_verbs_addr_valid(&out->addr, sizeof(out->addr), why, sizeof(why));
}
