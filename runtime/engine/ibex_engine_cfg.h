/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine's tunables (IBEX_TRANSPORTS, the protocol and waiting settings): their variables,
 * filled by ibex_config_load from the table in engine_cfg.c. */
#ifndef IBEX_ENGINE_CFG_H
#define IBEX_ENGINE_CFG_H

#include "ibex_config.h" /* IBEX_SIZE_AUTO */

typedef enum { IBEX_RNDV_AUTO, IBEX_RNDV_READ, IBEX_RNDV_WRITE } ibex_rndv_scheme_t;
typedef enum { IBEX_WAIT_AUTO, IBEX_WAIT_SPIN, IBEX_WAIT_YIELD } ibex_wait_policy_t;

typedef struct ibex_engine_cfg {
    char *transports;               /* "auto" or a comma list of registered transport names */
    long long eager_limit;          /* bytes of payload sent eagerly, or IBEX_SIZE_AUTO */
    int rndv_scheme;                /* ibex_rndv_scheme_t */
    long long rndv_frag_size;       /* rendezvous pipeline fragment */
    long long rndv_split_min;       /* auto scheme: SPLIT from this size on CPU-copy transports */
    long long rndv_iov_min;         /* non-contiguous rendezvous: no pack from this block size */
    long long rndv_pipe_max;        /* auto scheme: PIPE up to this size on CPU-copy transports */
    long long rndv_pipe_contig_max; /* the same for a contiguous send buffer */
    long long rndv_pipe_frag;       /* PIPE: bytes per fragment (header included) */
    int dt_vector;            /* IBEX_DT_VECTOR: regular layouts pack without the block list */
    int pack_in_slot;         /* IBEX_PACK_IN_SLOT: pack into the transport's slot (send_fill) */
    long long unexpected_max; /* bytes of buffered unexpected eager data per process */
    int wait_policy;          /* ibex_wait_policy_t */
    int spin_count;           /* progress polls before yielding */
    int async_progress;       /* IBEX_ASYNC_PROGRESS: 1 = a progress thread per rank */
    int async_sleep_us;       /* its nap after an empty poll */
} ibex_engine_cfg_t;

extern ibex_engine_cfg_t ibex_engine_cfg;

#endif
