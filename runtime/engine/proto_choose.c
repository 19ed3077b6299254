/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one place that chooses how a message travels (eager, rendezvous READ or WRITE): from the
 * transport's capabilities and the configuration only, so it is unit-tested on its own.
 */
#include "ibex_engine_cfg.h"
#include "ibex_proto.h"

size_t ibex_proto_eager_limit(const ibex_tl_caps_t *caps)
{
    size_t hdr = sizeof(ibex_match_hdr_t);
    size_t max = caps->max_eager > hdr ? caps->max_eager - hdr : 0;
    size_t want;
    if (ibex_engine_cfg.eager_limit != IBEX_SIZE_AUTO)
        want = (size_t)ibex_engine_cfg.eager_limit;
    else
        want = caps->eager_limit_hint ? caps->eager_limit_hint : max;
    return want < max ? want : max;
}

/*
 * Eager while the payload fits the eager limit. Above it, rendezvous: PIPE (auto only) up to
 * IBEX_RNDV_PIPE_MAX on CPU-copy transports (a contiguous send buffer up to
 * IBEX_RNDV_PIPE_CONTIG_MAX: past it one cross-memory copy per side, SPLIT or READ, beats
 * two copies through the ring, runtime/engine/README.md "PIPE, SPLIT and READ by size");
 * READ lets the receiver
 * pull as soon as it matches (one control message less than WRITE); WRITE when forced or when
 * the transport can only put; SPLIT (auto only) for large messages when put / get are CPU
 * copies, so that sender and receiver copy in parallel.
 */
ibex_proto_t ibex_proto_choose(const ibex_tl_caps_t *caps, size_t bytes, bool contig)
{
    if (bytes <= ibex_proto_eager_limit(caps))
        return IBEX_PROTO_EAGER;
    bool can_read = caps->flags & IBEX_TL_CAP_GET;
    bool can_write = caps->flags & IBEX_TL_CAP_PUT;
    /* Where put / get are CPU copies through the kernel (process_vm_readv pins every page),
     * mid-sized messages go faster as fragments copied through the transport's own sends,
     * the sender filling while the receiver empties. */
    long long pipe_max =
        contig ? ibex_engine_cfg.rndv_pipe_contig_max : ibex_engine_cfg.rndv_pipe_max;
    if (ibex_engine_cfg.rndv_scheme == IBEX_RNDV_AUTO && (caps->flags & IBEX_TL_CAP_CPU_RMA) &&
        caps->max_eager > sizeof(ibex_frag_hdr_t) && bytes <= (size_t)pipe_max)
        return IBEX_PROTO_RNDV_PIPE;
    /* When the CPUs copy (no offload), two copying at once halve a large transfer's time. */
    if (ibex_engine_cfg.rndv_scheme == IBEX_RNDV_AUTO && can_read && can_write &&
        (caps->flags & IBEX_TL_CAP_CPU_RMA) && bytes >= (size_t)ibex_engine_cfg.rndv_split_min)
        return IBEX_PROTO_RNDV_SPLIT;
    if (ibex_engine_cfg.rndv_scheme == IBEX_RNDV_WRITE && can_write)
        return IBEX_PROTO_RNDV_WRITE;
    return can_read ? IBEX_PROTO_RNDV_READ : IBEX_PROTO_RNDV_WRITE;
}

/*
 * A non-contiguous rendezvous buffer of `bytes` in `pieces` pieces moves as a piece list (no
 * staging copy) when the transport takes piece lists and the pieces are large enough: a small
 * piece costs the kernel's iterator more than a memcpy costs the pack (IBEX_RNDV_IOV_MIN).
 */
bool ibex_proto_pack_in_slot(const ibex_tl_caps_t *caps)
{
    return (caps->flags & IBEX_TL_CAP_SEND_FILL) && ibex_engine_cfg.pack_in_slot;
}

bool ibex_proto_rndv_iov(const ibex_tl_caps_t *caps, size_t bytes, size_t pieces)
{
    if (!(caps->flags & IBEX_TL_CAP_RMA_IOV) || pieces == 0 || pieces > (size_t)caps->max_iov)
        return false;
    return bytes / pieces >= (size_t)ibex_engine_cfg.rndv_iov_min;
}
